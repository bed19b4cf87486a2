"""File layouts (striping) as parameters: one driver per file system, found from the path.

A layout is a dict of ``stripe_count``, ``stripe_unit`` and ``object_size``
(bytes) and ``pool`` (a name).  It is set on an **empty** file before data is
written (or on a directory, inherited by files created in it afterwards), and
what the file system holds in effect is read back, as MPI-IO hints are.  Adding
a file system (BeeGFS, GPFS) is one module with a :class:`LayoutDriver` as its ``DRIVER``
(:mod:`iotune.fslayout.drivers` finds it).
"""

from iotune.fslayout.base import LAYOUT_FIELDS, LayoutDriver, LayoutError, check_layout, file_system_of
from iotune.fslayout.drivers import apply_to_directory, apply_to_file, default_layout, driver_for

__all__ = ["LAYOUT_FIELDS", "LayoutDriver", "LayoutError", "apply_to_directory", "apply_to_file", "check_layout",
           "default_layout", "driver_for", "file_system_of"]
