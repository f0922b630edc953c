"""Counting the cache-line flush instructions a process executed, from a callgrind
profile written with --dump-instr=yes: every executed instruction's count per
object, matched against the flush instructions objdump finds in that object
(clwb, clflushopt, clflush). Addresses in the profile are object-relative, as
objdump prints them."""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

FLUSHES = ("clwb", "clflushopt", "clflush")
_INSN = re.compile(r"\s*([0-9a-f]+):\s+(clwb|clflushopt|clflush)\b")
_OBJ = re.compile(r"(c?ob)=\((\d+)\)(?: (.*))?")


@cache
def flush_addresses(obj: str) -> dict[int, str]:
    if not Path(obj).is_file():
        return {}
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], capture_output=True,
                          text=True, check=False).stdout
    return {int(m.group(1), 16): m.group(2) for m in map(_INSN.match, text.splitlines()) if m}


def executed(profile: Path) -> dict[tuple[str, int], int]:
    """(object, address) -> times executed (self cost only: call lines are skipped)."""
    names: dict[str, str] = {}
    obj, addr, after_call = "", 0, False
    counts: dict[tuple[str, int], int] = {}
    for line in profile.read_text().splitlines():
        m = _OBJ.match(line)
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3)
            if m.group(1) == "ob":
                obj = names[m.group(2)]
            continue
        if line.startswith("calls="):
            after_call = True
            continue
        if not line or not (line[0].isdigit() or line[0] in "+-*"):
            continue
        tokens = line.split()
        pos = tokens[0]
        if pos.startswith("0x"):
            addr = int(pos, 16)
        elif pos[0] in "+-":
            step = int(pos[1:], 16) if pos[1:].startswith("0x") else int(pos[1:])
            addr += step if pos[0] == "+" else -step
        if after_call:  # the inclusive cost of a call, not this instruction's
            after_call = False
            continue
        counts[(obj, addr)] = counts.get((obj, addr), 0) + int(tokens[-1])
    return counts


def flush_count(profile: Path) -> dict[str, int]:
    """Executions of each flush instruction in the profile."""
    out = {name: 0 for name in FLUSHES}
    for (obj, addr), n in executed(profile).items():
        insn = flush_addresses(obj).get(addr)
        if insn:
            out[insn] += n
    return out
