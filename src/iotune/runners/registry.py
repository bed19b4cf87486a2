"""The runners, found from their modules: names, help and factory for every command and the Python API.

Every module of :mod:`iotune.runners` that defines ``KIND`` (a :class:`~iotune.runners.base.RunnerKind`) is a
runner; nothing else lists them.  Adding a runner is its module here (with its ``KIND``) and its test.
Runner modules import their heavy parts (MPI, testbeds, the replay table's readers) only when a runner is made.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from iotune.declared import declared
from iotune.errors import IotuneError
from iotune.runners.base import RunnerKind, RunnerOptions


def _discover() -> dict[str, RunnerKind]:
    found: list[RunnerKind] = declared("iotune.runners", "KIND", RunnerKind, skip=("base", "registry"))
    found.sort(key=lambda kind: (not kind.default, kind.name))
    return {kind.name: kind for kind in found}


KINDS: dict[str, RunnerKind] = _discover()
"""Every runner by name, the default first."""

DEFAULT = next(kind.name for kind in KINDS.values() if kind.default)
"""The runner used when none is named (``--runner``'s default)."""

RUNNERS = {kind.usage: kind.help for kind in KINDS.values() if kind.by_name}
"""What ``--runner`` takes (``NAME`` or ``NAME:ARGUMENT``) -> what it is."""

RUNNER_HELP = "; ".join(f"{usage}: {what}" for usage, what in RUNNERS.items()) + "."


def default_scratch() -> Path:
    """Where a benchmark writes unless told: iotune-scratch under the system temp dir."""
    return Path(tempfile.gettempdir()) / "iotune-scratch"


def kind_of(text: str) -> tuple[RunnerKind, str]:
    """(the runner kind, its argument) of a ``--runner`` value; IotuneError naming the choices otherwise."""
    name, colon, argument = str(text).partition(":")
    kind = KINDS.get(name)
    if kind is None or not kind.by_name or bool(colon) != bool(kind.argument) or (colon and not argument):
        raise IotuneError(f"--runner must be one of {', '.join(RUNNERS)}, got {text!r}")
    return kind, argument


def _options(timeout: float, mpiexec: str | None, nodes: int, replay_scale: float, argument: str) -> RunnerOptions:
    if not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and timeout > 0):
        raise IotuneError(f"--timeout must be a positive number of seconds, got {timeout!r}")
    return RunnerOptions(timeout=timeout, mpiexec=mpiexec, nodes=nodes, replay_scale=replay_scale, argument=argument)


def make_runner(text: str, timeout: float, mpiexec: str | None, nodes: int = 1):
    """The runner ``text`` names (one that measures in a directory: ``builtin``, ``ior``), its ranks over
    ``nodes`` nodes of a Slurm allocation where it can."""
    kind, argument = kind_of(text)
    make = kind.make
    if make is None:
        raise IotuneError(f"--runner {text} needs the campaign's spec; it cannot run on a testbed")
    return make(_options(timeout, mpiexec, nodes, 1.0, argument))


def runner_and_storage(spec, text: str, timeout: float, mpiexec: str | None, scratch: Path,
                       testbed_dir: Path | None = None, replay_scale: float = 1.0, nodes: int = 1,
                       say: Callable[[str], None] | None = None):
    """The runner ``text`` names and the storage provider (None unless the spec varies storage) for ``spec``.

    ``nodes``: a trial's ranks span that many nodes (a worker in a Slurm allocation).  ``say(text)`` is told
    when the spec builds storage on testbeds.
    """
    kind, argument = kind_of(text)
    options = _options(timeout, mpiexec, nodes, replay_scale, argument)
    if kind.open is not None:
        return kind.open(spec, options, scratch)
    assert kind.make is not None  # kind_of returns only runners picked by name: make or open
    runner = kind.make(options)
    try:
        return runner, _testbeds(spec, kind, options, testbed_dir, say)
    except BaseException:
        runner.close()
        raise


def for_worker(spec, text: str) -> str:
    """``text`` as ``iotune worker --runner`` on another node needs it (a path made absolute), checked against
    ``spec`` here rather than in every worker."""
    kind, argument = kind_of(text)
    if kind.for_worker is None:
        return text
    return f"{kind.name}:{kind.for_worker(spec, argument)}"


def _testbeds(spec, kind: RunnerKind, options: RunnerOptions, testbed_dir: Path | None,
              say: Callable[[str], None] | None):
    """A TestbedProvider whose testbeds run ``kind``'s runner when ``spec`` builds storage, else None."""
    if not spec.uses_testbed:
        return None
    from iotune.testbed import TestbedProvider

    make = kind.make
    if make is None:
        raise IotuneError(f"--runner {kind.usage} brings its own storage; it cannot run on a testbed")
    provider = TestbedProvider(testbed_dir, lambda wrapper: make(replace(options, mpiexec=wrapper, nodes=1)),
                               options.mpiexec)
    provider.check()
    if say is not None:
        say("the spec builds storage: each storage configuration is measured on its own testbed")
    return provider


def storage_provider(spec, runner_kind: str, timeout: float, mpiexec: str | None, testbed_dir: Path | None = None,
                     say: Callable[[str], None] | None = None):
    """A TestbedProvider when ``spec`` builds storage, else None."""
    kind, argument = kind_of(runner_kind)
    return _testbeds(spec, kind, _options(timeout, mpiexec, 1, 1.0, argument), testbed_dir, say)
