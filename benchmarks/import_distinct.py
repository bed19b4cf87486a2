"""How long `iotune import` of a flat CSV of distinct trials takes: every trial its own configuration (issue 32,
item 6).

The fixture is made here: a real study of a few trials (the synthetic ROMIO space of report_speed.py widened to
600 million configurations, one parameter a range of 100,000 levels, measured by its model runner through the
real campaign and store), exported as CSV; its first trial's rows are the template for --trials trials, each
measuring another configuration of the space (drawn without replacement, seeded), under a new uid, with that
configuration's own keys and the hints ROMIO reports in effect for it (a real run's rows carry them; about
1 KiB per trial, as the issue's file).  The import runs as a user runs it (a
subprocess, IOTUNE_PLAIN=1) into an empty SQLite store; CPU seconds and peak RSS from wait4.

    .venv/bin/python benchmarks/import_distinct.py [--trials 500000] [--profile N]

``--profile N`` runs the import of the first N trials in this process under cProfile instead and prints the
functions of most own time.
"""

from __future__ import annotations

import argparse
import cProfile
import csv
import math
import os
import pstats
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from import_large import timed_import  # noqa: E402
from import_speed import iotune  # noqa: E402
from report_speed import ModelRunner  # noqa: E402

from iotune.spec import CampaignSpec  # noqa: E402
from iotune.store import Store  # noqa: E402
from iotune.study.measure import prepare  # noqa: E402

SPEC = """\
name: import-distinct
parameters:
  - {name: transfer_size, type: size, levels: [4KiB, 8KiB, 16KiB, 32KiB, 64KiB, 128KiB, 256KiB, 512KiB, 1MiB, 4MiB],
     role: workload, layer: application}
  - {name: collective, type: boolean, levels: [true, false], role: workload, layer: mpiio}
  - {name: romio_cb_write, type: categorical, levels: [automatic, enable, disable], role: system, layer: mpiio}
  - {name: cb_buffer_size, type: size, levels: [1MiB, 2MiB, 3MiB, 4MiB, 6MiB, 8MiB, 12MiB, 16MiB, 24MiB, 32MiB],
     role: system, layer: mpiio}
  - {name: cb_nodes, type: integer, range: [1, 100000], role: system, layer: mpiio}
  - {name: romio_no_indep_rw, type: categorical, levels: ["false", "true"], role: system, layer: mpiio}
  - {name: ind_wr_buffer_size, type: size, levels: [64KiB, 128KiB, 256KiB, 512KiB, 1MiB], role: system,
     layer: mpiio}
benchmark: {api: MPIIO, processes: 2, block_size: 16MiB, operation: readwrite, fsync: true}
campaign: {repeats: 1, sampler: random, budget: 4, seed: 1}
"""


def template(tmp: Path) -> tuple[CampaignSpec, Path]:
    """A real study's CSV export, and its spec."""
    spec = CampaignSpec.from_text(SPEC, source="import-distinct.yaml")
    platform = {"hostname": "bench", "kernel": "-", "fs_type": "ext4", "mpi_library": "-", "mpi_version": "-"}
    with Store(tmp / "small.db") as store:
        prepare(store, spec, "distinct", ModelRunner(), tmp, platform=platform).run()
    iotune("export", tmp / "small.csv", "--db", tmp / "small.db", cwd=tmp)
    return spec, tmp / "small.csv"


ROMIO_HINTS = {"cb_buffer_size": None, "romio_cb_read": "automatic", "romio_cb_write": None, "cb_nodes": None,
               "romio_no_indep_rw": None, "romio_cds": "automatic", "romio_ds_read": "automatic",
               "romio_ds_write": "automatic", "ind_rd_buffer_size": "4194304", "ind_wr_buffer_size": None,
               "romio_filesystem_type": "UFS: Generic ROMIO driver for all UNIX-like file systems",
               "romio_aggregator_list": "0", "cb_config_list": "*:1", "striping_unit": "0"}
"""What MPICH's ROMIO reports in effect (MPI_File_get_info); None: the configuration's value."""


def configurations(spec: CampaignSpec, trials: int, seed: int = 0):
    """``trials`` distinct configurations of the spec's space, drawn without replacement."""
    space = spec.space
    names = [p.name for p in space.parameters]
    levels = [p.levels for p in space.parameters]
    for number in random.Random(seed).sample(range(math.prod(map(len, levels))), trials):
        values = []
        for choices in reversed(levels):
            number, index = divmod(number, len(choices))
            values.append(choices[index])
        yield space.configuration(dict(zip(names, reversed(values), strict=True)))


def grow(spec: CampaignSpec, small: Path, big: Path, trials: int) -> None:
    """Write ``big``: ``trials`` trials with the rows of ``small``'s first trial, each measuring another
    configuration of the space."""
    csv.field_size_limit(64 << 20)  # the study's space YAML lists 100,000 levels
    with open(small, newline="") as handle:
        rows = list(csv.DictReader(handle))
    first = [row for row in rows if row["trial_uid"] == rows[0]["trial_uid"]]
    hints = [f"hint.{key}" for key in ROMIO_HINTS]
    with open(big, "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=[*rows[0], *hints])
        writer.writeheader()
        for count, made in enumerate(configurations(spec, trials)):
            cells = {f"cfg.{name}": value for name, value in made.items()}
            effect = {f"hint.{key}": str(made[key]).lower() if value is None else value
                      for key, value in ROMIO_HINTS.items()}
            common = {**cells, **effect, "trial_uid": uuid.uuid4().hex, "config_key": made.key,
                      "workload_key": made.workload_key, "repeat": 0}
            for index, row in enumerate(first):
                if count and index == 0:
                    row = {**row, **{k: "" for k in row if k.startswith("study_")}}
                writer.writerow({**row, **common})


def profile(big: Path, tmp: Path, top: int = 25) -> None:
    from iotune.store.exchange import import_file

    profiler = cProfile.Profile()
    with Store(tmp / "profiled.db") as store:
        profiler.enable()
        import_file(store, big)
        profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(top)
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=500_000)
    parser.add_argument("--profile", type=int, metavar="N", help="profile the import of N trials in this process")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="iotune-import-distinct-") as tmp:
        tmp = Path(tmp)
        spec, small = template(tmp)
        big = tmp / "big.csv"
        began = time.process_time()
        grow(spec, small, big, args.profile or args.trials)
        mib = big.stat().st_size / 2**20
        print(f"fixture: {args.profile or args.trials} distinct trials, {mib:.0f} MiB, made in "
              f"{time.process_time() - began:.0f} s CPU (not part of the figures)", flush=True)
        if args.profile:
            profile(big, tmp)
            return
        load = os.getloadavg()[0]
        seconds, cpu, peak, first = timed_import(big, tmp / "b.db", tmp)
        print(f"import csv: {args.trials} distinct trials ({mib:.0f} MiB) in {seconds:.1f} s wall, {cpu:.1f} s CPU "
              f"({args.trials / cpu:.0f} per CPU second), peak RSS {peak:.0f} MiB, first progress line after "
              f"{first:.1f} s; load average {load:.1f} before, {os.getloadavg()[0]:.1f} after", flush=True)


if __name__ == "__main__":
    main()
