"""An HDF5 application measured and tuned from inside by iotune's PMPI library: HDF5's I/O goes through MPI-IO, so
the library counts it and applies the hints at the file's MPI_File_open (issue 30). Needs parallel h5py (h5py built
against an MPI HDF5 on the MPICH the tests run; PyPI's h5py wheel is serial): skipped without it."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from iotune.apply.pmpi import HINTS_VARIABLE, OUT_VARIABLE, PmpiResult, PmpiUnavailable, library
from iotune.cli.app import main
from iotune.spec import CampaignSpec
from iotune.store import Store
from iotune.study import Study

KERNEL = Path(__file__).parents[1] / "apps" / "checkpoint_hdf5.py"
MPIEXEC = str(Path(sys.executable).parent / "mpiexec")
SLEEP = 0.5


def _parallel_h5py() -> str | None:
    done = subprocess.run([sys.executable, "-c", "import h5py; print(h5py.get_config().mpi)"], capture_output=True,
                          text=True, timeout=60)
    if done.returncode != 0:
        return "h5py is not installed (parallel h5py: h5py built from source against libhdf5-mpich-dev)"
    if done.stdout.strip() != "True":
        return "h5py is serial (PyPI's wheel); parallel h5py is built from source against libhdf5-mpich-dev"
    return None


MISSING = _parallel_h5py()
pytestmark = [pytest.mark.requires_mpi, pytest.mark.skipif(MISSING is not None, reason=f"requires parallel h5py: {MISSING}")]


@pytest.fixture(scope="module")
def pmpi_cache(tmp_path_factory):
    cache = tmp_path_factory.mktemp("pmpi-cache")
    try:
        library([MPIEXEC], {**os.environ, "IOTUNE_PMPI_CACHE": str(cache)})
    except PmpiUnavailable as exc:
        pytest.skip(f"the PMPI library cannot be built here: {exc}")
    return cache


def _environ() -> dict:
    return {k: v for k, v in os.environ.items()
            if k not in ("ROMIO_HINTS", "MPICH_MPIIO_HINTS", "LD_PRELOAD") and not k.startswith("IOR_HINT__")}


def test_the_library_counts_hdf5s_io_and_applies_hints_at_its_open(tmp_path, pmpi_cache):
    lib = library([MPIEXEC], {**os.environ, "IOTUNE_PMPI_CACHE": str(pmpi_cache)})
    hints = {"romio_cb_write": "disable", "cb_buffer_size": "1048576"}
    (tmp_path / "hints").write_text("".join(f"{k} {v}\n" for k, v in hints.items()))
    log, out = tmp_path / "kernel.jsonl", tmp_path / "pmpi.json"
    env = {**_environ(), "LD_PRELOAD": str(lib), OUT_VARIABLE: str(out), HINTS_VARIABLE: str(tmp_path / "hints")}
    done = subprocess.run([MPIEXEC, "-n", "2", sys.executable, str(KERNEL), str(tmp_path / "ck"), "--steps", "2",
                           "--sleep", str(SLEEP), "--log", str(log)], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    result, kernel = PmpiResult.read(out), json.loads(log.read_text().splitlines()[-1])
    assert kernel["env"] == {}
    # HDF5 writes its metadata (superblock, object headers) through MPI-IO too: more than the data, not much more
    assert kernel["bytes_written"] <= result.bytes_written < kernel["bytes_written"] + (1 << 20)
    assert result.bytes_read >= kernel["bytes_read"]
    assert result.files == kernel["files"] == 2
    assert result.io_seconds < result.seconds_in_mpi - SLEEP * 0.9
    assert [r["name"] for r in result.file_records] == [f"{tmp_path / 'ck'}.0.h5", f"{tmp_path / 'ck'}.1.h5"]
    for record in result.file_records:
        assert {k: record["in_effect"][k] for k in hints} == hints


@pytest.mark.slow
def test_tune_an_hdf5_kernel_by_its_pmpi_io_time(tmp_path, capfd, monkeypatch, pmpi_cache):
    monkeypatch.setenv("IOTUNE_PMPI_CACHE", str(pmpi_cache))
    for name in [n for n in os.environ if n.startswith("IOR_HINT__") or n in ("ROMIO_HINTS", "MPICH_MPIIO_HINTS")]:
        monkeypatch.delenv(name)
    url = str(tmp_path / "iotune.db")
    with Store(url) as store:
        Study.create(store, "h5ck", CampaignSpec.from_text("""
name: h5ck
parameters:
  - {name: processes, type: integer, levels: [2], role: workload, layer: application}
  - {name: romio_cb_write, type: categorical, levels: [automatic, enable, disable], role: system, layer: mpiio}
  - {name: cb_buffer_size, type: size, levels: [64KiB, 1MiB, 16MiB], role: system, layer: mpiio}
benchmark: {api: MPIIO, block_size: 1MiB}
"""))
    log = tmp_path / "kernel.jsonl"
    code = main(["tune", "--study", "h5ck", "--db", url, "--budget", "8", "--format", "json",
                 "--scratch", str(tmp_path / "scratch"), "--", MPIEXEC, "-n", "2", sys.executable, str(KERNEL),
                 str(tmp_path / "ck"), "--sleep", str(SLEEP), "--log", str(log)])
    captured = capfd.readouterr()
    assert code == 0, captured.err
    summary = json.loads(captured.out[captured.out.index("{"):])
    assert "objective: I/O time measured inside the application by iotune's PMPI library" in captured.err
    with Store(url) as store:
        runs = store.trials(study="h5ck-runs")
    assert len(runs) == summary["runs"] == 8 and all(t.state == "COMPLETE" for t in runs)
    for trial in runs:
        assert trial.extra["phase_seconds_source"] == "pmpi io time"
        assert trial.phases[0].seconds < trial.wall_seconds - SLEEP
        assert {k: trial.hints_in_effect[k] for k in trial.extra["pmpi"]["asked"]} == trial.extra["pmpi"]["asked"]
    assert all(json.loads(line)["env"] == {} for line in log.read_text().splitlines())
