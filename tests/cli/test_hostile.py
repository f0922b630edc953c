"""Hostile input, table-driven: every case of hostile_cases.toml runs the binary once.

A case names the arguments, the exit code, phrases the message must contain, and
files that must be unchanged (sha256 before and after) or absent afterwards. On
top of what a case states, every case asserts what holds for all of them: the
process ends by itself (30 s at most) and not by a signal; no Python traceback;
a refused command (exit != 0) creates, deletes and changes nothing in the pool
directory and appends no record.

Placeholders in args, setup and paths: {tmp} (the case's scratch directory),
{pools} (its pool directory), {out} ({tmp}/out.jsonl), {wl} (the repository's
workloads/), {ro} (a read-only file system, mounted for the case in a private
mount namespace), {tiny} (a tiny workload). `run` and `crash` get
--pool-dir {pools} and `run` --out {out} unless the case gives them.

Setup steps, in order:
  dir NAME | fifo NAME             a directory / FIFO at {tmp}/NAME
  file NAME TEXT                   a file with TEXT (TOML escapes: \\u0001, \\uFEFF ...)
  bytes NAME HEX                   a file with these bytes (not valid UTF-8, say)
  big NAME BYTES                   a file of BYTES bytes of 'x'
  symlink PATH TARGET              a symbolic link
  kept DS MODE ARGS...             `pmemids run --keep-pool` in {pools}
  flip PATH OFFSET                 invert the byte at OFFSET of a file
  truncate PATH BYTES              cut a file to BYTES
  copy SRC DST                     copy a file
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from conftest import REPO, TIMEOUT_S, WORKLOADS, read_records, sha256

CASES = tomllib.loads((Path(__file__).parent / "hostile_cases.toml").read_text())["case"]
TINY = "-p recordcount=200 -p operationcount=300"


def expand(text: str, env: dict) -> str:
    for k, v in env.items():
        text = text.replace("{" + k + "}", str(v))
    return text


def unshare_works() -> bool:
    try:
        return subprocess.run(["unshare", "-m", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def setup_step(step: str, env: dict, binary: Path) -> None:
    verb, _, rest = step.partition(" ")
    rest = expand(rest, env)
    tmp = Path(env["tmp"])
    if verb == "dir":
        (tmp / rest).mkdir(parents=True)
    elif verb == "fifo":
        os.mkfifo(tmp / rest)
    elif verb == "file":
        name, _, text = rest.partition(" ")
        (tmp / name).write_bytes(text.encode("utf-8", "surrogateescape"))
    elif verb == "bytes":
        name, hexdata = rest.split()
        (tmp / name).write_bytes(bytes.fromhex(hexdata))
    elif verb == "big":
        name, size = rest.split()
        (tmp / name).write_bytes(b"x" * int(size))
    elif verb == "symlink":
        path, target = rest.split()
        os.symlink(target, path)
    elif verb == "kept":
        ds, mode, *extra = shlex.split(rest)
        p = subprocess.run([str(binary), "run", "--ds", ds, "--mode", mode, "--keep-pool",
                            "--pool-dir", env["pools"], "--out", str(tmp / "setup.jsonl"),
                            *shlex.split(TINY), *extra],
                           capture_output=True, text=True, timeout=TIMEOUT_S)
        assert p.returncode == 0, p.stderr
    elif verb == "flip":
        path, offset = rest.split()
        with open(path, "r+b") as f:
            f.seek(int(offset))
            b = f.read(1)
            f.seek(int(offset))
            f.write(bytes([b[0] ^ 0xFF]))
    elif verb == "truncate":
        path, size = rest.split()
        os.truncate(path, int(size))
    elif verb == "copy":
        src, dst = rest.split()
        shutil.copyfile(src, dst)
    else:
        raise AssertionError(f"unknown setup step {step!r}")


def snapshot(d: Path) -> dict[str, str]:
    """Every regular file under d (symlinks and FIFOs by name only), with its hash."""
    out = {}
    for p in sorted(d.rglob("*")):
        if p.is_symlink() or not p.exists():
            out[str(p)] = "link"
        elif p.is_fifo():
            out[str(p)] = "fifo"
        elif p.is_file():
            out[str(p)] = sha256(p)
    return out


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_hostile(case, binary, tmp_path, pool_dir):
    env = {"tmp": tmp_path, "pools": pool_dir, "out": tmp_path / "out.jsonl", "wl": WORKLOADS,
           "ro": tmp_path / "ro", "tiny": TINY, "repo": REPO}
    for step in case.get("setup", []):
        setup_step(step, env, binary)
    args = shlex.split(expand(case["args"], env))
    if args and args[0] in ("run", "crash") and "--pool-dir" not in args:
        args += ["--pool-dir", str(pool_dir)]
    if args and args[0] == "run" and "--out" not in args:
        args += ["--out", str(env["out"])]
    cmd = [str(binary), *args]
    if case.get("readonly"):
        if not unshare_works():
            pytest.skip("no private mount namespace here (unshare -m) for a read-only file system")
        (tmp_path / "ro").mkdir()
        cmd = ["unshare", "-m", "sh", "-c",
               'mount -t tmpfs -o ro,size=1m tmpfs "$0" && exec "$@"', str(tmp_path / "ro"), *cmd]

    watched = [Path(expand(p, env)) for p in case.get("unchanged", [])]
    before = {p: sha256(p) for p in watched}
    pools_before = snapshot(pool_dir)
    records_before = len(read_records(env["out"]))
    environ = {k: v for k, v in os.environ.items() if k != "PMEMIDS_POOL_DIR"}
    environ.update(case.get("env", {}))
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=TIMEOUT_S, cwd=tmp_path, env=environ,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case['id']}: did not finish within {TIMEOUT_S} s: {shlex.join(cmd)}")
    stderr = p.stderr.decode("utf-8", "replace")
    what = f"{shlex.join(cmd)}\n-> exit {p.returncode}\n--- stderr ---\n{stderr}"

    assert p.returncode >= 0, f"killed by signal {-p.returncode}\n{what}"
    assert p.returncode == case["exit"], what
    assert "Traceback" not in stderr, what
    for phrase in case.get("says", []):
        assert expand(phrase, env) in stderr, f"{phrase!r} not in stderr\n{what}"
    for path in watched:
        assert sha256(path) == before[path], f"{path} changed\n{what}"
    for path in case.get("absent", []):
        assert not Path(expand(path, env)).exists(), f"{path} exists\n{what}"
    if case["exit"] != 0:
        assert snapshot(pool_dir) == pools_before, f"the pool directory changed\n{what}"
        assert len(read_records(env["out"])) == records_before, f"a record was appended\n{what}"
