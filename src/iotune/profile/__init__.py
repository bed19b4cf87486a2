"""Workload profiles: what an application does with I/O (paper 000, Section 2.2), from Darshan, IOR or YAML.

The monitoring side of paper 001's auto-tuner (Fig. 2): a Darshan log, an IOR
command line or a YAML file becomes a :class:`~iotune.workload.Workload`, in
the one workload vocabulary that specs, ``recommend``, ``run`` and ``tune`` read.
"""

from __future__ import annotations

import re
from pathlib import Path

from iotune.profile.darshan_log import from_darshan
from iotune.profile.ior_command import from_ior_command
from iotune.profile.yaml_file import from_mapping, from_yaml
from iotune.workload import BENCHMARK_FIELDS, INTERFACES, Workload, WorkloadError, workload_values

YAML_SUFFIXES = (".yaml", ".yml")
PAIRS = re.compile(r"^\s*\w+\s*=\s*[^,=\s][^,=]*(,\s*\w+\s*=\s*[^,=\s][^,=]*)*,?\s*$")


def workload_values_from(source: str | Path) -> tuple[dict, Workload | None]:
    """The benchmark-field values of a workload given in any form, and the whole Workload when there is one.

    ``source`` is ``name=value`` pairs (``transfer_size=4MiB,collective=true``),
    a workload YAML file (whole or partial), a Darshan log or an IOR command
    line; names are those of :mod:`iotune.workload`.
    """
    text = str(source).strip()
    path = Path(text)
    if PAIRS.match(text) and not _exists(path):
        pairs = {}
        for item in filter(None, (part.strip() for part in text.split(","))):
            name, sep, value = item.partition("=")
            if not sep or not name.strip() or not value.strip():
                raise WorkloadError(f"--workload: {item!r} is not name=value (example: "
                                    "transfer_size=1MiB,collective=true)")
            pairs[name.strip()] = value.strip()
        return workload_values(pairs, "--workload"), None
    if path.suffix.lower() in YAML_SUFFIXES:
        from iotune.errors import SpaceError
        from iotune.yamlio import read_yaml_file

        try:
            data, _ = read_yaml_file(path, "workload file")
        except SpaceError as exc:
            raise WorkloadError(str(exc)) from None
        values = workload_values(data, str(path), descriptive=True)
        return {k: v for k, v in values.items() if k in BENCHMARK_FIELDS}, None
    if not _exists(path) and not _looks_like_ior(text):
        shown = repr(text) if len(text) <= 80 else f"{text[:80]!r}... ({len(text):,} characters)"
        raise WorkloadError(f"--workload: {shown} is not a workload: use name=value,name=value (e.g. "
                            "transfer_size=1MiB,collective=true), or give a workload file, a Darshan log or an IOR "
                            "command line")
    workload = load_workload(text)
    return workload.values(), workload


def _exists(path: Path, is_file: bool = False) -> bool:
    """Whether ``path`` names a file, False for text that cannot be a path (100,000 characters: ENAMETOOLONG)."""
    try:
        return path.is_file() if is_file else path.exists()
    except OSError:
        return False


def _looks_like_ior(text: str) -> bool:
    """Whether ``text`` runs an ``ior`` program (``ior ...``, ``mpiexec -n 4 /opt/bin/ior ...``)."""
    return any(Path(word).name.startswith("ior") for word in text.split())


def load_workload(source: str | Path) -> Workload:
    """A Workload from a Darshan log, a YAML file (``.yaml``/``.yml``) or an IOR command line.

    A path to an existing file is a workload file when its name ends in
    ``.yaml`` or ``.yml`` and a Darshan log otherwise; any other text must be
    an IOR command line.
    """
    text = str(source)
    path = Path(text)
    if path.suffix.lower() in YAML_SUFFIXES:
        return from_yaml(path)
    if _exists(path, is_file=True):
        return from_darshan(path)
    if " " in text.strip() or Path(text).name == "ior":
        return from_ior_command(text)
    raise WorkloadError(f"{text}: no such file, and not an IOR command line")


__all__ = ["INTERFACES", "WorkloadError", "Workload", "from_darshan", "from_ior_command", "from_mapping", "from_yaml",
           "load_workload", "workload_values_from"]
