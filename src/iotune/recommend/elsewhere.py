"""A workload answered from another study of the store that measured it: a measurement beats a prediction."""

from __future__ import annotations

from iotune.errors import IotuneError, SpaceError


def measured_elsewhere(store, opened, values: dict):
    """(space, decision) from another study of ``store`` than ``opened`` that measured workload ``values`` with the
    same benchmark and storage (a study ``iotune tune`` made for a value between the spec's levels, or the prior
    study a tuned study was made from); the study with the most runs of it.  None when no study did."""
    from iotune.recommend.answer import decide
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
            key = other.space.configuration(dict(values)).workload_key
        except (IotuneError, SpaceError, ValueError):
            continue
        trials = [t for t in other.trials() if t.runner != "command"]
        runs = sum(t.workload_key == key and t.state == "COMPLETE" for t in trials)
        if runs:
            found.append((runs, record.name, other.space, trials))
    if not found:
        return None
    runs, name, space, trials = max(found, key=lambda item: (item[0], item[1]))
    decision = decide(space, trials, values)
    if decision.basis != "measured":
        return None
    decision.notes.insert(0, f"measured in study {name} ({runs} runs of this workload), which study {opened.name} "
                             "did not measure: a measurement beats a prediction")
    return space, decision
