"""Layers that only point down (issue 27): a directory of src/ includes only itself
and the directories below it in LAYERS, and the public headers (include/pmemids/)
include nothing of src/. The order is written here once; docs/design.md ("Layers")
says what each layer holds."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Bottom first: a directory may include the directories listed before it. Files at
# src/'s top (errors.h) and the public headers (include/pmemids/) sit below all of them.
LAYERS = [
    "util",      # helpers with no domain: files, escapes, hashes, signals, capacity
    "host",      # this machine: thread placement (NUMA, pinning), the pool directory's probe
    "counters",  # cost counters, PMU, perf events, callgrind's cache simulation
    "stats",     # histograms, summaries, sampling, Mann-Whitney
    "report",    # the reporter interface: util, stats and counters only
    "workload",  # YCSB properties, key choosers, generated operation streams
    "pmem",      # persistence domains, flush instructions, policy, latency, libpmem hooks
    "backend",   # the four backends, pools, the crash checker's shadow
    "ds",        # the structures and their catalog
    "doctor",    # the machine probes behind `pmemids doctor`
    "options",   # option structs, lists and validators shared by cli, sweep and micro
    "run",       # running one structure: runner, crew, context, results
    "crash",     # the crash checker and its models
    "registry",  # the structure table (run and crash functions per mode), footprints
    "compare",   # `pmemids compare`
    "sweep",     # sweep files, expansion, rounds, resume
    "micro",     # the micro-benchmarks
    "cli",       # the commands
]
RANK = {d: i for i, d in enumerate(LAYERS)}
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]', re.M)


def includes(path: Path) -> list[tuple[int, str]]:
    text = path.read_text(errors="replace")
    return [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in INCLUDE.finditer(text)]


def upward_includes(src: Path) -> list[str]:
    """`file:line -> include` for every include of src/ that does not point down."""
    dirs = {p.name for p in src.iterdir() if p.is_dir()}
    bad = []
    for f in sorted(src.rglob("*")):
        if f.suffix not in (".h", ".cc"):
            continue
        parts = f.relative_to(src).parts
        rank = RANK.get(parts[0], len(LAYERS)) if len(parts) > 1 else -1
        for line, inc in includes(f):
            target = inc.split("/")[0]
            if "/" not in inc or target not in dirs or target == parts[0]:
                continue
            if RANK.get(target, len(LAYERS)) > rank:
                bad.append(f"{f.relative_to(src.parent)}:{line} -> {inc}")
    return bad


def internal_includes(public: Path, src: Path) -> list[str]:
    """`file:line -> include` for every include of a public header that names src/."""
    dirs = {p.name for p in src.iterdir() if p.is_dir()}
    tops = {p.name for p in src.iterdir() if p.is_file()}
    return [f"{f.relative_to(public.parent.parent)}:{line} -> {inc}"
            for f in sorted(public.glob("*.h")) for line, inc in includes(f)
            if inc.split("/")[0] in dirs or inc in tops]


def test_every_directory_of_src_has_a_layer():
    dirs = sorted(p.name for p in (REPO / "src").iterdir() if p.is_dir())
    assert not set(dirs) - set(LAYERS), f"place these in LAYERS: {sorted(set(dirs) - set(LAYERS))}"


def test_includes_point_down():
    bad = upward_includes(REPO / "src")
    assert not bad, "includes that point up (see LAYERS):\n" + "\n".join(bad)


def test_the_public_headers_include_nothing_internal():
    bad = internal_includes(REPO / "include" / "pmemids", REPO / "src")
    assert not bad, "public headers including internal ones:\n" + "\n".join(bad)


def test_an_upward_include_is_caught(tmp_path):
    for d in ("ds", "crash", "util"):
        (tmp_path / "src" / d).mkdir(parents=True)
    (tmp_path / "src" / "ds" / "stack.h").write_text(
        '#include "util/fnv1a.h"\n#include "crash/models.h"\n')
    (tmp_path / "src" / "crash" / "models.h").write_text('#include "ds/stack.h"\n#include "errors.h"\n')
    (tmp_path / "src" / "errors.h").write_text("#pragma once\n")
    assert upward_includes(tmp_path / "src") == ["src/ds/stack.h:2 -> crash/models.h"]
    (tmp_path / "include" / "pmemids").mkdir(parents=True)
    (tmp_path / "include" / "pmemids" / "index.h").write_text(
        '#include <cstdint>\n#include "pmemids/errors.h"\n#include "ds/stack.h"\n#include "errors.h"\n')
    assert internal_includes(tmp_path / "include" / "pmemids", tmp_path / "src") == [
        "include/pmemids/index.h:3 -> ds/stack.h", "include/pmemids/index.h:4 -> errors.h"]


def test_the_example_compiles_against_the_public_headers_alone(tmp_path):
    compiler = shutil.which("g++-12") or shutil.which("c++")
    assert compiler, "no C++ compiler on PATH"
    headers = sorted((REPO / "include" / "pmemids").glob("*.h"))
    tu = tmp_path / "public.cc"
    tu.write_text("".join(f'#include "pmemids/{h.name}"\n' for h in headers)
                  + '#include "linear_probing.h"\n')
    p = subprocess.run([compiler, "-std=c++20", "-fsyntax-only", "-I", str(REPO / "include"),
                        "-I", str(REPO / "examples/linear-probing"), str(tu)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
