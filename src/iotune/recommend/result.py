"""What a recommendation reports: ranked candidates, their predicted gains, and how to apply them."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Candidate:
    """One recommended system configuration joined with the workload.

    - ``predicted``: the objective in ``Recommendation.unit``;
    - ``improvement_vs_baseline`` / ``improvement_vs_median``: paper 000 Eq. 3,
      ``P_base / P_candidate`` for time and cost, ``P_candidate / P_base`` for
      bandwidth (above 1 is better);
    - ``saving_vs_baseline`` / ``saving_vs_median``: Eq. 4 in percent, for the cost objective only;
    - ``hints``: MPI_Info key -> value; ``env``: variables of ``env:`` parameters;
    - ``spread``: run-to-run spread of its I/O time, a
      :class:`~iotune.recommend.uncertainty.CandidateSpread` once
      :func:`~iotune.recommend.uncertainty.attach_spread` has run (paper 003).
    """

    rank: int
    configuration: dict[str, Any]
    predicted: float
    improvement_vs_baseline: float
    improvement_vs_median: float
    saving_vs_baseline: float | None = None
    saving_vs_median: float | None = None
    hints: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    spread: Any = None


@dataclass
class Recommendation:
    """Result of :meth:`Recommender.recommend` (paper 000, Algorithm 1, with the top k reported).

    ``evaluated`` counts the distinct valid candidates scored; ``co_champions``
    how many of them predict the best value within a relative tolerance (a
    tree's candidates sharing its best leaf), ``co_champion_examples`` lists a
    few.  ``median`` is the median predicted objective over all candidates.
    ``separation``: whether the top candidates can be told apart given their
    run-to-run spread (:class:`~iotune.recommend.uncertainty.Separation`), set
    by :func:`~iotune.recommend.uncertainty.attach_spread`.
    """

    objective: str
    unit: str
    lower_is_better: bool
    workload: dict[str, Any]
    baseline: dict[str, Any]
    baseline_predicted: float
    median: float
    evaluated: int
    candidates: list[Candidate]
    co_champions: int
    co_champion_examples: list[dict[str, Any]]
    model: str = ""
    separation: Any = None

    @property
    def best(self) -> Candidate:
        return self.candidates[0]

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-ready data (sizes in bytes, inactive parameters None)."""
        return asdict(self)
