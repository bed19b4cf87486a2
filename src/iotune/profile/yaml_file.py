"""A :class:`~iotune.workload.Workload` from a YAML file in iotune's workload vocabulary (sizes as ``4MiB``)."""

from __future__ import annotations

from pathlib import Path

from iotune.errors import SpaceError
from iotune.workload import Workload, WorkloadError
from iotune.yamlio import read_yaml_file


def from_mapping(data: dict, source: str = "<mapping>") -> Workload:
    """A Workload from a mapping of its fields (see :mod:`iotune.workload`); WorkloadError if invalid."""
    return Workload.from_mapping(data, source)


def from_yaml(path: str | Path) -> Workload:
    """The workload a YAML file describes; WorkloadError when it cannot be read or is not a valid workload."""
    try:
        data, _ = read_yaml_file(path, "workload file")
    except SpaceError as exc:
        raise WorkloadError(str(exc)) from None
    return from_mapping(data, str(path))
