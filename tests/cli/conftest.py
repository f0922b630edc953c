"""Fixtures for the pmemids CLI tests.

The binary is $PMEMIDS_BIN, or <repo>/build/pmemids. Every test gets its own pool
directory under /dev/shm (removed afterwards) and its own result file; every call
runs with a 30 s timeout so a hang is a failure, not a stuck suite.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WORKLOADS = REPO / "workloads"
TIMEOUT_S = 30

# A tiny workload: the suite must stay well under a minute.
TINY = ["-p", "recordcount=200", "-p", "operationcount=500"]
READ_ONLY = ["-p", "readproportion=1", "-p", "updateproportion=0"]

MODES = ["dram", "pmem-volatile", "pmem-persist", "pmem-trans"]


def binary_path() -> Path:
    return Path(os.environ.get("PMEMIDS_BIN") or REPO / "build" / "pmemids")


def _catalog() -> list[dict]:
    """The structures and their traits as the binary lists them (`pmemids list --json`):
    the tests name structures by trait, as the report does, never by a list of their own."""
    try:
        out = subprocess.run([str(binary_path()), "list", "--json"], capture_output=True,
                             text=True, timeout=TIMEOUT_S, check=True)
        return json.loads(out.stdout)
    except (OSError, subprocess.SubprocessError, json.JSONDecodeError) as e:
        pytest.exit(f"conftest: `{binary_path()} list --json` failed ({e}): build pmemids or "
                    "set PMEMIDS_BIN", returncode=2)


CATALOG = _catalog()


def names(keep) -> list[str]:
    """The listed structures (harness ones excepted) `keep(entry)` accepts, in list order."""
    return [e["ds"] for e in CATALOG if not e["harness"] and keep(e)]


def _durable(e: dict) -> bool:
    return bool({"pmem-persist", "pmem-trans"} & set(e["modes"]))


ORDERED = names(lambda e: e["operation_set"] == "ordered-kv")
STRUCTURES = names(lambda e: e["operation_set"] in ("kv", "ordered-kv"))
# The lock-free structures of seed 002 (queue and set; they synchronise themselves):
# volatile ones, durable ones (pmem-persist only), and those of them that are
# crash-consistent only under eADR.
_LOCK_FREE = ("queue", "set")
INTERNAL = names(lambda e: e["operation_set"] in _LOCK_FREE and not _durable(e))
DURABLE_INTERNAL = names(lambda e: e["operation_set"] in _LOCK_FREE and _durable(e))
EADR_ONLY = names(lambda e: e["domains"] == ["eadr"])
# Seed 004's stacks (operation set stack): the combining ones synchronise themselves,
# stack-lock runs under the concurrent mode's lock.
STACKS = names(lambda e: e["operation_set"] == "stack")
ALL_STRUCTURES = [e["ds"] for e in CATALOG]


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_records(out: Path) -> list[dict]:
    if not out.exists():
        return []
    return [json.loads(l) for l in out.read_text().splitlines() if l.strip()]


@dataclass
class Result:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    out: Path | None = None
    records: list[dict] = field(default_factory=list)      # whole --out file after the call
    new_records: list[dict] = field(default_factory=list)  # the ones this call appended

    def describe(self) -> str:
        return (f"pmemids {' '.join(self.args)}\n-> exit {self.returncode}\n"
                f"--- stdout ---\n{self.stdout}--- stderr ---\n{self.stderr}")

    def error_lines(self) -> list[str]:
        return [l for l in self.stderr.splitlines() if l.startswith("pmemids: error: ")]


class Pmemids:
    """Runs the binary. `run(...)` adds --pool-dir and --out unless given."""

    def __init__(self, binary: Path, pool_dir: Path, out: Path):
        self.binary = binary
        self.pool_dir = pool_dir
        self.out = out

    def __call__(self, *args: str, env: dict | None = None) -> Result:
        args = [str(a) for a in args]
        full_env = dict(os.environ)
        full_env.pop("PMEMIDS_POOL_DIR", None)
        if env:
            full_env.update(env)
        out = None
        if args and args[0] == "run":
            out = Path(args[args.index("--out") + 1]) if "--out" in args else self.out
        before = len(read_records(out)) if out else 0
        try:
            p = subprocess.run([str(self.binary), *args], capture_output=True, text=True,
                               timeout=TIMEOUT_S, env=full_env, cwd=self.out.parent)
        except subprocess.TimeoutExpired as e:
            pytest.fail(f"pmemids {' '.join(args)} did not finish within {TIMEOUT_S} s\n"
                        f"stdout: {e.stdout!r}\nstderr: {e.stderr!r}")
        res = Result(args, p.returncode, p.stdout, p.stderr, out)
        if out:
            res.records = read_records(out)
            res.new_records = res.records[before:]
        return res

    def run(self, *args: str, pool_dir: Path | None = None, out: Path | None = None,
            env: dict | None = None) -> Result:
        args = [str(a) for a in args]
        if "--pool-dir" not in args:
            args += ["--pool-dir", str(pool_dir or self.pool_dir)]
        if "--out" not in args:
            args += ["--out", str(out or self.out)]
        return self("run", *args, env=env)


@pytest.fixture(scope="session")
def binary() -> Path:
    b = binary_path()
    if not (b.is_file() and os.access(b, os.X_OK)):
        pytest.fail(f"pmemids binary not found at {b}: build it "
                    f"(ninja -C {REPO}/build pmemids) or set PMEMIDS_BIN")
    return b


@pytest.fixture
def pool_dir():
    d = Path(tempfile.mkdtemp(prefix="pmemids-test-", dir="/dev/shm"))
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def out_path(tmp_path: Path) -> Path:
    return tmp_path / "results.jsonl"


@pytest.fixture
def pmemids(binary: Path, pool_dir: Path, out_path: Path) -> Pmemids:
    return Pmemids(binary, pool_dir, out_path)
