"""IOR as a source: the real IOR 4.1 outputs in fixtures/ior parse into specs and measurements."""

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from iotune.bench.ior import IorRunner, parse_ior_hints_log, parse_ior_json
from iotune.bench.runner import ior_command_line
from iotune.units import MIB
from iotune.records import BenchmarkSpec
from iotune.errors import BenchError

FIXTURES = Path(__file__).parent / "fixtures" / "ior"

# README.md of the fixtures: file -> IOR options
EXPECTED = {
    "a_posix_fpp_1m": dict(api="POSIX", file_per_process=True, collective=False, transfer_size=MIB),
    "b_mpiio_shared_coll_4m": dict(api="MPIIO", file_per_process=False, collective=True, transfer_size=4 * MIB),
    "c_mpiio_shared_coll_4m_cbw_disable_env": dict(
        api="MPIIO", file_per_process=False, collective=True, transfer_size=4 * MIB
    ),
    "d_mpiio_shared_indep_4k": dict(api="MPIIO", file_per_process=False, collective=False, transfer_size=4096),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_spec_matches_readme_options(name):
    [(spec, measurements)] = parse_ior_json(FIXTURES / f"{name}.json")
    for field, value in EXPECTED[name].items():
        assert getattr(spec, field) == value, field
    assert spec.processes == 2 and spec.block_size == 64 * MIB and spec.segment_count == 1
    assert spec.operation == "readwrite" and spec.fsync is True
    assert len(measurements) == 3
    for m in measurements:
        assert m.status == "COMPLETE" and m.runner == "ior"
        assert [p.phase for p in m.phases] == ["write", "read"]
        assert m.command.startswith("ior ")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bandwidth_equals_bytes_over_seconds_within_rounding(name):
    raw = json.loads((FIXTURES / f"{name}.json").read_text())["tests"][0]["Results"]
    [(spec, measurements)] = parse_ior_json(FIXTURES / f"{name}.json")
    phases = [p for m in measurements for p in m.phases]
    assert len(phases) == len(raw) == 6
    for entry, phase in zip(raw, phases):
        assert phase.phase == entry["access"]
        assert phase.bytes == 128 * MIB
        assert phase.ops == phase.bytes // spec.transfer_size
        # totalTime is printed with 4 decimals: bwMiB lies between the bounds it allows.
        mib = phase.bytes / MIB
        assert mib / (phase.seconds + 5e-5) <= entry["bwMiB"] <= mib / (phase.seconds - 5e-5)


def test_json_text_is_accepted_as_well_as_a_path():
    text = (FIXTURES / "a_posix_fpp_1m.json").read_text()
    assert parse_ior_json(text)[0][0] == parse_ior_json(str(FIXTURES / "a_posix_fpp_1m.json"))[0][0]


@pytest.mark.parametrize("bad", ["{not json", '{"tests": [{"Parameters": {}}]}', "[]", "/no/such/ior.json"])
def test_malformed_input_is_one_line_bench_error(bad):
    with pytest.raises(BenchError) as info:
        parse_ior_json(bad)
    assert "\n" not in str(info.value)


def test_hints_log_shows_requested_hint_in_effect():
    blocks = parse_ior_hints_log((FIXTURES / "c_mpiio_shared_coll_4m_cbw_disable_env.log").read_text())
    assert len(blocks) == 6
    assert all(b["romio_cb_write"] == "disable" for b in blocks)
    assert blocks[0]["cb_buffer_size"] == "16777216"
    assert blocks[0]["romio_aggregator_list"] == "0"
    default = parse_ior_hints_log((FIXTURES / "b_mpiio_shared_coll_4m.log").read_text())
    assert default[0]["romio_cb_write"] == "automatic"
    assert parse_ior_hints_log((FIXTURES / "a_posix_fpp_1m.log").read_text()) == []


def test_unterminated_hints_block_is_an_error():
    with pytest.raises(BenchError, match="unterminated"):
        parse_ior_hints_log("hints returned from opened file {\n a = b\n")


def test_ior_command_line_is_equivalent():
    spec = BenchmarkSpec(api="MPIIO", collective=True, transfer_size=256 * 1024, hints={"romio_cb_write": "disable"})
    assert ior_command_line(spec) == (
        "IOR_HINT__MPI__romio_cb_write=disable mpiexec -n 2 ior -a MPIIO -c -w -r -e -l offset -t 256k -b 1m -s 1 -i 1"
    )
    read = ior_command_line(BenchmarkSpec(api="POSIX", file_per_process=True, operation="read", fsync=False,
                                          data_pattern="timestamp"))
    assert read == (
        "mpiexec -n 2 ior -a POSIX -F -w -t 256k -b 1m -s 1 -i 1 -k"
        " && mpiexec -n 2 ior -a POSIX -F -r -t 256k -b 1m -s 1 -i 1 -E"
    )


@pytest.mark.skipif(shutil.which("ior") is not None, reason="ior is installed")
def test_ior_runner_without_ior_says_so():
    with pytest.raises(BenchError, match="ior not found on PATH"):
        IorRunner()


FAKE_IOR = """#!{python}
import shutil, sys
args = sys.argv[1:]
summary = [a.split("=", 1)[1] for a in args if a.startswith("summaryFile=")][0]
shutil.copy("{fixture}.json", summary)
print(open("{fixture}.log").read())
"""


@pytest.mark.requires_mpi
def test_ior_runner_plumbing_with_a_stand_in_binary(tmp_path, scratch):
    fake = tmp_path / "ior"
    fixture = FIXTURES / "c_mpiio_shared_coll_4m_cbw_disable_env"
    fake.write_text(FAKE_IOR.format(python=shutil.which("python3"), fixture=fixture))
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    spec = BenchmarkSpec(api="MPIIO", processes=1, collective=True, hints={"romio_cb_write": "disable"})
    m = IorRunner(ior=str(fake)).run(spec, scratch)
    assert m.status == "COMPLETE", m.error
    assert m.runner == "ior" and m.phase("write").bytes == 128 * MIB
    assert m.hints_in_effect["romio_cb_write"] == "disable"
    assert "IOR_HINT__MPI__romio_cb_write=disable" in m.command
    assert os.listdir(scratch) == []


@pytest.mark.requires_ior
@pytest.mark.requires_mpi
@pytest.mark.skipif(shutil.which("ior") is None, reason="requires_ior: ior is not on PATH")
def test_real_ior_one_repetition(scratch):
    spec = BenchmarkSpec(api="MPIIO", processes=2, block_size=MIB, transfer_size=256 * 1024, collective=True)
    m = IorRunner().run(spec, scratch)
    assert m.status == "COMPLETE", m.error
    assert m.phase("write").bytes == spec.aggregate_bytes
    assert os.listdir(scratch) == []
