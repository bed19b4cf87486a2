"""How long ``iotune report`` takes: each section's computation, the drawing, and the page's size.

    .venv/bin/python benchmarks/report_speed.py                       # a synthetic study of 2,880 trials
    .venv/bin/python benchmarks/report_speed.py --db gt.db --study testbed-ground-truth

Without ``--db`` the study is built first in a temporary store: 8 workloads
(transfer size x collective) x 36 ROMIO hint configurations x 10 repeats,
measured by a runner that computes a time from the configuration with seeded
log-normal noise (no MPI), through the real campaign, worker and store; the
build is not timed.  Times are wall seconds and CPU seconds of this process
(the machine is shared: CPU seconds are the steadier figure).
"""

from __future__ import annotations

import argparse
import math
import random
import tempfile
import time
from pathlib import Path

from iotune.records import Measurement, PhaseResult
from iotune.spec import CampaignSpec
from iotune.store import Store
from iotune.study.measure import prepare
from iotune.units import MIB

SPEC = """\
name: report-speed
parameters:
  - {name: transfer_size, type: size, levels: [64KiB, 256KiB, 1MiB, 4MiB], role: workload, layer: application}
  - {name: collective, type: boolean, levels: [true, false], role: workload, layer: mpiio}
  - {name: romio_cb_write, type: categorical, levels: [automatic, enable, disable], role: system, layer: mpiio}
  - {name: cb_buffer_size, type: size, levels: [16MiB, 4MiB, 1MiB], role: system, layer: mpiio}
  - {name: cb_nodes, type: integer, levels: [2, 1], role: system, layer: mpiio}
  - {name: romio_no_indep_rw, type: categorical, levels: ["false", "true"], role: system, layer: mpiio}
benchmark: {api: MPIIO, processes: 2, block_size: 16MiB, operation: readwrite, fsync: true}
campaign: {repeats: 10, sampler: full}
"""


class ModelRunner:
    """A time from the configuration (small transfers, disabled or small collective buffers are slow) and noise."""

    name = "builtin"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def run(self, spec, scratch):
        bandwidth = 400.0 * min(1.0, spec.transfer_size / MIB) ** 0.3
        bandwidth *= 0.55 if spec.hints.get("romio_cb_write") == "disable" else 1.0
        bandwidth *= 0.8 if spec.hints.get("cb_buffer_size") == str(MIB) else 1.0
        phases = []
        for phase, factor in (("write", 1.0), ("read", 1.6)):
            seconds = spec.aggregate_bytes / MIB / (bandwidth * factor) * math.exp(self.rng.gauss(0, 0.05))
            phases.append(PhaseResult(phase, spec.aggregate_bytes, seconds, 0.001, seconds - 0.002, 0.001, 1))
        return Measurement("COMPLETE", phases, runner=self.name, command="model", wall_seconds=sum(
            p.seconds for p in phases))

    def close(self):
        pass


def build(store, scratch: Path) -> str:
    spec = CampaignSpec.from_text(SPEC, source="report-speed.yaml")
    platform = {"hostname": "bench", "kernel": "-", "fs_type": "ext4", "mpi_library": "-", "mpi_version": "-"}
    prepare(store, spec, "report-speed", ModelRunner(), scratch, platform=platform).run()
    return "report-speed"


def measure(store, study: str, output: Path) -> None:
    from iotune.report import study_report, write_report
    from iotune.stored import StoredStudy

    wall, cpu = time.perf_counter(), time.process_time()
    report = study_report(StoredStudy.open(store, study))
    compute_wall, compute_cpu = time.perf_counter() - wall, time.process_time() - cpu
    wall, cpu = time.perf_counter(), time.process_time()
    written = write_report(report, output)
    draw_wall, draw_cpu = time.perf_counter() - wall, time.process_time() - cpu
    trials = len(store.trials(study=study))
    print(f"study {study}: {trials} trials; page {written.size / 1024:.0f} KiB with {written.figures} figures")
    for key, seconds in report.seconds.items():
        print(f"  {key:<15} {seconds:7.2f} s wall")
    print(f"compute {compute_wall:.2f} s wall ({compute_cpu:.2f} s CPU); draw and write {draw_wall:.2f} s wall "
          f"({draw_cpu:.2f} s CPU); total {compute_wall + draw_wall:.2f} s wall ({compute_cpu + draw_cpu:.2f} s CPU)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="store URL or SQLite file of an existing study (default: build a synthetic one)")
    parser.add_argument("--study", help="the study to report on (with --db)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="iotune-report-speed-") as tmp:
        if args.db:
            with Store(args.db) as store:
                measure(store, args.study, Path(tmp) / "report.html")
            return
        with Store(Path(tmp) / "speed.db") as store:
            start = time.perf_counter()
            study = build(store, Path(tmp))
            print(f"built the study in {time.perf_counter() - start:.1f} s (not part of the figures)")
            measure(store, study, Path(tmp) / "report.html")


if __name__ == "__main__":
    main()
