"""The explore regime's random forest: thresholds, no extrapolation, ties, the same choice from the same runs."""

import numpy as np
import pytest

from iotune.transfer import TransferError, TransferTuner
from iotune.transfer.forest import forest_posterior
from iotune.transfer.gp import GaussianProcess
from iotune.transfer.observations import summarise
from tests.transfer.test_evidence import drive, line, prior_of


def test_the_forest_keeps_a_cliff_sharp_where_a_smooth_model_blurs_it():
    rows = line(40)
    memory = rows[:, 0]
    log_time = np.where(memory >= 0.5, 0.0, np.log(4.0))  # below the memory the job needs: 4x slower
    fitted = np.array([0, 6, 12, 18, 21, 27, 33, 39])
    mean, std = forest_posterior(rows, fitted, log_time[fitted], seed=0)
    gp_mean, _ = GaussianProcess(constant_mean=True).fit(rows[fitted], log_time[fitted]).predict(rows)
    near = (np.abs(memory - 0.5) > 0.08) & (np.abs(memory - 0.5) < 0.15)  # a few candidates either side
    assert np.abs(mean - log_time)[near].mean() < 0.5 * np.abs(gp_mean - log_time)[near].mean()
    far = np.abs(memory - 0.5) > 0.2
    assert np.abs(mean - log_time)[far].max() < 0.05 and std[far].max() < std[~far].max()
    again, _ = forest_posterior(rows, fitted, log_time[fitted], seed=0)
    assert np.array_equal(mean, again)  # the seed fixes the forest


def explored():
    """Costs that put a tuner in the explore regime: every other workload ranks the target's runs backwards."""
    candidates = line(20)
    x = candidates[:, 0]
    price = 1.0 + x
    curves = np.array([np.exp(2.0 * x + 0.05 * j * np.sin(7 * x)) * price for j in range(5)])
    target = np.exp(-2.0 * x) * price
    return candidates, prior_of(curves, candidates), lambda c: float(target[c]), price


def test_under_a_price_from_explore_after_runs_exploring_reads_a_forest_that_never_states_beyond_the_runs():
    candidates, prior, truth, price = explored()
    observations, regimes = drive(TransferTuner(candidates, prior, noise=0.01, price=price, explore_after=6), truth, 6)
    assert regimes[-1] == "explore"

    def stated(runs, **options):
        tuner = TransferTuner(candidates, prior, noise=0.01, **options)
        assert tuner.regime(runs) == "explore"
        return tuner.predict(runs, as_chosen=True)[0]

    forest = stated(observations, price=price, explore_after=6)
    measured = np.log([v for _, v in observations])
    # a forest's mean is an average of the runs' values: nothing beyond the best or worst run
    assert forest.min() >= measured.min() - 1e-9 and forest.max() <= measured.max() + 1e-9
    gp = stated(observations, price=price, explore_after=6, explore_model="gp")
    assert not np.allclose(forest, gp)
    # with fewer runs than explore_after (ten, the default), or without a price, the GP chooses
    np.testing.assert_allclose(stated(observations, price=price), gp)
    np.testing.assert_allclose(stated(observations, explore_after=6),
                               stated(observations, explore_after=6, explore_model="gp"))
    # rebuilt from the same runs, it chooses the same
    assert TransferTuner(candidates, prior, noise=0.01, price=price, explore_after=6).suggest(observations) \
        == TransferTuner(candidates, prior, noise=0.01, price=price, explore_after=6).suggest(observations)


def test_one_run_fits_one_forest_for_its_choice_its_statement_and_the_judging_of_earlier_ones(monkeypatch):
    from iotune.transfer import engine

    candidates, prior, truth, price = explored()
    observations, _ = drive(TransferTuner(candidates, prior, noise=0.01, price=price, explore_after=6), truth, 8)
    fits = []
    fitted = engine.forest_posterior
    monkeypatch.setattr(engine, "forest_posterior", lambda *args: fits.append(1) or fitted(*args))
    tuner = TransferTuner(candidates, prior, noise=0.01, price=price, explore_after=6)
    pick = tuner.suggest(observations)
    stated = tuner.expectation(observations)
    # runs 7 and 8 were chosen by the forest: their statements are judged too, each on its own runs so far
    assert len(fits) == 3
    assert tuner.suggest(observations) == pick
    np.testing.assert_array_equal(tuner.expectation(observations)[0], stated[0])
    assert len(fits) == 3


def test_of_candidates_the_forest_cannot_tell_apart_the_one_farthest_from_the_runs_is_run():
    candidates = line(11)
    tuner = TransferTuner(candidates, noise=0.01)
    summary = summarise([(0, 1.0), (1, 1.1)], len(candidates), True)
    gain = np.zeros(11)
    gain[[2, 5, 9]] = 0.3  # three candidates in one leaf of every tree
    gain[[0, 1]] = -np.inf
    assert tuner._farthest_of_ties(summary, gain, 2) == 9
    gain[9] = 0.29
    assert tuner._farthest_of_ties(summary, gain, 2) == 5


def test_an_unknown_explore_model_is_refused():
    with pytest.raises(TransferError, match="explore_model"):
        TransferTuner(line(5), explore_model="trees")
