import pytest

from iotune.errors import SpaceError
from iotune.space import Parameter
from iotune.units import parse_size


def size_parameter(**overrides):
    fields = dict(name="transfer_size", type="size", levels=["4KiB", "256KiB", "1MiB"], role="workload", layer="application")
    fields.update(overrides)
    return Parameter(**fields)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4MiB", 4 * 2**20),
        ("256KiB", 256 * 1024),
        ("1GB", 10**9),
        ("4m", 4 * 2**20),
        ("4096", 4096),
        (4096, 4096),
        ("1.5KiB", 1536),
    ],
)
def test_parse_size(text, expected):
    assert parse_size(text) == expected


def test_levels_are_normalised():
    assert size_parameter().levels == (4096, 256 * 1024, 2**20)
    assert Parameter(name="collective", type="boolean", role="workload", layer="mpiio").levels == (False, True)
    flags = Parameter(name="fsync", type="boolean", levels=["yes", "off"], role="workload", layer="application")
    assert flags.levels == (True, False)
    counts = Parameter(name="segment_count", type="integer", levels=["3", 5], role="workload", layer="application")
    assert counts.levels == (3, 5)
    api = Parameter(name="api", type="categorical", levels=["POSIX", 1], role="workload", layer="application")
    assert api.levels == ("POSIX", "1")


def test_default_is_first_level_or_given():
    assert size_parameter().default == 4096
    assert size_parameter(default="1MiB").default == 2**20


def test_mpiio_system_option_hint_defaults_to_name():
    cb = Parameter(name="cb_nodes", type="integer", levels=[1], role="system", layer="mpiio")
    assert cb.hint == "cb_nodes"
    assert Parameter(name="collective", type="boolean", role="workload", layer="mpiio").hint is None
    assert Parameter(name="stripe", type="integer", levels=[1], role="system", layer="filesystem").hint is None


@pytest.mark.parametrize(("given", "expected"), [("1MiB", 2**20), (4096, 4096), ("256k", 256 * 1024)])
def test_normalise_size(given, expected):
    assert size_parameter().normalise(given) == expected


@pytest.mark.parametrize(("given", "expected"), [("yes", True), ("Off", False), (True, True), ("true", True), (0, False)])
def test_normalise_boolean(given, expected):
    assert Parameter(name="fsync", type="boolean", role="workload", layer="application").normalise(given) is expected


def test_normalise_integer_from_text():
    assert Parameter(name="cb_nodes", type="integer", levels=[1, 3], role="system", layer="mpiio").normalise("3") == 3


def test_normalise_errors_name_parameter_levels_and_value():
    message = r"parameter 'transfer_size': value '8KiB' is not a level \(levels: 4KiB, 256KiB, 1MiB\)"
    with pytest.raises(SpaceError, match=message):
        size_parameter().normalise("8KiB")
    with pytest.raises(SpaceError, match=r"'transfer_size': value '4XB' is not a size .*levels: 4KiB"):
        size_parameter().normalise("4XB")
    with pytest.raises(SpaceError, match=r"'fsync': value 'maybe' is not a boolean"):
        Parameter(name="fsync", type="boolean", role="workload", layer="application").normalise("maybe")


def test_format_and_round_trip():
    parameter = size_parameter(when="api == 'MPIIO'", description="bytes per call", line=12)
    assert parameter.format(2**20) == "1MiB"
    assert parameter.format(None) == "None"
    again = Parameter.from_dict(parameter.to_dict())
    assert again == parameter
    assert again.line is None


@pytest.mark.parametrize(
    ("spec", "levels"),
    [
        ({"type": "size", "range": ["1MiB", "16MiB"]}, [2**20 * k for k in (1, 2, 4, 8, 16)]),
        ({"type": "size", "range": ["1MiB", "5MiB"]}, [2**20 * k for k in (1, 2, 4)]),
        ({"type": "integer", "range": [1, 4]}, [1, 2, 3, 4]),
        ({"type": "integer", "range": [0, 10], "step": 5}, [0, 5, 10]),
        ({"type": "integer", "range": [1, 16], "scale": "log2"}, [1, 2, 4, 8, 16]),
        ({"type": "size", "range": ["1MiB", "3MiB"], "step": "1MiB"}, [2**20, 2 * 2**20, 3 * 2**20]),
    ],
)
def test_ranges(spec, levels):
    parameter = Parameter.from_dict({"name": "x", "role": "workload", "layer": "application", **spec})
    assert list(parameter.levels) == levels
