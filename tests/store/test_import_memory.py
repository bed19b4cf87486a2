"""Issue 22, item 4: an import checks cheap things first and reads flat rows one at a time, so a large file
that is not what it should be is refused at once, not after it was read into memory.  The import runs in a
child process whose address space is limited (RLIMIT_AS, as tests/badinput does)."""

import csv
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

LIMIT = 768 << 20
CHILD = f"""
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({LIMIT}, {LIMIT}))
from iotune.cli.app import main
sys.exit(main(sys.argv[1:]))
"""


def _iotune_limited(tmp_path, *args):
    return subprocess.run([sys.executable, "-c", CHILD, *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path, env={"OPENBLAS_NUM_THREADS": "1", "PATH": "/usr/bin:/bin",
                                                          "IOTUNE_PLAIN": "1"})


def _big_csv(path, header: str, row: str, mib: int) -> None:
    block = (row + "\n") * ((1 << 20) // (len(row) + 1))
    with open(path, "w") as out:
        out.write(header + "\n")
        for _ in range(mib):
            out.write(block)


def test_a_large_compact_csv_without_its_spec_is_refused_from_its_header(tmp_path):
    _big_csv(tmp_path / "big.csv", "trial_uid,repeat,phase,bytes,seconds,cfg.transfer_size",
             "0123456789abcdef0123456789abcdef,0,write,16777216,0.5,4MiB", 120)
    done = _iotune_limited(tmp_path, "import", "big.csv", "--db", tmp_path / "s.db")
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.startswith("error: ") and "--spec" in done.stderr and done.stderr.count("\n") == 1



PEAK_CHILD = """
import sys
from iotune.cli.app import main
try:
    code = main(sys.argv[2:])
finally:
    with open("/proc/self/status") as status, open(sys.argv[1], "w") as out:
        out.write(next(line for line in status if line.startswith("VmHWM")).split()[1])
sys.exit(code)
"""


def _peak_run(tmp_path, *args):
    """Run iotune in a child process; its exit status, stderr and peak resident memory in bytes (its own VmHWM:
    wait4's ru_maxrss would count the parent's pages, which Linux carries across fork and exec)."""
    done = subprocess.run([sys.executable, "-c", PEAK_CHILD, tmp_path / "peak", *map(str, args)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=1800,
                          env={"PATH": "/usr/bin:/bin", "IOTUNE_PLAIN": "1", "OPENBLAS_NUM_THREADS": "1"})
    return done.returncode, done.stderr, int((tmp_path / "peak").read_text()) * 1024


def _large_exports(tmp_path, json_mib: int, csv_mib: int):
    """A JSON and a CSV export of ``json_mib`` and ``csv_mib`` MiB, grown from a real one
    (benchmarks/import_large.py), whose last trial has a negative time."""
    from iotune.records import Measurement, PhaseResult
    from iotune.space import Space
    from iotune.store import Store
    from iotune.store.exchange import export

    space = Space.from_text("name: s\nparameters:\n"
                            "  - {name: cb_nodes, type: integer, levels: [1, 2, 4], role: system, layer: mpiio}\n")
    with Store(tmp_path / "small.db") as store:
        study = store.create_study("s", space.to_yaml(), space.hash, {})
        for configuration in space.enumerate():
            trial = store.start_trial(study.id, configuration.to_dict(), configuration.key,
                                      configuration.workload_key, 0)
            store.finish_trial(trial, Measurement("COMPLETE", [PhaseResult("write", 1 << 20, 0.5, 0.1, 0.3, 0.1, 1)]))
        export(store, tmp_path / "small.json")
        export(store, tmp_path / "small.csv", "csv")
    sys.path.insert(0, str(REPO / "benchmarks"))
    from import_large import grow_csv, grow_json

    grow_json(tmp_path / "small.json", tmp_path / "big.json", json_mib)
    with open(tmp_path / "big.json", "r+b") as big:  # the last time made negative in place, the file never read whole
        start = big.seek(0, 2) - 4096
        big.seek(start)
        tail = big.read()
        at = tail.rindex(b'"seconds": ') + len(b'"seconds": ')
        number = tail[at:tail.index(b",", at)]
        big.seek(start + at)
        big.write(b"-1".ljust(len(number)))
    grow_csv(tmp_path / "small.csv", tmp_path / "big.csv", csv_mib)
    with open(tmp_path / "small.csv", newline="") as handle:
        row = next(csv.DictReader(handle))
    with open(tmp_path / "big.csv", "a", newline="") as out:
        row.update({k: "" for k in row if k.startswith("study_")}, seconds="-1", trial_uid="f" * 32)
        csv.DictWriter(out, fieldnames=list(row)).writerow(row)
    return tmp_path / "big.json", tmp_path / "big.csv"


@pytest.mark.slow
def test_a_large_export_with_a_bad_last_trial_is_refused_within_512_mib(tmp_path):
    # Sizes that took more than 512 MiB before imports were streamed (JSON: json.loads held ~4 bytes per byte;
    # CSV: the regrouped trials were held until the import was applied, ~7 bytes per byte).
    for path in _large_exports(tmp_path, json_mib=150, csv_mib=100):
        code, stderr, peak = _peak_run(tmp_path, "import", path, "--db", tmp_path / f"{path.suffix[1:]}.db")
        lines = [line for line in stderr.splitlines() if line.startswith("error")]
        assert code == 2 and len(lines) == 1 and "seconds" in lines[0], stderr[-2000:]
        assert "Traceback" not in stderr
        assert peak < 512 << 20, f"{path.name}: peak RSS {peak >> 20} MiB"
