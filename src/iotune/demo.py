"""The demo's tuning campaign, end to end on real measurements (paper 000's workflow in small, then tuned).

1. screen the demo space with a foldover Plackett-Burman design;
2. measure every configuration of every workload but one (the collection);
3. train a CART model of I/O time on the collection and let it pick hints for
   the workload that was left out, without a single run of it;
4. tune that workload with a few real runs (:class:`iotune.study.tune.Tuning`,
   the collection as prior), starting from the default;
5. measure every configuration of that workload for real, so both picks can be
   judged against the truth; :func:`verdict` says how it went in plain words.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from iotune.analysis import ConfigurationStats, best_per_workload, configuration_stats
from iotune.recommend import Recommender
from iotune.recommend.answer import decide
from iotune.recommend.decision import Measured, decide_measured, measured_noise, ratio_to_best
from iotune.screening import ScreeningStudy, load_screen
from iotune.screening.significance import significance
from iotune.spec import CampaignSpec
from iotune.stored import StoredStudy
from iotune.study import Campaign, CampaignReport, Objective, Worker
from iotune.study.measure import prepare
from iotune.study.tune import Step, TuneResult, Tuning
from iotune.units import format_size

HELD_OUT = {"transfer_size": 256 * 1024, "collective": True}
TUNE_BUDGET = 12
"""Runs the tuner may spend on the held-out workload (of its 10 configurations)."""

if TYPE_CHECKING:
    from iotune.learn.model import TrainedModel
    from iotune.recommend.decision import Decision
    from iotune.recommend.result import Recommendation
    from iotune.screening.effects import ScreenResult

RunCampaign = Callable[[Campaign], CampaignReport]


def demo_spec_text() -> str:
    return resources.files("iotune.data").joinpath("demo.yaml").read_text()


def demo_spec() -> CampaignSpec:
    """The packaged demo campaign (``iotune/data/demo.yaml``)."""
    return CampaignSpec.from_text(demo_spec_text(), source="demo.yaml")


@dataclass
class DemoOutcome:
    """Everything the demo measured and decided, for the command line to show and :func:`verdict` to judge."""

    spec: CampaignSpec
    screen: ScreenResult
    collection_study: str
    best: list
    model: TrainedModel
    recommendation: Recommendation
    tuned: TuneResult
    held_out_study: str
    truth: list[ConfigurationStats]
    """Every configuration of the held-out workload as measured at the end, fastest first."""
    answer: Decision | None = None
    """What ``iotune recommend`` answered for the held-out workload before any run of it
    (:class:`iotune.recommend.decision.Decision`)."""
    matters: dict[str, bool | None] | None = None
    """Per screened parameter: whether its effect is beyond the noise (the report's "matters"; None: unknown)."""

    def measured(self, configuration) -> ConfigurationStats | None:
        key = self.spec.space.configuration(dict(configuration)).key
        return next((s for s in self.truth if s.config_key == key), None)

    def rank(self, configuration) -> int | None:
        found = self.measured(configuration)
        return None if found is None else self.truth.index(found) + 1

    @property
    def model_pick(self) -> dict:
        return self.recommendation.candidates[0].configuration

    @property
    def tuned_pick(self) -> dict | None:
        return None if self.tuned.best is None else self.tuned.best.configuration.to_dict()

    @property
    def default(self) -> dict:
        return self.spec.space.configuration(dict(HELD_OUT)).to_dict()


def _held_out(configuration) -> bool:
    return all(configuration[name] == value for name, value in HELD_OUT.items())


def run_demo(store, study: str, runner, scratch: Path, run: RunCampaign, repeats: int | None = None,
             say: Callable[[str], None] = print, resume: bool = False, platform: dict | None = None,
             budget: int = TUNE_BUDGET, on_step: Callable[[Step, TuneResult], None] | None = None) -> DemoOutcome:
    """Screen, collect, train and pick, tune the held-out workload, then measure it; see the module docstring."""
    from iotune.learn import train
    from iotune.learn.model import save_model

    spec = demo_spec().with_campaign(repeats=repeats)
    space = spec.space

    say("1/5 screening the parameters (foldover Plackett-Burman design, paper 000 Sec. 4.1)")
    screening = replace(spec, campaign=replace(spec.campaign, sampler="screening", repeats=1))
    run(prepare(store, screening, f"{study}-screen", runner, scratch, resume=resume, platform=platform))
    screened = ScreeningStudy.of(StoredStudy.open(store, f"{study}-screen"))
    screen = load_screen(screened)
    matters = {f.name: f.matters for f in significance(screened).factors}

    everything = space.full_factorial()
    say(f"2/5 measuring every configuration of every workload except {_describe(HELD_OUT)}")
    run(prepare(store, spec, study, runner, scratch, configurations=[c for c in everything if not _held_out(c)],
                resume=resume, platform=platform))

    workload = {p.name: HELD_OUT[p.name] for p in space.workload_parameters}
    say(f"3/5 training a CART model of log I/O time on those measurements; its pick for {_describe(HELD_OUT)}")
    collection = StoredStudy.open(store, study)
    model = train(collection, predictor="cart", target="time", log_target=True)
    save_model(collection, model)
    recommendation = Recommender(model).recommend(workload, objective="time", top=3)
    answer = decide(space, collection.trials(), workload)

    say(f"4/5 tuning {_describe(HELD_OUT)} with {budget} real runs (iotune tune: the default first, then what the "
        "other workloads' runs and its own suggest)")
    worker = Worker(collection, runner, scratch, platform=platform)
    tuned = Tuning(collection, worker, workload, budget, objective=Objective("time"), on_step=on_step).run()

    held_out_study = f"{study}-heldout"
    say("5/5 measuring every configuration of that workload, to judge both picks against the truth")
    run(prepare(store, spec, held_out_study, runner, scratch, configurations=[c for c in everything if _held_out(c)],
                resume=resume, platform=platform))
    truth = sorted((s for s in configuration_stats(store.trials(study=held_out_study)).values() if s.n),
                   key=lambda s: s.mean_time)
    return DemoOutcome(spec, screen, study, best_per_workload(space, store.trials(study=study)), model,
                       recommendation, tuned, held_out_study, truth, answer=answer, matters=matters)


def verdict(outcome: DemoOutcome) -> list[str]:
    """The demo's result in plain words: what was tuned, what was found, how close it came and why."""
    space, benchmark = outcome.spec.space, outcome.spec.benchmark
    system = [p.name for p in space.system_parameters]
    truth, best = outcome.truth, outcome.truth[0]
    lines = [f"What was tuned: ROMIO's collective-buffering hints ({', '.join(system)}) for a workload iotune had "
             f"not measured before: {benchmark['processes']} MPI processes writing and then reading one shared "
             f"{format_size(benchmark['processes'] * benchmark['block_size'])} file in collective "
             f"{format_size(HELD_OUT['transfer_size'])} calls."]
    repeats = max(s.n for s in truth)
    decided = truth_decision(outcome)
    sure = (" (ahead of every other beyond the run-to-run noise)" if decided.separated else
            f" (its runs cannot tell it apart from {len(decided.tied) - 1} other(s): any of them may be the fastest)"
            if len(decided.tied) > 1 else " (one run each: whether it is ahead is unknown)")
    lines.append(f"The truth, measured at the end ({len(truth)} configurations, {repeats} run(s) each): the fastest "
                 f"is {_settings(best.config, system)} at {best.mean_time:.3f} s{sure}, the slowest "
                 f"{_settings(truth[-1].config, system)} at {truth[-1].mean_time:.3f} s "
                 f"({_slower(truth[-1].mean_time / best.mean_time)}).")
    default = outcome.measured(outcome.default)
    tuned = outcome.tuned
    if outcome.tuned_pick is None:
        lines.append(f"The tuner: none of its {tuned.runs} runs succeeded, so it picked nothing.")
    else:
        lines.append(f"The tuner spent {tuned.runs} runs and picked {_settings(outcome.tuned_pick, system)}; "
                     + _against_best(outcome, outcome.tuned_pick) + _against_default(outcome.tuned_pick, outcome,
                                                                                     default))
    ties = outcome.recommendation.co_champions
    lines.append("The model alone (no run of this workload, trained on the other workloads) picked "
                 f"{_settings(outcome.model_pick, system)}"
                 + (" (the default configuration: the model expects no hint setting to beat it)"
                    if _is_default(outcome, outcome.model_pick) else "")
                 + (f", one of {ties} settings it predicts the same time for" if ties > 1 else "")
                 + "; " + _against_best(outcome, outcome.model_pick) + ".")
    answer = outcome.answer
    if answer is not None and answer.best is not None:
        lines.append("iotune recommend, asked before any run of it, predicted "
                     f"{_settings(answer.best, system)}"
                     + (" (the default configuration)" if _is_default(outcome, answer.best) else "")
                     + " from the other workloads' runs; "
                     + _against_best(outcome, answer.best) + ".")
    elif answer is not None:
        lines.append(f"iotune recommend, asked before any run of it, named no configuration: {answer.message}.")
    spread = truth[-1].mean_time / best.mean_time - 1
    noise = _noise(truth)
    by = f"a factor of {spread + 1:.3g}" if spread >= 1 else _percent(spread)
    why = f"Why: on this machine these hints change this workload's time by at most {by}"
    if noise is not None and spread <= 4 * noise:
        why += (f", not much more than the run-to-run noise (about {_percent(noise)} per run): several settings "
                "are about equally good here, and which one measures fastest changes from run to run")
    elif noise is not None:
        why += f", well above the run-to-run noise (about {_percent(noise)} per run), so the choice matters"
    why += _screening(outcome, system)
    lines.append(why if why.endswith(".") else why + ".")
    return lines


def _is_default(outcome: DemoOutcome, configuration: dict) -> bool:
    return all(configuration.get(p.name) == outcome.default.get(p.name) for p in outcome.spec.space.system_parameters)


def _screening(outcome: DemoOutcome, system: list[str]) -> str:
    """What the screening says, as its table in the report says it: a hint "matters" only beyond the noise."""
    ranked = [name for name in outcome.screen.ranking if name in system]
    if not ranked:
        return ""
    matters = outcome.matters or {}
    beyond = [name for name in ranked if matters.get(name)]
    if beyond:
        return f". Of the hints, screening found {beyond[0]} to matter most (its effect is beyond the noise)"
    if ranked and all(matters.get(name) is False for name in ranked):
        return (f". Screening found no hint whose effect is beyond the noise ({ranked[0]} had the largest, "
                "within it)")
    return (f". Screening ranked {ranked[0]} first, but its runs cannot tell which effects are beyond the noise")


def _against_best(outcome: DemoOutcome, configuration: dict) -> str:
    measured, best = outcome.measured(configuration), outcome.truth[0]
    if measured is None:
        return "it was not measured at the end"
    rank, total = outcome.rank(configuration), len(outcome.truth)
    if rank == 1:
        return f"it measured fastest of all {total} at the end"
    slower = measured.mean_time / best.mean_time - 1
    text = f"it measured {rank} of {total} at the end, {_slower(slower + 1)} than the fastest"
    ranked = _ranked(outcome)
    noise = measured_noise(ranked)  # the held-out workload's repeats, pooled: the one decision's noise
    if noise is None:
        return text + " (one run each: the noise is unknown)"
    ratio = ratio_to_best(ranked[0], next(m for m in ranked if m.key == measured.config_key), noise, total)
    interval = f"95% interval of the ratio {ratio.low:.2f}-{ratio.high:.2f}x"
    if ratio.low <= 1:
        return text + f", within the noise of the measurement ({interval}): its runs cannot tell it from the fastest"
    return text + f", more than the noise of the measurement ({interval})"


def _against_default(configuration: dict, outcome: DemoOutcome, default: ConfigurationStats | None) -> str:
    measured = outcome.measured(configuration)
    if measured is None or default is None:
        return "."
    tuned = outcome.tuned
    if tuned.best is not None and tuned.default is not None and \
            tuned.best.configuration.key == tuned.default.configuration.key:
        expected = " (the tuner's pick is the default configuration itself: it found no gain to state)"
    elif tuned.gain is None or tuned.gain_low is None or tuned.gain_high is None:
        expected = ""
    elif tuned.gain_low <= 1:
        expected = (f" (the tuner expected {tuned.gain:.2f}x but could not rule out no gain from its "
                    f"{tuned.runs} runs: 95% interval {tuned.gain_low:.2f}-{tuned.gain_high:.2f}x)")
    else:
        expected = f" (the tuner expected {tuned.gain:.2f}x, 95% interval {tuned.gain_low:.2f}-{tuned.gain_high:.2f}x)"

    system = [p.name for p in outcome.spec.space.system_parameters]
    return (f"; against the default ({_settings(outcome.default, system)}, "
            f"{default.mean_time:.3f} s) it is {default.mean_time / measured.mean_time:.2f}x as fast{expected}.")


def truth_decision(outcome: DemoOutcome):
    """The one decision (:mod:`iotune.recommend.decision`) on the held-out workload as measured at the end."""
    space = outcome.spec.space
    workload = {p.name: outcome.truth[0].config.get(p.name) for p in space.workload_parameters}
    return decide_measured(space, workload, _ranked(outcome), [])


def _ranked(outcome: DemoOutcome) -> list[Measured]:
    return [Measured(s.config, s.config_key, list(s.times)) for s in outcome.truth]


def _noise(stats: list[ConfigurationStats]) -> float | None:
    """Pooled coefficient of variation of one run (None when no configuration has two runs)."""
    pairs = [(s.std_time / s.mean_time, s.n - 1) for s in stats if s.n > 1 and s.mean_time > 0]
    dof = sum(d for _, d in pairs)
    return math.sqrt(sum(cv * cv * d for cv, d in pairs) / dof) if dof else None


def _slower(ratio: float) -> str:
    """How much slower a time ``ratio`` times another is: ``"12% slower"``, or ``"24.7x slower"`` from twice on
    (a percentage in the thousands is hard to read)."""
    return f"{ratio:.3g}x slower" if ratio >= 2 else f"{_percent(ratio - 1)} slower"


def _percent(fraction: float) -> str:
    return f"{100 * fraction:.1f}%" if abs(fraction) < 0.1 else f"{100 * fraction:.0f}%"


def _settings(configuration: dict, names: list[str]) -> str:
    shown = [f"{n}={format_size(configuration[n]) if n.endswith('_size') else configuration[n]}"
             for n in names if configuration.get(n) is not None]
    return " ".join(shown) or "the defaults"


def _describe(values: dict) -> str:
    return " ".join(f"{k}={format_size(v) if k.endswith('_size') else v}" for k, v in values.items())
