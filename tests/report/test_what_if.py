"""The report marks runs whose domain was emulated eADR or whose media latency
was injected (what-if), so their throughput is not read as measured media."""

from __future__ import annotations

import pandas as pd

from conftest import real_records_with as records_with
from pmemids_report import checks


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
