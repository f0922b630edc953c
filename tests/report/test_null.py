"""What a record holds as null (not observed) is n/a in the report's tables,
and latency tables show the timer overhead every sampled latency includes."""

from __future__ import annotations

import json

from conftest import EMULATED, fixture_lines
from pmemids_report import figures, stats, tables
from pmemids_report.load import read_records


def write(tmp_path, records):
    p = tmp_path / "r.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in records))
    return p


def specs(path):
    records = read_records([str(path)])
    run_rows = stats.runs(records)
    confs = stats.configurations(run_rows, records)
    return figures.select(confs, run_rows.merge(confs[["config_id", "label"]], on="config_id"))


def test_null_costs_are_na_and_latency_tables_show_the_timer_overhead(tmp_path):
    recs = fixture_lines(*EMULATED)
    for r in recs:
        r.get("context", {})["timer_overhead_ns"] = 21.5
        if r.get("config", {}).get("mode") == "pmem-trans" and "metrics" in r:
            r["metrics"]["flushed_lines_per_op"] = None
    path = write(tmp_path, recs)
    seen_na = seen_latency = False
    for spec in specs(path):
        t = tables.figure_table(spec)
        if "flushed lines/op" in t.columns:
            col = t.columns.index("flushed lines/op")
            mode = t.columns.index("mode")
            for row in t.rows:
                if row[mode] == "pmem-trans":
                    assert row[col] == "n/a", row
                    seen_na = True
        if spec.kind == "percentiles":
            assert t.columns[-1] == "timer overhead (ns)"
            assert all(row[-1] == "21.5" for row in t.rows)
            seen_latency = True
    assert seen_na and seen_latency
