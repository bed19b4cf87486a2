"""The demo's tuning campaign, end to end on real measurements (paper 000's workflow in small).

1. screen the demo space with a foldover Plackett-Burman design;
2. measure every configuration of every workload but one (the collection);
3. train a CART model of I/O time on the collection;
4. recommend hints for the workload that was left out, which the model never saw;
5. measure every configuration of that workload for real, so the recommendation
   can be judged against the truth: predicted against measured time, and how far
   the recommended configuration is from the best measured one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

from iotune.analysis import ConfigurationStats, best_per_workload, configuration_stats
from iotune.recommend import Recommender
from iotune.screening import load_screen
from iotune.spec import CampaignSpec
from iotune.study import Campaign, CampaignReport
from iotune.study.measure import prepare

HELD_OUT = {"transfer_size": 256 * 1024, "collective": True}

RunCampaign = Callable[[Campaign], CampaignReport]


def demo_spec_text() -> str:
    return resources.files("iotune.data").joinpath("demo.yaml").read_text()


def demo_spec() -> CampaignSpec:
    """The packaged demo campaign (``iotune/data/demo.yaml``)."""
    return CampaignSpec.from_text(demo_spec_text(), source="demo.yaml")


@dataclass
class JudgedCandidate:
    """A recommended configuration with what was measured for it afterwards."""

    rank: int
    configuration: dict
    predicted_s: float
    measured: ConfigurationStats | None
    measured_rank: int | None


@dataclass
class DemoOutcome:
    screen: object
    collection_study: str
    best: list
    model: object
    recommendation: object
    held_out_study: str
    judged: list[JudgedCandidate]
    measured_best: ConfigurationStats
    measured_default: ConfigurationStats | None
    configurations: int

    @property
    def regret(self) -> float | None:
        """How much slower the top recommendation measured than the best measured configuration (fraction)."""
        top = self.judged[0].measured
        return top.mean_time / self.measured_best.mean_time - 1 if top else None


def _held_out(configuration) -> bool:
    return all(configuration[name] == value for name, value in HELD_OUT.items())


def run_demo(store, study: str, runner, scratch: Path, run: RunCampaign, repeats: int | None = None,
             say: Callable[[str], None] = print, resume: bool = False, platform: dict | None = None) -> DemoOutcome:
    """Screen, collect, train, recommend for the held-out workload, then measure it; see the module docstring."""
    from iotune.learn import train
    from iotune.learn.model import save_model

    spec = demo_spec().with_campaign(repeats=repeats)
    space = spec.space
    common = dict(resume=resume, platform=platform)

    say("1/5 screening the parameters (foldover Plackett-Burman design, paper 000 Sec. 4.1)")
    screening = replace(spec, campaign=replace(spec.campaign, sampler="screening", repeats=1))
    run(prepare(store, screening, f"{study}-screen", runner, scratch, **common))
    screen = load_screen(store, f"{study}-screen")

    everything = space.full_factorial()
    say(f"2/5 measuring every configuration of every workload except {_describe(HELD_OUT)}")
    run(prepare(store, spec, study, runner, scratch, configurations=[c for c in everything if not _held_out(c)],
                **common))

    say("3/5 training a CART model of log I/O time on those measurements")
    model = train(store, study, predictor="cart", target="time", log_target=True)
    save_model(store, study, model)

    say(f"4/5 recommending ROMIO hints for the unseen workload {_describe(HELD_OUT)}")
    workload = {p.name: HELD_OUT[p.name] for p in space.workload_parameters}
    recommendation = Recommender(model).recommend(workload, objective="time", top=3)

    held_out_study = f"{study}-heldout"
    say("5/5 measuring every configuration of that workload, to judge the recommendation")
    run(prepare(store, spec, held_out_study, runner, scratch, configurations=[c for c in everything if _held_out(c)],
                **common))

    measured = {s.config_key: s for s in configuration_stats(store.trials(study=held_out_study)).values() if s.n}
    ordered = sorted(measured.values(), key=lambda s: s.mean_time)
    rank_of = {s.config_key: index + 1 for index, s in enumerate(ordered)}
    judged = []
    for candidate in recommendation.candidates:
        key = space.configuration(candidate.configuration).key
        judged.append(JudgedCandidate(candidate.rank, candidate.configuration, candidate.predicted,
                                      measured.get(key), rank_of.get(key)))
    default_key = space.configuration(workload).key
    return DemoOutcome(screen, study, best_per_workload(space, store.trials(study=study)), model, recommendation,
                       held_out_study, judged, ordered[0], measured.get(default_key), len(ordered))


def _describe(values: dict) -> str:
    from iotune.units import format_size

    return " ".join(f"{k}={format_size(v) if k.endswith('_size') else v}" for k, v in values.items())
