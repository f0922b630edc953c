"""The report pipeline: records -> statistics -> figures -> files.

make(inputs, out_dir, csv_path) reads and validates every input (load.py),
computes per-configuration statistics from run records (stats.py), selects the
figures (figures.py), writes `out_dir/figures/<id>.png|svg` (plot.py) and
`out_dir/index.html` (html_page.py), when the inputs hold verdicts of `pmemids
reproduce` `out_dir/reproduction.html` (reproduction.py), and, when asked, the CSV
(export_csv.py).
It raises load.ReportError for bad input before writing anything.
"""

from __future__ import annotations

import os
from pathlib import Path

from . import checks, export_csv, figures, html_page, outputs, plot, reproduction, stats, tables
from .load import KINDS, read_records


class WriteError(Exception):
    """Writing an output failed after the checks passed (a full disk, a race)."""


def make(inputs: list[str], out_dir: Path, csv_path: Path | None = None) -> Path:
    outputs.check(out_dir, csv_path)
    records = read_records(inputs)
    try:
        return _write(records, out_dir, csv_path)
    except OSError as e:
        raise WriteError(f"cannot write the report: {e}") from e


def _write(records, out_dir: Path, csv_path: Path | None) -> Path:
    run_rows = stats.runs(records)
    confs = stats.configurations(run_rows, records)
    if not run_rows.empty:
        # Timeline rows carry the configuration labels of the tables.
        run_rows = run_rows.merge(confs[["config_id", "label"]], on="config_id")
    specs = figures.select(confs, run_rows)

    fig_dir = out_dir / "figures"
    fig_dir.mkdir(parents=True, exist_ok=True)
    if csv_path is not None:
        export_csv.write(records, csv_path)
    shown = []
    for spec in specs:
        png, svg = plot.render(spec, fig_dir)
        shown.append({"id": spec.id, "title": spec.title, "caption": spec.caption,
                      "png": png, "svg": svg, "table": tables.figure_table(spec)})

    inputs_summary = {}
    for r in records:
        inputs_summary.setdefault(r.file, {"file": r.file, **{k: 0 for k in KINDS}})[r.kind] += 1
    verdicts = reproduction.latest(records)
    if verdicts:
        reproduction.render(out_dir, verdicts, [f["id"] for f in shown])
    config_table, common = (tables.configurations_table(confs) if not confs.empty
                            else (tables.Table([], [], []), {}))
    return html_page.render(
        out_dir,
        emulated=checks.emulated(records), total_runs=len(run_rows),
        inputs=list(inputs_summary.values()), warnings=checks.warnings(records, confs),
        environment=checks.environment(records), figures=shown,
        configurations=config_table, common=common, skipped=checks.skipped(records),
        csv=_relative(csv_path, out_dir),
        reproduction=reproduction.PAGE if verdicts else None, verdicts=len(verdicts))


def _relative(path: Path | None, base: Path) -> str | None:
    if path is None:
        return None
    return os.path.relpath(path.resolve(), base.resolve())
