"""How long the read-only commands take on a 1,000-trial study: wall seconds, median of several runs.

    .venv/bin/python benchmarks/cli_latency.py             # 5 runs of each command
    .venv/bin/python benchmarks/cli_latency.py --runs 3 --importtime

The study is built first in a temporary store, not timed: the synthetic space of
benchmarks/report_speed.py (8 workloads x 36 ROMIO hint configurations),
250 configurations chosen by the full sampler, 4 repeats each (1,000 trials),
measured by its model runner (a time from the configuration with seeded noise,
no MPI) through the real campaign, worker and store; then ``iotune train``
stores a model for ``recommend``.  Each command runs as a user runs it, in a
new Python process (``python -m iotune ...``), so every figure includes the
interpreter's start and the imports.  ``--importtime`` adds, per command, the
five slowest imports (``python -X importtime``, cumulative microseconds).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from report_speed import SPEC, ModelRunner

from iotune.spec import CampaignSpec
from iotune.store import Store
from iotune.study.measure import prepare

STUDY = "latency"
WORKLOAD = "transfer_size=1MiB,collective=true"
TARGETS = {"--help": 0.3, "results": 0.3, "recommend": 2.0, "report": 3.0}
"""Wall seconds on an idle machine of this kind (issue 21)."""


def commands(db: str, out: Path) -> dict[str, list[str]]:
    study = ["--study", STUDY, "--db", db]
    return {
        "--help": ["--help"],
        "results": ["results", *study],
        "studies": ["studies", "--db", db],
        "status": ["status", *study],
        "recommend": ["recommend", *study, "--workload", WORKLOAD],
        "report": ["report", *study, "-o", str(out / "report.html")],
        "explain": ["explain", *study],
    }


def build(db: Path, scratch: Path) -> int:
    spec = CampaignSpec.from_text(SPEC, source="cli-latency.yaml").with_campaign(repeats=4, budget=250)
    platform = {"hostname": "bench", "kernel": "-", "fs_type": "ext4", "mpi_library": "-", "mpi_version": "-"}
    with Store(db) as store:
        prepare(store, spec, STUDY, ModelRunner(), scratch, platform=platform).run()
        return len(store.trials(study=STUDY))


def iotune(args: list[str], env: dict, importtime: bool = False) -> subprocess.CompletedProcess:
    python = [sys.executable, *(["-X", "importtime"] if importtime else []), "-m", "iotune"]
    done = subprocess.run([*python, *args], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"iotune {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return done


def slowest_imports(stderr: str, count: int = 5) -> str:
    rows = []
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = line.split("|")
            if cumulative.strip().isdigit():
                rows.append((int(cumulative), name.strip()))
    top = sorted((r for r in rows if "." not in r[1]), reverse=True)[:count]  # top-level packages only
    return ", ".join(f"{name} {us / 1e6:.2f}" for us, name in top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each command (the median is shown)")
    parser.add_argument("--importtime", action="store_true", help="also show each command's slowest imports")
    args = parser.parse_args()
    env = {**os.environ, "IOTUNE_PLAIN": "1"}
    env.pop("IOTUNE_DB", None)
    with tempfile.TemporaryDirectory(prefix="iotune-cli-latency-") as tmp:
        tmp = Path(tmp)
        db = tmp / "latency.db"
        start = time.perf_counter()
        trials = build(db, tmp)
        iotune(["train", "--study", STUDY, "--db", str(db)], env)
        print(f"built a study of {trials} trials and trained its model in {time.perf_counter() - start:.1f} s "
              f"(not part of the figures); {args.runs} runs of each command; load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(f"{'command':<12} {'median s':>9} {'min s':>7} {'max s':>7} {'target s':>9}"
              + ("  slowest imports (s, cumulative)" if args.importtime else ""))
        for name, words in commands(str(db), tmp).items():
            walls = []
            for _ in range(args.runs):
                begin = time.perf_counter()
                iotune(words, env)
                walls.append(time.perf_counter() - begin)
            target = TARGETS.get(name)
            line = (f"{name:<12} {statistics.median(walls):9.2f} {min(walls):7.2f} {max(walls):7.2f} "
                    f"{'' if target is None else f'{target:.1f}':>9}")
            if args.importtime:
                line += "  " + slowest_imports(iotune(words, env, importtime=True).stderr)
            print(line, flush=True)


if __name__ == "__main__":
    main()
