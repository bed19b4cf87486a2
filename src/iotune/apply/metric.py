"""An application's own figure of merit, read from what it prints (``--metric REGEX --maximize|--minimize``).

An application often times its I/O itself and prints it: IOR's ``Max Write:
1234.56 MiB/sec``, h5bench's ``Observed write rate: ... MB/s``, a solver's
``checkpoint written in 0.12 s``.  That figure leaves out what a wall time
cannot: ``mpiexec`` and interpreter start-up, computation, sleeps.

The regular expression is searched in the command's standard output and
error; its first group (the whole match when it has none) must be a number,
and the **last** match counts (IOR prints a summary after the per-iteration
lines).  ``--maximize`` says higher is better (a bandwidth, a rate): the run is
stored as one ``run`` phase of ``1 / value`` seconds, so that lower is better
like every other objective; ``--minimize`` (the default) says the number is
itself a time in seconds.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from iotune.errors import IotuneError

NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


@dataclass(frozen=True)
class Metric:
    """A pattern whose first group is the application's figure of merit, and whether higher is better."""

    pattern: str
    maximize: bool = False

    @classmethod
    def parse(cls, pattern: str, maximize: bool = False) -> Metric:
        """The metric of ``--metric PATTERN``; IotuneError when the pattern is not a regular expression."""
        try:
            compiled = re.compile(pattern)
        except re.error as error:
            raise IotuneError(f"--metric {pattern!r} is not a regular expression: {error}") from None
        if compiled.groups > 1:
            raise IotuneError(f"--metric {pattern!r} has {compiled.groups} groups: give one, around the number, "
                              r"e.g. 'Max Write: *([0-9.]+) MiB/sec'")
        return cls(pattern, maximize)

    @property
    def direction(self) -> str:
        return "maximized" if self.maximize else "minimized"

    def find(self, output: str) -> float:
        """The figure the last match of the pattern in ``output`` gives; IotuneError when there is none."""
        matches = list(re.finditer(self.pattern, output))
        if not matches:
            raise IotuneError(f"the output has no line that --metric {self.pattern!r} matches")
        last = matches[-1]
        text = (last.group(1) if last.re.groups else last.group(0)).strip()
        if not NUMBER.match(text):
            raise IotuneError(f"--metric {self.pattern!r} matched {text!r}, not a number")
        value = float(text)
        if not math.isfinite(value) or value < 0 or (self.maximize and value == 0):
            raise IotuneError(f"--metric {self.pattern!r} gave {text}: a figure of merit must be finite and "
                              f"{'positive' if self.maximize else 'not negative'}")
        return value

    def seconds(self, value: float) -> float:
        """The stored, lower-is-better value of one run: the time itself, or 1 / value when maximized."""
        return 1.0 / value if self.maximize else value

    def shown(self, stored: float) -> str:
        """A stored value as the application printed it."""
        return f"{1.0 / stored:.4g} (metric)" if self.maximize and stored > 0 else f"{stored:.4g} (metric)"
