"""Every command in the code blocks of README.md and docs/*.md runs as typed.

The commands are taken from fenced code blocks without a language or marked sh, bash,
shell or console: a line starting with `pmemids ` (continuation lines joined, a trailing
`# comment` dropped; lines starting with `pmemids: ` are output, not commands). They run
in document order (README.md first, then docs/*.md by name), each once, from one scratch
directory, as a reader who types them in a fresh shell after installing pmemids would:
a command may use what an earlier one made (quickstart.jsonl). A command fails the test
on a non-zero exit or a "short timed phase" warning (an invalid measurement).

Skipped, and counted as such:
- a block right after `<!-- docs-test: skip REASON -->` (REASON: long, install, cluster,
  hardware, placeholder, output), e.g. the set-up scripts and SLURM examples;
- a command whose trailing comment says `long:` (e.g. `# long: about 7 min`);
- a placeholder: a command holding `<...>`, `...` or an optional `[--flag]`.

The one small override (documented in CONTRIBUTING.md): a `pmemids run` of a shipped
pmemids-* workload that sets no recordcount gets `-p recordcount=100000` (the files
load a million records; timed phases stay above the 0.2 s threshold).

Cost: about 60-90 s on 2 cores; the counts are printed (pytest -s) and published in
CONTRIBUTING.md.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import REPO

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SKIP = re.compile(r"<!--\s*docs-test:\s*skip\s+(\w[\w-]*)")
SHELL_LANGS = {"", "sh", "bash", "shell", "console"}
# Commands: pmemids, and what must be marked (a checkout's scripts, a build, SLURM).
COMMAND = re.compile(r"\s*(pmemids |scripts/|build/pmemids |sbatch |cmake |ninja |for |PMEMIDS_\w+=)")
PLACEHOLDER = re.compile(r"<[^>]+>|\.\.\.|\[--?\w")
SMALL_RUN = ["-p", "recordcount=100000"]
# A timed phase this short is a docs command sized too small on any machine; one that
# is short but longer than this only ran on a faster machine than the docs were sized on
# (CI's eADR B-tree: 1M operations in 0.19 s), which the run itself flags to the user.
SHORT_FOR_ANY_MACHINE_S = 0.02
SHORT_PHASE = re.compile(r"short timed phase: ([0-9.]+) s")
TIMEOUT_S = 240


@dataclass
class Command:
    where: str       # file:line
    text: str        # as typed (comment dropped)
    skip: str | None  # why it does not run


def commands(path: Path) -> list[Command]:
    out: list[Command] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    block_skip, in_block, lang, pending = None, False, "", None
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            if not in_block:
                lang = line[3:].strip()
                in_block = True
                # A skip marker on the nearest non-blank line above the fence.
                j = i - 1
                while j >= 0 and not lines[j].strip():
                    j -= 1
                m = SKIP.search(lines[j]) if j >= 0 else None
                block_skip = m.group(1) if m else None
            else:
                in_block = False
            i += 1
            continue
        if not in_block or lang not in SHELL_LANGS or not COMMAND.match(line):
            i += 1
            continue
        start = i
        text = line
        while text.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text.rstrip()[:-1].rstrip() + " " + lines[i].strip()
        i += 1
        command, _, comment = text.partition(" #")
        command = command.strip()
        skip = block_skip
        if skip is None and "long:" in comment:
            skip = "long"
        if skip is None and PLACEHOLDER.search(command):
            skip = "placeholder"
        out.append(Command(f"{path.name}:{start + 1}", command, skip))
    return out


def small(words: list[str]) -> list[str]:
    if words[:2] != ["pmemids", "run"] or any(w.startswith("recordcount=") for w in words):
        return words
    wl = [words[k + 1] for k, w in enumerate(words[:-1]) if w in ("-P", "--workload")]
    if wl and all(Path(w).name.startswith("pmemids-") for w in wl):
        return words + SMALL_RUN
    return words


def too_short(stderr: str) -> bool:
    return any(float(s) < SHORT_FOR_ANY_MACHINE_S for s in SHORT_PHASE.findall(stderr))


def test_too_short_tells_a_docs_command_sized_too_small_from_a_fast_machine():
    warn = "pmemids: warning: btree pmem-persist rep 0: short timed phase: {} s (under 0.2 s)"
    assert too_short(warn.format("0.004"))
    assert not too_short(warn.format("0.194"))
    assert not too_short("pmemids: results appended to results/x.jsonl")


def test_every_docs_command_runs_as_typed(binary, tmp_path, capsys):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "pmemids").symlink_to(binary)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PMEMIDS_DATA", "PMEMIDS_POOL_DIR")}
    env["PATH"] = f"{bindir}:{env['PATH']}"
    pools = Path("/dev/shm") / f"pmemids-docs-{os.getpid()}"
    env["PMEMIDS_POOL_DIR"] = str(pools)
    pools.mkdir(exist_ok=True)
    ran, skipped, seen, failures = [], [], set(), []
    try:
        for doc in DOCS:
            for c in commands(doc):
                if c.skip:
                    skipped.append(c)
                    continue
                if c.text in seen:
                    continue  # the same command typed in two documents runs once
                seen.add(c.text)
                if not c.text.startswith("pmemids "):
                    failures.append(f"{c.where}: {c.text}\n  not a pmemids command a scratch "
                                    "directory can run: mark its block (docs-test: skip ...)")
                    continue
                words = small(shlex.split(c.text))
                p = subprocess.run(words, cwd=scratch, env=env, capture_output=True, text=True,
                                   timeout=TIMEOUT_S)
                ran.append(c)
                if p.returncode != 0 or too_short(p.stderr):
                    failures.append(f"{c.where}: {c.text}\n  exit {p.returncode}\n"
                                    + "\n".join("  " + l for l in p.stderr.splitlines()[-6:]))
    finally:
        shutil.rmtree(pools, ignore_errors=True)
    with capsys.disabled():
        print(f"\ndocs commands: {len(ran)} run as typed, {len(skipped)} skipped "
              f"({', '.join(f'{n} {r}' for r, n in sorted(_counts(skipped).items()))})")
    assert not failures, "\n".join(failures)
    assert len(ran) >= 20


def _counts(cs: list[Command]) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in cs:
        out[c.skip] = out.get(c.skip, 0) + 1
    return out


def test_the_extraction_reads_markers_and_placeholders(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text("\n".join([
        "```", "pmemids list   # structures", "pmemids run --ds <name> \\", "  --mode dram",
        "pmemids sweep s.toml   # long: 7 min", "pmemids: error: output, not a command", "```",
        "<!-- docs-test: skip cluster -->", "", "```", "pmemids list --json", "```",
        "```json", "pmemids not a shell block", "```"]))
    got = [(c.text, c.skip) for c in commands(doc)]
    assert got == [("pmemids list", None), ("pmemids run --ds <name> --mode dram", "placeholder"),
                   ("pmemids sweep s.toml", "long"), ("pmemids list --json", "cluster")]
