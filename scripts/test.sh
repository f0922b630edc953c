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
# PMEMIDS_FUZZ_SECONDS each, default 20), every claim file of `pmemids
# reproduce` validated, then the CLI tests (hostile input, flipped pool bytes
# and one claim run end to end at the quick scale among them) and the report
# tests through pytest. Each phase's wall time goes to stderr (`test.sh: <phase>
# took N s`), so a slow suite says where its time went.
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
asan_pids=()
for shard in 0 1; do
  GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$shard PMEM_IS_PMEM_FORCE=1 ASAN_OPTIONS="halt_on_error=1" \
    UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
    build-asan/pmemids_asan_tests --gtest_brief=1 --gtest_filter='-CrashChecker.*:*EveryPoint*' &
  asan_pids+=($!)
done
asan_failed=0
for pid in "${asan_pids[@]}"; do wait "$pid" || asan_failed=1; done
[ "$asan_failed" -eq 0 ] || { echo "test.sh: the ASan+UBSan suites failed (output above)" >&2; exit 1; }
took "asan tests"
scripts/build.sh fuzz
took "fuzz build"
fuzz_work=$(mktemp -d)
trap 'rm -rf "$fuzz_work"' EXIT
for target in properties sweep; do
  # New inputs go to the scratch directory, the repository's corpus is only read.
  mkdir -p "$fuzz_work/$target"
  fuzzer=build-fuzz/${target/sweep/sweep_file}_fuzz
  "$fuzzer" -max_total_time="${PMEMIDS_FUZZ_SECONDS:-20}" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=build-fuzz/ "$fuzz_work/$target" \
    "tests/fuzz/corpus/$target" 2>"$fuzz_work/$target.log" ||
    { tail -n 40 "$fuzz_work/$target.log"; echo "fuzz: $target failed (input kept in build-fuzz/)" >&2; exit 1; }
  grep -E "^stat::number_of_executed_units" "$fuzz_work/$target.log" | sed "s/^/fuzz $target: /"
done
took fuzzing
build/pmemids reproduce --check >/dev/null
# -rs: a skipped test says why (test_slurm.py without root or sudo)
PMEMIDS_BIN="$PWD/build/pmemids" .venv/bin/python -m pytest -q -rs tests/cli
took "cli tests"
PMEMIDS_BIN="$PWD/build/pmemids" .venv/bin/python -m pytest -q tests/report
took "report tests"
