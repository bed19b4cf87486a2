"""``iotune testbed``: build, inspect and tear down a throttled storage testbed (root only)."""

from __future__ import annotations

import shlex
from pathlib import Path

import typer

from iotune.cli.common import results_command
from iotune.cli.options import DB, FORMAT, MPIEXEC, RUNNER
from iotune.cli.terminal import Terminal, check_format

app = typer.Typer(help="A throttled storage testbed on loop devices (file system, scheduler, blkio limits; root).",
                  no_args_is_help=True)

FS = typer.Option("ext4", "--fs", help="File system: ext4, xfs, btrfs, or cephfs (monitor, OSDs, MDS, ceph-fuse "
                                      "on 127.0.0.1).")
DEVICES = typer.Option(1, "--devices", help="Loop devices: 1, 2 or 4 (more than 1 needs btrfs).")
SERVERS = typer.Option(None, "--servers", help="cephfs: storage servers (OSDs), 1 to 8, each on its own throttled "
                                               "loop device (same as --devices).")
SERVER_WRITE_MBPS = typer.Option(None, "--server-write-mbps", help="cephfs: write limit per OSD in MB/s "
                                                                   "(same as --write-mbps).")
SERVER_READ_MBPS = typer.Option(None, "--server-read-mbps", help="cephfs: read limit per OSD in MB/s "
                                                                 "(same as --read-mbps).")
RAID0 = typer.Option(False, "--raid0", help="Stripe btrfs data and metadata over the devices.")
SCHEDULER = typer.Option("none", "--scheduler", help="I/O scheduler: none, mq-deadline, kyber or bfq.")
WRITE_MBPS = typer.Option(None, "--write-mbps", help="Write limit per device in MB/s (10^6 B/s).")
READ_MBPS = typer.Option(None, "--read-mbps", help="Read limit per device in MB/s (10^6 B/s).")
IOPS = typer.Option(None, "--iops", help="Read and write limit per device, each, in operations per second.")
MOUNT_OPTIONS = typer.Option("", "--mount-options", help="Options for mount -o (comma-separated); cephfs: ceph-fuse "
                                                         "settings, e.g. client_oc_size=67108864.")
SIZE_MIB = typer.Option(None, "--size-mib", help="Size of each (sparse) device image in MiB (default 512; cephfs "
                                                 "2048).")
ROOT = typer.Option(None, "--dir", envvar="IOTUNE_TESTBED_DIR",
                    help="Directory of testbed images and state (default: /var/tmp/iotune-testbed).")


def _config(fs, devices, raid0, scheduler, write_mbps, read_mbps, iops, mount_options, size_mib, servers=None,
            server_write_mbps=None, server_read_mbps=None):
    from iotune.errors import SpaceError
    from iotune.testbed import StorageConfig

    if fs != "cephfs" and (servers, server_write_mbps, server_read_mbps) != (None, None, None):
        raise SpaceError("--servers, --server-write-mbps and --server-read-mbps need --fs cephfs")
    devices = servers if servers is not None else devices
    write_mbps = server_write_mbps if server_write_mbps is not None else write_mbps
    read_mbps = server_read_mbps if server_read_mbps is not None else read_mbps
    if size_mib is None:
        size_mib = 2048 if fs == "cephfs" else 512
    return StorageConfig(fs=fs, devices=devices, raid0=raid0, scheduler=scheduler, write_mbps=write_mbps,
                         read_mbps=read_mbps, iops=iops, mount_options=mount_options, size_mib=size_mib)


def _limits(config: dict) -> str:
    parts = [f"{key}={config[key]:g}" for key in ("write_mbps", "read_mbps", "iops") if config[key] is not None]
    return ", ".join(parts) or "unthrottled"


@app.command("build")
def build(fs: str = FS, devices: int = DEVICES, raid0: bool = RAID0, scheduler: str = SCHEDULER,
          write_mbps: float = WRITE_MBPS, read_mbps: float = READ_MBPS, iops: int = IOPS,
          mount_options: str = MOUNT_OPTIONS, size_mib: int = SIZE_MIB, root: Path = ROOT, servers: int = SERVERS,
          server_write_mbps: float = SERVER_WRITE_MBPS, server_read_mbps: float = SERVER_READ_MBPS) -> None:
    """Build a testbed and leave it up; prints its mountpoint (stdout) and how to use and remove it."""
    from iotune.testbed import Testbed

    config = _config(fs, devices, raid0, scheduler, write_mbps, read_mbps, iops, mount_options, size_mib, servers,
                     server_write_mbps, server_read_mbps)
    built = Testbed(root, persistent=True).build(config)
    terminal = Terminal()
    print(built.mountpoint)
    per = "OSD (one per device, on 127.0.0.1 only)" if config.fs == "cephfs" else "device"
    terminal.info(f"testbed {built.name}: {config.fs} on {', '.join(built.devices)}, scheduler {config.scheduler}, "
                  f"{_limits(config.to_dict())} per {per}; cgroup {built.cgroup}")
    terminal.info(f"run inside the throttle: sh -c 'echo $$ > {built.cgroup}/cgroup.procs && exec COMMAND'")
    terminal.info(f"tear down: iotune testbed teardown {shlex.quote(built.name)}")


@app.command("status")
def status(fmt: str = FORMAT, root: Path = ROOT) -> None:
    """List the testbeds recorded in the state directory."""
    from iotune.testbed import list_testbeds, throttled_devices
    from iotune.testbed.system import require_support

    check_format(fmt)
    require_support()
    records = list_testbeds(root)
    rows = [[r["name"], r["config"]["fs"], ",".join(throttled_devices(r)), r["config"]["scheduler"],
             _limits(r["config"]), r["mountpoint"] or "-", r["cgroup"] or "-",
             "persistent" if r["owner"] is None else ("running" if r["alive"] else "owner dead")] for r in records]
    Terminal().emit(["name", "fs", "devices", "scheduler", "limits", "mountpoint", "cgroup", "owner"], rows, fmt,
                    title="testbeds", records=records if fmt == "json" else None)


@app.command("teardown")
def teardown(names: list[str] = typer.Argument(None, help="Testbeds to remove (default: every persistent one)."),
             root: Path = ROOT) -> None:
    """Tear down testbeds made by ``iotune testbed build``."""
    from iotune.testbed import TestbedError, default_root, list_testbeds, teardown_state
    from iotune.testbed.system import require_support

    require_support()
    terminal = Terminal()
    records = {r["name"]: r for r in list_testbeds(root)}
    if names:
        unknown = [n for n in names if n not in records]
        if unknown:
            raise TestbedError(f"no testbed named {', '.join(unknown)} in {root or default_root()}")
        chosen = [records[n] for n in names]
    else:
        chosen = [r for r in records.values() if r["owner"] is None]
    for record in chosen:
        if record["alive"]:
            raise TestbedError(f"testbed {record['name']} belongs to running process {record['owner']['pid']}")
        for warning in teardown_state(Path(record["dir"])):
            terminal.warn(warning)
        terminal.success(f"testbed {record['name']} torn down")
    if not chosen:
        terminal.info("no testbed to tear down")


@app.command("cleanup")
def cleanup(all_: bool = typer.Option(False, "--all",
                                       help="Also tear down persistent testbeds (iotune testbed build)."),
            root: Path = ROOT) -> None:
    """After a crash: tear down exactly the testbeds whose owner process died, from their state files."""
    from iotune.testbed import cleanup as cleanup_testbeds

    terminal = Terminal()
    done = cleanup_testbeds(root, include_persistent=all_)
    for name, warnings in done:
        for warning in warnings:
            terminal.warn(warning)
        terminal.success(f"testbed {name} torn down")
    if not done:
        terminal.info("nothing to clean up")


@app.command("bench")
def bench(spec: Path = typer.Argument(..., help="Campaign spec, as for iotune bench."),
          study: str = typer.Option(None, "--study", "-s", help="Study name (default: the spec's name)."),
          repeats: int = typer.Option(None, "--repeats", "-r", help="Repeats per configuration (overrides the spec)."),
          resume: bool = typer.Option(False, "--resume", help="Continue an existing testbed study on the same "
                                                              "storage: run only what is missing."),
          runner: str = RUNNER,
          timeout: float = typer.Option(600.0, "--timeout", help="Seconds before a trial is killed and failed."),
          fs: str = FS, devices: int = DEVICES, raid0: bool = RAID0, scheduler: str = SCHEDULER,
          write_mbps: float = WRITE_MBPS, read_mbps: float = READ_MBPS, iops: int = IOPS,
          mount_options: str = MOUNT_OPTIONS, size_mib: int = SIZE_MIB, root: Path = ROOT,
          mpiexec: str = MPIEXEC, db: str = DB, servers: int = SERVERS, server_write_mbps: float = SERVER_WRITE_MBPS,
          server_read_mbps: float = SERVER_READ_MBPS) -> None:
    """Build a testbed, run ``iotune bench`` on it with the MPI ranks inside its cgroup, tear it down.

    These options fix the storage; when the spec itself varies storage (fs, device_class, ...), one testbed is
    built per storage configuration, and these options fix only what the spec does not vary.  The study holds
    this storage in its spec, so a testbed study is never continued on other storage."""
    from dataclasses import replace

    from iotune.cli.bench_cmd import measure_spec
    from iotune.spec import load_spec

    config = _config(fs, devices, raid0, scheduler, write_mbps, read_mbps, iops, mount_options, size_mib, servers,
                     server_write_mbps, server_read_mbps)
    loaded = load_spec(spec).with_campaign(repeats=repeats)
    varied = {p.name for p in loaded.space.parameters}
    storage = {k: v for k, v in config.to_dict().items() if k not in varied and v is not None}
    loaded = replace(loaded, storage={**storage, **loaded.storage})
    study = study or loaded.name
    Terminal().info(f"testbed: {_limits(config.to_dict())} per device (buffered writes are throttled only when "
                    "the process fsyncs them)")
    measure_spec(loaded, study, db, resume=resume, runner=runner, timeout=timeout, mpiexec=mpiexec, testbed_dir=root)
    Terminal().info(f"results: {results_command(study, db)}")
