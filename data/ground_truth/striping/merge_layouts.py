"""The rounds of the striping-layouts ground truth (``run_layouts.sh``: one study per round) as one compact CSV that
``iotune import`` reads with the spec beside it, ``striping_layouts.yaml`` (the round is the ``repeat``).

    python data/ground_truth/striping/merge_layouts.py DB data/ground_truth/striping_layouts.csv [--prefix NAME]

``--prefix`` merges the rounds ``NAME-rK`` of another study of layouts (default: striping-layouts).

Columns: those of ``data/ground_truth/compact.py`` (the write phase's bytes, seconds from open to close with
fsync, and its open, transfer and close parts; ``cfg.*`` the configuration), ``started_at`` (the order of a
round's trials on its testbed), and ``file_inodes``: the inode
numbers of the files written (rank order; empty for trials measured before iotune recorded them), which name
their objects and so say where CephFS put them (``pg_osds.csv``). Refuses a round with a trial that
did not complete, or whose layout read back from CephFS (stripe count, stripe unit, object size) is not the one
asked for.
"""

import argparse
import csv
import re

from iotune.store import Store

COLUMNS = ("trial_uid", "repeat", "phase", "bytes", "seconds", "open_seconds", "transfer_seconds", "close_seconds",
           "ops", "read_cache_mode", "fs_type", "started_at", "file_inodes")
DEFAULT_UNIT = "1048576"  # the spec's benchmark layout, in effect where stripe_unit is not set (stripe count 1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("db")
    parser.add_argument("out")
    parser.add_argument("--prefix", default="striping-layouts")
    args = parser.parse_args()
    rounds = re.compile(re.escape(args.prefix) + r"-r(\d+)")
    rows, parameters = [], set()
    with Store(args.db, create=False) as store:
        for study in sorted(s.name for s in store.list_studies() if rounds.fullmatch(s.name)):
            number = int(rounds.fullmatch(study).group(1))
            for trial in store.trials(study=study):
                config = trial.config
                if trial.state != "COMPLETE":
                    raise SystemExit(f"error: {study}: trial {trial.uid} is {trial.state}")
                effect = trial.extra.get("layout_in_effect", {})
                asked = {"stripe_count": str(config["stripe_count"]), "object_size": str(config["object_size"]),
                         "stripe_unit": str(config.get("stripe_unit") or DEFAULT_UNIT),
                         **({"pool": config["pool"]} if "pool" in config else {})}
                if any(effect.get(k) != v for k, v in asked.items()):
                    raise SystemExit(f"error: {study}: trial {trial.uid} asked {asked}, CephFS has {effect}")
                (write,) = [p for p in trial.phases if p.phase == "write"]
                rows.append({"trial_uid": trial.uid, "repeat": number, "phase": "write", "bytes": write.bytes,
                             "seconds": f"{write.seconds:.4f}", "open_seconds": f"{write.open_seconds:.4f}",
                             "transfer_seconds": f"{write.transfer_seconds:.4f}",
                             "close_seconds": f"{write.close_seconds:.4f}", "ops": write.ops,
                             "read_cache_mode": trial.read_cache_mode or "none", "fs_type": "cephfs",
                             "started_at": trial.started_at or "",
                             "file_inodes": " ".join(str(i) for i in trial.extra.get("file_inodes") or [] if i),
                             **{f"cfg.{p}": "" if v is None else v for p, v in config.items()}})
                parameters.update(config)
    with open(args.out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=[*COLUMNS, *(f"cfg.{p}" for p in sorted(parameters))],
                                lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"{len(rows)} trials of {len({r['repeat'] for r in rows})} rounds, every layout in effect as asked -> "
          f"{args.out}")


if __name__ == "__main__":
    main()
