#!/usr/bin/env bash
# Runs every claim of the seed papers (pmemids reproduce --all) at a scale, then rewrites
# the README's table of verdicts from them: a row per claim file (the verdict with the
# measured outcome beside any label) and a summary line counting each verdict class. Usage: scripts/reproduce-table.sh [quick|default|paper]
# (default: quick). Records, verdicts and the report go to results/reproduce/<scale>/
# ($PMEMIDS_REPRODUCE_OUT instead of results/reproduce); resumable like the sweeps.
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${1:-quick}
out=${PMEMIDS_REPRODUCE_OUT:-results/reproduce}
build/pmemids reproduce --all --scale "$scale" --out "$out"
PYTHONPATH=python .venv/bin/python -m pmemids_report.reproduce.table "$out/$scale/verdicts.jsonl" \
  --readme README.md --claims reproduce --command "scripts/reproduce-table.sh $scale"
echo "reproduce-table: README.md updated from $out/$scale/verdicts.jsonl" >&2
