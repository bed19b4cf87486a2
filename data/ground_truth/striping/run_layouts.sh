#!/bin/sh
# The striping-layouts ground truth (issue 33): data/ground_truth/striping_layouts.yaml measured in ROUNDS rounds,
# each round every configuration once, in its own order (sampler seed = round): CephFS names a file's objects
# after its inode number, and a rebuilt testbed numbers files in creation order, so rounds in one order would put
# each configuration's objects on the same servers every time. One study per round, striping-layouts-rK; then
# python data/ground_truth/striping/merge_layouts.py DB data/ground_truth/striping_layouts.csv
#   sh data/ground_truth/striping/run_layouts.sh DB [ROUNDS [FIRST]]   # as root; its own testbed directory
# FIRST (default 0) numbers the rounds FIRST .. FIRST+ROUNDS-1 (study and seed): more rounds into the same DB.
set -eu
here=$(dirname "$0")
db=$1
rounds=${2:-8}
export IOTUNE_TESTBED_DIR=${IOTUNE_TESTBED_DIR:-/var/tmp/striping-layouts-testbed}
round=${3:-0}
last=$((round + rounds))
while [ "$round" -lt "$last" ]; do
  iotune bench "$here/../striping_layouts.yaml" --db "$db" --study "striping-layouts-r$round" --seed "$round" \
    --repeats 1 --timeout 120
  round=$((round + 1))
done
