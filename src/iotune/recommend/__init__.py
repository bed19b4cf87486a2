"""Recommend system configurations for a workload from a trained model (paper 000, Algorithm 1, Eqs. 2-4)."""

from iotune.recommend.cost import CostError, CostModel
from iotune.recommend.recommender import OBJECTIVES, RecommendError, Recommender
from iotune.recommend.result import Candidate, Recommendation
from iotune.recommend.subspace import SubSpace

__all__ = [
    "OBJECTIVES", "Candidate", "CostError", "CostModel", "RecommendError", "Recommendation", "Recommender",
    "SubSpace",
]
