"""``iotune screen`` as a user runs it: a real small screen with MPI-IO, and a refused design."""

import json
import textwrap

import pytest

from tests.cli.conftest import run_iotune

SPEC = textwrap.dedent("""\
    name: tiny
    parameters:
      - {name: transfer_size, type: size, levels: [64KiB, 256KiB], role: workload, layer: application}
      - {name: romio_cb_write, type: categorical, levels: [disable, enable], role: system, layer: mpiio}
      - {name: cb_buffer_size, type: size, levels: [1MiB, 4MiB], role: system, layer: mpiio}
      - {name: romio_no_indep_rw, type: categorical, levels: ["false", "true"], role: system, layer: mpiio}
    benchmark: {api: MPIIO, processes: 2, block_size: 256KiB, collective: true, operation: write, fsync: false}
""")


@pytest.fixture
def workdir(tmp_path):
    (tmp_path / "scratch").mkdir()
    (tmp_path / "tiny.yaml").write_text(SPEC)
    return tmp_path


@pytest.mark.slow
@pytest.mark.requires_mpi
def test_real_screen_ends_with_a_ranking_and_collects(workdir):
    done = run_iotune("screen", "tiny.yaml", "--repeats", "1", "--db", "t.db", "--scratch", "scratch",
                      "--format", "json", "--collect", "3", cwd=workdir, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert sorted(r["rank"] for r in rows) == [1, 2, 3, 4]
    assert {r["name"] for r in rows} == {"transfer_size", "romio_cb_write", "cb_buffer_size", "romio_no_indep_rw"}
    assert {"name", "low", "high", "effect_s", "effect_bandwidth", "rank", "diff_s", "diff_half_width_s",
            "share_pct", "write_diff_s", "read_diff_s", "phases_disagree", "matters"} <= set(rows[0])
    table = run_iotune("screen", "tiny.yaml", "--resume", "--db", "t.db", "--scratch", "scratch", cwd=workdir)
    assert table.returncode == 0, table.stderr
    assert "█" in table.stdout and "transfer_size" in table.stdout
    assert "tiny-screen-collect" in run_iotune("studies", "--db", "t.db", cwd=workdir).stdout


def test_constraint_violating_row_is_one_error_line(workdir):
    spec = SPEC.replace("[1MiB, 4MiB]", "[1MiB, 4MiB, 16MiB]") + 'constraints: ["transfer_size < cb_buffer_size / 4"]\n'
    (workdir / "tiny.yaml").write_text(spec)
    done = run_iotune("screen", "tiny.yaml", "--db", "t.db", "--scratch", "scratch", cwd=workdir)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: screening row ") and "{cb_buffer_size: [4MiB, 16MiB]}" in lines[0]
