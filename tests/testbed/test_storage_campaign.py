"""Storage parameters in a space: accepted by the mapping, applied by building one testbed per configuration."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from iotune.errors import IotuneError, SpaceError
from iotune.records import Measurement, PhaseResult
from iotune.space import Space
from iotune.spec import CampaignSpec
from iotune.spec.mapping import check_runnable
from iotune.spec.storage import storage_config, storage_parameters
from iotune.store import Store
from iotune.study.measure import prepare
from iotune.testbed import StorageConfig, TestbedProvider, list_testbeds

from .conftest import leftovers, run_cli

SPEC = textwrap.dedent("""\
    name: storage-tiny
    parameters:
      - {name: transfer_size, type: size, levels: [64KiB, 1MiB], role: workload, layer: application}
      - {name: device_class, type: categorical, levels: [slow, fast], role: system, layer: device}
    benchmark: {api: POSIX, processes: 1, block_size: 1MiB, operation: write, fsync: true}
    campaign: {repeats: 1}
""")


def space_of(parameters: str) -> Space:
    return Space.from_text(f"name: s\nparameters:\n{textwrap.indent(textwrap.dedent(parameters), '  ')}")


def test_mapping_accepts_storage_parameters_and_gives_their_storage():
    space = space_of("""\
        - {name: fs, type: categorical, levels: [ext4, xfs], role: system, layer: filesystem}
        - {name: device_class, type: categorical, levels: [slow, fast], role: system, layer: device}
        - {name: scheduler, type: categorical, levels: [none, mq-deadline], role: system, layer: device}
        - {name: mount_options, type: categorical, levels: [noatime, relatime], role: system, layer: filesystem}
    """)
    check_runnable(space)
    assert [p.name for p in storage_parameters(space)] == ["fs", "device_class", "scheduler", "mount_options"]
    configuration = next(c for c in space.full_factorial() if c["fs"] == "xfs" and c["device_class"] == "slow")
    config = storage_config(space, configuration, {"size_mib": 300})
    assert (config.fs, config.write_mbps, config.read_mbps, config.size_mib) == ("xfs", 33, 33, 300)
    assert storage_config(space_of("- {name: transfer_size, type: size, levels: [1MiB], role: workload, "
                                   "layer: application}"), {"transfer_size": 1 << 20}) is None


@pytest.mark.parametrize("declaration, message", [
    ("- {name: disk_speed, type: integer, levels: [1, 2], role: system, layer: device}", "no effect"),
    ("- {name: fs, type: categorical, levels: [ext4], role: workload, layer: filesystem}", "no effect"),
    ("- {name: fs, type: categorical, levels: [ext4], role: system, layer: application}", "no effect"),
    ("- {name: fs, type: categorical, levels: [ext4, zfs], role: system, layer: filesystem}", "among"),
    ("- {name: device_class, type: categorical, levels: [turbo], role: system, layer: device}", "among"),
])
def test_mapping_still_refuses_what_nothing_applies(declaration, message):
    with pytest.raises(SpaceError, match=message):
        check_runnable(space_of(declaration))


def test_an_impossible_storage_combination_is_refused_in_one_line():
    space = space_of("""\
        - {name: fs, type: categorical, levels: [ext4], role: system, layer: filesystem}
        - {name: devices, type: integer, levels: [2], role: system, layer: device}
    """)
    with pytest.raises(SpaceError, match="devices > 1 needs fs='btrfs'"):
        storage_config(space, space.full_factorial()[0])


def test_a_storage_space_without_a_testbed_is_refused_before_anything_runs(tmp_path):
    spec = CampaignSpec.from_text(SPEC)
    with Store(tmp_path / "db.sqlite") as store:
        with pytest.raises(IotuneError, match="only a testbed applies"):
            prepare(store, spec, "s", object(), tmp_path)  # a runner here (None: Slurm workers elsewhere)
        assert store.list_studies() == []


class MountRunner:
    """Writes one file per trial into its scratch, which must be a testbed mountpoint; records where."""

    def __init__(self, mpiexec, log):
        self.mpiexec, self.log = mpiexec, log

    def run(self, spec, scratch):
        assert os.path.ismount(scratch) and os.path.exists(self.mpiexec)
        (scratch / f"trial-{len(self.log)}").write_bytes(b"x" * spec.block_size)
        self.log.append((str(scratch), self.mpiexec))
        return Measurement("COMPLETE", [PhaseResult("write", spec.block_size, 0.01, 0.0, 0.01, 0.0, 1)])

    def close(self):
        self.log.append("closed")


@pytest.mark.requires_root
def test_campaign_builds_each_storage_configuration_once_and_records_it(testbed_root, tmp_path):
    spec = CampaignSpec.from_text(SPEC + "storage: {size_mib: 32}\n")
    log = []
    provider = TestbedProvider(testbed_root, lambda mpiexec: MountRunner(mpiexec, log))
    with Store(tmp_path / "db.sqlite") as store:
        campaign = prepare(store, spec, "s", None, tmp_path, storage=provider)
        report = campaign.run()
        campaign.worker.close()
        trials = store.trials(study="s")
    assert report.completed == 4 and report.testbeds_built == provider.builds == 2
    mounts = [entry[0] for entry in log if entry != "closed"]
    assert len(set(mounts)) == 2 and mounts[0] == mounts[1] and mounts[2] == mounts[3]
    assert log.count("closed") == 2
    for trial in trials:
        storage = StorageConfig.from_dict(trial.extra["storage"])
        expected = {"slow": 33, "fast": 128}[trial.config["device_class"]]
        assert storage.write_mbps == storage.read_mbps == expected and storage.size_mib == 32
    assert list_testbeds(testbed_root) == [] and leftovers(testbed_root) == []


@pytest.mark.slow
@pytest.mark.requires_root
@pytest.mark.requires_mpi
def test_sigkill_mid_campaign_then_cleanup_leaves_nothing(testbed_root, tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.replace("block_size: 1MiB", "block_size: 64MiB").replace("[slow, fast]", "[slow]"))
    env = {**os.environ, "IOTUNE_PLAIN": "1", "IOTUNE_TESTBED_DIR": str(testbed_root)}
    process = subprocess.Popen([sys.executable, "-m", "iotune", "bench", str(spec), "--db", str(tmp_path / "db")],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 60
    while not any(r["cgroup"] and r["mountpoint"] for r in list_testbeds(testbed_root)):
        assert process.poll() is None and time.monotonic() < deadline, process.stderr.read().decode()
        time.sleep(0.1)
    time.sleep(1.5)  # into the first (throttled, ~2 s) trial
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert leftovers(testbed_root), "a SIGKILLed campaign cannot have torn its testbed down"
    result = run_cli("testbed", "cleanup", "--dir", testbed_root)
    assert result.returncode == 0 and "torn down" in result.stderr, result.stderr
    assert list_testbeds(testbed_root) == [] and leftovers(testbed_root) == []
