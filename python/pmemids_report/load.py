"""Reading and validating pmemids result files.

Inputs are JSON-lines files written by `pmemids run` or `pmemids sweep`, or
directories (every `*.jsonl` directly in them, by name). Each non-blank line is
one record, classified by its top-level flags:

  run        a measured repetition; the only kind that enters statistics
  warmup     `"warmup": true`: a discarded warm-up repetition
  aggregate  `"aggregate": true`: a sweep's summary of a configuration; never a
             repetition (the report recomputes statistics from run records)
  skipped    `"skipped": true`: a configuration that could not run; listed with
             its reason, never plotted
  failed     `"failed": true`: a sweep's record of a configuration whose run failed;
             listed with its reason, never plotted
  verdict    a `claim` object: a claim's verdict from `pmemids reproduce`; shown on
             the reproduction page, never a configuration
  micro      a measured repetition of `pmemids micro` (`"kind": "micro"`): drawn by
             micro.py, never pooled with run records (its warm-ups, aggregates,
             skipped and failed configurations take the kinds above)

Required fields (everything else is optional; unknown top-level keys are ignored):
  every record      schema_version == 1; config object with string ds and mode (not
                    verdicts; micro records, and sweeps' skipped or failed micro
                    configurations, `config.kind == "micro"`: string config.bench instead)
  run, warmup       context object; metrics object with a number ops_per_sec >= 0
  aggregate         metrics object
  skipped, failed   string reason
  verdict           claim object with a string id; string verdict and scale
  when present      config.threads an integer >= 1; config.cpu_node / config.mem_node
                    an integer or null

Any violation, a missing path, or an input without records raises ReportError
naming the file (and line).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

SCHEMA_VERSION = 1
KINDS = ("run", "warmup", "aggregate", "skipped", "failed", "verdict", "micro")
MAX_DEPTH = 64  # nesting of objects and lists in one record; pmemids writes 4


class ReportError(Exception):
    """An input problem; str() is '<file>[:<line>]: <what>'."""

    def __init__(self, file: str, what: str, line: int | None = None):
        super().__init__(f"{file}:{line}: {what}" if line is not None else f"{file}: {what}")


@dataclass(frozen=True)
class Record:
    file: str   # the path as found (argument, or directory entry)
    line: int   # 1-based
    kind: str   # one of KINDS
    data: dict  # the parsed JSON object


def expand_inputs(args: list[str]) -> list[Path]:
    """Files to read, in argument order; a directory contributes its *.jsonl by name.
    The same file given twice is read once."""
    paths: list[Path] = []
    for arg in args:
        p = Path(arg)
        if p.is_dir():
            found = sorted(p.glob("*.jsonl"))
            if not found:
                raise ReportError(arg, "directory contains no *.jsonl files")
            paths.extend(found)
        elif p.is_file():
            paths.append(p)
        elif p.exists():
            raise ReportError(arg, "not a regular file or directory")
        else:
            raise ReportError(arg, "no such file or directory")
    unique: dict[Path, Path] = {}
    for p in paths:
        unique.setdefault(p.resolve(), p)
    return list(unique.values())


def read_records(args: list[str]) -> list[Record]:
    """Every record of every input, validated, in file and line order."""
    records: list[Record] = []
    for path in expand_inputs(args):
        before = len(records)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ReportError(str(path), f"cannot read: {e}") from e
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                records.append(_parse(str(path), number, line))
        if len(records) == before:
            raise ReportError(str(path), "no records (empty file)")
    return records


def _parse(file: str, line: int, text: str) -> Record:
    def fail(what: str) -> ReportError:
        return ReportError(file, what, line)

    try:
        data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise fail(f"invalid JSON: {e.msg} (column {e.colno})") from e
    except ValueError as e:
        raise fail(f"invalid JSON: {e}") from e
    except RecursionError as e:
        raise fail(f"invalid JSON: nested more than {MAX_DEPTH} levels deep") from e
    if _depth(data) > MAX_DEPTH:
        raise fail(f"invalid JSON: nested more than {MAX_DEPTH} levels deep")
    if not isinstance(data, dict):
        raise fail(f"expected a JSON object, found {type(data).__name__}")
    if "schema_version" not in data:
        raise fail("missing field 'schema_version'")
    if data["schema_version"] != SCHEMA_VERSION:
        raise fail(f"unsupported schema_version {data['schema_version']!r} (this report reads {SCHEMA_VERSION})")

    if "claim" in data:
        return _verdict(file, line, data, fail)
    config = _object(data, "config", fail)
    is_micro = data.get("kind") == "micro" or config.get("kind") == "micro"
    if data.get("skipped") is True:
        kind = "skipped"
    elif data.get("failed") is True:
        kind = "failed"
    elif data.get("aggregate") is True:
        kind = "aggregate"
    elif data.get("warmup") is True:
        kind = "warmup"
    else:
        kind = "micro" if is_micro else "run"

    for key in ("bench",) if is_micro else ("ds", "mode"):
        if not isinstance(config.get(key), str):
            raise fail(f"missing field 'config.{key}' (a string)" if key not in config
                       else f"field 'config.{key}' must be a string")
    _optional_int(config, "threads", 1, fail)
    for key in ("cpu_node", "mem_node"):
        if config.get(key) is not None:
            _optional_int(config, key, 0, fail)

    if kind in ("run", "warmup", "micro"):
        _object(data, "context", fail)
        metrics = _object(data, "metrics", fail)
        value = metrics.get("ops_per_sec")
        if "ops_per_sec" not in metrics:
            raise fail("missing field 'metrics.ops_per_sec'")
        if is_micro and value is None:
            pass  # nothing completed in the window: not observed
        elif (isinstance(value, bool) or not isinstance(value, (int, float))
                or not math.isfinite(value) or value < 0):
            raise fail(f"field 'metrics.ops_per_sec' must be a finite number >= 0, found {value!r}")
    elif kind == "aggregate":
        _object(data, "metrics", fail)
    elif not isinstance(data.get("reason"), str):
        raise fail(f"missing field 'reason' (a string) on a {kind} record")
    return Record(file, line, kind, data)


def _verdict(file: str, line: int, data: dict, fail) -> Record:
    claim = _object(data, "claim", fail)
    if not isinstance(claim.get("id"), str):
        raise fail("missing field 'claim.id' (a string) on a verdict record")
    for key in ("verdict", "scale"):
        if not isinstance(data.get(key), str):
            raise fail(f"missing field '{key}' (a string) on a verdict record")
    return Record(file, line, "verdict", data)


def _no_constant(name: str):
    raise ValueError(f"'{name}' is not a number JSON allows")


def _depth(value) -> int:
    """Nesting depth of objects and lists, without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = list(v.values())
        if isinstance(v, list):
            deepest = max(deepest, d)
            if d <= MAX_DEPTH:
                stack.extend((x, d + 1) for x in v)
    return deepest


def _object(data: dict, key: str, fail) -> dict:
    if key not in data:
        raise fail(f"missing field '{key}'")
    if not isinstance(data[key], dict):
        raise fail(f"field '{key}' must be an object")
    return data[key]


def _optional_int(config: dict, key: str, minimum: int, fail) -> None:
    if key in config:
        v = config[key]
        if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
            raise fail(f"field 'config.{key}' must be an integer >= {minimum}, found {v!r}")
