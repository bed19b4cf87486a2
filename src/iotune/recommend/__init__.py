"""Recommend system configurations for a workload from a trained model (paper 000, Algorithm 1, Eqs. 2-4).

Names load with their module on first use, so that ``iotune results`` can reach
:mod:`iotune.recommend.decision` without numpy (the cost model and the recommender need it).
"""

from iotune.lazy import lazy_exports

_WHERE = {
    "CostError": "iotune.recommend.cost", "CostModel": "iotune.recommend.cost",
    "OBJECTIVES": "iotune.recommend.recommender", "RecommendError": "iotune.recommend.recommender",
    "Recommender": "iotune.recommend.recommender",
    "Candidate": "iotune.recommend.result", "Recommendation": "iotune.recommend.result",
    "SubSpace": "iotune.recommend.subspace",
}

__all__ = sorted(_WHERE)


__getattr__ = lazy_exports(__name__, _WHERE)
