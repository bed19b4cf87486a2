"""Every spec error names the source, the YAML line, the parameter, what is allowed and what was given."""

import re
import textwrap

import pytest

from iotune.errors import SpaceError
from iotune.space import Space

HEAD = """\
name: broken
parameters:
  - name: api
    type: categorical
    levels: [POSIX, MPIIO]
    role: workload
    layer: application
"""
# Lines 1-7 are HEAD; a parameter appended below starts on line 8.


def load(body: str, head: str = HEAD) -> Space:
    """Append ``body`` to ``head``: parameter entries (starting with '-') go under ``parameters``."""
    text = textwrap.dedent(body)
    if text.startswith("-"):
        text = textwrap.indent(text, "  ")
    return Space.from_text(head + text, source="spec.yaml")


def error(body: str, head: str = HEAD) -> str:
    with pytest.raises(SpaceError) as info:
        load(body, head)
    message = str(info.value)
    assert "\n" not in message
    return message


def expect(body: str, line: int, *fragments: str, head: str = HEAD) -> None:
    message = error(body, head)
    assert message.startswith(f"spec.yaml:{line}: "), message
    for fragment in fragments:
        assert fragment in message, message


def test_head_alone_loads():
    assert [p.name for p in load("").parameters] == ["api"]


def test_malformed_yaml():
    with pytest.raises(SpaceError, match=r"^spec\.yaml:4: malformed YAML: ") as info:
        Space.from_text("name: x\nparameters:\n  - name: [unclosed\n", source="spec.yaml")
    assert "\n" not in str(info.value)
    assert "while parsing a flow sequence started on line 3" in str(info.value)


def test_tabs_are_malformed_yaml():
    with pytest.raises(SpaceError, match=r"^spec\.yaml:2: malformed YAML"):
        Space.from_text("name: x\n\tparameters: []\n", source="spec.yaml")


def test_not_a_mapping():
    message = r"^spec\.yaml:1: the spec must be a mapping with keys name, description, parameters, constraints, got list"
    with pytest.raises(SpaceError, match=message):
        Space.from_text("- a\n- b\n", source="spec.yaml")


def test_empty_document():
    with pytest.raises(SpaceError, match=r"^spec\.yaml:1: the spec is empty"):
        Space.from_text("", source="spec.yaml")


def test_missing_parameters():
    with pytest.raises(SpaceError, match=r"^spec\.yaml:1: missing 'parameters'"):
        Space.from_text("name: x\ndescription: nothing\n", source="spec.yaml")


def test_empty_parameters():
    with pytest.raises(SpaceError, match=r"^spec\.yaml:2: 'parameters' must be a non-empty list"):
        Space.from_text("name: x\nparameters: []\n", source="spec.yaml")


def test_misspelt_top_level_key():
    with pytest.raises(SpaceError, match=r"^spec\.yaml:8: unknown key 'constraint', did you mean 'constraints'\?"):
        load("constraint: []\n")


def test_a_space_alone_refuses_campaign_sections():
    with pytest.raises(SpaceError, match="unknown key 'benchmark'"):
        load("benchmark:\n  api: MPIIO\n")


def test_duplicate_yaml_key():
    expect("""\
      - name: x
        type: integer
        type: size
        levels: [1]
        role: system
        layer: mpiio
    """, 10, "key 'type' appears twice")


def test_duplicate_parameter_names():
    expect("""\
      - name: api
        type: boolean
        role: workload
        layer: application
    """, 8, "parameter 'api' is declared twice")


@pytest.mark.parametrize(
    ("key", "value", "allowed"),
    [
        ("type", "float", "allowed: categorical, boolean, integer, size"),
        ("role", "tunable", "allowed: workload, system"),
        ("layer", "network", "allowed: application, hdf5, mpiio, filesystem, device"),
    ],
)
def test_unknown_choice(key, value, allowed):
    fields = {"type": "integer", "role": "system", "layer": "mpiio"}
    fields[key] = value
    body = f"""\
      - name: cb_nodes
        levels: [1, 2]
        type: {fields['type']}
        role: {fields['role']}
        layer: {fields['layer']}
    """
    line = {"type": 10, "role": 11, "layer": 12}[key]
    expect(body, line, f"parameter 'cb_nodes': unknown {key} '{value}' ({allowed})")


def test_missing_levels_and_range():
    expect("""\
      - name: cb_nodes
        type: integer
        role: system
        layer: mpiio
    """, 8, "parameter 'cb_nodes': needs levels (a list) or range ([low, high])")


def test_missing_role():
    expect("""\
      - name: cb_nodes
        type: integer
        levels: [1]
        layer: mpiio
    """, 8, "parameter 'cb_nodes': missing 'role'")


def test_empty_levels():
    expect("""\
      - name: cb_nodes
        type: integer
        levels: []
        role: system
        layer: mpiio
    """, 10, "parameter 'cb_nodes': levels must not be empty")


def test_duplicate_levels_point_at_the_repeated_item():
    expect("""\
      - name: transfer_size
        type: size
        levels:
          - 1MiB
          - 4KiB
          - 1048576
        role: workload
        layer: application
    """, 13, "parameter 'transfer_size': level 1048576 is listed twice")


def test_bad_size_level():
    expect("""\
      - name: transfer_size
        type: size
        levels: [4KiB, 4XB]
        role: workload
        layer: application
    """, 10, "parameter 'transfer_size': level '4XB' is not a size (examples: 4MiB, 256KiB, 1GB, 4096)")


def test_bad_integer_level():
    expect("""\
      - name: cb_nodes
        type: integer
        levels: [1, two]
        role: system
        layer: mpiio
    """, 10, "parameter 'cb_nodes': level 'two' is not an integer")


def test_default_not_in_levels():
    expect("""\
      - name: romio_cb_write
        type: categorical
        levels: [automatic, enable, disable]
        default: sometimes
        role: system
        layer: mpiio
    """, 11, "parameter 'romio_cb_write': default 'sometimes' is not one of the levels (levels: automatic, enable, disable)")


def test_range_low_above_high():
    expect("""\
      - name: block_size
        type: size
        range: [16MiB, 1MiB]
        role: workload
        layer: application
    """, 10, "parameter 'block_size': range low '16MiB' is above high '1MiB'")


def test_range_negative_size():
    expect("""\
      - name: block_size
        type: size
        range: [-1MiB, 1MiB]
        role: workload
        layer: application
    """, 10, "parameter 'block_size': range bound '-1MiB' is a negative size")


def test_range_on_categorical():
    expect("""\
      - name: mode
        type: categorical
        range: [a, b]
        role: workload
        layer: application
    """, 10, "range is only for integer and size parameters")


def test_levels_and_range_together():
    expect("""\
      - name: cb_nodes
        type: integer
        levels: [1]
        range: [1, 2]
        role: system
        layer: mpiio
    """, 11, "give either levels or range, not both")


def test_unknown_parameter_key():
    expect("""\
      - name: cb_nodes
        type: integer
        levels: [1]
        role: system
        layer: mpiio
        hints: cb_nodes
    """, 13, "parameter 'cb_nodes': unknown key 'hints' (allowed: name, type, levels, range, scale, step, default, "
        "role, layer, when, hint, env, description)")


def test_bad_parameter_name():
    expect("""\
      - name: cb-nodes
        type: integer
        levels: [1]
        role: system
        layer: mpiio
    """, 8, "parameter name 'cb-nodes' must be an identifier")


def test_parameter_not_a_mapping():
    expect("""\
      - just a string
    """, 8, "must be a mapping")


WHEN_BODY = """\
  - name: cb_nodes
    type: integer
    levels: [1, 2]
    role: system
    layer: mpiio
    when: "{when}"
"""


@pytest.mark.parametrize(
    ("when", "fragment"),
    [
        ("api.lower() == 'mpiio'", "not allowed"),
        ("api.upper", "attribute access not allowed"),
        ("len(api) > 2", "calls other than size('4MiB')"),
        ("api[0] == 'M'", "subscripts not allowed"),
        ("(lambda: 1)()", "calls other than size"),
        ("api == MPIIO", "unknown name 'MPIIO'"),
        ("api ==", "is not a valid expression"),
        ("api < 3", "comparison of text with number"),
        ("api + 1 > 0", "arithmetic needs numbers"),
        ("api == None", "compare with None using 'is None'"),
        ("api is 'MPIIO'", "'is' is only allowed as 'x is None'"),
        ("api in ('MPIIO', 3)", "'in' compares text with number"),
        ("size('4XB') > 0", "size()"),
        ("api in other", "'in' needs a literal tuple or list"),
        ("cb_nodes > 1", "refers to the parameter itself"),
    ],
)
def test_bad_when(when, fragment):
    expect(WHEN_BODY.format(when=when), 13, "parameter 'cb_nodes': when", fragment)


def test_bad_constraint_points_at_its_line():
    expect("""\
    constraints:
      - "api == 'MPIIO'"
      - "__import__('os').system('true')"
    """, 10, "constraint ", "calls other than size", head=HEAD)


def test_unknown_name_in_constraint_lists_parameters():
    expect("""\
    constraints:
      - "apii == 'MPIIO'"
    """, 9, "unknown name 'apii' (parameters: api;")


def test_when_cycle():
    expect("""\
      - name: a
        type: boolean
        role: system
        layer: mpiio
        when: "b"
      - name: b
        type: boolean
        role: system
        layer: mpiio
        when: "a"
    """, 12, "depend on each other in a cycle")


def test_when_may_reference_a_later_parameter():
    space = load("""\
      - name: cb_nodes
        type: integer
        levels: [1, 2]
        role: system
        layer: mpiio
        when: "collective"
      - name: collective
        type: boolean
        role: workload
        layer: mpiio
    """)
    assert space.configuration({"collective": False})["cb_nodes"] is None
    assert space.configuration({"collective": True, "cb_nodes": 2})["cb_nodes"] == 2


def test_space_with_no_valid_assignment_loads():
    space = load("""\
    constraints:
      - "api == 'other'"
    """)
    assert list(space.enumerate()) == []
    assert space.count_valid() == 0
    assert space.sample(3) == []


def test_from_yaml_names_the_file(tmp_path):
    path = tmp_path / "demo.yaml"
    path.write_text(HEAD + "  - name: x\n    type: size\n    levels: [4XB]\n    role: workload\n    layer: device\n")
    with pytest.raises(SpaceError, match=re.escape(f"{path}:10: parameter 'x': level '4XB' is not a size")):
        Space.from_yaml(path)


def test_missing_file(tmp_path):
    with pytest.raises(SpaceError, match="cannot read the space spec"):
        Space.from_yaml(tmp_path / "absent.yaml")


def test_yaml_composition_stops_at_the_node_bound(monkeypatch):
    """A flat list of a million numbers is refused while it is read, not after minutes of building it."""
    from iotune import yamlio

    monkeypatch.setattr(yamlio, "MAX_NODES", 100)
    text = "levels:\n" + "".join(f"  - {i}\n" for i in range(1000))
    with pytest.raises(SpaceError, match=r"big\.yaml:10[0-9]: the YAML has more than 100 elements"):
        yamlio.load_yaml(text, "big.yaml")


def test_control_characters_are_one_error_line():
    from iotune import yamlio

    with pytest.raises(SpaceError, match="x.yaml: malformed YAML: unacceptable character"):
        yamlio.load_yaml("name: a\x00b\n", "x.yaml")
