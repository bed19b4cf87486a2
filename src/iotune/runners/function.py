"""A runner that calls a Python function: ``func(config) -> seconds`` (``study.optimize(func)``).

The function gets the trial's configuration as a plain dict (parameter name ->
value) and returns the seconds to minimise.  An exception in it, or a value
that is not a finite number >= 0, is a FAILED trial with the error text:
nothing the function does crashes the study (Ctrl-C still interrupts it).
"""

from __future__ import annotations

import math
import time
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path

from iotune.records import BenchmarkSpec, Measurement, PhaseResult
from iotune.runners.base import RunnerKind

RUNNER = "function"

KIND = RunnerKind(RUNNER, "a Python function config -> seconds (study.optimize(func))")


class FunctionRunner:
    """Measures a configuration by calling ``func(config)``; its return value is the trial's time in seconds."""

    name = RUNNER

    def __init__(self, func: Callable[[dict], float]):
        if not callable(func):
            raise TypeError(f"optimize needs a function config -> seconds, got {type(func).__name__}")
        self.func = func
        self.label = getattr(func, "__qualname__", None) or repr(func)
        self.calls = 0
        self.last_error: BaseException | None = None  # the exception of the last call (None: it returned)
        self.first_error: str | None = None  # the first failure's text, shown by ``optimize``

    def run_configuration(self, config: Mapping, spec: BenchmarkSpec | None, scratch: Path) -> Measurement:
        """Call the function on ``config``; a COMPLETE measurement of one ``run`` phase, or FAILED."""
        self.calls += 1
        command = f"python function {self.label}"
        begin = time.perf_counter()
        self.last_error = None
        try:
            value = self.func(dict(config))
        except Exception as error:  # the user's function: any failure is the trial's, not the study's
            frame = traceback.extract_tb(error.__traceback__)[-1:]
            where = f" ({frame[0].filename}:{frame[0].lineno})" if frame else ""
            self.last_error = error
            return self._failed(f"{type(error).__name__}: {error}{where}", command, time.perf_counter() - begin)
        wall = time.perf_counter() - begin
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            seconds = float("nan")
        if isinstance(value, bool) or not math.isfinite(seconds) or seconds <= 0:
            return self._failed(f"the function returned {value!r}, not a number of seconds > 0", command, wall)
        phase = PhaseResult("run", 0, seconds, None, seconds, None, 0)
        return Measurement("COMPLETE", [phase], runner=RUNNER, command=command, wall_seconds=wall,
                           extra={"phase_seconds_source": "function return value"})

    def _failed(self, error: str, command: str, wall: float) -> Measurement:
        self.first_error = self.first_error or error
        return Measurement.failed(error, runner=RUNNER, command=command, wall_seconds=wall)

    def run(self, spec: BenchmarkSpec, scratch: Path) -> Measurement:
        return Measurement.failed("a function runner needs the trial's configuration (run by a study's worker)",
                                  runner=RUNNER)

    def close(self) -> None:
        pass
