"""Issue 12, item 3: screening effects per run, as a share, per phase, with their uncertainty and notes."""

import json

import numpy as np
import pytest

from iotune.cli.screen_cmd import show_screen
from iotune.records import Measurement, PhaseResult
from iotune.screening import Factor, build_design, load_screen
from iotune.space import Space
from iotune.store import Store
from iotune.stored import StoredStudy

SPACE = """\
name: four
parameters:
""" + "".join(f"  - {{name: {n}, type: categorical, levels: [lo, hi], role: system, layer: mpiio}}\n"
              for n in "abcd")

# seconds added by each factor's high value: a slows writes and speeds reads; c and d are nearly equal
WRITE = {"a": 0.40, "b": 0.20, "c": 0.05, "d": 0.052}
READ = {"a": -0.10, "b": 0.20, "c": 0.05, "d": 0.052}


def _phases(config, noise):
    write = 1.0 + sum(v for k, v in WRITE.items() if config[k] == "hi")
    read = 1.0 + sum(v for k, v in READ.items() if config[k] == "hi")
    return [PhaseResult("write", 2**20, write * noise, 0.0, write * noise, 0.0, 1, None),
            PhaseResult("read", 2**20, read * noise, 0.0, read * noise, 0.0, 1, 0)]


@pytest.fixture
def screened(tmp_path):
    space = Space.from_text(SPACE)
    design = build_design(space, [Factor(n, "lo", "hi") for n in "abcd"])
    store = Store(tmp_path / "s.db")
    study = store.create_study("s", space.to_yaml(), space.hash, {"screening": design.to_dict()})
    rng = np.random.default_rng(0)
    for configuration in design.configurations():
        for repeat in range(3):
            trial = store.start_trial(study.id, configuration.to_dict(), configuration.key,
                                      configuration.workload_key, repeat)
            store.finish_trial(trial, Measurement(status="COMPLETE", runner="synthetic", command="test",
                                                  phases=_phases(configuration.to_dict(),
                                                                 float(np.exp(rng.normal(0, 0.01))))))
    yield StoredStudy(store, study)
    store.close()


def test_effects_are_per_run_shares_and_phases(screened, capsys, monkeypatch):
    monkeypatch.setenv("IOTUNE_PLAIN", "1")
    result = load_screen(screened)
    show_screen(result, "json", "t", screened)
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    a = rows["a"]
    assert a["diff_s"] == pytest.approx(0.30, abs=0.02)  # 0.40 - 0.10 per run
    assert a["effect_s"] == pytest.approx(a["diff_s"] * result.runs / 2)  # the paper's sum is kept
    assert a["write_diff_s"] == pytest.approx(0.40, abs=0.02) and a["read_diff_s"] == pytest.approx(-0.10, abs=0.02)
    assert a["phases_disagree"] is True and rows["b"]["phases_disagree"] is False
    mean_run = np.mean([2.0 + sum(WRITE.values()) / 2 + sum(READ.values()) / 2])
    assert a["share_pct"] == pytest.approx(100 * 0.30 / mean_run, rel=0.05)
    assert a["diff_half_width_s"] > 0 and a["matters"] is True


def test_table_notes_disagreement_and_close_ranks(screened, capsys, monkeypatch):
    monkeypatch.setenv("IOTUNE_PLAIN", "1")
    show_screen(load_screen(screened), "table", "t", screened)
    out, err = capsys.readouterr()
    assert "high - low (s)" in out and "% of run" in out
    assert "write and read effects disagree in sign for a" in err
    assert "another screening of this spec may rank them the other way" in err and "c and d" in err.replace(
        "d and c", "c and d")
    assert "paper 000's effect" in err


def test_without_the_store_the_per_run_effect_still_shows(screened, capsys, monkeypatch):
    monkeypatch.setenv("IOTUNE_PLAIN", "1")
    result = load_screen(screened)
    show_screen(result, "json", "t")
    rows = json.loads(capsys.readouterr().out)
    assert all(r["diff_s"] == pytest.approx(2 * r["effect_s"] / result.runs) for r in rows)
