"""Recommend system configurations for a workload from a trained model (paper 000, Algorithm 1, Eqs. 2-4).

Names load with their module on first use, so that ``iotune results`` can reach
:mod:`iotune.recommend.decision` without numpy (the cost model and the recommender need it).
"""

_WHERE = {
    "CostError": "iotune.recommend.cost", "CostModel": "iotune.recommend.cost",
    "OBJECTIVES": "iotune.recommend.recommender", "RecommendError": "iotune.recommend.recommender",
    "Recommender": "iotune.recommend.recommender",
    "Candidate": "iotune.recommend.result", "Recommendation": "iotune.recommend.result",
    "SubSpace": "iotune.recommend.subspace",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'iotune.recommend' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(module), name)
