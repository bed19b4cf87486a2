"""Plain records the store hands out: a study, a trial with its phases, a model, an import report.

They are snapshots of rows, detached from the database, so callers may keep
them after the store is closed.  Times are ISO 8601 strings in UTC.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from iotune.records import Measurement, PhaseResult, io_seconds

TRIAL_STATES = ("PENDING", "RUNNING", "COMPLETE", "FAILED", "INVALID")
FINISHED_STATES = ("COMPLETE", "FAILED", "INVALID")


ROUNDS_SETTING = "race_rounds"
"""Study setting: the race round of each raced trial, by "<config key>#<repeat>" (:mod:`iotune.samplers.race`)."""


@dataclass(frozen=True)
class StudyRecord:
    """One study: a named campaign over one parameter space."""

    id: int
    name: str
    created_at: str
    description: str
    space_hash: str
    space_yaml: str
    settings: dict
    origin: str | None = None
    spec_yaml: str | None = None
    controller: str | None = None
    controller_at: str | None = None

    @cached_property
    def space(self):
        """The study's parameter space, parsed once."""
        return parse_space(self.space_yaml, source=f"study {self.name}")


def parse_space(space_yaml: str, source: str):
    """The one place a stored or exported study's space YAML becomes a ``Space``."""
    from iotune.space import Space

    return Space.from_text(space_yaml, source=source)


@dataclass
class TrialRecord:
    """One repeat of one configuration, with its provenance and raw per-phase results.

    ``phases`` is empty for PENDING, RUNNING, FAILED and INVALID trials.  A
    PENDING trial waits in the study's queue (``seq`` orders it); a RUNNING one
    is held by ``owner``, which renews ``heartbeat_at`` while it runs.  ``uid`` names the
    trial across databases; ``imported_from`` says where an imported trial came from.  ``race_round``: the round
    of the tuner's race the trial ran in (the study's setting ``race_rounds``; None when not raced).
    """

    id: int
    uid: str
    study: str
    study_id: int
    platform_id: int | None
    config: dict
    config_key: str
    workload_key: str
    repeat: int
    state: str
    error: str | None
    started_at: str | None
    finished_at: str | None
    runner: str | None
    command: str | None
    hints_requested: dict
    hints_in_effect: dict
    read_cache_mode: str | None
    wall_seconds: float | None
    extra: dict
    benchmark: dict | None
    imported_from: str | None
    phases: list[PhaseResult] = field(default_factory=list)
    owner: str | None = None
    heartbeat_at: str | None = None
    seq: int | None = None
    race_round: int | None = None

    @property
    def io_seconds(self) -> float:
        """I/O time in seconds (:func:`iotune.records.io_seconds`); 0 without phases."""
        return io_seconds(self.phases)

    def measurement(self) -> Measurement | None:
        """The Measurement this trial recorded, or None while PENDING or RUNNING, or when INVALID."""
        if self.state not in ("COMPLETE", "FAILED"):
            return None
        return Measurement(
            status="COMPLETE" if self.state == "COMPLETE" else "FAILED",
            phases=list(self.phases),
            error=self.error,
            hints_requested=dict(self.hints_requested),
            hints_in_effect=dict(self.hints_in_effect),
            read_cache_mode=self.read_cache_mode or "none",
            runner=self.runner or "",
            command=self.command or "",
            wall_seconds=self.wall_seconds or 0.0,
            extra=dict(self.extra),
        )


@dataclass(frozen=True)
class ModelRecord:
    """A stored model's provenance, without its estimator (``Store.load_model`` gives the model itself).

    ``params`` are the predictor's keyword arguments; ``dataset_options`` how
    its training rows were made; ``metrics`` its in-sample and CV metrics.
    """

    id: int
    name: str
    study: str
    study_id: int
    predictor: str
    target: str
    categorical: str
    params: dict
    dataset_options: dict
    data_hash: str
    space_hash: str
    n_samples: int
    metrics: dict
    created_at: str


@dataclass
class ImportReport:
    """What ``Store.import_file`` did.

    ``trials_conflicting`` counts the added trials whose (configuration, repeat)
    was already taken locally by a different trial; they were kept under the
    next free repeat number, so they are included in ``trials_added`` too.
    ``renamed`` maps a study name in the file to the local name it was imported
    under because the local study of that name covers a different space.
    ``trials_skipped_running`` counts trials that were still PENDING or RUNNING
    in the source: they hold no result, and their campaign runs them there.
    ``settings`` says, per local study, what it sets when it runs: MPI-IO
    ``hints`` and ``env`` variables, each with the values it may take.
    """

    studies_added: int = 0
    studies_merged: int = 0
    trials_added: int = 0
    trials_duplicate: int = 0
    trials_conflicting: int = 0
    trials_skipped_running: int = 0
    renamed: dict[str, str] = field(default_factory=dict)
    settings: dict[str, dict[str, dict[str, list[str]]]] = field(default_factory=dict)

    def summary(self) -> str:
        """One line for a terminal."""
        text = (
            f"{self.studies_added} studies added, {self.studies_merged} merged; "
            f"{self.trials_added} trials added ({self.trials_conflicting} renumbered), "
            f"{self.trials_duplicate} duplicates skipped"
        )
        if self.trials_skipped_running:
            text += f", {self.trials_skipped_running} unfinished (pending or running) trials skipped"
        for old, new in self.renamed.items():
            text += f"; study {old!r} imported as {new!r} (different space)"
        return text
