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
