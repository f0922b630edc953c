"""The structure descriptor list, as `pmemids list --json` prints it.

The report keeps no list of structures or operation types of its own: their
names, order (the descriptor list's), operation sets and operation types come
from the binary. It is found as $PMEMIDS_BIN (which `pmemids report` sets to
itself), else <repo>/build/pmemids next to this package, else `pmemids` on
PATH. Without one the report cannot order or label structures: that is a usage
error (exit 2) naming what to set.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _candidates() -> list[str]:
    found = [os.environ.get("PMEMIDS_BIN") or "", str(REPO / "build" / "pmemids"),
             shutil.which("pmemids") or ""]
    return [c for c in found if c and os.access(c, os.X_OK)]


@functools.lru_cache(maxsize=1)
def entries() -> list[dict]:
    """Every entry of `pmemids list --json`, in the descriptor list's order."""
    for binary in _candidates():
        try:
            out = subprocess.run([binary, "list", "--json"], capture_output=True, text=True,
                                 timeout=60, check=True)
            return json.loads(out.stdout)
        except (OSError, subprocess.SubprocessError, json.JSONDecodeError):
            continue
    print("pmemids report: error: the structure list comes from `pmemids list --json`, but no "
          "pmemids binary was found: set PMEMIDS_BIN (or run `pmemids report`)", file=sys.stderr)
    raise SystemExit(2)


def structures() -> list[str]:
    """Structure names in the descriptor list's order, harness structures last."""
    return ([e["ds"] for e in entries() if not e.get("harness")] +
            [e["ds"] for e in entries() if e.get("harness")])


def op_types() -> list[str]:
    """Every operation type some structure executes, in first-listed order."""
    seen: list[str] = []
    for e in entries():
        for op in e.get("operations", []):
            if op not in seen:
                seen.append(op)
    return seen


def knobs() -> list[dict]:
    """Every knob some structure reads (the entries' "knobs": name, option, type, default,
    range or choices, help), once each, in first-listed order."""
    seen: dict[str, dict] = {}
    for e in entries():
        for k in e.get("knobs", []):
            seen.setdefault(k["name"], k)
    return list(seen.values())


def knobs_of(ds) -> set[str] | None:
    """The names of the knobs structure `ds` reads; None for a name the list does not know."""
    for e in entries():
        if e["ds"] == ds:
            return {k["name"] for k in e.get("knobs", [])}
    return None


def metrics() -> list[dict]:
    """Every metric some structure counts about itself (the entries' "metrics": name,
    help), once each, in first-listed order."""
    seen: dict[str, dict] = {}
    for e in entries():
        for m in e.get("metrics", []):
            seen.setdefault(m["name"], m)
    return list(seen.values())
