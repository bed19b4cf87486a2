"""IOR as a source: the real IOR 4.1 outputs in fixtures/ior parse into specs and measurements."""

import json
import os
import shutil
import stat
import statistics
import subprocess
import zlib
from pathlib import Path

import pytest

from iotune.bench.ior import IorRunner, parse_ior_hints_log, parse_ior_json
from iotune.bench.runner import ior_args, ior_command_line
from iotune.errors import BenchError
from iotune.records import BenchmarkSpec
from iotune.units import MIB

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
        "IOR_HINT__MPI__romio_cb_write=disable mpiexec -n 2 ior -a MPIIO -c -w -r -e -l random -t 256k -b 1m -s 1 -i 1"
    )
    read = ior_command_line(BenchmarkSpec(api="POSIX", file_per_process=True, operation="read", fsync=False,
                                          data_pattern="timestamp"))
    assert read == (
        "mpiexec -n 2 ior -a POSIX -F -w -t 256k -b 1m -s 1 -i 1 -k"
        " && mpiexec -n 2 ior -a POSIX -F -r -t 256k -b 1m -s 1 -i 1 -E"
    )


def test_ior_command_line_shows_the_eviction_between_write_and_read():
    spec = BenchmarkSpec(api="POSIX", file_per_process=True, data_pattern="timestamp")
    dropped = ior_command_line(spec, "/s/testFile", cache_mode="drop_caches")
    assert dropped == (
        "mpiexec -n 2 ior -a POSIX -F -w -e -t 256k -b 1m -s 1 -i 1 -k -o /s/testFile"
        " && sync && echo 3 > /proc/sys/vm/drop_caches"
        " && mpiexec -n 2 ior -a POSIX -F -r -t 256k -b 1m -s 1 -i 1 -E -o /s/testFile"
    )
    assert "iflag=nocache" in ior_command_line(spec, "/s/testFile", cache_mode="fadvise_dontneed")
    assert " && " not in ior_command_line(spec, "/s/testFile", cache_mode="page_cache")


def test_data_patterns_map_to_the_ior_packet_type_that_writes_the_same_kind_of_data():
    # IOR 4's "-l offset" is a counting sequence (zlib ratio about 5); its "random" is incompressible and unique
    # per transfer, as iotune's "offset" is.
    offset = ior_args(BenchmarkSpec(data_pattern="offset"))
    assert offset[offset.index("-l") + 1] == "random"
    assert "-l" not in ior_args(BenchmarkSpec(data_pattern="timestamp"))


def _fixture_json(name: str, **parameters) -> dict:
    data = json.loads((FIXTURES / f"{name}.json").read_text())
    data["tests"][0]["Parameters"].update(parameters)
    return data


@pytest.mark.parametrize(("version", "packet", "pattern"), [
    ("4.1.0+dev", 0, "timestamp"), ("4.1.0+dev", 1, "ior_offset"), ("4.1.0+dev", 2, "ior_incompressible"),
    ("4.1.0+dev", 3, "offset"), ("3.3.0", 0, "timestamp"), ("3.3.0", 1, "timestamp"), ("3.3.0", 2, "timestamp"),
    ("3.3.0", 3, "ior_incompressible"),
])
def test_imported_packet_types_are_labelled_by_what_they_write(version, packet, pattern):
    # IOR 4: utilities.c; IOR 3: one buffer filled per test (FillBuffer), random only for incompressible
    data = _fixture_json("a_posix_fpp_1m", dataPacketType=packet)
    data["Version"] = version
    [(spec, _)] = parse_ior_json(json.dumps(data))
    assert spec.data_pattern == pattern
    if pattern.startswith("ior_"):
        assert "IOR's own" in spec.problem()  # iotune cannot write it, so it cannot run it either


def test_ior3_store_file_offset_makes_every_transfer_different():
    data = _fixture_json("a_posix_fpp_1m", dataPacketType=2, storeFileOffset=1)
    data["Version"] = "3.3.0"
    assert parse_ior_json(json.dumps(data))[0][0].data_pattern == "ior_offset"


def test_unknown_packet_type_is_one_line_error():
    with pytest.raises(BenchError, match="dataPacketType 7"):
        parse_ior_json(json.dumps(_fixture_json("a_posix_fpp_1m", dataPacketType=7)))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_imported_seconds_keep_ior_bandwidth_not_rounded_times(name):
    raw = json.loads((FIXTURES / f"{name}.json").read_text())["tests"][0]["Results"]
    [(_, measurements)] = parse_ior_json(FIXTURES / f"{name}.json")
    for entry, phase in zip(raw, [p for m in measurements for p in m.phases]):
        assert phase.bandwidth_mib == pytest.approx(entry["bwMiB"], rel=1e-6)
        assert abs(phase.seconds - entry["totalTime"]) <= 5e-5


def test_imported_write_with_fsync_has_no_transfer_close_split():
    [(spec, measurements)] = parse_ior_json(FIXTURES / "b_mpiio_shared_coll_4m.json")
    assert spec.fsync
    for m in measurements:
        write, read = m.phase("write"), m.phase("read")
        # IOR's wrRdTime holds the fsync that iotune counts in close: there is no split to report
        assert write.transfer_seconds is None and write.close_seconds is None and write.open_seconds > 0
        assert read.transfer_seconds == m.extra["ior"]["read"]["wrRdTime"]
        assert write.seconds > m.extra["ior"]["write"]["wrRdTime"]
    [(_, no_fsync)] = parse_ior_json(json.dumps(_fixture_json("b_mpiio_shared_coll_4m", fsync=0)))
    write = no_fsync[0].phase("write")
    assert write.transfer_seconds == no_fsync[0].extra["ior"]["write"]["wrRdTime"]
    assert write.close_seconds == no_fsync[0].extra["ior"]["write"]["closeTime"]


@pytest.mark.parametrize(("parameters", "command", "mode"), [
    ({}, "", "page_cache"),
    ({"writeFile": 0, "useExistingTestFile": 1}, "", "unknown"),
    ({"readFile": 0}, "", "none"),
    ({"reorderTasks": 1, "nodes": 2, "tasksPerNode": 1}, "", "other_node"),
    ({"reorderTasks": 1}, "", "unknown"),
    ({}, "ior -a POSIX -F -w -r --posix.odirect", "o_direct"),
])
def test_imported_read_cache_mode_says_what_ior_did(parameters, command, mode):
    data = _fixture_json("a_posix_fpp_1m", **parameters)
    if command:
        data["Command line"] = command
    if not data["tests"][0]["Parameters"]["readFile"]:
        data["tests"][0]["Results"] = [r for r in data["tests"][0]["Results"] if r["access"] == "write"]
    [(_, measurements)] = parse_ior_json(json.dumps(data))
    assert {m.read_cache_mode for m in measurements} == {mode}


@pytest.mark.skipif(shutil.which("ior") is not None, reason="ior is installed")
def test_ior_runner_without_ior_says_so():
    with pytest.raises(BenchError, match="ior not found on PATH"):
        IorRunner()


# A stand-in for ior: logs its arguments (and, for a read, how many bytes of the files are in the page cache),
# writes real files for -w, and answers with a fixture's JSON cut down to the phases it was asked for.
FAKE_IOR = """#!{python}
import glob, json, os, re, subprocess, sys
args = sys.argv[1:]
target = args[args.index("-o") + 1]
summary = [a.split("=", 1)[1] for a in args if a.startswith("summaryFile=")][0]
write, read = "-w" in args, "-r" in args
record = {{"args": args}}
if read:
    files = [f for f in glob.glob(target + "*") if re.fullmatch(r"testFile(\\.\\d{{8}})?", os.path.basename(f))]
    out = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES", *files],
                         capture_output=True, text=True).stdout.split()
    record["files"], record["resident"] = len(files), sum(int(x) for x in out)
if write:
    name = target + (".00000000" if "-F" in args else "")
    with open(name, "wb") as handle:
        handle.write(os.urandom(1 << 20))
with open(os.environ["FAKE_IOR_LOG"], "a") as handle:
    handle.write(json.dumps(record) + "\\n")
fixture = os.environ["FAKE_IOR_FIXTURE"]
data = json.load(open(fixture + ".json"))
test = data["tests"][0]
test["Parameters"].update(writeFile=int(write), readFile=int(read))
wanted = ["write"] * write + ["read"] * read
test["Results"] = [r for r in test["Results"][:2] if r["access"] in wanted]
json.dump(data, open(summary, "w"))
if "--mpiio.showHints" in args:
    print(open(fixture + ".log").read())
"""


@pytest.fixture
def fake_ior(tmp_path, monkeypatch):
    """Path of the stand-in ior and a function returning the invocations it logged."""
    fake, log = tmp_path / "ior", tmp_path / "invocations.jsonl"
    fake.write_text(FAKE_IOR.format(python=shutil.which("python3")))
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("FAKE_IOR_LOG", str(log))
    monkeypatch.setenv("FAKE_IOR_FIXTURE", str(FIXTURES / "c_mpiio_shared_coll_4m_cbw_disable_env"))

    def invocations() -> list[dict]:
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    return str(fake), invocations


def _timed(invocations) -> list[dict]:
    return [i for i in invocations if "--mpiio.showHints" not in i["args"]]


@pytest.mark.requires_mpi
def test_ior_runner_plumbing_with_a_stand_in_binary(fake_ior, scratch):
    fake, _ = fake_ior
    spec = BenchmarkSpec(api="MPIIO", processes=1, collective=True, hints={"romio_cb_write": "disable"})
    m = IorRunner(ior=fake, cache_mode="fadvise_dontneed").run(spec, scratch)
    assert m.status == "COMPLETE", m.error
    assert m.runner == "ior" and m.phase("write").bytes == 128 * MIB
    assert m.hints_in_effect["romio_cb_write"] == "disable"
    assert "IOR_HINT__MPI__romio_cb_write=disable" in m.command
    assert os.listdir(scratch) == []


@pytest.mark.requires_mpi
def test_ior_runner_evicts_the_file_between_separate_write_and_read_runs(fake_ior, scratch):
    fake, invocations = fake_ior
    spec = BenchmarkSpec(api="POSIX", processes=1, file_per_process=True)
    m = IorRunner(ior=fake, cache_mode="fadvise_dontneed").run(spec, scratch)
    assert m.status == "COMPLETE", m.error
    assert [p.phase for p in m.phases] == ["write", "read"]
    assert m.read_cache_mode == "fadvise_dontneed"
    write, read = _timed(invocations())
    assert "-w" in write["args"] and "-k" in write["args"] and "-r" not in write["args"]
    assert "-r" in read["args"] and "-E" in read["args"] and "-w" not in read["args"]
    assert read["files"] == 1 and read["resident"] == 0  # nothing of the file was in the page cache
    assert "iflag=nocache" in m.command
    assert os.listdir(scratch) == []


@pytest.mark.requires_mpi
@pytest.mark.requires_root
def test_ior_runner_drops_caches_as_root(fake_ior, scratch):
    fake, invocations = fake_ior
    m = IorRunner(ior=fake).run(BenchmarkSpec(api="POSIX", processes=1, operation="read"), scratch)
    assert m.status == "COMPLETE", m.error
    assert m.read_cache_mode == "drop_caches" and [p.phase for p in m.phases] == ["read"]
    assert _timed(invocations())[-1]["resident"] == 0


@pytest.mark.requires_mpi
def test_ior_runner_page_cache_mode_is_one_run_and_says_so(fake_ior, scratch):
    fake, invocations = fake_ior
    m = IorRunner(ior=fake, cache_mode="page_cache").run(BenchmarkSpec(api="POSIX", processes=1), scratch)
    assert m.status == "COMPLETE", m.error
    assert m.read_cache_mode == "page_cache"
    [run] = _timed(invocations())
    assert "-w" in run["args"] and "-r" in run["args"]


@pytest.mark.requires_mpi
@pytest.mark.parametrize("operation", ["write", "readwrite"])
def test_ior_runner_reads_hints_outside_the_timed_runs(fake_ior, scratch, operation):
    fake, invocations = fake_ior
    spec = BenchmarkSpec(api="MPIIO", processes=1, collective=True, operation=operation,
                         hints={"romio_cb_write": "disable"})
    m = IorRunner(ior=fake, cache_mode="fadvise_dontneed").run(spec, scratch)
    assert m.status == "COMPLETE", m.error
    assert m.hints_in_effect["romio_cb_write"] == "disable"
    probes = [i["args"] for i in invocations() if "--mpiio.showHints" in i["args"]]
    assert len(probes) == 1 and "-c" in probes[0]
    assert probes[0][probes[0].index("-t") + 1] == "8" and probes[0][probes[0].index("-b") + 1] == "8"
    assert all(i["args"][i["args"].index("-t") + 1] == "256k" for i in _timed(invocations()))


LIKE_FOR_LIKE = {
    "posix_fpp": BenchmarkSpec(api="POSIX", file_per_process=True, block_size=16 * MIB, transfer_size=MIB),
    "mpiio_collective": BenchmarkSpec(api="MPIIO", collective=True, block_size=16 * MIB, transfer_size=MIB),
    "mpiio_independent": BenchmarkSpec(api="MPIIO", block_size=16 * MIB, transfer_size=MIB),
}


@pytest.mark.requires_ior
@pytest.mark.requires_mpi
@pytest.mark.slow
@pytest.mark.parametrize("workload", sorted(LIKE_FOR_LIKE))
def test_ior_backend_measures_what_the_builtin_runner_measures_on_the_same_data(workload, scratch):
    from iotune.bench.runner import BuiltinRunner

    spec, pairs = LIKE_FOR_LIKE[workload], 4
    results = {"ior": [], "builtin": []}
    with BuiltinRunner() as builtin:
        runners = {"ior": IorRunner(), "builtin": builtin}
        for pair in range(pairs):
            for name in (("ior", "builtin") if pair % 2 else ("builtin", "ior")):
                m = runners[name].run(spec, scratch)
                assert m.status == "COMPLETE", (name, m.error)
                results[name].append(m)
    for ior, own in zip(results["ior"], results["builtin"]):
        assert [(p.phase, p.bytes, p.ops) for p in ior.phases] == [(p.phase, p.bytes, p.ops) for p in own.phases]
        assert ior.read_cache_mode == own.read_cache_mode != "page_cache"
        assert set(own.hints_in_effect) <= set(ior.hints_in_effect)
    for phase in ("write", "read"):
        ratio = (statistics.median(m.phase(phase).bandwidth_mib for m in results["ior"])
                 / statistics.median(m.phase(phase).bandwidth_mib for m in results["builtin"]))
        # a loose band: reads from the page cache, or different data, show up as several times apart
        assert 0.5 < ratio < 2.0, (phase, ratio)
    assert os.listdir(scratch) == []


@pytest.mark.requires_ior
@pytest.mark.requires_mpi
def test_ior_writes_incompressible_unique_pages_for_the_offset_pattern(tmp_path):
    spec = BenchmarkSpec(api="POSIX", processes=1, block_size=MIB, transfer_size=256 * 1024, operation="write")
    subprocess.run(["ior", *ior_args(spec), "-k", "-o", str(tmp_path / "testFile")], check=True,
                   capture_output=True, timeout=120)
    data = (tmp_path / "testFile").read_bytes()
    assert len(data) == MIB
    assert len(data) / len(zlib.compress(data)) < 1.05
    pages = {data[i:i + 4096] for i in range(0, len(data), 4096)}
    assert len(pages) == len(data) // 4096
