"""Does `iotune tune --budget 8 -- mpiexec -n 2 KERNEL` (objective: the kernel's I/O time measured inside it by
iotune's PMPI library) pick what a many-repeat truth of the same kernel says is fastest? (issue 30)

The kernel is the project's MPI-IO checkpoint kernel (tests/apps/checkpoint_mpiio.py: ranks write interleaved
4 KiB pieces of a checkpoint file per step through a file view, collectively), or with ``--kernel hdf5`` its HDF5
one (tests/apps/checkpoint_hdf5.py: 8 datasets of particles per step, parallel h5py; ``--python`` a Python with
parallel h5py, whose ``mpiexec`` runs it). The space is romio_cb_write x cb_buffer_size (9 configurations), the
hints applied at MPI_File_open by the PMPI library, none in the environment.  With ``--space small`` the space is the
2 x 2 romio_cb_write {automatic, enable} x cb_buffer_size {16 MiB, 64 KiB}: as many configurations as a budget of 8
has search runs (its last 60 % race the best against the default), so the search measures every one of them, and
ROMIO's default beside the settings that cost in the full space; ``--space flat`` is a 2 x 2 whose configurations
all lie within the noise of each other here ({automatic, disable} x {16 MiB, 1 MiB}).

- truth: every configuration run ``--rounds`` times, in rounds (each round every configuration once, in a shuffled
  order), each run's PMPI I/O time kept; a configuration's figure is the geometric mean of its runs, and the
  truth's tied set is every configuration whose log-times a Welch t-test (95 %) cannot separate from the fastest's;
- tunings: ``--tunings`` independent `iotune tune --budget 8` (fresh store each, seeds 0, 1, ...), run between the
  truth's rounds so that both see the same machine; each tuning's answer is looked up in the truth.

Prints the truth table, each tuning's pick with its truth rank and regret (truth time of the pick / truth time of
the fastest), and the machine's load before and after.  A tuning *agrees* with the truth when what it says holds
there: its gain over the default (a 95 % interval) covers the truth's gain of its pick over the same default (the
ratio of their geometric means; a tuning whose pick is the default states no gain); no configuration it measured
and said its pick beats (left out of ``tied_with_best``: the pick and what its runs cannot tell from it) is faster
in the truth; and its tied set holds the truth's fastest when it measured it (a budget smaller than the space says
nothing of what it did not run; how often it ran the truth's fastest is printed beside).  The stronger bar, its
pick in the truth's tied set, is printed beside too.  ``--out`` keeps the truth's runs and every tuning's summary
as JSON, ``--report`` analyses such a file again.  Beside: how many tunings kept the default, decided, and said
undecided with the budget they said a decision would take (``race.budget_to_decide``), against the budget the
truth's own paired noise and the truth's ratio of the tuning's two racers say.  ``--budget 0`` runs each tuning
without ``--budget`` (tune's own: 8 runs, then on to a decision, at most 60).

    .venv/bin/python benchmarks/app_pmpi_truth.py [--rounds 10] [--tunings 5] [--budget 8]
        [--kernel mpiio|hdf5] [--python PYTHON] [--space full|small|flat]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scipy.stats import ttest_ind

from iotune.apply.command import execute
from iotune.apply.pmpi import library
from iotune.samplers.race import MIN_DECIDING_ROUNDS, reserve_for
from iotune.spec import CampaignSpec
from iotune.store import Store
from iotune.study import Study
from iotune.study.tune import AUTO_FIRST_BUDGET
from iotune.variability.estimate import Run, estimate, runs_needed

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
KERNELS = {"mpiio": (REPO / "tests" / "apps" / "checkpoint_mpiio.py",
                     ["--steps", "4", "--piece", "4096", "--pieces", "2048", "--sleep", "0.2"]),
           "hdf5": (REPO / "tests" / "apps" / "checkpoint_hdf5.py",
                    ["--steps", "2", "--particles", str(1 << 18), "--sleep", "0.2"])}
SPACES = {"full": (("automatic", "enable", "disable"), ("64KiB", "1MiB", "16MiB")),
          "small": (("automatic", "enable"), ("16MiB", "64KiB")),
          "flat": (("automatic", "disable"), ("16MiB", "1MiB"))}
"""(romio_cb_write levels, cb_buffer_size levels); the first of each is the spec's default (in the small space,
ROMIO's own)."""
BYTES = {"64KiB": 65536, "1MiB": 1 << 20, "16MiB": 16 << 20}


def spec_text(cb_write: tuple[str, ...], cb_buffer: tuple[str, ...]) -> str:
    return f"""
name: ckpt
parameters:
  - {{name: processes, type: integer, levels: [2], role: workload, layer: application}}
  - {{name: romio_cb_write, type: categorical, levels: [{", ".join(cb_write)}], role: system, layer: mpiio}}
  - {{name: cb_buffer_size, type: size, levels: [{", ".join(cb_buffer)}], role: system, layer: mpiio}}
benchmark: {{api: MPIIO, block_size: 1MiB}}
"""


def clean_environ() -> dict:
    return {k: v for k, v in os.environ.items()
            if k not in ("ROMIO_HINTS", "MPICH_MPIIO_HINTS") and not k.startswith("IOR_HINT__")}


def kernel_command(args, output: Path) -> list[str]:
    kernel, options = KERNELS[args.kernel]
    python = Path(args.python)
    return [str(python.parent / "mpiexec"), "-n", "2", str(python), str(kernel), str(output), *options]


def truth_round(args, lib: Path, work: Path, rng: random.Random, times: dict) -> None:
    configurations = list(times)
    rng.shuffle(configurations)
    for write, buffer in configurations:
        hints = {"romio_cb_write": write, "cb_buffer_size": str(BYTES[buffer])}
        run = execute(kernel_command(args, work / "truth"), hints, {}, environ=clean_environ(), pmpi=lib,
                      log_dir=work, stdout_to_stderr=True)
        if run.returncode != 0 or run.pmpi is None:
            raise SystemExit(f"truth run of {hints} failed: {run.pmpi_error or run.returncode}")
        times[(write, buffer)].append(run.pmpi.io_seconds)


def tuning(args, seed: int, work: Path) -> dict:
    directory = Path(tempfile.mkdtemp(prefix=f"tune{seed}-", dir=work))
    url = str(directory / "iotune.db")
    with Store(url) as store:
        Study.create(store, "ckpt", CampaignSpec.from_text(spec_text(*SPACES[args.space])))
    budget = ["--budget", str(args.budget)] if args.budget else []
    command = [str(BIN / "iotune"), "tune", "--study", "ckpt", "--db", url, *budget, "--seed", str(seed),
               "--format", "json", "--scratch", str(directory / "scratch"), "--",
               *kernel_command(args, directory / "ck")]
    done = subprocess.run(command, capture_output=True, text=True, env=clean_environ(), timeout=1200)
    if done.returncode != 0:
        raise SystemExit(f"tuning {seed} failed: {done.stderr[-2000:]}")
    summary = json.loads(done.stdout[done.stdout.index("{"):])
    if not summary["measured"].startswith("I/O time measured inside the application by iotune's PMPI library"):
        raise SystemExit(f"tuning {seed} measured {summary['measured']!r}")
    return summary


def key_of(configuration: dict | None) -> tuple[str, str] | None:
    if configuration is None:
        return None
    return configuration["romio_cb_write"], next(b for b in BYTES if BYTES[b] == configuration["cb_buffer_size"])


def gain_agrees(summary: dict, pick: tuple[str, str], means: dict) -> bool | None:
    """Whether the tuning's stated gain over its default covers the truth's gain of the pick over that default
    (None: the pick is the default, no gain stated)."""
    default = key_of(summary["default"]["configuration"]) if summary.get("default") else None
    if default is None or default == pick:
        return None
    stated = summary.get("gain_vs_default") or {}
    interval = stated.get("interval_95")
    return interval is not None and interval[0] <= means[default] / means[pick] <= interval[1]


def truth_budget(times: dict, summary: dict, budget: int) -> int | None:
    """The budget the tuning's race would need to decide (the ratio's interval off 1, as ``budget_to_decide``) at
    the truth's own paired noise (the residual of log time = configuration + round over its rounds) and the
    truth's ratio of its two racers (the tuned one and the default), counted as the tuning counts it
    (``Race.more_needed``: the search runs, then 2 racers a round); None: no such pair."""
    racers = {key_of(step["configuration"]) for step in summary["history"] if step["reason"].startswith("race round")}
    if len(racers) != 2:
        return None
    first, second = racers
    gain = abs(math.log(geometric_mean(times[first]) / geometric_mean(times[second])))
    rounds = max(MIN_DECIDING_ROUNDS, runs_needed(estimate_of_truth(times), gain, comparisons=2, racers=2))
    return budget - reserve_for(budget) + 2 * rounds


def estimate_of_truth(times: dict):
    """The truth's paired noise: the residual of log time = configuration + round over its rounds."""
    return estimate([Run(f"{w} {b}", value, number) for (w, b), values in times.items()
                     for number, value in enumerate(values)]).paired_noise


def geometric_mean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--tunings", type=int, default=5)
    parser.add_argument("--budget", type=int, default=8, help="each tuning's --budget; 0: none (tune's own, to a "
                        "decision)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kernel", choices=sorted(KERNELS), default="mpiio")
    parser.add_argument("--python", default=sys.executable, help="the Python that runs the kernel (its mpiexec too)")
    parser.add_argument("--out", type=Path, default=None, help="the truth's runs and the tunings' summaries, JSON")
    parser.add_argument("--report", type=Path, default=None, metavar="JSON", help="analyse a run --out kept, run "
                        "nothing")
    parser.add_argument("--space", choices=sorted(SPACES), default="full", help="full: 3 x 3; small, flat: 2 x 2 "
                        "spaces a budget of 8 searches whole (module docstring)")
    args = parser.parse_args()
    if args.report:
        record = json.loads(args.report.read_text())
        record.setdefault("seconds", 0.0)
        return analyse(record)
    cb_write, cb_buffer = SPACES[args.space]
    lib = library(kernel_command(args, Path("x")))
    load_before = os.getloadavg()
    started = time.perf_counter()
    rng = random.Random(args.seed)
    times: dict[tuple[str, str], list[float]] = {(w, b): [] for w in cb_write for b in cb_buffer}
    summaries = []
    with tempfile.TemporaryDirectory(prefix="iotune-pmpi-truth-") as scratch:
        work = Path(scratch)
        for step in range(max(args.rounds, args.tunings)):
            if step < args.rounds:
                truth_round(args, lib, work, rng, times)
            if step < args.tunings:
                summaries.append(tuning(args, step, work))
            print(f"step {step + 1}: {min(step + 1, args.rounds)} truth round(s), {len(summaries)} tuning(s), "
                  f"load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    load_after = os.getloadavg()
    record = {"args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
              "load": [load_before, load_after], "truth": [[*key, values] for key, values in times.items()],
              "tunings": summaries, "seconds": time.perf_counter() - started}
    if args.out:
        args.out.write_text(json.dumps(record, indent=1))
    analyse(record)


def analyse(record: dict) -> None:
    """The truth's table, each tuning against it, and the agreement (module docstring), from a run's record (what
    ``--out`` keeps)."""
    args = argparse.Namespace(**record["args"])
    times = {(w, b): values for w, b, values in record["truth"]}
    summaries = record["tunings"]
    (load_before, load_after), started = record["load"], time.perf_counter() - record["seconds"]
    means = {key: geometric_mean(values) for key, values in times.items()}
    ranked = sorted(means, key=means.get)
    fastest = ranked[0]
    logs = {key: [math.log(v) for v in values] for key, values in times.items()}
    tied = {key for key in ranked if key == fastest
            or ttest_ind(logs[key], logs[fastest], equal_var=False).pvalue >= 0.05}
    print(f"truth: {args.rounds} interleaved rounds of {len(times)} configurations, PMPI I/O time (s), "
          f"kernel {KERNELS[args.kernel][0].name} {' '.join(KERNELS[args.kernel][1])}")
    print(f"{'rank':>4}  {'romio_cb_write':<14} {'cb_buffer_size':<14} {'geo mean s':>10} {'median s':>9} "
          f"{'min..max s':>15}  tied with fastest")
    for rank, key in enumerate(ranked, 1):
        values = times[key]
        print(f"{rank:>4}  {key[0]:<14} {key[1]:<14} {means[key]:>10.4f} {statistics.median(values):>9.4f} "
              f"{min(values):>7.4f}..{max(values):<7.4f}  {'yes' if key in tied else 'no'}")
    agreed, covered, regrets, gains, agreements, tied_sizes, widths, honest, found = 0, 0, [], [], 0, [], [], 0, 0
    kept, undecided, to_decide, truth_decides = 0, 0, [], []
    first = args.budget or AUTO_FIRST_BUDGET
    print(("tunings: no --budget (8 runs, then on to a decision, at most 60 runs; " if not args.budget else
           f"tunings: budget {args.budget} (") + f"{first - reserve_for(first)} search runs, then the race), "
          "fresh store each")
    for seed, summary in enumerate(summaries):
        key = key_of(summary["best"]["configuration"])
        claimed = {key_of(c) for c in summary["tied_with_best"]} | {key}
        measured = {key_of(step["configuration"]) for step in summary["history"]}
        beaten_but_faster = {k for k in measured - claimed if means[k] < means[key]}
        regret = means[key] / means[fastest]
        gain = gain_agrees(summary, key, means)
        agreed += key in tied
        covered += fastest in claimed
        tied_sizes.append(len(claimed))
        gains.append(gain)
        agreements += gain is not False and not beaten_but_faster and (fastest in claimed or fastest not in measured)
        honest += not beaten_but_faster
        found += fastest in measured
        regrets.append(regret)
        default = key_of(summary["default"]["configuration"]) if summary.get("default") else None
        kept += key == default
        said_undecided = any(note.startswith("undecided:") for note in summary["notes"])
        undecided += said_undecided
        budget_to_decide = summary["race"].get("budget_to_decide")
        if budget_to_decide:
            to_decide.append(budget_to_decide)
            truth_decides.append(truth_budget(times, summary, first))
        said = "separated from the runner-up" if summary["separated_from_runner_up"] else \
            "not separated from the runner-up"
        stated = summary.get("gain_vs_default") or {}
        interval = stated.get("interval_95")
        if gain is not None and interval:
            widths.append(interval[1] / interval[0])
        gain_text = "no gain stated (the pick is the default)" if gain is None else \
            (f"gain over {default[0]} {default[1]} stated {stated.get('ratio', 0):.2f}x "
             + (f"[{interval[0]:.2f}, {interval[1]:.2f}]" if interval else "(no interval)")
             + f", truth {means[default] / means[key]:.2f}x: {'covered' if gain else 'NOT covered'}")
        print(f"  seed {seed}: picked {key[0]} {key[1]} (tuning's mean {summary['best']['mean']:.4f} s over "
              f"{summary['best']['runs']} run(s), {said}, race {summary['race']['rounds']} round(s)); truth rank "
              f"{ranked.index(key) + 1}, regret {regret:.3f}x, {'in' if key in tied else 'NOT in'} the truth's tied "
              f"set; measured {len(measured)}{' with' if fastest in measured else ' without'} the truth's fastest, "
              f"tied set of {len(claimed)}, {len(beaten_but_faster)} said beaten but faster in the truth; "
              f"{gain_text}; " + (f"said undecided, --budget {budget_to_decide} would decide" if said_undecided
                                  else "decided" if summary["race"]["decided"] else "not said undecided"))
    stated = [g for g in gains if g is not None]
    print(f"agreement: {agreements}/{len(summaries)} tunings agree with the truth (every statement true: gain "
          f"covering, none said beaten but faster, the truth's fastest in the tied set when measured); "
          f"{agreed}/{len(summaries)} picks in the truth's tied set ({len(tied)} of {len(times)} configurations); "
          f"{sum(stated)}/{len(stated)} stated gains cover the truth's (interval high/low "
          f"{statistics.median(widths) if widths else float('nan'):.1f}x at the median); "
          f"{honest}/{len(summaries)} said beaten no configuration faster in the truth; tied sets of "
          f"{statistics.median(tied_sizes):g} configuration(s) at the median; {found}/{len(summaries)} measured the "
          f"truth's fastest, {covered}/{len(summaries)} have it in their tied set; "
          f"median regret {statistics.median(regrets):.3f}x, worst "
          f"{max(regrets):.3f}x; the slowest configuration is {means[ranked[-1]] / means[fastest]:.2f}x the fastest; "
          f"{kept}/{len(summaries)} kept the default; {sum(t['race']['decided'] for t in summaries)}/{len(summaries)} "
          f"decided, in {statistics.median(t['runs'] for t in summaries):g} runs at the median (most "
          f"{max(t['runs'] for t in summaries)}); {undecided}/{len(summaries)} said undecided, the budget a "
          "decision would take " + (f"{statistics.median(to_decide):g} at the median ({min(to_decide)}-"
                                     f"{max(to_decide)}); at the truth's paired noise "
                                     f"({estimate_of_truth(times).source.split(',')[0]}) and gains, "
                                     f"{statistics.median(t for t in truth_decides if t is not None):g} at the median"
                                     if to_decide else "not stated"))
    print(f"load average (1, 5, 15 min) before {load_before[0]:.1f} {load_before[1]:.1f} {load_before[2]:.1f}, "
          f"after {load_after[0]:.1f} {load_after[1]:.1f} {load_after[2]:.1f}; {os.cpu_count()} CPUs; "
          f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
