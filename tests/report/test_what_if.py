"""The report marks runs whose domain was emulated eADR or whose media latency
was injected (what-if), so their throughput is not read as measured media."""

from __future__ import annotations

import json

import pandas as pd

from conftest import FIXTURES
from pmemids_report import checks
from pmemids_report.load import read_records


def records_with(tmp_path, edits: dict[int, dict]):
    lines = [json.loads(l) for l in (FIXTURES / "real.jsonl").read_text().splitlines() if l.strip()]
    for i, config in edits.items():
        lines[i]["config"].update(config)
    p = tmp_path / "in.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return read_records([str(p)])


def test_emulated_eadr_and_injected_latency_are_warned(tmp_path):
    recs = records_with(tmp_path, {0: {"domain": "eadr-emulated"},
                                   1: {"pmem_write_ns": 128, "pmem_read_ns": 224,
                                       "pmem_profile": "optane"}})
    runs = sum(1 for r in recs if r.kind == "run")
    text = " ".join(checks.warnings(recs, pd.DataFrame()))
    assert f"eADR was emulated for 1 of {runs} records" in text
    assert f"What-if media latency was injected in 1 of {runs} records" in text
    assert "optane: 128 ns per written-back line, 224 ns per node read (1)" in text


def test_plain_records_get_no_what_if_warning(tmp_path):
    text = " ".join(checks.warnings(records_with(tmp_path, {}), pd.DataFrame()))
    assert "eADR" not in text and "What-if" not in text
