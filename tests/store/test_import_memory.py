"""Issue 22, item 4: an import checks cheap things first and reads flat rows one at a time, so a large file
that is not what it should be is refused at once, not after it was read into memory.  The import runs in a
child process whose address space is limited (RLIMIT_AS, as tests/badinput does)."""

import subprocess
import sys

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

