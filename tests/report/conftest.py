"""Fixtures for the report tests (pytest tests/report).

The package is imported from <repo>/python, installed or not. The checked-in
fixtures (fixtures/, see make_synthetic.py) are rendered once per session:
`full` holds every emulated-PMEM fixture (single-thread, parallel, concurrent,
NUMA) with a CSV, `real` the real-PMEM one. The `pmemids report` forwarding tests
run $PMEMIDS_BIN (default <repo>/build/pmemids) with a 60 s timeout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(REPO / "python"))

from pmemids_report.__main__ import main  # noqa: E402
from pmemids_report.load import read_records  # noqa: E402

EMULATED = ["single.jsonl", "parallel.jsonl", "concurrent.jsonl", "numa.jsonl"]
TIMEOUT_S = 60
# The figures the EMULATED fixtures get.
EXPECTED = {
    "fig3_single_thread",   # single.jsonl (no NUMA placement)
    "fig5_btree_node_size",
    "fig6_parallel_pmemids-write",
    "fig7_concurrent_pmemids-write",
    "fig8_locks_pmemids-write",
    "fig9_numa",
    "latency_update",
    "latency_insert",
    "timeline",
}


def fixture_lines(*names: str) -> list[dict]:
    return [json.loads(line) for n in names for line in (FIXTURES / n).read_text().splitlines() if line.strip()]


def real_records_with(tmp_path: Path, edits: dict[int, dict], section: str = "config"):
    """fixtures/real.jsonl read through the report's loader, record i's `section`
    ("config" or "context") updated with edits[i] first."""
    lines = fixture_lines("real.jsonl")
    for i, fields in edits.items():
        lines[i][section].update(fields)
    p = tmp_path / "in.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return read_records([str(p)])


@dataclass
class Rendered:
    out: Path
    csv: Path

    @property
    def html(self) -> str:
        return (self.out / "index.html").read_text()

    def svg(self, figure_id: str) -> str:
        return (self.out / "figures" / f"{figure_id}.svg").read_text()

    def figure_ids(self) -> set[str]:
        return {p.stem for p in (self.out / "figures").glob("*.png")}


def render(out: Path, *names: str) -> Rendered:
    csv = out / "records.csv"
    assert main([str(FIXTURES / n) for n in names] + ["--out", str(out), "--csv", str(csv)]) == 0
    return Rendered(out, csv)


@pytest.fixture(scope="session")
def full(tmp_path_factory) -> Rendered:
    return render(tmp_path_factory.mktemp("full"), *EMULATED)


@pytest.fixture(scope="session")
def real(tmp_path_factory) -> Rendered:
    return render(tmp_path_factory.mktemp("real"), "real.jsonl")


@pytest.fixture(scope="session")
def binary() -> Path:
    b = Path(os.environ.get("PMEMIDS_BIN") or REPO / "build" / "pmemids")
    if not (b.is_file() and os.access(b, os.X_OK)):
        pytest.fail(f"pmemids binary not found at {b}: build it (scripts/build.sh) or set PMEMIDS_BIN")
    return b


def run_binary(binary: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=TIMEOUT_S,
                          env={**os.environ, **(env or {})})
