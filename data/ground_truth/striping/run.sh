#!/bin/sh
# The striping ground truth (issue 20): the four access patterns of this directory, each a study of one store,
# each measured on its own CephFS testbed (the spec's storage: section; root). After an interruption, run the
# remaining ones with `iotune bench SPEC --db DB --resume`.
#   sh data/ground_truth/striping/run.sh [DB]        # default DB: striping.db in the current directory
set -eu
here=$(dirname "$0")
db=${1:-striping.db}
for pattern in contiguous-collective strided-collective strided-independent fpp-independent; do
  iotune bench "$here/$pattern.yaml" --db "$db"
done
