"""Which HDF5 settings move the time of a parallel HDF5 write here: each setting alone against HDF5's defaults.

For each workload (``--datasets``: the data of each rank spread over that many datasets), every variant below
is one change from HDF5's defaults (independent transfer, contiguous, no alignment, 2 KiB metadata blocks, a
2 MiB metadata cache, independent metadata, the fsm_aggr file-space strategy; ROMIO's hints), measured
``--repeats`` times with iotune's built-in runner (``api: HDF5``, h5py over MPI-IO), write with fsync, in
interleaved rounds: every round runs every variant of every workload once, in a new random order (seeded).
Each trial's settings are read back from the file written; a trial whose settings did not take effect as
asked is reported.  Prints, per workload and variant, the geometric mean time, the ratio to the defaults with
its 95% interval (iotune's pooled run-to-run noise, Sidak-widened for the number of variants), and whether
it is beyond the noise; writes every trial to ``--csv``.

    .venv/bin/python benchmarks/hdf5_settings.py [--repeats 5] [--size 16MiB] [--transfer 1MiB]
        [--datasets 1 16] [--csv data/ground_truth/hdf5_local.csv] [--scratch DIR] [--seed 0]

With ``--cephfs`` (root, the Ceph packages) the same runs go to a CephFS testbed built for the run
(``--servers`` OSDs, each a loop device limited to ``--mbps`` MB/s of writes; iotune.testbed) and torn down at
the end, and the variants of ``LAYOUT_VARIANTS`` join: the file's CephFS layout (stripe count and unit, object
size, set on the empty file before HDF5 opens it and read back from CephFS after the write) alone and with
HDF5's alignment to the stripe unit or the object, and ROMIO's collective buffering aligned to the stripe.

Needs parallel h5py (scripts/install-hdf5).  Run as root to drop nothing: a write-only benchmark reads no
cache; fsync makes the data reach the disk before the phase ends.

    sudo .venv/bin/python benchmarks/hdf5_settings.py --cephfs --repeats 8 --size 4MiB --datasets 1 4 \
        --csv data/ground_truth/hdf5_cephfs.csv
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import os
import random
import statistics
import tempfile
from collections.abc import Iterator
from pathlib import Path

from iotune.bench.runner import BuiltinRunner
from iotune.records import BenchmarkSpec
from iotune.spec.hdf5 import check_hdf5, setting_key
from iotune.spec.mapping import check_spec
from iotune.units import format_size, parse_size
from iotune.variability.confidence import estimate_noise, ratio_interval

Variant = tuple[bool, dict[str, str], dict[str, str]]
VARIANTS: dict[str, Variant] = {
    # name: (collective, HDF5 settings, ROMIO hints)
    "defaults": (False, {}, {}),
    "collective": (True, {}, {}),
    "chunked 1MiB": (False, {"chunked": "true", "chunk_size": "1MiB"}, {}),
    "chunked 256KiB": (False, {"chunked": "true", "chunk_size": "256KiB"}, {}),
    "alignment 1MiB": (False, {"alignment_threshold": "64KiB", "alignment": "1MiB"}, {}),
    "meta_block_size 1MiB": (False, {"meta_block_size": "1MiB"}, {}),
    "mdc_initial_size 16MiB": (False, {"mdc_initial_size": "16MiB"}, {}),
    "coll_metadata": (False, {"coll_metadata": "true"}, {}),
    "fs_strategy page 1MiB": (False, {"fs_strategy": "page", "fs_page_size": "1MiB"}, {}),
    "fs_strategy aggr": (False, {"fs_strategy": "aggr"}, {}),
    "collective, romio_cb_write=disable": (True, {}, {"romio_cb_write": "disable"}),
    "collective, cb_buffer_size=4MiB": (True, {}, {"cb_buffer_size": "4194304"}),
}
STRIPED = {"stripe_count": "3", "stripe_unit": "1048576", "object_size": "4194304"}
"""Three objects of 1 MiB stripe units side by side (CephFS's default: one 4 MiB object after another)."""
LAYOUT_VARIANTS: dict[str, tuple[Variant, dict[str, str]]] = {
    # name: ((collective, HDF5 settings, ROMIO hints), CephFS layout)
    "alignment 4MiB (the object size)": ((False, {"alignment_threshold": "64KiB", "alignment": "4MiB"}, {}), {}),
    "striped 3 x 1MiB": ((False, {}, {}), STRIPED),
    "striped, alignment 1MiB (the stripe unit)": (
        (False, {"alignment_threshold": "64KiB", "alignment": "1MiB"}, {}), STRIPED),
    "striped, collective, striping_unit=1MiB": ((True, {}, {"striping_unit": "1048576"}), STRIPED),
}


def spec_of(variant: str, datasets: int, size: int, transfer: int) -> BenchmarkSpec:
    (collective, settings, hints), layout = LAYOUT_VARIANTS.get(variant) or (VARIANTS[variant], {})
    spec = BenchmarkSpec(api="HDF5", processes=2, block_size=size, transfer_size=transfer, operation="write",
                         fsync=True, collective=collective, hints=dict(hints), layout=dict(layout),
                         hdf5=check_hdf5({**settings, "datasets": str(datasets)}))
    check_spec(spec)  # one line (SpaceError) for a shape the settings cannot take
    return spec


def not_in_effect(measurement) -> list[str]:
    """Settings whose read-back differs from what was asked (``name=asked ran as read``)."""
    asked, read = measurement.extra.get("hdf5_requested", {}), measurement.extra.get("hdf5_in_effect", {})
    out = [f"{k}={v} ran as {read.get(k)}" for k, v in asked.items() if read.get(k) != v]
    out += [f"{k}={v} ran as {measurement.hints_in_effect.get(k)}" for k, v in measurement.hints_requested.items()
            if measurement.hints_in_effect.get(k) != v]
    layout = measurement.extra.get("layout_in_effect", {})
    out += [f"{k}={v} ran as {layout.get(k)}" for k, v in measurement.extra.get("layout_requested", {}).items()
            if layout.get(k) != v]
    return out


@contextlib.contextmanager
def scratch_of(args) -> Iterator[Path]:
    """Where the trials write: a CephFS testbed's mount (built here, torn down on the way out), or local scratch."""
    if not args.cephfs:
        yield args.scratch or Path(tempfile.mkdtemp(prefix="iotune-hdf5-bench-"))
        return
    from iotune.testbed import StorageConfig, Testbed

    root = Path(tempfile.mkdtemp(prefix="iotune-hdf5-cephfs-", dir="/var/tmp"))
    with Testbed(root) as bed:
        built = bed.build(StorageConfig(fs="cephfs", devices=args.servers, write_mbps=args.mbps, size_mib=2048))
        print(f"cephfs testbed {built.name}: {args.servers} OSDs at {args.mbps:g} MB/s of writes each, mounted at "
              f"{built.mountpoint}", flush=True)
        yield built.mountpoint
    root.rmdir()


def layout_text(layout: dict | None) -> str:
    """A CephFS layout read back, as ``count x unit, object size`` (empty for none)."""
    if not layout:
        return ""
    return (f"{layout.get('stripe_count')} x {format_size(int(layout.get('stripe_unit', 0)))}, object "
            f"{format_size(int(layout.get('object_size', 0)))}")


def report(times: dict[tuple[int, str], list[float]], workloads: list[int], variants: list[str]) -> None:
    """Per workload: each variant's geometric mean, its ratio to the defaults with the 95 % interval from the pooled
    noise (Sidak over the variants), and the best variant's gain over the defaults."""
    for datasets in workloads:
        noise = estimate_noise([times[(datasets, v)] for v in variants])
        base = times[(datasets, "defaults")]
        print(f"\ndatasets={datasets}: noise {noise.source}")
        print(f"{'variant':42} {'mean s':>8} {'x defaults':>10} {'95% interval':>16}  beyond noise")
        ratios = {}
        for variant in variants:
            mine = times[(datasets, variant)]
            mean = statistics.geometric_mean(mine)
            if variant == "defaults":
                print(f"{variant:42} {mean:8.3f} {'1':>10} {'':>16}")
                continue
            ratio = ratios[variant] = ratio_interval(mine, base, noise, comparisons=len(variants) - 1)
            beyond = "slower" if ratio.low > 1 else "faster" if ratio.high < 1 else "no"
            interval = f"[{ratio.low:.2f}, {ratio.high:.2f}]"
            print(f"{variant:42} {mean:8.3f} {ratio.value:10.2f} {interval:>16}  {beyond}")
        best = min(ratios, key=lambda v: ratios[v].value)
        ratio = ratios[best]
        verdict = "beyond the noise" if ratio.high < 1 else "within the noise"
        print(f"best over HDF5's defaults: {best}, gain {1 / ratio.value:.2f}x [{1 / ratio.high:.2f}, "
              f"{1 / ratio.low:.2f}] ({verdict})")


def read_csv(path: Path) -> tuple[dict[tuple[int, str], list[float]], list[str], list[dict]]:
    """A CSV this benchmark wrote: the times by (datasets, variant), the variants in it (in order), its rows."""
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    times: dict[tuple[int, str], list[float]] = {}
    for row in rows:
        times.setdefault((int(row["datasets"]), row["variant"]), []).append(float(row["seconds"]))
    present = {variant for _, variant in times}
    return times, [v for v in [*VARIANTS, *LAYOUT_VARIANTS] if v in present], rows


def report_csv(path: Path) -> None:
    """The tables of a CSV this benchmark wrote (``--report``), without running anything."""
    times, variants, rows = read_csv(path)
    rounds = len({row["round"] for row in rows})
    print(f"{path}: {len(rows)} trials, {rounds} rounds, {int(rows[0]['bytes']) // 2**20} MiB per file")
    report(times, sorted({d for d, _ in times}), variants)


def summary_table(paths: list[Path]) -> None:
    """One markdown table over several CSVs (``--table``): each variant's ratio to HDF5's defaults per CSV and
    workload, in bold where beyond the noise, and the best variant's gain over the defaults."""
    columns, every = [], []
    for path in paths:
        times, variants, _ = read_csv(path)
        every += [v for v in variants if v not in every]
        for datasets in sorted({d for d, _ in times}):
            noise = estimate_noise([times[(datasets, v)] for v in variants])
            base = times[(datasets, "defaults")]
            ratios = {v: ratio_interval(times[(datasets, v)], base, noise, comparisons=len(variants) - 1)
                      for v in variants if v != "defaults"}
            columns.append((f"{path.stem} {datasets}", ratios))
    print("| variant | " + " | ".join(name for name, _ in columns) + " |")
    print("|---|" + "---|" * len(columns))
    for variant in every[1:]:
        cells = []
        for _, ratios in columns:
            ratio = ratios.get(variant)
            text = "" if ratio is None else f"{ratio.value:.2f} [{ratio.low:.2f}, {ratio.high:.2f}]"
            cells.append(f"**{text}**" if ratio is not None and (ratio.low > 1 or ratio.high < 1) else text)
        print(f"| {variant} | " + " | ".join(cells) + " |")
    best = []
    for _, ratios in columns:
        name = min(ratios, key=lambda v: ratios[v].value)
        ratio = ratios[name]
        best.append(f"{name}: {1 / ratio.value:.2f}x [{1 / ratio.high:.2f}, {1 / ratio.low:.2f}]")
    print("| best over HDF5's defaults (gain) | " + " | ".join(best) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--size", default="16MiB", help="bytes per rank")
    parser.add_argument("--transfer", default="1MiB")
    parser.add_argument("--datasets", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--csv", type=Path, default=Path("data/ground_truth/hdf5_local.csv"))
    parser.add_argument("--scratch", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cephfs", action="store_true", help="on a CephFS testbed built for the run (root)")
    parser.add_argument("--servers", type=int, default=3, help="OSDs of the CephFS testbed")
    parser.add_argument("--mbps", type=float, default=5.0, help="each OSD's write limit, MB/s")
    parser.add_argument("--report", type=Path, default=None, metavar="CSV", help="print the tables of a CSV written "
                        "before, run nothing")
    parser.add_argument("--table", type=Path, nargs="+", default=None, metavar="CSV", help="one markdown table of "
                        "several CSVs written before, run nothing")
    args = parser.parse_args()
    if args.report:
        return report_csv(args.report)
    if args.table:
        return summary_table(args.table)
    size, transfer = parse_size(args.size), parse_size(args.transfer)
    variants = [*VARIANTS, *(LAYOUT_VARIANTS if args.cephfs else ())]
    cells = [(d, v) for d in args.datasets for v in variants]
    rng = random.Random(args.seed)
    times: dict[tuple[int, str], list[float]] = {cell: [] for cell in cells}
    rows, problems = [], set()
    load_before = os.getloadavg()
    with scratch_of(args) as scratch, BuiltinRunner(timeout=300) as runner:
        for round_ in range(args.repeats):
            order = cells[:]
            rng.shuffle(order)
            for datasets, variant in order:
                result = runner.run(spec_of(variant, datasets, size, transfer), scratch)
                if result.status != "COMPLETE":
                    raise SystemExit(f"{variant} (datasets={datasets}) failed: {result.error}")
                seconds = result.io_seconds
                times[(datasets, variant)].append(seconds)
                changed = not_in_effect(result)
                if changed:
                    problems.add(f"datasets={datasets} {variant}: " + ", ".join(changed))
                rows.append({"datasets": datasets, "variant": variant, "round": round_, "seconds": f"{seconds:.6f}",
                             "bytes": result.phase("write").bytes,
                             "alignment_in_effect": result.hints_in_effect.get(setting_key("alignment")),
                             "collective_in_effect": result.hints_in_effect.get(setting_key("collective"), "false"),
                             **({"layout_in_effect": layout_text(result.extra.get("layout_in_effect"))}
                                if args.cephfs else {}),
                             "not_in_effect": "; ".join(changed)})
    load_after = os.getloadavg()
    args.csv.parent.mkdir(parents=True, exist_ok=True)
    with open(args.csv, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"2 ranks x {format_size(size)} in {format_size(transfer)} transfers, write + fsync, {args.repeats} "
          f"interleaved rounds; load average {load_before[0]:.1f} before, {load_after[0]:.1f} after")
    report(times, args.datasets, variants)
    for problem in sorted(problems):
        print(f"not in effect: {problem}")
    print(f"trials: {args.csv}")


if __name__ == "__main__":
    main()
