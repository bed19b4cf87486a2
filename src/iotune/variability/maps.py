"""Variability maps: a model of a configuration's run-to-run spread (paper 003, Section 3).

A map approximates f(x) = a spread measure (standard deviation by default) of
the runs of configuration x.  As in the paper's 117 maps, ``per_category=True``
builds one map per combination of categorical parameters (the paper's I/O
scheduler x VM scheduler x I/O mode) over the numeric parameters as coordinates;
``per_category=False`` builds one map over every parameter, categories one-hot.

Coordinates come from :mod:`iotune.space.encoding`: sizes as log2(bytes),
integers as their value, booleans 0/1, ``<name>:active`` for conditional
parameters.  The paper leaves scaling open (moana_spec A4); here every
coordinate is min-max scaled to [0, 1] over the map's measured points, and a
coordinate constant over a map is dropped from it (the map is then constant
along that coordinate; a prediction ignores it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from sklearn.dummy import DummyRegressor

from iotune.learn.errors import PredictorError
from iotune.learn.metrics import average_relative_error
from iotune.learn.registry import make_predictor
from iotune.variability.errors import VariabilityError, check_predictor
from iotune.variability.repeats import Repeats
from iotune.variability.spread import describe, target_value


@dataclass
class MapPoints:
    """The measured points of one map: scaled coordinates ``X`` in [0, 1], targets ``y``.

    ``low``/``high``: per-coordinate range used for scaling (all encoded
    columns); ``kept``: columns that vary over the map (the columns of ``X``).
    """

    category: tuple
    X: np.ndarray
    y: np.ndarray
    config_keys: list[str]
    low: np.ndarray
    high: np.ndarray
    kept: np.ndarray
    indices: list[int] = field(default_factory=list)

    def scale(self, raw: np.ndarray) -> np.ndarray:
        span = self.high[self.kept] - self.low[self.kept]
        return (raw[:, self.kept] - self.low[self.kept]) / span


class Coordinates:
    """The numeric view of configurations of one space, and their category keys."""

    def __init__(self, space, per_category: bool = True):
        self.space = space
        self.per_category = per_category
        self.categorical = tuple(p.name for p in space.parameters if p.type == "categorical") if per_category else ()
        self._encoder = space.encoder("ordinal" if per_category else "onehot")
        names = self._encoder.feature_names
        self._columns = np.array([name not in self.categorical for name in names], dtype=bool)
        self.names = tuple(n for n, keep in zip(names, self._columns, strict=True) if keep)

    def category(self, config) -> tuple:
        """The map a configuration belongs to: ((name, value), ...) of its categorical parameters."""
        return tuple((name, config.get(name)) for name in self.categorical)

    def raw(self, configs) -> np.ndarray:
        """Unscaled coordinates, one row per configuration."""
        return self._encoder.transform(configs)[:, self._columns]


def describe_category(category: tuple) -> str:
    return ", ".join(f"{name}={value}" for name, value in category) or "(all configurations)"


def map_points(repeats: Repeats, target: str = "std", per_category: bool = True) -> list[MapPoints]:
    """Group a study's configurations into maps and compute each one's target (see :func:`spread.target_value`)."""
    coords = Coordinates(repeats.space, per_category)
    raw = coords.raw(repeats.configs)
    values = np.array([target_value(describe(t), target) for t in repeats.times])
    groups: dict[tuple, list[int]] = {}
    for i, config in enumerate(repeats.configs):
        groups.setdefault(coords.category(config), []).append(i)
    maps = []
    for category, idx in groups.items():
        low, high = raw[idx].min(axis=0), raw[idx].max(axis=0)
        kept = high > low
        points = MapPoints(category, np.empty((len(idx), int(kept.sum()))), values[idx],
                           [repeats.config_keys[i] for i in idx], low, high, kept, idx)
        points.X = points.scale(raw[idx])
        maps.append(points)
    return maps


class VariabilityMap:
    """Variability maps of a study, fitted with one predictor; predicts unmeasured configurations.

    Parameters
    ----------
    target : {"std", "cv", "mean", "q95"}
        Spread measure mapped: standard deviation (s), coefficient of
        variation (unitless), mean (s) or 95 % quantile (s) of the runs.
    predictor : {"lsp", "mars", "delaunay", "linear"}
        See :mod:`iotune.learn.registry`.
    per_category : bool
        One map per combination of categorical parameters (paper 003) or one
        map for all.

    Attributes
    ----------
    maps_ : dict
        Category key -> (MapPoints, fitted regressor).  A map of one point or
        with no varying coordinate is a constant (its mean).
    coordinates_ : tuple of str
        Coordinate names before per-map dropping.
    in_sample_are_ : float
        Average relative error (paper 003, Eq. 1) on the measured points with a
        non-zero target (0 for interpolants, LSP and Delaunay).
    """

    def __init__(self, target: str = "std", predictor: str = "lsp", per_category: bool = True):
        self.target = target
        self.predictor = predictor
        self.per_category = per_category

    def fit(self, repeats: Repeats) -> VariabilityMap:
        """Fit one regressor per map on the configurations with enough runs (2; 1 for ``mean``)."""
        check_predictor(self.predictor)
        repeats = repeats.require_repeats(1 if self.target == "mean" else 2)
        self._coords = Coordinates(repeats.space, self.per_category)
        self.coordinates_ = self._coords.names
        self.maps_ = {}
        truth, fitted = [], []
        for points in map_points(repeats, self.target, self.per_category):
            if not np.all(np.isfinite(points.y)):
                raise VariabilityError(f"map {describe_category(points.category)}: target {self.target} is undefined "
                                       "for some configuration (cv of a zero mean time)")
            if points.X.shape[1] == 0 or len(points.y) < 2:
                model = DummyRegressor().fit(np.zeros((len(points.y), 1)), points.y)
            else:
                try:
                    model = make_predictor(self.predictor, "variability").fit(points.X, points.y)
                except PredictorError as exc:
                    raise VariabilityError(f"map {describe_category(points.category)}: {exc}") from exc
            self.maps_[points.category] = (points, model)
            truth.append(points.y)
            fitted.append(self._predict_map(points, model, points.X))
        self.in_sample_are_ = average_relative_error(np.concatenate(truth), np.concatenate(fitted), skip_zero=True)
        self.n_configurations_ = len(repeats)
        return self

    @staticmethod
    def _predict_map(points, model, X):
        if isinstance(model, DummyRegressor):
            return model.predict(np.zeros((len(X), 1)))
        return np.asarray(model.predict(X), dtype=np.float64)

    def predict(self, configurations) -> np.ndarray:
        """Predicted target per configuration (dicts or Configuration objects).

        VariabilityError for a configuration whose combination of categorical
        parameters was never measured: no map covers it.
        """
        if not hasattr(self, "maps_"):
            raise VariabilityError("this VariabilityMap is not fitted yet; call fit(repeats) first")
        configurations = list(configurations)
        out = np.empty(len(configurations))
        raw = self._coords.raw(configurations)
        groups: dict[tuple, list[int]] = {}
        for i, config in enumerate(configurations):
            groups.setdefault(self._coords.category(config), []).append(i)
        for category, idx in groups.items():
            if category not in self.maps_:
                measured = "; ".join(describe_category(c) for c in self.maps_)
                raise VariabilityError(f"no variability map for {describe_category(category)}: that combination "
                                       f"of categorical parameters was never measured (maps: {measured})")
            points, model = self.maps_[category]
            out[idx] = self._predict_map(points, model, points.scale(raw[idx]))
        return out
