"""Search progress: best-so-far against the configurations a search measured, beside random sampling.

The search's curve: configurations in the order the sampler proposed them
(the trials' ``seq``, the queue order), each valued by its mean objective over
its COMPLETE repeats; after k configurations, the best value among them.

Random sampling on the same measurements: the expected best of k configurations
picked uniformly without replacement from the M configurations the search
measured, computed exactly from their means.  With values sorted best first,
v_1 .. v_M, the best of k picks is v_i with probability C(M-i, k-1) / C(M, k)
(the other k-1 picks come from the M-i worse ones), so
E[best of k] = sum_i v_i C(M-i, k-1) / C(M, k), and P(best of k is v_i or
better) = 1 - C(M-i, k) / C(M, k), which gives the 10 % and 90 % quantiles.
This random search draws from what the search chose to measure, not from the
whole space: it is a baseline on equal data, not a rerun.
"""

from __future__ import annotations

import math

import numpy as np

from iotune.report.tables import Figure, Section, Table
from iotune.samplers import HEURISTICS
from iotune.study.objective import Objective

SEARCH_SAMPLERS = (*HEURISTICS, "pb-walk")
BAND = (0.10, 0.90)


def _log_comb(n: np.ndarray | int, k: int) -> np.ndarray:
    """log C(n, k) elementwise, -inf where n < k."""
    n = np.asarray(n, dtype=float)
    out = np.full(n.shape, -np.inf)
    ok = n >= k
    out[ok] = [math.lgamma(v + 1) - math.lgamma(k + 1) - math.lgamma(v - k + 1) for v in n[ok]]
    return out


def random_best(values, k: int, better: str = "lower") -> tuple[float, float, float]:
    """Expected best of ``k`` picks without replacement from ``values``, and its 10 % and 90 % quantiles.

    ``better`` is "lower" or "higher".  Exact (module docstring).
    """
    v = np.sort(np.asarray(values, dtype=float))
    if better == "higher":
        v = v[::-1]
    m = v.size
    if not 1 <= k <= m:
        raise ValueError(f"k must be between 1 and {m}, got {k}")
    i = np.arange(1, m + 1)
    weights = np.exp(_log_comb(m - i, k - 1) - _log_comb(m, k)[()])
    expected = float(np.sum(weights * v))
    at_or_better = 1.0 - np.exp(_log_comb(m - i, k) - _log_comb(m, k)[()])
    low = v[int(np.searchsorted(at_or_better, BAND[0] - 1e-12))]
    high = v[int(np.searchsorted(at_or_better, BAND[1] - 1e-12))]
    return expected, float(low), float(high)


def search_order(data, objective: Objective) -> list[tuple[str, float]]:
    """(configuration key, mean objective value in display units) in the order the sampler proposed them."""
    runs: dict[str, list[float]] = {}
    first: dict[str, float] = {}
    for trial in data.trials:
        order = trial.seq if trial.seq is not None else trial.id
        first[trial.config_key] = min(first.get(trial.config_key, math.inf), order)
        if trial.state == "COMPLETE" and trial.phases:
            value = objective.run_value(trial)
            if value is not None:
                runs.setdefault(trial.config_key, []).append(value)
    ordered = sorted(runs, key=lambda key: first[key])
    out = []
    for key in ordered:
        mean = float(np.mean(runs[key]))
        out.append((key, 1.0 / mean if objective.name == "bandwidth" else mean))
    return out


def progress_table(data, objective_name: str = "time") -> tuple[Table, str, str]:
    """Best-so-far of the search and of random sampling per configurations measured; with the value's unit."""
    objective = Objective(objective_name)
    better = "higher" if objective_name == "bandwidth" else "lower"
    unit = {"time": "I/O time (s)", "bandwidth": "bandwidth (MiB/s)", "cost": "cost (currency units)"}[objective_name]
    ordered = search_order(data, objective)
    values = [v for _, v in ordered]
    rows = []
    best = math.nan
    for k, value in enumerate(values, start=1):
        best = value if k == 1 else (min(best, value) if better == "lower" else max(best, value))
        expected, low, high = random_best(values, k, better)
        rows.append((k, value, best, expected, low, high))
    columns = ("configurations measured", f"this configuration's mean {unit}", f"search best so far {unit}",
               f"random sampling, expected best {unit}", f"random sampling, 10% quantile {unit}",
               f"random sampling, 90% quantile {unit}")
    return Table(columns, rows, "Best so far against configurations measured"), unit, better


def progress_section(data) -> Section:
    """The search's best-so-far beside random sampling; says plainly when the study was not a search."""
    title = "Search progress"
    sampler = data.settings.get("sampler") or data.spec.campaign.sampler
    if sampler not in SEARCH_SAMPLERS:
        return Section.nothing("progress", title, f"This study's configurations were chosen by the {sampler} "
                               f"sampler, not by a search ({', '.join(SEARCH_SAMPLERS)}): there is no search "
                               "progress to show.")
    objective = data.spec.campaign.objective
    table, unit, better = progress_table(data, objective)
    if len(table) < 2:
        return Section.nothing("progress", title, f"The {sampler} search measured {len(table)} configuration(s): "
                               "too few for a curve.")
    section = Section("progress", title)
    short = unit.split("(")[-1].rstrip(")")
    last = table.rows[-1]
    found_at = next(row[0] for row in table.rows if row[2] == last[2])
    section.paragraphs.append(
        f"The {sampler} search measured {len(table)} configurations ({data.spec.campaign.repeats} repeat(s) each; "
        f"objective {objective}, {better} is better). It found its best, {last[2]:.4g} {short}, "
        + ("with its first configuration" if found_at == 1 else f"after {found_at} configurations")
        + f". Random sampling of the same {len(table)} configurations would be expected to find "
        f"{table.rows[found_at - 1][3]:.4g} {short} after as many.")
    section.tables.append(Table(table.columns[:1] + table.columns[2:4], [(r[0], r[2], r[3]) for r in table.rows],
                                "Best so far (search and random sampling)"))
    section.figures.append(Figure(
        "search-progress", "progress", "Best so far against configurations measured", table,
        "Solid: the best value the search had found after each configuration. Dashed with band: random sampling "
        "of the same configurations (expected best, 10% to 90% of its outcomes), computed exactly from their "
        "measured means. Dots: each configuration's mean, in the order measured.",
        {"x": table.columns[0], "value": table.columns[1], "best": table.columns[2], "expected": table.columns[3],
         "low": table.columns[4], "high": table.columns[5], "better": better}))
    return section
