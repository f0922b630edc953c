"""Two or more passes of `pmemids reproduce --all` side by side (issue 26's publication).

    python -m pmemids_report.reproduce.passes LABEL=VERDICTS [LABEL=VERDICTS ...]

Each VERDICTS is a verdicts.jsonl (its last verdict per claim, as the README's table reads
it). Prints a Markdown table with a column per pass: the claims that were decided (their
sweeps ran in rounds and what they require was met: a claim not measurable here, for want
of hardware or because a requirement such as the working set's size failed, is counted
apart), the count of each measured outcome among them (reproduced, not reproduced, within noise: the outcome the
checks gave, whatever label the verdict carries), the share within noise, rounds per claim,
why the rounds stopped, minutes per claim, the load averages the verdicts recorded and
how many groups of rates among them were decided on their runs' own time (evaluate.py;
n/a for verdicts made before groups said their basis).
Below it, for each pair of passes, the claims both decided (reproduced or not reproduced)
and whether they agree, naming those that do not. Exit 2 with a message for a missing file,
a record that is not a verdict or an argument without its LABEL=.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from itertools import combinations
from pathlib import Path

from .table import TableError, latest
from .verdict import NOISE, NOT_MEASURABLE, NOT_REPRODUCED, REPRODUCED, SANITY

PROG = "pmemids_report.reproduce.passes"
DECIDED = (REPRODUCED, NOT_REPRODUCED)
STOPS = ("decided", "budget", "maximum", "records")


def ran(verdicts: list[dict]) -> list[dict]:
    """The verdicts whose claim's sweeps ran in rounds."""
    return [v for v in verdicts if (v.get("rounds") or {}).get("ran")]


def runnable(verdicts: list[dict]) -> list[dict]:
    """The verdicts whose claim ran in rounds and was measurable here."""
    return [v for v in ran(verdicts) if v.get("class") != NOT_MEASURABLE]


def result(v: dict) -> str | None:
    """The claim's verdict class, or the measured outcome when a label took its place."""
    return v.get("class") if v.get("class") in (*DECIDED, NOISE, SANITY) else v.get("outcome")


def _median_span(values: list[float], fmt: str) -> str:
    if not values:
        return "n/a"
    lo, hi, mid = min(values), max(values), statistics.median(values)
    return f"{mid:{fmt}} ({lo:{fmt}}-{hi:{fmt}})"


def column(verdicts: list[dict]) -> dict[str, str]:
    """One pass's cells, by row name."""
    runs = runnable(verdicts)
    n = len(runs)
    outcome = {k: sum(1 for v in runs if result(v) == k) for k in (*DECIDED, NOISE, SANITY)}
    minutes = [v["seconds"] / 60 for v in runs if isinstance(v.get("seconds"), int | float)]
    loads = [v["load_average"][0] for v in runs if v.get("load_average")]
    stops = {k: sum(1 for v in runs if v["rounds"].get("stopped") == k) for k in STOPS}
    return {
        "claims decided here": str(n),
        "ran, a requirement not met": str(len(ran(verdicts)) - n),
        "not run (hardware, scale)": str(len(verdicts) - len(ran(verdicts))),
        **{k: str(c) for k, c in outcome.items()},
        "within noise, share": f"{outcome[NOISE] / n:.0%}" if n else "n/a",
        "rounds per claim, median (range)": _median_span([v["rounds"]["ran"] for v in runs], "g"),
        "stopped": ", ".join(f"{c} {k}" for k, c in stops.items() if c) or "n/a",
        "minutes per claim, median (range)": _median_span(minutes, ".1f"),
        "minutes, all claims": f"{sum(minutes):.0f}" if minutes else "n/a",
        "load average (1 min) at the verdicts": _median_span(loads, ".1f"),
        "groups of rates on own time": _own_time(runs),
    }


def _own_time(verdicts: list[dict]) -> str:
    """'12 of 40': the groups of rates (those with a basis) decided on own time."""
    groups = [g for v in verdicts for c in v.get("checks") or [] for g in c.get("groups") or []]
    if not any("basis" in g for g in groups):
        return "n/a"
    rates = [g["basis"] for g in groups if g.get("basis")]
    return f"{rates.count('own time')} of {len(rates)}"


def agreement(a: list[dict], b: list[dict]) -> tuple[int, list[str]]:
    """(claims both passes decided, those of them whose outcomes differ)."""
    left = {v["claim"]["id"]: result(v) for v in runnable(a)}
    right = {v["claim"]["id"]: result(v) for v in runnable(b)}
    both = sorted(k for k in left.keys() & right.keys()
                  if left[k] in DECIDED and right[k] in DECIDED)
    return len(both), [f"{k} ({left[k]} / {right[k]})" for k in both if left[k] != right[k]]


def markdown(passes: dict[str, list[dict]]) -> str:
    cols = {label: column(v) for label, v in passes.items()}
    rows = list(next(iter(cols.values())))
    out = ["| | " + " | ".join(cols) + " |", "| --- |" + " --- |" * len(cols)]
    out += [f"| {r} | " + " | ".join(c[r] for c in cols.values()) + " |" for r in rows]
    for (la, a), (lb, b) in combinations(passes.items(), 2):
        n, differ = agreement(a, b)
        text = f"\n{la} and {lb}: {n} claims decided in both, {n - len(differ)} agree"
        out.append(text + (f"; differ: {', '.join(differ)}." if differ else "."))
    return "\n".join(out) + "\n"


def _pass(arg: str) -> tuple[str, Path]:
    label, sep, path = arg.partition("=")
    if not sep or not label or not path:
        raise TableError(f"'{arg}': expected LABEL=VERDICTS (e.g. idle=results/idle/quick/verdicts.jsonl)")
    return label, Path(path)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=PROG, description="Passes of pmemids reproduce side by side.")
    p.add_argument("passes", nargs="+", metavar="LABEL=VERDICTS")
    args = p.parse_args(argv)
    try:
        passes = dict(_pass(a) for a in args.passes)
        print(markdown({label: latest(path) for label, path in passes.items()}), end="")
    except TableError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
