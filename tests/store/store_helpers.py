"""Small builders for store tests."""

from __future__ import annotations

from iotune.records import BenchmarkSpec, Measurement, PhaseResult

PLATFORM = {
    "hostname": "node01",
    "kernel": "6.1.0",
    "os": "Debian 12",
    "cpu": "EPYC",
    "cores": 64,
    "fs_type": "lustre",
    "mpi_library": "MPICH",
    "mpi_version": "4.2.0",
    "iotune_version": "0.1.0",
    "python_version": "3.11.7",
}


def phases(scale: float = 1.0) -> list[PhaseResult]:
    return [
        PhaseResult("write", 4 * 2**20, 0.5 * scale, 0.01, 0.45 * scale, 0.04, 16, None),
        PhaseResult("read", 4 * 2**20, 0.25 * scale, 0.01, 0.2 * scale, 0.04, 16, 0),
    ]


def complete(scale: float = 1.0) -> Measurement:
    return Measurement(
        status="COMPLETE",
        phases=phases(scale),
        hints_requested={"cb_nodes": "4", "romio_cb_write": "enable"},
        hints_in_effect={"cb_nodes": "2", "romio_cb_write": "enable"},
        read_cache_mode="drop_caches",
        runner="builtin",
        command="mpiexec -n 2 iotune-bench",
        wall_seconds=1.5 * scale,
        extra={"note": "test"},
    )


def config(i: int) -> dict:
    return {"cb_nodes": 2 ** (i % 3), "collective": i % 2 == 0, "striping_unit": 1 << 20, "layout": None}


def start(store, study_id: int, i: int, repeat: int = 0, platform_id: int | None = None) -> int:
    return store.start_trial(
        study_id, config(i), f"cfg{i:04d}", "wl0", repeat, platform_id, BenchmarkSpec(processes=2).to_dict()
    )


def study(store, name: str = "study", space_hash: str = "hash-a"):
    return store.create_study(name, "parameters: {}\n", space_hash, {"runner": "builtin", "repeats": 3}, "a test")
