"""``iotune model ...`` and ``iotune simulate cache``: the analytic models of issue 5 from the command line.

``model lustre`` tabulates the striped-write queueing model (paper 004,
Sec. II-B), ``model lustre-search`` runs the search heuristics over paper 004's
Table IV space, ``model cache`` predicts time and cost per cache size (paper
002, Sec. III-C/D) and ``simulate cache`` compares the caching policies on a
checkpoint trace (paper 002, Sec. IV).
"""

from __future__ import annotations

import shlex

import typer

from iotune.cli.options import DB, FORMAT
from iotune.cli.terminal import Terminal, check_format

app = typer.Typer(help="Analytic performance models: Lustre queueing (You et al. 2011, paper 004), elastic cache "
                       "(Nicolae et al. 2015, paper 002).", no_args_is_help=True)
simulate_app = typer.Typer(help="Simulations of the analytic models.", no_args_is_help=True)

SIZE = typer.Option("50GB", "--size", help="Bytes written, with a unit (50GB, 4GiB).")
ARRIVAL = typer.Option(0.1, "--arrival-rate", help="lambda: requests per second arriving at each OST.")
SERVICE = typer.Option(0.125, "--service-rate", help="gamma: requests per second one OST serves.")
BANDWIDTH = typer.Option("62.5MB", "--bandwidth", help="V: bytes per second one OST writes (62.5MB = 0.5 Gbit/s).")


def _model(arrival_rate: float, service_rate: float, bandwidth: str):
    from iotune.analytic import LustreQueueModel, ModelError

    rate = _size(bandwidth, "--bandwidth")
    if rate <= 0:
        raise ModelError(f"--bandwidth must be > 0 bytes/s, got {bandwidth!r}")
    return LustreQueueModel(arrival_rate, service_rate, rate)


def _size(text: str, name: str = "--size") -> float:
    """Bytes from a size string; negative sizes get their own message."""
    from iotune.analytic import ModelError
    from iotune.analytic._validate import sizes

    if text.strip().startswith("-"):
        raise ModelError(f"{name} must not be negative, got {text!r}")
    return float(sizes(text, name))


def _numbers(text: str, name: str, kind=float) -> list:
    from iotune.analytic import ModelError

    try:
        values = [kind(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ModelError(f"{name} must be comma-separated numbers, got {text!r}") from None
    if not values:
        raise ModelError(f"{name} is empty")
    return values


def _shown_stripes(n_max: int, optima: set[int]) -> list[int]:
    """1..10, then every 10th and every 100th, plus the optima and n_max."""
    shown = set(range(1, min(n_max, 10) + 1)) | set(range(10, min(n_max, 100) + 1, 10))
    shown |= set(range(100, n_max + 1, 100)) | optima | {n_max}
    return sorted(shown)


DEGENERATE_LEVEL = 0.99
"""``model lustre`` refuses rates whose mean exceeds this quantile (a queue that almost never waits)."""


@app.command("lustre")
def lustre(size: str = SIZE, arrival_rate: float = ARRIVAL, service_rate: float = SERVICE,
           bandwidth: str = BANDWIDTH,
           max_stripes: int = typer.Option(400, "--max-stripes", help="Largest stripe count considered."),
           exact: bool = typer.Option(True, "--exact/--paper",
                                      help="Pick the optimum by the exact E[max wait] or the paper's closed form."),
           quantiles: str = typer.Option("0.5,0.9,0.99", "--quantiles", help="Completion-time quantile levels."),
           every: bool = typer.Option(False, "--all", help="One row per stripe count instead of a selection."),
           fmt: str = FORMAT) -> None:
    """Expected completion time of a striped write by stripe count: exact beside the paper's closed form."""
    import numpy as np

    from iotune.analytic import ModelError
    from iotune.analytic._validate import count

    check_format(fmt)
    model = _model(arrival_rate, service_rate, bandwidth)
    nbytes = _size(size)
    n_max = count("--max-stripes", max_stripes)
    levels = _numbers(quantiles, "--quantiles")
    if any(not 0 <= q < 1 for q in levels):
        raise ModelError(f"--quantiles must be in [0, 1), got {quantiles!r}")
    n = np.arange(1, n_max + 1)
    degenerate = [int(k) for k in n if model.mean_above_quantile(nbytes, int(k), DEGENERATE_LEVEL)]
    if degenerate:
        first = degenerate[0]
        raise ModelError(
            f"degenerate queue (rho = {model.rho:.3g}, 1/a = {1 / model.decay_rate:.3g} s): at {first} stripes the "
            f"mean {float(model.completion_time(nbytes, first)):.4g} s exceeds the q99 "
            f"{float(model.completion_time_quantile(nbytes, first, DEGENERATE_LEVEL)):.4g} s, carried by waits rarer "
            "than 1 in 100; such rates come from a fit that left no queue: give rates with rho above 0.01")
    exact_t = model.completion_time(nbytes, n, exact=True)
    paper_t = model.completion_time(nbytes, n, exact=False)
    best_exact = model.optimal_stripe_count(nbytes, n_max, exact=True)
    best_paper = model.optimal_stripe_count(nbytes, n_max, exact=False)
    best = best_exact if exact else best_paper
    shown = list(n) if every else _shown_stripes(n_max, {best_exact, best_paper})
    q_columns = [f"q{q * 100:g} (s)" for q in levels]
    rows = []
    for k in shown:
        quant = [round(float(model.completion_time_quantile(nbytes, int(k), q)), 4) for q in levels]
        e, p = float(exact_t[k - 1]), float(paper_t[k - 1])
        rows.append([int(k), round(e, 4), round(p, 4), round(p - e, 4), *quant, bool(k == best)])
    columns = ["stripes", "T exact (s)", "T paper (s)", "paper - exact (s)", *q_columns, "optimum"]
    terminal = Terminal()
    form = "exact" if exact else "paper"
    terminal.emit(columns, rows, fmt, title=f"{nbytes:.6g} bytes over n OSTs, rho = {model.rho:.4g} "
                                            f"(You et al. 2011, paper 004, Sec. II-B; optimum by the {form} form)")
    terminal.info(f"optimum (exact): {best_exact} stripes, {float(exact_t[best_exact - 1]):.4f} s; "
                  f"optimum (paper closed form): {best_paper} stripes, {float(paper_t[best_paper - 1]):.4f} s")


@app.command("striping")
def striping(study: str = typer.Option(..., "--study", "-s", help="The study whose runs calibrate the model, or whose "
                                                                    "calibrated model ranks layouts."),
             calibrate: bool = typer.Option(False, "--calibrate", help="Fit the placement model to the study's runs "
                                                                       "and store it in the study."),
             workload: str = typer.Option(None, "--workload", "-w", help="Rank the study's layouts for this workload "
                                          "(name=value pairs: processes, block_size, segment_count, file_per_process; "
                                          "the spec gives the rest); measured or not."),
             servers: int = typer.Option(None, "--servers", help="Storage servers (OSDs/OSTs) the runs wrote to "
                                                                   "(default: the spec's cephfs devices)."),
             replicas: int = typer.Option(1, "--replicas", help="Copies of each object the data pool keeps."),
             placement: str = typer.Option("crush", "--placement",
                                           help="crush (CephFS: objects on random servers) or round-robin (Lustre)."),
             name: str = typer.Option("striped-placement", "--name", help="Name of the stored model."),
             top: int = typer.Option(10, "--top", help="Layouts shown when ranking."),
             fmt: str = FORMAT, db: str = DB) -> None:
    """Time of a striped write from its busiest server's load under the file system's placement (issue 33):
    calibrate it on a study's runs, or rank layouts for a workload with the calibrated model."""
    from iotune.analytic import ModelError
    from iotune.analytic.striped_fit import fit_striped
    from iotune.analytic.striped_study import load_model, rank_layouts, save_model, servers_of, study_runs
    from iotune.profile import workload_values_from
    from iotune.store import Store
    from iotune.stored import StoredStudy

    check_format(fmt)
    if calibrate == (workload is not None):
        raise ModelError("give --calibrate (fit the model to the study's runs) or --workload (rank layouts with the "
                         "model calibrated before)")
    terminal = Terminal()
    with Store(db, create=False) as store:
        opened = StoredStudy.open(store, study)
        if calibrate:
            runs = study_runs(opened)
            count = servers if servers is not None else servers_of(opened)
            if count is None and all(r.write.servers for r in runs):  # the study varies its servers (devices)
                count = max(int(r.write.servers or 0) for r in runs)
            if count is None:
                raise ModelError(f"study {study!r} does not say how many storage servers it wrote to: give --servers")
            file_system = "lustre" if placement == "round-robin" else "cephfs"
            model = fit_striped([(r.write, r.seconds) for r in runs], servers=count, replicas=replicas,
                                placement=placement, file_system=file_system)
            save_model(opened, model, name)
            fit = model.fit_ or {}
            rows = [["bandwidth per server (MB/s)", round(model.bandwidth / 1e6, 4)],
                    ["overhead t0 (s)", round(model.overhead_s, 4)],
                    ["per stripe-unit piece (ms)", round(model.piece_s * 1e3, 4)],
                    ["per object (ms)", round(model.object_s * 1e3, 4)],
                    ["client bandwidth", fit.get("client", "")],
                    ["noise sigma (log)", round(model.sigma, 4)],
                    ["queue (paper 004)", fit.get("queue", "")],
                    ["runs", fit.get("runs")], ["distinct writes", fit.get("layouts")],
                    ["Spearman rho of mean times", fit.get("spearman")], ["R^2 of mean times", fit.get("r2_means")],
                    ["runs inside the 10-90% band", fit.get("band_10_90")],
                    ["at zero", ", ".join(fit.get("at_zero", [])) or "-"]]
            terminal.emit(["quantity", "value"], rows, fmt,
                          title=f"placement model fitted to {len(runs)} runs of {study} ({count} servers, "
                                f"{replicas} replica(s), {placement})")
            terminal.success(f"stored as model {name!r} of study {study!r}; rank layouts with "
                             f"`iotune model striping --study {shlex.quote(study)} --workload processes=N` or "
                             f"`iotune recommend --study {shlex.quote(study)} --model {shlex.quote(name)} ...`")
            return
        model = load_model(store, study, name)
        values, _ = workload_values_from(workload)
        show_ranked(terminal, rank_layouts(model, opened.space, opened.spec.benchmark, values), values, top, fmt)


def show_ranked(terminal, ranked, values: dict, top: int, fmt: str) -> None:
    """The ranked layouts of :func:`iotune.analytic.striped_study.rank_layouts` as a table."""
    extra = [k for k in ("pool", "servers") if any(k in r.layout for r in ranked)]
    rows = [[i + 1, r.layout["stripe_count"], r.layout["stripe_unit"], r.layout["object_size"],
             *(r.layout.get(k) for k in extra), round(r.mean_s, 4), round(r.low_s, 4), round(r.high_s, 4)]
            for i, r in enumerate(ranked[:max(top, 1)])]
    terminal.emit(["rank", "stripe_count", "stripe_unit", "object_size", *extra, "mean (s)", "q10 (s)", "q90 (s)"],
                  rows, fmt,
                  title=f"layouts for {' '.join(f'{k}={v}' for k, v in values.items())}: predicted by the placement "
                        "model (busiest server's load, issue 33)")
    terminal.info("a model's prediction, not a measurement: the 10-90% band is where single runs fall, spread by where "
                  "the file's objects land")


SEARCH_STRATEGIES = ("random", "lhs", "nelder-mead", "annealing", "genetic", "pso")


@app.command("lustre-search")
def lustre_search(strategy: str = typer.Option("all", "--strategy",
                                               help="all, random, lhs, nelder-mead, annealing, genetic or pso."),
                  budget: int = typer.Option(200, "--budget", help="Distinct model evaluations per strategy."),
                  seed: int = typer.Option(0, "--seed", help="Seed of the strategies."),
                  size: str = SIZE, arrival_rate: float = ARRIVAL, service_rate: float = SERVICE,
                  bandwidth: str = BANDWIDTH,
                  max_stripes: int = typer.Option(160, "--max-stripes", help="Largest stripe count (Table IV: 160)."),
                  fmt: str = FORMAT) -> None:
    """Search the Table IV space of You et al. 2011 (paper 004) with each heuristic; compare with the exhaustive
    optimum."""
    from iotune.analytic._validate import count
    from iotune.analytic.lustre_space import DIMENSIONS, LustreObjective, lustre_space
    from iotune.samplers import SamplerError, make_sampler, optimize

    check_format(fmt)
    names = list(SEARCH_STRATEGIES) if strategy == "all" else [strategy]
    if any(name not in SEARCH_STRATEGIES for name in names):
        raise SamplerError(f"--strategy must be all or one of {', '.join(SEARCH_STRATEGIES)}, got {strategy!r}")
    if budget < 1:
        raise SamplerError(f"--budget must be a whole number >= 1, got {budget}")
    space = lustre_space(count("--max-stripes", max_stripes))
    objective = LustreObjective(_model(arrival_rate, service_rate, bandwidth), _size(size))
    best_point, best_value, points = objective.exhaustive(space)
    rows = [["exhaustive", *best_point.values(), round(best_value, 4), points, points, 0.0]]
    for name in names:
        result = optimize(make_sampler(name, space, seed=seed, budget=budget), objective)
        within = next((i + 1 for i, (_, v) in enumerate(result.history) if v <= 1.01 * best_value), None)
        gap = 100.0 * (result.best_value - best_value) / best_value
        best = result.best if result.best is not None else {}  # None: the sampler proposed nothing
        rows.append([name, *(best.get(d) for d in DIMENSIONS), round(result.best_value, 4), result.evaluations,
                     within, round(gap, 4)])
    columns = ["strategy", *DIMENSIONS, "T (s)", "evaluations", "evals to 1%", "gap %"]
    Terminal().emit(columns, rows, fmt, title=f"{size} written: search over {points} points (You et al. 2011, "
                                              "paper 004, Table IV; objective: the queueing model above)")


ILLUSTRATIVE = {
    "dataset_gb": [1.0, 4.0, 8.0],
    "cache_gb": [1.0, 2.0, 4.0, 8.0, 10.0],
    "throughput_mbps": [[128, 128, 128, 128, 128], [57, 81, 128, 128, 128], [45, 57, 81, 128, 128]],
    "attach_s": [[40, 40, 40, 40, 40], [70, 90, 130, 130, 130], [120, 150, 200, 250, 250]],
}
"""Illustrative B_M(x) (MB/s) and D_M(x) (s) for ``model cache``: plausible shapes, not measurements."""


def _calibration(path: str | None):
    from iotune.analytic.cache_model import CalibrationTable
    from iotune.analytic.errors import ModelError

    data, label = ILLUSTRATIVE, "built-in ILLUSTRATIVE calibration (not measured)"
    if path is not None:
        import yaml

        try:
            with open(path, encoding="utf-8") as stream:
                data = yaml.safe_load(stream)
        except (OSError, yaml.YAMLError) as error:
            raise ModelError(f"cannot read calibration {path}: {error}") from None
        keys = ("dataset_gb", "cache_gb", "throughput_mbps", "attach_s")
        if not isinstance(data, dict) or any(k not in data for k in keys):
            raise ModelError(f"calibration {path} must be a mapping with keys {', '.join(keys)}")
        label = f"calibration {path}"
    throughput = CalibrationTable(data["dataset_gb"], data["cache_gb"], data["throughput_mbps"], quantity="B")
    attach = CalibrationTable(data["dataset_gb"], data["cache_gb"], data["attach_s"], quantity="D")
    return throughput, attach, label


AGBS = ("AGBs: adjusted GB-seconds, the storage cost of Nicolae et al. 2015 (paper 002): each disk costs its "
        "reserved bandwidth (MB/s) x its size (GB) per second attached, summed over the run")
"""What an AGBs is, for every command that prints one."""


@app.command("cache")
def cache(compute_s: float = typer.Option(..., "--compute-s", help="I*It: seconds of computation."),
          checkpoints: int = typer.Option(..., "--checkpoints", help="K: number of checkpoints."),
          checkpoint_gb: float = typer.Option(..., "--checkpoint-gb", help="S_c: GB per checkpoint per VM."),
          deadline: float = typer.Option(..., "--deadline", help="T_max: seconds the run may take."),
          cache_sizes: str = typer.Option("2,4,6,8", "--cache-sizes", help="Candidate M(S_c) in GB."),
          calibration: str = typer.Option(None, "--calibration",
                                          help="YAML with dataset_gb, cache_gb, throughput_mbps, attach_s "
                                               "(default: built-in illustrative numbers)."),
          n_vm: int = typer.Option(1, "--vms", help="n: number of VMs."),
          initial_gb: float = typer.Option(0.0, "--initial-gb", help="S_i: GB dumped once at start per VM."),
          backing_mbps: float = typer.Option(33.0, "--backing-mbps", help="B_b: backing disk MB/s."),
          backing_gb: float = typer.Option(50.0, "--backing-gb", help="N: backing disk GB."),
          cache_mbps: float = typer.Option(128.0, "--cache-mbps", help="B_c: caching device MB/s."),
          fmt: str = FORMAT) -> None:
    """Predicted completion time and cost per cache size, and the cheapest meeting the deadline (Nicolae et al.
    2015, paper 002, III-D)."""
    from iotune.analytic.cache_model import CheckpointWorkload, best_cache_size, sweep_cache_sizes

    check_format(fmt)
    throughput, attach, label = _calibration(calibration)
    workload = CheckpointWorkload(n_vm, compute_s, checkpoints, initial_gb, checkpoint_gb)
    sizes = _numbers(cache_sizes, "--cache-sizes")
    predictions = sweep_cache_sizes(workload, backing_mbps, backing_gb, cache_mbps, throughput, attach, sizes,
                                    initial_cache_gb=max(sizes))
    terminal = Terminal()
    choice = best_cache_size(predictions, deadline)
    rows = [[p.cache_gb, round(p.completion_s, 3), round(p.cost_agbs, 1), p.completion_s <= deadline,
             p is choice] for p in predictions]
    terminal.emit(["cache GB", "T (s)", "cost (AGBs)", "meets deadline", "chosen"], rows, fmt,
                  title=f"Nicolae et al. 2015 (paper 002), Sec. III-C/D, T_max = {deadline:g} s; {label}")
    terminal.info(f"{label}; cheapest cache meeting T_max = {deadline:g} s: {choice.cache_gb:g} GB "
                  f"(T = {choice.completion_s:.6g} s, C_a = {choice.cost_agbs:.6g} AGBs)")
    terminal.info(AGBS)


@simulate_app.command("cache")
def simulate_cache(trace: str = typer.Option("cm1", "--trace",
                                             help="cm1 or lammps (Nicolae et al. 2015, paper 002, Sec. IV-C/D)."),
                   dt: float = typer.Option(0.1, "--dt", help="Time step, seconds."),
                   fmt: str = FORMAT) -> None:
    """Completion time and adjusted GB-seconds per caching policy on a checkpoint trace (Nicolae et al. 2015,
    paper 002, Sec. IV)."""
    from iotune.analytic.cache_sim import cm1_trace, compare_policies, lammps_trace
    from iotune.analytic.errors import ModelError

    check_format(fmt)
    traces = {"cm1": cm1_trace, "lammps": lammps_trace}
    if trace not in traces:
        raise ModelError(f"--trace must be one of {', '.join(traces)}, got {trace!r}")
    results = compare_policies(traces[trace](), dt=dt)
    rows = [[r.policy, round(r.completion_s, 3), round(r.end_s, 3), round(r.cost_agbs, 1),
             ",".join(f"{s:g}" for s in r.cache_sizes_gb)] for r in results.values()]
    Terminal().emit(["policy", "completion (s)", "end (s)", "cost (AGBs)", "cache sizes (GB)"], rows, fmt,
                    title=f"{trace} per VM, the paper's default cache policy settings "
                          "(Nicolae et al. 2015, paper 002, Sec. IV-A)")
    Terminal().info(AGBS)


@app.command("calibrate")
def calibrate(datasets: str = typer.Option("16,32,64", "--datasets", help="Dataset sizes x in MiB (paper: GB)."),
              caches: str = typer.Option("32,64,128", "--caches", help="Cache disk sizes M in MiB (paper: GB)."),
              slow_mbps: float = typer.Option(33.0, "--slow-mbps", help="B_b: backing disk limit, MB/s."),
              fast_mbps: float = typer.Option(128.0, "--fast-mbps", help="B_c: cache disk limit, MB/s."),
              repeats: int = typer.Option(2, "--repeats", help="Measurements per (x, M)."),
              output: str = typer.Option(None, "--output",
                                         help="Write the YAML that 'model cache --calibration' reads."),
              fmt: str = FORMAT) -> None:
    """Measure B_M(x) and D_M(x) with dd on throttled loop disks (Nicolae et al. 2015, paper 002, Sec. III-C/D;
    needs root)."""
    from iotune.analytic.calibration import measure_calibration

    check_format(fmt)
    result = measure_calibration(_numbers(datasets, "--datasets", int), _numbers(caches, "--caches", int),
                                 slow_mbps, fast_mbps, repeats)
    if output is not None:
        from iotune.output import write_output

        write_output(output, result.to_yaml(), "calibration")
    b, d = result.throughput(), result.attach()
    fast, slow = result.fast_mbps_measured(), result.slow_mbps_measured()
    rows = []
    for i, x in enumerate(result.dataset_mib):
        for j, m in enumerate(result.cache_mib):
            cached = [s.cached_mib for s in result.samples if (s.dataset_mib, s.cache_mib) == (x, m)]
            rows.append([x, m, min(cached), round(float(b.values[i, j]), 2), round(float(d.values[i, j]), 3),
                         round(fast[x], 2) if x in fast else None, round(slow[x], 2)])
    terminal = Terminal()
    terminal.emit(["dataset MiB", "cache MiB", "cached MiB", "B_M(x) MB/s", "D_M(x) s", "fast B(x) MB/s",
                   "slow B(x) MB/s"], rows, fmt,
                  title=f"calibration measured on loop disks at {slow_mbps:g} / {fast_mbps:g} MB/s, "
                        f"mean of {repeats} (Nicolae et al. 2015, paper 002, Sec. III-C/D, scaled GB -> MiB)")
    if output is not None:
        terminal.info(f"wrote {output}: use it with `iotune model cache --calibration {shlex.quote(str(output))}` "
                      "(sizes in GB = MiB/1024)")
