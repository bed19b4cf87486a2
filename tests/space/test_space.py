import itertools
import time

import numpy as np
import pytest

from iotune.errors import SpaceError
from iotune.space import Configuration, Parameter, Space

MIB = 2**20


def brute_force(space: Space) -> list[Configuration]:
    """Valid configurations by checking every assignment of itertools.product, first occurrence kept."""
    seen, out = set(), []
    for values in itertools.product(*(p.levels for p in space.parameters)):
        mapping = dict(zip((p.name for p in space.parameters), values))
        if space.is_valid(mapping):
            configuration = space.configuration(mapping)
            if configuration.key not in seen:
                seen.add(configuration.key)
                out.append(configuration)
    return out


def test_demo_loads(demo):
    assert demo.name == "demo"
    assert demo.description == "MPI-IO hints against access patterns"
    assert [p.name for p in demo.parameters] == [
        "processes", "api", "collective", "transfer_size", "block_size", "romio_cb_write", "cb_nodes",
    ]
    assert demo.parameter("block_size").levels == tuple(k * MIB for k in (1, 2, 4, 8, 16))
    assert demo.parameter("collective").levels == (False, True)
    assert demo.parameter("romio_cb_write").hint == "romio_cb_write"
    assert demo.parameter("cb_nodes").hint == "cb_nodes"
    assert demo.parameter("processes").line == 4
    assert [p.name for p in demo.workload_parameters] == ["processes", "api", "collective", "transfer_size", "block_size"]
    assert [p.name for p in demo.system_parameters] == ["romio_cb_write", "cb_nodes"]
    assert demo.size == 1 * 2 * 2 * 3 * 5 * 3 * 2
    assert len(demo.constraints) == 3


def test_unknown_parameter_lookup(demo):
    with pytest.raises(SpaceError, match=r"no parameter 'stripe' \(known: processes, api,"):
        demo.parameter("stripe")


def test_enumerate_matches_brute_force(demo):
    expected = brute_force(demo)
    assert list(demo.enumerate()) == expected
    assert demo.count_valid() == len(expected) == 150
    assert demo.full_factorial() == expected
    assert len({c.key for c in expected}) == len(expected)


def test_inactive_parameters_are_none_and_yielded_once(demo):
    posix = [c for c in demo.enumerate() if c["api"] == "POSIX"]
    assert all(c["collective"] is None and c["romio_cb_write"] is None and c["cb_nodes"] is None for c in posix)
    assert len(posix) == len({c.key for c in posix})


def test_full_factorial_guard(demo):
    with pytest.raises(SpaceError, match="360 assignments, more than the 100 a full factorial"):
        demo.full_factorial(limit=100)


def test_configuration_normalises_and_fills_defaults(demo):
    c = demo.configuration({"api": "MPIIO", "collective": "yes", "transfer_size": "256KiB", "romio_cb_write": "disable"})
    assert c.to_dict() == {
        "processes": 2, "api": "MPIIO", "collective": True, "transfer_size": 256 * 1024,
        "block_size": MIB, "romio_cb_write": "disable", "cb_nodes": 1,
    }
    assert c.describe() == (
        "processes=2 api=MPIIO collective=True transfer_size=256KiB block_size=1MiB romio_cb_write=disable cb_nodes=1"
    )
    assert c.space is demo


def test_value_for_inactive_parameter_is_dropped(demo):
    c = demo.configuration({"api": "POSIX", "collective": True, "romio_cb_write": "enable"})
    assert c["collective"] is None and c["romio_cb_write"] is None
    assert c.describe() == "processes=2 api=POSIX transfer_size=4KiB block_size=1MiB"
    assert c == demo.configuration({"api": "POSIX"})


def test_value_for_inactive_parameter_is_still_checked(demo):
    with pytest.raises(SpaceError, match="parameter 'romio_cb_write': value 'sometimes' is not a level"):
        demo.configuration({"api": "POSIX", "romio_cb_write": "sometimes"})


def test_configuration_rejects_unknown_names(demo):
    with pytest.raises(SpaceError, match=r"no parameter 'stripe_count' \(known: processes, api, collective"):
        demo.configuration({"stripe_count": 4})
    assert not demo.is_valid({"stripe_count": 4})


def two_sizes(transfer: str, block: str, constraints: list[str]) -> Space:
    return Space.from_dict(
        {
            "name": "small",
            "parameters": [
                {"name": "transfer_size", "type": "size", "levels": [transfer], "role": "workload", "layer": "application"},
                {"name": "block_size", "type": "size", "levels": [block], "role": "workload", "layer": "application"},
            ],
            "constraints": constraints,
        }
    )


def test_constraint_violation_names_constraint_and_values():
    space = two_sizes("1MiB", "512KiB", ["transfer_size <= block_size"])
    message = r"violates constraint 'transfer_size <= block_size' with transfer_size=1MiB, block_size=512KiB"
    with pytest.raises(SpaceError, match=message):
        space.configuration({})
    assert not space.is_valid({})


def test_size_call_in_expression():
    assert two_sizes("1MiB", "4MiB", ["block_size <= size('4MiB')"]).is_valid({})
    assert not two_sizes("1MiB", "8MiB", ["block_size <= size('4MiB')"]).is_valid({})


def test_division_by_zero_violates_the_constraint():
    space = Space.from_dict(
        {
            "name": "zero",
            "parameters": [
                {"name": "a", "type": "integer", "levels": [0, 3, 4], "role": "system", "layer": "device"},
                {"name": "b", "type": "integer", "levels": [0, 2], "role": "system", "layer": "device"},
            ],
            "constraints": ["not (a % b == 1)"],
        }
    )
    guarded = Space(space.name, space.parameters, ["b == 0 or a % b == 0"])
    assert [(c["a"], c["b"]) for c in guarded.enumerate()] == [(0, 0), (0, 2), (3, 0), (4, 0), (4, 2)]
    assert not space.is_valid({"a": 3, "b": 0})
    assert space.is_valid({"a": 4, "b": 2})
    assert [c.to_dict() for c in space.enumerate()] == [{"a": 0, "b": 2}, {"a": 4, "b": 2}]
    rows = np.array(list(itertools.product(range(3), range(2))))
    a_levels, b_levels = space.parameter("a").levels, space.parameter("b").levels
    assert space.valid_mask(rows).tolist() == [space.is_valid({"a": a_levels[i], "b": b_levels[j]}) for i, j in rows]


def test_configuration_identity(demo):
    a = demo.configuration({"api": "MPIIO", "transfer_size": "256KiB"})
    b = demo.configuration({"transfer_size": 262144, "api": "MPIIO"})
    assert a == b and hash(a) == hash(b) and a.key == b.key
    assert len(a.key) == 16 and int(a.key, 16) >= 0
    assert a == a.to_dict()
    assert len({a, b}) == 1
    with pytest.raises(TypeError):
        a["api"] = "POSIX"  # type: ignore[index]


def test_workload_and_system_parts(demo):
    a = demo.configuration({"api": "MPIIO", "collective": True, "romio_cb_write": "enable", "cb_nodes": 2})
    b = demo.configuration({"api": "MPIIO", "collective": True, "romio_cb_write": "disable", "cb_nodes": 1})
    assert a.workload() == {"processes": 2, "api": "MPIIO", "collective": True, "transfer_size": 4096, "block_size": MIB}
    assert a.system() == {"romio_cb_write": "enable", "cb_nodes": 2}
    assert a.workload_key == b.workload_key and a.key != b.key


def test_key_is_sha1_of_canonical_json(demo):
    import hashlib
    import json

    c = demo.configuration({})
    text = json.dumps(c.to_dict(), sort_keys=True, separators=(",", ":"))
    assert c.key == hashlib.sha1(text.encode()).hexdigest()[:16]


def test_round_trip_yaml_and_dict(demo):
    again = Space.from_text(demo.to_yaml())
    assert again == demo
    assert again.hash == demo.hash
    assert again.to_dict() == demo.to_dict()
    assert Space.from_dict(demo.to_dict()) == demo
    assert list(again.enumerate()) == list(demo.enumerate())


def test_hash_changes_with_definition(demo):
    data = demo.to_dict()
    data["parameters"][1]["levels"] = ["MPIIO", "POSIX"]
    assert Space.from_dict(data).hash != demo.hash
    assert len(demo.hash) == 16


def test_categorical_words_stay_text():
    space = Space.from_text(
        "name: words\nparameters:\n  - name: mode\n    type: categorical\n    levels: [on, off, auto]\n"
        "    role: system\n    layer: filesystem\n"
    )
    assert space.parameter("mode").levels == ("on", "off", "auto")
    assert Space.from_text(space.to_yaml()) == space


def test_sample_is_deterministic_distinct_and_valid(demo):
    first = demo.sample(20, seed=7)
    assert first == demo.sample(20, seed=7)
    assert first != demo.sample(20, seed=8)
    assert len(first) == len({c.key for c in first}) == 20
    assert all(demo.is_valid(c) for c in first)


def test_sample_returns_everything_when_asked_for_more(demo):
    everything = demo.sample(1000)
    assert sorted(c.key for c in everything) == sorted(c.key for c in demo.enumerate())
    assert demo.sample(0) == []


def big_space(count: int = 40, levels: int = 10, constraints: tuple[str, ...] = ()) -> Space:
    parameters = [
        Parameter(name=f"p{i}", type="integer", levels=tuple(range(levels)), role="system", layer="device")
        for i in range(count)
    ]
    return Space("big", parameters, constraints)


def test_huge_space_is_never_materialised():
    # Constraints on the fastest-varying parameters, so the first valid one is near the start.
    space = big_space(constraints=("p38 < p39", "p37 % 2 == 1"))
    assert space.size == 10**40
    start = time.perf_counter()
    picks = space.sample(5, seed=3)
    first = next(space.enumerate())
    chunk = next(space.level_index_chunks(1000))
    assert time.perf_counter() - start < 5
    assert len(picks) == 5 and len({c.key for c in picks}) == 5
    assert all(c["p38"] < c["p39"] and c["p37"] % 2 == 1 for c in picks)
    assert picks == space.sample(5, seed=3)
    assert first.to_dict() == {**{f"p{i}": 0 for i in range(40)}, "p37": 1, "p39": 1}
    assert chunk.shape == (1000, 40)
    with pytest.raises(SpaceError, match="more than the 1,000,000 a full factorial may list"):
        space.full_factorial()


def test_sampling_too_rare_configurations_raises():
    space = big_space(count=8, levels=10, constraints=tuple(f"p{i} == 9" for i in range(8)))
    with pytest.raises(SpaceError, match="too rare to sample"):
        space.sample(2, max_draws=20_000)


def test_sampling_falls_back_to_enumeration_for_a_scannable_space():
    space = big_space(count=6, levels=10, constraints=("p0 == 9", "p1 == 9", "p2 == 9", "p3 == 9"))
    picks = space.sample(150, seed=1)
    assert len(picks) == 100 and all(c["p0"] == 9 for c in picks)


def test_level_index_chunks_cover_the_product_in_order(demo):
    chunks = list(demo.level_index_chunks(chunk_size=7))
    rows = np.concatenate(chunks)
    assert [len(c) for c in chunks[:-1]] == [7] * (len(chunks) - 1)
    assert rows.tolist() == [list(t) for t in itertools.product(*(range(len(p.levels)) for p in demo.parameters))]


def test_chunks_start_exactly_beyond_int64():
    space = big_space(count=25, levels=10)
    indices = space._indices_from(10**24 - 2, 4)
    assert indices[:, -2:].tolist() == [[9, 8], [9, 9], [0, 0], [0, 1]]
    assert indices[2, 0] == 1 and indices[1, 0] == 0


def test_valid_mask_agrees_with_is_valid_on_demo(demo):
    rows = np.concatenate(list(demo.level_index_chunks()))
    expected = [
        demo.is_valid({p.name: p.levels[i] for p, i in zip(demo.parameters, row)}) for row in rows
    ]
    assert demo.valid_mask(rows).tolist() == expected
    assert int(demo.valid_mask(rows, distinct=True).sum()) == demo.count_valid()


def test_valid_mask_rejects_bad_index_arrays(demo):
    with pytest.raises(SpaceError, match=r"shape \(rows, 7\)"):
        demo.valid_mask(np.zeros((3, 2), dtype=int))
    with pytest.raises(SpaceError, match="level indices must lie"):
        demo.valid_mask(np.full((1, 7), 5))


def test_walking_a_huge_space_whose_rule_admits_nothing_stops_and_says_its_size():
    """Issue 13, item 7: a 10^30 space whose constraint admits nothing must not hang ``space show -c``."""
    lines = ["name: huge", "parameters:"]
    lines += [f"  - {{name: p{i}, type: integer, levels: [{', '.join(map(str, range(10)))}], role: system, "
              "layer: mpiio}" for i in range(30)]
    huge = Space.from_text("\n".join(lines) + '\nconstraints: ["p0 > 100"]\n')
    with pytest.raises(SpaceError, match=r"about 10\^30 assignments; walking it stopped after .*sampler random"):
        next(huge.enumerate())
    with pytest.raises(SpaceError, match=r"about 10\^30 assignments, more than"):
        huge.count_valid()


def test_level_and_literal_bounds():
    """Issue 13, item 8: a 400-digit level or ``transfer_size * 99999999999999999999`` is one SpaceError line."""
    base = "name: x\nparameters:\n  - {name: transfer_size, type: size, levels: [1MiB], role: workload, " \
           "layer: application}\n"
    with pytest.raises(SpaceError, match="2\\*\\*63"):
        Space.from_text(base + "  - {name: p, type: integer, levels: [" + "9" * 400 + "], role: system, "
                               "layer: mpiio}\n")
    with pytest.raises(SpaceError, match="1 PiB"):
        Space.from_text(base.replace("[1MiB]", "[2048TiB]"))
    with pytest.raises(SpaceError, match="beyond"):
        Space.from_text(base + 'constraints: ["transfer_size * 99999999999999999999 > 0"]\n')
    with pytest.raises(SpaceError, match="one line"):
        Space.from_text(base.replace("name: x", 'name: "a\\nb"'))
