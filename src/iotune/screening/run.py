"""Screening and PB-guided collection as resumable campaigns stored like any other study.

The screening study's trials are its data; its settings record the design
(factors with low and high values) so that :func:`~iotune.screening.effects.load_screen`
recomputes the ranking from the store at any time.  The design rows run in a
seeded random order, each configuration ``repeats`` times, interleaved.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from iotune.spec.mapping import benchmark_spec
from iotune.campaign import Campaign, CampaignReport, CampaignSettings, load_campaign
from iotune.errors import SpaceError
from iotune.screening.collect import pb_guided_configurations
from iotune.screening.design import build_design
from iotune.screening.effects import ScreenResult, load_screen
from iotune.screening.errors import ScreeningError
from iotune.screening.factors import read_screening_levels, screening_factors

RunCampaign = Callable[[Campaign], CampaignReport]


@dataclass
class DesignedSettings(CampaignSettings):
    """Campaign settings whose stored form also says which design chose the configurations."""

    record: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        data = super().to_dict()
        data.update(data.pop("record"))
        return data


def _designed(settings: CampaignSettings, repeats: int | None, record: dict) -> DesignedSettings:
    values = settings.to_dict()
    if repeats is not None:
        values["repeats"] = repeats
    return DesignedSettings(**values, record=record)


def _run(campaign: Campaign, run: RunCampaign | None, resume: bool, retry_failed: bool,
         platform: dict | None) -> CampaignReport:
    if run is not None:
        return run(campaign)
    return campaign.run(resume=resume, retry_failed=retry_failed, platform=platform)


def run_screen(store, spec_path: str | Path, study: str, runner, scratch: str | Path, repeats: int | None = None,
               resume: bool = False, *, system_only: bool = False, retry_failed: bool = False,
               platform: dict | None = None, run: RunCampaign | None = None) -> ScreenResult:
    """Run the foldover PB design of a campaign spec into ``study`` and return its ranking.

    ``run``, when given, runs the campaign instead of ``campaign.run`` (the CLI
    passes one with a progress bar).  An interrupted or failed run leaves rows
    without a COMPLETE trial, and the ranking then raises telling to resume.
    """
    space, settings = load_campaign(spec_path)
    factors = screening_factors(space, system_only, read_screening_levels(spec_path))
    design = build_design(space, factors, settings.benchmark)
    record = design.to_dict()
    designed = _designed(settings, repeats, {"design": record["design"], "screening": record})
    existing = store.get_study(study)
    if existing is not None and resume and existing.settings.get("screening") != record:
        raise ScreeningError(f"study {study!r} was screened with other factors or levels; use another --study name")
    campaign = Campaign(store, study, space, designed, runner, scratch, configurations=design.run_order(settings.seed))
    _run(campaign, run, resume, retry_failed, platform)
    return load_screen(store, study)


def run_collection(store, spec_path: str | Path, study: str, ranking: Sequence[str], budget: int, runner,
                   scratch: str | Path, repeats: int | None = None, resume: bool = False, *, seed: int = 0,
                   retry_failed: bool = False, platform: dict | None = None,
                   run: RunCampaign | None = None) -> CampaignReport:
    """Measure ``budget`` PB-guided configurations (:func:`pb_guided_configurations`) into ``study``."""
    space, settings = load_campaign(spec_path)

    def runnable(configuration) -> bool:
        try:
            benchmark_spec(space, configuration, settings.benchmark)
        except SpaceError:
            return False
        return True

    configurations = pb_guided_configurations(space, ranking, budget, seed, accept=runnable)
    record = {"design": "pb-guided", "samples": budget, "seed": seed, "ranking": list(ranking)}
    designed = _designed(settings, repeats, record)
    campaign = Campaign(store, study, space, designed, runner, scratch, configurations=configurations)
    return _run(campaign, run, resume, retry_failed, platform)
