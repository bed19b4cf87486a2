"""What several commands share: runners, scratch, signals, and running a campaign with a progress bar."""

from __future__ import annotations

import shlex
from pathlib import Path

from iotune.cli.terminal import Terminal
from iotune.errors import IotuneError
from iotune.runners import registry
from iotune.runners.registry import default_scratch


def results_command(study: str, db: str | None = None) -> str:
    """``iotune results --study S [--db DB]`` as a line to paste into a shell: every value quoted, a password
    masked (the user types it again)."""
    from iotune.store.engine import masked

    words = ["iotune", "results", "--study", study] + (["--db", masked(str(db))] if db else [])
    return shlex.join(words)


MEMORY_FILE_SYSTEMS = {"tmpfs": "memory", "ramfs": "memory", "overlay": "a container's overlay",
                       "overlayfs": "a container's overlay"}
"""File system types whose I/O times say nothing about the storage a user means to tune."""


def prepare_scratch(scratch: Path | None, spec=None, announce: bool = True, terminal: Terminal | None = None) -> Path:
    """The scratch directory, created if needed (default: iotune-scratch under the system temp dir).

    Says where the benchmark writes and on which file system (``announce``), and warns when that file system
    cannot stand for real storage or is not the one ``spec`` tunes (:func:`scratch_warnings`).
    """
    scratch = Path(scratch) if scratch is not None else default_scratch()
    try:
        scratch.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise IotuneError(f"cannot use scratch directory {scratch}: {error.strerror or error}") from None
    from iotune.bench.platform import fs_type

    terminal = terminal or Terminal()
    kind = fs_type(scratch)
    if announce:
        terminal.info(f"writing into {scratch.resolve()} ({kind or 'unknown'} file system; --scratch DIR changes it)")
    for warning in scratch_warnings(scratch, kind, spec):
        terminal.warn(warning)
    return scratch


def scratch_warnings(scratch: Path, kind: str, spec=None) -> list[str]:
    """Why measuring in ``scratch`` (file system type ``kind``, as /proc/self/mountinfo says) may mislead.

    A memory or overlay file system times memory copies; a spec whose parameters are Lustre striping hints
    (``striping_*``) or that names another file system in ``storage: fs`` tunes storage that is not there.
    A spec that builds its own storage (testbeds) is measured on the testbeds, not in ``scratch``.
    """
    if spec is not None and getattr(spec, "uses_testbed", False):
        return []
    warnings = []
    if kind in MEMORY_FILE_SYSTEMS:
        warnings.append(f"{scratch} is on {kind} ({MEMORY_FILE_SYSTEMS[kind]}): I/O times there measure memory, "
                        "not storage; give --scratch DIR on the file system you mean to tune")
    if spec is not None:
        striping = [p.name for p in spec.space.parameters if p.name.startswith("striping_")]
        if striping and kind != "lustre":
            warnings.append(f"the spec tunes Lustre striping ({', '.join(striping)}) but {scratch} is on "
                            f"{kind or 'an unknown file system'}: ROMIO ignores these hints there, so their "
                            "effects are noise; give --scratch DIR on a Lustre mount")
    return warnings


def runner_and_storage(spec, kind: str, timeout: float, mpiexec: str | None, scratch: Path,
                       testbed_dir: Path | None = None, replay_scale: float = 1.0, nodes: int = 1):
    """:func:`iotune.runners.registry.runner_and_storage`, saying on the terminal when the spec builds storage."""
    return registry.runner_and_storage(spec, kind, timeout, mpiexec, scratch, testbed_dir, replay_scale, nodes,
                                       say=Terminal().info)


def check_hdf5_ready(spec, runner: str) -> None:
    """IotuneError when ``spec`` may run ``api: HDF5`` on the built-in runner and this Python has no parallel
    h5py: every trial would fail the same way."""
    import sys

    from iotune.runners.builtin import KIND

    levels = spec.space.parameter("api").levels if "api" in {p.name for p in spec.space.parameters} else ()
    if runner != KIND.name or (spec.benchmark.get("api") != "HDF5" and "HDF5" not in levels):
        return
    from iotune.bench.hdf5 import parallel_h5py_problem

    problem = parallel_h5py_problem()
    if problem:
        raise IotuneError(f"api HDF5 needs parallel h5py in {sys.prefix}: {problem}; run scripts/install-hdf5 "
                          "(see the README)")


def check_runnable_configurations(spec, configurations=None, what: str = "") -> None:
    """IotuneError (exit 2) when no configuration of ``spec`` (or of ``configurations``, e.g. one workload's) can
    run: every assignment ruled out by the rules, or every configuration refused by the benchmark or the testbed.

    Stops at the first configuration that can run; a space too large to walk is left to its sampler.
    """
    from iotune.errors import SpaceError
    from iotune.space.space import how_many
    from iotune.spec.mapping import benchmark_spec
    from iotune.spec.storage import storage_config

    seen, reason = 0, None
    try:
        for configuration in (configurations if configurations is not None else spec.space.enumerate()):
            seen += 1
            try:
                benchmark_spec(spec.space, configuration, spec.benchmark)
                if spec.uses_testbed:
                    storage_config(spec.space, configuration, spec.storage)
                return
            except SpaceError as error:
                reason = reason or str(error)
    except SpaceError:
        return
    space = spec.space
    if seen == 0:
        rules = "; ".join(space.constraints) or "the when: rules"
        raise IotuneError(f"no configuration to run{what}: the rules ({rules}) rule out all "
                          f"{how_many(space.size)} assignments of space {space.name!r}")
    raise IotuneError(f"no configuration can run{what}: none of the {seen} configurations is one the benchmark can "
                      f"run ({reason})")


def warn_unknown_hints(spec, terminal: Terminal | None = None) -> None:
    """Warn about each MPI-IO hint name of ``spec`` that no MPI library documents (:mod:`iotune.spec.hint_names`)."""
    from iotune.spec.hint_names import spec_hint_warnings

    terminal = terminal or Terminal()
    for warning in spec_hint_warnings(spec):
        terminal.warn(warning)


def executor_job(executor: str, workers: int | None, partition: str | None, time_limit: str | None,
                 nodes_per_trial: int, sbatch_options, setup, grace: float | None):
    """The Slurm job of ``--executor slurm`` (a :class:`iotune.study.slurm.SlurmJob`), or None for ``local``;
    an IotuneError when a Slurm-only option is given to the local executor or the executor is unknown."""
    if executor == "slurm":
        from iotune.study.slurm import SlurmJob

        return SlurmJob(workers or 1, partition, time_limit, nodes_per_trial, tuple(sbatch_options or ()),
                        tuple(setup or ()))
    if executor != "local":
        raise IotuneError(f"--executor must be local or slurm, got {executor!r}")
    slurm_only = [name for name, value in (("--workers", workers), ("--partition", partition),
                                           ("--time-limit", time_limit), ("--sbatch-option", sbatch_options),
                                           ("--job-setup", setup), ("--grace", grace)) if value]
    if slurm_only or nodes_per_trial != 1:
        raise IotuneError(f"{', '.join(slurm_only or ['--nodes-per-trial'])} only apply with --executor slurm")
    return None


def run_campaign(campaign, terminal: Terminal | None = None, label: str | None = None):
    """Run a prepared campaign (:func:`iotune.study.measure.prepare`) with a progress bar; print its summary.

    Raises KeyboardInterrupt again after an interruption (so the command exits 130) once the summary is out.
    """
    terminal = terminal or Terminal()
    total = campaign.expected_trials()
    label = label or campaign.study.name
    failed = {"n": 0}
    with terminal.progress(label, total) as bar:
        def on_trial(trial, measurement) -> None:
            if measurement.status == "FAILED":
                failed["n"] += 1
                terminal.warn(f"trial failed ({_describe(campaign, trial)}, repeat {trial.repeat}): "
                              f"{measurement.error}")
            bar.advance(f"failed {failed['n']}")

        progress = None
        if campaign.worker is not None:
            campaign.worker.on_trial = on_trial
        else:  # trials run elsewhere: the bar follows the store
            progress = StoreProgress(campaign.store, campaign.study.id, bar)
            waiting = campaign.on_wait

            def on_wait() -> None:
                progress.update()
                if waiting is not None:
                    waiting()

            campaign.on_wait = on_wait
        report = campaign.run()
        if progress is not None:
            progress.update()
    summary = (f"{report.completed} trials completed, {report.failed} failed, {report.already_done} already in the "
               f"store" + (f", {report.invalid} configurations cannot run" if report.invalid else "")
               + f" ({report.seconds:.1f} s)")
    if report.not_needed:
        adaptive = campaign.adaptive
        summary += (f"; adaptive repeats: {report.not_needed} trials not needed once the mean was known to "
                    f"±{100 * adaptive.rel_half_width:g}% at {100 * adaptive.confidence:g}% confidence "
                    f"(about {report.saved_seconds:.1f} s saved)")
    for warning in report.testbed_warnings:
        terminal.warn(warning)
    if report.interrupted:
        terminal.warn(f"interrupted: {summary}; continue with --resume")
        raise KeyboardInterrupt
    if report.completed == 0 and report.failed > 0:
        raise IotuneError(f"no trial completed: {summary}; see the warnings above (iotune results --trials shows "
                          "each error)")
    terminal.success(summary)
    return report


def _describe(campaign, trial) -> str:
    try:
        return campaign.study.space.configuration(trial.config).describe()
    except IotuneError:
        return trial.config_key


class StoreProgress:
    """Advances a progress bar by the trials of a study run since it was made (by any worker).

    A trial counts once in one of ``states`` (run: COMPLETE or FAILED).  With
    ``whole_study`` the bar covers every trial of the study, finished before or
    not, and its total follows the queue as the controller adds to it.
    """

    def __init__(self, store, study_id: int, bar, whole_study: bool = False,
                 states: tuple[str, ...] = ("COMPLETE", "FAILED")):
        self.store, self.study_id, self.bar, self.whole_study, self.states = store, study_id, bar, whole_study, states
        self.start = 0 if whole_study else self._finished()[0]
        self.shown = 0

    def _finished(self) -> tuple[int, dict]:
        counts = self.store.queue_counts(self.study_id)
        return sum(counts.get(state, 0) for state in self.states), counts

    def update(self) -> dict:
        """Catch the bar up with the store; return the study's trial counts."""
        finished, counts = self._finished()
        if self.whole_study:
            self.bar.set_total(sum(counts.values()))
        status = f"running {counts.get('RUNNING', 0)}, queued {counts.get('PENDING', 0)}, " \
                 f"failed {counts.get('FAILED', 0)}"
        while self.shown < finished - self.start:
            self.shown += 1
            self.bar.advance(status)
        return counts
