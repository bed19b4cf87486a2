"""The recommendation for a workload (the one decision of :mod:`iotune.recommend.decision`, as ``iotune
recommend`` and ``iotune results`` give it): the best measured configuration and the ones its runs cannot
separate from it, or for an unmeasured workload the transfer prediction when it held on the measured ones;
the gain over the default configuration with an interval; and how to apply it (:mod:`iotune.apply.forms`),
with the hints as they took effect.

The gain is default time / recommended time (above 1: faster).  Its 95 % interval, when the study measured
both configurations for that workload at least twice: the ratio of their mean times, with the log-normal
interval of :mod:`iotune.variability.confidence` (their repeats' pooled spread, pooled with a conservative
prior while they are few).  A predicted gain has no interval.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from types import SimpleNamespace

from iotune.errors import IotuneError
from iotune.report.tables import Figure, Section, Table, label_of, system_label, workload_label, workload_names

MAX_WORKLOADS = 24
TOP = 3
CONFIDENCE = 0.95


def space_workloads(space, limit: int) -> list[dict] | None:
    """Every distinct valid workload of ``space`` (inactive parameters left out), or None when more than ``limit``."""
    import itertools

    from iotune.errors import SpaceError

    parameters = space.workload_parameters
    if math.prod(len(p.levels) for p in parameters) > 16 * limit:
        return None
    found: dict[str, dict] = {}
    for levels in itertools.product(*(p.levels for p in parameters)):
        try:
            configuration = space.configuration(dict(zip((p.name for p in parameters), levels, strict=True)))
        except SpaceError:
            continue
        found.setdefault(configuration.workload_key,
                         {k: v for k, v in configuration.workload().items() if v is not None})
        if len(found) > limit:
            return None
    return list(found.values())


def workloads_to_show(data, given: dict | None) -> tuple[list[dict], list[str]]:
    """The workloads to recommend for: the one given (values between levels are interpolated), else every
    workload of the space when there are at most MAX_WORKLOADS, else the measured ones."""
    space = data.space
    if given is not None:
        values = {p.name: given[p.name] for p in space.workload_parameters if given.get(p.name) is not None}
        notes = [f"the workload does not give {p.name}: its default {p.format(p.default)} is used"
                 for p in space.workload_parameters if p.name not in values]
        return [values], notes
    every = space_workloads(space, MAX_WORKLOADS)
    if every is not None:
        return sorted(every, key=lambda w: label_of(space, w)), []
    seen: dict[str, dict] = {}
    for trial in data.measured:
        seen.setdefault(trial.workload_key, {p.name: trial.config[p.name] for p in space.workload_parameters
                                             if trial.config.get(p.name) is not None})
    ordered = sorted(seen.values(), key=lambda w: label_of(space, w))
    notes = [] if len(ordered) <= MAX_WORKLOADS else [f"the first {MAX_WORKLOADS} of {len(ordered)} measured "
                                                      "workloads are shown; --workload chooses one"]
    return ordered[:MAX_WORKLOADS], notes


def apply_blocks(space, candidate, file_systems: Collection[str] = ()) -> list[tuple[str, str]]:
    """How to apply a candidate: each form of its hints, its environment, and storage to build.

    ``file_systems`` are those the study ran on (``fs_type`` of its platforms; none when unknown): the ``lfs
    setstripe`` of the striping hints is given for Lustre, or when the file system is unknown, and not for a
    study that ran elsewhere only (ext4 has no stripes to set).
    """
    from iotune.apply.forms import ior_env, lfs_setstripe, mpich_mpiio_hints, romio_hints_file

    hints, blocks = candidate.hints, []
    if hints:
        blocks.append(("ROMIO hints file (ROMIO_HINTS=FILE mpiexec ...)", romio_hints_file(hints)))
        blocks.append(("Cray MPICH", f"export MPICH_MPIIO_HINTS='{mpich_mpiio_hints(hints)}'"))
        blocks.append(("IOR", "\n".join(ior_env(hints))))
        stripe = lfs_setstripe(hints, "OUTPUT_DIR")
        if stripe and (not file_systems or "lustre" in file_systems):
            where = "" if file_systems else " (if it is on Lustre)"
            blocks.append((f"Lustre striping of the output directory{where}", stripe))
        elif stripe:
            blocks.append(("Striping", f"the study ran on {', '.join(sorted(file_systems))}, not Lustre: its striping "
                           "hints were passed to MPI-IO as measured, and it has no directory striping to set"))
    if candidate.env:
        blocks.append(("Environment", "\n".join(f"export {k}={v}" for k, v in candidate.env.items())))
    storage = [p for p in space.system_parameters if p.layer in ("device", "filesystem")
               and candidate.configuration.get(p.name) is not None]
    if storage:
        blocks.append(("Storage (built, not set by hints)", " ".join(
            f"{p.name}={p.format(candidate.configuration[p.name])}" for p in storage)))
    if not blocks:
        blocks.append(("Nothing to set", "every system parameter of this candidate is at a value that needs no hint"))
    return blocks


def _how_sure(decision) -> str:
    if decision.basis != "measured":
        return {"transfer": "predicted, not measured", "none": "no trustworthy prediction"}[decision.basis]
    if decision.separated:
        return "ahead of the rest"
    if len(decision.tied) > 1:
        return f"tied with {len(decision.tied) - 1}"
    return "only one measured" if len(decision.ranked) == 1 else "unknown: one run each"


def _gain(decision) -> tuple[float | None, float | None, float | None, str]:
    """(gain, 95% low, 95% high, where from) of the decision's best over the default configuration."""
    if decision.best is None:
        return None, None, None, "nothing recommended"
    if decision.basis != "measured":
        return decision.gain, None, None, "predicted, no interval"
    interval = decision.gain_interval  # the one estimate's (iotune.variability.estimate), as results and tune state
    if interval is not None:
        return interval.value, interval.low, interval.high, "measured, confirmed by a race" if decision.confirmed \
            else "measured"
    return decision.gain, None, None, "measured, too few runs for an interval" if decision.gain else \
        "default not measured"


def _label(space, decision) -> str:
    if decision.best is None:
        return "none: " + decision.advice
    text = system_label(space, decision.best)
    return text + "".join(f" ({k} ran as {r})" for k, (_, r) in decision.not_in_effect.items())


def recommendation_section(data, workload: dict | None = None, workload_source: str | None = None) -> Section:
    """The decision for the given or the space's workloads, gains with intervals, and how to apply it."""
    from iotune.recommend.answer import decide
    from iotune.recommend.elsewhere import comparable_studies, measured_elsewhere

    title = "Recommendation"
    if not data.measured:
        return Section.nothing("recommendation", title, "No configuration measured: nothing to recommend from.")
    try:
        workloads, notes = workloads_to_show(data, workload)
    except IotuneError as error:
        return Section.nothing("recommendation", title, f"No recommendation: {error}")
    section = Section("recommendation", title, paragraphs=[
        "The same answer as iotune results and iotune recommend: for a measured workload, its fastest measured "
        "configuration and how many others its runs cannot separate from it (the 95% interval of their time ratio, "
        "from the workload's pooled run-to-run noise and widened for picking the lowest, holds 1); "
        "for a workload another study of the store measured with the same benchmark, that study's runs; "
        "for an unmeasured one, the prediction from the other workloads' runs when it beat the default on them "
        "held out one at a time, else none. No model is asked about a measured workload."])
    if notes:
        section.paragraphs.append("Notes: " + "; ".join(notes) + ".")
    space = data.space
    names = workload_names(space, workloads)
    rows, failures, detailed = [], [], None
    elsewhere_notes: list[str] = []
    others = None  # the store's comparable studies, read once when a workload needs them
    for values in workloads:
        try:
            decision = decide(space, data.measured, values)
        except IotuneError as error:
            failures.append(f"{label_of(space, values)}: {error}")
            continue
        if decision.basis != "measured":
            if others is None:
                others = comparable_studies(data.store, data.study)
            elsewhere = measured_elsewhere(data.store, data.study, values, others)
            if elsewhere is not None:
                decision = elsewhere[1]
                elsewhere_notes.append(f"{label_of(space, values)}: {decision.notes[0]}")
        gain, low, high, basis = _gain(decision)
        rows.append((workload_label(space, values, names), _label(space, decision), decision.best_time,
                     decision.default_time, gain, low, high, basis, _how_sure(decision), len(decision.tied)))
        if detailed is None or len(decision.ranked) > len(detailed.ranked) or (detailed.best is None and decision.best):
            detailed = decision
    section.warnings += [f"No recommendation for {f}" for f in failures]
    if elsewhere_notes:
        section.paragraphs.append("Answered from another study of the store: " + "; ".join(elsewhere_notes) + ".")
    if not rows:
        section.empty = "No workload could be recommended for."
        return section
    table = Table(("workload", "recommended configuration", "time (s)", "default configuration time (s)",
                   "expected gain (x)", "95% low (x)", "95% high (x)", "gain from", "how sure",
                   "tied configurations"), rows, "Recommended configuration per workload",
                  "Time: mean measured I/O time, or predicted where the workload was not measured. Expected gain "
                  "over the default configuration: above 1 is better. Tied configurations: the measured ones the "
                  "runs cannot tell apart from the recommended one, itself included; any of them may be the "
                  "fastest, as far as these runs show.")
    section.tables.append(table)
    plotted = Table(table.columns, [r for r in rows if r[4] is not None], table.title, table.note)
    if plotted.rows:
        section.figures.append(Figure(
            "recommendation-gain", "gain", "Expected gain of the recommended configuration over the default "
            "configuration", plotted,
            "Per workload: the gain (x) of the recommended configuration over the default configuration, with its "
            "95% interval where both were measured at least twice. Left of 1: the default configuration is better.",
            {"label": "workload", "value": "expected gain (x)", "low": "95% low (x)", "high": "95% high (x)",
             "basis": "gain from"}))
    file_systems = {info["fs_type"] for info in data.platforms.values()
                    if info.get("fs_type") not in (None, "", "unknown")}
    _detail(section, space, detailed, workload is not None, workload_source, file_systems)
    return section


def _detail(section: Section, space, decision, given: bool, source: str | None,
            file_systems: Collection[str] = ()) -> None:
    """The chosen workload's ranked configurations, how sure the answer is, and how to apply it."""
    from iotune.spec.mapping import env_of

    where = f" ({source})" if source else ""
    label = label_of(space, decision.workload)
    if decision.basis == "measured":
        tied = {space.configuration(c).key for c in decision.tied}
        shown = decision.ranked[:max(TOP, min(len(decision.tied), 10))]
        section.tables.append(Table(
            ("rank", "configuration", "mean I/O time (s)", "runs", "vs default configuration (x)", "vs the best"),
            [(rank, system_label(space, m.config) + "".join(f" ({k} ran as {r})" for k, (_, r) in
                                                            m.not_in_effect.items()),
              m.mean, m.n, decision.default_time / m.mean if decision.default_time else None,
              "best" if rank == 1 else "tied" if m.key in tied else "slower" if decision.separated is not None
              else "unknown") for rank, m in enumerate(shown, start=1)],
            f"Measured configurations for {label}{where}, fastest first",
            f"{len(decision.ranked)} configurations measured for this workload."))
    section.paragraphs.append(f"For {label} (detailed below): {decision.message}."
                              + "".join(f" {note[0].upper()}{note[1:]}." for note in decision.notes))
    if decision.best is None:
        section.closing.append(f"No configuration is recommended for {label}: {decision.advice}.")
        return
    chosen = "" if given else " (of the workloads above, the one with the most configurations measured; " \
        "--workload chooses another)"
    section.closing.append(f"How to apply the recommended configuration for {label}{chosen}"
                           + (", with the hints as they took effect:" if decision.not_in_effect else ":"))
    configuration = {k: v for k, v in decision.best.items()}
    section.blocks += apply_blocks(space, SimpleNamespace(hints=decision.apply_hints, configuration=configuration,
                                                          env=env_of(space, configuration)), file_systems)
