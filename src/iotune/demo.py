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

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from iotune.analysis import ConfigurationStats, best_per_workload, configuration_stats
from iotune.campaign import Campaign, CampaignReport, CampaignSettings, load_campaign, plan
from iotune.recommend import Recommender
from iotune.screening import run_screen

HELD_OUT = {"transfer_size": 256 * 1024, "collective": True}

RunCampaign = Callable[[Campaign], CampaignReport]


def demo_spec_text() -> str:
    return resources.files("iotune.data").joinpath("demo.yaml").read_text()


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
             say: Callable[[str], None] = print) -> DemoOutcome:
    """Screen, collect, train, recommend for the held-out workload, then measure it; see the module docstring."""
    from iotune.learn import train

    with tempfile.TemporaryDirectory(prefix="iotune-demo-") as folder:
        spec_path = Path(folder) / "demo.yaml"
        spec_path.write_text(demo_spec_text())
        space, settings = load_campaign(spec_path)
        if repeats is not None:
            settings = CampaignSettings.from_dict({**settings.to_dict(), "repeats": repeats})

        say("1/5 screening the parameters (foldover Plackett-Burman design, paper 000 Sec. 4.1)")
        screen = run_screen(store, spec_path, f"{study}-screen", runner, scratch, repeats=1, run=run)

    everything = plan(space, settings)
    say(f"2/5 measuring every configuration of every workload except {_describe(HELD_OUT)}")
    run(Campaign(store, study, space, settings, runner, scratch,
                 configurations=[c for c in everything if not _held_out(c)]))

    say("3/5 training a CART model of log I/O time on those measurements")
    model = train(store, study, predictor="cart", target="time", log_target=True)
    store.save_model(study, model)

    say(f"4/5 recommending ROMIO hints for the unseen workload {_describe(HELD_OUT)}")
    workload = {p.name: HELD_OUT[p.name] for p in space.workload_parameters}
    recommendation = Recommender(model).recommend(workload, objective="time", top=3)

    held_out_study = f"{study}-heldout"
    say("5/5 measuring every configuration of that workload, to judge the recommendation")
    run(Campaign(store, held_out_study, space, settings, runner, scratch,
                 configurations=[c for c in everything if _held_out(c)]))

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
