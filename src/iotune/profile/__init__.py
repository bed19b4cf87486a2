"""Workload profiles: what an application does with I/O (paper 000, Section 2.2), from Darshan, IOR or YAML.

The monitoring side of paper 001's auto-tuner (Fig. 2): a Darshan log, an IOR
command line or a YAML file becomes a :class:`Workload`, which names the
study's workload and the nearest IOR benchmark.
"""

from __future__ import annotations

from pathlib import Path

from iotune.profile.darshan_log import from_darshan
from iotune.profile.ior_command import from_ior_command
from iotune.profile.workload import APIS, ProfileError, Workload
from iotune.profile.yaml_file import from_mapping, from_yaml

YAML_SUFFIXES = (".yaml", ".yml")


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
    if path.is_file():
        return from_darshan(path)
    if " " in text.strip() or Path(text).name == "ior":
        return from_ior_command(text)
    raise ProfileError(f"{text}: no such file, and not an IOR command line")


__all__ = ["APIS", "ProfileError", "Workload", "from_darshan", "from_ior_command", "from_mapping", "from_yaml",
           "load_workload"]
