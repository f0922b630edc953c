"""Shipped files (claims, sweeps) found by the binary's one rule, src/util/shipped_files.h:
the path as written or under the current directory, the referring file's directory and
its parents, $PMEMIDS_DATA, then the installed share directory (or the source tree of a
binary that was not installed). `pmemids locate` answers, so there is one implementation."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


class NotFound(Exception):
    """A name found nowhere (the message lists the places searched), or no binary."""


def binary() -> str:
    return os.environ.get("PMEMIDS_BIN") or str(REPO / "build" / "pmemids")


def locate(kind: str, names: list[str], referrer: Path | None = None) -> list[dict]:
    """Per name, a dict with path and hash. The binary's warnings (a name found in two
    places with different contents) are passed on to stderr."""
    cmd = [binary(), "locate", kind, *names] + (["--from", str(referrer)] if referrer else [])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except OSError as e:
        raise NotFound(f"cannot run {cmd[0]}: {e}") from e
    if p.returncode != 0:
        raise NotFound(p.stderr.strip().removeprefix("pmemids: error: ") or f"exit {p.returncode}")
    sys.stderr.write(p.stderr)
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
