"""Putting a measurement together: spec + sampler + study + worker -> a campaign ready to run.

Commands (``bench``, ``screen``, ``testbed bench``, the demo) and Python users
call :func:`prepare` and then ``campaign.run()``; everything that can be
refused (a spec the benchmark cannot run, an unknown sampler, a study measured
with another spec or design) is refused here, before the store is touched.
"""

from __future__ import annotations

from pathlib import Path

from iotune.errors import SpaceError
from iotune.samplers import DesignSampler, Sampler, make_sampler
from iotune.samplers.parallel import parallel
from iotune.spec import CampaignSpec
from iotune.spec.mapping import benchmark_spec
from iotune.study.campaign import POLL_S, Campaign
from iotune.study.objective import Objective
from iotune.study.study import Study, StudyError
from iotune.study.worker import Worker

SATISFIABLE_DRAWS = 1_000_000


def check_satisfiable(space, seed: int = 0) -> None:
    """Refuse at once a space whose constraints no configuration meets (a sampler would draw for minutes, then
    measure nothing); vectorised draws over the level indices, about a second for :data:`SATISFIABLE_DRAWS`."""
    try:
        found = space.sample(1, seed, max_draws=SATISFIABLE_DRAWS)
    except SpaceError:
        raise StudyError(f"space {space.name!r}: no configuration meeting its constraints turned up in "
                         f"{SATISFIABLE_DRAWS:,} random draws of its {space.size:,} assignments; loosen the "
                         "constraints (`iotune space show -c SPEC` lists the valid configurations)") from None
    if not found:
        raise StudyError(f"space {space.name!r}: no configuration meets its constraints; loosen them")


TRANSFER_OPTIONS = ("workload", "prior_studies", "engine_options")


def _transfer(store, spec: CampaignSpec, study_name: str, options: dict, *, seed: int, budget: int | None,
              objective: Objective, workers: int):
    """The transfer sampler of a campaign: its workload and prior studies from the sampler's options."""
    from iotune.samplers import SamplerError
    from iotune.study.tune import transfer_sampler

    unknown = sorted(set(options) - set(TRANSFER_OPTIONS))
    if unknown:
        raise SamplerError(f"sampler 'transfer' takes no option {', '.join(unknown)} (its options: "
                           f"{', '.join(TRANSFER_OPTIONS)})")
    priors = options.get("prior_studies") or []
    if isinstance(priors, str) or not isinstance(priors, (list, tuple)) or not all(isinstance(p, str) for p in priors):
        raise SamplerError(f"sampler 'transfer': prior_studies is a list of study names, got {priors!r}")
    existing = Study.open(store, study_name) if store.get_study(study_name) is not None else None
    return transfer_sampler(existing, spec.space, options.get("workload") or {}, budget, objective=objective,
                            prior_studies=priors, seed=seed, workers=workers,
                            engine_options=options.get("engine_options"), store=store)


def prepare(store, spec: CampaignSpec, study_name: str, runner, scratch: Path, *, sampler: str | None = None,
            budget: int | None = None, seed: int | None = None, options: dict | None = None,
            configurations=None, resume: bool = False, retry_failed: bool = False, storage=None,
            platform: dict | None = None, on_trial=None, on_batch=None, objective: str | None = None,
            workers: int = 1, lie: str = "mean", on_start=None, on_wait=None, poll_s: float | None = None,
            check_benchmark: bool = True) -> Campaign:
    """A campaign of ``spec`` in study ``study_name``, measured here by ``runner`` in ``scratch``.

    ``sampler``, ``budget``, ``seed`` and ``options`` override the spec's
    ``campaign:`` settings; ``configurations`` (a list) replaces the sampler by
    that fixed design.  ``storage`` builds testbeds for a spec that varies
    storage (:class:`iotune.testbed.TestbedProvider`).  ``runner`` None runs
    no worker here: the trials are run by ``workers`` workers elsewhere (a
    Slurm job array), and a sampler that proposes one configuration at a time
    proposes ``workers`` at a time instead (:mod:`iotune.samplers.parallel`,
    with the constant ``lie``).  ``on_start``, ``on_wait`` and ``poll_s`` go to
    the :class:`Campaign`.  The ``transfer`` sampler tunes the workload of its
    option ``workload`` with the runs of the study and of the studies named in
    ``prior_studies`` as its prior (:func:`iotune.study.tune.transfer_sampler`);
    its budget counts runs.  ``check_benchmark`` False lets parameters that the built-in benchmark cannot
    apply through (a runner that reads the configuration itself: :class:`iotune.runners.FunctionRunner`).
    """
    if check_benchmark:
        spec.check_runnable()
    settings = spec.campaign
    seed = settings.seed if seed is None else seed
    budget = settings.budget if budget is None else budget
    chosen: Sampler
    if configurations is not None:
        chosen = DesignSampler(spec.space, configurations, seed=seed, budget=budget, shuffle=False)
    elif (sampler or settings.sampler) == "transfer":
        chosen = _transfer(store, spec, study_name, {**settings.options, **(options or {})}, seed=seed,
                           budget=budget, objective=Objective(objective or settings.objective), workers=workers)
    else:
        name, merged = sampler or settings.sampler, {**settings.options, **(options or {})}
        chosen = parallel(lambda: make_sampler(name, spec.space, seed=seed, budget=budget, options=merged, spec=spec),
                          workers, lie=lie)
    if configurations is None:
        check_satisfiable(spec.space, seed)
    if spec.uses_testbed and storage is None and runner is not None:
        raise StudyError("this spec builds storage (file system, devices, device class): only a testbed applies "
                         "it; run iotune as root on a machine with loop devices and the blkio cgroup")
    if storage is not None:
        storage.check()
    if isinstance(chosen, DesignSampler):
        for configuration in chosen.configurations:  # a bad spec is refused before the store is touched
            benchmark_spec(spec.space, configuration, spec.benchmark)
    record = chosen.record()
    study = Study.open_or_create(store, study_name, spec, resume, settings=record)
    stored_design = study.record.settings.get("screening")
    if resume and "screening" in record and stored_design not in (None, record["screening"]):
        raise StudyError(f"study {study_name!r} was screened with other factors or levels; use another --study name")
    local = runner is not None or storage is not None  # a testbed provider brings the runner of each testbed
    worker = Worker(study, runner, scratch, storage=storage, platform=platform, on_trial=on_trial) if local else None
    return Campaign(study, chosen, worker, objective=Objective(objective or settings.objective),
                    retry_failed=retry_failed, on_batch=on_batch, on_start=on_start, on_wait=on_wait,
                    poll_s=POLL_S if poll_s is None else poll_s)
