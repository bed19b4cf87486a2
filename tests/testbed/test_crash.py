"""A crashed owner leaves a state file; cleanup removes exactly its testbed.  Signals tear down."""

import signal
import subprocess
import sys
import textwrap

import pytest

from iotune.testbed import StorageConfig, Testbed, list_testbeds
from tests.processes import default_signals

from .conftest import leftovers, run_cli

pytestmark = pytest.mark.requires_root

OWNER = textwrap.dedent("""\
    import sys, time
    from iotune.testbed import StorageConfig, Testbed
    bed = Testbed(sys.argv[1])
    built = bed.build(StorageConfig(fs="ext4", write_mbps=10))
    print(built.name, flush=True)
    time.sleep(60)
""")


def start_owner(root):
    process = subprocess.Popen([sys.executable, "-c", OWNER, str(root)], stdout=subprocess.PIPE, text=True,
                               preexec_fn=default_signals)
    name = process.stdout.readline().strip()
    assert name, "the owner process did not build its testbed"
    return process, name


def test_cleanup_after_sigkill_removes_exactly_the_dead_testbed(testbed_root):
    survivor = Testbed(testbed_root)
    survivor.build(StorageConfig())
    process, name = start_owner(testbed_root)
    process.kill()
    process.wait()
    assert leftovers(testbed_root), "a SIGKILLed owner cannot have torn down"
    result = run_cli("testbed", "cleanup", "--dir", testbed_root)
    assert result.returncode == 0, result.stderr
    assert f"testbed {name} torn down" in result.stderr
    remaining = list_testbeds(testbed_root)
    assert [r["name"] for r in remaining] == [survivor.built.name] and remaining[0]["alive"]
    survivor.teardown()
    assert leftovers(testbed_root) == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_tears_the_testbed_down(testbed_root, signum):
    process, _ = start_owner(testbed_root)
    process.send_signal(signum)
    assert process.wait(timeout=30) != 0
    assert list_testbeds(testbed_root) == [] and leftovers(testbed_root) == []
