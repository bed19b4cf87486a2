"""The storage interface: every operation the rest of iotune asks of a results database.

Modelled on optuna's ``BaseStorage``: :class:`Storage` names the operations
(platforms, studies, trials, the queue and its claims, the controller lease,
models, flat rows) and :class:`~iotune.store.Store` implements them on
SQLite and PostgreSQL through SQLAlchemy; :class:`StorageReader`, the part of
it that reads, is what reading commands use (:func:`iotune.store.open_reader`).  Export and import are not part of
it: :mod:`iotune.store.exchange` writes and reads files through any Storage,
an import going through the one bulk operation a Storage offers for it,
:meth:`Storage.bulk_import`, so that it stays all or nothing.  The backend
test suite (tests/store) runs against this interface.
"""

from __future__ import annotations

import abc
from collections.abc import Iterator
from contextlib import AbstractContextManager

from iotune.records import Measurement, PhaseResult
from iotune.store.records import ModelRecord, StudyRecord, TrialRecord


class StorageReader(abc.ABC):
    """What a reading command asks of a results database: studies, their trials with raw phases, the queue's
    state, stored models.  :class:`Storage` adds the writes; :mod:`iotune.store.reader` reads SQLite without
    SQLAlchemy."""

    url: str

    @property
    @abc.abstractmethod
    def backend(self) -> str:
        """The database kind: "sqlite", "postgresql", ..."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release every connection; the storage cannot be used afterwards."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @abc.abstractmethod
    def source(self) -> dict:
        """Where the data comes from, as an export records it: {"host": ..., "db": ...} (no password)."""

    @abc.abstractmethod
    def platforms(self, ids) -> dict[int, dict]:
        """Platform id -> its description, for the ids given."""

    @abc.abstractmethod
    def get_study(self, name: str) -> StudyRecord | None:
        """The study of that name, or None."""

    @abc.abstractmethod
    def list_studies(self) -> list[StudyRecord]:
        """Every study, by name."""

    @abc.abstractmethod
    def trial_states(self, study_id: int) -> dict[tuple[str, int], str]:
        """{(config_key, repeat): state} of every trial in the study."""

    @abc.abstractmethod
    def trial_sources(self, study_id: int) -> list[tuple[str, str | None, dict]]:
        """(config_key, command, extra) of every trial in the study, without phases."""

    @abc.abstractmethod
    def running_trials(self, study_id: int) -> list[int]:
        """Ids of the study's trials left RUNNING."""

    @abc.abstractmethod
    def get_trial(self, trial_id: int) -> TrialRecord:
        """One trial with its phases; StoreError if there is none with that id."""

    @abc.abstractmethod
    def trials(self, study: str | int | None = None, state: str | None = None,
               config_keys=None) -> list[TrialRecord]:
        """Trials (of one study, in one state, of some configurations) with their phases."""

    @abc.abstractmethod
    def rows(self, study: str | int | None = None) -> list[dict]:
        """Flat rows, one per measured phase (and one per trial without phases)."""

    @abc.abstractmethod
    def running_owners(self, study: str | int) -> dict[str, str | None]:
        """Owner -> latest heartbeat of the study's RUNNING trials."""

    @abc.abstractmethod
    def queue_counts(self, study: str | int) -> dict[str, int]:
        """Trials of the study by state."""

    @abc.abstractmethod
    def model_blob(self, study: str | int, name: str | None = None) -> tuple[ModelRecord, bytes, str]:
        """A stored model's record, blob and blob format; StoreError when there is none."""

    @abc.abstractmethod
    def list_models(self, study: str | int | None = None) -> list[ModelRecord]:
        """Stored models, without their estimators."""


class Storage(StorageReader):
    """A results database: studies of trials with their raw phases, a queue of trials, stored models."""

    @abc.abstractmethod
    def register_platform(self, info: dict) -> int:
        """Id of the platform ``info`` describes; same info, same id."""

    @abc.abstractmethod
    def create_study(self, name: str, space_yaml: str, space_hash: str, settings: dict, description: str = "",
                     spec_yaml: str | None = None) -> StudyRecord:
        """A new, empty study; StoreError if the name is taken."""

    @abc.abstractmethod
    def update_settings(self, study: str | int, changes: dict) -> dict:
        """Merge ``changes`` into a study's settings; return them all."""

    @abc.abstractmethod
    def delete_study(self, name: str) -> None:
        """Remove a study with everything in it."""

    @abc.abstractmethod
    def rename_study(self, name: str, new_name: str) -> StudyRecord:
        """Give a study another name, keeping what it holds."""

    @abc.abstractmethod
    def start_trial(self, study_id: int, config: dict, config_key: str, workload_key: str, repeat: int,
                    platform_id: int | None = None, benchmark: dict | None = None, owner: str | None = None) -> int:
        """Record a RUNNING trial before it runs; return its id."""

    @abc.abstractmethod
    def finish_trial(self, trial_id: int, measurement: Measurement, owner: str | None = None) -> None:
        """Record a RUNNING trial's outcome and every phase in one commit."""

    @abc.abstractmethod
    def add_trials(self, study_id: int, finished: list[tuple]) -> None:
        """Store already measured trials in one commit."""

    @abc.abstractmethod
    def mark_invalid(self, study_id: int, config: dict, config_key: str, workload_key: str, reason: str) -> int:
        """Record that a configuration cannot exist; return the trial id."""

    @abc.abstractmethod
    def enqueue(self, study: str | int, items: list[dict], retry_failed: bool = False) -> int:
        """Queue trials as PENDING, in the order given; return how many were queued."""

    @abc.abstractmethod
    def claim(self, study: str | int, owner: str, *, dead_owners: tuple[str, ...] = (),
              stale_before: str | None = None, platform_id: int | None = None) -> TrialRecord | None:
        """Hand the next trial of the queue to ``owner`` as RUNNING, or None when nothing is left."""

    @abc.abstractmethod
    def set_trial_platform(self, trial_id: int, platform_id: int) -> None:
        """Record where a claimed trial runs."""

    @abc.abstractmethod
    def heartbeat(self, trial_id: int, owner: str) -> bool:
        """Renew ``owner``'s claim on a RUNNING trial; False when it no longer holds it."""

    @abc.abstractmethod
    def release(self, trial_id: int, owner: str) -> None:
        """Give a claimed trial back to the queue without a result."""

    @abc.abstractmethod
    def acquire_controller(self, study: str | int, owner: str, *, dead_owners: tuple[str, ...] = (),
                           stale_before: str | None = None) -> str | None:
        """Make ``owner`` the study's controller; None on success, else the live holder."""

    @abc.abstractmethod
    def renew_controller(self, study: str | int, owner: str) -> bool:
        """Renew ``owner``'s lease; False when another process took it."""

    @abc.abstractmethod
    def release_controller(self, study: str | int, owner: str) -> None:
        """Give up ``owner``'s lease."""

    @abc.abstractmethod
    def save_model(self, study_id: str | int, model: dict, blob: bytes, fmt: str) -> int:
        """Store a model and its blob in a study; return its row id."""

    @abc.abstractmethod
    def bulk_import(self) -> AbstractContextManager[BulkImport]:
        """One transaction for an import: what is written through the :class:`BulkImport` it yields is kept when
        the ``with`` block ends normally and nothing of it when it raises."""


class BulkImport(abc.ABC):
    """The writes an import makes inside one transaction (:meth:`Storage.bulk_import`)."""

    @abc.abstractmethod
    def platform(self, info: dict) -> int:
        """Id of the platform ``info`` describes, registered when new."""

    @abc.abstractmethod
    def study(self, name: str) -> StudyRecord | None:
        """The study of that name as this transaction sees it, or None."""

    @abc.abstractmethod
    def add_study(self, *, name: str, space_yaml: str, space_hash: str, settings: dict, description: str,
                  created_at: str | None, origin: str | None, spec_yaml: str | None) -> int:
        """Create a study with the fields of an exported one; return its id."""

    @abc.abstractmethod
    def present(self, uids: list[str]) -> set[str]:
        """Those of ``uids`` that name a stored trial."""

    @abc.abstractmethod
    def repeats(self, study_id: int) -> Iterator[tuple[str, int]]:
        """(config_key, repeat) of every trial stored in the study."""

    @abc.abstractmethod
    def add_trials(self, rows: list[dict], phases: dict[str, list[PhaseResult]]) -> None:
        """Insert finished trials (``rows``: each a dict of a trial's fields, ``uid`` and ``study_id`` among them,
        JSON fields as text) and their phases (``phases``: uid -> phases)."""
