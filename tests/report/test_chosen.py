"""Issue 31: a report groups by what the user chose, never by what pmemids derived or
grew (fields.GROWN_CONFIG_KEYS, fields.DERIVED_CONFIG_KEYS); short figure names with the
selection in the caption; only this report's figures in the output folder; footers with
the operation count that ran; Mops/s past 10,000 Kops/s; the emulated marker in the plot
area; `--select` and what a directory mixes. Synthetic variations of the checked-in
fixtures; about 10 s."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from conftest import FIXTURES, fixture_lines
from pmemids_report import micro
from pmemids_report.__main__ import main
from pmemids_report.load import read_records

PERSIST = [r for r in fixture_lines("micro.jsonl")
           if r["config"].get("bench") == "persist" and r["config"].get("op") == "persist"
           and r["config"].get("pattern") == "seq" and r["config"].get("threads") == 1
           and r.get("kind") == "micro"]


def single() -> list[dict]:
    """single.jsonl cut to two structures of one workload: fast to draw."""
    recs = fixture_lines("single.jsonl")
    first = recs[0]["config"]["workload"]
    return [r for r in recs if r["config"]["ds"] in ("hashtable", "btree") and r["config"]["workload"] == first]


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def report(tmp_path: Path, *args) -> tuple[int, Path]:
    out = tmp_path / "rep"
    return main([str(a) for a in args] + ["--out", str(out)]), out


def pngs(out: Path) -> list[str]:
    return sorted(p.name for p in (out / "figures").glob("*.png"))


def one_micro_call() -> list[dict]:
    """A `micro persist --op persist --size ... --min-time` call whose counts grew per point."""
    recs = copy.deepcopy(PERSIST)
    for i, r in enumerate(recs):
        r["config"].update(ops_per_thread=2000 * 2 ** i, ops_per_thread_asked=2000, min_time=0.05)
    return recs


def test_a_micro_call_whose_counts_grew_is_one_figure(tmp_path):
    assert len(PERSIST) >= 3
    rc, out = report(tmp_path, write(tmp_path / "m.jsonl", one_micro_call()))
    assert rc == 0
    assert pngs(out) == ["micro_persist_size.png"], pngs(out)
    svg = (out / "figures" / "micro_persist_size.svg").read_text()
    assert "per cache line" in svg  # the per-line latency is a panel of the same figure


def single_with_flush() -> list[dict]:
    recs = []
    for flush in ("clwb", "clflushopt"):
        for r in copy.deepcopy(single()):
            r["config"].update(flush=flush, flush_instruction=flush, flush_auto=False)
            recs.append(r)
    return recs


def test_run_figures_split_on_the_chosen_key_only_with_short_names(tmp_path):
    rc, out = report(tmp_path, write(tmp_path / "r.jsonl", single_with_flush()))
    assert rc == 0
    names = [n for n in pngs(out) if n.startswith("fig3")]
    assert len(names) == 2, names
    assert all("flush_auto" not in n and "flush_instruction" not in n for n in names), names
    assert all(len(n) <= 48 for n in pngs(out)), pngs(out)
    html = (out / "index.html").read_text()
    assert "flush=clwb" in html and "flush=clflushopt" in html  # the selection, in the caption


def test_the_output_folder_holds_only_this_reports_figures(tmp_path):
    rc, out = report(tmp_path, write(tmp_path / "r.jsonl", single_with_flush()))
    assert rc == 0
    (out / "figures" / "mine.png").write_bytes(b"user file")
    rc, out = report(tmp_path, write(tmp_path / "m.jsonl", one_micro_call()))
    assert rc == 0
    assert pngs(out) == ["micro_persist_size.png", "mine.png"], pngs(out)
    assert not list((out / "figures").glob("fig3*"))


def test_footers_say_the_operation_count_that_ran_and_axes_switch_to_mops(tmp_path):
    recs = single()
    for r in recs:
        r["config"]["operationcount"] = 1000
        r["metrics"]["operationcount"] = 250000  # grown by --min-time
        r["metrics"]["ops_per_sec"] *= 1000      # past 10,000 Kops/s
    rc, out = report(tmp_path, write(tmp_path / "r.jsonl", recs))
    assert rc == 0
    svg = (out / "figures" / "fig3_single_thread.svg").read_text()
    assert "250,000 operations" in svg and "1,000 operations" not in svg
    assert "throughput (Mops/s" in svg and "Kops/s" not in svg
    html = (out / "index.html").read_text()
    assert "whiskers: min–max" in html


def test_the_emulated_marker_is_in_every_panel_and_never_on_dram_only_records(tmp_path):
    recs = single()
    rc, out = report(tmp_path / "a", write(tmp_path / "r.jsonl", recs))
    assert rc == 0
    svg = (out / "figures" / "fig3_single_thread.svg").read_text()
    panels = len({(r["config"]["ds"], r["config"]["workload"]) for r in recs})  # a row per workload
    assert svg.count("EMULATED PMEM") == panels, svg.count("EMULATED PMEM")
    dram = [r for r in recs if r["config"]["mode"] == "dram"]
    assert dram and all(r["context"]["pmem"] == "emulated" for r in dram)
    rc, out = report(tmp_path / "b", write(tmp_path / "d.jsonl", dram))
    assert rc == 0
    assert "EMULATED PMEM" not in (out / "figures" / "fig3_single_thread.svg").read_text()
    rc, out = report(tmp_path / "c", write(tmp_path / "m.jsonl", one_micro_call()))
    assert (out / "figures" / "micro_persist_size.svg").read_text().count("EMULATED PMEM") == 2


def test_micro_titles_fit_sizes_on_log2_and_log_y_is_labelled():
    pts = micro.points(read_records([str(FIXTURES / "micro.jsonl")]))
    for fig in micro.select(pts):
        canvas = micro.draw(fig)
        renderer = canvas.canvas.get_renderer()
        box = canvas._suptitle.get_window_extent(renderer)
        assert box.x0 >= 0 and box.x1 <= canvas.bbox.width, fig.id
        for ax in canvas.axes:
            if ax.get_visible() and ax.get_xlabel().startswith(("size", "IO size", "io")) and fig.kind == "lines":
                assert ax.get_xscale() == "log", (fig.id, ax.get_xlabel())
            if ax.get_visible() and ax.get_yscale() == "log":
                assert "log scale" in ax.get_ylabel(), fig.id


def test_select_keeps_matching_records_and_a_directory_says_what_it_mixes(tmp_path, capsys):
    d = tmp_path / "results"
    d.mkdir()
    write(d / "a.jsonl", single())
    other = single()
    for r in other:
        r["config"]["workload"] = "workloadc"
        r["config"]["pmem_write_ns"] = 300
    write(d / "b.jsonl", other)
    rc, out = report(tmp_path, d)
    assert rc == 0
    err = capsys.readouterr().err
    mixed = next(line for line in err.splitlines() if "mixes" in line)
    assert "workloads: " in mixed and "pmemids-write" in mixed and "workloadc" in mixed, mixed
    assert "pmem_write_ns" in err and "--select" in err, err
    assert "mixes" in (out / "index.html").read_text()
    rc, out = report(tmp_path / "s", d, "--select", "workload=workloadc", "--select", "ds=btree")
    assert rc == 0
    assert pngs(out) and "hashtable" not in (out / "index.html").read_text()
    recs = read_records([str(d)])
    from pmemids_report import report as report_module
    kept = report_module.selected(recs, ["workload=workloadc", "ds=btree"])
    assert {(r.data["config"]["workload"], r.data["config"]["ds"]) for r in kept} == {("workloadc", "btree")}
    with pytest.raises(SystemExit) as bad:  # argparse: usage error, exit 2
        main([str(d), "--out", str(tmp_path / "x"), "--select", "nonsense"])
    assert bad.value.code == 2
    assert "--select" in capsys.readouterr().err
    assert main([str(d), "--out", str(tmp_path / "y"), "--select", "ds=nothing"]) == 2


def test_environment_lists_distinct_command_lines_with_counts(tmp_path):
    recs = single()
    for i, r in enumerate(recs):
        r["context"]["command_line"] = ["pmemids", "run", "--ds", r["config"]["ds"]]
    rc, out = report(tmp_path, write(tmp_path / "r.jsonl", recs))
    assert rc == 0
    html = (out / "index.html").read_text()
    env = html.split('id="environment"')[1].split("</table>")[0]
    n = sum(1 for r in recs if r["config"]["ds"] == "hashtable")
    assert f"pmemids run --ds hashtable ({n} records)" in env, env
    assert env.count("pmemids run --ds") == 2
