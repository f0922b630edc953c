"""Figure selection and drawing: which figures the fixtures get, and what they show."""

from __future__ import annotations

import json

import matplotlib.pyplot as plt
import pytest

from conftest import EXPECTED, FIXTURES, fixture_lines
from pmemids_report import figures, plot, stats, style
from pmemids_report.load import read_records

MODES = ["dram", "pmem-volatile", "pmem-persist", "pmem-trans"]


def test_expected_figures_as_png_and_svg(full):
    assert full.figure_ids() == EXPECTED
    for fid in EXPECTED:
        png = (full.out / "figures" / f"{fid}.png").read_bytes()
        assert png.startswith(b"\x89PNG") and len(png) > 10_000, fid
        assert full.svg(fid).lstrip().startswith("<?xml"), fid


def test_single_thread_bars(full):
    svg = full.svg("fig3_single_thread")
    for label in MODES + ["hashtable", "btree", "btree-embedded", "throughput (Mops/s)",
                          "pmemids-write: 90% update, 10% insert, zipfian", "pmemids-read: 100% read, zipfian"]:
        assert label in svg, label
    assert "Single-thread throughput" in svg


def test_btree_variants_side_by_side(full):
    svg = full.svg("fig5_btree_node_size")
    for label in MODES + [">btree<", ">btree-embedded<"]:
        assert label in svg, label
    assert ">hashtable<" not in svg


def test_parallel_lines_per_structure(full):
    svg = full.svg("fig6_parallel_pmemids-write")
    for label in MODES + [">hashtable<", ">btree<", ">threads<", ">1<", ">2<", ">4<", "throughput (Mops/s"]:
        assert label in svg, label


def test_concurrent_fewest_and_most_threads(full):
    svg = full.svg("fig7_concurrent_pmemids-write")
    for label in MODES + [">1 thread<", ">4 threads<", "lock: pthread-dram", "lock: pthread-pmem", "lock: pmemobj"]:
        assert label in svg, label
    assert ">2 threads<" not in svg


def test_lock_study_only_pairs_with_several_locks(full):
    svg = full.svg("fig8_locks_pmemids-write")
    for label in ["pmem-volatile", "pmem-persist", "lock: pthread-pmem", ">btree<", ">threads<"]:
        assert label in svg, label
    for absent in [">dram<", ">pmem-trans<", ">hashtable<"]:
        assert absent not in svg, absent


def test_numa_local_vs_remote(full):
    svg = full.svg("fig9_numa")
    for label in MODES + ["local memory", "remote memory", ">hashtable<", ">btree<"]:
        assert label in svg, label


def test_latency_percentiles(full):
    svg = full.svg("latency_update")
    for label in MODES + [">99.9<", ">99.99<", ">max<", "update latency (ns)", "concurrent, 4 threads"]:
        assert label in svg, label


def test_timeline(full):
    svg = full.svg("timeline")
    assert "time (s)" in svg and "Throughput over time" in svg and ">hashtable<" in svg


def test_differing_settings_split_a_figure(tmp_path):
    bigger = []
    for r in fixture_lines("single.jsonl"):
        r["config"]["recordcount"] = 4000
        bigger.append(json.dumps(r))
    (tmp_path / "bigger.jsonl").write_text("\n".join(bigger) + "\n")
    records = read_records([str(FIXTURES / "single.jsonl"), str(tmp_path / "bigger.jsonl")])
    runs = stats.runs(records)
    specs = {s.id: s for s in figures.select(stats.configurations(runs, records), runs)}
    assert set(specs) == {"fig3_single_thread_recordcount-2000", "fig3_single_thread_recordcount-4000",
                          "fig5_btree_node_size_recordcount-2000", "fig5_btree_node_size_recordcount-4000"}
    spec = specs["fig3_single_thread_recordcount-4000"]
    assert spec.title.endswith("(recordcount=4000)")
    assert set(spec.data["recordcount"]) == {4000} and len(spec.data) == 24


def test_ids_of_many_differing_settings_stay_short_and_unique():
    # A reproduce report split by a dozen settings named files over NAME_MAX.
    long = {f"setting_{i}": "eadr-emulated" for i in range(20)}
    a = figures._id("latency_read", long)
    b = figures._id("latency_read", {**long, "setting_19": "adr"})
    assert len(a) <= style.ID_MAX and len(b) <= style.ID_MAX
    assert a != b and a.startswith("latency_read_")
    assert figures._id("fig3", {"recordcount": 2000}) == "fig3_recordcount-2000"


@pytest.mark.parametrize("values,log", [([1, 20], False), ([1, 21], True), ([5, 5000], True), ([0, 7], False)])
def test_log_scale_beyond_twenty_times(values, log):
    fig, ax = plt.subplots()
    plot._y_axis(ax, values, "y")
    assert (ax.get_yscale() == "log") == log
    assert ax.get_ylabel() == "y" + (", log scale" if log else "")
    plt.close(fig)


def test_mode_colours_are_the_same_everywhere(full):
    for fid in ["fig3_single_thread", "fig6_parallel_pmemids-write", "fig9_numa"]:
        svg = full.svg(fid)
        for colour in ["#0072b2", "#009e73", "#e69f00", "#d55e00"]:
            assert colour in svg.lower(), (fid, colour)
