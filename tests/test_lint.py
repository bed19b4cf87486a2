"""Habits (issue 21): ``ruff check src`` (every selected rule) and ``mypy src`` pass.

The F rules (unused or undefined names) must find nothing.  For the other ruff rules and for mypy, files
that still had findings when the checks joined the suite are listed with their counts in
tests/data/lint_baseline.json: a count may only go down, and a file not listed must have none.
``python tests/test_lint.py`` writes the current counts there (run it after fixing, never to let more in).
"""

import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "tests" / "data" / "lint_baseline.json"
_MYPY_ERROR = re.compile(r"^(?P<path>[^:]+\.py):\d+(?::\d+)?: error: ")


def _tool(name: str) -> list[str]:
    beside = Path(sys.executable).with_name(name)
    if beside.exists():
        return [str(beside)]
    found = shutil.which(name)
    if found:
        return [found]
    pytest.skip(f"{name} is a test dependency: pip install -e '.[test]'")


def ruff_counts() -> Counter:
    """Findings of ``ruff check src`` (pyproject.toml's rules) per file, relative to the repository."""
    done = subprocess.run([*_tool("ruff"), "check", "--output-format", "json", "--exit-zero", "src"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return Counter(Path(f["filename"]).resolve().relative_to(ROOT).as_posix() for f in json.loads(done.stdout))


def mypy_counts() -> Counter:
    """Errors of ``mypy`` (pyproject.toml's [tool.mypy]: src/iotune) per file, relative to the repository."""
    done = subprocess.run([*_tool("mypy"), "--no-error-summary", "--no-pretty", "--cache-dir",
                           str(ROOT / ".mypy_cache")], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode in (0, 1), done.stdout + done.stderr  # 2: mypy itself failed
    return Counter(m["path"] for line in done.stdout.splitlines() if (m := _MYPY_ERROR.match(line)))


def _baseline(tool: str) -> dict[str, int]:
    return json.loads(BASELINE.read_text())[tool] if BASELINE.exists() else {}


def _over(counts: Counter, allowed: dict[str, int]) -> list[str]:
    return [f"{path}: {n} (at most {allowed.get(path, 0)})" for path, n in sorted(counts.items())
            if n > allowed.get(path, 0)]


def test_ruff_finds_nothing_of_the_f_rules_in_src():
    done = subprocess.run([*_tool("ruff"), "check", "--select", "F", "--output-format", "concise", "src"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_findings_in_src_only_go_down():
    over = _over(ruff_counts(), _baseline("ruff"))
    assert not over, "ruff check src found more than tests/data/lint_baseline.json allows:\n" + "\n".join(over)


def test_mypy_errors_in_src_only_go_down():
    over = _over(mypy_counts(), _baseline("mypy"))
    assert not over, "mypy found more than tests/data/lint_baseline.json allows:\n" + "\n".join(over)


def test_the_baseline_counts_only_files_that_exist():
    missing = [path for tool in ("ruff", "mypy") for path in _baseline(tool) if not (ROOT / path).is_file()]
    assert not missing, f"tests/data/lint_baseline.json lists files that are gone: {missing}"


if __name__ == "__main__":
    counts = {"ruff": dict(sorted(ruff_counts().items())), "mypy": dict(sorted(mypy_counts().items()))}
    BASELINE.write_text(json.dumps(counts, indent=1) + "\n")
    print(f"{BASELINE.relative_to(ROOT)}: ruff {sum(counts['ruff'].values())}, mypy {sum(counts['mypy'].values())}")
