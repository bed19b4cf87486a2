"""Table-2-style evaluation of variability maps (paper 003, Section 3, Eq. 1 and Table 2).

For each training proportion p, each map's measured points are split at random
into a training part (p) and a test part (1 - p); every predictor is fitted on
the same training part and scored on the test part by the average relative
error ARE = mean |f~ - f| / f (Eq. 1).  This is repeated ``repeats`` times
(the paper's B = 200), seeded.

Choices the paper leaves open (moana_spec A6), made here:

- training size: round half up, n_train = floor(p n + 0.5), clipped to
  [1, n - 1] so both parts are non-empty;
- zero targets (a configuration whose runs were all equal): r is undefined, so
  those test points are left out of the ARE; a split whose test points are all
  zero scores nothing;
- averaging is nested: mean over the splits of a map, then mean over maps
  (the same as the paper's when every split has the same size);
- a fit that cannot be made (too few or degenerate points for Delaunay or LSP,
  a non-finite prediction) is counted in ``failed`` and left out of the mean;
- maps with fewer than ``min_points`` configurations are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iotune.learn.metrics import average_relative_error
from iotune.learn.registry import VARIABILITY as PREDICTORS
from iotune.learn.registry import make_predictor
from iotune.variability.errors import VariabilityError, check_predictor
from iotune.variability.maps import MapPoints, map_points
from iotune.variability.repeats import Repeats

PROPORTIONS = (0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1)


@dataclass(frozen=True)
class EvaluationRow:
    """One row of Table 2: ARE per predictor (a fraction; NaN when nothing could be scored)."""

    train_proportion: float
    test_proportion: float
    are: dict[str, float]
    maps: dict[str, int]
    failed: dict[str, int]

    def to_dict(self) -> dict:
        return {"train_proportion": self.train_proportion, "test_proportion": self.test_proportion,
                **{f"are_{k}": v for k, v in self.are.items()}, **{f"maps_{k}": v for k, v in self.maps.items()},
                **{f"failed_{k}": v for k, v in self.failed.items()}}


def training_size(p: float, n: int) -> int:
    """Points used for training at proportion p of n points: round half up, within [1, n - 1]."""
    return int(min(max(np.floor(p * n + 0.5), 1), n - 1))


def _split_are(name: str, X, y, train, test) -> float | None:
    """ARE of predictor ``name`` on one split; None when it cannot be fitted or predicts non-finite values."""
    scored = test[y[test] != 0]
    if scored.size == 0:
        return float("nan")
    try:
        model = make_predictor(name, "variability").fit(X[train], y[train])
        pred = np.asarray(model.predict(X[scored]), dtype=np.float64)
    except (VariabilityError, ValueError, np.linalg.LinAlgError):
        return None
    if not np.all(np.isfinite(pred)):
        return None
    return average_relative_error(y[scored], pred)


def evaluate_maps(maps: list[MapPoints], predictors=PREDICTORS, proportions=PROPORTIONS, repeats: int = 200,
                  seed: int = 0, min_points: int = 3) -> list[EvaluationRow]:
    """Table 2 over prepared maps (see :func:`iotune.variability.maps.map_points`)."""
    for name in predictors:
        check_predictor(name)
    if repeats < 1:
        raise VariabilityError(f"repeats must be >= 1, got {repeats}")
    bad = [p for p in proportions if not 0.0 < p < 1.0]
    if bad:
        raise VariabilityError(f"training proportions must be in (0, 1), got {bad}")
    usable = [m for m in maps if len(m.y) >= min_points and m.X.shape[1] > 0]
    if not usable:
        raise VariabilityError(f"no map has >= {min_points} configurations with a varying coordinate to split")
    rng = np.random.default_rng(seed)
    rows = []
    for p in proportions:
        per_map: dict[str, list] = {name: [] for name in predictors}
        failed = dict.fromkeys(predictors, 0)
        for points in usable:
            n = len(points.y)
            k = training_size(p, n)
            scores: dict[str, list] = {name: [] for name in predictors}
            for _ in range(repeats):
                order = rng.permutation(n)
                train, test = order[:k], order[k:]
                for name in predictors:
                    are = _split_are(name, points.X, points.y, train, test)
                    if are is None:
                        failed[name] += 1
                    elif np.isfinite(are):
                        scores[name].append(are)
            for name in predictors:
                if scores[name]:
                    per_map[name].append(float(np.mean(scores[name])))
        rows.append(EvaluationRow(
            p, round(1.0 - p, 10),
            {name: float(np.mean(v)) if v else float("nan") for name, v in per_map.items()},
            {name: len(v) for name, v in per_map.items()}, failed))
    return rows


def evaluate(repeats: Repeats, target: str = "std", per_category: bool = True, predictors=PREDICTORS,
             proportions=PROPORTIONS, n_repeats: int = 200, seed: int = 0) -> list[EvaluationRow]:
    """Table 2 for a study's runs: maps of ``target`` over the configurations with >= 2 runs."""
    repeats = repeats.require_repeats(1 if target == "mean" else 2)
    maps = map_points(repeats, target, per_category)
    undefined = [m for m in maps if not np.all(np.isfinite(m.y))]
    if undefined:
        raise VariabilityError(f"target {target} is undefined for some configuration (cv of a zero mean time)")
    return evaluate_maps(maps, predictors, proportions, n_repeats, seed)
