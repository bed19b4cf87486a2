"""How long the read-only commands take on a study: wall and CPU seconds, median of several runs, against the
interpreter's own start-up (``python -c pass``) measured in the same run.

    .venv/bin/python benchmarks/cli_latency.py                      # 100 trials, 5 runs of each command
    .venv/bin/python benchmarks/cli_latency.py --trials 10000 --commands report --runs 3
    .venv/bin/python benchmarks/cli_latency.py --runs 3 --importtime

The study is built first in a temporary store, not timed: the synthetic space of
benchmarks/report_speed.py (8 workloads x 36 ROMIO hint configurations, widened
with more cb_nodes levels when --trials needs more than 288 configurations),
--trials / 4 configurations chosen by the full sampler, 4 repeats each,
measured by its model runner (a time from the configuration with seeded noise,
no MPI) through the real campaign, worker and store; then ``iotune train``
stores a model for ``recommend``.  Each command runs as a user runs it, in a
new Python process (``python -m iotune ...``), so every figure includes the
interpreter's start and the imports.  ``--importtime`` adds, per command, the
five slowest imports (``python -X importtime``, cumulative microseconds).

A report keeps what it fitted in a cache (``IOTUNE_REPORT_CACHE``, here in the
temporary directory): ``report`` is timed after one untimed report filled it
(the same study reported again), ``report-cold`` with the cache emptied before
each run (the first report of new data).
"""

from __future__ import annotations

import argparse
import os
import shutil
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
TARGETS = {"help": 0.3, "results": 0.3, "recommend": 1.0, "report": 3.0, "report-cold": 3.0}
"""Wall seconds on a quiet machine of this kind (issue 32): --help and results over the interpreter's own start-up,
the others in all; a report of 10,000 trials 15 s."""
REPORT_10000 = 15.0


def commands(db: str, out: Path) -> dict[str, list[str]]:
    study = ["--study", STUDY, "--db", db]
    return {
        "help": ["--help"],
        "results": ["results", *study],
        "studies": ["studies", "--db", db],
        "status": ["status", *study],
        "recommend": ["recommend", *study, "--workload", WORKLOAD],
        "report": ["report", *study, "-o", str(out / "report.html")],
        "report-cold": ["report", *study, "-o", str(out / "report.html")],
        "explain": ["explain", *study],
    }


def build(db: Path, scratch: Path, trials: int) -> int:
    configurations = max(1, trials // 4)
    text = SPEC
    if configurations > 288:  # more cb_nodes levels: 8 workloads x 3 x 3 x levels x 2 configurations
        levels = -(-configurations // 144)
        text = text.replace("levels: [2, 1]", f"levels: {list(range(levels, 0, -1))}")
    spec = CampaignSpec.from_text(text, source="cli-latency.yaml").with_campaign(repeats=4, budget=configurations)
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


def timed(command: list[str], env: dict) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, from wait4) of one run of ``command``."""
    began = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - began
    child.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed")
    return wall, usage.ru_utime + usage.ru_stime


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
    parser.add_argument("--trials", type=int, default=100, help="trials of the study (4 repeats a configuration)")
    parser.add_argument("--commands", nargs="+", help="only these (default: all)")
    parser.add_argument("--importtime", action="store_true", help="also show each command's slowest imports")
    parser.add_argument("--db", type=Path, help="the study's store: built there when absent, else reused as it is "
                        "(to time two versions of iotune on one study; default: built in a temporary directory)")
    args = parser.parse_args()
    env = {**os.environ, "IOTUNE_PLAIN": "1"}
    env.pop("IOTUNE_DB", None)
    with tempfile.TemporaryDirectory(prefix="iotune-cli-latency-") as tmp:
        tmp = Path(tmp)
        env["IOTUNE_REPORT_CACHE"] = str(tmp / "report-cache")
        db = args.db.absolute() if args.db else tmp / "latency.db"
        start = time.perf_counter()
        if db.exists():
            with Store(db) as store:
                trials = len(store.trials(study=STUDY))
            made = f"reused the study of {trials} trials in {db}"
        else:
            trials = build(db, tmp, args.trials)
            iotune(["train", "--study", STUDY, "--db", str(db)], env)
            made = f"built a study of {trials} trials and trained its model in {time.perf_counter() - start:.1f} s"
        print(f"{made} (not part of the figures); {args.runs} runs of each command, interleaved with `python -c pass`; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(f"{'command':<12} {'wall s':>7} {'min s':>6} {'max s':>6} {'CPU s':>6} {'pass s':>7} {'over pass s':>11} "
              f"{'x pass':>7} {'target s':>9}" + ("  slowest imports (s, cumulative)" if args.importtime else ""))
        for name, words in commands(str(db), tmp).items():
            if args.commands and name not in args.commands:
                continue
            walls, cpus, passes = [], [], []
            if name == "report":
                timed([sys.executable, "-m", "iotune", *words], env)  # fills the cache, not timed
            for _ in range(args.runs):
                if name == "report-cold":
                    shutil.rmtree(env["IOTUNE_REPORT_CACHE"], ignore_errors=True)
                passes.append(timed([sys.executable, "-c", "pass"], env)[0])
                wall, cpu = timed([sys.executable, "-m", "iotune", *words], env)
                walls.append(wall)
                cpus.append(cpu)
            wall, start_up = statistics.median(walls), statistics.median(passes)
            target = REPORT_10000 if name.startswith("report") and trials >= 10_000 else TARGETS.get(name)
            line = (f"{name:<12} {wall:7.2f} {min(walls):6.2f} {max(walls):6.2f} {statistics.median(cpus):6.2f} "
                    f"{start_up:7.3f} {wall - start_up:11.2f} {wall / start_up:7.1f} "
                    f"{'' if target is None else f'{target:.1f}':>9}")
            if args.importtime:
                line += "  " + slowest_imports(iotune(words, env, importtime=True).stderr)
            print(line, flush=True)
        print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
