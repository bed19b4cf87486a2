"""What a report fits, kept between reports of the same data: held-out predictions of the performance models and
of the variability map.

Fitting them (cross-validated, fold by fold) and importing scikit-learn to do
so was half of a report's time (issue 32: a report of 100 trials within 3 s).
A report of data already reported on reads them back instead, and, when nothing
else needs it, never imports scikit-learn.  An entry is named by a digest of
everything its numbers depend on: the rows fitted (the dataset's hash and
configuration keys, or the repeats' times), the predictor and its parameters,
the folds and seed, and the versions of iotune, numpy, scipy and scikit-learn;
so a report reads back exactly the numbers it would compute, and new trials,
another library or another iotune compute afresh.

Entries live in the user's cache directory (``IOTUNE_REPORT_CACHE``, else
``$XDG_CACHE_HOME/iotune/report``, else ``~/.cache/iotune/report``), never in
the store: a report only reads its store, which may be read-only or someone
else's.  A cache that cannot be written or read is not used, in silence: the
report is the same without it.  Files are ``.npz`` read without pickle,
bounded in size, their shapes checked against the data.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from iotune.errors import IotuneError

FORMAT = 1
MAX_BYTES = 64 << 20
"""An entry larger than this, packed or unpacked, is not read: a held-out prediction is 8 bytes a trial."""
KEEP = 256
"""Entries kept; beyond, the least recently written go."""


def directory(environ=None) -> Path | None:
    """Where entries live; None when ``IOTUNE_REPORT_CACHE`` is empty, or there is no home directory (no cache)."""
    environ = os.environ if environ is None else environ
    if "IOTUNE_REPORT_CACHE" in environ:
        return Path(environ["IOTUNE_REPORT_CACHE"]) if environ["IOTUNE_REPORT_CACHE"] else None
    base = environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except (RuntimeError, KeyError):  # no HOME and no passwd entry: no cache
            return None
    return Path(base) / "iotune" / "report"


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    import iotune

    found = {"iotune": iotune.__version__}
    for package in ("numpy", "scipy", "scikit-learn"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            found[package] = "-"
    return found


def key(what: str, **parts) -> str:
    """The name of an entry: a digest of ``what``, ``parts`` (JSON-able) and the libraries' versions."""
    text = json.dumps({"format": FORMAT, "what": what, "versions": _versions(), **parts}, sort_keys=True,
                      default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def digest(*parts) -> str:
    """A digest of JSON-able ``parts`` and numpy arrays among them (their dtype, shape and bytes), in order."""
    hashed = hashlib.sha256()
    for part in parts:
        if isinstance(part, np.ndarray):
            hashed.update(f"{part.dtype.str}{part.shape}".encode())
            hashed.update(np.ascontiguousarray(part).tobytes())
        else:
            hashed.update(json.dumps(part, sort_keys=True, default=str).encode())
        hashed.update(b"\x00")
    return hashed.hexdigest()


class FitCache:
    """Arrays by entry name in ``root`` (None: nothing is kept)."""

    def __init__(self, root: Path | None):
        self.root = root

    @classmethod
    def default(cls) -> FitCache:
        return cls(directory())

    def held_out(self, name: str, length: int, compute, failures) -> tuple[np.ndarray, np.ndarray]:
        """``compute()``'s held-out predictions and reference (two float vectors of ``length``), read back when
        kept under ``name``; a failure among ``failures`` is kept too, and read back as an IotuneError with its
        message."""
        found = self.get(name, length)
        if found is not None:
            if "error" in found:
                raise IotuneError(str(found["error"]))  # what the fit said when it was made
            return found["predicted"], found["reference"]
        try:
            predicted, reference = compute()
        except failures as error:
            self.put(name, error=np.array(str(error)))
            raise
        self.put(name, predicted=predicted, reference=reference)
        return predicted, reference

    def get(self, name: str, length: int) -> dict[str, np.ndarray] | None:
        """The entry ``name``: a failure's message (``error``, text) or ``predicted`` and ``reference``, float
        vectors of ``length``; None when there is none that reads so."""
        if self.root is None:
            return None
        path = self.root / f"{name}.npz"
        try:
            with zipfile.ZipFile(path) as archive:  # bounded before anything is inflated
                if path.stat().st_size > MAX_BYTES or sum(i.file_size for i in archive.infolist()) > MAX_BYTES:
                    return None
            with np.load(path, allow_pickle=False) as stored:
                arrays = {field: stored[field] for field in stored.files}
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):  # damaged: fitted again
            return None
        if set(arrays) == {"error"} and arrays["error"].dtype.kind == "U" and arrays["error"].shape == ():
            return arrays
        if set(arrays) == {"predicted", "reference"} and all(a.dtype == np.float64 and a.shape == (length,)
                                                             for a in arrays.values()):
            return arrays
        return None

    def put(self, name: str, **arrays: np.ndarray) -> None:
        """Keep ``arrays`` under ``name`` (written whole or not at all); a failure to write is ignored."""
        if self.root is None:
            return
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.root, prefix=".part-", suffix=".tmp")
            try:
                with os.fdopen(handle, "wb") as out:
                    np.savez(out, allow_pickle=False, **arrays)
                os.replace(temporary, self.root / f"{name}.npz")
            except BaseException:
                os.unlink(temporary)
                raise
            self._prune()
        except OSError:
            pass

    def _prune(self) -> None:
        entries = sorted(self.root.glob("*.npz"), key=lambda p: p.stat().st_mtime) if self.root else []
        for old in entries[:-KEEP]:
            old.unlink(missing_ok=True)
