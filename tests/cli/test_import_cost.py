"""Issue 21: the quick answers do not load the heavy libraries (a module-presence check, not a timing).

``iotune --help`` loads none of scikit-learn, scipy, matplotlib, pandas, pyarrow or numpy; ``iotune results``,
``studies`` and ``status`` on a stored study load none of them either, and on a SQLite store no SQLAlchemy (issue 32:
they read it through the standard library's sqlite3).
"""

import json
import subprocess
import sys

import pytest

import iotune

HEAVY = ("sklearn", "scipy", "matplotlib", "pandas", "pyarrow", "numpy")

PROBE = """
import io, json, sys
from contextlib import redirect_stdout
from iotune.cli.app import main
watched = tuple(json.loads(sys.argv.pop(1)))
with redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "loaded": sorted(m for m in sys.modules if m.split(".")[0] in watched),
                  "commands": sorted(m for m in sys.modules if m.startswith("iotune.cli.") and m.endswith("_cmd"))}))
"""


def _probe(*args, cwd, watch=HEAVY, env=None) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(watch), *args], capture_output=True, text=True,
                          cwd=cwd, env={"IOTUNE_PLAIN": "1", "PATH": "/usr/bin:/bin", **(env or {})}, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["code"] == 0, done.stderr
    return report


def _loaded(*args, cwd) -> list[str]:
    return sorted({name.split(".")[0] for name in _probe(*args, cwd=cwd)["loaded"]})


def test_import_iotune_loads_nothing_heavy(tmp_path):
    code = f"import iotune, iotune.errors, iotune.runners, sys; print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr


def test_help_loads_no_heavy_library(tmp_path):
    assert _loaded("--help", cwd=tmp_path) == []


@pytest.fixture
def stored_study(tmp_path):
    spec = {"name": "quick", "parameters": [
        {"name": "transfer_size", "type": "size", "levels": ["64KiB", "1MiB"], "role": "workload",
         "layer": "application"},
        {"name": "romio_cb_write", "type": "categorical", "levels": ["automatic", "enable", "disable"],
         "role": "system", "layer": "mpiio"}],
        "campaign": {"sampler": "full", "repeats": 2}}
    with iotune.create_study(spec, storage=tmp_path / "quick.db") as study:
        report = study.optimize(lambda config: 1.0 + (config["romio_cb_write"] == "disable"))
    assert report.completed == 12
    return tmp_path


@pytest.mark.parametrize("command", [["results", "--study", "quick"], ["studies"], ["status", "--study", "quick"]])
def test_reading_commands_load_no_heavy_library(stored_study, command):
    assert _loaded(*command, "--db", str(stored_study / "quick.db"), cwd=stored_study) == []


def test_recommend_for_a_measured_workload_loads_no_model_library(stored_study):
    """A measured workload is answered from its runs (issue 32: `recommend` within 1 s): no scikit-learn, scipy,
    matplotlib, pandas or pyarrow (numpy is used)."""
    loaded = _loaded("recommend", "--study", "quick", "--workload", "transfer_size=1MiB", "--db",
                     str(stored_study / "quick.db"), cwd=stored_study)
    assert [name for name in loaded if name != "numpy"] == []


@pytest.mark.parametrize("command", [["results", "--study", "quick"], ["results", "--trials"], ["studies"],
                                     ["status", "--study", "quick"],
                                     ["recommend", "--study", "quick", "--workload", "transfer_size=1MiB"]])
def test_reading_commands_on_a_sqlite_store_load_no_sqlalchemy(stored_study, command):
    """Issue 32 (`results` within 0.3 s of the interpreter): a SQLite store is read through the standard library's
    sqlite3 (iotune.store.reader); SQLAlchemy's import alone was half of `results`."""
    report = _probe(*command, "--db", str(stored_study / "quick.db"), cwd=stored_study, watch=("sqlalchemy",))
    assert report["loaded"] == []


def test_a_command_imports_its_own_module_only(stored_study):
    """Typer reads the signature of every registered command on each run: a command run alone registers itself."""
    report = _probe("results", "--study", "quick", "--db", str(stored_study / "quick.db"), cwd=stored_study)
    assert report["commands"] == ["iotune.cli.results_cmd"]


def test_the_first_report_of_a_study_loads_no_pandas(stored_study, tmp_path):
    """Issue 32 (a report of new data within 3 s): the report fits its models with scikit-learn, whose import would
    load pandas and pyarrow (a quarter of a second) for nothing the report uses."""
    report = _probe("report", "--study", "quick", "--db", str(stored_study / "quick.db"), "-o",
                    str(tmp_path / "report.html"), cwd=stored_study, watch=("sklearn", "pandas", "pyarrow"),
                    env={"IOTUNE_REPORT_CACHE": str(tmp_path / "fits")})  # empty: the models are fitted
    assert sorted({name.split(".")[0] for name in report["loaded"]}) == ["sklearn"]
