"""Every command iotune prints to be pasted is quoted (issue 22, item 8).

Before: `bench` ended with `results: iotune results --study x; touch PWNED --db ...`, which runs `touch` when pasted.
"""

import shlex

import pytest

from iotune.cli.common import results_command
from tests.cli.conftest import run_iotune

pytestmark = pytest.mark.requires_mpi


def test_the_results_line_is_quoted_for_the_shell():
    line = results_command("x; touch PWNED", "postgresql://u@h/db?a=1&b=2")
    assert shlex.split(line) == ["iotune", "results", "--study", "x; touch PWNED", "--db",
                                 "postgresql://u@h/db?a=1&b=2"]


def test_bench_prints_a_results_line_that_pastes_as_itself(workdir):
    study = "x; touch PWNED $(id)"
    done = run_iotune("bench", "tiny.yaml", "--study", study, "--db", "a b.db", "--scratch", "scratch",
                      "--budget", "1", cwd=workdir)
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stderr.splitlines() if line.startswith("results: "))
    assert shlex.split(line.removeprefix("results: ")) == ["iotune", "results", "--study", study, "--db", "a b.db"]


HOSTILE = "x; touch PWNED $(id)"
CHECKPOINT_SPEC = f"""
name: {HOSTILE!r}
parameters:
  - {{name: romio_cb_write, type: categorical, levels: [automatic, enable, disable], role: system, layer: mpiio}}
benchmark: {{api: MPIIO, block_size: 1MiB}}
"""


def _after(stderr: str, marker: str) -> str:
    line = next(line for line in stderr.splitlines() if marker in line)
    return line[line.index(marker) + len(marker):]


def test_tune_prints_a_run_line_that_pastes_as_itself(tmp_path):
    from iotune.spec import CampaignSpec
    from iotune.store import Store
    from iotune.study import Study

    with Store(str(tmp_path / "a&b.db")) as store:
        Study.create(store, HOSTILE, CampaignSpec.from_text(CHECKPOINT_SPEC))
    command = ["sh", "-c", 'echo "a b" > /dev/null']
    done = run_iotune("tune", "--study", HOSTILE, "--db", "a&b.db", "--budget", "2", "--scratch", "scratch",
                      "--", *command, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    line = _after(done.stderr, "next runs with the best: ")
    assert shlex.split(line) == ["iotune", "run", "--study", HOSTILE, "--db", "a&b.db", "--", *command]
    assert not (tmp_path / "PWNED").exists()


def test_recommend_prints_a_tune_line_that_pastes_as_itself(tmp_path):
    from iotune.store import Store
    from tests.learn import synthetic

    with Store(str(tmp_path / "c&d.db")) as store:
        synthetic.build_study(store, name=HOSTILE, repeats=1)
    done = run_iotune("recommend", "--study", HOSTILE, "--db", "c&d.db", "--workload", "transfer_size=1MiB",
                      cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    line = _after(done.stderr + done.stdout, "measure: ")
    assert shlex.split(line) == ["iotune", "tune", "SPEC.yaml", "--study", HOSTILE, "--budget", "N", "--workload",
                                 "transfer_size=1048576"]


def test_a_transfer_prediction_without_runs_advises_a_quoted_tune_line():
    from iotune.recommend.transferred import decide_unmeasured
    from tests.learn import synthetic

    decision = decide_unmeasured(synthetic.space(), {}, {"pattern": "a b; touch PWNED"}, {}, {})
    assert shlex.split(decision.advice.removeprefix("measure it: ")) == [
        "iotune", "tune", "SPEC.yaml", "--workload", "pattern=a b; touch PWNED"]


def test_a_darshan_reports_recommend_line_is_quoted(tmp_path):
    import re
    import shutil
    from pathlib import Path

    from iotune.report.darshan import profile_section

    log = tmp_path / "x; touch PWNED.darshan"
    shutil.copy(Path(__file__).parents[1] / "profile/fixtures/ior-posix-16procs.darshan", log)
    text = " ".join(profile_section(log).paragraphs)
    command = re.search(r"`(iotune recommend [^`]*)`", text).group(1)
    assert shlex.split(command) == ["iotune", "recommend", "--workload", log.name]
