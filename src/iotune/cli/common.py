"""What several commands share: runners, scratch, signals, and running a campaign with a progress bar."""

from __future__ import annotations

import tempfile
from pathlib import Path

from iotune.cli.terminal import Terminal
from iotune.errors import IotuneError

RUNNERS = ("builtin", "ior")


def default_scratch() -> Path:
    return Path(tempfile.gettempdir()) / "iotune-scratch"


def prepare_scratch(scratch: Path | None) -> Path:
    """The scratch directory, created if needed (default: iotune-scratch under the system temp dir)."""
    scratch = Path(scratch) if scratch is not None else default_scratch()
    try:
        scratch.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise IotuneError(f"cannot use scratch directory {scratch}: {error.strerror or error}") from None
    return scratch


def make_runner(kind: str, timeout: float, mpiexec: str | None):
    """The benchmark runner ``kind`` (builtin: iotune's MPI kernel; ior: the ior binary)."""
    if kind == "builtin":
        from iotune.bench.runner import BuiltinRunner

        return BuiltinRunner(mpiexec=mpiexec, timeout=timeout)
    if kind == "ior":
        from iotune.bench.ior import IorRunner

        return IorRunner(mpiexec=mpiexec, timeout=timeout)
    raise IotuneError(f"--runner must be one of {', '.join(RUNNERS)}, got {kind!r}")


def storage_provider(spec, runner_kind: str, timeout: float, mpiexec: str | None, testbed_dir: Path | None = None):
    """A TestbedProvider when ``spec`` builds storage, else None."""
    if not spec.uses_testbed:
        return None
    from iotune.testbed import TestbedProvider

    provider = TestbedProvider(testbed_dir, lambda wrapper: make_runner(runner_kind, timeout, wrapper), mpiexec)
    provider.check()
    Terminal().info("the spec builds storage: each storage configuration is measured on its own testbed")
    return provider


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

        if campaign.worker is not None:
            campaign.worker.on_trial = on_trial
        report = campaign.run()
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
        terminal.error(f"every trial failed: {summary}")
        raise IotuneError("no trial completed; see the warnings above (iotune results --trials shows each error)")
    terminal.success(summary)
    return report


def _describe(campaign, trial) -> str:
    try:
        return campaign.study.space.configuration(trial.config).describe()
    except IotuneError:
        return trial.config_key
