"""What a runner module declares: its :class:`RunnerKind` (``KIND``), found by :mod:`iotune.runners.registry`.

A runner is any object with ``run(benchmark_spec, scratch) -> Measurement`` (a
failure is a FAILED measurement, never an exception) and ``close()``; one that
needs the configuration's values rather than the benchmark spec also defines
``run_configuration(config, benchmark_spec, scratch)`` (the worker calls it
instead).  This module imports nothing heavy: ``iotune --help`` reads every
runner's help through it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class RunnerOptions:
    """What a command passes to whichever runner it builds (each runner reads the fields it needs).

    ``timeout``: seconds before a trial is stopped and FAILED; ``mpiexec``: the launcher (None: found);
    ``nodes``: nodes a trial's ranks span (a Slurm allocation); ``replay_scale``: a replay sleeps this times
    the recorded time; ``argument``: what follows ``NAME:`` (a replay's table).
    """

    timeout: float = 600.0
    mpiexec: str | None = None
    nodes: int = 1
    replay_scale: float = 1.0
    argument: str = ""


@dataclass(frozen=True)
class RunnerKind:
    """One runner as the registry lists it.

    ``name`` is what ``--runner`` starts with and what a stored measurement's ``runner`` says; ``argument``
    the placeholder of what follows ``NAME:`` (``"TABLE.csv"``), empty when nothing does.  A runner picked by
    name has ``make(options) -> runner`` (measured in the scratch directory, or on testbeds when the spec
    builds storage) or ``open(spec, options, scratch) -> (runner, storage)`` (it brings its own stand-in for
    the storage); a runner made from what the user gives (a command, a function) has neither and is listed
    only.  ``for_worker(spec, argument)`` checks the argument against the spec and returns it as a worker on
    another node needs it (an absolute path); ``default`` marks the runner used when none is named.
    """

    name: str
    help: str
    make: Callable[[RunnerOptions], Any] | None = None
    open: Callable[[Any, RunnerOptions, Path], tuple[Any, Any]] | None = None
    argument: str = ""
    for_worker: Callable[[Any, str], str] | None = None
    default: bool = False

    @property
    def usage(self) -> str:
        """``NAME`` or ``NAME:ARGUMENT`` as the help shows it."""
        return f"{self.name}:{self.argument}" if self.argument else self.name

    @property
    def by_name(self) -> bool:
        """Whether ``--runner`` can pick it (a command or a function runner is made from what the user gives)."""
        return self.make is not None or self.open is not None
