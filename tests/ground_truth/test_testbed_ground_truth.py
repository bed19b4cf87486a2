"""The testbed ground truth (data/ground_truth): real measurements the recommender and the variability
models are checked against.  Reading it needs no root and no MPI."""

import csv
from collections import defaultdict
from pathlib import Path

import pytest

from iotune.records import Measurement, PhaseResult
from iotune.spec import load_spec
from iotune.store import Store
from iotune.stored import StoredStudy

DATA = Path(__file__).resolve().parents[2] / "data" / "ground_truth"
SPEC = DATA / "testbed_ground_truth.yaml"
CSV = DATA / "testbed_ground_truth.csv"
pytestmark = pytest.mark.skipif(not CSV.exists(), reason=f"{CSV.name} has not been measured yet")


def load(store) -> str:
    """Store the CSV's trials in a study whose space is the spec's; returns the study name."""
    space = load_spec(SPEC).space
    trials = defaultdict(list)
    with open(CSV, newline="") as handle:
        for row in csv.DictReader(handle):
            trials[row["trial_uid"]].append(row)
    study = store.create_study(space.name, space.to_yaml(), space.hash, {"source": str(CSV.name)})
    for rows in trials.values():
        values = {p.name: rows[0][f"cfg.{p.name}"] or None for p in space.parameters}
        configuration = space.configuration(values)
        trial = store.start_trial(study.id, configuration.to_dict(), configuration.key, configuration.workload_key,
                                  int(rows[0]["repeat"]))
        phases = [PhaseResult(r["phase"], int(r["bytes"]), float(r["seconds"]), float(r["open_seconds"]),
                              float(r["transfer_seconds"]), float(r["close_seconds"]), int(r["ops"])) for r in rows]
        store.finish_trial(trial, Measurement("COMPLETE", phases))
    return space.name


@pytest.fixture(scope="module")
def ground_truth(tmp_path_factory):
    with Store(tmp_path_factory.mktemp("gt") / "gt.db") as store:
        yield store, load(store)


def test_every_configuration_measured_at_least_five_times(ground_truth):
    store, study = ground_truth
    trials = store.trials(study=study)
    per_configuration = defaultdict(int)
    for trial in trials:
        per_configuration[trial.config_key] += 1
    assert len(per_configuration) >= 200 and min(per_configuration.values()) >= 5
    assert all(len(t.phases) == 2 for t in trials)


def test_the_recommender_picks_the_fast_device_class(ground_truth):
    """128 MB/s devices against 33 MB/s ones: the physics any model must get right."""
    from iotune.learn import train
    from iotune.recommend import Recommender

    store, study = ground_truth
    model = train(StoredStudy.open(store, study), predictor="cart", target="time", log_target=True)
    for workload in ({"api": "MPIIO", "collective": True, "file_per_process": False, "transfer_size": "1MiB"},
                     {"api": "POSIX", "file_per_process": True, "transfer_size": "64KiB"}):
        best = Recommender(model).recommend(workload, objective="time", top=1).best
        assert best.configuration["device_class"] == "fast"


def test_a_variability_map_predicts_the_spread(ground_truth):
    from iotune.variability import Repeats, VariabilityMap

    store, study = ground_truth
    repeats = Repeats.from_study(StoredStudy.open(store, study))
    fitted = VariabilityMap(target="std", predictor="linear", per_category=False).fit(repeats)
    predicted = fitted.predict(repeats.configs[:10])
    assert predicted.shape == (10,)
