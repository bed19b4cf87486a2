"""Studies the report is tested on, built the way iotune builds them, measured by a synthetic runner (no MPI).

- the demo's: :func:`iotune.demo.run_demo` (screening, collection, model, held-out workload);
- a search: a spec measured by the genetic sampler with a budget of 12, as
  ``iotune bench spec --sampler genetic --budget 12`` does;
- a tuned study on ext4: two workloads measured in full, then a third tuned by the budgeted tuner as
  ``iotune tune`` does (single runs), its space holding Lustre's striping hints;
- the testbed ground truth: ``data/ground_truth``'s CSV loaded into a store, as ``tests/ground_truth`` does.
"""

from __future__ import annotations

import math
import random
import textwrap
from pathlib import Path

from iotune.records import Measurement, PhaseResult
from iotune.spec import CampaignSpec
from iotune.study.measure import prepare
from iotune.units import MIB

ROOT = Path(__file__).resolve().parents[2]
GROUND_TRUTH = ROOT / "data" / "ground_truth"

SEARCH_SPEC = textwrap.dedent("""\
    name: search
    description: collective buffering hints for one workload, searched
    parameters:
      - {name: transfer_size, type: size, levels: [256KiB], role: workload, layer: application}
      - {name: romio_cb_write, type: categorical, levels: [automatic, enable, disable], role: system, layer: mpiio}
      - {name: cb_buffer_size, type: size, levels: [1MiB, 4MiB, 16MiB], role: system, layer: mpiio}
      - {name: cb_nodes, type: integer, levels: [1, 2], role: system, layer: mpiio}
      - {name: romio_no_indep_rw, type: categorical, levels: ["false", "true"], role: system, layer: mpiio}
    benchmark: {api: MPIIO, processes: 2, block_size: 4MiB, collective: true, operation: readwrite, fsync: true}
    campaign: {repeats: 2, sampler: genetic, budget: 12, seed: 2}
""")


class SyntheticRunner:
    """Pretends to run the benchmark: a bandwidth that depends on the configuration, with seeded noise.

    Small transfers and disabled collective buffering are slow; a 1 MiB
    collective buffer slows large transfers; every run varies by a few percent
    (log-normal), and ``fail_every`` makes every n-th run fail.
    """

    name = "builtin"

    def __init__(self, seed: int = 0, fail_every: int = 0):
        self.rng = random.Random(seed)
        self.calls = 0
        self.fail_every = fail_every

    def run(self, spec, scratch):
        self.calls += 1
        if self.fail_every and self.calls % self.fail_every == 0:
            return Measurement.failed("synthetic failure: MPI_File_open returned MPI_ERR_IO", runner=self.name)
        hints = spec.hints
        bandwidth = 400.0 * min(1.0, spec.transfer_size / (1 * MIB)) ** 0.3  # MiB/s
        if spec.collective and hints.get("romio_cb_write") == "disable":
            bandwidth *= 0.55
        if hints.get("cb_buffer_size") == str(1 * MIB):
            bandwidth *= 0.8
        if hints.get("cb_nodes") == "1":
            bandwidth *= 0.9
        phases = []
        for phase, factor in (("write", 1.0), ("read", 1.6)):
            if spec.operation not in (phase, "readwrite"):
                continue
            seconds = spec.aggregate_bytes / MIB / (bandwidth * factor) * math.exp(self.rng.gauss(0.0, 0.04))
            phases.append(PhaseResult(phase, spec.aggregate_bytes, seconds, 0.001, seconds - 0.002, 0.001,
                                      spec.transfers_per_process * spec.processes))
        return Measurement("COMPLETE", phases, runner=self.name, command="synthetic",
                           wall_seconds=sum(p.seconds for p in phases) + 0.05)

    def close(self):
        pass


PLATFORM = {"hostname": "testhost", "kernel": "6.1.0-test", "os": "Debian GNU/Linux 12", "cpu_model": "test cpu",
            "cores": 2, "fs_type": "ext4", "scratch": "/scratch/iotune", "mpi_library": "MPICH",
            "mpi_version": "4.2.0", "iotune_version": "0.1.0", "python_version": "3.11.7"}


def demo_study(store, tmp: Path, name: str = "demo", repeats: int = 3) -> str:
    """The demo's three studies (``name``, ``name-screen``, ``name-heldout``) and its saved model; returns ``name``."""
    from iotune.demo import run_demo

    runner = SyntheticRunner(seed=7, fail_every=17)
    run_demo(store, name, runner, tmp, run=lambda campaign: campaign.run(), repeats=repeats, say=lambda _: None,
             platform=PLATFORM)
    return name


def search_study(store, tmp: Path, name: str = "search") -> str:
    """A genetic search of 12 configurations with 2 repeats each; returns its name."""
    spec = CampaignSpec.from_text(SEARCH_SPEC, source="search.yaml")
    campaign = prepare(store, spec, name, SyntheticRunner(seed=3), tmp, platform=PLATFORM)
    campaign.run()
    return name


TUNED_SPEC = textwrap.dedent("""\
    name: tuned
    parameters:
      - {name: transfer_size, type: size, levels: [64KiB, 256KiB, 4MiB], role: workload, layer: application}
      - {name: romio_cb_write, type: categorical, levels: [automatic, enable, disable], role: system, layer: mpiio}
      - {name: cb_buffer_size, type: size, levels: [1MiB, 16MiB], role: system, layer: mpiio}
      - {name: cb_nodes, type: integer, levels: [1, 2], role: system, layer: mpiio}
      - {name: striping_factor, type: integer, levels: [1, 4], role: system, layer: mpiio}
    benchmark: {api: MPIIO, processes: 2, block_size: 4MiB, collective: true, operation: readwrite, fsync: true}
    campaign: {repeats: 2}
""")


def tuned_study(store, tmp: Path, name: str = "tuned") -> str:
    """A study of two workloads measured in full (2 repeats) on ext4, then transfer_size=256KiB tuned with a
    budget of 5 runs; returns its name."""
    from iotune.study import Objective, Study, Worker
    from iotune.study.tune import Tuning

    spec = CampaignSpec.from_text(TUNED_SPEC, source="tuned.yaml")
    measured = [c for c in spec.space.full_factorial() if c["transfer_size"] != 256 * 1024]
    prepare(store, spec, name, SyntheticRunner(seed=5), tmp, platform=PLATFORM, configurations=measured).run()
    study = Study.open(store, name)
    worker = Worker(study, SyntheticRunner(seed=6), tmp, platform=PLATFORM)
    Tuning(study, worker, {"transfer_size": 256 * 1024}, 5, objective=Objective("time")).run()
    store.update_settings(name, {"sampler": "tune"})
    return name


def ground_truth_study(store) -> str:
    """The testbed ground truth (1,080 real trials) in ``store``; returns the study name."""
    from tests.ground_truth.test_testbed_ground_truth import load

    return load(store)
