"""Issue 29: `iotune tune` and `Study.tune` accept and do the same things, on one spec, real MPI-IO runs: a workload
value that is not a level of the spec is tuned in a study of its own with that level added, the spec's study as
prior, with the same first runs and the same statements."""

import json
import shutil

import pytest

import iotune
from iotune.store import Store
from tests.cli.conftest import run_iotune

pytestmark = [pytest.mark.slow, pytest.mark.requires_mpi]
WORKLOAD = "transfer_size=32KiB"  # below the spec's levels (64KiB .. 256KiB)


def test_the_command_and_the_api_tune_a_new_workload_alike(workdir):
    done = run_iotune("bench", "tiny.yaml", "--repeats", "1", "--scratch", "scratch", cwd=workdir)
    assert done.returncode == 0, done.stderr
    shutil.copy(workdir / "iotune.db", workdir / "api.db")

    command = run_iotune("tune", "tiny.yaml", "--workload", WORKLOAD, "--budget", "4", "--scratch", "scratch",
                         "--format", "json", cwd=workdir)
    assert command.returncode == 0, command.stderr
    by_command = json.loads(command.stdout)

    with iotune.load_study("tiny", storage=workdir / "api.db") as study:
        by_api = study.tune(workload={"transfer_size": "32KiB"}, budget=4, scratch=workdir / "scratch")

    assert by_command["study"] == "tiny-transfer_size=32KiB"
    assert any("tiny-transfer_size=32KiB" in note for note in by_api.notes)
    for db in ("iotune.db", "api.db"):
        with Store(workdir / db, create=False) as store:
            tuned = store.get_study("tiny-transfer_size=32KiB")
            assert tuned is not None and 32 * 1024 in tuned.space.parameter("transfer_size").levels
            assert len(store.trials(study=tuned.name)) == 4
    assert by_command["runs"] == by_api.runs == 4
    first = [step["configuration"] for step in by_command["history"][:2]]
    assert first == [step.configuration.to_dict() for step in by_api.steps[:2]]  # default, then the prior's pick
    assert (by_command["gain_vs_default"] is None) == (by_api.gain is None)
    assert by_command["race"]["confirmed"] == by_api.confirmed
