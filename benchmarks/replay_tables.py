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
                       Feature("n_vms", "log2")),
        objectives={"time": "time", "cost": "cost"},
        failed="failed",
        derive=derive,
        label="workload",
        source="data/public/scout/README.md",
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


# The MPI-IO hints ground truth (data/ground_truth/, being measured) goes here when it lands: the same
# compact format as the testbed, so its spec is testbed()'s with its own path, workload columns (api,
# collective, sizes, processes) and hint columns (cb_nodes, cb_buffer_size "log2", romio_cb_* categorical).
TABLES = {"scout": scout, "testbed": testbed}
