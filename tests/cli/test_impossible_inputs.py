"""Impossible inputs are errors (exit 2, one line, nothing made), never a silent success (issue 19, item 5)."""

import pytest

from iotune.cli.app import main
from iotune.spec.hint_names import KNOWN, unknown_hint_warnings

SPEC = """
name: {name}
parameters:
  - {{name: transfer_size, type: size, levels: [1MiB, 4MiB], role: workload, layer: application}}
  - {{name: {hint}, type: categorical, levels: [enable, disable], role: system, layer: mpiio}}
{rules}
benchmark: {{api: MPIIO, block_size: 4MiB, processes: 1}}
"""


def _spec(tmp_path, name="hints", hint="romio_cb_write", rules=""):
    path = tmp_path / f"{name}.yaml"
    path.write_text(SPEC.format(name=name, hint=hint, rules=rules))
    return str(path)


def _one_error(err: str) -> str:
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in err, err
    return errors[0]


def test_rules_that_leave_no_configuration_are_an_error_at_validate_and_bench(tmp_path, capsys):
    spec = _spec(tmp_path, "none", rules='constraints: ["transfer_size > 8388608"]')
    assert main(["space", "validate", spec]) == 2
    line = _one_error(capsys.readouterr().err)
    assert "rule out all 4 assignments" in line and "transfer_size > 8388608" in line
    db = tmp_path / "iotune.db"
    assert main(["bench", spec, "--db", str(db)]) == 2
    assert "rule out all 4" in _one_error(capsys.readouterr().err)
    assert not db.exists()


def test_a_workload_the_benchmark_cannot_run_is_an_error_and_leaves_no_study(tmp_path, capsys):
    spec = _spec(tmp_path)
    db = tmp_path / "iotune.db"
    assert main(["tune", spec, "--db", str(db), "--budget", "2", "--workload", "transfer_size=1MB"]) == 2
    line = _one_error(capsys.readouterr().err)
    assert "no configuration can run" in line and "multiple of transfer_size (1000000 B)" in line
    assert "1MB = 1x10^6 bytes" in line
    assert not db.exists()


@pytest.mark.parametrize("given", ["transfer_size 1MB", "transfer_size=1MB collective=true", "x=1,y"])
def test_wrong_workload_syntax_says_how_to_write_it(tmp_path, capsys, given):
    assert main(["tune", _spec(tmp_path), "--db", str(tmp_path / "x.db"), "--budget", "2", "--workload", given]) == 2
    line = _one_error(capsys.readouterr().err)
    assert "use name=value,name=value" in line and "not an IOR command line" not in line


def test_a_misspelt_hint_is_a_warning_with_the_closest_known_name(tmp_path, capsys):
    spec = _spec(tmp_path, hint="romio_cb_wrte")
    assert main(["space", "validate", spec]) == 0
    err = capsys.readouterr().err
    assert "'romio_cb_wrte' is not documented" in err and "did you mean 'romio_cb_write'" in err
    impossible = _spec(tmp_path, "both", hint="romio_cb_wrte", rules='constraints: ["transfer_size > 8388608"]')
    assert main(["bench", impossible, "--db", str(tmp_path / "b.db")]) == 2  # warned before the error
    assert "did you mean 'romio_cb_write'" in capsys.readouterr().err
    assert main(["space", "validate", _spec(tmp_path, "good")]) == 0
    assert "not documented" not in capsys.readouterr().err


def test_known_hints_say_nothing_and_have_a_source():
    assert unknown_hint_warnings(["romio_cb_write", "cb_nodes", "striping_unit", "cray_cb_write_lock_mode"]) == []
    assert all(source in ("the MPI standard", "ROMIO (MPICH)", "Cray MPI-IO") for source in KNOWN.values())
    assert "did you mean" not in unknown_hint_warnings(["qqqq"])[0]


def test_a_prior_study_that_does_not_exist_creates_no_store(tmp_path, capsys, monkeypatch):
    """Reading a study that is not there makes nothing (issue 22: `tune --prior-study nosuch` created the store)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("IOTUNE_DB", raising=False)
    spec = _spec(tmp_path)
    for where in (["--db", str(tmp_path / "new.db")], []):
        assert main(["tune", spec, "--workload", "transfer_size=1MiB", "--prior-study", "nosuch", "--budget", "1",
                     *where]) == 2
        line = _one_error(capsys.readouterr().err)
        assert "no store at" in line or "no study named 'nosuch'" in line, line
        assert sorted(p.name for p in tmp_path.iterdir()) == ["hints.yaml"]


def test_a_prior_study_that_does_not_exist_adds_no_study(tmp_path, capsys):
    from iotune.store import Store

    db = str(tmp_path / "s.db")
    assert main(["space", "validate", _spec(tmp_path)]) == 0
    Store(db).close()
    assert main(["tune", _spec(tmp_path), "--workload", "transfer_size=1MiB", "--prior-study", "nosuch", "--budget",
                 "1", "--db", db]) == 2
    assert "no study named 'nosuch'" in _one_error(capsys.readouterr().err)
    with Store(db) as store:
        assert store.list_studies() == []
