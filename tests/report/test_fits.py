"""Issue 32 (latency): a report keeps what it fitted (iotune.report.fits) and the next report of the same data reads
it back: the same numbers, without scikit-learn; a damaged or unwritable cache changes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from iotune.report import study_report
from iotune.report.fits import FitCache
from iotune.stored import StoredStudy


def _numbers(report) -> str:
    """Everything a report states, figures' data included, but how long its sections took (as text: NaN is NaN)."""
    return repr([(s.key, s.paragraphs, s.warnings, s.empty, s.closing, s.blocks, [(t.columns, t.rows) for t in s.tables],
                  [(f.name, f.data.rows) for f in s.figures]) for s in report.sections])


def test_a_report_read_back_from_the_cache_states_what_a_computed_one_does(search_store, tmp_path):
    store, study = search_store
    opened = StoredStudy.open(store, study)
    computed = _numbers(study_report(opened))
    cache = FitCache(tmp_path / "fits")
    assert _numbers(study_report(opened, fits=cache)) == computed
    entries = sorted((tmp_path / "fits").iterdir())
    assert len(entries) >= 4  # three models and the variability map
    assert _numbers(study_report(opened, fits=cache)) == computed
    assert sorted((tmp_path / "fits").iterdir()) == entries  # read back, nothing new


def test_a_damaged_entry_is_fitted_again(search_store, tmp_path):
    store, study = search_store
    opened = StoredStudy.open(store, study)
    cache = FitCache(tmp_path / "fits")
    computed = _numbers(study_report(opened, fits=cache))
    damage = [b"", b"not an npz", b"PK\x03\x04" + os.urandom(64)]
    for i, entry in enumerate(sorted((tmp_path / "fits").iterdir())):
        entry.write_bytes(damage[i % len(damage)])
    assert _numbers(study_report(opened, fits=cache)) == computed
    assert all(entry.stat().st_size > 100 for entry in (tmp_path / "fits").iterdir())  # written anew


def test_a_cache_that_cannot_be_written_is_not_used(search_store, tmp_path):
    store, study = search_store
    opened = StoredStudy.open(store, study)
    (tmp_path / "file").write_text("a file where the cache directory would be")
    assert _numbers(study_report(opened, fits=FitCache(tmp_path / "file" / "fits"))) == \
        _numbers(study_report(opened))


PROBE = """
import io, json, sys
from contextlib import redirect_stdout, redirect_stderr
from iotune.cli.app import main
with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "loaded": sorted({m.split(".")[0] for m in sys.modules} & {"sklearn", "sqlalchemy"})}))
"""


@pytest.mark.slow
def test_the_second_report_of_a_study_loads_no_scikit_learn(search_store, tmp_path):
    store, study = search_store
    env = {**os.environ, "IOTUNE_PLAIN": "1", "IOTUNE_REPORT_CACHE": str(tmp_path / "fits")}
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", PROBE, "report", "--study", study, "--db", store.url, "-o",
                               str(tmp_path / "r.html")], capture_output=True, text=True, env=env, timeout=300)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert [run["code"] for run in runs] == [0, 0]
    assert runs[0]["loaded"] == ["sklearn"]  # fitted the first time (a SQLite store: no SQLAlchemy either time)
    assert runs[1]["loaded"] == []


def test_an_entry_that_would_inflate_past_the_bound_is_not_read(tmp_path, monkeypatch):
    import numpy as np

    from iotune.report import fits

    monkeypatch.setattr(fits, "MAX_BYTES", 1 << 20)
    cache = FitCache(tmp_path)
    small = np.zeros(1000)
    cache.put("small", predicted=small, reference=small)
    assert cache.get("small", 1000) is not None
    large = np.zeros(200_000)  # 1.6 MB a vector, a few KiB once deflated
    np.savez_compressed(tmp_path / "bomb.npz", predicted=large, reference=large)
    assert (tmp_path / "bomb.npz").stat().st_size < 1 << 20
    assert cache.get("bomb", 200_000) is None
