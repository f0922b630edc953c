"""index.html: every figure with its table, the emulation banner, environment,
configurations with seeds, skipped configurations and warnings."""

from __future__ import annotations

import re

from conftest import EXPECTED


def section(html: str, id_: str) -> str:
    start = html.index(f'id="{id_}"')
    end = html.find("<h2", start)
    return html[start:end if end != -1 else len(html)]


def figure_section(html: str, fid: str) -> str:
    start = html.index(f'<section class="figure" id="{fid}">')
    return html[start:html.index("</section>", start)]


def test_every_figure_with_its_table(full):
    html = full.html
    for fid in EXPECTED:
        sec = figure_section(html, fid)
        assert f'src="figures/{fid}.png"' in sec and f'href="figures/{fid}.svg"' in sec
        assert '<table class="figure-table">' in sec, fid
        assert re.search(r"<tbody>\s*<tr>", sec), f"{fid}: empty table"
    assert html.count('<section class="figure"') == len(EXPECTED)


def test_throughput_tables_carry_per_op_costs(full):
    sec = figure_section(full.html, "fig3_single_thread")
    for col in ["Kops/s", "sd", "CV %", "95% CI ±", "flushed lines/op", "logged B/op", "persists/op"]:
        assert f">{col}</th>" in sec, col
    # 3 structures x 4 modes x 2 workloads
    table = sec[sec.index('<table class="figure-table">'):]
    assert table.count("<tr>") == 1 + 24


def test_latency_table_has_percentiles(full):
    sec = figure_section(full.html, "latency_update")
    for col in ["p50 (ns)", "p99.9 (ns)", "max (ns)", "mean (ns)"]:
        assert f">{col}</th>" in sec, col


def test_emulated_banner_only_when_emulated(full, real):
    assert 'id="emulated-banner"' in full.html
    assert full.html.index('id="emulated-banner"') < full.html.index("<h1>")
    assert "emulated-banner" not in real.html
    assert "PMEM was emulated" not in real.html


def test_environment(full, real):
    env = section(full.html, "environment")
    for needle in ["hostname", ">vm<", "pmdk_version", "1.12.1", "flush_instruction", "clwb"]:
        assert needle in env, needle
    assert "optane-host" in section(real.html, "environment")


def test_configurations_with_seeds(full):
    sec = section(full.html, "configurations")
    assert ">seeds</th>" in sec and ">warm-ups</th>" in sec
    rows = re.findall(r"<tr><td>(C\d+)</td>", sec)
    assert rows == [f"C{i}" for i in range(1, len(rows) + 1)]
    # single 24 + parallel 24 + concurrent 30 + numa 16
    assert len(rows) == 94
    assert "Settings shared by every configuration" in sec and "<code>seed" not in sec
    assert "<code>recordcount=2000</code>" in sec


def test_skipped_configurations_listed_with_reasons(full):
    sec = section(full.html, "skipped")
    assert "threads=8 with pin=compact needs 8 CPUs; 2 are online" in sec
    assert "cpu_node 2 does not exist: the machine has 2 NUMA nodes" in sec
    assert "concurrent.jsonl:61" in sec


def test_warnings(full, real):
    warnings = section(full.html, "warnings")
    assert "PMEM was emulated for 188 of 188 records" in warnings  # 48 + 48 + 60 + 32 run records
    assert "2 configurations were skipped" in warnings
    assert "vary by more than 5%" in warnings
    real_warnings = section(real.html, "warnings")
    assert "emulated" not in real_warnings


def test_input_summary_counts_kinds(full):
    html = full.html
    row = re.search(r"<td>[^<]*parallel.jsonl</td>((?:<td class=\"num\">\d+</td>){4})", html)
    assert row, "no parallel.jsonl row"
    assert re.findall(r">(\d+)<", row.group(1)) == ["48", "4", "12", "0"]
