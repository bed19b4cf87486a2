"""LustreQueueModel.fit recovers known parameters."""

import csv
from pathlib import Path

import numpy as np
import pytest

from iotune.analytic import LustreQueueModel, ModelError, simulate_completion_times

GB = 1e9
TRUE = LustreQueueModel(arrival_rate=0.1, service_rate=0.125, bandwidth=62.5e6)


def _params(model):
    return np.array([model.arrival_rate, model.service_rate, model.bandwidth])


@pytest.mark.parametrize(
    "truth",
    [TRUE, LustreQueueModel(1 / 13.47804, 1 / 4.453082, 1e8), LustreQueueModel(3.0, 3.2, 2e9)],
    ids=["table_iii", "table_i", "busy"],
)
@pytest.mark.parametrize("exact", [True, False])
def test_fit_recovers_parameters_from_noise_free_times(truth, exact):
    triples = [
        (size, n, truth.completion_time(size, n, exact=exact))
        for size in (1 * GB, 10 * GB, 100 * GB)
        for n in (1, 2, 4, 8, 16, 64)
    ]
    fitted = LustreQueueModel.fit(triples, exact=exact)
    np.testing.assert_allclose(_params(fitted), _params(truth), rtol=1e-6)


def test_fit_of_table_iii_t_m_recovers_the_reproducing_reading():
    printed = [(1, 1, 48), (10, 4, 117.312), (50, 20, 181.9326), (100, 40, 210.1419), (500, 199, 274.9212), (1000, 399, 302.6972)]
    fitted = LustreQueueModel.fit([(m * GB, n, t) for m, n, t in printed], exact=False)
    # reference "least_squares_fits_of_(rho,1/a,c)": rho 0.8000001, 1/a 40.000001 s, c 15.999996 s/GB
    np.testing.assert_allclose(_params(fitted), _params(TRUE), rtol=2e-6)


def test_fit_recovers_parameters_from_simulated_runs():
    triples = []
    for seed, n in enumerate((1, 3, 12)):
        waits = simulate_completion_times(TRUE, 0, n, 8000, seed=seed)
        for size in (2 * GB, 40 * GB):
            triples += [(size, n, t) for t in waits + size / (n * TRUE.bandwidth)]
    fitted = LustreQueueModel.fit(triples)
    assert fitted.rho == pytest.approx(TRUE.rho, abs=0.05)
    assert 1 / fitted.decay_rate == pytest.approx(1 / TRUE.decay_rate, rel=0.05)
    assert fitted.bandwidth == pytest.approx(TRUE.bandwidth, rel=0.01)


@pytest.mark.parametrize(
    "triples, word",
    [
        ([(GB, 1, 40.0), (GB, 2, 50.0)], "at least 3"),
        ([(GB, 1, 40.0), (GB, 2, 50.0), (GB, 3)], "at least 3"),
        ([(GB, 4, 40.0), (2 * GB, 4, 50.0), (3 * GB, 4, 60.0)], "2 or more stripe counts"),
        ([(GB, 1, 40.0), (GB, 2, -50.0), (GB, 3, 60.0)], "seconds"),
        ([(GB, 1, 100.0), (GB, 2, 90.0), (GB, 4, 80.0), (4 * GB, 4, 10.0)], "do not determine"),
    ],
)
def test_fit_rejects_unusable_measurements(triples, word):
    with pytest.raises(ModelError, match=word) as info:
        LustreQueueModel.fit(triples)
    assert "\n" not in str(info.value)


def test_a_fit_with_no_queue_left_is_refused_as_degenerate():
    # issue 33: on the striping ground truth the best fit drives rho to about 4e-9, 1/a to 6e7 s
    table = Path(__file__).resolve().parents[2] / "data" / "ground_truth" / "striping_ground_truth.csv"
    rows = [r for r in csv.DictReader(table.open()) if (r["pattern"], r["processes"]) == ("strided-collective", "2")]
    triples = [(int(r["bytes"]), int(r["stripe_count"]), float(r["seconds"])) for r in rows]
    with pytest.raises(ModelError, match="degenerate fit: rho = .* no queue is left") as info:
        LustreQueueModel.fit(triples)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("n", [1, 3, 40])
def test_q99_of_a_queue_that_waits_is_not_below_its_mean(n):
    for model in (TRUE, LustreQueueModel(1 / 13.47804, 1 / 4.453082, 1e8)):
        assert not model.mean_above_quantile(0, n, 0.99)
        assert model.completion_time_quantile(GB, n, 0.99) >= model.completion_time(GB, n)
    assert LustreQueueModel(1e-17, 1e-8, 1e8).mean_above_quantile(16 * 2**20, n, 0.99)
