"""The README's table of verdicts, from a verdicts.jsonl of `pmemids reproduce`.

    python -m pmemids_report.reproduce.table VERDICTS [--readme README.md] [--command TEXT]
                                                      [--claims DIR] [--update]

Prints a Markdown table (the last verdict of each claim, by id: its section, its verdict
with the measured outcome beside any label (verdict.display), and our numbers; the
seed's figures are on the report's reproduction page), above it a summary line counting
each verdict class (verdict.CLASSES, and `not run`) and, for claims decided in rounds,
a line of their rounds, why they stopped and their minutes (rounds_line), or, with --readme,
replaces what lies between the README's `<!-- reproduce-table:begin -->` and
`<!-- reproduce-table:end -->` lines with it. scripts/reproduce-table.sh runs the claims
and then this. With --update (and --readme), only the rows of the claims in VERDICTS
are replaced (or added, in id order); the other rows and the text above the table stay (its claim count updated),
and a sentence names the claims updated, when, at what load and with which command.
With --claims DIR, every claim file of DIR has a row: one without a verdict in VERDICTS
reads `not run` (no verdict made with this claim file). Exit 2 with a message for a
missing file, a record that is not a verdict, or a README without the markers (or,
with --update, without a table between them).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from . import claims as claims_mod
from .verdict import CLASSES, NOT_RUN, display, verdict_class

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


HEADER = ["| claim | seed, section | verdict (measured outcome beside any label) | ours (per check) |",
          "| --- | --- | --- | --- |"]
# The header before issue 25, recognised by --update.
OLD_HEADERS = ("| claim | seed, section | verdict | ours (per check) |",)
SUMMARY = "Verdicts: "


def _where(verdicts: list[dict]) -> str:
    """Scale(s), host, PMEM kind, load and time of the verdicts, as a phrase."""
    hosts = sorted({h for v in verdicts for h in v.get("hosts", [])})
    pmem = sorted({p for v in verdicts for p in v.get("pmem", [])})
    scales = sorted({v["scale"] for v in verdicts})
    stamp = max((v.get("timestamp", "") for v in verdicts), default="")
    loads = [v["load_average"][0] for v in verdicts if v.get("load_average") and v.get("hosts")]
    return (f"at scale {', '.join(scales)}"
            + (f", measured on {', '.join(hosts)} ({', '.join(pmem)} PMEM)" if hosts else "")
            + (f", load average {_span(loads)} when decided" if loads else "")
            + (f", {stamp}" if stamp else ""))


def _row(v: dict) -> str:
    c = v["claim"]
    shown = v.get("display") or display(v)
    return f"| {c['id']} | {_cell(c['section'])} | {_cell(shown)} | {_cell(v.get('ours'))} |"


def _not_run_row(claim) -> str:
    return (f"| {claim.id} | {_cell(claim.section)} | {NOT_RUN} (no verdict made with this claim "
            f"file yet) | – |")


def row_class(row: str) -> str:
    """The verdict class of a table row (its third cell), or `not run`."""
    cell = row.split(" | ")[2].replace("\\|", "|") if row.count(" | ") >= 3 else ""
    return NOT_RUN if cell.startswith(NOT_RUN) else verdict_class(cell)


def summary(rows: list[str]) -> str:
    """'Verdicts: 10 reproduced, 2 not reproduced, ..., 3 not run.': every class, in order."""
    counts = {k: 0 for k in (*CLASSES, NOT_RUN)}
    for r in rows:
        k = row_class(r)
        counts[k] = counts.get(k, 0) + 1
    return SUMMARY + ", ".join(f"{n} {k}" for k, n in counts.items()) + "."


def _with_claims(rows: dict[str, str], claims) -> dict[str, str]:
    return {**{c.id: _not_run_row(c) for c in claims}, **rows}


def rounds_line(verdicts: list[dict]) -> str:
    """'Rounds: 40 claims decided in rounds, 3-20 rounds (median 8); stopped: 25 decided,
    9 budget, 6 maximum; 0.1-3.2 minutes per claim (median 1.4).', or '' when none was."""
    rounds = [v for v in verdicts if v.get("rounds")]
    if not rounds:
        return ""
    ran = sorted(v["rounds"]["ran"] for v in rounds)
    stops = {k: sum(1 for v in rounds if v["rounds"]["stopped"] == k)
             for k in ("decided", "budget", "maximum", "records")}
    minutes = sorted(v["seconds"] / 60 for v in rounds if isinstance(v.get("seconds"), int | float))
    text = (f"Rounds: {len(rounds)} claims decided in rounds, {_span(ran)} rounds (median "
            f"{ran[len(ran) // 2]}); stopped: " + ", ".join(f"{n} {k}" for k, n in stops.items() if n))
    if minutes:
        text += (f"; {_span([round(m, 1) for m in minutes])} minutes per claim (median "
                 f"{minutes[len(minutes) // 2]:.1f})")
    return text + ".\n"


def markdown(verdicts: list[dict], command: str | None, claims=()) -> str:
    rows = _with_claims({v["claim"]["id"]: _row(v) for v in verdicts}, claims)
    body = [rows[k] for k in sorted(rows)]
    head = (f"{len(rows)} claims {_where(verdicts)}"
            + (f"; regenerate with `{command}`" if command else "") + ".")
    return (head + "\n" + summary(body) + "\n" + rounds_line(verdicts) + "\n"
            + "\n".join(HEADER + body) + "\n")


def updated(current: str, verdicts: list[dict], command: str | None, claims=()) -> str:
    """The table between the markers, `current`, with the rows of `verdicts` replaced."""
    lines = current.strip("\n").split("\n")
    found = [h for h in (HEADER[0], *OLD_HEADERS) if h in lines]
    if not found:
        raise TableError("--update: no table of verdicts between the markers to update")
    at = lines.index(found[0])
    rows = {ln.split("|")[1].strip(): ln for ln in lines[at + 2:] if ln.startswith("| ")}
    rows.update({v["claim"]["id"]: _row(v) for v in verdicts})
    if claims:
        known = {c.id for c in claims}
        rows = _with_claims({k: r for k, r in rows.items() if k in known}, claims)
    body = [rows[k] for k in sorted(rows)]
    ids = ", ".join(v["claim"]["id"] for v in verdicts)
    note = (f"The rows of {ids} were updated {_where(verdicts)}"
            + (f", with `{command}`" if command else "") + ".")
    head = [ln for ln in lines[:at] if ln.strip() and not ln.startswith(SUMMARY)]
    head = re.sub(r"^\d+ claims ", f"{len(rows)} claims ", "\n".join(head))
    return head + "\n" + note + "\n" + summary(body) + "\n\n" + "\n".join(HEADER + body) + "\n"


def _between(text: str, readme: Path) -> tuple[str, str, str]:
    if BEGIN not in text or END not in text or text.index(BEGIN) > text.index(END):
        raise TableError(f"{readme}: no '{BEGIN}' ... '{END}' lines to replace")
    before, rest = text.split(BEGIN, 1)
    current, after = rest.split(END, 1)
    return before, current, after


def splice(readme: Path, table) -> None:
    """Replaces the table between the markers by `table`, or by `table(current)`."""
    text = readme.read_text(encoding="utf-8")
    before, current, after = _between(text, readme)
    new = table(current) if callable(table) else table
    readme.write_text(f"{before}{BEGIN}\n{new}{END}{after}", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=PROG, description="The README's table of verdicts.")
    p.add_argument("verdicts", type=Path)
    p.add_argument("--readme", type=Path, help="replace the table between the markers of this file")
    p.add_argument("--command", help="the command that made the verdicts, named above the table")
    p.add_argument("--update", action="store_true",
                   help="with --readme: replace only the rows of the claims in VERDICTS")
    p.add_argument("--claims", type=Path, metavar="DIR",
                   help="a row for every claim file of DIR (not run: no verdict in VERDICTS); "
                        "with --update, rows of claims no longer in DIR are dropped")
    args = p.parse_args(argv)
    if args.update and not args.readme:
        p.error("--update needs --readme (the table to update)")
    try:
        verdicts = latest(args.verdicts)
        claims = claims_mod.load_dir(args.claims) if args.claims else ()
        if args.update:
            splice(args.readme, lambda current: updated(current, verdicts, args.command, claims))
        elif args.readme:
            splice(args.readme, markdown(verdicts, args.command, claims))
        else:
            print(markdown(verdicts, args.command, claims), end="")
    except claims_mod.ClaimError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    except TableError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
