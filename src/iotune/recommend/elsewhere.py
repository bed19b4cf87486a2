"""A workload answered from another study of the store that measured it: a measurement beats a prediction."""

from __future__ import annotations

from iotune.errors import IotuneError, SpaceError


def comparable_studies(store, opened) -> list:
    """(name, space, trials) of every other study of ``store`` than ``opened`` with the same benchmark, storage and
    parameters: the studies that may have measured one of its workloads (read once for many workloads)."""
    from iotune.stored import StoredStudy

    found = []
    for record in store.list_studies():
        if record.name == opened.name:
            continue
        other = StoredStudy(store, record)
        try:
            if (other.spec.benchmark, other.spec.storage) != (opened.spec.benchmark, opened.spec.storage) or \
                    {p.name for p in other.space.parameters} != {p.name for p in opened.space.parameters}:
                continue
        except (IotuneError, SpaceError, ValueError):
            continue
        found.append((record.name, other.space, [t for t in other.trials() if t.runner != "command"]))
    return found


def measured_elsewhere(store, opened, values: dict, studies: list | None = None):
    """(space, decision) from another study of ``store`` than ``opened`` that measured workload ``values`` with the
    same benchmark and storage (a study ``iotune tune`` made for a value between the spec's levels, or the prior
    study a tuned study was made from); the study with the most runs of it.  None when no study did.
    ``studies``: :func:`comparable_studies` when already read."""
    from iotune.recommend.answer import decide

    found = []
    for name, space, trials in comparable_studies(store, opened) if studies is None else studies:
        try:
            key = space.configuration(dict(values)).workload_key
        except (IotuneError, SpaceError, ValueError):
            continue
        runs = sum(t.workload_key == key and t.state == "COMPLETE" for t in trials)
        if runs:
            found.append((runs, name, space, trials))
    if not found:
        return None
    runs, name, space, trials = max(found, key=lambda item: (item[0], item[1]))
    decision = decide(space, trials, values)
    if decision.basis != "measured":
        return None
    decision.notes.insert(0, f"measured in study {name} ({runs} runs of this workload), which study {opened.name} "
                             "did not measure: a measurement beats a prediction")
    return space, decision
