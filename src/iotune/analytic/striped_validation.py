"""Leave-one-workload-out validation of the placement model (issue 33's "done when").

For each workload: fit on every other workload's runs, then predict the held-out
one's layouts.  Per held-out workload:

* ``spearman``: Spearman rho between the predicted mean and the measured mean of
  each layout (stripe count x stripe unit x object size; a layout's runs pooled
  over the other settings, e.g. collective-buffering hints);
* ``best_rank``: the measured best layout's place in the predicted order (1 =
  predicted best; layouts predicted exactly as fast share the better place);
* ``band``: the share of single runs inside their layout's predicted 10-90 % band.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iotune.analytic.striped_fit import BAND, fit_striped
from iotune.analytic.striped_runs import StripedRun


@dataclass(frozen=True)
class HeldOut:
    workload: str
    runs: int
    layouts: int
    spearman: float
    best_rank: int
    inside: int
    predicted_best: tuple
    measured_best: tuple
    queue: str

    @property
    def band(self) -> float:
        return self.inside / self.runs


def evaluate(model, runs: list[StripedRun]) -> tuple[float, int, int, tuple, tuple]:
    """Spearman rho, the measured best layout's predicted rank, runs inside the band, predicted and measured best
    layouts, for one workload's ``runs`` under ``model``."""
    from scipy.stats import spearmanr

    layouts: dict = {}
    for run in runs:
        layouts.setdefault(run.write, []).append(run.seconds)
    writes = list(layouts)
    predicted = np.array([model.mean(w) for w in writes])
    measured = np.array([np.mean(layouts[w]) for w in writes])
    inside = 0
    for write in writes:
        low, high = model.quantiles(write, BAND)
        times = np.array(layouts[write])
        inside += int(np.sum((times >= low) & (times <= high)))
    best = int(np.argmin(measured))
    rank = 1 + int(np.sum(predicted < predicted[best] * (1 - 1e-9)))
    rho = float(spearmanr(predicted, measured).statistic) if len(writes) > 2 else float("nan")
    return rho, rank, inside, writes[int(np.argmin(predicted))].layout(), writes[best].layout()


def leave_one_workload_out(runs: list[StripedRun], **fit_options) -> list[HeldOut]:
    """One HeldOut per workload, each predicted by a model fitted on the other workloads."""
    names = sorted({run.workload for run in runs})
    results = []
    for name in names:
        train = [(run.write, run.seconds) for run in runs if run.workload != name]
        test = [run for run in runs if run.workload == name]
        model = fit_striped(train, **fit_options)
        rho, rank, inside, predicted_best, measured_best = evaluate(model, test)
        results.append(HeldOut(name, len(test), len({r.write for r in test}), rho, rank, inside, predicted_best,
                               measured_best, (model.fit_ or {}).get("queue", "")))
    return results


def split_half(runs: list[StripedRun]) -> float:
    """The measured order's own reliability: the mean, over every way of splitting the repeats (rounds) into two
    halves of equal size, of Spearman rho between the two halves' layout means.  What a model that knew each
    layout's true mean could expect to score against half of these runs; nan with fewer than 2 repeats or 3
    layouts."""
    import itertools

    from scipy.stats import spearmanr

    rounds = sorted({run.repeat for run in runs if run.repeat is not None})
    layouts = sorted({run.write for run in runs}, key=repr)
    if len(rounds) < 2 or len(layouts) < 3:
        return float("nan")
    times = {(run.write, run.repeat): run.seconds for run in runs}
    half = len(rounds) // 2
    scores = []
    for first in itertools.combinations(rounds, half):
        if rounds[0] not in first:
            continue  # each split once, not also with its halves swapped
        second = [r for r in rounds if r not in first][:half]
        means = [[float(np.mean([times[(w, r)] for r in side if (w, r) in times] or [np.nan])) for w in layouts]
                 for side in (first, second)]
        if not np.all(np.isfinite(means)):
            continue
        scores.append(float(spearmanr(means[0], means[1]).statistic))
    return float(np.mean(scores)) if scores else float("nan")
