#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs the GoogleTest
# suites through ctest, the thread-mode suites again under ThreadSanitizer
# (a race or lock misuse fails the run), then every claim file of
# `pmemids reproduce` validated, the CLI tests (one claim run end to end at the
# quick scale among them) and the report tests through pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release
(cd build && ctest --output-on-failure -j2)
scripts/build.sh tsan pmemids_thread_tests
PMEM_IS_PMEM_FORCE=1 TSAN_OPTIONS="halt_on_error=1" build-tsan/pmemids_thread_tests --gtest_brief=1
build/pmemids reproduce --check >/dev/null
PMEMIDS_BIN="$PWD/build/pmemids" .venv/bin/python -m pytest -q tests/cli
PMEMIDS_BIN="$PWD/build/pmemids" .venv/bin/python -m pytest -q tests/report
