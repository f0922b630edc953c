"""The report pipeline: records -> statistics -> figures -> files.

make(inputs, out_dir, csv_path) reads and validates every input (load.py),
computes per-configuration statistics from run records (stats.py), selects the
figures (figures.py; micro.py for `pmemids micro` records), writes
`out_dir/figures/<id>.png|svg` (plot.py) and `out_dir/index.html` (html_page.py, with seed
001's Table III from table3.py when the records hold cache-miss ratios of its
configurations), when the inputs hold verdicts of `pmemids reproduce`
`out_dir/reproduction.html` (reproduction.py), and, when asked, the CSV (export_csv.py).
It raises load.ReportError for bad input before writing anything.

Progress goes to `progress` (default: stderr), a line per step and per figure.
Figures are drawn by `jobs` worker processes (default: one per CPU, at most one
per figure); drawing is almost all of a report's time, and each figure is
independent of the others.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Callable

from . import (checks, export_csv, figures, html_page, micro, outputs, plot, reproduction, stats,
               table3, tables)
from .load import KINDS, Record, ReportError, read_records


def _stderr(line: str) -> None:
    print(f"pmemids report: {line}", file=sys.stderr, flush=True)


class WriteError(Exception):
    """Writing an output failed after the checks passed (a full disk, a race)."""


MANIFEST = ".pmemids-report-files"  # in --out: the files the last report wrote into figures/


def make(inputs: list[str], out_dir: Path, csv_path: Path | None = None, jobs: int | None = None,
         progress: Callable[[str], None] = _stderr, select: list[str] | None = None) -> Path:
    t0 = time.monotonic()
    outputs.check(out_dir, csv_path)
    records = selected(read_records(inputs), select or [])
    try:
        return _write(records, out_dir, csv_path, jobs, progress, t0)
    except OSError as e:
        raise WriteError(f"cannot write the report: {e}") from e


def parse_select(text: str) -> tuple[str, str]:
    key, eq, value = text.partition("=")
    if not eq or not key:
        raise ReportError(f"--select {text}", "expected KEY=VALUE (a config key and its value, "
                          "e.g. workload=workloada)")
    return key, value


def _text(v) -> str:
    return json.dumps(v) if isinstance(v, (dict, list, bool)) or v is None else str(v)


def selected(records: list[Record], select: list[str]) -> list[Record]:
    """The records whose config has every KEY=VALUE of select (verdicts are kept);
    ReportError when a filter keeps no measured record."""
    for text in select:
        key, value = parse_select(text)
        kept = [r for r in records if "config" not in r.data or _text(r.data["config"].get(key)) == value]
        if not any(r.kind in ("run", "micro") for r in kept):
            seen = sorted({_text(r.data["config"].get(key)) for r in records if "config" in r.data})
            raise ReportError(f"--select {text}", "no measured record matches; values of "
                              f"'{key}' in the inputs: {', '.join(seen[:20])}")
        records = kept
    return records


def _clean(fig_dir: Path, written: set[str]) -> None:
    """Removes the files the previous report wrote into fig_dir that this one did not
    (named in its manifest; never a file the report did not write), and records these."""
    manifest = fig_dir.parent / MANIFEST
    if manifest.is_file():
        for name in manifest.read_text().splitlines():
            path = fig_dir / name
            if name and "/" not in name and name not in written and path.is_file():
                path.unlink()
    manifest.write_text("".join(f"{n}\n" for n in sorted(written)))


def _write(records, out_dir: Path, csv_path: Path | None, jobs: int | None,
           progress: Callable[[str], None], t0: float) -> Path:
    run_rows = stats.runs(records)
    confs = stats.configurations(run_rows, records)
    if not run_rows.empty:
        # Timeline rows carry the configuration labels of the tables.
        run_rows = run_rows.merge(confs[["config_id", "label"]], on="config_id")
    specs = figures.select(confs, run_rows)
    progress(f"{len(records)} records, {len(confs)} configurations, {len(specs)} figures "
             f"({time.monotonic() - t0:.1f}s)")

    fig_dir = out_dir / "figures"
    fig_dir.mkdir(parents=True, exist_ok=True)
    if csv_path is not None:
        export_csv.write(records, csv_path)
    files = _render_all(specs, fig_dir, jobs, progress)
    shown = [{"id": spec.id, "title": spec.title, "caption": spec.caption,
              "png": files[spec.id][0], "svg": files[spec.id][1],
              "pivot": tables.pivot_table(spec), "table": tables.figure_table(spec)}
             for spec in specs]
    micro_points = micro.points(records)
    shown += [{"pivot": None, **f} for f in micro.figures(micro_points, fig_dir)]
    _clean(fig_dir, {f[k] for f in shown for k in ("png", "svg")})
    mixed = checks.mixes(records)
    if mixed:
        progress(mixed)

    inputs_summary = {}
    for r in records:
        # A micro record is a measured repetition too.
        kind = "run" if r.kind == "micro" else r.kind
        inputs_summary.setdefault(r.file, {"file": r.file, **{k: 0 for k in KINDS}})[kind] += 1
    counter_tables = table3.tables(confs)
    verdicts = reproduction.latest(records)
    if verdicts:
        reproduction.render(out_dir, verdicts, [f["id"] for f in shown] + [t.id for t in counter_tables])
    config_table, common = (tables.configurations_table(confs) if not confs.empty
                            else (tables.Table([], [], []), {}))
    index = html_page.render(
        out_dir,
        emulated=checks.emulated(records),
        total_runs=len(run_rows) + sum(1 for r in records if r.kind == "micro"),
        micro_points=len(micro_points),
        inputs=list(inputs_summary.values()),
        warnings=([mixed] if mixed else []) + checks.warnings(records, confs),
        environment=checks.environment(records), figures=shown,
        configurations=config_table, common=common, skipped=checks.skipped(records),
        counter_tables=counter_tables,
        csv=_relative(csv_path, out_dir),
        reproduction=reproduction.PAGE if verdicts else None, verdicts=len(verdicts))
    progress(f"done in {time.monotonic() - t0:.1f}s")
    return index


def _render_all(specs: list[figures.FigureSpec], fig_dir: Path, jobs: int | None,
                progress: Callable[[str], None]) -> dict[str, list[str]]:
    """{figure id: [png, svg]}, drawing in `jobs` processes."""
    jobs = min(jobs or os.cpu_count() or 1, len(specs))
    files: dict[str, list[str]] = {}
    if jobs <= 1:
        for i, spec in enumerate(specs, 1):
            t = time.monotonic()
            files[spec.id] = plot.render(spec, fig_dir)
            progress(f"[{i}/{len(specs)}] {spec.id} ({time.monotonic() - t:.1f}s)")
        return files
    # fork: the workers inherit the imported packages instead of importing them again.
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        pending = {pool.submit(_timed_render, spec, fig_dir): spec.id for spec in specs}
        for i, done in enumerate(as_completed(pending), 1):
            names, seconds = done.result()
            files[pending[done]] = names
            progress(f"[{i}/{len(specs)}] {pending[done]} ({seconds:.1f}s)")
    return files


def _timed_render(spec: figures.FigureSpec, fig_dir: Path) -> tuple[list[str], float]:
    t = time.monotonic()
    return plot.render(spec, fig_dir), time.monotonic() - t


def _relative(path: Path | None, base: Path) -> str | None:
    if path is None:
        return None
    return os.path.relpath(path.resolve(), base.resolve())
