"""Recommender: finds the optimum, ranks, de-duplicates, respects constraints, prices, refuses bad input."""

import pytest
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression

from iotune.errors import IotuneError
from iotune.recommend import CostModel, Recommender
from iotune.space import Space
from tests.recommend.conftest import make_model, synthetic_time

WORKLOAD = {"transfer_size": "1MiB", "collective": "true"}
OPTIMUM = {"romio_cb_write": "enable", "cb_buffer_size": 16 << 20, "striping_factor": 8}


@pytest.mark.parametrize("estimator", [None, RandomForestRegressor(n_estimators=30, random_state=0),
                                       LinearRegression()])
def test_finds_known_optimum(hints_space, estimator):
    model = make_model(hints_space, synthetic_time, estimator)
    best = Recommender(model, chunk_size=4).recommend(WORKLOAD, top=1).best
    assert {k: best.configuration[k] for k in OPTIMUM} == OPTIMUM


def test_top_k_order_and_improvements_by_hand():
    space = Space.from_text("""
name: small
parameters:
  - {name: transfer_size, type: size, levels: [1MiB], role: workload, layer: application}
  - {name: cb_buffer_size, type: size, levels: [1MiB, 4MiB, 16MiB], role: system, layer: mpiio}
""")
    seconds = {1 << 20: 3.0, 4 << 20: 1.0, 16 << 20: 2.0}
    model = make_model(space, lambda c: seconds[c["cb_buffer_size"]])
    result = Recommender(model).recommend({"transfer_size": "1MiB"}, top=3)
    assert [c.configuration["cb_buffer_size"] for c in result.candidates] == [4 << 20, 16 << 20, 1 << 20]
    assert result.baseline_predicted == pytest.approx(3.0) and result.median == pytest.approx(2.0)
    assert [c.improvement_vs_baseline for c in result.candidates] == pytest.approx([3.0, 1.5, 1.0])
    assert [c.improvement_vs_median for c in result.candidates] == pytest.approx([2.0, 1.0, 2 / 3])
    with_base = Recommender(model).recommend({"transfer_size": "1MiB"}, baseline={"cb_buffer_size": "16MiB"})
    assert with_base.best.improvement_vs_baseline == pytest.approx(2.0)


def test_bandwidth_improvement_is_inverse(hints_space):
    model = make_model(hints_space, lambda c: 100.0 / synthetic_time(c), LinearRegression(), target="bandwidth")
    model.estimator = make_model(hints_space, lambda c: 100.0 / synthetic_time(c)).estimator
    result = Recommender(model).recommend(WORKLOAD, objective="bandwidth")
    best = result.best
    assert {k: best.configuration[k] for k in OPTIMUM} == OPTIMUM
    assert best.improvement_vs_baseline == pytest.approx(best.predicted / result.baseline_predicted)


def test_inactive_parameters_deduplicated(hints_space):
    model = make_model(hints_space, synthetic_time)
    result = Recommender(model, chunk_size=5).recommend(WORKLOAD, top=1000)
    expected = [c for c in hints_space.enumerate() if c["transfer_size"] == 1 << 20 and c["collective"]]
    assert result.evaluated == len(expected) == len(result.candidates) == 21
    keys = {tuple(sorted(c.configuration.items())) for c in result.candidates}
    assert keys == {tuple(sorted(c.items())) for c in expected}
    independent = Recommender(model).recommend({"transfer_size": "1MiB", "collective": False}, top=100)
    assert independent.evaluated == 3
    assert all(c.configuration["romio_cb_write"] is None for c in independent.candidates)


def test_constraints_respected(hints_space):
    model = make_model(hints_space, synthetic_time)
    result = Recommender(model).recommend(WORKLOAD, top=100, constraints=["cb_buffer_size != size('4MiB')",
                                                                           "striping_factor < 8"])
    assert result.candidates and all(c.configuration["cb_buffer_size"] != 4 << 20 and
                                     c.configuration["striping_factor"] < 8 for c in result.candidates)
    with pytest.raises(IotuneError, match="no valid system configuration"):
        Recommender(model).recommend(WORKLOAD, constraints=["striping_factor > 8"])


def test_co_champions_counted(hints_space):
    model = make_model(hints_space, lambda c: 1.0 + (c["striping_factor"] != 8))
    result = Recommender(model).recommend(WORKLOAD, top=2)
    assert result.co_champions == 7 and len(result.co_champion_examples) == 5
    assert all(c["striping_factor"] == 8 for c in result.co_champion_examples)


def test_cost_objective_adds_dedicated_io_servers(cloud_space):
    model = make_model(cloud_space, lambda c: 3600.0, LinearRegression())
    prices = CostModel.from_yaml()
    dedicated = {"processes": 64, "instance_type": "cc2.8xlarge", "placement": "dedicated", "io_servers": 4}
    assert prices.instances(dedicated) == 64 // 16 + 4
    assert prices.cost(3600.0, dedicated) == pytest.approx(8 * 2.40)
    assert prices.cost(3600.0, {**dedicated, "placement": "part-time"}) == pytest.approx(4 * 2.40)
    result = Recommender(model).recommend({"processes": 64}, objective="cost", top=12)
    assert result.unit == "USD" and result.evaluated == 12
    assert result.best.configuration["placement"] == "part-time"
    by_config = {(c.configuration["instance_type"], c.configuration["placement"], c.configuration["io_servers"]):
                 c.predicted for c in result.candidates}
    assert by_config[("cc2.8xlarge", "dedicated", 4)] == pytest.approx(8 * 2.40)
    assert by_config[("cc1.4xlarge", "dedicated", 2)] == pytest.approx((8 + 2) * 1.30)
    assert by_config[("cc1.4xlarge", "part-time", 4)] == pytest.approx(8 * 1.30)
    assert result.baseline_predicted == pytest.approx(8 * 1.30)
    assert result.best.predicted == pytest.approx(4 * 2.40)
    assert result.best.saving_vs_baseline == pytest.approx((10.4 - 9.6) / 10.4 * 100)


def test_cost_errors(cloud_space, hints_space, tmp_path):
    model = make_model(cloud_space, lambda c: 60.0, LinearRegression())
    (tmp_path / "p.yaml").write_text("instance_types: {cc1.4xlarge: {price_per_hour: 1.3, cores: 8}}\n")
    with pytest.raises(IotuneError, match="no price for instance type 'cc2.8xlarge'"):
        Recommender(model, CostModel.from_yaml(tmp_path / "p.yaml")).recommend({"processes": 32}, objective="cost")
    with pytest.raises(IotuneError, match="no 'instance_type' parameter"):
        Recommender(make_model(hints_space, synthetic_time)).recommend(WORKLOAD, objective="cost")
    with pytest.raises(IotuneError, match="needs a model of bandwidth"):
        Recommender(model).recommend({"processes": 32}, objective="bandwidth")


@pytest.mark.parametrize("workload, fragment", [
    ({"transfer_size": "1MiB", "colective": True}, "unknown workload parameter 'colective'"),
    ({"transfer_size": "lots", "collective": True}, "levels: 64KiB, 1MiB"),
    ({"transfer_size": "1MiB", "collective": True, "striping_factor": 4}, "system parameter"),
    ({"collective": True}, "does not give 'transfer_size' (levels: 64KiB, 1MiB)"),
])
def test_bad_workload_is_one_line_error(hints_space, workload, fragment):
    with pytest.raises(IotuneError) as error:
        Recommender(make_model(hints_space, synthetic_time)).recommend(workload)
    assert fragment in str(error.value) and "\n" not in str(error.value)


def test_a_workload_value_between_levels_is_interpolated_not_refused(hints_space, linear):
    """Issue 19, item 7: 256 KiB lies between the levels 64 KiB and 1 MiB; the model is asked at log2(256 KiB)."""
    recommender = Recommender(make_model(hints_space, synthetic_time, linear()))
    at = {size: recommender.recommend({"transfer_size": size, "collective": True}) for size in
          ("64KiB", "256KiB", "1MiB")}
    assert at["64KiB"].best.predicted > at["256KiB"].best.predicted > at["1MiB"].best.predicted
    assert at["256KiB"].workload["transfer_size"] == 256 * 1024
    assert at["64KiB"].baseline_predicted > at["256KiB"].baseline_predicted > at["1MiB"].baseline_predicted


def test_model_from_another_space(hints_space, cloud_space):
    model = make_model(hints_space, synthetic_time)
    with pytest.raises(IotuneError, match="trained on space 'hints'"):
        Recommender(model, space=cloud_space)
    model.space = cloud_space
    with pytest.raises(IotuneError, match="expects .* features but space 'cloud' encodes"):
        Recommender(model)
