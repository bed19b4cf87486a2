"""Run the real ``iotune`` command in a subprocess, as a user would."""

import os
import subprocess
import sys
import textwrap

import pytest

TINY = textwrap.dedent("""\
    name: tiny
    parameters:
      - {name: transfer_size, type: size, levels: [64KiB, 128KiB, 256KiB], role: workload, layer: application}
      - {name: romio_cb_write, type: categorical, levels: [automatic, enable, disable], role: system,
         layer: mpiio}
      - {name: cb_buffer_size, type: size, levels: [1MiB, 4MiB], role: system, layer: mpiio}
    benchmark: {api: MPIIO, processes: 2, block_size: 256KiB, collective: true, fsync: true}
    campaign: {repeats: 2}
""")


def run_iotune(*args, cwd, env=None, timeout=300):
    environment = {**os.environ, "IOTUNE_PLAIN": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "iotune", *map(str, args)], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def workdir(tmp_path):
    (tmp_path / "scratch").mkdir()
    (tmp_path / "tiny.yaml").write_text(TINY)
    return tmp_path
