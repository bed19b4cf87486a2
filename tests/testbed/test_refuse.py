"""Without root the testbed refuses in one line and the rest of iotune keeps working."""

import pytest

from .conftest import run_cli


@pytest.mark.parametrize("command", [["build"], ["status"], ["cleanup"], ["teardown"]])
def test_refuses_cleanly_without_root(tmp_path, command):
    result = run_cli("testbed", *command, "--dir", tmp_path, user="65534")
    assert result.returncode == 2
    assert result.stderr.strip() == "error: the testbed needs root"


def test_other_commands_work_without_root(tmp_path):
    result = run_cli("--version", user="65534")
    assert result.returncode == 0 and result.stdout.strip()
