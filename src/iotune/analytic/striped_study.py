"""The placement model and stored studies: runs from a study, the fitted model kept in the store, layouts ranked.

* :func:`study_runs`: a study's COMPLETE trials as runs of the model: the write
  phase's bytes and seconds, the layout in effect (read back from the file
  system; else the one asked for over CephFS's defaults), a file per process as
  the benchmark says.
* :func:`save_model` / :func:`load_model`: the model as JSON numbers in the
  store's models table (format ``striped-placement-json``, at most 1 MiB, every
  field checked when read: never code, never a pickle).
* :func:`rank_layouts`: every layout the study's space can set, predicted for a
  workload (measured or not): mean and 10-90 % band, fastest first.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from iotune.analytic.errors import ModelError
from iotune.analytic.striped_fit import BAND
from iotune.analytic.striped_placement import StripedPlacementModel
from iotune.analytic.striped_runs import StripedRun, striped_write

FORMAT = "striped-placement-json"
NAME = "striped-placement"
MAX_BLOB = 1 << 20
CEPHFS_DEFAULT_LAYOUT = {"stripe_count": 1, "stripe_unit": 4 << 20, "object_size": 4 << 20}
"""What CephFS gives a file nobody set a layout on (Ceph's default file layout)."""
LAYOUT_KEYS = (*CEPHFS_DEFAULT_LAYOUT, "pool")


def _layout(requested: dict, in_effect: dict | None) -> dict:
    if in_effect and all(k in in_effect for k in ("stripe_count", "stripe_unit")):
        return dict(in_effect)
    layout = {**CEPHFS_DEFAULT_LAYOUT, **(requested or {})}
    return {k: layout[k] for k in (*CEPHFS_DEFAULT_LAYOUT, "pool") if k in layout}


def replicas_of(pool) -> int | None:
    """Copies a data pool of the CephFS testbed keeps: its replicated pool's, else None (the model's own)."""
    from iotune.testbed.ceph import REPLICAS, REPLICATED_POOL

    return REPLICAS if pool == REPLICATED_POOL else None


def _flag(value) -> bool:
    return value is True or str(value).lower() == "true"


def study_runs(study) -> list[StripedRun]:
    """The runs of a :class:`~iotune.stored.StoredStudy` (see the module docstring); ModelError if it has none."""
    runs = []
    defaults = study.spec.benchmark
    for trial in study.trials(state="COMPLETE"):
        write = next((p for p in trial.phases if p.phase == "write" and p.seconds > 0 and p.bytes > 0), None)
        if write is None:
            continue
        benchmark = {**defaults, **(trial.benchmark or {})}
        # the configuration's own workload settings first: an imported study's trials keep no benchmark spec
        processes = trial.config.get("processes", benchmark.get("processes", 1))
        file_per_process = _flag(trial.config.get("file_per_process", benchmark.get("file_per_process")))
        requested = {**(benchmark.get("layout") or {}),
                     **{k: v for k, v in trial.config.items() if k in LAYOUT_KEYS and v is not None}}
        layout = _layout(requested, trial.extra.get("layout_in_effect"))
        made = striped_write(processes, file_per_process, write.bytes, layout,
                             trial.config.get("devices"), replicas_of(layout.get("pool", requested.get("pool"))))
        runs.append(StripedRun(trial.workload_key, made, float(write.seconds), repeat=trial.repeat))
    if not runs:
        raise ModelError(f"study {study.name!r} has no complete trial with a write phase to fit the placement model")
    return runs


def servers_of(study) -> int | None:
    """The number of storage servers the study's spec fixes (``storage: devices`` of a cephfs testbed), or None."""
    storage = study.spec.storage or {}
    if storage.get("fs") == "cephfs" and isinstance(storage.get("devices"), int):
        return int(storage["devices"])
    return None


def save_model(study, model: StripedPlacementModel, name: str = NAME) -> int:
    """Keep ``model`` in the store under ``name`` in ``study``; its row id."""
    data = model.to_dict()
    blob = json.dumps(data, sort_keys=True, allow_nan=False).encode()
    fit = model.fit_ or {}
    record = {"name": name, "predictor": NAME, "target": "write seconds", "categorical": "none",
              "params": {k: v for k, v in data.items() if k != "fit"}, "dataset_options": {},
              "data_hash": hashlib.sha256(blob).hexdigest()[:16], "space_hash": study.space.hash,
              "n_samples": int(fit.get("runs", 0)), "metrics": {k: fit[k] for k in ("spearman", "r2_means",
                                                                                     "band_10_90") if k in fit}}
    return study.store.save_model(study.name, record, blob, FORMAT)


def is_placement_model(store, study_name: str, name: str | None) -> bool:
    """Whether the study's model ``name`` (its newest when None) is a stored placement model."""
    _, _, fmt = store.model_blob(study_name, name)
    return fmt == FORMAT


def load_model(store, study_name: str, name: str | None = NAME) -> StripedPlacementModel:
    """The placement model stored in the study, every field checked (ModelError in one line)."""
    from iotune.errors import StoreError

    try:
        info, blob, fmt = store.model_blob(study_name, name)
    except StoreError:
        raise ModelError(f"study {study_name!r} has no placement model {name!r}: calibrate one with `iotune model "
                         f"striping --calibrate --study {study_name}`") from None
    if fmt != FORMAT:
        raise ModelError(f"model {info.name!r} of study {study_name!r} is a {fmt}, not a placement model "
                         f"(iotune model striping --calibrate --study {study_name})")
    if len(blob) > MAX_BLOB:
        raise ModelError(f"stored placement model {info.name!r} is {len(blob)} bytes, more than {MAX_BLOB}")
    try:
        data = json.loads(blob.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise ModelError(f"stored placement model {info.name!r} is not JSON: {error}") from None
    return StripedPlacementModel.from_dict(data)


@dataclass(frozen=True)
class RankedLayout:
    """A layout (stripe_count, stripe_unit, object_size, and pool and servers where the space sets them) and its
    predicted seconds: mean and 10-90 % band."""

    layout: dict
    mean_s: float
    low_s: float
    high_s: float


def rank_layouts(model: StripedPlacementModel, space, benchmark: dict, workload: dict) -> list[RankedLayout]:
    """Every distinct layout the space's layout parameters (and its number of servers, ``devices``) can set,
    predicted for ``workload`` (processes, block_size, segment_count, file_per_process; the spec's
    ``benchmark`` fills the rest), fastest first."""
    from iotune.spec.mapping import is_layout_parameter
    from iotune.units import parse_size

    values = {**benchmark, **workload}
    try:
        processes = int(values.get("processes", 1))
        per_process = parse_size(str(values.get("block_size", "1MiB"))) * int(values.get("segment_count", 1))
    except (TypeError, ValueError) as error:
        raise ModelError(f"workload: {error}") from None
    file_per_process = _flag(values.get("file_per_process"))
    names = [p.name for p in space.parameters if is_layout_parameter(p)]
    if not names:
        raise ModelError(f"space {space.name!r} has no layout parameter (stripe_count, stripe_unit, object_size)")
    varies_servers = any(p.name == "devices" for p in space.parameters)
    seen: dict[tuple, tuple[dict, int | None]] = {}
    for configuration in space.enumerate():
        requested = {**(benchmark.get("layout") or {}),
                     **{n: configuration[n] for n in names if configuration[n] is not None}}
        layout = _layout(requested, None)
        servers = configuration["devices"] if varies_servers else None
        key = (*(str(layout.get(k)) for k in LAYOUT_KEYS), servers)
        seen.setdefault(key, (layout, servers))
    ranked = []
    for layout, servers in seen.values():
        write = striped_write(processes, file_per_process, processes * per_process, layout, servers,
                              replicas_of(layout.get("pool")))
        low, high = model.quantiles(write, BAND)
        shown = {k: (int(v) if k != "pool" else v) for k, v in layout.items()}
        if servers is not None:
            shown["servers"] = int(servers)
        ranked.append(RankedLayout(shown, model.mean(write), float(low), float(high)))
    return sorted(ranked, key=lambda r: r.mean_s)
