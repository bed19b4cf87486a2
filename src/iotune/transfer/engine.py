"""The budgeted tuner's decision engine: which configuration to run next, and which one to declare.

The target's configurations are a discrete candidate set (numeric feature
rows).  Prior knowledge is other workloads' runs (``Prior``), laid over the
candidates (``prior.lay_over``).  Lower values are better; the engine works on
natural logs of the values (``log=True``), so differences are ratios.

What it does, at every call, from the observations alone (no hidden state, so
a tuner rebuilt from its runs continues exactly; ``seed`` fixes the only
random draws, the space-filling start without a prior):

1. **Experts.**  Each prior workload j predicts the target as ``a_j + b_j *
   shape_j`` (its standardised log values under an affine map), fitted to the
   target's measured candidates by least squares with the slope pulled
   towards the prior's typical spread (``ridge``) and kept non-negative.  Its
   weight is the workload-feature similarity (``exp(-d^2 / similarity)``
   over features scaled to [0, 1]; uniform when the target's features are
   unknown) times the likelihood of the target's runs under the map
   (Gaussian residuals of the prior's ``misfit`` x ``fit_scale``: how far the
   best other workload's map is from a workload, plus the runs' noise) times
   ``failure_penalty`` per target failure where the workload neither failed
   nor was slow (half a standard deviation above its mean).
2. **Warm start.**  Until ``warm_start`` candidates (1, the default) have succeeded, the next
   run extends a portfolio: the candidate that most lowers the weighted mean,
   over prior workloads, of the best regret (capped at ``regret_cap``) within
   the candidates already run plus it.  With a known price the regrets are
   of the time (``warm_price`` = 0, the default; 1: of the cost): the other
   workloads' time winners rank the target's among their first few on every
   table, their cost winners are isolated points (a median rank of 25 of 69
   on scout), so the warm start finds the target's region and the fitted
   model, with the price added, then goes to its cheap end.  ``warm_price=None``
   draws on both kinds, each weighted by how well it ranked the target's runs
   (measured in docs/benchmarks.md, issue 31; not the default).
3. **Model.**  Afterwards (``model="covariance"``, the default since issue 31)
   the prediction is a GP whose kernel is the prior workloads' covariance over
   the candidates, weighted as the experts are, plus a residual over the
   features (``iotune.transfer.covariance``); in the ``broad`` regime
   (``broad_model="experts"``) and with ``model="experts"`` (the engine
   before) it is the weighted experts' mean plus a GP model of the target's
   residuals (signal variance at least misfit^2), its uncertainty the
   experts' disagreement plus the GP's.  From four measured candidates on,
   when the leave-one-out error of a plain GP on the target's own points is
   lower than the model's (either model), the plain GP (``model_choice``; in
   place of the covariance model, with a spread no narrower than its).
   Every GP's spread is calibrated (``calibrate``): widened by the root
   of its runs' mean leave-one-out z^2 when above 1, so a prior that explains
   the target's runs worse than it claims is as much less sure of the rest
   (not narrowed when below); the forest's spread (below) is its trees'
   disagreement, as SMAC reads it (floored by its out-of-bag error, or by the
   spread of the model it replaces, it chose worse runs and its statements
   held no more often).  The next run maximises
   expected improvement times the chance the candidate does not fail: the
   similarity-weighted share of prior workloads that failed on it, updated
   by the target's own failed and successful runs nearby.  A candidate that
   only failed enters both GPs at the worst value measured so far
   (``impute_failures``), so its neighbours look slow as well as risky.
4. **Noise.**  When no unmeasured candidate is expected to improve by
   ``remeasure_below`` (log units, ~ a fraction) and the two best measured
   candidates are not separated by two standard errors of the repeats'
   spread, the less-measured of them is run again (unless re-runs so far
   returned exactly the same values: a deterministic measurement).  When
   every candidate has run and nothing is contested, there is nothing left
   to suggest.

Evidence against the prior (``evidence``; every call, from the runs alone):
when the other workloads' consensus ranks the target's runs no better than
chance (Spearman's rho below ``agreement_below``, over runs that differ by more
than the prior's misfit plus twice the runs' noise), or the target fails more often than the prior said
where it ran (a binomial tail, noticed from two failures on), the next choice
is ``explore``: expected improvement of a GP on the target's own runs (the
failure chance scaled up by how much more it fails).  Under a known price, from
``explore_after`` runs on, the ``explore`` regime reads a random forest on the
target's own runs instead (``explore_model="forest"``, the default;
``iotune.transfer.forest``: its trees split on a threshold, such as the memory
a job needs, where a GP smooths it away), of the cost itself; of candidates it
cannot tell apart, the one farthest from every run.  From ``explore_after``
runs on, every other run maximises expected improvement with the model's
uncertainty widened ``broad_spread`` times (``broad``: where the model is least
sure, still steered away from what the prior knows is bad).  When every run
so far failed (two or more), the next goes to the candidate farthest from the
failures (``failing``).  ``regime(observations)`` names the current one.
With a known price, candidates whose time would have to be below (best value
so far / their price), faster than ``evidence.time_bound`` allows, are not
run while any other is left, the warm start included (``ruled_out``).
With a known price the experts' choices (``prior``) also stay in a trust
region around the best run (``trust_region``; TuRBO, Eriksson et al. 2019, with
a tolerance of one run): unrestricted after the warm start, one step (another
category, or the whole range of one number) after a later run that did not
improve the best value (a failure included), half that after each further
one, and twice as wide again after one that did (when it holds no unrun
candidate, every one is open again, as TuRBO restarts).  Under a price the experts
extrapolate the target's time to the cheapest candidates, where it fails or
blows up (the other workloads' cost optima are isolated points); once such a
jump has not paid, the next choices walk down from the best run instead.
Without a price the prior's winners are right (the time optimum is among
their first few on every table) and nothing is restricted.
Variants measured for issue 31 and not the default (docs/benchmarks.md, "A default chosen on every table", issue 31):
``experts="both"`` (under a price, each prior workload is two experts, its time shape and its cost shape, each
weighted by how well it fits the target's runs, the warm start included: each expert's own kind of regret with
``warm_price=None``); ``lengths="prior"`` (canonical columns weighted by per-feature length scales learnt from
the prior, ``iotune.transfer.lengths``); ``trust_start`` (misses the trust region starts with after the warm
start: 1 is a radius of one step at once) and ``trust_explore`` (the trust region holds in the ``explore``
regime too).
With ``model="covariance"`` a run that follows one workload's pattern moves the predictions wherever that
pattern differs from the others', and how far the target strays from them is a scale fitted to its runs; the
``explore`` regime reads it too unless it cannot explain the target's runs (their mean leave-one-out z^2 above
``SURPRISE_LIMIT``), and then a GP on the target's own runs; under a price, from ``explore_after`` runs on, the
forest.
What a user is told of the next run
(``expectation``) is that model's mean and its spread widened further by how far its statements before each
earlier run missed it (``hindsight``; runs are chosen where the model was optimistic, so they miss more than
a leave-one-out says), to a Student's t interval as that is estimated from few runs: on every replay table the
next run fell inside the stated 95 % interval 0.92-0.97 of the time (0.68-0.89 before; docs/benchmarks.md, issue
31).  Decisions read the leave-one-out calibration only (the hindsight widening made them worse on scout cost).
The defaults (one warm run, the covariance model, the experts in the ``broad`` regime, ``encoding="core"``,
``bound_slack`` 4; then calibrated spreads and the model choice for the covariance model too; then the forest in
the explore regime) were chosen by issue 31's rule: against the engine before (two warm runs, the experts,
``canonical``, a slack of 2; then the same without calibration or that model choice; then with a GP in the
explore regime), no cell of any replay table worse beyond its seed spread, with the whole prior and with 70 % of
it (docs/benchmarks.md).
``diverse_start`` (0: off) adds that many runs after the warm start on a
structurally different option (at least a full step from every run so far,
the cheapest the model expects): a portfolio rather than one bet, measured
against the plain warm start in the replay (``engine-diverse``).

Known prices: with ``price`` (a cost that is a time x a known price per
configuration), the engine models the time (value / price: the experts'
shapes, the GP, the noise) and adds the log price back exactly wherever
configurations are compared (expected improvement, ``best``, ``predict``;
the warm start's regrets only with ``warm_price``), instead of learning the
price from the runs.

Distances: each feature is one column in [0, 1] (``encoding="core"``, the
default: ``iotune.transfer.canonical``, its levels ranked by their effect in the
prior, so a category one-hot or as an index and a count as log2 or plain give
the same runs; workloads compared feature by feature), without the features the
others determine among the target's candidates (total vCPUs = vCPUs per VM x
VMs, a cluster's price), so derived features present or absent give the same
runs too (``encoding="canonical"`` keeps them: the default before).  With
``encoding="given"`` (the engine before issue 31) each column is scaled to
[0, 1] over candidates and prior, and the columns of a one-hot group by
1/sqrt(2) more, so changing a category counts as a full step of a number.  With ``encoding="select"``
(measured for issue 31, not the default) the reading of the canonical features is chosen per target among
ranks, effects, small categories one-hot and derived features dropped, by how well each predicts the prior
workloads' own runs (``iotune.transfer.selection``); with ``encoding="ensemble"`` the next run maximises the
mean over those four readings of the acquisition (the trust region and the rest read the ranks).  Without a
prior the engine is plain GP expected improvement after ``initial`` space-filling runs.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from iotune.transfer import evidence
from iotune.transfer.canonical import Canonical
from iotune.transfer.covariance import covariance_posterior
from iotune.transfer.errors import TransferError
from iotune.transfer.forest import forest_posterior
from iotune.transfer.gp import GaussianProcess, matern52
from iotune.transfer.lengths import relevance
from iotune.transfer.observations import Summary, summarise
from iotune.transfer.prior import Prior, PriorMatrix, lay_over
from iotune.transfer.selection import Reading, choose, determined, readings

NORMALISATIONS = ("zscore", "rank")
ENCODINGS = ("core", "canonical", "given", "select", "ensemble")
EXPERTS = ("time", "both")
LENGTHS = ("even", "prior")
MODELS = ("experts", "covariance")
EXPLORE_MODELS = ("forest", "gp")
REGIMES = ("start", "prior", "explore", "broad", "failing", "space")
DEFAULT_NOISE = 0.02
WARM_START = 1  # runs of the other workloads' winners before the model chooses (issue 31: one, not two)
# Mean leave-one-out z^2 of the target's runs under the covariance model above which the explore regime reads a
# GP on the target's own runs instead: a typical run four standard deviations from what the others predict.
SURPRISE_LIMIT = 16.0
# Without a prior, the spread (log units) a few points cannot rule out: configurations differ by tens of percent.
DEFAULT_SPREAD = 0.3
FOREST_MEMO = 8  # forests kept (a tuner asked about a few runs-so-far at once: a batch, the statements)


class TransferTuner:
    """Suggest runs and declare a pick for one target workload (see the module docstring).

    ``candidates``: (n, d) feature rows of the target's configurations.
    ``prior``: other workloads' runs (a ``Prior``; None: none).  ``workload``:
    the target's workload feature row, in the prior's encoding (None: unknown).
    ``noise``: standard deviation of a run in log units (None: from repeats in
    the observations or the prior, else 0.02).  ``normalise``: how a prior
    workload's log values become its shape, ``zscore`` or ``rank`` (normal
    scores).  ``log=False`` takes values as they are (already logs, say).
    ``price``: the known positive factor of each candidate's value (a cost =
    time x the configuration's hourly price): an array of n, or a function
    from feature rows to an array (then the prior's rows are divided by it
    too; with an array they must be among the candidates).  None: no known
    factor.  Observations and the prior stay in the objective's units.
    """

    def __init__(self, candidates, prior: Prior | None = None, workload=None, *, seed: int = 0, log: bool = True,
                 warm_start: int = WARM_START, initial: int = 3, regret_cap: float = 1.0, similarity: float = 1.0,
                 fit_scale: float = 1.0, ridge: float = 1.0, failure_penalty: float = 0.25,
                 remeasure_below: float = 0.002, model_choice: bool = True, noise: float | None = None,
                 normalise: str = "zscore", price=None, failure_length: float = 1.0,
                 impute_failures: bool = True, regimes: bool = True, agreement_below: float = 0.0,
                 bound_slack: float | None = 4.0, explore_after: int = 10,
                 diverse_start: int = 0, broad_spread: float = 3.0, warm_price: float | None = 0.0,
                 trust_region: bool = True, encoding: str = "core", experts: str = "time",
                 lengths: str = "even", trust_start: int = 0, trust_explore: bool = False,
                 model: str = "covariance", broad_model: str = "experts", calibrate: bool = True,
                 explore_model: str = "forest"):
        candidates = np.asarray(candidates, dtype=float)
        if candidates.ndim == 1:
            candidates = candidates.reshape(-1, 1)
        if candidates.ndim != 2 or len(candidates) == 0 or not np.isfinite(candidates).all():
            raise TransferError(f"candidates must be a non-empty 2-D array of finite feature rows, "
                                f"got shape {candidates.shape}")
        prior = Prior.empty(candidates.shape[1]) if prior is None else prior
        if encoding not in ENCODINGS:
            raise TransferError(f"encoding must be one of {', '.join(ENCODINGS)}, got {encoding!r}")
        if experts not in EXPERTS:
            raise TransferError(f"experts must be one of {', '.join(EXPERTS)}, got {experts!r}")
        if model not in MODELS:
            raise TransferError(f"model must be one of {', '.join(MODELS)}, got {model!r}")
        if explore_model not in EXPLORE_MODELS:
            raise TransferError(f"explore_model must be one of {', '.join(EXPLORE_MODELS)}, got {explore_model!r}")
        if broad_model not in ("same", "experts"):
            raise TransferError(f"broad_model must be 'same' or 'experts', got {broad_model!r}")
        if lengths not in LENGTHS:
            raise TransferError(f"lengths must be one of {', '.join(LENGTHS)}, got {lengths!r}")
        if isinstance(trust_start, bool) or not isinstance(trust_start, int) or trust_start < 0:
            raise TransferError(f"trust_start must be a whole number of misses, 0 or more, got {trust_start!r}")
        if normalise not in NORMALISATIONS:
            raise TransferError(f"normalise must be one of {', '.join(NORMALISATIONS)}, got {normalise!r}")
        if not isinstance(prior, Prior):
            raise TransferError(f"prior must be a Prior, got {type(prior).__name__}")
        if prior.configurations.shape[1] != candidates.shape[1]:
            raise TransferError(f"prior configurations have {prior.configurations.shape[1]} features, "
                                f"candidates {candidates.shape[1]}")
        self.candidates = candidates
        self._offset, prior = _known_price(price, candidates, prior, log)
        self.seed = seed
        self.calibrate = calibrate
        self._hindsight: dict[tuple, float | None] = {}  # statement z^2 per runs so far: a pure function, memoised
        self._forests: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}  # the explore regime's forests, per runs
        self.log = log
        self.warm_start = warm_start
        self.initial = initial
        self.regret_cap = regret_cap
        self.similarity = similarity
        self.fit_scale = fit_scale
        self.ridge = ridge
        self.failure_penalty = failure_penalty
        self.remeasure_below = remeasure_below
        self.model_choice = model_choice
        self.noise = noise
        self.normalise = normalise
        self.failure_length = failure_length
        self.impute_failures = impute_failures
        self.regimes = regimes
        self.agreement_below = agreement_below
        self.bound_slack = bound_slack
        self.explore_after = explore_after
        self.diverse_start = diverse_start
        self.broad_spread = broad_spread
        self.warm_price = warm_price
        self.trust_region = trust_region
        self.encoding = encoding
        self.experts = experts
        self.lengths = lengths
        self.trust_start = trust_start
        self.trust_explore = trust_explore
        self.model = model
        self.broad_model = broad_model
        self.explore_model = explore_model
        rows = np.vstack([candidates, prior.configurations])
        self._low = rows.min(axis=0)
        span = rows.max(axis=0) - self._low
        self._span = np.where(span > 0, span, 1.0) * _one_hot_stretch(rows)
        self.reading_scores: dict[str, float] = {}
        self._canonical: Canonical | Reading | None
        self._ensemble: list[np.ndarray] = []
        if encoding == "select":
            self._canonical, self.reading_scores = choose(rows, *_effects(prior, log, by_workload=True))
        elif encoding == "ensemble":
            self._canonical = Canonical(rows, *_effects(prior, log))
            core = determined(self._canonical, rows)
            self._ensemble = [reading.transform(candidates) for reading in readings(self._canonical, core)]
        elif encoding == "core":  # canonical, without the features the others fix among the target's candidates
            canonical = Canonical(rows, *_effects(prior, log))
            self._canonical = Reading(canonical, "core", determined(canonical, candidates))
        else:
            self._canonical = Canonical(rows, *_effects(prior, log)) if encoding == "canonical" else None
        self._weights = relevance(self._canonical, *_effects(prior, log, by_workload=True)) \
            if self._canonical is not None and lengths == "prior" else None
        self._unit = self._scale(candidates)
        # the explore regime's forest reads every canonical feature, the derived ones too
        whole = self._canonical.canonical if isinstance(self._canonical, Reading) else self._canonical
        self._tree_rows = whole.transform(candidates) if whole is not None else self._unit
        self.prior: PriorMatrix = lay_over(prior, candidates, self._scale, log, normalise, self._offset)
        self._similarity = self._workload_similarity(workload)
        self._cost_shape = _shape(self.prior.level + self._offset, normalise) \
            if experts == "both" and self._offset.any() and self.prior.workloads else None
        # what the other workloads predicted before the target ran anything (log value, price included)
        self._consensus = self._similarity @ self.prior.level + self._offset if self.prior.workloads else None

    # ---------------------------------------------------------------- public

    def suggest(self, observations=(), n: int = 1, pending=()) -> list[int]:
        """Up to ``n`` distinct candidate indices to run next (fewer, or none, when nothing is left worth
        running).  ``observations``: (candidate index, value) pairs, value None or +inf for a failed run.
        ``pending``: (candidate index, believed value) of runs asked for and not told yet; the model conditions
        on them so a batch spreads out, the trust region does not (a belief is not a run that missed)."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise TransferError(f"n must be a positive integer, got {n!r}")
        observations = list(observations)
        radius = self.trust_radius(observations)
        observations += list(pending)
        summary = self._summarise(observations)
        chosen: list[int] = []
        for slot in range(n):
            pick = self._choose(summary, chosen, slot == 0, radius)
            if pick is None:
                break
            chosen.append(pick)
            if slot + 1 < n:
                mean, _ = self._posterior(summary)
                observations.append((pick, self._raw(mean[pick] + self._offset[pick])))
                summary = self._summarise(observations)
        return chosen

    def best(self, observations=()) -> int | None:
        """The candidate to declare: measured, never failed, lowest mean of its runs (None if there is none).

        (Declaring by the model's posterior mean instead, which pools a candidate's runs with what its
        neighbours and the prior say, was measured worse on every replay table, the noisy one included.)"""
        summary = self._summarise(observations)
        ok = np.array([c not in summary.failed for c in summary.measured], dtype=bool)
        if not ok.any():
            return None
        cost = summary.mean + self._offset[summary.measured]
        return int(summary.measured[int(np.argmin(np.where(ok, cost, np.inf)))])

    def regime(self, observations=()) -> str:
        """Where the next choice comes from (one of ``REGIMES``), from the runs so far.

        ``start``: the other workloads' winners (the warm start); ``prior``: the
        experts fitted to the target's runs; ``explore``: the prior has not
        predicted this workload's runs (it ranks them no better than
        ``agreement_below``, or the target fails more often than it said), so a
        GP on the target's own runs chooses; ``broad``: the budget allows
        exploring (every other run from ``explore_after`` runs on, expected
        improvement with the model's uncertainty widened ``broad_spread`` times); ``failing``: every run so far
        failed, so the next run goes to the region farthest from the failures; ``space``: no prior."""
        return self._regime(self._summarise(list(observations)))

    def ruled_out(self, observations=()) -> np.ndarray:
        """Candidates that cannot be the optimum under the known price (see ``evidence.time_bound``): their
        time would have to be below (best value so far / their price), faster than the other workloads'
        fastest speed-up from a measured candidate allows.  Empty without a price, a prior or a success."""
        summary = self._summarise(list(observations))
        return np.flatnonzero(self._bound_mask(summary))

    def trust_radius(self, observations=()) -> float:
        """How far (scaled feature distance) from the best run the experts' next choice may go under a known
        price: unrestricted (+inf) after the warm start; each later run that does not improve on the best value
        (a failure included) counts one miss, each that does takes one back; with f misses the radius is
        2^(1 - f) steps (one step: another category, or the whole range of one number), so it halves with every
        further miss.  +inf without a price, a prior or ``trust_region``.  From the runs in their order, so a
        rebuilt tuner continues exactly (for a tuning history to say why a choice stays near the best run)."""
        observations = list(observations)
        self._summarise(observations)  # the same checks of the observations as everywhere else
        if not self.trust_region or not self._offset.any() or self.prior.workloads == 0:
            return math.inf
        misses, best, succeeded = self.trust_start, math.inf, 0
        for _, value in observations:
            if value is None or not math.isfinite(value):
                if succeeded >= self.warm_start:
                    misses += 1
                continue
            succeeded += 1
            if succeeded > self.warm_start:
                misses = max(misses - 1, 0) if value < best else misses + 1
            best = min(best, value)
        return math.inf if misses == 0 else 2.0 ** (1 - misses)

    def predict(self, observations=(), as_chosen: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard deviation per candidate of its value (natural log of it when ``log``).
        ``as_chosen``: from the model the current regime's next choice reads (``explore``: the target's own runs
        unless the covariance explains them, and under a price from ``explore_after`` runs on the forest of them;
        ``broad`` with ``broad_model="experts"``: the experts'), so a stated expectation is the one the
        choice rested on."""
        summary = self._summarise(observations)
        if as_chosen:
            regime = self._regime(summary)
            mean, std, _ = self._model(summary, target_only=regime == "explore",
                                       experts=regime == "broad" and self.broad_model == "experts",
                                       forest=self._forest_now(summary, regime))
        else:
            mean, std = self._posterior(summary)
        return mean + self._offset, std

    def expectation(self, observations=()) -> tuple[np.ndarray, np.ndarray]:
        """What the next run is stated to give: ``predict(observations, as_chosen=True)``, its standard deviation
        widened by how far the same statement missed the runs already made (``hindsight``) and, as that widening
        is estimated from few statements, by ``t_widening`` (1.96 of the stated deviations are a 95 % interval)."""
        mean, std = self.predict(observations, as_chosen=True)
        z2 = self.statements(observations)
        return mean, std * math.sqrt(_hindsight(z2)) * t_widening(len(z2))

    def hindsight(self, observations=()) -> float:
        """Mean z^2 of the statements before each run (``statements``) when above 1; else 1.  Prequential
        (Dawid 1984): runs chosen because the model was optimistic there miss more than a leave-one-out says."""
        return _hindsight(self.statements(observations))

    def statements(self, observations=()) -> list[float]:
        """z^2 of each statement made before a run (``predict(as_chosen=True)`` of the runs before it, at the
        candidate it ran, with a run's noise) against what it returned.  Only runs a statement was made for
        count: a first run of a candidate, by the model (not the warm start, a re-run or a run away from
        failures), that succeeded.  Memoised per runs so far (a pure function of them)."""
        observations = [(int(c), None if v is None else float(v)) for c, v in observations]
        z2: list[float] = []
        for i in range(1, len(observations)):
            key = tuple(observations[:i + 1])
            if key not in self._hindsight:
                self._hindsight[key] = self._statement_z2(observations[:i], *observations[i])
            judged = self._hindsight[key]
            if judged is not None:
                z2.append(judged)
        return z2

    def _statement_z2(self, before, candidate: int, value: float | None) -> float | None:
        if value is None or candidate in {c for c, _ in before}:
            return None
        summary = self._summarise(before)
        if self._regime(summary) in ("start", "failing"):
            return None
        mean, std = self.predict(before, as_chosen=True)
        observed = math.log(value) if self.log else value
        noise = self._noise(summary)
        return float((observed - mean[candidate]) ** 2 / (std[candidate] ** 2 + noise**2))

    # -------------------------------------------------------------- internals

    def _summarise(self, observations) -> Summary:
        """The observations summarised, values divided by the candidates' known prices (log: minus)."""
        summary = summarise(observations, len(self.candidates), self.log)
        if not self._offset.any():
            return summary
        return replace(summary, mean=summary.mean - self._offset[summary.measured])

    def _scale(self, rows: np.ndarray) -> np.ndarray:
        if self._canonical is not None:
            unit = self._canonical.transform(rows)
            return unit if self._weights is None else unit * self._weights
        return (np.asarray(rows, dtype=float) - self._low) / self._span

    def _raw(self, value: float) -> float:
        return float(math.exp(value)) if self.log else float(value)

    def _workload_similarity(self, workload) -> np.ndarray:
        J = self.prior.workloads
        if J == 0:
            return np.zeros(0)
        if workload is None or self.prior.features is None:
            return np.full(J, 1.0 / J)
        workload = np.asarray(workload, dtype=float).reshape(-1)
        features = self.prior.features
        if workload.shape[0] != features.shape[1] or not np.isfinite(workload).all():
            raise TransferError(f"workload must be {features.shape[1]} finite features like the prior's, "
                                f"got {workload.tolist()}")
        rows = np.vstack([features, workload])
        if self.encoding != "given":
            canonical = Canonical(rows)
            distance2 = canonical.distance(features, workload) ** 2
        else:
            span = np.ptp(rows, axis=0)
            span[span == 0] = 1.0
            distance2 = (((features - workload) / span) ** 2).sum(axis=1)
        weights = np.exp(-distance2 / self.similarity) + 1e-3
        return weights / weights.sum()

    def _noise(self, summary: Summary) -> float:
        if self.noise is not None:
            return float(self.noise)
        repeated = summary.count > 1
        if repeated.any():
            dof = (summary.count[repeated] - 1).sum()
            target = float(np.sqrt((summary.var[repeated] * (summary.count[repeated] - 1)).sum() / dof))
            if self.prior.noise is not None:
                # pool with the prior's estimate, which rests on far more repeats
                return float(np.sqrt((target**2 * dof + self.prior.noise**2 * 10) / (dof + 10)))
            return max(target, 1e-3)
        return self.prior.noise if self.prior.noise is not None else DEFAULT_NOISE

    def _experts(self, summary: Summary, noise: float):
        """Per expert: predictions (E, n) of the target and log-weights (E,).  The experts are the prior
        workloads (E = J); with ``experts="both"`` under a known price, each prior workload twice: its time shape
        and its cost shape (E = 2J, time first), each kind weighted by how well it has fitted the target's runs."""
        pred, logw = self._fit_experts(summary, noise, self.prior.shape, self.prior.spread, np.zeros(0))
        if self._cost_shape is None:
            return pred, logw
        shape, spread = self._cost_shape
        cost_pred, cost_logw = self._fit_experts(summary, noise, shape, spread, self._offset)
        return np.vstack([pred, cost_pred]), np.concatenate([logw, cost_logw])

    def _fit_experts(self, summary: Summary, noise: float, shape: np.ndarray, spread: float, offset: np.ndarray):
        """Experts of one kind: the target's log values plus ``offset`` (a log price, or none) as ``a + b shape``
        per prior workload; predictions returned without the offset (the engine's units)."""
        P = self.prior
        logw = np.log(np.maximum(self._similarity, 1e-300))
        seen, y = summary.measured, summary.mean
        if len(seen) == 0:
            pred = P.level.copy()
        else:
            if len(offset):
                y = y + offset[seen]
            Z = shape[:, seen]
            zbar = Z.mean(axis=1)
            ybar = y.mean()
            zc = Z - zbar[:, None]
            slope = (zc @ (y - ybar) + self.ridge * spread) / ((zc**2).sum(axis=1) + self.ridge)
            slope = np.maximum(slope, 0.0)
            intercept = ybar - slope * zbar
            pred = intercept[:, None] + slope[:, None] * shape
            residual = y - pred[:, seen]
            scale2 = noise**2 + self._misfit() ** 2
            logw = logw - (summary.count * residual**2).sum(axis=1) / (2.0 * scale2)
            if len(offset):
                pred = pred - offset
        for c in summary.failed:
            consistent = P.failed[:, c] | (shape[:, c] >= 0.5)
            logw = logw + np.where(consistent, 0.0, math.log(self.failure_penalty))
        return pred, logw

    @staticmethod
    def _normalise(logw: np.ndarray) -> np.ndarray:
        w = np.exp(logw - logw.max())
        return w / w.sum()

    def _posterior(self, summary: Summary) -> tuple[np.ndarray, np.ndarray]:
        mean, std, _ = self._model(summary)
        return mean, std

    def _model(self, summary: Summary, target_only: bool = False, unit: np.ndarray | None = None,
               experts: bool = False, forest: bool = False):
        """Mean, standard deviation and failure probability per candidate; ``target_only``: the mean and
        deviation of a GP on the target's own runs (the prior still informs the failure chance).  ``unit``: the
        candidates' rows the GPs read (the engine's, by default; one reading of an ensemble).  ``experts``: the
        experts' model even when ``model`` is the covariance (the ``broad`` regime's, by default)."""
        rows = self._unit if unit is None else unit
        n = len(self.candidates)
        noise = self._noise(summary)
        seen = summary.measured
        J = self.prior.workloads
        if J == 0:
            if len(seen) == 0:
                return np.zeros(n), np.ones(n), np.zeros(n)
            gp = GaussianProcess(constant_mean=True, noise_floor=noise**2,
                                 variance_floor=DEFAULT_SPREAD**2 if len(seen) < self.initial else 0.0)
            F, yf, cf = self._imputed(summary)
            mean, std = gp.fit(rows[F], yf, cf).predict(rows)
            return mean, std, self._failure(summary, np.zeros(n), rows)
        pred, logw = self._experts(summary, noise)
        w = self._normalise(logw)
        mean = w @ pred
        disagreement = w @ (pred - mean) ** 2
        # Failing (memory, timeouts) is a property of the workload more than of its performance curve's
        # shape: weigh the prior's failures by workload similarity, not by the fit of the experts.
        prior_failure = self._similarity @ self.prior.failed
        if summary.failed and self.regimes and self._failing_more(summary):
            ran = sorted(set(seen.tolist()) | set(summary.failed))
            ratio = len(summary.failed) / max(float(prior_failure[ran].sum()), 1e-3)
            prior_failure = np.minimum(prior_failure * ratio, 0.95)
        fail = self._failure(summary, prior_failure, rows)
        if len(seen) == 0:
            return mean, np.sqrt(disagreement), fail
        F, yf, cf = self._imputed(summary)
        if forest:
            # the forest learns the value the choice compares (with a known price, the cost: its cliffs are
            # where a threshold on the features meets the price), and gives it back in the engine's units
            fmean, fstd = self._forest(F, yf + self._offset[F])
            return fmean - self._offset, fstd, fail
        if self.model == "covariance" and not experts:
            weights = w[:J] + w[J:] if len(w) > J else w  # experts="both": a workload's two experts as one
            cov_mean, cov_std, surprise, loo_error = covariance_posterior(self.prior.level, weights, rows,
                                                                          self._misfit(), F, yf, cf, noise,
                                                                          self.calibrate)
            if self.model_choice and len(seen) >= 4 and not target_only:
                # the runs may all lie where the target is flat: elsewhere it can still vary as a workload does
                plain = GaussianProcess(constant_mean=True, noise_floor=noise**2,
                                        variance_floor=self.prior.spread**2).fit(rows[F], yf, cf)
                if plain.loo_squared_error() < loo_error:
                    # its mean predicts the runs better; its spread, fitted to a few of them, is no surer than
                    # the model it replaces (else the first statements after the switch undercover)
                    pmean, pstd = plain.predict(rows)
                    return pmean, np.maximum(self._calibrated(plain, pstd), cov_std), fail
            # explore keeps the prior's covariance unless it cannot explain the target's runs at all
            if not target_only or surprise <= SURPRISE_LIMIT:
                return cov_mean, cov_std, fail
        if target_only:
            plain = GaussianProcess(constant_mean=True, noise_floor=noise**2).fit(rows[F], yf, cf)
            pmean, pstd = plain.predict(rows)
            return pmean, self._calibrated(plain, pstd), fail
        residual_gp = GaussianProcess(constant_mean=False, noise_floor=noise**2, variance_floor=self._misfit() ** 2)
        gmean, gstd = residual_gp.fit(rows[F], yf - mean[F], cf).predict(rows)
        if self.model_choice and len(seen) >= 4:
            plain = GaussianProcess(constant_mean=True, noise_floor=noise**2).fit(rows[F], yf, cf)
            if plain.loo_squared_error() < self._experts_loo(summary, noise):
                pmean, pstd = plain.predict(rows)
                return pmean, self._calibrated(plain, pstd), fail
        return mean + gmean, self._calibrated(residual_gp, np.sqrt(gstd**2 + disagreement)), fail

    def _forest(self, fitted: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``forest_posterior`` over the tree rows, memoised per runs: one run reads the same forest for its
        choice, its stated expectation and the next run's judging of that statement."""
        key = (tuple(fitted.tolist()), tuple(values.tolist()))
        if key not in self._forests:
            if len(self._forests) >= FOREST_MEMO:
                self._forests.pop(next(iter(self._forests)))
            self._forests[key] = forest_posterior(self._tree_rows, fitted, values, self.seed)
        return self._forests[key]

    def _calibrated(self, gp: GaussianProcess, std: np.ndarray) -> np.ndarray:
        return gp.calibrated(std) if self.calibrate else std

    def _imputed(self, summary: Summary):
        """Candidates, values and counts the GPs are fitted to: the measured ones, plus (``impute_failures``)
        each candidate that only failed, at the worst value measured so far (price included): a failure is
        a run at least that slow (timeouts, memory), so its neighbours look slow too, as CherryPick does."""
        seen, y, count = summary.measured, summary.mean, summary.count
        only_failed = sorted(set(summary.failed) - set(seen.tolist()))
        if not self.impute_failures or not only_failed or len(seen) == 0:
            return seen, y, count
        F = np.concatenate([seen, only_failed]).astype(int)
        worst = (y + self._offset[seen]).max() - self._offset[only_failed]  # the worst value, not the worst time
        return F, np.concatenate([y, worst]), \
            np.concatenate([count, np.ones(len(only_failed))])

    def _misfit(self) -> float:
        """How far, in log units, even a well-matched prior workload is expected to be off the target."""
        return self.fit_scale * (self.prior.misfit if self.prior.misfit is not None else 0.25 * self.prior.spread)

    def _failure(self, summary: Summary, prior_failure: np.ndarray, unit: np.ndarray | None = None) -> np.ndarray:
        """Chance each candidate fails: the prior's, updated by the target's failed and successful runs
        nearby (kernel-weighted counts, the prior worth one run)."""
        if not summary.failed:
            return prior_failure
        rows = self._unit if unit is None else unit
        failed = sorted(summary.failed)
        typical = max(np.sqrt(rows.shape[1]) / 2.0, 0.25) * self.failure_length
        near_failed = matern52(rows, rows[failed], typical).sum(axis=1)
        near_ok = matern52(rows, rows[summary.measured], typical).sum(axis=1) if len(summary.measured) \
            else 0.0
        return (prior_failure + near_failed) / (1.0 + near_failed + near_ok)

    def _experts_loo(self, summary: Summary, noise: float) -> float:
        """Mean squared leave-one-out error of the weighted experts on the target's measured candidates."""
        errors = []
        for k in range(len(summary.measured)):
            keep = np.arange(len(summary.measured)) != k
            reduced = Summary(summary.measured[keep], summary.mean[keep], summary.count[keep], summary.var[keep],
                              summary.failed, summary.runs)
            pred, logw = self._experts(reduced, noise)
            w = self._normalise(logw)
            errors.append((w @ pred[:, summary.measured[k]] - summary.mean[k]) ** 2)
        return float(np.mean(errors))

    def _regime(self, summary: Summary) -> str:
        consensus = self._consensus  # None exactly when there is no prior workload
        if self.prior.workloads == 0 or consensus is None:
            return "space"
        if summary.failed and len(summary.measured) == 0 and len(summary.failed) >= 2:
            return "failing"
        if len(summary.measured) < self.warm_start:
            return "start"
        if not self.regimes:
            return "prior"
        if self._failing_more(summary):
            return "explore"
        values = summary.mean + self._offset[summary.measured]
        rho = evidence.agreement(consensus[summary.measured], values)
        # a ranking of near-ties says nothing: only runs that differ by more than the prior's misfit and
        # the runs' noise count
        margin = self._misfit() + 2.0 * self._noise(summary)
        if rho is not None and rho < self.agreement_below and np.ptp(values) > margin:
            return "explore"
        if self.explore_after and summary.runs >= self.explore_after and summary.runs % 2 == 1:
            return "broad"
        return "prior"

    def _failing_more(self, summary: Summary) -> bool:
        """The target fails more often than the prior says it would where it ran (``evidence.failing_more``)."""
        ran = sorted(set(summary.measured.tolist()) | set(summary.failed))
        return evidence.failing_more(self._similarity @ self.prior.failed[:, ran], len(summary.failed))

    def _bound_mask(self, summary: Summary) -> np.ndarray:
        n = len(self.candidates)
        if self.bound_slack is None or not self._offset.any() or self.prior.workloads == 0 \
                or len(summary.measured) == 0:
            return np.zeros(n, dtype=bool)
        ok = np.array([c not in summary.failed for c in summary.measured], dtype=bool)
        if not ok.any():
            return np.zeros(n, dtype=bool)
        incumbent = (summary.mean + self._offset[summary.measured])[ok].min()
        low = evidence.time_bound(self.prior.level, self.prior.failed, summary.measured, summary.mean,
                                  self.bound_slack)
        out = low >= incumbent - self._offset
        out[summary.measured] = False
        return out

    def _choose(self, summary: Summary, chosen: list[int], first: bool, radius: float = math.inf) -> int | None:
        n = len(self.candidates)
        allowed = np.ones(n, dtype=bool)
        allowed[list(summary.failed)] = False
        allowed[chosen] = False
        fresh = allowed.copy()
        fresh[summary.measured] = False
        rng = np.random.default_rng([self.seed, summary.runs, len(chosen)])
        if not fresh.any():
            return self._remeasure(summary, allowed, self._noise(summary)) if first else None
        if self.prior.workloads == 0 and (len(summary.measured) == 0
                                          or len(summary.measured) + len(summary.failed) < self.initial):
            return self._space_filling(summary, chosen, fresh, rng)
        regime = self._regime(summary)
        if regime == "failing":
            return self._away_from_failures(summary, fresh)
        bounded = fresh & ~self._bound_mask(summary)
        if bounded.any():
            fresh = bounded
        if regime == "start":
            return self._portfolio(summary, chosen, fresh)
        if self.diverse_start and len(summary.measured) + len(summary.failed) + len(chosen) \
                < self.warm_start + self.diverse_start:
            return self._diverse(summary, chosen, fresh)
        if (regime == "prior" or (self.trust_explore and regime == "explore")) and math.isfinite(radius):
            # a trust region around the best run (TuRBO): the experts extrapolate badly to the cheapest
            # candidates under a price, so after a run they got wrong the next stays nearer what is known
            centre = summary.measured[int(np.argmin(summary.mean + self._offset[summary.measured]))]
            distance = np.sqrt(((self._unit - self._unit[centre]) ** 2).sum(axis=1))
            near = fresh & (distance <= radius)
            if near.any():
                fresh = near
        incumbent = (summary.mean + self._offset[summary.measured]).min()
        gain = np.zeros(n)
        experts = regime == "broad" and self.broad_model == "experts"
        forest = self._forest_now(summary, regime)
        for unit in self._ensemble or [self._unit]:  # an ensemble: the mean of each reading's acquisition
            mean, std, fail = self._model(summary, target_only=regime == "explore", unit=unit, experts=experts,
                                          forest=forest)
            if regime == "broad":
                std = std * self.broad_spread
            gain += _expected_improvement(mean + self._offset, std, incumbent) * (1.0 - fail)
        gain /= len(self._ensemble or [self._unit])
        gain = np.where(fresh, gain, -np.inf)
        pick = int(np.argmax(gain))
        if forest:
            pick = self._farthest_of_ties(summary, gain, pick)
        if first and gain[pick] < self.remeasure_below:
            again = self._remeasure(summary, allowed, self._noise(summary))
            if again is not None:
                return again
        return pick

    def _forest_now(self, summary: Summary, regime: str) -> bool:
        """Whether the next choice reads the forest on the target's own runs: ``explore_model="forest"``, under a
        known price, in the ``explore`` regime, from ``explore_after`` runs on (docs/benchmarks.md, issue 31).
        Before, with a few runs, a GP's smoothness is the better bet (from the first explore run the forest
        needed more runs on cherrypick's terasort and scout's kmeans and regression on the bigdata input);
        without a price, on the noisy hints table, it chased single runs' noise where the GP ran the best again
        (time at k = 20: 0.47 against 0.57); in the ``broad`` regime its statements on the testbed's last few
        candidates, unlike every run, held 0.28-0.49 of them (a forest states nothing beyond its runs)."""
        return self.explore_model == "forest" and bool(self._offset.any()) and regime == "explore" \
            and bool(self.explore_after) and summary.runs >= self.explore_after

    def _farthest_of_ties(self, summary: Summary, gain: np.ndarray, pick: int) -> int:
        """Of the candidates whose gain ties ``pick``'s (a forest's trees give whole regions one value), the one
        farthest from every run: what the model cannot tell apart, the runs have said least about.  (With the
        forest from the first explore run, the replay's cherrypick cost at k = 10 moved between 0.64 and 0.88
        with the rule that broke its ties: the candidates' order, rounding, a draw; docs/benchmarks.md, issue 31.)"""
        ties = np.flatnonzero(gain >= gain[pick] - 1e-9 * abs(gain[pick]))
        if len(ties) == 1:
            return pick
        ran = summary.measured if len(summary.measured) else np.array(sorted(summary.failed), dtype=int)
        distance = self._nearest(ran, ties)
        return int(ties[int(np.argmax(distance))])

    def _nearest(self, to, among=None) -> np.ndarray:
        """Scaled distance of each candidate (or of those ``among``) to the nearest of the candidates ``to``."""
        rows = self._unit if among is None else self._unit[among]
        return np.sqrt(((rows[:, None, :] - self._unit[None, to, :]) ** 2).sum(-1)).min(axis=1)

    def _away_from_failures(self, summary: Summary, fresh: np.ndarray) -> int:
        """Every run failed: the candidate farthest from the failed ones, weighed by its chance of running."""
        failed = sorted(summary.failed)
        distance = self._nearest(failed)
        _, _, fail = self._model(summary)
        score = np.where(fresh, distance * (1.0 - fail), -np.inf)
        return int(np.argmax(score))

    def _portfolio(self, summary: Summary, chosen: list[int], fresh: np.ndarray) -> int:
        _, logw = self._experts(summary, self._noise(summary))
        w = self._normalise(logw)
        tried = sorted(set(summary.measured.tolist()) | set(summary.failed) | set(chosen))
        score = np.zeros(len(self.candidates))
        J = self.prior.workloads
        if len(w) > J:
            if self.warm_price is None:  # each expert's own kind of regret, weighted by its fit
                losses = self._warm_losses(summary, w[:J] + w[J:], kinds=[0.0, 1.0], by_rank=False)
                pairs = [(1.0, np.vstack([loss for _, loss in losses]))]
            else:
                w = w[:J] + w[J:]
                pairs = self._warm_losses(summary, w)
        else:
            pairs = self._warm_losses(summary, w)
        for share, loss in pairs:
            current = loss[:, tried].min(axis=1) if tried else np.full(len(w), self.regret_cap)
            score += share * (w @ np.minimum(current[:, None], loss) + 1e-3 * (w @ loss))
        score = np.where(fresh, score, np.inf)
        return int(np.argmin(score))

    def _warm_losses(self, summary: Summary, w: np.ndarray, kinds=None,
                     by_rank: bool = True) -> list[tuple[float, np.ndarray]]:
        """(share, capped regrets (J, n)) of each kind of prior the warm start draws on.  Without a price: the
        other workloads' regrets.  With one: ``warm_price`` 0 their time regrets, 1 their cost regrets, None
        both, each weighted by how well it has ranked the target's own runs so far: (1 + Spearman's rho
        between its weighted regrets and the target's costs at the runs), equal shares until two runs succeeded."""
        if not self._offset.any() or self.warm_price == 1.0:
            return [(1.0, np.minimum(self.prior.regret, self.regret_cap))]
        if kinds is None:
            kinds = [0.0, 1.0] if self.warm_price is None else [self.warm_price]
        losses = []
        for kind in kinds:
            priced = np.where(self.prior.failed, np.inf, self.prior.level + kind * self._offset)
            losses.append(np.minimum(np.exp(priced - priced.min(axis=1, keepdims=True)) - 1.0, self.regret_cap))
        shares = np.ones(len(kinds))
        if by_rank and len(kinds) > 1 and len(summary.measured) >= 2:
            cost = summary.mean + self._offset[summary.measured]
            for i, loss in enumerate(losses):
                rho = evidence.agreement(w @ loss[:, summary.measured], cost)
                shares[i] = 1.0 if rho is None else 1.0 + rho
        shares = shares / shares.sum() if shares.sum() > 0 else np.full(len(kinds), 1.0 / len(kinds))
        return list(zip(shares.tolist(), losses, strict=True))

    def _diverse(self, summary: Summary, chosen: list[int], fresh: np.ndarray) -> int:
        """A structurally different option: of the candidates at least a full step (another category, or the
        whole range of a number) from every run so far, the one the model expects cheapest, weighed by its
        chance of running."""
        tried = sorted(set(summary.measured.tolist()) | set(summary.failed) | set(chosen))
        distance = self._nearest(tried)
        mean, _, fail = self._model(summary)
        score = mean + self._offset - np.log(np.maximum(1.0 - fail, 1e-6))
        far = fresh & (distance >= 1.0 - 1e-9)
        return int(np.argmin(np.where(far if far.any() else fresh, score, np.inf)))

    def _space_filling(self, summary: Summary, chosen: list[int], fresh: np.ndarray, rng) -> int:
        tried = sorted(set(summary.measured.tolist()) | set(summary.failed) | set(chosen))
        options = np.flatnonzero(fresh)
        if not tried:
            return int(rng.choice(options))
        d = self._nearest(tried, options)
        far = options[d >= d.max() - 1e-12]
        return int(rng.choice(far))

    def _remeasure(self, summary: Summary, allowed: np.ndarray, noise: float) -> int | None:
        """The less-measured of the two best measured candidates when noise cannot separate them, else None."""
        ok = np.array([allowed[c] for c in summary.measured], dtype=bool)
        repeated = summary.count > 1
        if not ok.any() or (repeated.any() and np.nanmax(summary.var[repeated]) < 1e-12):
            return None  # none, or re-runs have given the very same values: nothing is learnt by another
        cost = summary.mean + self._offset[summary.measured]
        order = [i for i in np.argsort(np.where(ok, cost, np.inf), kind="stable") if ok[i]]
        if len(order) < 2:
            return None
        a, b = order[0], order[1]
        gap = cost[b] - cost[a]
        standard_error = noise * math.sqrt(1.0 / summary.count[a] + 1.0 / summary.count[b])
        if gap >= 2.0 * standard_error:
            return None
        return int(summary.measured[b if summary.count[b] < summary.count[a] else a])


def t_widening(judged: int) -> float:
    """How much wider a Student's t 95 % interval with two degrees of freedom more than the ``judged`` statements
    is than a normal one: the stated spread's widening while few statements have been judged."""
    from scipy.stats import t as student  # scipy.stats: loaded when used (half a second)

    return float(student.ppf(0.975, judged + 2) / 1.96)


def _hindsight(z2: list[float]) -> float:
    return max(1.0, float(np.mean(z2))) if z2 else 1.0


def _known_price(price, candidates: np.ndarray, prior: Prior, log: bool) -> tuple[np.ndarray, Prior]:
    """Log price per candidate (zeros without one) and the prior with its values divided by their price."""
    n = len(candidates)
    if price is None:
        return np.zeros(n), prior
    if not log:
        raise TransferError("a known price needs log=True: it divides the value, it is not added to it")
    factor = price(candidates) if callable(price) else price
    factor = _positive(factor, n, "price")
    if len(prior.values) == 0:
        return np.log(factor), prior
    if callable(price):
        prior_factor = _positive(price(prior.configurations), len(prior.values), "price of the prior's rows")
    else:
        index = {tuple(np.round(row, 9)): i for i, row in enumerate(candidates)}
        where = [index.get(tuple(np.round(row, 9)), -1) for row in prior.configurations]
        if min(where) < 0:
            raise TransferError("a prior row's configuration is not among the candidates: give price as a "
                                "function of feature rows")
        prior_factor = factor[where]
    values = np.where(prior.failed, np.nan, prior.values / prior_factor)
    return np.log(factor), Prior(prior.workloads, prior.configurations, values, prior.failed,
                                 prior.workload_features)


def _effects(prior: Prior, log: bool, by_workload: bool = False) -> tuple:
    """The prior's successful runs' rows and values less their workload's mean (log units when ``log``): what
    ``Canonical`` orders a feature's levels by (``by_workload``: and each run's workload label)."""
    ok = ~prior.failed
    values = np.log(prior.values[ok]) if log else prior.values[ok]
    labels = prior.workloads[ok]
    centred = values.copy()
    for label in set(labels.tolist()):
        mine = labels == label
        centred[mine] = values[mine] - values[mine].mean()
    if by_workload:
        return prior.configurations[ok], centred, labels
    return prior.configurations[ok], centred


def _shape(level: np.ndarray, normalise: str) -> tuple[np.ndarray, float]:
    """Each row of ``level`` (log values) standardised, as ``prior.lay_over`` makes a workload's shape, and the
    median of the rows' standard deviations (their typical spread)."""
    spread = level.std(axis=1, keepdims=True)
    spread[spread == 0] = 1.0
    if normalise == "rank":
        from scipy.stats import norm

        ranks = level.argsort(axis=1, kind="stable").argsort(axis=1, kind="stable")
        return norm.ppf((ranks + 0.5) / level.shape[1]), float(np.median(spread))
    return (level - level.mean(axis=1, keepdims=True)) / spread, float(np.median(spread))


def _positive(values, n: int, what: str) -> np.ndarray:
    try:
        values = np.asarray(values, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise TransferError(f"{what} must be {n} positive numbers") from None
    if len(values) != n or not (np.isfinite(values) & (values > 0)).all():
        raise TransferError(f"{what} must be {n} positive finite numbers, got {len(values)} values")
    return values


def _one_hot_stretch(rows: np.ndarray) -> np.ndarray:
    """Per column 1, or sqrt(2) for columns of a one-hot group (adjacent 0/1 columns with exactly one 1 per
    row), so that changing a category moves a configuration by 1 as a full step of a scaled number does,
    not by sqrt(2)."""
    d = rows.shape[1]
    stretch = np.ones(d)
    binary = np.all((rows == 0) | (rows == 1), axis=0)
    start = 0
    while start < d:
        if not binary[start]:
            start += 1
            continue
        for end in range(start + 2, d + 1):
            if not binary[end - 1]:
                break
            if np.all(rows[:, start:end].sum(axis=1) == 1):
                stretch[start:end] = np.sqrt(2.0)
                start = end - 1
                break
        start += 1
    return stretch


def _expected_improvement(mean: np.ndarray, std: np.ndarray, incumbent: float) -> np.ndarray:
    from scipy.stats import norm  # scipy.stats: loaded when used (half a second; a report may not need it)

    std = np.maximum(std, 1e-12)
    u = (incumbent - mean) / std
    return (incumbent - mean) * norm.cdf(u) + std * norm.pdf(u)

