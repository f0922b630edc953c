#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs the GoogleTest
# suites through ctest, then the CLI tests and the report tests through pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release
(cd build && ctest --output-on-failure -j2)
PMEMIDS_BIN="$PWD/build/pmemids" .venv/bin/python -m pytest -q tests/cli
PMEMIDS_BIN="$PWD/build/pmemids" .venv/bin/python -m pytest -q tests/report
