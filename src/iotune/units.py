"""Sizes with units: ``4MiB``, ``256KiB``, ``1GB``, ``4m`` (IOR style), plain integers (bytes)."""

import re

from iotune.errors import UnitError

KIB = 2**10
MIB = 2**20
"""Bytes in a MiB: bandwidths are MiB/s, as IOR reports them."""
GIB = 2**30

_FACTORS = {
    "": 1,
    "b": 1,
    "k": 1024,
    "kib": 1024,
    "kb": 1000,
    "m": 1024**2,
    "mib": 1024**2,
    "mb": 1000**2,
    "g": 1024**3,
    "gib": 1024**3,
    "gb": 1000**3,
    "t": 1024**4,
    "tib": 1024**4,
    "tb": 1000**4,
}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")


def parse_size(text: object) -> int:
    """Return a size in bytes.

    Binary units (KiB, MiB, GiB, TiB) and IOR's single letters (k, m, g, t) are
    powers of 1024; decimal units (KB, MB, GB, TB) are powers of 1000.  A bare
    number is bytes.  Fractions are allowed when they give a whole number of bytes.
    """
    if isinstance(text, bool):
        raise UnitError(f"size must be a number with a unit such as 4MiB, got {text!r}")
    if isinstance(text, int):
        if text < 0:
            raise UnitError(f"size must not be negative, got {text}")
        return text
    if isinstance(text, float):
        if text < 0 or not float(text).is_integer():
            raise UnitError(f"size must be a whole number of bytes, got {text}")
        return int(text)
    match = _SIZE.match(str(text))
    if not match:
        raise UnitError(f"cannot read {text!r} as a size (examples: 4MiB, 256KiB, 1GB, 4096)")
    number, unit = match.groups()
    factor = _FACTORS.get(unit.lower())
    if factor is None:
        raise UnitError(
            f"unknown size unit {unit!r} in {text!r} (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB or k, m, g, t)"
        )
    value = float(number) * factor
    if not value.is_integer():
        raise UnitError(f"{text!r} is not a whole number of bytes")
    return int(value)


_STYLES = {
    # style: (suffixes for TiB, GiB, MiB, KiB, suffix for bytes)
    "iec": (("TiB", "GiB", "MiB", "KiB"), "B"),  # 4194304 -> 4MiB, 1000 -> 1000B
    "ior": (("t", "g", "m", "k"), ""),  # IOR's -t/-b options: 4m, 64k
    "lfs": (("T", "G", "M", "K"), ""),  # lfs setstripe -S: 4M, 64K
}


def format_size(nbytes: int, style: str = "iec") -> str:
    """Shortest exact binary form of a byte count in ``style`` (iec: '4MiB', ior: '4m', lfs: '4M')."""
    suffixes, plain = _STYLES[style]
    nbytes = int(nbytes)
    for suffix, factor in zip(suffixes, (1024**4, 1024**3, 1024**2, 1024), strict=True):
        if nbytes >= factor and nbytes % factor == 0:
            return f"{nbytes // factor}{suffix}"
    return f"{nbytes}{plain}"
