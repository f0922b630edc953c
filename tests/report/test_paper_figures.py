"""Figures as the paper draws them: Fig. 3's grid of structure panels with modes
along x on one scale, whiskers that stay above zero, a footer with the scale,
oversubscribed points marked, a structure x mode pivot next to each figure, a
speedup column in scaling tables, the pool directory once, and progress."""

from __future__ import annotations

import json
import re

import matplotlib.pyplot as plt
from matplotlib.container import ErrorbarContainer
import pytest

from conftest import EMULATED, FIXTURES, fixture_lines
from pmemids_report import checks, figures, plot, stats, tables
from pmemids_report.__main__ import main
from pmemids_report.load import read_records
from test_html import figure_section

MODES = ["dram", "pmem-volatile", "pmem-persist", "pmem-trans"]


def specs_of(*paths) -> dict[str, figures.FigureSpec]:
    records = read_records([str(p) for p in paths])
    runs = stats.runs(records)
    confs = stats.configurations(runs, records)
    runs = runs.merge(confs[["config_id", "label"]], on="config_id")
    return {s.id: s for s in figures.select(confs, runs)}


def write(tmp_path, name: str, records: list[dict]):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_fig3_is_a_grid_of_structure_panels_with_modes_along_x_on_one_scale():
    spec = specs_of(FIXTURES / "single.jsonl")["fig3_single_thread"]
    assert (spec.row, spec.panel, spec.x) == ("workload", "ds", "mode")
    fig = plot._bars(spec)
    axes = [ax for ax in fig.get_axes() if ax.get_visible()]
    assert len(axes) == 2 * 3  # two workloads x three structures
    assert {ax.get_title(loc="left") for ax in axes} == {"hashtable", "btree", "btree-embedded"}
    assert all([t.get_text() for t in ax.get_xticklabels()] == MODES for ax in axes)
    assert len({ax.get_ylim() for ax in axes}) == 1 and len({ax.get_yscale() for ax in axes}) == 1
    # pmem-trans writes are far slower than dram reads: more than 20x apart, so log
    assert axes[0].get_yscale() == "log"
    plt.close(fig)


def spread_records() -> list[dict]:
    """hashtable dram with repetitions at 1 and 100 Kops/s: mean - sd < 0."""
    runs = [r for r in fixture_lines("single.jsonl") if r["config"]["ds"] == "hashtable"]
    for r in runs:
        if r["config"]["mode"] == "dram" and r["config"]["workload"] == "pmemids-write":
            r["metrics"]["ops_per_sec"] = 1e3 if r["config"]["repetition"] == 0 else 1e5
    return runs


def test_whiskers_are_min_max_and_never_cross_zero(tmp_path):
    spec = specs_of(write(tmp_path, "spread.jsonl", spread_records()))["fig3_single_thread"]
    row = spec.data[(spec.data["mode"] == "dram") & (spec.data["workload"] == "pmemids-write")].iloc[0]
    assert row["mean"] - row["sd"] < 0  # what ±1 sd would have drawn
    fig = plot._bars(spec)
    lows, highs = [], []
    for ax in fig.get_axes():
        for whiskers in [c for c in ax.containers if isinstance(c, ErrorbarContainer)]:
            for segment in whiskers.lines[2][0].get_segments():
                lows.append(min(segment[:, 1]))
                highs.append(max(segment[:, 1]))
    assert lows and min(lows) > 0
    div = plot.unit(spec)[0]  # Mops/s past 10,000 Kops/s
    assert pytest.approx(min(lows)) == 1e3 / div and pytest.approx(max(highs)) == max(
        r["max"] / div for _, r in spec.data.iterrows())
    plt.close(fig)


def test_every_figure_has_a_footer_with_scale_and_emulation(full, real):
    for fid in full.figure_ids():
        svg = full.svg(fid)
        assert re.search(r"2,000 records, 2,000 operations, \d(–\d)? repetitions? per point", svg), fid
        assert "emulated PMEM" in svg, fid
    svg = real.svg("fig3_single_thread")
    assert "2 repetitions per point" in svg and "emulated" not in svg


def test_oversubscribed_points_are_hollow_and_listed(full):
    svg = full.svg("fig6_parallel_pmemids-write")
    assert "more threads than CPUs" in svg
    sec = figure_section(full.html, "fig6_parallel_pmemids-write")
    table = sec[sec.index('<table class="figure-table">'):]
    header = re.findall(r"<th[^>]*>([^<]*)</th>", table)
    col, threads = header.index("oversubscribed"), header.index("threads")
    for row in re.findall(r"<tr>(.*?)</tr>", table)[1:]:
        cells = re.findall(r"<td[^>]*>([^<]*)</td>", row)
        assert (cells[col] == "yes") == (int(cells[threads]) > 2), cells  # the fixtures' 2 CPUs


def test_record_verdict_on_oversubscription_wins():
    ctx = {"cpus_online": 2}
    assert stats.oversubscribed({"threads": 4}, ctx, {}) is True
    assert stats.oversubscribed({"threads": 2}, ctx, {}) is False
    assert stats.oversubscribed({"threads": 4}, ctx, {"oversubscribed": False}) is False
    assert stats.oversubscribed({"threads": 1}, ctx, {"oversubscribed": True}) is True
    assert stats.oversubscribed({"threads": 4}, {}, {}) is False


def test_pivot_next_to_each_throughput_figure(full):
    spec = specs_of(*(FIXTURES / n for n in EMULATED))["fig3_single_thread"]
    pivot = tables.pivot_table(spec)
    assert pivot.columns == ["workload", "ds"] + MODES
    assert len(pivot.rows) == 2 * 3
    first = spec.data[(spec.data["ds"] == pivot.rows[0][1]) & (spec.data["mode"] == "dram")
                      & (spec.data["workload"] == pivot.rows[0][0])].iloc[0]
    assert pivot.rows[0][2] == tables.fmt_number(first["mean"] / 1e3)
    for fid in ["fig3_single_thread", "fig6_parallel_pmemids-write", "fig7_concurrent_pmemids-write", "latency_update"]:
        sec = figure_section(full.html, fid)
        assert 'class="pivot"' in sec, fid
        assert sec.index('class="pivot"') < sec.index('class="figure-table"'), fid
    assert 'class="pivot"' not in figure_section(full.html, "timeline")


def test_pivot_leaves_out_settings_that_follow_from_the_mode():
    spec = specs_of(FIXTURES / "concurrent.jsonl")["fig7_concurrent_pmemids-write"]
    pivot = tables.pivot_table(spec)
    assert "lock" in pivot.columns  # btree ran with two locks in two modes: a real row setting
    default_locks = spec.data[spec.data["ds"] == "hashtable"]
    only_defaults = figures.FigureSpec("x", "x", "", "bars", default_locks, panel="threads", x="ds")
    assert tables.pivot_table(only_defaults).columns == ["ds", "threads"] + MODES


def test_scaling_tables_have_a_speedup_column():
    spec = specs_of(FIXTURES / "parallel.jsonl")["fig6_parallel_pmemids-write"]
    table = tables.figure_table(spec)
    col = table.columns.index("speedup")
    df = spec.data.reset_index(drop=True)
    for i, (_, r) in enumerate(df.iterrows()):
        base = df[(df["ds"] == r["ds"]) & (df["mode"] == r["mode"]) & (df["threads"] == 1)].iloc[0]
        assert table.rows[i][col] == f"{r['mean'] / base['mean']:.2f}×"
    assert "speedup" not in tables.figure_table(specs_of(FIXTURES / "single.jsonl")["fig3_single_thread"]).columns


def test_records_without_single_thread_runs_get_their_figures():
    assert set(specs_of(FIXTURES / "parallel.jsonl")) == {"fig6_parallel_pmemids-write"}


def test_environment_lists_a_sweeps_pool_directory_once(tmp_path):
    recs = fixture_lines("single.jsonl")
    for i, r in enumerate(recs):
        r["context"]["pool_dir"] = f"/dev/shm/pmemids/sweep-{i:016x}"
    env = dict(checks.environment(read_records([str(write(tmp_path, "s.jsonl", recs))])))
    assert env["pool_dir"] == "/dev/shm/pmemids (a sweep-<config id> directory per configuration)"


def test_progress_on_stderr_and_the_same_figures_with_any_jobs(tmp_path, capsys):
    inputs = [str(FIXTURES / "single.jsonl"), str(FIXTURES / "parallel.jsonl")]
    assert main(inputs + ["--out", str(tmp_path / "one"), "--jobs", "1"]) == 0
    err = capsys.readouterr().err
    assert re.search(r"^pmemids report: \d+ records, \d+ configurations, (\d+) figures", err, re.M)
    n = int(re.search(r"(\d+) figures", err).group(1))
    assert [int(m) for m in re.findall(rf"^pmemids report: \[(\d+)/{n}\] ", err, re.M)] == list(range(1, n + 1))
    assert main(inputs + ["--out", str(tmp_path / "two"), "--jobs", "2"]) == 0
    one = sorted(p.name for p in (tmp_path / "one" / "figures").iterdir())
    assert one == sorted(p.name for p in (tmp_path / "two" / "figures").iterdir()) and len(one) == 2 * n


def test_jobs_must_be_positive(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main([str(FIXTURES / "single.jsonl"), "--out", str(tmp_path), "--jobs", "0"])
    assert e.value.code == 2 and "--jobs" in capsys.readouterr().err
