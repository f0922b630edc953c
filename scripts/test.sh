#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs the GoogleTest
# suites through ctest, the thread-mode suites again under ThreadSanitizer
# (a race or lock misuse fails the run), the structure, backend and workload
# suites (only there) and the crash runs of every durable (structure, mode)
# again under AddressSanitizer and UndefinedBehaviorSanitizer
# (pmemids_asan_tests, built apart in build-asan/ without the structure
# registries, two shards at once; any error, leak included, fails the run; the
# subset: docs/hostile.md, Sanitizers), the
# parsers' fuzz targets for a bounded time (libFuzzer, ASan, UBSan;
# PMEMIDS_FUZZ_SECONDS each, default 20, both at once), every claim file of
# `pmemids reproduce` validated, then the CLI tests (hostile input, flipped
# pool bytes and one claim run end to end at the quick scale among them) and
# the report tests through pytest, as two jobs at once. Each phase's wall time
# goes to stderr (`test.sh: <phase> took N s`), so a slow suite says where its
# time went.
set -euo pipefail
cd "$(dirname "$0")/.."
last=$SECONDS
took() { echo "test.sh: $1 took $((SECONDS - last)) s" >&2; last=$SECONDS; }
scripts/setup.sh
took setup
scripts/build.sh release
took "release build"
(cd build && ctest --output-on-failure -j2)
took ctest
scripts/build.sh tsan pmemids_thread_tests
took "tsan build"
PMEM_IS_PMEM_FORCE=1 TSAN_OPTIONS="halt_on_error=1" build-tsan/pmemids_thread_tests --gtest_brief=1
took "tsan tests"
scripts/build.sh asan pmemids_asan_tests
took "asan build"
# Jobs run two at a time (2 cores): at_once LABEL runs the commands (strings,
# shell functions of this script among them) concurrently, keeps each one's
# output in a file of its own and prints it once all are done, and stops the
# suite naming LABEL when any failed.
scratch=$(mktemp -d)
pools=$(mktemp -d -p /dev/shm pmemids-suite-XXXXXX)
trap 'rm -rf "$scratch" "$pools"' EXIT
at_once() {
  local label=$1 pids=() i failed=0
  shift
  for i in $(seq 0 $(($# - 1))); do
    (eval "${@:i+1:1}") >"$scratch/job$i.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || failed=1
    cat "$scratch/job$i.log"
  done
  [ "$failed" -eq 0 ] || { echo "test.sh: $label failed (output above)" >&2; exit 1; }
}
asan_shard() {
  GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$1 PMEM_IS_PMEM_FORCE=1 ASAN_OPTIONS="halt_on_error=1" \
    UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
    build-asan/pmemids_asan_tests --gtest_brief=1 --gtest_filter='-CrashChecker.*:*EveryPoint*'
}
at_once "the ASan+UBSan suites" "asan_shard 0" "asan_shard 1"
took "asan tests"
scripts/build.sh fuzz
took "fuzz build"
# New inputs go to the scratch directory, the repository's corpus is only read.
fuzz() {
  mkdir -p "$scratch/$1"
  "build-fuzz/${1/sweep/sweep_file}_fuzz" -max_total_time="${PMEMIDS_FUZZ_SECONDS:-20}" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=build-fuzz/ \
    "$scratch/$1" "tests/fuzz/corpus/$1" 2>"$scratch/$1.log" ||
    { tail -n 40 "$scratch/$1.log"; echo "fuzz: $1 failed (input kept in build-fuzz/)"; return 1; }
  grep -E "^stat::number_of_executed_units" "$scratch/$1.log" | sed "s/^/fuzz $1: /"
}
at_once "fuzzing" "fuzz properties" "fuzz sweep"
took fuzzing
build/pmemids reproduce --check >/dev/null
# The Python tests as two jobs: the CLI tests' two longest files (every docs
# command, the end-to-end claim) then the report tests, and the other CLI
# tests; each pytest with a temporary directory of its own, and the first job's
# pools in a directory of their own (pools are named by structure and mode, and
# the other job's runs use the default directory). -rs: a skipped test says why
# (test_slurm.py without root or sudo).
long=(tests/cli/test_docs_commands.py tests/cli/test_reproduce.py)
pytest() {
  local tmp=$1
  shift
  PMEMIDS_BIN="$PWD/build/pmemids" .venv/bin/python -m pytest -q -rs -p no:cacheprovider \
    --basetemp="$scratch/$tmp" "$@"
}
at_once "the Python tests" \
  'export PMEMIDS_POOL_DIR=$pools; pytest long "${long[@]}" && pytest report tests/report' \
  'pytest cli tests/cli "${long[@]/#/--ignore=}"'
took "python tests"
