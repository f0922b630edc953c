"""`--csv`: one tidy table, one row per input record of every kind.

Columns, in this order:
  file, line        where the record was read (line is 1-based)
  kind              run | warmup | aggregate | skipped | failed | verdict (see load.py)
  reason            why a skipped configuration did not run, or a failed one failed (empty otherwise)
  schema_version
  config.<key>      every config field (nested objects as config.<key>.<subkey>)
  context.<key>     every context field, likewise
  metrics.<key>     every metric, in the record's own units (ops_per_sec in ops/s)
  <other>.<key>     any other top-level object (e.g. sweep.*), likewise
Within each group columns appear in first-seen order; a record lacking a field
leaves it empty. Lists (e.g. metrics.timeline_ops_per_sec) are JSON text.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from .load import Record

LEADING = ["file", "line", "kind", "reason", "schema_version"]
GROUPS = ["config", "context", "metrics"]
FLAGS = {"warmup", "aggregate", "skipped", "failed"} | set(LEADING)  # represented by the leading columns


def _flatten(prefix: str, value, out: dict) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}.{k}", v, out)
    elif isinstance(value, list):
        out[prefix] = json.dumps(value)
    else:
        out[prefix] = value


def table(records: list[Record]) -> pd.DataFrame:
    rows = []
    for r in records:
        row = {"file": r.file, "line": r.line, "kind": r.kind, "reason": r.data.get("reason"),
               "schema_version": r.data["schema_version"]}
        for key, value in r.data.items():
            if key not in FLAGS:
                _flatten(key, value, row)
        rows.append(row)
    seen = list(dict.fromkeys(k for row in rows for k in row))
    group_of = lambda c: c.split(".", 1)[0]  # noqa: E731
    columns = (LEADING + [c for g in GROUPS for c in seen if group_of(c) == g and c not in LEADING]
               + [c for c in seen if c not in LEADING and group_of(c) not in GROUPS])
    return pd.DataFrame(rows, columns=columns)


def write(records: list[Record], path: Path) -> None:
    """Whole or not at all: written next to `path`, then renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.tmp")
    try:
        table(records).to_csv(temp, index=False)
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)
