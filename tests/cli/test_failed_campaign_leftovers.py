"""Repeated failed campaigns leave nothing in /dev/shm or /tmp (issue 13, item 9 and "Done when").

The campaign runs in its own mount namespace with an empty /dev/shm and /tmp
of its own (tmpfs), so that what it leaves can be told from what other
programs on the machine have there: after two campaigns whose every trial
crashes a rank (each failure tears the MPI world down and starts another),
/dev/shm must be empty and /tmp hold only the campaign's own directory and an
empty scratch directory.  When iotune itself lives under /tmp (a checkout
there, its venv inside), those directories are bound back into the new /tmp
and left out of what is counted.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = [pytest.mark.requires_mpi, pytest.mark.requires_root, pytest.mark.slow]

SPEC = textwrap.dedent("""\
    name: failing
    parameters:
      - {name: romio_cb_write, type: categorical, levels: [enable, disable], role: system, layer: mpiio}
    benchmark: {api: MPIIO, processes: 2, block_size: 64KiB, transfer_size: 64KiB}
    campaign: {repeats: 2}
""")

SCRIPT = textwrap.dedent("""\
    set -u
    mount -t tmpfs -o size=1m iotune-test-hold /mnt && mkdir /mnt/tmp && mount --bind /tmp /mnt/tmp
    mount -t tmpfs -o size=256m iotune-test-shm /dev/shm
    mount -t tmpfs -o size=256m iotune-test-tmp /tmp
    for kept in {kept}; do mkdir -p "$kept" && mount --bind "/mnt/tmp/${{kept#/tmp/}}" "$kept"; done
    mkdir /tmp/work && cd /tmp/work
    cat > failing.yaml <<'SPEC'
    {spec}SPEC
    for run in 1 2; do
        IOTUNE_PLAIN=1 IOTUNE_TEST_CRASH_RANK=1 {python} -m iotune bench failing.yaml --db s.db --timeout 60 \\
            --resume --retry-failed 2>>bench.err
        echo "exit $?"
    done
    echo "shm:" $(ls -A /dev/shm)
    echo "tmp:" $(ls -A /tmp)
    echo "scratch:" $(ls -A /tmp/iotune-scratch 2>/dev/null)
    echo "stderr:" $(grep -c "trial failed" bench.err)
""")


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare (util-linux)")
def test_two_failed_campaigns_leave_nothing_behind():
    under_tmp = [Path(p).resolve() for p in (sys.prefix, Path(__file__).parents[2])]
    under_tmp = [p for p in under_tmp if p.is_relative_to("/tmp") and p != Path("/tmp")]
    kept = sorted({str(p) for p in under_tmp if not any(p != q and p.is_relative_to(q) for q in under_tmp)})
    script = SCRIPT.format(spec=SPEC, python=sys.executable, kept=" ".join(map(shlex.quote, kept)) or "")
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "bash", "-c", script],
                          capture_output=True, text=True, timeout=600)
    report = dict(line.split(":", 1) for line in done.stdout.splitlines() if ":" in line)
    assert done.stdout.count("exit 2") == 2, done.stdout + done.stderr  # every trial failed: exit 2, said so
    assert int(report["stderr"]) >= 8, done.stdout  # every trial really ran and failed, in both campaigns
    assert report["shm"].split() == [], f"left in /dev/shm: {report['shm']}"
    ours = {Path(p).relative_to("/tmp").parts[0] for p in kept}
    left = sorted(set(report["tmp"].split()) - ours)
    assert left in (["work"], ["iotune-scratch", "work"]), f"left in /tmp: {report['tmp']}"
    assert report["scratch"].split() == [], f"left in the scratch directory: {report['scratch']}"
