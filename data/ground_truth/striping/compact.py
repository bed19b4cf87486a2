"""The striping ground truth as one compact CSV: one row per complete trial of the striping studies.

    python data/ground_truth/striping/compact.py striping.db data/ground_truth/striping_ground_truth.csv

Columns: pattern (the study without its ``striping-`` prefix), processes, the layout asked for
(stripe_count, stripe_unit; object_size is 32 MiB in every one) and the one in effect read back from CephFS
(eff_stripe_count, eff_stripe_unit, eff_object_size), the collective-buffering hints (romio_cb_write,
cb_nodes; empty where not set), cb_nodes in effect (read back with MPI_File_get_info), repeat, bytes
written and the write phase's seconds (open to close, fsync included).
"""

import csv
import sys

from iotune.store import Store

COLUMNS = ("pattern", "processes", "stripe_count", "stripe_unit", "eff_stripe_count", "eff_stripe_unit",
           "eff_object_size", "romio_cb_write", "cb_nodes", "eff_cb_nodes", "repeat", "bytes", "seconds")


def main() -> None:
    db, out = sys.argv[1], sys.argv[2]
    rows = []
    with Store(db, create=False) as store:
        for study in sorted(s.name for s in store.list_studies() if s.name.startswith("striping-")):
            for trial in store.trials(study=study, state="COMPLETE"):
                write = next(p for p in trial.phases if p.phase == "write")
                effect = trial.extra.get("layout_in_effect", {})
                config = trial.config
                rows.append({
                    "pattern": study.removeprefix("striping-"), "processes": config["processes"],
                    "stripe_count": config["stripe_count"], "stripe_unit": config.get("stripe_unit") or "",
                    "eff_stripe_count": effect.get("stripe_count", ""), "eff_stripe_unit": effect.get("stripe_unit", ""),
                    "eff_object_size": effect.get("object_size", ""),
                    "romio_cb_write": config.get("romio_cb_write") or "", "cb_nodes": config.get("cb_nodes") or "",
                    "eff_cb_nodes": trial.hints_in_effect.get("cb_nodes", ""), "repeat": trial.repeat,
                    "bytes": write.bytes, "seconds": f"{write.seconds:.4f}"})
    with open(out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"{len(rows)} trials -> {out}")


if __name__ == "__main__":
    main()
