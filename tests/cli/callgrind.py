"""Counting the persistence instructions a process executed, from a callgrind
profile written with --dump-instr=yes: every executed instruction's count per
object, matched against the instructions objdump finds in that object.
Addresses in the profile are object-relative, as objdump prints them.

  write-backs     clwb, clflushopt, clflush (pmemids' flush layer, libpmem's
                  flush functions)
  fences          sfence, mfence (pmemids' drain, libpmem's drain when it
                  writes back with clwb or clflushopt; with clflush libpmem's
                  drain is empty: clflush is ordered)
  non-temporal    movnt* / vmovnt* stores (pmemids' and libpmem's large copies)

entries(profile, object, symbol) counts calls of a function of an object: the
executions of its first instruction."""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

FLUSHES = ("clwb", "clflushopt", "clflush")
FENCES = ("sfence", "mfence")
_INSN = re.compile(r"\s*([0-9a-f]+):\s+(clwb|clflushopt|clflush|sfence|mfence|v?movnt\w*)\b")
_LABEL = re.compile(r"([0-9a-f]+) <([^@>]+)(@[^>]*)?>:")
_OBJ = re.compile(r"(c?ob)=\((\d+)\)(?: (.*))?")


@cache
def _disassembly(obj: str) -> tuple[dict[int, str], dict[str, int]]:
    """(address -> persistence instruction, symbol -> address) of an object."""
    if not Path(obj).is_file():
        return {}, {}
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], capture_output=True,
                          text=True, check=False).stdout
    insns, symbols = {}, {}
    for line in text.splitlines():
        if m := _INSN.match(line):
            insns[int(m.group(1), 16)] = m.group(2)
        elif (m := _LABEL.match(line)) and m.group(3) != "@plt":  # the definition, not its stub
            symbols.setdefault(m.group(2), int(m.group(1), 16))
    return insns, symbols


def flush_addresses(obj: str) -> dict[int, str]:
    return {a: i for a, i in _disassembly(obj)[0].items() if i in FLUSHES}


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


def instruction_counts(profile: Path) -> dict[tuple[str, str], int]:
    """(object file name, instruction) -> executions, for the persistence instructions
    (write-backs, fences, non-temporal stores)."""
    out: dict[tuple[str, str], int] = {}
    for (obj, addr), n in executed(profile).items():
        insn = _disassembly(obj)[0].get(addr)
        if insn:
            key = (Path(obj).name, insn)
            out[key] = out.get(key, 0) + n
    return out


def entries(profile: Path, object_name: str, symbol: str) -> int:
    """Calls of `symbol` in the object whose file name starts with `object_name`."""
    total = 0
    counts = executed(profile)
    for obj in {o for o, _ in counts}:
        if Path(obj).name.startswith(object_name):
            addr = _disassembly(obj)[1].get(symbol)
            if addr is not None:
                total += counts.get((obj, addr), 0)
    return total


def flush_count(profile: Path) -> dict[str, int]:
    """Executions of each flush instruction in the profile."""
    out = {name: 0 for name in FLUSHES}
    for (_, insn), n in instruction_counts(profile).items():
        if insn in FLUSHES:
            out[insn] += n
    return out
