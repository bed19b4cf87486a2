"""How fast imports are: `iotune import-ior` of one IOR JSON with N repetitions, then `iotune import` of the
JSON and CSV exports of the store that made (issue 22, item 6).

The IOR JSON is tests/bench/fixtures/ior/a_posix_fpp_1m.json (a real IOR 4 run) with its Results repeated
to N repetitions, each one's times scaled a little so no two are equal.  Every command runs as a user runs
it (a subprocess, IOTUNE_PLAIN=1), on SQLite in a temporary directory.

    .venv/bin/python benchmarks/import_speed.py [--repetitions 100000]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "bench" / "fixtures" / "ior" / "a_posix_fpp_1m.json"


def ior_json(path: Path, repetitions: int) -> None:
    document = json.loads(FIXTURE.read_text())
    test = document["tests"][0]
    pairs = [test["Results"][i:i + 2] for i in range(0, len(test["Results"]), 2)]
    results = []
    for index in range(repetitions):
        for result in copy.deepcopy(pairs[index % len(pairs)]):
            factor = 1 + (index % 997) / 10_000
            for key in ("openTime", "wrRdTime", "closeTime", "totalTime", "latency"):
                result[key] = round(result[key] * factor, 6)
            result["bwMiB"] = round(result["bwMiB"] / factor, 4)
            results.append(result)
    test["Results"] = results
    test["Parameters"]["repetitions"] = repetitions
    path.write_text(json.dumps(document))


def iotune(*args, cwd: Path) -> tuple[float, float]:
    """Seconds one iotune command takes and its peak resident memory in MiB; exits if it fails."""
    began = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen([sys.executable, "-m", "iotune", *map(str, args)], cwd=cwd, text=True,
                                 stdout=subprocess.DEVNULL, stderr=err, env={**os.environ, "IOTUNE_PLAIN": "1"})
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - began
        if child.returncode != 0:
            err.seek(0)
            sys.exit(f"iotune {' '.join(map(str, args))} failed:\n{err.read()[-2000:]}")
    return seconds, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        source = tmp / "ior.json"
        ior_json(source, args.repetitions)
        mib = source.stat().st_size / 2**20
        seconds, peak = iotune("import-ior", source, "--study", "ior", "--db", tmp / "a.db", cwd=tmp)
        print(f"import-ior: {args.repetitions} repetitions ({mib:.1f} MiB) in {seconds:.1f} s "
              f"({args.repetitions / seconds:.0f} trials/s), peak RSS {peak:.0f} MiB")
        again, peak = iotune("import-ior", source, "--study", "ior", "--db", tmp / "a.db", cwd=tmp)
        print(f"import-ior again (every trial already there): {again:.1f} s, peak RSS {peak:.0f} MiB")
        for fmt in ("json", "csv"):
            export = tmp / f"export.{fmt}"
            iotune("export", export, "--db", tmp / "a.db", cwd=tmp)
            mib = export.stat().st_size / 2**20
            seconds, peak = iotune("import", export, "--db", tmp / f"b_{fmt}.db", cwd=tmp)
            print(f"import {fmt}: {args.repetitions} trials ({mib:.1f} MiB) in {seconds:.1f} s "
                  f"({args.repetitions / seconds:.0f} trials/s, {mib / seconds:.2f} MiB/s; "
                  f"a 480 MiB export at this rate: {480 / (mib / seconds):.0f} s), peak RSS {peak:.0f} MiB")

if __name__ == "__main__":
    main()
