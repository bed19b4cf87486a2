"""Issue 22, item 4: a small model blob whose inner ``arrays.npz`` inflates to gigabytes is refused before it
is inflated or allocated.  Each blob is loaded in a child process whose address space is limited to 1 GiB
(RLIMIT_AS, as tests/badinput does): unbounded, the load ends in MemoryError; bounded, in one LearningError."""

import io
import json
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from iotune.learn.persist import FORMAT, dump_estimator, load_estimator

LIMIT = 1 << 30
CHILD = f"""
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({LIMIT}, {LIMIT}))
from iotune.learn.errors import LearningError
from iotune.learn.persist import load_estimator
blob = open(sys.argv[1], "rb").read()
try:
    load_estimator(blob)
    print("loaded")
except LearningError as exc:
    print("refused:", exc)
except MemoryError:
    print("MemoryError")
"""


def _blob(npy_header_shape: tuple, data_bytes: int) -> bytes:
    """A model whose arrays.npz holds one float64 array member declaring ``npy_header_shape`` and holding
    ``data_bytes`` of zeros (deflated, so the blob stays small)."""
    header = io.BytesIO()
    np.lib.format.write_array_header_2_0(header, {"descr": "<f8", "fortran_order": False,
                                                 "shape": npy_header_shape})
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as npz:
        with npz.open("a0.npy", "w", force_zip64=True) as member:
            member.write(header.getvalue())
            chunk = bytes(1 << 24)
            for _ in range(data_bytes // len(chunk)):
                member.write(chunk)
            member.write(bytes(data_bytes % len(chunk)))
    outer = io.BytesIO()
    with zipfile.ZipFile(outer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("model.json", json.dumps({"format": FORMAT, "estimator": {"array": "a0"}}))
        archive.writestr("arrays.npz", inner.getvalue())
    return outer.getvalue()


def _load_in_child(tmp_path, blob: bytes) -> str:
    path = tmp_path / "blob"
    path.write_bytes(blob)
    done = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, timeout=300,
                          env={"OPENBLAS_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


@pytest.mark.parametrize("shape, data_bytes", [
    ((3 << 26,), 3 << 29),  # 1.5 GiB of real zeros, a few MiB deflated
    ((1 << 28,), 1024),     # a header that claims 2 GiB over 1 KiB of data
], ids=["inflates", "header-lies"])
def test_an_inner_npz_that_inflates_is_refused_within_the_memory_limit(tmp_path, shape, data_bytes):
    blob = _blob(shape, data_bytes)
    assert len(blob) < 16 << 20
    answer = _load_in_child(tmp_path, blob)
    assert answer.startswith("refused:") and "\n" not in answer


def test_a_small_model_still_loads(tmp_path):
    from sklearn.tree import DecisionTreeRegressor

    tree = DecisionTreeRegressor(max_depth=3).fit(np.arange(40.0).reshape(-1, 2), np.arange(20.0))
    again = load_estimator(dump_estimator(tree))
    assert np.array_equal(again.predict(np.arange(40.0).reshape(-1, 2)), tree.predict(np.arange(40.0).reshape(-1, 2)))
    assert _load_in_child(tmp_path, dump_estimator(tree)) == "loaded"


def _json_bomb(inflated: int) -> bytes:
    """A model whose model.json is ``[{},{},...]`` (parsed, twenty times its size) of ``inflated`` bytes,
    deflated to a few hundred KiB (issue 32, item 5: 478 KiB inflating to 480 MiB)."""
    outer = io.BytesIO()
    with zipfile.ZipFile(outer, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("model.json", "w", force_zip64=True) as member:
            member.write(b'{"format": "' + FORMAT.encode() + b'", "estimator": [{}')
            chunk = b",{}" * (1 << 20)
            for _ in range(inflated // len(chunk)):
                member.write(chunk)
            member.write(b"]}")
        archive.writestr("arrays.npz", b"")
    return outer.getvalue()


@pytest.mark.slow
def test_a_model_json_that_inflates_is_refused_within_the_memory_limit(tmp_path):
    blob = _json_bomb(480 << 20)
    assert len(blob) < 1 << 20
    answer = _load_in_child(tmp_path, blob)
    assert answer.startswith("refused:") and "model.json" in answer and "\n" not in answer
