"""How long and how much memory `iotune import` takes for an export near the 512 MiB limit (issue 22, item 4).

A real export is made first: `iotune import-ior` of tests/bench/fixtures/ior/a_posix_fpp_1m.json (a real IOR
4 run) repeated to --seed repetitions, then `iotune export` as JSON and CSV.  Each file is then grown to
--mib MiB by repeating its trials under new uids and repeat numbers (the same configuration measured again),
so every trial is one the import checks and stores.  Each import runs as a user runs it (a subprocess,
IOTUNE_PLAIN=1) into an empty SQLite store; peak RSS from wait4.

    .venv/bin/python benchmarks/import_large.py [--mib 480] [--formats json csv]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from import_speed import ior_json, iotune  # noqa: E402


def timed_import(path: Path, db: Path, cwd: Path) -> tuple[float, float, float, float]:
    """`iotune import path`: wall seconds, CPU seconds (user + system), peak RSS in MiB, and the seconds until its
    progress bar first moved (IOTUNE_PLAIN prints a line as it moves)."""
    began = time.perf_counter()
    first = None
    child = subprocess.Popen([sys.executable, "-m", "iotune", "import", str(path), "--db", str(db)], cwd=cwd,
                             text=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             env={**os.environ, "IOTUNE_PLAIN": "1"})
    for line in child.stderr:
        if first is None and "importing" in line:
            first = time.perf_counter() - began
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"iotune import {path} failed")
    return (time.perf_counter() - began, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
            first if first is not None else float("nan"))


def grow_json(small: Path, big: Path, mib: int) -> int:
    """Write ``big``: the export ``small`` with its study's trials repeated until the file has ``mib`` MiB."""
    document = json.loads(small.read_text())
    (study,) = document["studies"]
    trials = study.pop("trials")
    head = json.dumps({k: v for k, v in document.items() if k != "studies"})[:-1]
    meta = json.dumps(study)[:-1]
    count, written = 0, 0
    with open(big, "w") as out:
        out.write(f'{head}, "studies": [{meta}, "trials": [\n')
        while written < mib << 20:
            trial = trials[count % len(trials)]
            trial.update(uid=uuid.uuid4().hex, repeat=count)
            line = ("" if count == 0 else ",\n") + json.dumps(trial, indent=1)
            written += len(line)
            out.write(line)
            count += 1
        out.write("]}]}\n")
    return count


def grow_csv(small: Path, big: Path, mib: int) -> int:
    """Write ``big``: the flat export ``small`` with its trials' rows repeated until the file has ``mib`` MiB."""
    with open(small, newline="") as handle:
        rows = list(csv.DictReader(handle))
    by_trial: dict[str, list[dict]] = {}
    for row in rows:
        by_trial.setdefault(row["trial_uid"], []).append(row)
    groups = list(by_trial.values())
    count = 0
    with open(big, "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        while out.tell() < mib << 20:
            uid = uuid.uuid4().hex
            for index, row in enumerate(groups[count % len(groups)]):
                if count and index == 0:
                    row = {**row, **{k: "" for k in row if k.startswith("study_")}}
                writer.writerow({**row, "trial_uid": uid, "repeat": count})
            count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=480)
    parser.add_argument("--seed", type=int, default=1000, help="repetitions of the real export grown")
    parser.add_argument("--formats", nargs="+", default=["json", "csv"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        ior_json(tmp / "ior.json", args.seed)
        iotune("import-ior", tmp / "ior.json", "--study", "ior", "--db", tmp / "a.db", cwd=tmp)
        for fmt in args.formats:
            small, big = tmp / f"small.{fmt}", tmp / f"big.{fmt}"
            iotune("export", small, "--db", tmp / "a.db", cwd=tmp)
            trials = (grow_json if fmt == "json" else grow_csv)(small, big, args.mib)
            mib = big.stat().st_size / 2**20
            seconds, cpu, peak, first = timed_import(big, tmp / f"b_{fmt}.db", tmp)
            print(f"import {fmt}: {trials} trials ({mib:.0f} MiB) in {seconds:.1f} s wall, {cpu:.1f} s CPU "
                  f"({trials / seconds:.0f} trials/s wall, {trials / cpu:.0f} per CPU second), "
                  f"peak RSS {peak:.0f} MiB, first progress line (10% read) after {first:.1f} s; "
                  f"load average {os.getloadavg()[0]:.1f}", flush=True)
            big.unlink()


if __name__ == "__main__":
    main()
