#!/usr/bin/env bash
# One shard of a pmemids sweep per task of a SLURM job array (docs/sweeps.md):
#
#   sbatch --array=0-7 scripts/slurm-sweep.sh sweeps/fig6-parallel.toml paper results/fig6-paper
#   pmemids report results/fig6-paper/ --out report/          # after the array: the merged shards
#   pmemids reproduce 001-O5 --scale paper --from results/fig6-paper/
#
# Task K of an array numbered 0..N-1 runs
#   pmemids sweep FILE --scale SCALE --shard K/N --out OUT_DIR/shard-K-of-N.jsonl
# one output file per shard, each resumable on its own. A failed or cancelled task is
# resubmitted alone with the shard count given, and resumes:
#   PMEMIDS_SHARDS=8 sbatch --array=3 scripts/slurm-sweep.sh sweeps/fig6-parallel.toml paper results/fig6-paper
# The task's exit code is the sweep's (0 done, 1 a configuration failed, 2 refused,
# 143 cancelled); its log (--output, default pmemids-sweep-<array job>_<task>.log in the
# submission directory) holds the sweep's progress and errors.
#
# Environment (sbatch passes the submitting shell's on by default):
#   PMEMIDS           the binary; default pmemids on PATH, else the one installed or built
#                     beside this script (share/pmemids/scripts -> bin/pmemids; build/pmemids)
#   PMEMIDS_POOL_DIR  the pool directory on each node: a DAX mount for real PMEM
#                     (/mnt/pmem0); default /dev/shm/pmemids (emulated PMEM)
#   PMEMIDS_SHARDS    N when the array is not the whole 0..N-1 (a resubmitted task)
# Relative OUT_DIR is taken from the job's working directory (the submission directory,
# or sbatch --chdir); FILE is found by `pmemids locate sweep FILE`'s rule, with the
# checkout or installation this script belongs to added to $PMEMIDS_DATA.
# Whole nodes: `sbatch --exclusive ...` (recommended for timings; not forced, since
# shared nodes are common).
#SBATCH --job-name=pmemids-sweep
#SBATCH --output=pmemids-sweep-%A_%a.log
set -euo pipefail
usage="usage: sbatch --array=0-<N-1> $0 SWEEP_FILE [SCALE] [OUT_DIR]"
refuse() {
  echo "slurm-sweep: error: $*" >&2
  exit 2
}
[ $# -ge 1 ] && [ $# -le 3 ] || refuse "$usage"
file=$1
scale=${2:-default}
out=${3:-results/$(basename "$file" .toml)-$scale}
[ -n "${SLURM_ARRAY_TASK_ID:-}" ] || refuse "not a task of a SLURM job array; $usage"

# Under sbatch this runs as a copy in slurmd's spool directory; the job's Command is the
# submitted script, whose directory leads to the checkout or installation it belongs to.
self=${BASH_SOURCE[0]}
if [ -n "${SLURM_JOB_ID:-}" ] && command -v scontrol >/dev/null; then
  # (the array's last task has the array's id: one line per task, all with the same Command)
  cmd=$(scontrol show job -o "$SLURM_JOB_ID" 2>/dev/null | sed -n 's/.* Command=\([^ ]*\).*/\1/p' | head -n 1)
  [ -n "$cmd" ] && [ -f "$cmd" ] && self=$cmd
fi
home=$(cd "$(dirname "$(readlink -f "$self")")/.." && pwd)
case $home in
  */share/pmemids) own_bin=${home%/share/pmemids}/bin/pmemids ;;
  *) own_bin=$home/build/pmemids ;;
esac

if [ -n "${PMEMIDS:-}" ]; then
  bin=$PMEMIDS
elif command -v pmemids >/dev/null; then
  bin=pmemids
elif [ -x "$own_bin" ]; then
  bin=$own_bin
else
  refuse "no pmemids binary: not on PATH, not at $own_bin; set PMEMIDS"
fi

# The sweep file and its workloads are found by pmemids' one rule for shipped files
# (docs/sweeps.md): the job's working directory, $PMEMIDS_DATA, then the checkout or
# installation this script belongs to, then the binary's own.
export PMEMIDS_DATA=${PMEMIDS_DATA:+$PMEMIDS_DATA:}$home
found=$("$bin" locate sweep "$file") || refuse "sweep file '$file' not found (the places searched are above)"
file=$(printf '%s\n' "$found" | sed -n 's/.*"path":"\([^"\\]*\)".*/\1/p')
[ -n "$file" ] || refuse "pmemids locate gave no usable path for the sweep file: $found"

if [ -n "${PMEMIDS_SHARDS:-}" ]; then
  [[ $PMEMIDS_SHARDS =~ ^[1-9][0-9]*$ ]] || refuse "PMEMIDS_SHARDS='$PMEMIDS_SHARDS': not a shard count; accepted: an integer >= 1"
  n=$PMEMIDS_SHARDS
elif [ "${SLURM_ARRAY_TASK_MIN:-}" = 0 ] &&
     [ "${SLURM_ARRAY_TASK_MAX:-}" = "$((${SLURM_ARRAY_TASK_COUNT:-0} - 1))" ]; then
  n=$SLURM_ARRAY_TASK_COUNT
else
  refuse "array ${SLURM_ARRAY_TASK_MIN:-?}-${SLURM_ARRAY_TASK_MAX:-?} (${SLURM_ARRAY_TASK_COUNT:-?} tasks) is not 0-(N-1); set PMEMIDS_SHARDS=N to run part of an N-task array"
fi
k=$SLURM_ARRAY_TASK_ID
mkdir -p "$out"
echo "slurm-sweep: job ${SLURM_JOB_ID:-?} (array ${SLURM_ARRAY_JOB_ID:-?} task $k) on ${SLURMD_NODENAME:-$(hostname)}: shard $k/$n of $file, pools in ${PMEMIDS_POOL_DIR:-/dev/shm/pmemids}, binary $bin" >&2
exec "$bin" sweep "$file" --scale "$scale" --shard "$k/$n" --out "$out/shard-$k-of-$n.jsonl"
