"""What this machine and this pmemids binary can show, for a claim's `needs`.

Asked, never assumed: the binary's sub-commands from `pmemids --help`, its structures
from `pmemids list`, a command's options from `pmemids <command> --help`; NUMA nodes
from /sys/devices/system/node/online; usable CPUs from the affinity mask; a hardware
PMU when the kernel lists a CPU event source with a cycles event
(/sys/bus/event_source/devices/*/events/cpu-cycles, as perf uses); SMT from
/sys/devices/system/cpu/smt/active (else a core's thread siblings); tools on PATH.

missing(needs) returns the reason a claim is not measurable here ("needs 'pmemids
micro' (not built)", "1 NUMA node (needs 2)", ...), or None. `media` is not in it: a
media claim is run and then labelled (see verdict.py).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from .claims import Needs

SYS = Path("/sys")
HELP_TIMEOUT_S = 30


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def count_list(text: str) -> int:
    """Members of a kernel list such as '0-3,8,10-11'."""
    n = 0
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        lo, _, hi = part.partition("-")
        n += int(hi) - int(lo) + 1 if hi else 1
    return n


@dataclass
class Machine:
    binary: str
    sys: Path = SYS

    def _help(self, *args: str) -> str:
        try:
            p = subprocess.run([self.binary, *args], capture_output=True, text=True,
                               timeout=HELP_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired):
            return ""
        return p.stdout if p.returncode == 0 else ""

    @cached_property
    def commands(self) -> set[str]:
        """Sub-commands listed under 'Subcommands:' in `pmemids --help`."""
        text = self._help("--help")
        out, inside = set(), False
        for line in text.splitlines():
            if line.strip().lower().startswith("subcommands"):
                inside = True
                continue
            if inside:
                m = re.match(r"\s+([a-z][a-z0-9-]*)\s", line + " ")
                if m:
                    out.add(m.group(1))
                elif line.strip():
                    inside = False
        return out

    @cached_property
    def structures(self) -> set[str]:
        """First words of the lines of `pmemids list` that name a structure."""
        out = set()
        for line in self._help("list").splitlines():
            m = re.match(r"\s*([a-z][a-z0-9-]*)\s", line + " ")
            if m:
                out.add(m.group(1))
        return out

    def has_option(self, command: str, option: str) -> bool:
        if command not in self.commands:
            return False
        return re.search(rf"(^|[\s,]){re.escape(option)}([\s,=]|$)", self._help(command, "--help"),
                         re.MULTILINE) is not None

    @cached_property
    def numa_nodes(self) -> int:
        text = _read(self.sys / "devices/system/node/online")
        return count_list(text) if text else 1

    @cached_property
    def cores(self) -> int:
        try:
            return len(os.sched_getaffinity(0))
        except OSError:
            return os.cpu_count() or 1

    @cached_property
    def pmu(self) -> bool:
        root = self.sys / "bus/event_source/devices"
        try:
            sources = list(root.iterdir())
        except OSError:
            return False
        return any((s / "events" / name).exists() for s in sources
                   for name in ("cpu-cycles", "cpu_cycles", "cycles"))

    @cached_property
    def smt(self) -> bool:
        active = _read(self.sys / "devices/system/cpu/smt/active")
        if active is not None:
            return active == "1"
        siblings = _read(self.sys / "devices/system/cpu/cpu0/topology/thread_siblings_list")
        return siblings is not None and count_list(siblings) > 1

    def missing(self, needs: Needs) -> str | None:
        reasons = []
        for c in needs.commands:
            if c not in self.commands:
                reasons.append(f"needs 'pmemids {c}' (not built)")
        for s in needs.structures:
            if s not in self.structures:
                reasons.append(f"needs --ds {s} (not built)")
        for o in needs.options:
            command, option = o.split(" ", 1)
            if not self.has_option(command, option):
                reasons.append(f"needs 'pmemids {command} {option}' (not built)")
        for t in needs.tools:
            if shutil.which(t) is None:
                reasons.append(f"needs {t} (not on PATH)")
        if self.numa_nodes < needs.numa_nodes:
            reasons.append(f"{self.numa_nodes} NUMA node{'s' if self.numa_nodes != 1 else ''} "
                           f"(needs {needs.numa_nodes})")
        if self.cores < needs.cores:
            reasons.append(f"{self.cores} cores (needs {needs.cores})")
        if needs.pmu and not self.pmu:
            reasons.append("no PMU (hardware performance counters)")
        if needs.smt and not self.smt:
            reasons.append("no SMT (hyper-threads)")
        return "; ".join(reasons) if reasons else None
