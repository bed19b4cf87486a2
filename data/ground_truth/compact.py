"""Keep the columns of an `iotune export` CSV that describe the measurement: python compact.py FULL.csv OUT.csv"""

import csv
import sys

KEEP = ("trial_uid", "repeat", "phase", "bytes", "seconds", "open_seconds", "transfer_seconds", "close_seconds", "ops",
        "read_cache_mode", "fs_type")

with open(sys.argv[1], newline="") as source, open(sys.argv[2], "w", newline="") as target:
    reader = csv.DictReader(source)
    columns = [c for c in reader.fieldnames if c in KEEP or c.startswith("cfg.")]
    writer = csv.DictWriter(target, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(reader)
