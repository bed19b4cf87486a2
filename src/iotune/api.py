"""iotune from Python: create or load a study, measure it, tune it, read its trials (docs/api.md).

``iotune.create_study(spec, storage=...)`` stores a new study of a campaign spec;
``iotune.load_study(name, storage=...)`` opens a stored one.  A :class:`Study`
measures with a sampler (:meth:`Study.bench`), with a user's function as the
benchmark (:meth:`Study.optimize`), or tunes one workload within a budget of
runs (:meth:`Study.tune`), and reads its results (:meth:`Study.best`,
:meth:`Study.trials`).  ``iotune bench``, ``screen``, ``testbed bench`` and
``demo`` measure through :func:`run_bench`, the function :meth:`Study.bench` calls.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from iotune.errors import IotuneError
from iotune.runners.registry import DEFAULT as DEFAULT_RUNNER
from iotune.runners.registry import RUNNERS, default_scratch, runner_and_storage
from iotune.spec import CampaignSpec
from iotune.store import Store
from iotune.store.engine import masked
from iotune.stored import StoredStudy, StudyError

Progress = Callable[[object, object], None]
"""``progress(trial, measurement)``: called after every finished trial (a TrialRecord and its Measurement)."""


def _spec(spec) -> CampaignSpec:
    if isinstance(spec, CampaignSpec):
        return spec
    if isinstance(spec, Mapping):
        return CampaignSpec.from_data(dict(spec), "the spec given to create_study")
    if isinstance(spec, (str, os.PathLike)):
        return CampaignSpec.from_file(Path(spec))
    raise IotuneError(f"a spec is a path to a YAML file, a dict or a CampaignSpec, got {type(spec).__name__}")


def create_study(spec, storage: str | os.PathLike | None = None, *, name: str | None = None,
                 load_if_exists: bool = False) -> Study:
    """A new study of ``spec`` (a YAML path, a dict or a CampaignSpec) in ``storage`` (a SQLAlchemy URL such as
    ``sqlite:///iotune.db`` or ``postgresql://...``, or a plain path of an SQLite file; default ``IOTUNE_DB``
    or ``iotune.db``).  ``name`` defaults to the spec's.

    StudyError when the name is taken, unless ``load_if_exists``: then the stored study, if it measures the
    same space, benchmark and storage.
    """
    loaded = _spec(spec)
    name = name or loaded.name
    store = Store(storage)
    try:
        if store.get_study(name) is None:
            from iotune.samplers import make_sampler

            settings = loaded.campaign
            if settings.sampler == "transfer":  # its prior and workload are read when it runs (Study.tune)
                record = {"sampler": "transfer", "seed": settings.seed, "budget": settings.budget}
            else:
                record = make_sampler(settings.sampler, loaded.space, seed=settings.seed, budget=settings.budget,
                                      options=settings.options, spec=loaded).record()
            opened = StoredStudy.create(store, name, loaded, settings=record)
        elif load_if_exists:
            opened = StoredStudy.open_or_create(store, name, loaded, resume=True)
        else:
            raise StudyError(f"study {name!r} already exists in {masked(store.url)}; load it with iotune.load_study("
                             f"{name!r}, storage=...) or pass load_if_exists=True")
    except BaseException:
        store.close()
        raise
    return Study(opened)


def load_study(name: str, storage: str | os.PathLike | None = None) -> Study:
    """The stored study ``name``; StudyError naming the known ones when there is none."""
    store = Store(storage, create=False)
    try:
        return Study(StoredStudy.open(store, name))
    except BaseException:
        store.close()
        raise


def run_bench(store: Store, spec: CampaignSpec, name: str, *, runner=DEFAULT_RUNNER,
              scratch: str | os.PathLike | None = None,
              sampler: str | None = None, budget: int | None = None, seed: int | None = None,
              resume: bool = False, retry_failed: bool = False, timeout: float = 600.0, mpiexec: str | None = None,
              testbed_dir: Path | None = None, configurations=None, replay_scale: float = 1.0,
              progress: Progress | None = None, say: Callable[[str], None] | None = None,
              run: Callable | None = None, check_benchmark: bool = True):
    """Measure ``spec`` into study ``name`` of ``store``; returns the :class:`~iotune.study.CampaignReport`.

    ``runner``: a registered name (:data:`iotune.runners.RUNNERS`) or a runner object (``run(spec, scratch)
    -> Measurement``, left open for its owner to close).  ``run(campaign)`` runs the prepared campaign
    (default ``campaign.run()``; the CLI draws a progress bar there); ``say(text)`` hears what is worth telling.
    """
    from iotune.bench.platform import platform_info
    from iotune.study.measure import prepare

    scratch = Path(scratch) if scratch is not None else default_scratch()
    try:
        scratch.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise IotuneError(f"cannot use scratch directory {scratch}: {error.strerror or error}") from None
    named = isinstance(runner, str)
    if named:
        bench_runner, storage = runner_and_storage(spec, runner, timeout, mpiexec, scratch, testbed_dir, replay_scale,
                                                   say=say)
    elif spec.uses_testbed:
        raise IotuneError(f"this spec builds storage on testbeds: give a runner by name ({', '.join(RUNNERS)})")
    else:
        bench_runner, storage = runner, None
    try:
        campaign = prepare(store, spec, name, bench_runner, scratch, sampler=sampler, budget=budget, seed=seed,
                           resume=resume, retry_failed=retry_failed, storage=storage,
                           platform=platform_info(scratch), configurations=configurations, on_trial=progress,
                           check_benchmark=check_benchmark)
        try:
            return run(campaign) if run is not None else campaign.run()
        finally:
            if campaign.worker is not None:
                campaign.worker.close()
    finally:
        if named:
            bench_runner.close()


class Study:
    """A stored study opened from Python: measure it, tune it, read it.  Close it (or use ``with``) when done.

    ``iotune.Study`` is the library face; the study it wraps (``stored``) is an
    :class:`iotune.stored.StoredStudy`, what ``iotune.learn``, ``screening``, ``variability``, ``report`` and
    ``apply`` take.
    """

    def __init__(self, study: StoredStudy):
        self._study = study

    def __repr__(self) -> str:
        return f"iotune.Study({self.name!r}, storage={masked(self.store.url)!r})"

    def __enter__(self) -> Study:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Close the store connection this study holds."""
        self.store.close()

    @property
    def name(self) -> str:
        return self._study.name

    @property
    def store(self) -> Store:
        return self._study.store

    @property
    def stored(self) -> StoredStudy:
        """The stored study this wraps (record, spec, space, trials), for ``iotune.learn.train(study.stored)`` & co."""
        return self._study

    @property
    def spec(self) -> CampaignSpec:
        return self._study.spec

    @property
    def space(self):
        return self._study.space

    def _workload(self, workload: Mapping | None) -> dict:
        """``workload`` with each value as the level it denotes (``"64KiB"`` -> 65536); SpaceError otherwise."""
        return {name: self.space.parameter(name).normalise(value) for name, value in (workload or {}).items()}

    def _tune_values(self, workload: Mapping | None) -> dict:
        """``workload`` as values: a level where it denotes one, else the size or integer it parses to (a value
        between levels, tuned as ``iotune tune`` does, in a study with the level added)."""
        from iotune.errors import SpaceError
        from iotune.units import parse_size

        out = {}
        for name, value in (workload or {}).items():
            parameter = self.space.parameter(name)
            try:
                out[name] = parameter.normalise(value)
            except SpaceError:
                if parameter.type == "size" and not isinstance(value, bool):
                    out[name] = parse_size(value) if isinstance(value, str) else int(value)
                elif parameter.type == "integer" and not isinstance(value, bool):
                    out[name] = int(value)
                else:
                    raise
        return out

    def _reopen(self) -> None:
        self._study = StoredStudy.open(self.store, self.name)

    def bench(self, *, repeats: int | None = None, sampler: str | None = None, budget: int | None = None,
              seed: int | None = None, runner=DEFAULT_RUNNER, scratch: str | os.PathLike | None = None,
              timeout: float = 600.0, mpiexec: str | None = None, replay_scale: float = 1.0,
              retry_failed: bool = False, progress: Progress | None = None):
        """Measure the configurations ``sampler`` chooses (default: the spec's), ``repeats`` times each, with
        ``runner`` (a name of :data:`iotune.runners.RUNNERS` or a runner object) in ``scratch``.

        Continues the study: what the store holds is not measured again (FAILED trials only with
        ``retry_failed``).  Returns the campaign's report (``completed``, ``failed``, ``best``, ...).
        """
        spec = self.spec.with_campaign(repeats=repeats)
        report = run_bench(self.store, spec, self.name, runner=runner, scratch=scratch, sampler=sampler,
                           budget=budget, seed=seed, resume=True, retry_failed=retry_failed, timeout=timeout,
                           mpiexec=mpiexec, replay_scale=replay_scale, progress=progress)
        self._reopen()
        return report

    def optimize(self, func: Callable[[dict], float], n_trials: int | None = None, *, sampler: str | None = None,
                 repeats: int | None = None, seed: int | None = None, progress: Progress | None = None,
                 catch: tuple[type[BaseException], ...] = ()):
        """Minimise ``func(config) -> seconds`` over the space: ``sampler`` (default: the spec's) proposes the
        configurations, each run ``repeats`` times, and ``func`` is called ``n_trials`` times in all (as optuna
        counts trials; ``repeats`` defaults to 1 then, and must divide ``n_trials``; without ``n_trials``, every
        configuration the sampler proposes, ``repeats`` defaulting to the spec's).

        ``config`` is a dict of parameter values.  An exception in ``func`` is recorded as a FAILED trial and then
        raised, unless its type is in ``catch`` (as optuna's ``catch``): then the study goes on, and the report
        counts the failures and keeps the first error (``report.first_error``).  A return value that is not a
        number of seconds > 0 is a FAILED trial.  Returns the campaign report.
        """
        from iotune.runners.function import FunctionRunner

        if n_trials is not None and (isinstance(n_trials, bool) or not isinstance(n_trials, int) or n_trials < 1):
            raise IotuneError(f"n_trials must be a number of calls >= 1, got {n_trials!r}")
        budget = None
        if n_trials is not None:
            repeats = repeats or 1
            if n_trials % repeats:
                raise IotuneError(f"n_trials ({n_trials}) counts calls: it must be a multiple of repeats ({repeats})")
            budget = n_trials // repeats
        spec = self.spec.with_campaign(repeats=repeats)
        runner = FunctionRunner(func)

        def heard(trial, measurement) -> None:
            if progress is not None:
                progress(trial, measurement)
            error = runner.last_error
            if error is not None and not isinstance(error, catch):
                raise error  # recorded FAILED already (the worker calls this after storing the trial)

        try:
            report = run_bench(self.store, spec, self.name, runner=runner, sampler=sampler, budget=budget, seed=seed,
                               resume=True, progress=heard, check_benchmark=False)
        finally:
            self._reopen()
        report.first_error = runner.first_error
        return report

    def tune(self, workload: Mapping | None = None, budget: int | None = None, *, objective: str = "time",
             runner=DEFAULT_RUNNER, prior_studies=(), seed: int = 0, scratch: str | os.PathLike | None = None,
             timeout: float = 600.0, mpiexec: str | None = None, replay_scale: float = 1.0,
             on_step: Callable | None = None, candidates=None, baseline: bool | str | Mapping = True,
             race: bool = True, precision: float | None = None):
        """The best configuration of ``workload`` (workload parameter -> a level of the space) within ``budget``
        runs, learning from this study's runs and ``prior_studies`` (names or Study objects of this store): the
        campaign that ``iotune tune`` runs (:class:`iotune.study.tune.Tuning`, the transfer sampler).  Without a
        budget, as ``iotune tune`` without ``--budget``: 8 runs, then on to what the race says a decision needs at
        the noise it measured, at most 60 runs (:func:`iotune.study.tune.tune_to_decision`).

        Returns the :class:`~iotune.study.tune.TuneResult`: ``best`` and ``default`` (mean and 95% interval),
        ``gain`` over the default with its interval, whether the best is ``separated`` from the runner-up.
        ``on_step(step, result_so_far)`` is called after every run.  ``candidates``: the configurations of the
        workload to choose among (None: every valid one); ``baseline=False`` skips measuring the default first
        (no gain against it is stated then), ``baseline="romio"`` states gains against ROMIO's own defaults
        (read with ``MPI_File_get_info``), ``baseline="filesystem"`` against the layout a new file in ``scratch``
        gets, and a mapping against those system values, as ``--baseline`` does;
        ``race=False`` spends every run on the search (no race confirms the
        gain, :mod:`iotune.samplers.race`); ``precision`` races until the gain is known to that fraction
        (default 0.2).
        """
        from iotune.bench.platform import platform_info
        from iotune.study import Objective, Worker
        from iotune.study import Study as RunStudy
        from iotune.study.tune import (
            Tuning,
            extended_study_name,
            resolve_baseline,
            tune_to_decision,
            with_workload_levels,
        )

        self.spec.check_runnable()
        priors = tuple(p._study if isinstance(p, Study) else StoredStudy.open(self.store, p) for p in prior_studies)
        values = self._tune_values(workload)
        spec, extended = with_workload_levels(self.spec, values)
        given = None if isinstance(baseline, bool) else baseline if isinstance(baseline, str) else \
            ",".join(f"{k}={v}" for k, v in baseline.items())
        scratch_dir = Path(scratch) if scratch is not None else default_scratch()

        def ready_scratch() -> Path:
            scratch_dir.mkdir(parents=True, exist_ok=True)
            return scratch_dir

        base_values, base_source, base_notes = resolve_baseline(spec.space, values, given, ready_scratch)
        target = self._study
        if extended:  # as `iotune tune` does: a study of the spec with the level added, this one as prior
            target = RunStudy.open_or_create(self.store, extended_study_name(self.name, extended), spec, resume=True,
                                             settings={"sampler": "tune", "objective": objective})
            priors = (*priors, self._study)
        scratch = Path(scratch) if scratch is not None else default_scratch()
        scratch.mkdir(parents=True, exist_ok=True)
        named = isinstance(runner, str)
        run, storage = runner_and_storage(spec, runner, timeout, mpiexec, scratch, replay_scale=replay_scale) \
            if named else (runner, None)
        worker = Worker(target, run, scratch, storage=storage, platform=platform_info(scratch))
        try:
            def start(runs: int) -> Tuning:  # the tuning, and each continuation of it to a decision
                return Tuning(target, worker, values, runs, objective=Objective(objective), prior_studies=priors,
                              seed=seed, on_step=on_step, candidates=candidates, baseline=baseline is not False,
                              race=race, precision=precision, baseline_values=base_values,
                              baseline_source=base_source)

            result = tune_to_decision(start, budget)
            result.notes.extend(base_notes)
            if extended:
                result.notes.append(f"the workload's {', '.join(extended)} is not a level of the spec: tuned in study "
                                    f"{target.name} (the spec with that level added), with {self.name} as prior")
            return result
        finally:
            worker.close()
            if named:
                run.close()

    def best(self, workload: Mapping | None = None):
        """The fastest measured configuration of ``workload`` (an :class:`iotune.analysis.WorkloadBest`: ``best``
        with ``config``, ``mean_time``, ``n``; the default and the speedups); ``workload`` may be left out when
        the study measured one.  StudyError when nothing of that workload completed."""
        from iotune.analysis import best_per_workload

        bests = best_per_workload(self.space, self._study.trials())
        if workload is not None:
            wanted = self._workload(workload)
            bests = [b for b in bests if all(b.workload.get(k) == v for k, v in wanted.items())]
        if not bests:
            failed = [t for t in self._study.trials() if t.state == "FAILED"]
            because = f" ({len(failed)} failed; the first: {failed[0].error})" if failed else ""
            raise StudyError(f"study {self.name!r} has no completed trial" +
                             (f" of workload {dict(workload)}" if workload is not None else "") + because)
        if len(bests) > 1:
            raise StudyError(f"study {self.name!r} measured {len(bests)} workloads; name one: best(workload="
                             f"{bests[0].workload})")
        return bests[0]

    def decision(self, workload: Mapping | None = None):
        """The one answer for ``workload`` (an :class:`iotune.recommend.decision.Decision`): its best with the
        configurations tied with it, the gain over the default with its 95% interval (``gain_interval``), paired
        over a race's rounds when it was tuned; what ``iotune results``, ``recommend``, ``tune`` and the report
        state for the same runs.  ``workload`` may be left out when the study measured one."""
        from iotune.recommend.answer import decide

        trials = self._study.trials()
        if workload is None:
            keys = {t.workload_key for t in trials if t.state == "COMPLETE"}
            if len(keys) != 1:
                raise StudyError(f"study {self.name!r} measured {len(keys)} workloads; name one: "
                                 "decision(workload=...)")
            first = next(t for t in trials if t.state == "COMPLETE")
            workload = {p.name: first.config.get(p.name) for p in self.space.workload_parameters}
        return decide(self.space, trials, dict(workload))

    def records(self) -> list[dict]:
        """One dict per trial: id, state, repeat, each parameter's value, ``io_seconds``, ``wall_seconds``,
        ``error``, ``config_key``, ``workload_key`` (what :meth:`trials` puts in a DataFrame)."""
        names = [p.name for p in self.space.parameters]
        out = []
        for trial in self._study.trials():
            row = {"trial_id": trial.id, "state": trial.state, "repeat": trial.repeat}
            row.update({name: trial.config.get(name) for name in names})
            row.update({"io_seconds": trial.io_seconds if trial.phases else None, "wall_seconds": trial.wall_seconds,
                        "error": trial.error, "runner": trial.runner, "config_key": trial.config_key,
                        "workload_key": trial.workload_key, "finished_at": trial.finished_at})
            out.append(row)
        return out

    def trials(self):
        """The trials as a pandas DataFrame, one row per trial (:meth:`records`); needs pandas
        (``pip install 'iotune[pandas]'``)."""
        try:
            import pandas
        except ImportError:
            raise IotuneError("Study.trials() returns a pandas DataFrame: pip install 'iotune[pandas]' (or use "
                              "Study.records() for plain dicts)") from None
        names = [p.name for p in self.space.parameters]
        columns = ["trial_id", "state", "repeat", *names, "io_seconds", "wall_seconds", "error", "runner",
                   "config_key", "workload_key", "finished_at"]
        return pandas.DataFrame(self.records(), columns=columns)
