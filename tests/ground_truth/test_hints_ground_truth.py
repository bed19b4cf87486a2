"""The MPI-IO hints ground truth (data/ground_truth/hints_ground_truth.*): ROMIO hints measured on this
machine, the table the tuner's leave-one-workload-out replay is judged on.  Reading it needs no root and
no MPI, only the committed CSV and spec."""

import csv
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

import pytest

from iotune.analysis import best_per_workload
from iotune.records import Measurement, PhaseResult
from iotune.spec import load_spec
from iotune.store import Store

DATA = Path(__file__).resolve().parents[2] / "data" / "ground_truth"
SPEC = DATA / "hints_ground_truth.yaml"
CSV = DATA / "hints_ground_truth.csv"
REPEATS = 5
pytestmark = pytest.mark.skipif(not CSV.exists(), reason=f"{CSV.name} has not been measured yet")


@pytest.fixture(scope="module")
def campaign():
    spec = load_spec(SPEC)
    return spec.space, spec


@pytest.fixture(scope="module")
def trials(campaign) -> dict[str, list[dict]]:
    """The CSV's rows grouped by trial."""
    grouped = defaultdict(list)
    with open(CSV, newline="") as handle:
        for row in csv.DictReader(handle):
            grouped[row["trial_uid"]].append(row)
    return grouped


def configuration_of(space, row):
    return space.configuration({p.name: row[f"cfg.{p.name}"] or None for p in space.parameters})


def phase_of(row) -> PhaseResult:
    return PhaseResult(row["phase"], int(row["bytes"]), float(row["seconds"]), float(row["open_seconds"]),
                       float(row["transfer_seconds"]), float(row["close_seconds"]), int(row["ops"]))


def test_every_planned_configuration_measured_five_times_without_failure(campaign, trials):
    space, settings = campaign
    planned = {c.key for c in space.full_factorial()}
    repeats = defaultdict(set)
    for rows in trials.values():
        assert sorted(r["phase"] for r in rows) == ["read", "write"]
        assert all(float(r["seconds"]) > 0 for r in rows)
        repeats[configuration_of(space, rows[0]).key].add(int(rows[0]["repeat"]))
    assert set(repeats) == planned
    assert all(found == set(range(REPEATS)) for found in repeats.values())
    assert len(trials) == len(planned) * REPEATS


def test_the_table_spans_at_least_eight_workloads_of_48_hint_configurations(campaign, trials):
    space, _ = campaign
    per_workload = defaultdict(set)
    for rows in trials.values():
        configuration = configuration_of(space, rows[0])
        per_workload[configuration.workload_key].add(configuration.key)
    assert sum(len(keys) >= 48 for keys in per_workload.values()) >= 8


def test_every_phase_moved_all_the_bytes_of_its_workload(trials):
    for rows in trials.values():
        for row in rows:
            expected = int(row["cfg.processes"]) * int(row["cfg.block_size"]) * int(row["cfg.segment_count"])
            assert int(row["bytes"]) == expected
            assert int(row["ops"]) == expected // int(row["cfg.transfer_size"])
            assert row["read_cache_mode"] == "drop_caches"


def test_romio_caps_cb_nodes_at_the_processes_sharing_the_file(trials):
    """cb_config_list "*:*" lets ROMIO use up to one aggregator per process; a file per process has one."""
    for rows in trials.values():
        row = rows[0]
        sharing = 1 if row["cfg.file_per_process"] == "True" else int(row["cfg.processes"])
        asked = int(row["cfg.cb_nodes"]) if row["cfg.cb_nodes"] else sharing
        assert int(row["hint.cb_nodes"]) == min(asked, sharing)


def test_every_workload_has_its_default_configuration_among_its_best_and_worst(campaign, trials):
    """iotune's own per-workload analysis over the whole table (records built from the CSV, no store)."""
    space, settings = campaign
    records = []
    for rows in trials.values():
        configuration = configuration_of(space, rows[0])
        records.append(SimpleNamespace(config=configuration.to_dict(), config_key=configuration.key,
                                       workload_key=configuration.workload_key, state="COMPLETE",
                                       phases=[phase_of(r) for r in rows]))
    best = best_per_workload(space, records)
    assert len(best) == len({c.workload_key for c in space.full_factorial()})
    assert all(b.default is not None and b.default.n == REPEATS for b in best)
    assert all(b.best.mean_time <= b.default.mean_time <= b.worst.mean_time for b in best)


def test_a_collective_and_an_independent_workload_load_into_a_store(campaign, trials, tmp_path):
    """Every trial of two workloads (P=4, 16 KiB, blocked; collective and independent) through the store."""
    space, _ = campaign
    chosen = [rows for rows in trials.values()
              if (rows[0]["cfg.processes"], rows[0]["cfg.transfer_size"], rows[0]["cfg.block_size"],
                  rows[0]["cfg.file_per_process"]) == ("4", "16384", "1048576", "False")]
    with Store(tmp_path / "hints.db") as store:
        study = store.create_study(space.name, space.to_yaml(), space.hash, {"source": CSV.name})
        for rows in chosen:
            configuration = configuration_of(space, rows[0])
            trial = store.start_trial(study.id, configuration.to_dict(), configuration.key,
                                      configuration.workload_key, int(rows[0]["repeat"]))
            store.finish_trial(trial, Measurement("COMPLETE", [phase_of(r) for r in rows]))
        stored = store.trials(study=space.name, state="COMPLETE")
        best = best_per_workload(space, stored)
    assert len(stored) == len(chosen) == (81 + 9) * REPEATS
    assert sorted(b.configurations for b in best) == [9, 81]
