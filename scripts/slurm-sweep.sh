#!/usr/bin/env bash
# One shard of a pmemids sweep per task of a SLURM job array (docs/sweeps.md):
#
#   sbatch --array=0-7 scripts/slurm-sweep.sh sweeps/fig6-parallel.toml paper results/fig6-paper
#   pmemids report results/fig6-paper/ --out report/          # after the array: the merged shards
#   pmemids reproduce 001-O5 --scale paper --from results/fig6-paper/
#
# Task K of N runs `pmemids sweep FILE --scale SCALE --shard K/N` into
# OUT_DIR/shard-K-of-N.jsonl: one output file per shard, each resumable on its own
# (resubmit the array, or one task, after a failure). The array must be numbered from
# 0 (--array=0-(N-1)). PMEMIDS names the binary (default: pmemids on PATH);
# PMEMIDS_POOL_DIR the pool directory on each node (a DAX mount for real PMEM).
#SBATCH --job-name=pmemids-sweep
#SBATCH --exclusive
#SBATCH --output=pmemids-sweep-%A_%a.log
set -euo pipefail
usage="usage: sbatch --array=0-<N-1> $0 SWEEP_FILE [SCALE] [OUT_DIR]"
file=${1:?$usage}
scale=${2:-default}
out=${3:-results/$(basename "$file" .toml)-$scale}
: "${SLURM_ARRAY_TASK_ID:?not a SLURM array task; $usage}"
: "${SLURM_ARRAY_TASK_COUNT:?not a SLURM array task; $usage}"
mkdir -p "$out"
exec "${PMEMIDS:-pmemids}" sweep "$file" --scale "$scale" \
  --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" \
  --out "$out/shard-$SLURM_ARRAY_TASK_ID-of-$SLURM_ARRAY_TASK_COUNT.jsonl"
