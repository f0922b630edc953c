"""Command line: python -m pmemids_report FILE|DIR... --out DIR [--csv PATH] [--jobs N].

Exit 0 with the report written; exit 2 with `pmemids report: error: <file>:<line>:
<what>` on stderr (no line for file-level problems) for missing files, invalid
JSON, records without required fields, or bad arguments, and for an --out or
--csv that cannot be written (checked before anything is); exit 1 when writing
fails all the same. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .load import ReportError
from .outputs import non_empty

PROG = "pmemids report"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Figures (PNG, SVG), tables and index.html from pmemids JSON-lines results.")
    parser.add_argument("inputs", nargs="+", metavar="FILE|DIR",
                        help="result files, or directories whose *.jsonl files are all read")
    parser.add_argument("--out", required=True, type=non_empty(Path), metavar="DIR",
                        help="output directory: index.html and figures/ (created if missing)")
    parser.add_argument("--csv", type=non_empty(Path), metavar="PATH",
                        help="also write every record as one row of a CSV table")
    parser.add_argument("--jobs", type=_positive, metavar="N",
                        help="processes drawing figures (default: one per CPU)")
    parser.add_argument("--select", action="append", type=_select, metavar="KEY=VALUE",
                        help="only records whose config KEY has VALUE (repeatable: all must hold); "
                             "e.g. --select workload=workloada")
    args = parser.parse_args(argv)
    from . import report  # after parsing: --help stays fast
    try:
        index = report.make(args.inputs, args.out, args.csv, args.jobs, select=args.select)
    except ReportError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    except report.WriteError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1
    print(f"{PROG}: wrote {index}", file=sys.stderr)
    return 0


def _select(text: str) -> str:
    key, eq, _ = text.partition("=")
    if not eq or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE (a config key and its value), got {text!r}")
    return text


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number of processes, got {text!r}")
    return n


if __name__ == "__main__":
    sys.exit(main())
