"""The placement-aware model of a striped write: ranking, spread, fit, degenerate fits, stored form."""

import numpy as np
import pytest

from iotune.analytic import ModelError
from iotune.analytic.striped_fit import fit_striped
from iotune.analytic.striped_placement import StripedPlacementModel, StripedWrite, queue_from

MIB = 2**20
MB = 1e6
TRUTH = StripedPlacementModel(bandwidth=5 * MB, overhead_s=0.05, piece_s=0.0005, sigma=0.05)


def _layouts(files=1, file_bytes=16 * MIB):
    writes = [StripedWrite(files, file_bytes, 1, 4 * MIB, 32 * MIB)]
    writes += [StripedWrite(files, file_bytes, c, u, 32 * MIB) for c in (2, 3) for u in (64 * 1024, MIB, 4 * MIB)]
    writes += [StripedWrite(files, file_bytes, 1, 4 * MIB, 4 * MIB), StripedWrite(files, file_bytes, 4, MIB, MIB)]
    return writes


def _simulate(model, writes, repeats, seed):
    """Runs drawn from the model's own generative story: a random placement, then lognormal noise."""
    rng = np.random.default_rng(seed)
    runs = []
    for write in writes:
        times, weights = model.placement_times(write)
        picks = rng.choice(times.size, size=repeats, p=weights)
        noise = np.exp(model.sigma * rng.standard_normal(repeats) - model.sigma**2 / 2)
        runs += [(write, float(t)) for t in times[picks] * noise]
    return runs


def test_one_file_on_one_server_is_slowest_and_spread_over_objects_is_fastest():
    writes = _layouts()
    means = [TRUTH.mean(w) for w in writes]
    assert means[0] == pytest.approx(0.05 + 16 * MIB / (5 * MB) + 0.0005 * 4)
    assert means[0] == max(means)
    # stripe count 2, 1 MiB units: 8 MiB in 8 pieces on each of 2 objects; both on one server with probability 1/3
    assert TRUTH.mean(writes[2]) == pytest.approx(0.05 + (8 * MIB / (5 * MB)) * 4 / 3 + 0.0005 * 8 * 4 / 3)
    # stripe unit decides how evenly 3 objects share a 16 MiB file: 64 KiB < 1 MiB < 4 MiB (8, 4, 4 MiB)
    sc3 = [TRUTH.mean(w) for w in writes[4:7]]
    assert sc3[1] < sc3[2]
    # 16 objects of 1 MiB over 3 servers: the most even spread of all
    assert TRUTH.mean(writes[-1]) == min(means[:-1] + [TRUTH.mean(writes[-1])])


def test_quantiles_show_the_placement_levels_and_stay_ordered():
    write = _layouts()[2]  # 2 objects of 8 MiB: 1.7 s on two servers, 3.4 s on one (probability 1/3)
    q = TRUTH.quantiles(write, [0.1, 0.5, 0.9, 0.99])
    assert q[0] < 1.1 * (0.05 + 8 * MIB / (5 * MB)) and q[-1] > 0.9 * (0.05 + 16 * MIB / (5 * MB))
    assert np.all(np.diff(q) > 0)
    for w in _layouts():
        mean = TRUTH.mean(w)
        q01, q99 = TRUTH.quantiles(w, [0.01, 0.99])
        assert q01 <= mean <= q99


def test_a_replicated_pool_writes_every_replica():
    plain = StripedPlacementModel(bandwidth=5 * MB, servers=3)
    replicated = StripedPlacementModel(bandwidth=5 * MB, servers=3, replicas=2)
    everywhere = StripedPlacementModel(bandwidth=5 * MB, servers=3, replicas=3)
    write = StripedWrite(1, 16 * MIB, 1, 4 * MIB, 4 * MIB)  # 4 objects of 4 MiB
    assert replicated.mean(write) > 1.4 * plain.mean(write)
    assert everywhere.mean(write) == pytest.approx(16 * MIB / (5 * MB))


def test_fit_recovers_the_parameters_from_simulated_runs():
    runs = _simulate(TRUTH, _layouts() + _layouts(files=4, file_bytes=4 * MIB), repeats=8, seed=3)
    fitted = fit_striped(runs, seed=5)
    assert fitted.bandwidth == pytest.approx(5 * MB, rel=0.05)
    assert fitted.overhead_s == pytest.approx(0.05, abs=0.05)
    assert fitted.sigma == pytest.approx(0.05, rel=0.4)
    report = fitted.fit_
    assert report["runs"] == len(runs) and report["degenerate"] == []
    assert report["spearman"] > 0.8 and report["band_10_90"] > 0.6


def test_fit_keeps_the_queue_only_where_runs_support_it():
    runs = _simulate(TRUTH, _layouts(), repeats=6, seed=4)
    fitted = fit_striped(runs, seed=5)
    assert fitted.queue is None
    assert "queue" in fitted.fit_ and fitted.fit_["queue"].startswith("left out")


def test_times_blind_to_the_layout_are_a_degenerate_fit():
    rng = np.random.default_rng(0)
    runs = [(w, 2.0 + 0.01 * rng.standard_normal()) for w in _layouts() for _ in range(5)]
    with pytest.raises(ModelError, match="degenerate fit") as info:
        fit_striped(runs)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("runs, word", [
    ([], "at least"),
    ([(StripedWrite(1, MIB, 1, MIB, MIB), -1.0)] * 5, "seconds"),
    ([(StripedWrite(1, MIB, 1, MIB, MIB), 1.0)] * 5, "2 layouts"),
])
def test_fit_rejects_unusable_runs(runs, word):
    with pytest.raises(ModelError, match=word):
        fit_striped(runs)


def test_stored_form_round_trips_and_refuses_bad_values():
    runs = _simulate(TRUTH, _layouts(), repeats=5, seed=2)
    fitted = fit_striped(runs)
    data = fitted.to_dict()
    again = StripedPlacementModel.from_dict(data)
    write = _layouts()[3]
    assert again.mean(write) == pytest.approx(fitted.mean(write))
    for key, bad in (("bandwidth", -1.0), ("sigma", float("nan")), ("servers", 10**9), ("kind", "pickle")):
        with pytest.raises(ModelError):
            StripedPlacementModel.from_dict({**data, key: bad})
    with pytest.raises(ModelError):
        StripedPlacementModel.from_dict({**data, "extra": 1})


def test_a_write_may_name_its_own_servers_and_replicas():
    model = StripedPlacementModel(bandwidth=5 * MB, servers=3)
    write = StripedWrite(1, 12 * MIB, 3, MIB, 32 * MIB)
    assert model.mean(StripedWrite(1, 12 * MIB, 3, MIB, 32 * MIB, servers=3)) == model.mean(write)
    # one server holds everything; three replicas on three servers put every byte on each
    assert model.mean(StripedWrite(1, 12 * MIB, 3, MIB, 32 * MIB, servers=1)) == pytest.approx(12 * MIB / (5 * MB))
    assert model.mean(StripedWrite(1, 12 * MIB, 3, MIB, 32 * MIB, replicas=3)) == pytest.approx(12 * MIB / (5 * MB))
    assert model.mean(StripedWrite(1, 12 * MIB, 3, MIB, 32 * MIB, servers=6)) < model.mean(write)


def test_fit_keeps_paper_004s_queue_when_the_runs_wait_by_servers_used():
    truth = StripedPlacementModel(bandwidth=5 * MB, overhead_s=0.05, sigma=0.03, queue=queue_from(0.6, 0.5, 5 * MB))
    runs = _simulate(truth, _layouts() + _layouts(files=4, file_bytes=4 * MIB), repeats=6, seed=7)
    fitted = fit_striped(runs, seed=5)
    assert fitted.fit_["queue"].startswith("kept")
    assert fitted.queue.rho == pytest.approx(0.6, abs=0.15)
    assert 1 / fitted.queue.decay_rate == pytest.approx(0.5, rel=0.2)
    assert fitted.bandwidth == pytest.approx(5 * MB, rel=0.05)


def test_a_client_slower_than_the_servers_caps_every_spread_layout():
    capped = StripedPlacementModel(bandwidth=5 * MB, client_bandwidth=6 * MB, sigma=0.05)
    spread = StripedWrite(1, 16 * MIB, 4, MIB, MIB)  # 16 objects over 3 servers: about 6 MiB on the busiest
    assert capped.mean(spread) == pytest.approx(16 * MIB / (6 * MB), rel=0.02)
    one = StripedWrite(1, 16 * MIB, 1, 4 * MIB, 32 * MIB)  # one server is slower than the client
    assert capped.mean(one) == pytest.approx(16 * MIB / (5 * MB))
    again = StripedPlacementModel.from_dict(capped.to_dict())
    assert again.client_bandwidth == 6 * MB and again.mean(spread) == pytest.approx(capped.mean(spread))


def test_a_time_per_object_makes_small_objects_slow_and_is_fitted_back():
    truth = StripedPlacementModel(bandwidth=5 * MB, overhead_s=0.05, sigma=0.05, object_s=0.08)
    small = StripedWrite(1, 16 * MIB, 1, MIB, MIB)  # 16 objects: even bytes, but about 6 objects on the busiest
    default = StripedWrite(1, 16 * MIB, 1, MIB, 4 * MIB)
    assert truth.mean(small) > StripedPlacementModel(bandwidth=5 * MB, overhead_s=0.05).mean(small) + 0.3
    writes = _layouts() + [default, StripedWrite(1, 16 * MIB, 2, 64 * 1024, MIB)]
    fitted = fit_striped(_simulate(truth, writes, repeats=8, seed=11), seed=5)
    assert fitted.object_s == pytest.approx(0.08, rel=0.25)
    assert fitted.bandwidth == pytest.approx(5 * MB, rel=0.1)
    # a model stored before the time per object existed reads back without one
    older = {k: v for k, v in fitted.to_dict().items() if k != "object_s"}
    assert StripedPlacementModel.from_dict(older).object_s == 0.0


def test_placed_time_is_one_of_the_mixtures_placement_times():
    model = StripedPlacementModel(5e6, overhead_s=0.05, servers=2)
    write = StripedWrite(1, 16 << 20, 2, 64 << 10, 4 << 20)
    times, _ = model.placement_times(write)
    one_server = model.placed_time(write, [[1, 1, 1, 1]])
    even = model.placed_time(write, [[0, 1, 1, 0]])
    assert one_server == pytest.approx(0.05 + (16 << 20) / 5e6)
    assert even == pytest.approx(0.05 + (8 << 20) / 5e6)
    assert np.isclose(times, one_server).any() and np.isclose(times, even).any()
