"""Fitted estimators as data that cannot run code: JSON for structure, numpy arrays without pickle.

A store is shared between users, so a model row is untrusted input: loading it
must never execute what its author chose (a pickle can).  A model is written as
a zip of ``model.json`` (each object's class, constructor parameters and fitted
attributes, nested) and ``arrays.npz`` (every numpy array, saved and loaded
with ``allow_pickle=False``).  Loading builds only classes on an explicit
allow-list, by name from a table (never by importing a name found in the data),
calls their constructor with plain parameters and sets plain attributes; the
only functions it can name are ``numpy.log`` and ``numpy.exp`` (a model of
log time).  Anything else is refused with a one-line error.
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import numpy as np

from iotune.learn.errors import LearningError

FORMAT = "iotune-model-1"
_MAX_BYTES = 512 * 2**20
_MAX_ARRAY_BYTES = 256 * 2**20
_MAX_DOCUMENT_BYTES = 8 * 2**20
"""``model.json`` holds structure only (the arrays are in ``arrays.npz``): a forest of 500 trees takes well under
1 MiB.  Parsed, JSON can take twenty times its size (``[{},{},...]``), so it is bounded on its own."""
_UFUNCS = {"log": np.log, "exp": np.exp}


def _classes() -> dict[str, type]:
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.linear_model import LinearRegression
    from sklearn.preprocessing import FunctionTransformer
    from sklearn.tree import DecisionTreeRegressor

    from iotune.learn.baseline import RandomScores
    from iotune.learn.estimators.pruned_tree import PrunedTree
    from iotune.learn.estimators.rankboost import RankBoost

    allowed = (PrunedTree, RankBoost, RandomScores, DecisionTreeRegressor, RandomForestRegressor, LinearRegression,
               TransformedTargetRegressor, FunctionTransformer)
    return {f"{cls.__module__}.{cls.__qualname__}": cls for cls in allowed}


def _tree_class():
    from sklearn.tree._tree import Tree

    return Tree


class _Writer:
    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}

    def encode(self, value: Any) -> Any:
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, (int, float)):
            return value if not isinstance(value, float) or np.isfinite(value) else {"float": repr(value)}
        if isinstance(value, np.generic):
            return {"scalar": self._array(np.asarray(value))}
        if isinstance(value, np.ndarray):
            if value.dtype.hasobject:
                raise LearningError("a model attribute is an array of Python objects; it cannot be stored safely")
            return {"array": self._array(value)}
        if isinstance(value, (list, tuple)):
            return {"list" if isinstance(value, list) else "tuple": [self.encode(v) for v in value]}
        if isinstance(value, dict):
            if not all(isinstance(k, str) for k in value):
                raise LearningError("a model attribute is a mapping with non-text keys; it cannot be stored safely")
            return {"dict": {k: self.encode(v) for k, v in value.items()}}
        if isinstance(value, np.ufunc):
            if value.__name__ not in _UFUNCS:
                raise LearningError(f"a model uses numpy.{value.__name__}; only log and exp can be stored")
            return {"ufunc": value.__name__}
        if isinstance(value, _tree_class()):
            cls, args, state = value.__reduce__()
            return {"tree": {"args": self.encode(list(args)), "state": self.encode(state)}}
        name = f"{type(value).__module__}.{type(value).__qualname__}"
        if name not in _classes():
            raise LearningError(f"a model of class {name} cannot be stored safely (not on iotune's list)")
        params = value.get_params(deep=False)
        fitted = {k: v for k, v in vars(value).items() if k not in params}
        return {"object": name, "params": self.encode(params), "fitted": self.encode(fitted)}

    def _array(self, array: np.ndarray) -> str:
        key = f"a{len(self.arrays)}"
        self.arrays[key] = array
        return key


class _Reader:
    def __init__(self, arrays):
        self.arrays = arrays
        self.classes = _classes()

    def decode(self, value: Any) -> Any:
        if value is None or isinstance(value, (bool, str, int, float)):
            return value
        if not isinstance(value, dict) or len(value) not in (1, 3):
            raise LearningError("the stored model is malformed")
        if "float" in value:
            return float(value["float"]) if value["float"] in ("inf", "-inf", "nan") else _bad("float")
        if "array" in value:
            return self._array(value["array"])
        if "scalar" in value:
            return self._array(value["scalar"])[()]
        if "list" in value:
            return [self.decode(v) for v in _list(value["list"])]
        if "tuple" in value:
            return tuple(self.decode(v) for v in _list(value["tuple"]))
        if "dict" in value:
            if not isinstance(value["dict"], dict):
                _bad("dict")
            return {str(k): self.decode(v) for k, v in value["dict"].items()}
        if "ufunc" in value:
            if value["ufunc"] not in _UFUNCS:
                _bad(f"function {value['ufunc']!r}")
            return _UFUNCS[value["ufunc"]]
        if "tree" in value:
            args = self.decode(value["tree"]["args"])
            tree = _tree_class()(*args)
            tree.__setstate__(self.decode(value["tree"]["state"]))
            return tree
        if "object" in value:
            cls = self.classes.get(value["object"])
            if cls is None:
                raise LearningError(f"the stored model names class {value['object']!r}, which iotune does not load")
            params = self.decode(value["params"])
            if not isinstance(params, dict):
                _bad("parameters")
            estimator = cls(**params)
            fitted = self.decode(value["fitted"])
            if not isinstance(fitted, dict):
                _bad("fitted state")
            for key, item in fitted.items():
                setattr(estimator, key, item)
            return estimator
        return _bad("element")

    def _array(self, key: str) -> np.ndarray:
        if key not in self.arrays:
            _bad(f"array {key!r}")
        return self.arrays[key]


def _list(value):
    if not isinstance(value, list):
        _bad("list")
    return value


def _bad(what: str):
    raise LearningError(f"the stored model is malformed ({what})")


def dump_estimator(estimator) -> bytes:
    """A fitted estimator as bytes of the safe format (LearningError for what it cannot hold)."""
    writer = _Writer()
    document = {"format": FORMAT, "estimator": writer.encode(estimator)}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("model.json", json.dumps(document))
        arrays = io.BytesIO()
        np.savez(arrays, **writer.arrays)  # type: ignore[arg-type]  # keys are a0, a1...: never savez's allow_pickle
        archive.writestr("arrays.npz", arrays.getvalue())
    return buffer.getvalue()


def _load_arrays(data: bytes) -> dict[str, np.ndarray]:
    """The arrays of ``arrays.npz``, its sizes bounded before anything is inflated or allocated.

    The npz is a zip of its own: a few megabytes can inflate to gigabytes, and a
    ``.npy`` header can declare a shape far larger than its data (numpy
    allocates the shape before reading).  Each member's declared size counts
    against :data:`_MAX_BYTES` (zipfile never inflates past it), and its header's
    shape must fit in that size.
    """
    arrays = {}
    with zipfile.ZipFile(io.BytesIO(data)) as npz:
        members = npz.infolist()
        if sum(info.file_size for info in members) > _MAX_BYTES:
            raise LearningError("the stored model is too large (its arrays inflate past "
                                f"{_MAX_BYTES // 2**20} MiB)")
        for info in members:
            if not info.filename.endswith(".npy"):
                _bad(f"array file {info.filename!r}")
            with npz.open(info) as member:
                version = np.lib.format.read_magic(member)
                read_header = np.lib.format.read_array_header_2_0 if version >= (2, 0) else \
                    np.lib.format.read_array_header_1_0
                shape, _, dtype = read_header(member)
                if dtype.hasobject or int(np.prod(shape, dtype=object)) * dtype.itemsize > info.file_size:
                    _bad(f"array {info.filename!r} declares more data than it holds")
            with npz.open(info) as member:
                arrays[info.filename[:-4]] = np.lib.format.read_array(member, allow_pickle=False)
    return arrays


def _read_document(archive: zipfile.ZipFile) -> bytes:
    """``model.json``, inflated no further than :data:`_MAX_DOCUMENT_BYTES` (its declared size is not trusted)."""
    too_large = LearningError(f"the stored model is too large (its model.json inflates past "
                              f"{_MAX_DOCUMENT_BYTES // 2**20} MiB)")
    if archive.getinfo("model.json").file_size > _MAX_DOCUMENT_BYTES:
        raise too_large
    with archive.open("model.json") as member:
        data = member.read(_MAX_DOCUMENT_BYTES + 1)
    if len(data) > _MAX_DOCUMENT_BYTES:
        raise too_large
    return data


def load_estimator(blob: bytes):
    """The estimator ``dump_estimator`` wrote; LearningError, in one line, for anything else."""
    if not isinstance(blob, (bytes, bytearray)) or len(blob) > _MAX_BYTES:
        raise LearningError("the stored model is not in iotune's model format")
    try:
        with zipfile.ZipFile(io.BytesIO(blob)) as archive:
            names = set(archive.namelist())
            if names != {"model.json", "arrays.npz"}:
                raise LearningError("the stored model is not in iotune's model format")
            if sum(info.file_size for info in archive.infolist()) > _MAX_BYTES:
                raise LearningError("the stored model is too large")
            document = json.loads(_read_document(archive))
            arrays = _load_arrays(archive.read("arrays.npz"))
    except LearningError:
        raise
    except (zipfile.BadZipFile, ValueError, KeyError, OSError, EOFError, RecursionError) as exc:
        raise LearningError(f"the stored model is not in iotune's model format ({type(exc).__name__})") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise LearningError(f"the stored model is in format {document.get('format')!r}, not {FORMAT!r}"
                            if isinstance(document, dict) else "the stored model is malformed")
    try:
        return _Reader(arrays).decode(document["estimator"])
    except (TypeError, ValueError, KeyError) as exc:
        raise LearningError(f"the stored model is malformed ({type(exc).__name__}: {exc})") from None
