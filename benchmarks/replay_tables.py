"""The measurement tables the replay benchmark runs on, each described once (``iotune.transfer.TableSpec``).

Add a table by adding a function returning its ``TableSpec`` to ``TABLES``.
Every path is inside the repository.
"""

from __future__ import annotations

from pathlib import Path

from iotune.recommend.cost import CostModel
from iotune.transfer import Feature, TableSpec

ROOT = Path(__file__).resolve().parent.parent


def scout() -> TableSpec:
    """Scout (Hsu et al. 2018): 18 Spark/Hadoop jobs x 69 cloud clusters, one run each, time and cost."""

    def derive(trial: dict) -> dict:
        # "naive-bayes_huge_spark15" -> application, data size, framework
        application, size, framework = trial["workload"].split("_")
        return trial | {"application": application, "data_size": size, "framework": framework}

    return TableSpec(
        name="scout",
        path=ROOT / "data/public/scout/scout.csv",
        workload=(Feature("application"), Feature("data_size", "ordinal", ("bigdata", "huge")),
                  Feature("framework")),
        configuration=(Feature("vm_family"), Feature("vm_size", "ordinal", ("large", "xlarge", "2xlarge")),
                       Feature("n_vms", "log2"), Feature("total_cpu", "log2"), Feature("total_ram", "log2")),
        objectives={"time": "time", "cost": "cost"},
        failed="failed",
        derive=derive,
        label="workload",
        source="data/public/scout/README.md",
    )


def cherrypick() -> TableSpec:
    """CherryPick (Alipourfard et al. 2017): 5 analytics jobs x 47-72 cloud clusters each (80 in all), one run
    each, time and cost; a configuration measured for one job may be missing for another."""

    def derive(trial: dict) -> dict:
        # "c4.2xlarge" -> family c4, size 2xlarge; the derived features are for the encoding variants
        family, size = trial["vm_name"].split(".")
        n = float(trial["n_vms"])
        return trial | {"vm_family": family, "vm_size": size, "total_cpu": str(n * float(trial["vcpu"])),
                        "total_ram": str(n * float(trial["ram"])),
                        "cluster_price": str(n * float(trial["vm_price"]))}

    return TableSpec(
        name="cherrypick",
        path=ROOT / "data/public/cherrypick/cherrypick.csv",
        workload=(Feature("workload"),),
        configuration=(Feature("vm_family"), Feature("vm_size", "ordinal", ("large", "xlarge", "2xlarge")),
                       Feature("n_vms", "log2"), Feature("disk_name"), Feature("disk_count", "log2")),
        objectives={"time": "time", "cost": "cost"},
        failed="failed",
        derive=derive,
        label="workload",
        source="data/public/cherrypick/README.md",
    )


def testbed() -> TableSpec:
    """iotune's testbed ground truth: 18 access patterns x 12 storage configurations x 5 repeats.

    time = write + read seconds of a trial; cost = time / 3600 x the hourly price of one device of the
    trial's device class (pricing.yaml: size_gb x price_gb_hour + max(write, read MB/s) x price_mbps_hour),
    the storage term of ``iotune.recommend.cost`` (no compute instances: they cost the same everywhere).
    """
    pricing = CostModel.from_yaml()

    def derive(trial: dict) -> dict:
        seconds = float(trial["seconds"]) if trial["seconds"] else None
        cost = "" if seconds is None else str(pricing.storage_cost(seconds, {"device_class": trial["cfg.device_class"]}))
        return trial | {"cost": cost}

    return TableSpec(
        name="testbed",
        path=ROOT / "data/ground_truth/testbed_ground_truth.csv",
        workload=(Feature("cfg.api"), Feature("cfg.collective", "categorical", ("", "False", "True")),
                  Feature("cfg.file_per_process"), Feature("cfg.transfer_size", "log2")),
        configuration=(Feature("cfg.fs"), Feature("cfg.device_class", "ordinal", ("slow", "fast")),
                       Feature("cfg.scheduler")),
        objectives={"time": "seconds", "cost": "cost"},
        trial="trial_uid",
        summed=("seconds",),
        derive=derive,
        source="data/ground_truth/README.md",
    )


def hints() -> TableSpec:
    """ROMIO hints ground truth (data/ground_truth/hints_ground_truth.*): workloads x hint settings x 5.

    Collective workloads vary the cb_* hints, independent ones the romio_ds_* hints: an inactive hint is
    an empty cell (its own level for the categorical hints, -1 for the log2 ones).  cost = time / 3600 x
    processes x the core-hour price of pricing.yaml's cc2.8xlarge (instance price / cores): no device or
    instance differs between configurations of one workload, so cost ranks a workload's configurations
    exactly as time does (the replay still runs it, with its own random draws of the repeats).
    """
    pricing = CostModel.from_yaml()
    core_hour = pricing.price("cc2.8xlarge") / pricing.cores["cc2.8xlarge"]

    def derive(trial: dict) -> dict:
        seconds = float(trial["seconds"]) if trial["seconds"] else None
        cost = "" if seconds is None else str(seconds / 3600.0 * int(trial["cfg.processes"]) * core_hour)
        return trial | {"cost": cost}

    return TableSpec(
        name="hints",
        path=HINTS,
        workload=(Feature("cfg.processes", "log2"), Feature("cfg.file_per_process"), Feature("cfg.collective"),
                  Feature("cfg.transfer_size", "log2"), Feature("cfg.block_size", "log2"),
                  Feature("cfg.segment_count", "log2")),
        configuration=(Feature("cfg.cb_nodes", "log2", missing=-1.0),
                       Feature("cfg.cb_buffer_size", "log2", missing=-1.0),
                       Feature("cfg.romio_cb_write"), Feature("cfg.romio_cb_read"),
                       Feature("cfg.romio_ds_write"), Feature("cfg.romio_ds_read")),
        objectives={"time": "seconds", "cost": "cost"},
        trial="trial_uid",
        summed=("seconds",),
        derive=derive,
        source="data/ground_truth/README.md",
    )


def striping() -> TableSpec:
    """Striping ground truth on the CephFS testbed (data/ground_truth/striping_ground_truth.csv, issue 20):
    8 workloads (pattern x 2, 4 processes) x 7 file layouts x, for the collective patterns, 3
    collective-buffering settings x 5 repeats; one row per trial, its write time (open to close, fsync).

    As in the hints table, a setting that does not apply is an empty cell: stripe_unit at stripe count 1
    (one object set, the unit moot), romio_cb_write and cb_nodes in the independent patterns.  Time only:
    every configuration runs on the same 3 storage servers and the same processes, so no price differs
    between the configurations of a workload (a cost would rank them exactly as time does).
    """
    return TableSpec(
        name="striping",
        path=STRIPING,
        workload=(Feature("pattern"), Feature("processes", "log2")),
        configuration=(Feature("stripe_count", "log2"), Feature("stripe_unit", "log2", missing=-1.0),
                       Feature("romio_cb_write"), Feature("cb_nodes", "log2", missing=-1.0)),
        objectives={"time": "seconds"},
        source="data/ground_truth/README.md",
    )


HINTS = ROOT / "data/ground_truth/hints_ground_truth.csv"
STRIPING = ROOT / "data/ground_truth/striping_ground_truth.csv"
TABLES = {"scout": scout, "cherrypick": cherrypick, "testbed": testbed} | ({"hints": hints} if HINTS.exists() else {}) \
    | ({"striping": striping} if STRIPING.exists() else {})
"""Tables by name; the hints and striping tables join once their CSVs are in the repository."""
