"""Issue 21: the library face without MPI: a user's function or runner object measures, the store keeps it."""

import math

import pytest

import iotune
from iotune.records import Measurement, PhaseResult

SPEC = {
    "name": "lib",
    "parameters": [
        {"name": "transfer_size", "type": "size", "levels": ["64KiB", "1MiB"], "role": "workload",
         "layer": "application"},
        {"name": "romio_cb_write", "type": "categorical", "levels": ["automatic", "enable", "disable"],
         "role": "system", "layer": "mpiio"},
        {"name": "cb_buffer_size", "type": "size", "levels": ["1MiB", "4MiB"], "role": "system", "layer": "mpiio"},
    ],
    "benchmark": {"api": "MPIIO", "processes": 2, "block_size": "1MiB"},
    "campaign": {"sampler": "full", "repeats": 2},
}


def seconds_of(config: dict) -> float:
    """A made-up application: collective buffering off is slow, a larger buffer helps; some settings break."""
    if config["romio_cb_write"] == "disable" and config["cb_buffer_size"] == 4 * 2**20:
        raise OSError("the application crashed")
    if config["romio_cb_write"] == "enable" and config["cb_buffer_size"] == 2**20:
        return math.nan  # e.g. a parse of the application's log gone wrong
    base = 2.0 if config["romio_cb_write"] == "disable" else 1.0
    return base * (0.5 if config["cb_buffer_size"] == 4 * 2**20 else 1.0) * (1 + config["transfer_size"] / 2**30)


def test_optimize_records_failures_and_finds_the_fastest(tmp_path):
    seen = []
    with iotune.create_study(SPEC, storage=tmp_path / "lib.db") as study:
        report = study.optimize(seconds_of, progress=lambda trial, m: seen.append(m.status), catch=(OSError,))
        records = study.records()
        best = study.best(workload={"transfer_size": "1MiB"})
    assert len(records) == len(seen) == 24  # 2 workloads x 6 system configurations x 2 repeats
    failed = [r for r in records if r["state"] == "FAILED"]
    assert len(failed) == report.failed == 8
    assert any(r["error"].startswith("OSError: the application crashed") for r in failed)
    assert report.first_error is not None
    assert any("returned nan" in r["error"] for r in failed)
    assert best.best.config == {"transfer_size": 2**20, "romio_cb_write": "automatic", "cb_buffer_size": 4 * 2**20}
    assert best.best.n == 2 and best.best.mean_time == pytest.approx(0.5 * (1 + 2**20 / 2**30))


def test_optimize_again_measures_only_what_is_new_and_load_study_reads_it(tmp_path):
    url = f"sqlite:///{tmp_path / 'lib.db'}"
    calls = []

    def counted(config):
        calls.append(config)
        return 1.0

    with iotune.create_study(SPEC, storage=url) as study:
        study.optimize(counted, n_trials=3, sampler="random", seed=3)
        study.optimize(counted, n_trials=3, sampler="random", seed=3)  # the same proposals: all in the store
    assert len(calls) == 3  # n_trials counts calls (as optuna's): 3 configurations, once each, once
    with iotune.load_study("lib", storage=url) as again:
        assert len(again.records()) == 3 and again.name == "lib"


def test_n_trials_counts_calls_and_a_failing_function_raises_unless_caught(tmp_path):
    calls = []

    def counted(config):
        calls.append(config)
        return 1.0

    def broken(config):
        calls.append(config)
        raise ValueError("no such file: out.h5")

    with iotune.create_study(SPEC, storage=tmp_path / "lib.db") as study:
        study.optimize(counted, n_trials=12, sampler="random", seed=1)
        assert len(calls) == 12
        with pytest.raises(iotune.errors.IotuneError, match="multiple of repeats"):
            study.optimize(counted, n_trials=5, repeats=2)
    calls.clear()
    with iotune.create_study({**SPEC, "name": "broken"}, storage=tmp_path / "lib.db") as study:
        with pytest.raises(ValueError, match="out.h5"):  # optuna's default: the first error stops it
            study.optimize(broken, n_trials=6, sampler="random", seed=1)
        assert len(calls) == 1 and [r["state"] for r in study.records()].count("FAILED") == 1
        report = study.optimize(broken, n_trials=6, sampler="random", seed=2, catch=(ValueError,))
        assert report.failed >= 5 and report.first_error.startswith("ValueError: no such file: out.h5")
        with pytest.raises(iotune.errors.StudyError, match=r"failed; the first: ValueError"):
            study.best(workload={"transfer_size": "1MiB"})


def test_a_runner_object_measures_with_bench(tmp_path):
    class HintTimer:
        """Times a trial from its MPI-IO hints (a stand-in for a user's own benchmark)."""

        closed = False

        def run(self, spec, scratch):
            seconds = 0.2 if spec.hints.get("romio_cb_write") == "enable" else 0.4
            return Measurement("COMPLETE", [PhaseResult("write", spec.aggregate_bytes, seconds, None, seconds, None,
                                                        1)], runner="hint-timer", wall_seconds=seconds)

        def close(self):
            self.closed = True

    runner = HintTimer()
    with iotune.create_study(SPEC, storage=tmp_path / "lib.db") as study:
        report = study.bench(runner=runner, repeats=1, scratch=tmp_path / "scratch")
        best = study.best(workload={"transfer_size": 65536})
        frame = study.trials()
    assert report.completed == 12 and report.failed == 0 and not runner.closed
    assert best.best.config["romio_cb_write"] == "enable"
    assert list(frame.columns[:6]) == ["trial_id", "state", "repeat", "transfer_size", "romio_cb_write",
                                       "cb_buffer_size"]
    assert len(frame) == 12 and set(frame["runner"]) == {"hint-timer"}


def test_bad_input_is_an_iotune_error(tmp_path):
    db = tmp_path / "lib.db"
    with iotune.create_study(SPEC, storage=db) as study:
        study.optimize(lambda config: 1.0, n_trials=2)
        with pytest.raises(iotune.errors.StudyError, match="measured 2 workloads|has no completed"):
            study.best()
        with pytest.raises(iotune.errors.SpaceError, match="not a level"):
            study.best(workload={"transfer_size": "3KiB"})
        with pytest.raises(iotune.errors.IotuneError, match="n_trials"):
            study.optimize(lambda config: 1.0, n_trials=0)
    with pytest.raises(iotune.errors.StudyError, match="already exists"):
        iotune.create_study(SPEC, storage=db)
    iotune.create_study(SPEC, storage=db, load_if_exists=True).close()
    with pytest.raises(iotune.errors.StudyError, match="no study named 'other'"):
        iotune.load_study("other", storage=db)
    with pytest.raises(iotune.errors.StoreError):
        iotune.load_study("lib", storage=tmp_path / "typo.db")
    assert not (tmp_path / "typo.db").exists()
    with pytest.raises(iotune.errors.IotuneError):
        iotune.create_study(tmp_path / "missing.yaml", storage=db)
