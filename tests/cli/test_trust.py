"""A study received from someone else cannot run code through the environment (issue 13, items 2 and 10)."""

from __future__ import annotations

import json
import shutil

import pytest

from iotune.records import Measurement, PhaseResult
from iotune.space import Space
from iotune.store import Store
from iotune.store.exchange import export
from tests.cli.conftest import run_iotune
from tests.cli.test_errors import assert_one_line_error

SPACE = """\
name: shared
parameters:
  - {name: processes, type: integer, levels: [2], role: workload, layer: application}
  - {name: romio_cb_write, type: categorical, levels: [enable, disable], role: system, layer: mpiio}
  - {name: startup, type: categorical, levels: [PAYLOAD], role: system, layer: application, env: BASH_ENV}
"""


def _crafted_export(workdir) -> tuple:
    """An export whose study sets BASH_ENV (bash sources that file before any command) to a payload script."""
    marker = workdir / "payload-ran"
    payload = workdir / "payload.sh"
    payload.write_text(f"touch {marker}\n")
    space = Space.from_text(SPACE.replace("PAYLOAD", str(payload)))
    with Store(workdir / "theirs.db") as store:
        study = store.create_study("shared", space.to_yaml(), space.hash, {})
        made = space.configuration({"romio_cb_write": "disable"})
        trial = store.start_trial(study.id, made.to_dict(), made.key, made.workload_key, 0)
        store.finish_trial(trial, Measurement("COMPLETE", [PhaseResult("write", 1 << 20, 0.5, 0, 0.5, 0, 1)]))
        export(store, workdir / "shared.json")
    (workdir / "theirs.db").unlink()
    return marker, workdir / "shared.json"


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.slow
def test_imported_study_cannot_run_a_payload_through_bash_env(workdir):
    marker, export = _crafted_export(workdir)
    env = {"IOTUNE_ALLOW_ENV": ""}
    imported = run_iotune("import", export, "--db", "mine.db", cwd=workdir, env=env)
    assert imported.returncode == 0, imported.stderr
    assert "sets environment variables: BASH_ENV" in imported.stderr
    assert "warning: study 'shared' sets BASH_ENV, not on iotune's list" in imported.stderr
    assert "romio_cb_write = enable | disable" in imported.stderr

    refused = run_iotune("run", "--study", "shared", "--db", "mine.db", "--", "bash", "-c", "true",
                         cwd=workdir, env=env)
    assert_one_line_error(refused, "BASH_ENV", "--allow-env BASH_ENV")
    assert refused.returncode == 2 and not marker.exists()
    with Store(workdir / "mine.db") as store:
        assert store.get_study("shared-runs") is None  # nothing ran, nothing recorded

    allowed = run_iotune("run", "--study", "shared", "--db", "mine.db", "--allow-env", "BASH_ENV", "--",
                         "bash", "-c", "true", cwd=workdir, env=env)
    assert allowed.returncode == 0, allowed.stderr
    assert marker.exists()  # the user allowed it explicitly: the mechanism is what the refusal stopped


def test_export_with_a_malformed_variable_name_is_not_imported(workdir):
    _, export = _crafted_export(workdir)
    document = json.loads(export.read_text())
    study = document["studies"][0]
    study["space_yaml"] = study["space_yaml"].replace("env: BASH_ENV", "env: BASH_FUNC_mpiexec%%")
    export.write_text(json.dumps(document))
    result = run_iotune("import", export, "--db", "mine.db", cwd=workdir)
    assert_one_line_error(result, "BASH_FUNC_mpiexec%%")
    with Store(workdir / "mine.db") as store:
        assert store.list_studies() == []


def test_export_whose_space_hash_does_not_match_is_not_imported(workdir):
    _, export = _crafted_export(workdir)
    document = json.loads(export.read_text())
    document["studies"][0]["space_yaml"] = document["studies"][0]["space_yaml"].replace("name: shared", "name: other")
    export.write_text(json.dumps(document))
    assert_one_line_error(run_iotune("import", export, "--db", "mine.db", cwd=workdir), "space_hash", "shared.json")


def test_run_passes_the_users_own_debug_option_to_the_command(workdir):
    """Only iotune's own options before -- are iotune's: the command keeps its --debug."""
    (workdir / "space.yaml").write_text("name: plain\nparameters:\n  - {name: romio_cb_write, type: categorical, "
                                        "levels: [enable], role: system, layer: mpiio}\n")
    space = Space.from_text((workdir / "space.yaml").read_text())
    with Store(workdir / "mine.db") as store:
        store.create_study("plain", space.to_yaml(), space.hash, {})
    script = "import sys; open('argv.json', 'w').write(__import__('json').dumps(sys.argv[1:]))"
    import sys
    result = run_iotune("run", "--study", "plain", "--db", "mine.db", "--", sys.executable, "-c", script,
                        "--debug", "x", cwd=workdir)
    assert result.returncode == 0, result.stderr
    assert json.loads((workdir / "argv.json").read_text()) == ["--debug", "x"]
