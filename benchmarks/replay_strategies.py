"""The strategies the replay benchmark compares, each a function of one (table, objective, target, seed).

Signature: ``strategy(table, spec, objective, target, seed, budget, rng) -> (picks, runs)`` where
``picks[k]`` is the table's configuration index declared after k runs (None: every run failed) and
``runs`` the runs made (a strategy may stop early).  Measurements come from ``table.measure`` with
``rng`` (a random recorded repeat); every strategy declares the lowest measured value among its
successful runs, except the engine, which declares its ``best``.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel
from scipy.optimize import minimize
from scipy.stats import norm

from iotune.learn.registry import cart, random_forest
from iotune.samplers import Outcome, make_sampler
from iotune.space import Parameter, Space
from iotune.transfer import Prior, TransferTuner
from iotune.transfer.gp import GaussianProcess

BUDGETS = (3, 5, 10, 20)
INITIAL = 3  # random runs before a model is fitted (CherryPick uses 3)
FOREST_TREES = 30  # fewer than iotune's default 100, refitted after every run of every case


def _picks(history, budget):
    """Declared pick after each k of BUDGETS: lowest value among the first k successful runs."""
    picks = {}
    for k in BUDGETS:
        ok = [(v, c) for c, v in history[:k] if v is not None]
        picks[k] = min(ok)[1] if ok else None
    return picks, len(history)


def _unit(table):
    X = table.configuration_features
    span = np.ptp(X, axis=0)
    return (X - X.min(axis=0)) / np.where(span > 0, span, 1.0)


def random_sampling(table, spec, objective, target, seed, budget, rng):
    available = np.flatnonzero(table.available[target])
    order = rng.permutation(available)[:budget]
    return _picks([(int(c), table.measure(objective, target, int(c), rng)) for c in order], budget)


def _sequential(table, objective, target, budget, rng, propose):
    """INITIAL random runs, then ``propose(X, measured, values)`` (log values, failures as the worst seen)."""
    available = np.flatnonzero(table.available[target])
    history = []
    for c in rng.permutation(available)[:INITIAL]:
        history.append((int(c), table.measure(objective, target, int(c), rng)))
    while len(history) < min(budget, len(available)):
        done = {c for c, _ in history}
        ok = [math.log(v) for _, v in history if v is not None]
        if not ok:
            c = int(rng.choice([a for a in available if a not in done]))
        else:
            worst = max(ok)
            measured = np.array([c for c, _ in history])
            values = np.array([worst if v is None else math.log(v) for _, v in history])
            options = np.array([a for a in available if a not in done])
            c = int(propose(measured, values, options))
        history.append((c, table.measure(objective, target, c, rng)))
    return _picks(history, budget)


def gp_ei(table, spec, objective, target, seed, budget, rng):
    """CherryPick-style: a GP (Matern 5/2, constant mean, length scale and noise by marginal likelihood on a
    grid: ``iotune.transfer.gp``) on the target's runs only, and expected improvement."""
    X = _unit(table)

    def propose(measured, values, options):
        mean, std = GaussianProcess().fit(X[measured], values).predict(X[options])
        best = values.min()
        std = np.maximum(std, 1e-12)
        u = (best - mean) / std
        return options[int(np.argmax((best - mean) * norm.cdf(u) + std * norm.pdf(u)))]

    return _sequential(table, objective, target, budget, rng, propose)


def gp_ei_sklearn(table, spec, objective, target, seed, budget, rng):
    """The same with scikit-learn's GaussianProcessRegressor (ARD Matern 5/2 + white noise, L-BFGS-B on the
    marginal likelihood, at most 50 iterations): ~20x slower, so not in the default run."""
    X = _unit(table)

    def propose(measured, values, options):
        kernel = ConstantKernel(1.0) * Matern(np.ones(X.shape[1]), nu=2.5) + WhiteKernel(1e-3, (1e-6, 1e-1))
        gp = GaussianProcessRegressor(kernel, normalize_y=True, optimizer=_short_lbfgs, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            gp.fit(X[measured], values)
        mean, std = gp.predict(X[options], return_std=True)
        best = values.min()
        std = np.maximum(std, 1e-12)
        u = (best - mean) / std
        return options[int(np.argmax((best - mean) * norm.cdf(u) + std * norm.pdf(u)))]

    return _sequential(table, objective, target, budget, rng, propose)


def _short_lbfgs(objective, theta, bounds):
    """scikit-learn's default optimizer (L-BFGS-B on the log marginal likelihood), capped at 50 iterations."""
    result = minimize(objective, theta, method="L-BFGS-B", jac=True, bounds=bounds, options={"maxiter": 50})
    return result.x, result.fun


def _estimator_strategy(make):
    def strategy(table, spec, objective, target, seed, budget, rng):
        X = table.configuration_features

        def propose(measured, values, options):
            model = make(seed).fit(X[measured], values)
            return options[int(np.argmin(model.predict(X[options])))]

        return _sequential(table, objective, target, budget, rng, propose)
    return strategy


def acic_forest(table, spec, objective, target, seed, budget, rng):
    """Paper 000 as is, sequential: a forest on the shared database (workload features + configuration
    features -> log value) plus the target's runs so far; run the best predicted unmeasured candidate."""
    others = [w for w in range(len(table.workloads)) if w != target]
    w, c, r = np.nonzero(table.present[others])
    w = np.array(others)[w]
    ok = ~table.failed[w, c, r]
    train_X = np.hstack([table.workload_features[w[ok]], table.configuration_features[c[ok]]])
    train_y = np.log(table.values[objective][w[ok], c[ok], r[ok]])
    mine = np.hstack([np.repeat(table.workload_features[[target]], len(table.configurations), axis=0),
                      table.configuration_features])
    available = np.flatnonzero(table.available[target])
    history = []
    while len(history) < min(budget, len(available)):
        done = {h for h, _ in history}
        measured = [(h, math.log(v)) for h, v in history if v is not None]
        X = np.vstack([train_X] + [mine[[h]] for h, _ in measured])
        y = np.concatenate([train_y, [v for _, v in measured]])
        model = random_forest(n_estimators=FOREST_TREES, random_state=seed).fit(X, y)
        options = np.array([a for a in available if a not in done])
        pick = int(options[int(np.argmin(model.predict(mine[options])))])
        history.append((pick, table.measure(objective, target, pick, rng)))
    return _picks(history, budget)


def _space(table, spec, target):
    """A Space with one system parameter per configuration feature that varies among the target's
    configurations and is not determined by the features before it (an ordinal or whole-number feature as an integer, so its order is kept), and a map
    from each grid point's values to the table's configuration index (other grid points are unavailable)."""
    available = np.flatnonzero(table.available[target])
    parameters, names = [], []
    distinct = 1
    for feature in spec.configuration:
        seen = {table.configuration_points[c][feature.column] for c in available}
        if len(seen) < 2:
            continue  # e.g. a hint inactive for this workload
        columns = [column for _, column, _ in names] + [feature.column]
        with_it = len({tuple(table.configuration_points[c][col] for col in columns) for c in available})
        if with_it == distinct:
            # A function of the features kept so far (scout's total vCPUs = cores x VMs): as a parameter of
            # its own it would multiply the grid by points the table lacks, and the heuristics spend minutes
            # asking for them.
            continue
        distinct = with_it
        name = "p_" + re.sub(r"\W", "_", feature.column)
        if feature.kind == "ordinal":
            order = [v for v in feature.levels if v in seen]
            levels, encode = list(range(len(order))), {v: i for i, v in enumerate(order)}
        elif all(isinstance(v, float) and v.is_integer() and v >= 0 for v in seen):
            levels = sorted(int(v) for v in seen)
            encode = {v: int(v) for v in seen}
        else:
            levels = sorted(map(str, seen))
            encode = {v: str(v) for v in seen}
        parameters.append(Parameter(name=name, type="integer" if isinstance(levels[0], int) else "categorical",
                                    levels=tuple(levels), role="system", layer="application"))
        names.append((name, feature.column, encode))
    if not parameters:
        parameters = [Parameter(name="configuration", type="integer", levels=tuple(range(len(available))),
                                role="system", layer="application")]
        return Space("replay", parameters), {(i,): int(c) for i, c in enumerate(available)}, ["configuration"]
    index = {}
    for c in available:
        point = table.configuration_points[c]
        index[tuple(encode[point[column]] for _, column, encode in names)] = int(c)
    return Space("replay", parameters), index, [name for name, _, _ in names]


def _heuristic(name):
    def strategy(table, spec, objective, target, seed, budget, rng):
        space, index, names = _space(table, spec, target)
        sampler = make_sampler(name, space, seed=seed)
        history = []
        while len(history) < budget and (batch := sampler.ask(1)):
            configuration = batch[0]
            c = index.get(tuple(configuration[n] for n in names))
            if c is None:  # a grid point the table lacks: unavailable, answered without a run
                sampler.tell(configuration, Outcome("INVALID"))
                continue
            value = table.measure(objective, target, c, rng)
            sampler.tell(configuration, Outcome("FAILED") if value is None else Outcome.of([value]))
            history.append((c, value))
        return _picks(history, budget)
    return strategy


def optuna_tpe(table, spec, objective, target, seed, budget, rng):
    """Optuna's TPE sampler with its defaults (a peer a user would pick instead; ``pip install -e '.[bench]'``):
    one categorical parameter per configuration feature of the target (as the heuristics' space), minimising
    the log value; a failed run is a FAIL trial, a combination the table lacks is answered as FAIL without a
    run (after 50 such answers in a row, a random unrun configuration is run instead)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    space, index, names = _space(table, spec, target)
    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed), direction="minimize")
    distributions = {p.name: optuna.distributions.CategoricalDistribution(list(p.levels)) for p in space.parameters}
    history, done, missed = [], set(), 0
    while len(history) < min(budget, len(index)):
        trial = study.ask(distributions)
        c = index.get(tuple(trial.params[n] for n in names))
        if (c is None or c in done) and missed < 50:
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
            missed += 1
            continue
        lacking = c is None
        if lacking:
            # Without this, on a sparse grid (striping: 21 of 72 points) TPE can ask for lacking points for minutes.
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
        if c is None or c in done:
            c = int(rng.choice([a for a in index.values() if a not in done]))
        missed = 0
        done.add(c)
        value = table.measure(objective, target, c, rng)
        state = optuna.trial.TrialState.FAIL if value is None else optuna.trial.TrialState.COMPLETE
        if lacking:  # the random configuration enters TPE's history as the trial it is
            params = {n: v for n, v in zip(names, next(k for k, a in index.items() if a == c))}
            study.add_trial(optuna.trial.create_trial(params=params, distributions=distributions, state=state,
                                                      value=None if value is None else math.log(value)))
        elif value is None:
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
        else:
            study.tell(trial, math.log(value))
        history.append((c, value))
    return _picks(history, budget)


def known_price(table, objective):
    """The configuration's price as a function of feature rows when ``objective`` is the table's time x a
    price that depends on the configuration only (a user knows it: pricing.yaml, the cloud's price list),
    else None."""
    if objective == "time" or "time" not in table.values:
        return None
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = table.values[objective] / table.values["time"]
    low, high = np.nanmin(ratio, axis=(0, 2)), np.nanmax(ratio, axis=(0, 2))
    if not (np.isfinite(low).all() and np.allclose(low, high, rtol=1e-6)):
        return None
    prices = {tuple(np.round(row, 9)): p for row, p in zip(table.configuration_features, low)}
    return lambda rows: np.array([prices[tuple(np.round(row, 9))] for row in np.asarray(rows, dtype=float)])


def _engine(use_prior=True, use_features=True, use_price=True, **options):
    def strategy(table, spec, objective, target, seed, budget, rng):
        available = np.flatnonzero(table.available[target])
        prior = Prior.from_table(table, objective, exclude=[target]) if use_prior else None
        workload = table.workload_features[target] if use_features else None
        price = known_price(table, objective) if use_price else None
        tuner = TransferTuner(table.configuration_features[available], prior, workload, seed=seed, price=price,
                              **options)
        observations = []
        while len(observations) < budget:
            suggestion = tuner.suggest(observations)
            if not suggestion:
                break
            c = suggestion[0]
            observations.append((c, table.measure(objective, target, int(available[c]), rng)))
        picks = {}
        for k in BUDGETS:
            best = tuner.best(observations[:k])
            picks[k] = None if best is None else int(available[best])
        return picks, len(observations)
    return strategy


def _product(counts="log2", means=False, declare=None, **options):
    """The engine as ``iotune tune`` runs it: :class:`iotune.samplers.TransferSampler` asked and told one run at a
    time (the campaign's loop with one worker), over the table's Space (``replay_product.TableSpace``), the
    target's measured configurations as candidates, the other workloads as (Configuration, Outcome) pairs, the
    known price as a function of the configuration, no baseline run (a table has no default configuration), and
    the pick declared by ``iotune.study.tune.declared_best``.  Variants for comparison only: ``counts="linear"``
    (counts encoded as plain integers), ``means=True`` (each prior Outcome collapsed to its mean, one run: what
    the sampler fed the engine before it kept every run), ``declare="engine"`` (the engine's ``best`` under
    time too, as ``engine-direct`` declares)."""
    from replay_product import TableSpace

    from iotune.samplers import TransferSampler
    from iotune.study.tune import declared_best

    def strategy(table, spec, objective, target, seed, budget, rng):
        replay = TableSpace(table, spec, counts=counts)
        candidates = replay.candidates(target)
        prior = replay.prior(objective, target)
        if means:
            prior = [(c, Outcome("COMPLETE", o.value, (o.value,)) if o.state == "COMPLETE" else o) for c, o in prior]
        sampler = TransferSampler(replay.space, seed=seed, budget=budget, workload=replay.workload(target),
                                  prior=prior, objective=objective,
                                  price=replay.price(known_price(table, objective)), candidates=candidates,
                                  baseline=False, engine_options=options or None)
        runs = 0
        while runs < budget and (batch := sampler.ask(1)):
            configuration = batch[0]
            value = table.measure(objective, target, replay.index[configuration.key], rng)
            sampler.tell(configuration, Outcome("FAILED") if value is None else Outcome.of([value]))
            runs += 1
        picks = {}
        for k in BUDGETS:
            runs = sampler.observations[:k]
            best = sampler.engine.best(runs) if declare == "engine" else declared_best(sampler, runs, objective)
            picks[k] = None if best is None else replay.index[sampler.candidates[best].key]
        return picks, len(sampler.observations)
    return strategy


STRATEGIES = {
    "random": random_sampling,
    "gp-ei": gp_ei,
    "nelder-mead": _heuristic("nelder-mead"),
    "annealing": _heuristic("annealing"),
    "genetic": _heuristic("genetic"),
    "pso": _heuristic("pso"),
    "forest": _estimator_strategy(lambda seed: random_forest(n_estimators=FOREST_TREES, random_state=seed)),
    "cart": _estimator_strategy(lambda seed: cart(random_state=seed)),
    "engine-noprior": _engine(use_prior=False),
    "engine-blind": _engine(use_features=False),
    "engine-direct": _engine(),
    "engine": _product(),
}
"""Strategies of the default run, in report order."""

def exhaustive(table, spec, objective, target, seed, budget, rng):
    """A reference, not a strategy: every configuration run once (whatever the budget), the lowest declared at
    every k.  On a noisy table it shows how often even a full sweep of single runs lands within 5 %."""
    available = rng.permutation(np.flatnonzero(table.available[target]))
    history = [(int(c), table.measure(objective, target, int(c), rng)) for c in available]
    ok = [(v, c) for c, v in history if v is not None]
    pick = min(ok)[1] if ok else None
    return {k: pick for k in BUDGETS}, len(history)


# the engine's defaults before issue 31's covariance model (the variants below that name it start from them)
BEFORE_31 = {"encoding": "canonical", "model": "experts", "warm_start": 2, "broad_model": "same", "bound_slack": 2.0,
             "calibrate": False, "explore_model": "gp"}
EXTRA = {"engine-noprice": _engine(use_price=False), "engine-noevidence": _engine(regimes=False, bound_slack=None),
         "engine-diverse": _engine(diverse_start=1), "engine-costwarm": _engine(warm_price=1.0),
         "engine-linear": _product(counts="linear"), "engine-given": _product(**BEFORE_31 | {"encoding": "given"}),
         "engine-warmboth": _product(warm_price=None), "engine-warmcost": _product(warm_price=1.0),
         "engine-warmboth3": _product(warm_price=None, warm_start=3), "engine-means": _product(means=True),
         "engine-logmean": _product(declare="engine"),
         "engine-notrust": _product(trust_region=False),
         "engine-both": _product(experts="both"), "engine-lengths": _product(lengths="prior"),
         "engine-lengths-trust": _product(lengths="prior", trust_start=1, trust_explore=True),
         "engine-lengths-both-trust": _product(lengths="prior", experts="both", trust_start=1, trust_explore=True),
         "engine-trust1": _product(trust_start=1, trust_explore=True),
         "engine-select": _product(encoding="select"), "engine-ensemble": _product(encoding="ensemble"),
         "engine-direct-notrust": _engine(trust_region=False),
         "engine-before": _product(**BEFORE_31),
         "engine-warm1": _product(**BEFORE_31 | {"warm_start": 1}),
         "engine-cov": _product(**BEFORE_31 | {"model": "covariance"}),
         "engine-cov1": _product(**BEFORE_31 | {"model": "covariance", "warm_start": 1}),
         "engine-cov1b": _product(**BEFORE_31 | {"model": "covariance", "warm_start": 1, "broad_model": "experts"}),
         "engine-uncalibrated": _product(calibrate=False),
         "engine-gp-explore": _product(explore_model="gp"),
         "tpe": optuna_tpe, "acic-forest": acic_forest, "gp-ei-sklearn": gp_ei_sklearn, "exhaustive": exhaustive}
"""Slower strategies run only when named (``--strategies``)."""
