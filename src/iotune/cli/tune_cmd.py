"""``iotune tune``: the best configuration of one workload within a budget of real runs, and how sure it is."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import typer

from iotune.apply.launch import SHORT
from iotune.cli.common import executor_job, prepare_scratch, runner_and_storage
from iotune.cli.options import (
    DB,
    EXECUTOR,
    GRACE,
    JOB_SETUP,
    MPIEXEC,
    NODES_PER_TRIAL,
    PARTITION,
    PRIOR_STUDY,
    REPLAY_SCALE,
    RUNNER,
    SBATCH_OPTION,
    TIME_LIMIT,
    WORKERS,
    WORKLOAD,
)
from iotune.cli.terminal import Terminal, check_format
from iotune.errors import IotuneError


def tune(spec: Path | None = typer.Argument(None, help="Campaign spec whose benchmark to tune (omit it to tune a "
                                                        "command given after --, with --study)."),
         command: list[str] = typer.Argument(None, help="The application to tune, after --."),
         budget: int = typer.Option(None, "--budget", "-b", help="Runs to spend (the default configuration counts). "
                                    "Without it: 8 runs, then on to what the race says a decision needs at the "
                                    "noise it measured, at most 60 runs.", min=1),
         objective: str = typer.Option("time", "--objective", help="time, bandwidth or cost."),
         pricing: Path = typer.Option(None, "--pricing", help="Pricing YAML for --objective cost (default: the "
                                      "packaged illustrative prices); the tuner uses each configuration's price "
                                      "exactly."),
         instances: int = typer.Option(None, "--instances", help="Compute instances billed per run under "
                                       "--objective cost, when the space has no processes parameter to derive "
                                       "them from.", min=1),
         workload: str = WORKLOAD,
         study: str = typer.Option(None, "--study", "-s", help="Study holding the runs (default: the spec's name; "
                                                               "with a command: the study whose space to tune)."),
         prior: list[str] = PRIOR_STUDY,
         seed: int = typer.Option(0, "--seed", help="Seed of the tuner's draws."),
         no_baseline: bool = typer.Option(False, "--no-baseline", help="Skip measuring the default first; no gain "
                                          "against the default is stated then."),
         precision: float = typer.Option(None, "--precision", metavar="FRACTION", help="Race until the gain is "
                                         "known to within this fraction (0.1: ±10%), as well as decided, or the "
                                         "budget ends. Default 0.2.", min=0.001, max=5.0),
         no_race: bool = typer.Option(False, "--no-race", help="Spend every run on the search: no race at the "
                                      "end re-runs the best and the default to confirm the gain."),
         baseline: str = typer.Option(None, "--baseline", metavar="SETTINGS", help="What the gain is stated "
                                      "against: 'romio' (ROMIO's own defaults, read with MPI_File_get_info from a "
                                      "file opened with no hints), 'filesystem' (the layout a new file in the "
                                      "scratch directory gets) or system_parameter=value pairs (the others at "
                                      "their defaults). Default: the spec's defaults."),
         scratch: Path = typer.Option(None, "--scratch", help="Directory the benchmark writes into."),
         runner: str = RUNNER,
         timeout: float = typer.Option(600.0, "--timeout", help="Seconds before a run is killed and failed."),
         fmt: str = typer.Option("table", "--format", "-f", help="table or json (a summary on stdout)."),
         resume: bool = typer.Option(False, "--resume", help="With --executor slurm: re-attach to the study's "
                                     "Slurm job while it runs (a tuning always continues from its runs in the store; "
                                     "runs in flight are waited for, not queued again)."),
         executor: str = EXECUTOR, workers: int = WORKERS, partition: str = PARTITION, time_limit: str = TIME_LIMIT,
         nodes_per_trial: int = NODES_PER_TRIAL, sbatch_option: list[str] = SBATCH_OPTION,
         job_setup: list[str] = JOB_SETUP, grace: float = GRACE, replay_scale: float = REPLAY_SCALE,
         metric: str = typer.Option(None, "--metric", metavar="REGEX", help="With a command: tune the figure the "
                                    "application prints, the number in the REGEX's group (last match in its output), "
                                    "e.g. --metric 'Max Write: *([0-9.]+) MiB/sec' --maximize. Default: Darshan's I/O "
                                    "time if Darshan is loaded, else the I/O time iotune's PMPI library measures "
                                    "inside the application, else wall time."),
         maximize: bool = typer.Option(False, "--maximize/--minimize", help="With --metric: higher is better (a "
                                       "bandwidth) or lower is (a time in seconds, the default)."),
         darshan: str = typer.Option(None, "--darshan", metavar="LIB", help="With a command: preload this Darshan "
                                     "runtime library (libdarshan.so) and tune the I/O time of each run's log."),
         wall_time: bool = typer.Option(False, "--wall-time", help="With a command: tune its wall time (start-up "
                                        "and computation included) rather than the I/O time iotune's PMPI library "
                                        "measures inside it."),
         mpiexec: str = MPIEXEC, db: str = DB) -> None:
    """Tune one workload within a budget of runs: measure, learn from the store, declare the best with its gain."""
    from iotune.profile import workload_values_from
    from iotune.store import Store
    from iotune.study import Objective, Study

    check_format(fmt)
    if fmt == "csv":
        raise IotuneError("--format must be table or json for tune")
    command = list(command or [])
    if spec is not None and (command or (spec.suffix.lower() not in (".yaml", ".yml") and not spec.exists())):
        command, spec = [str(spec), *command], None  # `iotune tune -- cmd ARGS`: the first word is the command
    if (spec is None) == (not command):
        raise IotuneError("give a spec to tune the benchmark, or --study and the command after -- to tune an "
                          "application")
    job = executor_job(executor, workers, partition, time_limit, nodes_per_trial, sbatch_option, job_setup, grace)
    if job is not None and command:
        raise IotuneError("--executor slurm tunes a spec's benchmark; an application given after -- runs here")
    if job is not None and budget is None:
        raise IotuneError("--executor slurm needs --budget: the runs its job array is sized for")
    if (metric is not None or darshan is not None or maximize or wall_time) and not command:
        raise IotuneError("--metric, --maximize, --darshan and --wall-time measure an application given after --")
    if wall_time and (metric is not None or darshan is not None):
        raise IotuneError("--wall-time, --metric and --darshan are objectives of their own: give one")
    if maximize and metric is None:
        raise IotuneError("--maximize says which way --metric REGEX is better: give --metric too")
    if metric is not None and objective != "time":
        raise IotuneError(f"--metric is the objective itself (lower is better, or higher with --maximize): leave "
                          f"--objective at time, not {objective}")
    measure = _measure(command, metric, maximize, darshan, timeout, wall_time) if command else None
    values = workload_values_from(workload)[0] if workload else {}
    goal = _objective(Objective, objective, pricing, instances)  # a bad pricing file stops before any study
    terminal = Terminal()
    if job is not None:
        from iotune.cli.slurm_executor import shared_store_url

        db = shared_store_url(db)
    from iotune.study.tune import extended_study_name, with_workload_levels

    if spec is not None:  # (so no command) checked before a store is opened: an impossible tuning leaves nothing
        from iotune.spec import load_spec

        loaded = load_spec(spec)
        loaded.check_runnable()
        _check_candidates(with_workload_levels(loaded, values)[0], values, seed)
    # an application is tuned in the space of a study already stored; prior studies must be stored already too
    with Store(db, create=not command and not prior) as store:
        if command:
            if study is None:
                raise IotuneError("tuning a command needs --study: the study whose space and measurements to use")
            base = Study.open(store, study)
            values = _with_processes(values, command, base.space)
            loaded = base.spec
            tune_study = f"{study}-runs"
            priors = [base]
        else:
            tune_study = study or loaded.name
            priors = []
        tuned_spec, extended = with_workload_levels(loaded, values)
        if command:
            _check_candidates(tuned_spec, values, seed)
        if extended:
            tune_study = extended_study_name(tune_study, extended)
            existing = store.get_study(study or loaded.name) if not command else None
            priors += [Study.open(store, existing.name)] if existing is not None else []
            terminal.info(f"the workload's {', '.join(extended)} is not a level of the spec: tuning it in study "
                          f"{tune_study} (the spec with that level added), with the other studies as prior")
        priors += [Study.open(store, name) for name in prior]
        target = Study.open_or_create(store, tune_study, tuned_spec, resume=True,
                                      settings={"sampler": "tune", "objective": objective})
        if measure is not None:
            from iotune.apply.measured import MeasuredAlike

            target = MeasuredAlike.of(target, measure.measure)  # runs measured otherwise are not this tuning's
        shown = measure.metric.shown if measure is not None and measure.metric is not None else None
        ran: list = []
        def on_step(step, so_far) -> None:
            ran.append(step)
            show_step(terminal, step, so_far, so_far.budget, shown)

        values_of_baseline, baseline_source, baseline_notes = _baseline(tuned_spec.space, values, baseline, scratch,
                                                                        no_baseline)
        for note in baseline_notes:
            terminal.warn(note)
        tuning = dict(objective=goal, prior_studies=tuple(priors), seed=seed, on_step=on_step,
                      baseline=not no_baseline, race=not no_race, precision=precision,
                      baseline_values=values_of_baseline, baseline_source=baseline_source)
        if job is not None:
            result = _tune_on_slurm(terminal, store, db, target, job, values, budget, tuning, resume=resume,
                                    scratch=scratch, runner=runner, timeout=timeout, mpiexec=mpiexec,
                                    replay_scale=replay_scale, grace=grace)
        else:
            result = _tune_here(terminal, target, values, budget, tuning, command=command, scratch=scratch,
                                runner=runner, timeout=timeout, mpiexec=mpiexec, replay_scale=replay_scale,
                                measure=measure)
        if not ran and budget is not None and result.runs >= budget:
            terminal.info(f"the budget of {budget} runs is already spent in study {target.name} ({result.runs} runs "
                          "of this workload in the store): nothing was run; the result of those runs follows (a "
                          "larger --budget runs more)")
        _show_result(terminal, result, target, fmt, command, measure, db)  # in the store: it reads the hints in effect


def _check_candidates(spec, values: dict, seed: int) -> None:
    """IotuneError, before any study is made, when no configuration of the workload can run."""
    from iotune.cli.common import check_runnable_configurations
    from iotune.study.tune import workload_configurations

    candidates = workload_configurations(spec.space, values, seed=seed)
    check_runnable_configurations(spec, candidates, f" for workload {_describe_workload(values) or 'the default'}")


def _measure(command: list[str], metric: str | None, maximize: bool, darshan: str | None, timeout: float,
             wall_time: bool = False):
    """The runner of an application (checked before any store is opened): its metric, Darshan, iotune's PMPI
    library (built here at first use) or wall time."""
    from iotune.apply.metric import Metric
    from iotune.runners.command import CommandRunner

    return CommandRunner(command, timeout=timeout, darshan=darshan, wall_time=wall_time,
                         metric=Metric.parse(metric, maximize) if metric is not None else None,
                         on_build=lambda mpicc: Terminal().info(f"building iotune's PMPI library with {mpicc} "
                                                                "(once for this MPI)"))


def _objective(make, name: str, pricing: Path | None, instances: int | None):
    """The objective, with ``pricing``'s cost model under cost (the packaged prices without one) and
    ``instances`` compute instances per run (None: derived from the configuration's processes)."""
    if name != "cost":
        return make(name)
    from iotune.recommend.cost import CostModel

    return make(name, CostModel.from_yaml(pricing), instances)


def _tune_here(terminal: Terminal, target, values: dict, budget: int | None, tuning: dict, *, command: list[str],
               scratch, runner: str, timeout: float, mpiexec: str | None, replay_scale: float, measure=None):
    """Tune with the runs measured in this process, one at a time."""
    from iotune.bench.platform import platform_info
    from iotune.study import Worker
    from iotune.study.tune import AUTO_MAX_RUNS, Tuning, tune_to_decision

    scratch = prepare_scratch(scratch)
    if command:
        from iotune.apply.command import objective_words

        run, storage = measure, None
        terminal.info(f"objective: {objective_words(run.metric, run.darshan, run.pmpi is not None)}")
        if run.pmpi_unavailable:
            terminal.warn(run.pmpi_unavailable)
        if run.wall_time:
            startup = run.measure_startup(scratch)
            terminal.warn("the objective is the application's wall time, not its I/O time: start-up and computation "
                          "count too" + (f" ({startup.describe()} on this machine)" if startup else "")
                          + "; give --metric 'REGEX' (its own I/O time or bandwidth line, with --maximize for a "
                          "bandwidth) or load Darshan (--darshan LIB) to tune its I/O, or, for an MPI application "
                          "started by mpiexec, leave out --wall-time: iotune's PMPI library then measures its MPI-IO "
                          "time inside it")
    else:
        run, storage = runner_and_storage(target.spec, runner, timeout, mpiexec, scratch, replay_scale=replay_scale)
    worker = Worker(target, run, scratch, storage=storage, platform=platform_info(scratch))
    try:
        started: list = []

        def start(runs: int) -> Tuning:  # the first tuning, and each continuation of it to a decision
            tuner = Tuning(target, worker, values, runs, **tuning)
            if not started:
                _announce(terminal, tuner, target, values, budget)
            started.append(tuner)
            return tuner

        return tune_to_decision(start, budget, lambda result, wanted: terminal.info(
            f"undecided after {result.runs} runs: on to {wanted} runs, what the race's decision needs at the noise "
            f"measured (without --budget, at most {AUTO_MAX_RUNS})"))
    finally:
        worker.close()
        run.close()
        if command:
            for warning in run.warnings:
                terminal.warn(warning)
            if run.short_runs and run.startup is not None:
                terminal.warn(f"{run.short_runs} of {run.wall_runs} runs took less than "
                              f"{SHORT:g}x the start-up ({run.startup.describe()}): their wall times are mostly "
                              "start-up, not I/O")


def _tune_on_slurm(terminal: Terminal, store, url: str, target, job, values: dict, budget: int, tuning: dict, *,
                   resume: bool, scratch, runner: str, timeout: float, mpiexec: str | None, replay_scale: float,
                   grace: float | None):
    """Tune with ``job.workers`` runs in flight, run by a Slurm job array of ``iotune worker`` tasks (as
    ``iotune bench --executor slurm``): this process holds the study's lease, proposes and waits on the store."""
    import os

    from iotune.cli.slurm_executor import SlurmExecutor, log_directory, worker_command
    from iotune.study.tune import Tuning
    from iotune.study.worker import GRACE_S

    command = worker_command(target.spec, target.name, job, runner=runner, timeout=timeout, scratch=scratch,
                             mpiexec=mpiexec, replay_scale=replay_scale, grace=grace)
    env = {**os.environ, "IOTUNE_DB": url}
    executor = SlurmExecutor(store, target.name, job, command, env, log_directory(None), terminal, resume=resume)
    tuner = Tuning(target, None, values, budget, workers=job.workers, on_start=executor.start, on_wait=executor.wait,
                   on_queue=lambda configuration, reason, flight: terminal.info(
                       f"queued: {configuration.describe() or 'defaults'} ({flight} in flight)  [{reason}]"),
                   poll_s=0.25, grace_s=grace or GRACE_S, **tuning)
    _announce(terminal, tuner, target, values, budget)
    terminal.info(f"study {target.name}: controller here, {job.workers} workers in Slurm, store {store!r}")
    try:
        result = tuner.run()
    except KeyboardInterrupt:
        if executor.job_id is not None:
            watch = shlex.join(["iotune", "status", "--study", target.name, "--follow"])
            terminal.info(f"left the tuning: Slurm job {executor.job_id} finishes the runs already queued, then its "
                          f"workers leave. Watch: {watch}; continue: the same command with --resume (re-attaches to "
                          "the job while it runs)")
        raise
    executor.finish()
    return result


def _announce(terminal: Terminal, tuner, target, values: dict, budget: int | None) -> None:
    from iotune.study.tune import AUTO_FIRST_BUDGET, AUTO_MAX_RUNS

    runs = f"budget {budget} runs" if budget is not None else \
        f"budget {AUTO_FIRST_BUDGET} runs, then on to a decision (at most {AUTO_MAX_RUNS}: no --budget given)"
    terminal.info(f"tuning {_describe_workload(values) or 'the default workload'} in study {target.name}: "
                  f"{len(tuner.candidates)} candidate configurations, {runs}, objective "
                  f"{tuner.objective.name}; prior: {_prior_text(tuner)}")


def _with_processes(values: dict, command: list[str], space) -> dict:
    """The workload values, with ``processes`` from ``mpiexec -n N`` when the space has it and none was given."""
    from iotune.apply.run import launched_processes

    names = {p.name for p in space.workload_parameters}
    processes = launched_processes(command)
    if "processes" in names and "processes" not in values and processes is not None:
        return {**values, "processes": processes}
    return values


def _describe_workload(values: dict) -> str:
    from iotune.spec.hint_names import decimal_size
    from iotune.units import format_size

    def shown(name, value):
        if not name.endswith("_size") or isinstance(value, bool) or not isinstance(value, int):
            return str(value)
        decimal = decimal_size(value)
        return format_size(value) + (f" ({decimal}; MiB or m for 2^20)" if decimal else "")

    return " ".join(f"{k}={shown(k, v)}" for k, v in values.items())


def _prior_text(tuner) -> str:
    count = len({t.workload_key for s in (tuner.study, *tuner.prior_studies) for t in s.trials()
                 if t.workload_key != tuner.workload_key})
    return f"{count} other workload(s) in the store" if count else "none (the first runs explore)"


def show_step(terminal: Terminal, step, so_far, budget: int, shown=None) -> None:
    text = shown or (lambda value: _objective_text(value, so_far.objective))
    value = "failed" if step.value is None else text(step.value)
    best = so_far.best
    best_text = f"best so far {text(best.mean)} ({_runs_text(best.runs)})" if best else \
        "nothing has succeeded yet"
    terminal.info(f"run {step.run}/{budget}: {step.configuration.describe() or 'defaults'} -> {value}; "
                  f"{best_text}  [{step.reason}]")


def _runs_text(runs: int) -> str:
    return "one run" if runs == 1 else f"{runs} runs"


def _objective_text(value: float, objective: str) -> str:
    if objective == "bandwidth":
        return f"{1 / value:.1f} MiB/s" if value > 0 else "-"
    if objective == "time":
        return f"{value:.4g} s"
    return f"{value:.4g}"


def _baseline(space, values: dict, given: str | None, scratch, no_baseline: bool):
    """(system values of the baseline, what it is, notes) for ``--baseline`` (:func:`iotune.study.tune.
    resolve_baseline`, as ``Study.tune`` reads it); ROMIO's defaults and the default layout are read in the
    scratch directory."""
    from iotune.study.tune import SPEC_DEFAULT, resolve_baseline

    if given is not None and no_baseline:
        raise IotuneError("--baseline names what to measure first; --no-baseline measures none: give one of them")
    if given is None:
        return {}, SPEC_DEFAULT, []
    return resolve_baseline(space, values, given, lambda: prepare_scratch(scratch, announce=False))


def _benchmark_trials(study) -> list:
    """The trials of the benchmark study an application tuning (study ``S-runs``) took its space from."""
    from iotune.stored import StoredStudy, StudyError

    try:
        return StoredStudy.open(study.store, study.name.removesuffix("-runs")).trials()
    except StudyError:
        return []


def race_lines(result) -> list[str]:
    """What the race did and what it would still need (:mod:`iotune.samplers.race`)."""
    if result.best is None or result.gain is None:
        return []
    if not result.confirmed:
        if result.race_runs:
            why = (f"the race had {result.race_runs} run(s) before the budget ended, too few to compare round by "
                   "round: a larger --budget continues this tuning")
        elif result.budget < 6:
            why = "no race: a budget below 6"
        else:
            why = "no race (--no-race, or the budget was spent before this tuning)"
        return ["unconfirmed: the best's mean and gain come from the runs that chose it, which flatter it; " + why]
    lines = [f"confirmed by a race of {result.race_runs} run(s) in {result.race_rounds} rounds (the best and the "
             "default interleaved, compared round by round): the gain and the best's mean come from them"]
    if result.decided and result.more_runs_needed:  # undecided: said in the notes (iotune.study.tune.undecided_note)
        lines.append(f"the budget ended before the gain was known to within ±{result.precision:.0%}: about "
                     f"{result.more_runs_needed} more run(s) would be needed at the noise measured (a larger --budget "
                     "continues this tuning)")
    return lines


def start_up_noise(result, startup) -> str | None:
    """Why no gain over the default is declared when the best and the default differ by less than start-up alone
    varies between launches (the objective being wall time); None when the difference is larger."""
    if startup is None or result.gain is None or result.best is None or result.default is None:
        return None
    if result.best.configuration.key == result.default.configuration.key:
        return None
    difference = result.default.mean - result.best.mean
    if difference > startup.noise:
        return None
    return (f"no gain declared: the best and the default differ by {difference:.3f} s of wall time, which start-up "
            f"alone can explain ({startup.describe()})")


def _show_front(terminal: Terminal, result) -> None:
    """The time-cost front of what was measured, fastest first, so a deadline can pick from it."""
    if not result.front:
        return
    terminal.info(f"time-cost front of the {len(result.front)} measured configuration(s) no other measured one "
                  "beats on both (fastest first):")
    for point in result.front:
        cheapest = "  <- cheapest" if point is result.front[-1] else ""
        terminal.info(f"  {point.time:10.4g} s  {point.cost:10.4g}  {point.configuration.describe() or 'defaults'}"
                      f"  ({point.runs} run(s)){cheapest}")


def _show_result(terminal: Terminal, result, study, fmt: str, command: list[str], measure=None,
                 db: str | None = None) -> None:
    from iotune.apply.command import objective_words
    from iotune.apply.forms import mpich_mpiio_hints, romio_hints_file
    from iotune.recommend.decision import effective_hints, not_in_effect_text
    from iotune.spec.mapping import env_of
    from iotune.store.engine import masked
    from iotune.study.tune import NO_BASELINE

    startup = measure.startup if measure is not None and measure.wall_time else None
    noise = start_up_noise(result, startup)
    shown = measure.metric.shown if measure is not None and measure.metric is not None else None
    best = result.best
    summary = {
        "study": study.name, "objective": result.objective, "budget": result.budget, "runs": result.runs,
        "candidates": result.candidates, "notes": result.notes,
        "best": None if best is None else {"configuration": best.configuration.to_dict(), "mean": best.mean,
                                           "runs": best.runs,
                                           "interval_95": None if best.low is None else [best.low, best.high]},
        "default": None if result.default is None else {"configuration": result.default.configuration.to_dict(),
                                                         "mean": result.default.mean, "runs": result.default.runs,
                                                         "what": result.baseline_source},
        "gain_vs_default": None if result.gain is None or noise else {
            "ratio": result.gain,
            "interval_95": None if result.gain_low is None else [result.gain_low, result.gain_high]},
        "separated_from_runner_up": result.separated,
        "tied_with_best": [configuration.to_dict() for configuration in result.tied],
        "noise": result.noise,
        "race": {"runs": result.race_runs, "rounds": result.race_rounds, "confirmed": result.confirmed,
                 "decided": result.decided, "precision": result.precision,
                 "planned_runs": result.planned_race_runs, "more_runs_needed": result.more_runs_needed,
                 "more_runs_to_decide": result.more_runs_to_decide,
                 "budget_to_decide": result.runs + result.more_runs_to_decide if result.more_runs_to_decide else None},
        "front": [{"configuration": p.configuration.to_dict(), "time": p.time, "cost": p.cost, "runs": p.runs}
                  for p in result.front],
        "history": [{"run": s.run, "configuration": s.configuration.to_dict(), "reason": s.reason, "value": s.value}
                    for s in result.steps],
    }
    if NO_BASELINE in result.notes:
        summary["no_gain_because"] = NO_BASELINE
    if measure is not None:
        summary["measured"] = objective_words(measure.metric, measure.darshan, measure.pmpi is not None)
        summary["start_up_s"] = None if measure.startup is None else list(measure.startup.seconds)
        summary["no_gain_because"] = noise or summary.get("no_gain_because")
    if best is not None:
        trials = study.trials()
        if command:  # an application's runs read nothing back: the benchmark study's runs of the same hints did
            trials += _benchmark_trials(study)
        hints, changed = effective_hints(study.space, trials, best.configuration)  # as they took effect
        summary["apply"] = {"hints": hints, "env": env_of(study.space, best.configuration),
                            "mpich_mpiio_hints": mpich_mpiio_hints(hints),
                            "not_in_effect": {k: {"asked": a, "in_effect": r} for k, (a, r) in changed.items()}}
    if fmt == "json":
        sys.stdout.write(json.dumps(summary, indent=2, default=str) + "\n")
        return
    for note in result.notes:
        terminal.info(note)
    if best is None:
        terminal.warn(f"no run succeeded in {result.runs} run(s): nothing to recommend")
        return
    unit = result.objective
    text = shown or (lambda value: _objective_text(value, unit))
    what = " of wall time" if startup is not None else ""
    low, high = (best.high, best.low) if measure is not None and measure.metric and measure.metric.maximize else \
        (best.low, best.high)
    interval = "no interval" if low is None or high is None else f"95% interval {text(low)} .. {text(high)}"
    terminal.success(f"best: {best.configuration.describe()} at {text(best.mean)}{what} "
                     f"({interval}, {_runs_text(best.runs)})")
    if noise:
        terminal.warn(noise)
    elif result.default is not None and best.configuration.key == result.default.configuration.key:
        pass  # said in the notes: the default is the best found
    elif result.gain is not None and result.gain_low is None:
        terminal.warn(f"against {result.baseline_source} ({text(result.default.mean)}): {result.gain:.2f}x, with no "
                      "interval: no configuration has run twice, so the run-to-run noise is unknown (a budget of 6 "
                      "or more races the best against the default to measure it)")
    elif result.gain is not None:
        against = (f"against {result.baseline_source}, {result.default.configuration.describe() or 'no hint set'} "
                   f"({text(result.default.mean)}): "
                   f"{result.gain:.2f}x better (95% interval {result.gain_low:.2f}x .. {result.gain_high:.2f}x)")
        if result.gain_low <= 1:
            terminal.warn(against + ", which includes no gain: these runs cannot tell them apart")
        else:
            terminal.info(against)
    for line in race_lines(result):
        terminal.info(line)
    terminal.info(f"run-to-run noise: {result.noise}"
                  + ("; a second run of any configuration would measure it" if "no repeated run" in result.noise
                     else ""))
    if result.runner_up is not None and result.separated:
        terminal.info(f"separated from the runner-up ({result.runner_up.configuration.describe()}, "
                      f"{text(result.runner_up.mean)}, {_runs_text(result.runner_up.runs)}) beyond that noise")
    if result.runner_up is not None and not result.separated:
        terminal.warn(f"the runner-up ({result.runner_up.configuration.describe()}, "
                      f"{text(result.runner_up.mean)}) cannot be told apart from the best with "
                      "these runs: either is a good choice; more runs (a larger --budget) would separate them")
    if changed:
        terminal.warn(not_in_effect_text(changed))
    _show_front(terminal, result)
    if hints:
        terminal.info("apply it: MPICH_MPIIO_HINTS=" + mpich_mpiio_hints(hints) + "  (or a ROMIO hints file: "
                      + romio_hints_file(hints).strip().replace("\n", "; ") + ")")
    if command:
        terminal.info("next runs with the best: "
                      + shlex.join(["iotune", "run", "--study", study.name.removesuffix("-runs"),
                                    *(["--db", masked(db)] if db else []), "--", *command]))
