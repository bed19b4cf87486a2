"""A stored screening study carries its design: rebuilt once from the study's settings, then shared."""

import pytest

from iotune.records import Measurement, PhaseResult
from iotune.screening import Factor, ScreeningError, ScreeningStudy, build_design, load_screen
from iotune.screening import study as screening_study
from iotune.screening.normalised import load_normalised
from iotune.screening.significance import significance
from iotune.space import Space
from iotune.store import Store
from iotune.stored import StoredStudy

SPACE = """\
name: three
parameters:
""" + "".join(f"  - {{name: {n}, type: categorical, levels: [lo, hi], role: system, layer: mpiio}}\n"
              for n in "abc")
SLOWER = {"a": 1.0, "b": 0.25, "c": 0.0}


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "s.db") as opened:
        yield opened


def _screened(store) -> StoredStudy:
    space = Space.from_text(SPACE)
    design = build_design(space, [Factor(n, "lo", "hi") for n in "abc"])
    record = store.create_study("s", space.to_yaml(), space.hash, {"screening": design.to_dict()})
    for configuration in design.configurations():
        seconds = 1.0 + sum(v for k, v in SLOWER.items() if configuration[k] == "hi")
        for repeat in range(2):
            trial = store.start_trial(record.id, configuration.to_dict(), configuration.key,
                                      configuration.workload_key, repeat)
            phase = PhaseResult("write", 2**20, seconds * (1 + 0.01 * repeat), 0.0, seconds, 0.0, 1, None)
            store.finish_trial(trial, Measurement(status="COMPLETE", runner="synthetic", command="test",
                                                  phases=[phase]))
    return StoredStudy.open(store, "s")


def test_the_design_is_rebuilt_once_and_shared_by_every_reader(store, monkeypatch):
    study = _screened(store)
    built = []
    real = screening_study.build_design
    monkeypatch.setattr(screening_study, "build_design", lambda *a, **k: built.append(1) or real(*a, **k))
    screening = ScreeningStudy.of(study)
    assert ScreeningStudy.of(screening) is screening
    ranking = load_screen(screening)
    found = significance(screening)
    normalised = load_normalised(screening)
    assert len(built) == 1
    assert ranking.ranking == [f.name for f in found.factors] == ["a", "b", "c"]
    assert normalised["a"].diff_s == pytest.approx(1.0, rel=0.02)
    assert normalised["c"].diff_s == pytest.approx(0, abs=0.02)
    assert [row.key for row in screening.design.rows] == [row.key for row in ScreeningStudy.of(study).design.rows]


def test_a_study_that_stored_no_design_is_not_a_screening(store):
    space = Space.from_text(SPACE)
    plain = StoredStudy(store, store.create_study("plain", space.to_yaml(), space.hash, {}))
    with pytest.raises(ScreeningError, match="'plain' is not a screening study"):
        load_screen(plain)
