"""A stored model whose inner arrays.npz inflates past the limit is refused before it inflates (issue 22, item 4).

Before: the outer zip's sizes were checked, the inner npz's were not; a 2 MB blob inflating to 2 GiB made
`explain`, `recommend` and `run` take 3 minutes and 2.3 GiB.
"""

import io
import json
import time
import zipfile

import pytest

from iotune.learn import persist
from iotune.learn.errors import LearningError


def _blob(inner_bytes: int) -> bytes:
    arrays = io.BytesIO()
    with zipfile.ZipFile(arrays, "w", zipfile.ZIP_DEFLATED) as npz:
        with npz.open("a.npy", "w", force_zip64=True) as member:
            for _ in range(inner_bytes // 2**20):
                member.write(bytes(2**20))
    outer = io.BytesIO()
    with zipfile.ZipFile(outer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("model.json", json.dumps({"format": persist.FORMAT, "estimator": {}}))
        archive.writestr("arrays.npz", arrays.getvalue())
    return outer.getvalue()


def test_an_inner_archive_that_inflates_past_the_limit_is_refused_before_it_inflates(monkeypatch):
    monkeypatch.setattr(persist, "_MAX_ARRAY_BYTES", 2**20)
    blob = _blob(8 * 2**20)
    assert len(blob) < 64 * 1024
    started = time.monotonic()
    with pytest.raises(LearningError, match="arrays are too large"):
        persist.load_estimator(blob)
    assert time.monotonic() - started < 10
