"""Lustre layouts: ``lfs setstripe`` on an empty file or a directory, ``lfs getstripe`` to read them back.

``stripe_count`` is ``-c``, ``stripe_unit`` the stripe size ``-S`` (bytes, a
multiple of 64 KiB), ``pool`` an OST pool ``-p``; Lustre has no object size
apart from the stripe size.  Where ROMIO's Lustre driver is in use, the same
layout is also asked for with its ``striping_factor``/``striping_unit`` hints
(it honours them only when it creates the file).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from iotune.fslayout.base import LayoutDriver, LayoutError

OPTIONS = {"stripe_count": "-c", "stripe_unit": "-S", "pool": "-p"}
READ_OPTIONS = {"stripe_count": "--stripe-count", "stripe_unit": "--stripe-size", "pool": "--pool"}


def _tool(name: str, needed_for: str, *args: str) -> str:
    """The output of Lustre's ``name`` (lfs, lctl) run with ``args``; LayoutError in one line if it is missing
    or fails."""
    program = shutil.which(name)
    if program is None:
        raise LayoutError(f"{name} not found: Lustre {needed_for} need the Lustre client tools (lustre-client-utils)")
    done = subprocess.run([program, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise LayoutError(f"{name} {' '.join(args)} failed: {lines[-1] if lines else f'exit status {done.returncode}'}")
    return done.stdout


def _lfs(*args: str) -> str:
    return _tool("lfs", "layouts", *args)


class LustreDriver(LayoutDriver):
    name = "lustre"
    fs_types = ("lustre",)
    fields = ("stripe_count", "stripe_unit", "pool")

    def check(self, layout: dict) -> dict[str, str]:
        layout = super().check(layout)
        if "stripe_unit" in layout and int(layout["stripe_unit"]) % 65536:
            raise LayoutError(f"lustre stripe_unit must be a multiple of 65536 bytes, got {layout['stripe_unit']}")
        return layout

    def _setstripe(self, path: Path, layout: dict) -> None:
        layout = self.check(layout)
        args = [part for name, value in layout.items() for part in (OPTIONS[name], value)]
        _lfs("setstripe", *args, str(path))

    def set_file(self, path: Path, layout: dict) -> None:
        if Path(path).exists() and Path(path).stat().st_size > 0:
            raise LayoutError(f"{path} already holds data: a lustre layout is set on an empty file or its directory")
        if Path(path).exists():
            Path(path).unlink()  # lfs setstripe creates the file; an existing empty one has its layout already
        self._setstripe(path, layout)

    def set_directory(self, path: Path, layout: dict) -> None:
        self._setstripe(path, layout)

    def read(self, path: Path) -> dict[str, str]:
        found = {}
        for name, option in READ_OPTIONS.items():
            value = _lfs("getstripe", option, str(path)).strip()
            if value:
                found[name] = value
        return found

    def mpi_hints(self, layout: dict) -> dict[str, str]:
        layout = self.check(layout)
        names = {"stripe_count": "striping_factor", "stripe_unit": "striping_unit"}
        return {names[k]: v for k, v in layout.items() if k in names}


# Lustre client-side settings iotune may set (per OSC, i.e. per OST connection), name -> lctl parameter
CLIENT_SETTINGS = {"max_dirty_mb": "osc.*.max_dirty_mb", "max_rpcs_in_flight": "osc.*.max_rpcs_in_flight"}


def _lctl(*args: str) -> str:
    return _tool("lctl", "client settings", *args)


def set_client_settings(settings: dict) -> dict[str, list[str]]:
    """Set Lustre client settings (``max_dirty_mb``, ``max_rpcs_in_flight``: positive integers) with
    ``lctl set_param`` (root); returns each one's values in effect, one per OSC, read back with ``lctl get_param``.
    """
    unknown = [name for name in settings if name not in CLIENT_SETTINGS]
    if unknown:
        raise LayoutError(f"unknown Lustre client setting {', '.join(unknown)}; known: {', '.join(CLIENT_SETTINGS)}")
    bad = {k: v for k, v in settings.items() if not str(v).isdigit() or int(v) < 1}
    if bad:
        raise LayoutError(f"Lustre client settings must be positive integers, got {bad}")
    if settings:
        _lctl("set_param", *(f"{CLIENT_SETTINGS[name]}={int(value)}" for name, value in settings.items()))
    return {name: _lctl("get_param", "-n", CLIENT_SETTINGS[name]).split() for name in settings}


DRIVER = LustreDriver()
