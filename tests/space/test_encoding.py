"""Space.encode: the same numbers for a configuration whether it comes as an object, a stored dict or indices."""

import numpy as np
import pytest

from iotune.errors import SpaceError
from iotune.space import Space

SPEC = """
name: enc
parameters:
  - {name: transfer_size, type: size, levels: [4KiB, 1MiB], role: workload, layer: application}
  - {name: processes, type: integer, levels: [2, 8], role: workload, layer: application}
  - {name: collective, type: boolean, role: workload, layer: mpiio}
  - {name: romio_cb_write, type: categorical, levels: [automatic, enable, disable], role: system, layer: mpiio,
     when: "collective"}
"""


def test_columns_and_values():
    space = Space.from_text(SPEC)
    encoder = space.encoder()
    assert encoder.feature_names == ("log2(transfer_size)", "processes", "collective", "romio_cb_write=automatic",
                                     "romio_cb_write=enable", "romio_cb_write=disable", "romio_cb_write:active")
    row = space.encode([space.configuration({"transfer_size": "1MiB", "processes": 8, "collective": True,
                                             "romio_cb_write": "disable"})])[0]
    assert row.tolist() == [20.0, 8.0, 1.0, 0.0, 0.0, 1.0, 1.0]
    inactive = space.encode([{"transfer_size": 4096, "processes": 2, "collective": False, "romio_cb_write": None}])[0]
    assert inactive.tolist() == [12.0, 2.0, 0.0, 1.0, 0.0, 0.0, 0.0]  # default's encoding, flagged inactive
    ordinal = space.encode([{"transfer_size": 4096, "processes": 2, "collective": True, "romio_cb_write": "enable"}],
                           categorical="ordinal")[0]
    assert ordinal.tolist() == [12.0, 2.0, 1.0, 1.0, 1.0]


def test_indices_and_configurations_encode_identically():
    space = Space.from_text(SPEC)
    encoder = space.encoder()
    indices = np.concatenate(list(space.level_index_chunks(5)))
    active, valid = space.active_mask(indices)
    distinct = valid & np.all(active | (indices == 0), axis=1)
    from_indices = encoder.transform_indices(indices[distinct], active[distinct])
    from_configurations = encoder.transform(list(space.enumerate()))
    np.testing.assert_array_equal(from_indices, from_configurations)


def test_value_outside_the_levels_is_a_clear_error():
    space = Space.from_text(SPEC)
    with pytest.raises(SpaceError, match="transfer_size"):
        space.encode([{"transfer_size": 12345, "processes": 2, "collective": False}])
    with pytest.raises(SpaceError, match="categorical encoding"):
        space.encoder("binary")


COUNTS = """
name: counts
parameters:
  - {name: stripe_count, type: integer, range: [1, 16], scale: log2, role: system, layer: filesystem}
  - {name: cb_nodes, type: integer, levels: [1, 2, 4, 8], scale: log2, role: system, layer: mpiio}
  - {name: aggregators, type: integer, levels: [1, 2, 4, 8], role: system, layer: mpiio}
"""


def test_an_integer_with_a_log2_scale_is_encoded_as_log2_and_keeps_its_scale():
    """Stripe and node counts act by orders of magnitude: 1 -> 2 nodes is as far as 4 -> 8 for every
    distance-based model; a plain integer stays linear."""
    space = Space.from_text(COUNTS)
    assert space.encoder().feature_names == ("log2(stripe_count)", "log2(cb_nodes)", "aggregators")
    row = space.encode([space.configuration({"stripe_count": 8, "cb_nodes": 4, "aggregators": 4})])[0]
    assert row.tolist() == [3.0, 2.0, 4.0]
    again = Space.from_text(space.to_yaml())  # as a stored study's space is read back
    assert again == space and again.parameter("stripe_count").scale == "log2"


@pytest.mark.parametrize("entry, message", [
    ("{name: n, type: integer, levels: [0, 1, 2], scale: log2, role: system, layer: mpiio}", "levels >= 1"),
    ("{name: n, type: categorical, levels: [a, b], scale: log2, role: system, layer: mpiio}", "need a range"),
    ("{name: n, type: integer, levels: [1, 2], scale: cubic, role: system, layer: mpiio}", "unknown scale"),
])
def test_a_log2_scale_that_cannot_be_is_a_clear_error(entry, message):
    with pytest.raises(SpaceError, match=message):
        Space.from_text(f"name: bad\nparameters:\n  - {entry}\n")
