"""Property tests: enumeration equals a brute-force filter of itertools.product, and the
vectorised validity agrees with the scalar one, on random small spaces with when rules,
inactive parameters, None tests and divisions by zero."""

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from iotune.space import Parameter, Space

NUMBER_WHENS = ("{q} > {c}", "{q} % 2 == 0", "{q} is None", "not {q}", "{q} in ({c}, 1)", "-{q} + 1 >= 0")
TEXT_WHENS = ("{q} == 'a'", "{q} in ('a', 'b')", "{q} != 'c' or {q} is None", "{q} > 'a'")
NUMBER_CONSTRAINTS = (
    "{a} <= {b}",
    "{a} % {b} == 0",
    "{a} is None or {b} is not None",
    "{a} // {b} > 0 or {a} == 0",
    "({a} + {b}) * 2 != 6",
    "{a} / {b} < 2 and {b} != 1",
    "not ({a} > 1 and {b} > 1)",
    "0 <= {a} - {b} <= 2",
    "{b} == 0 or {a} % {b} == 0",
    "{b} != 0 and {a} // {b} >= 1",
)


@st.composite
def parameters(draw, index: int):
    type_ = draw(st.sampled_from(("integer", "size", "boolean", "categorical")))
    if type_ == "integer":
        levels = draw(st.lists(st.integers(0, 5), min_size=1, max_size=3, unique=True))
    elif type_ == "size":
        levels = draw(st.lists(st.sampled_from((1, 2, 4, 1024, 4096)), min_size=1, max_size=3, unique=True))
    elif type_ == "categorical":
        levels = draw(st.lists(st.sampled_from("abc"), min_size=1, max_size=3, unique=True))
    else:
        levels = draw(st.sampled_from(((False, True), (True,), (True, False))))
    role = draw(st.sampled_from(("workload", "system")))
    return Parameter(name=f"p{index}", type=type_, levels=levels, role=role, layer="device")


@st.composite
def spaces(draw):
    count = draw(st.integers(1, 5))
    plain = [draw(parameters(i)) for i in range(count)]
    with_rules = []
    for index, parameter in enumerate(plain):
        when = None
        if index and draw(st.booleans()):
            other = plain[draw(st.integers(0, index - 1))]
            templates = TEXT_WHENS if other.kind == "text" else NUMBER_WHENS
            when = draw(st.sampled_from(templates)).format(q=other.name, c=draw(st.integers(0, 3)))
        fields = {**parameter.to_dict(), "when": when}
        with_rules.append(Parameter.from_dict({k: v for k, v in fields.items() if v is not None}))
    numbers = [p.name for p in with_rules if p.kind == "number"]
    constraints = []
    if numbers:
        for _ in range(draw(st.integers(0, 2))):
            template = draw(st.sampled_from(NUMBER_CONSTRAINTS))
            constraints.append(template.format(a=draw(st.sampled_from(numbers)), b=draw(st.sampled_from(numbers))))
    order = draw(st.permutations(range(count)))
    return Space("random", [with_rules[i] for i in order], constraints)


def as_mapping(space, levels):
    return dict(zip((p.name for p in space.parameters), levels))


@settings(max_examples=150, deadline=None)
@given(spaces())
def test_enumerate_equals_brute_force(space):
    seen, expected = set(), []
    for levels in itertools.product(*(p.levels for p in space.parameters)):
        if space.is_valid(as_mapping(space, levels)):
            configuration = space.configuration(as_mapping(space, levels))
            if configuration not in seen:
                seen.add(configuration)
                expected.append(configuration)
    assert list(space.enumerate()) == expected
    assert space.count_valid() == len(expected)


@settings(max_examples=150, deadline=None)
@given(spaces())
def test_valid_mask_agrees_with_is_valid(space):
    rows = np.concatenate(list(space.level_index_chunks(chunk_size=5)))
    expected = [
        space.is_valid(as_mapping(space, [p.levels[i] for p, i in zip(space.parameters, row)])) for row in rows
    ]
    assert space.valid_mask(rows).tolist() == expected


@settings(max_examples=50, deadline=None)
@given(spaces(), st.integers(0, 2**32 - 1), st.integers(1, 10))
def test_sample_is_a_distinct_valid_subset(space, seed, n):
    picks = space.sample(n, seed=seed)
    assert picks == space.sample(n, seed=seed)
    assert len(picks) == len(set(picks)) == min(n, space.count_valid())
    assert all(space.is_valid(c) and space.configuration(c) == c for c in picks)
