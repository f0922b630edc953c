"""The README's table of verdicts, from a verdicts.jsonl of `pmemids reproduce`.

    python -m pmemids_report.reproduce.table VERDICTS [--readme README.md] [--command TEXT]

Prints a Markdown table (the last verdict of each claim, by id: its section, verdict and
our numbers; the seed's figures are on the report's reproduction page) or, with --readme,
replaces what lies between the README's `<!-- reproduce-table:begin -->` and
`<!-- reproduce-table:end -->` lines with it. scripts/reproduce-table.sh runs the claims
and then this. Exit 2 with a message for a missing file, a record that is not a
verdict, or a README without the markers.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

BEGIN, END = "<!-- reproduce-table:begin -->", "<!-- reproduce-table:end -->"
PROG = "pmemids_report.reproduce.table"


class TableError(Exception):
    pass


def latest(path: Path) -> list[dict]:
    last: dict[str, dict] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise TableError(f"{path}: cannot read: {e}") from e
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
            last[r["claim"]["id"]] = r
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise TableError(f"{path}:{n}: not a verdict record ({e})") from e
    return [last[k] for k in sorted(last)]


def _span(values: list[float]) -> str:
    lo, hi = min(values), max(values)
    return f"{lo:g}" if lo == hi else f"{lo:g}-{hi:g}"


def _cell(text) -> str:
    return (str(text) if text else "–").replace("|", "\\|").replace("\n", " ")


def markdown(verdicts: list[dict], command: str | None) -> str:
    hosts = sorted({h for v in verdicts for h in v.get("hosts", [])})
    pmem = sorted({p for v in verdicts for p in v.get("pmem", [])})
    scales = sorted({v["scale"] for v in verdicts})
    stamp = max((v.get("timestamp", "") for v in verdicts), default="")
    loads = [v["load_average"][0] for v in verdicts if v.get("load_average") and v.get("hosts")]
    head = (f"{len(verdicts)} claims at scale {', '.join(scales)}"
            + (f", measured on {', '.join(hosts)} ({', '.join(pmem)} PMEM)" if hosts else "")
            + (f", load average {_span(loads)} when decided" if loads else "")
            + (f", {stamp}" if stamp else "")
            + (f"; regenerate with `{command}`" if command else "") + ".")
    rows = ["| claim | seed, section | verdict | ours (per check) |", "| --- | --- | --- | --- |"]
    for v in verdicts:
        c = v["claim"]
        rows.append(f"| {c['id']} | {_cell(c['section'])} | {_cell(v['verdict'])} | {_cell(v.get('ours'))} |")
    return head + "\n\n" + "\n".join(rows) + "\n"


def splice(readme: Path, table: str) -> None:
    text = readme.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text or text.index(BEGIN) > text.index(END):
        raise TableError(f"{readme}: no '{BEGIN}' ... '{END}' lines to replace")
    before, rest = text.split(BEGIN, 1)
    _, after = rest.split(END, 1)
    readme.write_text(f"{before}{BEGIN}\n{table}{END}{after}", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=PROG, description="The README's table of verdicts.")
    p.add_argument("verdicts", type=Path)
    p.add_argument("--readme", type=Path, help="replace the table between the markers of this file")
    p.add_argument("--command", help="the command that made the verdicts, named above the table")
    args = p.parse_args(argv)
    try:
        table = markdown(latest(args.verdicts), args.command)
        if args.readme:
            splice(args.readme, table)
        else:
            print(table, end="")
    except TableError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
