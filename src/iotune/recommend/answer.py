"""The one answer to "which configuration for this workload, and how sure" (:mod:`iotune.recommend.decision`
says how): measured workloads from their runs, unmeasured ones from the transfer prediction when it held."""

from __future__ import annotations

from iotune.recommend.decision import (
    CONFIDENCE,
    Decision,
    decide_measured,
    default_configuration,
    measured_configurations,
    workload_of,
)
from iotune.recommend.transferred import decide_unmeasured


def decide(space, trials, values: dict, confidence: float = CONFIDENCE, seed: int = 0,
           tune_command: str = "") -> Decision:
    """The answer for the workload ``values`` (the rules: :mod:`iotune.recommend.decision`); ``trials``: the
    study's trial records.

    ``tune_command``: the ``iotune tune ...`` line to suggest when nothing is trustworthy."""
    workload, between = workload_of(space, values)
    groups = measured_configurations(space, trials)
    if not between:
        key = None
        if default_configuration(space, workload) is not None:
            configuration = space.configuration(dict(workload))
            key, workload = configuration.workload_key, configuration.workload()  # inactive ones None
        if key is None:
            key = next((k for k, g in groups.items()
                        if all(g[0].config.get(n) == v for n, v in workload.items())), None)
        if key in groups:
            return decide_measured(space, workload, groups[key], [g for k, g in groups.items() if k != key],
                                   confidence)
    shown = {**workload, **{name: _as_value(space.parameter(name), v) for name, v in between.items()}}
    return decide_unmeasured(space, groups, shown, workload, between, seed=seed, tune_command=tune_command)


def _as_value(parameter, number: float):
    return int(number) if parameter.type in ("size", "integer") and float(number).is_integer() else number


__all__ = ["decide"]
