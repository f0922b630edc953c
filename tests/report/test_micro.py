"""`pmemids micro` records in the report: loaded as their own kind, drawn as the
seeds draw them (against size on a log2 axis, heatmaps of differences in %),
with the hardware caveat on every figure, listed as repetitions, and their
skipped configurations shown with the reason."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from conftest import FIXTURES, fixture_lines, render
from pmemids_report import micro
from pmemids_report.load import ReportError, read_records

# The figures micro.jsonl (make_micro.sh) supports.
EXPECTED = {
    "micro_persist_size_threads-1", "micro_persist_threads_pattern-rand",
    "micro_store_size", "micro_copy_size_movnt_threshold-128", "micro_copy_size_movnt_threshold-256",
    "micro_copy_movnt", "micro_bandwidth_io_threads-1", "micro_bandwidth_io_threads-2",
    "micro_bandwidth_store_pstore", "micro_latency_hit", "micro_rmw_io", "micro_txlog_size",
    "micro_alloc_size", "micro_lock_ops",
}
CAVEAT = "media property: not expected on emulated PMEM"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    return render(tmp_path_factory.mktemp("micro"), "micro.jsonl")


def test_micro_records_load_as_their_own_kind():
    records = read_records([str(FIXTURES / "micro.jsonl")])
    kinds = {r.kind for r in records}
    assert kinds == {"micro", "aggregate", "skipped"}  # --repeat 2 wrote an aggregate
    assert all("ds" not in r.data["config"] for r in records)


def test_a_micro_record_needs_its_bench(tmp_path):
    line = fixture_lines("micro.jsonl")[0]
    del line["config"]["bench"]
    p = tmp_path / "bad.jsonl"
    p.write_text(json.dumps(line) + "\n")
    with pytest.raises(ReportError, match="config.bench"):
        read_records([str(p)])


def test_expected_micro_figures_with_the_caveat_on_each(rendered):
    ids = {i for i in rendered.figure_ids() if i.startswith("micro_")}
    assert ids == EXPECTED
    for fid in ids:
        svg = rendered.svg(fid)
        assert "Not expected here" in svg or fid in ("micro_store_size", "micro_txlog_size",
                                                      "micro_alloc_size", "micro_lock_ops",
                                                      "micro_latency_hit"), fid
    assert CAVEAT in rendered.svg("micro_rmw_io")
    assert "counters: EWR and RWR (DCPMM media counters) need hardware counters, never printed here" in rendered.svg("micro_rmw_io")


def test_sizes_on_a_log2_axis_and_series_per_op(rendered):
    svg = rendered.svg("micro_persist_size_threads-1")
    for label in ["size (bytes)", "throughput (Mops/s)", "pattern=seq", "pattern=rand", ">persist<",
                  ">flush<", ">2,048<"]:
        assert label in svg, label
    copy = rendered.svg("micro_copy_movnt")
    assert "movnt_threshold" in copy and "bandwidth (GiB/s)" in copy


def test_store_against_pstore_heatmap_is_the_difference_in_percent(rendered):
    svg = rendered.svg("micro_bandwidth_store_pstore")
    assert "threads" in svg and "IO size (bytes)" in svg
    pts = micro.points(read_records([str(FIXTURES / "micro.jsonl")]))
    bw = pts[pts["bench"] == "bandwidth"]
    fig = next(f for f in micro.select(pts) if f.id == "micro_bandwidth_store_pstore")
    threads, ios, cells = micro.heat_cells(fig, fig.data)
    assert threads == [1, 2] and ios == [64, 256, 1024, 4096]
    pick = lambda a, t, io: float(bw[(bw["access"] == a) & (bw["threads"] == t) & (bw["io"] == io)]["gib_per_sec"].iloc[0])  # noqa: E731
    assert cells[1][2] == pytest.approx(100 * (pick("pstore", 2, 1024) - pick("store", 2, 1024)) / pick("store", 2, 1024))
    table = micro.table(fig)
    assert table.columns == ["threads", "64 B", "256 B", "1024 B", "4096 B"] and len(table.rows) == 2


def test_repetitions_are_pooled_into_one_point():
    pts = micro.points(read_records([str(FIXTURES / "micro.jsonl")]))
    two = pts[(pts["bench"] == "persist") & (pts["threads"] == 2)]
    assert len(two) == 1 and two["n"].iloc[0] == 2 and not math.isnan(two["ops_per_sec_sd"].iloc[0])


def test_a_figure_never_pools_different_settings():
    pts = micro.points(read_records([str(FIXTURES / "micro.jsonl")]))
    for fig in micro.select(pts):
        if fig.kind != "lines":
            continue
        cells = fig.data[fig.panel + fig.series + [fig.x]].astype(str).agg("|".join, axis=1)
        assert cells.is_unique, fig.id


def test_micro_records_count_as_repetitions_and_skips_are_listed(rendered):
    html = rendered.html
    assert "emulated-banner" in html
    assert "micro_persist_size_threads-1" in html
    assert "bench=bandwidth" in html and "needs a second NUMA node" in html


def test_no_micro_records_no_micro_figures():
    assert micro.select(micro.points(read_records([str(FIXTURES / "single.jsonl")]))) == []
    assert micro.select(pd.DataFrame()) == []


def test_repetitions_min_time_grew_apart_are_one_point(tmp_path):
    """Fails on the old code: each repetition's --min-time growth of ops_per_thread made its
    own point, drawn at the grown count; the point is the count asked (fields.GROWN_CONFIG_KEYS)."""
    lines = [line for line in fixture_lines("micro.jsonl")
             if line.get("config", {}).get("bench") == "lock" and line["config"].get("kind") == "micro"]
    assert lines
    records = []
    for rep, grown in enumerate((65000, 70000, 90000)):
        line = json.loads(json.dumps(lines[0]))
        line["config"].update(repetition=rep, ops_per_thread=grown, ops_per_thread_asked=100, min_time=0.25)
        records.append(line)
    p = tmp_path / "grown.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in records))
    pts = micro.points(read_records([str(p)]))
    assert len(pts) == 1 and pts["n"].iloc[0] == 3 and pts["ops_per_thread"].iloc[0] == 100
    assert "ops_per_thread_asked" not in pts.columns
