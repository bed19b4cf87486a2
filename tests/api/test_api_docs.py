"""Issue 21: the examples of docs/api.md run, in order, in a fresh directory, and measure for real (MPICH)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "api.md"

def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)

def test_the_page_has_examples_of_every_method():
    code = "\n".join(_blocks())
    for call in ("iotune.create_study(", "study.bench(", "study.tune(", "study.best(", "study.trials(",
                 "iotune.load_study(", ".optimize(", "iotune.errors."):
        assert call in code, call

@pytest.mark.requires_mpi
def test_the_examples_run(tmp_path, monkeypatch, capsys):
    pytest.importorskip("pandas", reason="Study.trials() needs pandas: pip install -e '.[test]'")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("IOTUNE_DB", raising=False)
    namespace: dict = {}
    for number, block in enumerate(_blocks(), 1):
        exec(compile(block, f"docs/api.md, example {number}", "exec"), namespace)
    out = capsys.readouterr().out
    assert "trials completed" in out and "error: no study named 'no-such-study'" in out
    assert (tmp_path / "iotune.db").is_file()
