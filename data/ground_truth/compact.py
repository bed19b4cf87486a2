"""Keep the columns of an `iotune export` CSV that describe the measurement.

    python compact.py FULL.csv OUT.csv [--hints KEY,KEY] [--decimals N]

Without options the output is exactly what the testbed table was made with. ``--hints`` also keeps the
listed hints in effect (the export's ``hint.KEY`` columns, as ROMIO read them back); ``--decimals`` rounds
the times (seconds) to N decimal places.
"""

import argparse
import csv

KEEP = ("trial_uid", "repeat", "phase", "bytes", "seconds", "open_seconds", "transfer_seconds", "close_seconds", "ops",
        "read_cache_mode", "fs_type")
TIMES = ("seconds", "open_seconds", "transfer_seconds", "close_seconds")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("full")
    parser.add_argument("out")
    parser.add_argument("--hints", default="", help="comma-separated hint keys to keep as hint.KEY columns")
    parser.add_argument("--decimals", type=int, default=None, help="round times (seconds) to this many decimals")
    args = parser.parse_args()
    hints = {f"hint.{key.strip()}" for key in args.hints.split(",") if key.strip()}
    with open(args.full, newline="") as source, open(args.out, "w", newline="") as target:
        reader = csv.DictReader(source)
        missing = sorted(hints - set(reader.fieldnames))
        if missing:
            raise SystemExit(f"error: {args.full} has no column(s) {', '.join(missing)}")
        columns = [c for c in reader.fieldnames if c in KEEP or c.startswith("cfg.") or c in hints]
        writer = csv.DictWriter(target, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for row in reader:
            if args.decimals is not None:
                for column in TIMES:
                    if row.get(column):
                        row[column] = f"{float(row[column]):.{args.decimals}f}"
            writer.writerow(row)


if __name__ == "__main__":
    main()
