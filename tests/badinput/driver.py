"""Run bad-input cases through ``iotune.cli.app.main`` in one process under a memory limit.

Usage: ``python driver.py CASES.json RESULTS.json``.  CASES is a list of
``{"id", "dir", "argv", "timeout"}``; each case runs in its directory with
stdout and stderr captured; a case still running after its timeout is stopped
(SIGALRM) and reported as a hang.  The address space of the whole process is
limited (``IOTUNE_BADINPUT_MEMORY`` bytes, default 4 GiB), so an input that
expands without bound ends as MemoryError instead of taking the machine.
Results are written after every case, so a crash still leaves the ones before.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import signal
import sys
import time


class Hang(BaseException):
    """A case ran past its timeout."""


def _alarm(signum, frame):
    raise Hang


def main(cases_path: str, results_path: str) -> None:
    limit = int(os.environ.get("IOTUNE_BADINPUT_MEMORY", str(4 << 30)))
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from iotune.cli.app import main as iotune

    cases = json.loads(open(cases_path).read())
    results = []
    signal.signal(signal.SIGALRM, _alarm)
    home = os.getcwd()
    for case in cases:
        out, err = io.StringIO(), io.StringIO()
        start = time.monotonic()
        hung = False
        os.chdir(case["dir"])
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                signal.alarm(case["timeout"])
                try:
                    code = iotune(case["argv"])
                finally:
                    signal.alarm(0)
        except Hang:
            code, hung = None, True
        except BaseException as error:  # noqa: BLE001 - anything main() lets out is a finding
            code = None
            err.write(f"driver caught {type(error).__name__}: {error}\n")
        finally:
            os.chdir(home)
        results.append({"id": case["id"], "code": code, "hung": hung, "stderr": err.getvalue(),
                        "stdout": out.getvalue()[:2000], "seconds": round(time.monotonic() - start, 3)})
        with open(results_path, "w") as handle:
            json.dump(results, handle)
    results.append({"id": "__peak__", "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss})
    with open(results_path, "w") as handle:
        json.dump(results, handle)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
