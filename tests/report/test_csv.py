"""--csv: one row per record of every kind, fixed leading columns, flattened fields."""

from __future__ import annotations

import json

import pandas as pd

from conftest import EMULATED, fixture_lines

LEADING = ["file", "line", "kind", "reason", "schema_version"]


def test_one_row_per_record(full):
    df = pd.read_csv(full.csv)
    lines = fixture_lines(*EMULATED)
    assert len(df) == len(lines) == 206
    assert df["kind"].value_counts().to_dict() == {"run": 188, "aggregate": 12, "warmup": 4, "skipped": 2}
    assert list(df.columns[:5]) == LEADING
    first = df.iloc[0]
    assert first["file"].endswith("single.jsonl") and first["line"] == 1


def test_columns_grouped_config_context_metrics(full):
    cols = list(pd.read_csv(full.csv, nrows=1).columns)
    groups = [c.split(".", 1)[0] for c in cols[5:]]
    order = [g for i, g in enumerate(groups) if i == 0 or groups[i - 1] != g]
    assert order[:3] == ["config", "context", "metrics"], order
    for col in ["config.ds", "config.mode", "config.workload", "config.seed", "config.threads", "config.lock",
                "config.mem_node", "context.pmem", "context.hostname", "context.env.PMEM_IS_PMEM_FORCE",
                "metrics.ops_per_sec", "metrics.flushed_lines_per_op", "metrics.tx_bytes_per_op",
                "metrics.latency_update_p99_ns", "metrics.timeline_ops_per_sec", "metrics.ops_per_sec_mean",
                "sweep.name"]:
        assert col in cols, col
    assert "warmup" not in cols and "aggregate" not in cols and "skipped" not in cols


def test_values_round_trip(full):
    df = pd.read_csv(full.csv)
    skipped = df[df["kind"] == "skipped"]
    assert set(skipped["reason"]) == {"threads=8 with pin=compact needs 8 CPUs; 2 are online",
                                      "cpu_node 2 does not exist: the machine has 2 NUMA nodes"}
    timeline = df["metrics.timeline_ops_per_sec"].dropna()
    assert len(timeline) == 8 and all(len(json.loads(t)) == 10 for t in timeline)
    runs = df[df["kind"] == "run"]
    assert runs["metrics.ops_per_sec"].notna().all()
