"""Score every candidate system configuration for one workload and report the best (paper 000, Algorithm 1).

The workload's level indices are fixed and the system parameters' mixed-radix
index space is walked in chunks (:class:`~iotune.recommend.subspace.SubSpace`):
``Space.active_mask`` applies ``when:`` rules and constraints, rows whose
inactive system parameters are not at level 0 are dropped so that each
distinct configuration is scored once, ``Encoder.transform_indices`` encodes
and the model predicts a chunk at a time.  Memory is bounded by the chunk
(65,536 rows by default), a running top-k, and every valid candidate's
prediction kept as float32 (4 bytes per candidate: 7 MB for 1.77 M) for the
exact median of Eq. 3/4 and the co-champion count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from iotune.errors import IotuneError, SpaceError
from iotune.recommend.cost import CostModel
from iotune.recommend.result import Candidate, Recommendation
from iotune.recommend.subspace import SubSpace
from iotune.space import Space
from iotune.space.space import WALK_LIMIT, how_many
from iotune.spec.mapping import env_of, hints_of

OBJECTIVES = ("time", "bandwidth", "cost")
# Model targets each objective can be computed from; cost also from time, by Eq. 2.
SOURCES = {"time": ("time", "relative"), "bandwidth": ("bandwidth",), "cost": ("cost", "time")}
UNITS = {"time": "s", "bandwidth": "MiB/s", "relative": "x baseline"}
EXAMPLES = 5


class RecommendError(IotuneError, ValueError):
    """A recommendation cannot be computed from this model, workload or objective."""


class Recommender:
    """Recommends system configurations for a workload from a :class:`~iotune.learn.TrainedModel`.

    ``cost_model`` prices runs for the cost objective when the model predicts
    time (default: the packaged illustrative pricing).  ``space``, when given,
    must be the space the model was trained on.  ``rtol`` is the relative
    tolerance within which a prediction ties the best (co-champions).
    """

    def __init__(self, model, cost_model: CostModel | None = None, *, space: Space | None = None,
                 chunk_size: int = 65_536, rtol: float = 1e-6):
        if space is not None and space.hash != model.space.hash:
            raise RecommendError(f"model {model.name!r} was trained on space {model.space.name!r} "
                                 f"({model.space.hash}), not on space {space.name!r} ({space.hash}); retrain it")
        self.model = model
        self.space = model.space
        self.encoder = model.encoder
        expected = getattr(model.estimator, "n_features_in_", None)
        if expected is not None and expected != self.encoder.n_features:
            raise RecommendError(f"model {model.name!r} expects {expected} features but space {self.space.name!r} "
                                 f"encodes {self.encoder.n_features}: it was trained on another space")
        self.cost_model = cost_model
        self.chunk_size = chunk_size
        self.rtol = rtol

    def recommend(self, workload: Mapping[str, Any], objective: str = "time", top: int = 3,
                  baseline: Mapping[str, Any] | None = None, constraints: Sequence[str] = (),
                  compute_instances: int | None = None) -> Recommendation:
        """The ``top`` best system configurations for ``workload`` under ``objective``.

        ``workload`` maps every workload parameter to a value (sizes as
        ``"1MiB"`` or bytes).  ``baseline`` gives system values of the
        baseline configuration (unset ones take their defaults).
        ``constraints`` are extra expressions, as in a space spec, that
        candidates must satisfy.  ``compute_instances`` feeds Eq. 2 (default:
        derived from ``processes`` and the instance's cores).
        """
        if objective not in OBJECTIVES:
            raise RecommendError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
        if isinstance(top, bool) or not isinstance(top, int) or top < 1:
            raise RecommendError(f"top must be a positive integer, got {top!r}")
        target = self.model.target
        if target not in SOURCES[objective]:
            raise RecommendError(f"model {self.model.name!r} predicts {target}; objective {objective!r} needs a model "
                                 f"of {' or '.join(SOURCES[objective])}")
        to_cost = objective == "cost" and target == "time"
        cost_model = (self.cost_model or CostModel.from_yaml()) if to_cost else None
        lower = True if to_cost else self.model.lower_is_better
        space = self.space
        screen = Space(space.name, space.parameters, space.constraints + tuple(constraints), space.description,
                       source="constraint") if constraints else space
        fixed, given, missing, between = self._workload(workload)
        system = np.array([p.role == "system" for p in space.parameters])
        subspace = SubSpace(space, fixed)
        if subspace.size > WALK_LIMIT:
            raise RecommendError(f"the workload leaves {how_many(subspace.size)} system configurations to score, more "
                                 f"than the {how_many(WALK_LIMIT)} a recommendation walks; train on a study whose "
                                 "system parameters have fewer levels")

        scores: list[np.ndarray] = []
        best_key, best_ord = np.empty(0), np.empty(0, dtype=np.int64)
        keep = max(top, EXAMPLES)
        for start, rows in subspace.chunks(self.chunk_size):
            active, valid = screen.active_mask(rows)
            valid &= np.all(active[:, system] | (rows[:, system] == 0), axis=1)
            selected = np.flatnonzero(valid)
            if not len(selected):
                continue
            rows, active = rows[selected], active[selected]
            if missing and active[:, missing].any():
                self._missing(missing, active)
            values = self.model.predict_encoded(self._between(self.encoder.transform_indices(rows, active), between))
            if cost_model is not None:  # not None exactly when to_cost
                values = cost_model.cost_indices(values, space, rows, active, compute_instances)
            if not np.all(np.isfinite(values)):
                raise RecommendError(f"model {self.model.name!r} predicted a non-finite {objective} for this workload")
            scores.append(values.astype(np.float32))
            best_key, best_ord = _merge(best_key, best_ord, values if lower else -values,
                                        start + selected, keep)
        if not scores:
            extra = f" and constraints {list(constraints)}" if constraints else ""
            raise RecommendError(f"no valid system configuration for workload {given}{extra}")

        everything = np.concatenate(scores)
        median = float(np.median(everything))
        best = float(best_key[0] if lower else -best_key[0])
        tolerance = max(self.rtol, 4 * float(np.finfo(np.float32).eps)) * abs(best)
        co_count = int(np.count_nonzero(np.abs(everything.astype(float) - best) <= tolerance))

        base_config, base_value = self._baseline(given, baseline, cost_model, compute_instances, between)
        configs = self._configurations(subspace.rows(best_ord))
        values = best_key if lower else -best_key
        candidates = [self._candidate(rank + 1, configs[rank], float(values[rank]), base_value, median, objective,
                                      lower) for rank in range(min(top, len(configs)))]
        examples = [configs[i] for i in range(len(configs)) if abs(float(values[i]) - best) <= tolerance][:EXAMPLES]
        unit = cost_model.currency if cost_model is not None else UNITS.get(target, "cost units")
        return Recommendation(objective=objective, unit=unit, lower_is_better=lower, workload=given,
                              baseline=base_config, baseline_predicted=base_value, median=median,
                              evaluated=len(everything), candidates=candidates, co_champions=co_count,
                              co_champion_examples=examples, model=self.model.name)

    def _workload(self, workload: Mapping[str, Any]) -> tuple[dict[int, int], dict[str, Any], list[int],
                                                             dict[str, float]]:
        """Level index of each workload column, the normalised workload, columns left unspecified, and the
        size or integer values that are not levels (interpolated: see :meth:`_between`)."""
        from iotune.recommend.decision import workload_of

        if not isinstance(workload, Mapping):
            raise RecommendError(f"workload must map parameter names to values, got {workload!r}")
        space = self.space
        names = [p.name for p in space.workload_parameters]
        for name in workload:
            if name not in names:
                role = "a system parameter, which the recommender chooses" if name in \
                    [p.name for p in space.parameters] else "not a parameter of the space"
                raise RecommendError(f"unknown workload parameter {name!r}: {role} "
                                     f"(workload parameters of space {space.name!r}: {', '.join(names) or 'none'})")
        try:
            levels, between = workload_of(space, dict(workload))
        except SpaceError as exc:
            raise RecommendError(f"workload {exc}") from None
        fixed, given = {}, {}
        for name in workload:
            parameter = space.parameter(name)
            level = levels[name]
            given[name] = int(between[name]) if name in between and float(between[name]).is_integer() else \
                between.get(name, level)
            fixed[[p.name for p in space.parameters].index(name)] = parameter.levels.index(level)
        missing = []
        for j, parameter in enumerate(space.parameters):
            if parameter.role == "workload" and j not in fixed:
                fixed[j] = parameter.levels.index(parameter.default)
                missing.append(j)
        return fixed, given, missing, between

    def _between(self, features: np.ndarray, between: dict[str, float]) -> np.ndarray:
        """``features`` with the column of each value between levels at that value's own encoding (log2 of a
        size, an integer as itself): the model is asked at the value, between its neighbouring levels."""
        for name, value in between.items():
            parameter = self.space.parameter(name)
            column = self.encoder.feature_names.index(f"log2({name})" if parameter.type == "size" else name)
            features[:, column] = np.log2(max(value, 1.0)) if parameter.type == "size" else value
        return features

    def _missing(self, missing: list[int], active: np.ndarray) -> None:
        parameters = [self.space.parameters[j] for j in missing if active[:, j].any()]
        raise RecommendError("the workload does not give " + "; ".join(
            f"{p.name!r} (levels: {', '.join(map(p.format, p.levels))})" for p in parameters))

    def _baseline(self, workload: dict[str, Any], baseline: Mapping[str, Any] | None,
                  cost_model: CostModel | None, compute_instances: int | None,
                  between: dict[str, float] | None = None) -> tuple[dict[str, Any], float]:
        """The baseline configuration (given system values, else defaults) and its predicted objective."""
        space = self.space
        between = between or {}
        levels = {p.name: p.levels[self._fixed_level(p.name, workload, between)] for p in space.workload_parameters
                  if p.name in workload}
        values = dict(levels)
        for name, value in (baseline or {}).items():
            if name not in [p.name for p in space.system_parameters]:
                raise RecommendError(f"baseline: {name!r} is not a system parameter of space {space.name!r} "
                                     f"(system parameters: {', '.join(p.name for p in space.system_parameters)})")
            values[name] = value
        try:
            configuration = space.configuration(values)
        except SpaceError as exc:
            raise RecommendError(f"baseline: {exc}") from None
        value = float(self.model.predict_encoded(self._between(self.encoder.transform([configuration]), between))[0])
        if cost_model is not None:
            value = cost_model.cost(value, configuration, compute_instances)
        return {**configuration.to_dict(), **{k: workload[k] for k in between}}, value

    def _fixed_level(self, name: str, workload: dict[str, Any], between: dict[str, float]) -> int:
        """Level index standing in for ``workload[name]`` (its nearest valid level when it lies between)."""
        from iotune.recommend.decision import workload_of

        parameter = self.space.parameter(name)
        if name not in between:
            return parameter.levels.index(workload[name])
        levels, _ = workload_of(self.space, workload)
        return parameter.levels.index(levels[name])

    def _configurations(self, rows: np.ndarray) -> list[dict[str, Any]]:
        active, _ = self.space.active_mask(rows)
        return [{p.name: (p.levels[int(row[j])] if act[j] else None) for j, p in enumerate(self.space.parameters)}
                for row, act in zip(rows, active, strict=True)]

    def _candidate(self, rank: int, configuration: dict[str, Any], value: float, base: float, median: float,
                   objective: str, lower: bool) -> Candidate:
        def ratio(reference: float) -> float:
            numerator, denominator = (reference, value) if lower else (value, reference)
            return float(numerator / denominator) if denominator else float("inf")

        def saving(reference: float) -> float | None:
            if objective != "cost" or not reference:
                return None
            return (reference - value) / reference * 100.0

        return Candidate(rank=rank, configuration=configuration, predicted=value,
                         improvement_vs_baseline=ratio(base), improvement_vs_median=ratio(median),
                         saving_vs_baseline=saving(base), saving_vs_median=saving(median),
                         hints=hints_of(self.space, configuration), env=env_of(self.space, configuration))


def _merge(keys: np.ndarray, ordinals: np.ndarray, new_keys: np.ndarray, new_ordinals: np.ndarray,
           keep: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``keep`` smallest keys of both sets, sorted; ties go to the lower ordinal (earlier candidate)."""
    keys = np.concatenate([keys, new_keys])
    ordinals = np.concatenate([ordinals, new_ordinals])
    if len(keys) > keep:
        threshold = np.partition(keys, keep - 1)[keep - 1]
        inside = keys <= threshold
        keys, ordinals = keys[inside], ordinals[inside]
    order = np.lexsort((ordinals, keys))[:keep]
    return keys[order], ordinals[order]
