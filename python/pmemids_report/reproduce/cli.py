"""`pmemids reproduce`: the claims of the seed papers as runnable checks (docs/reproduce.md).

    pmemids reproduce --list [--coverage]           one line per claim [and the claim inventory's
                                                    counts per seed: inventory.py]
    pmemids reproduce --check [ID...]               every claim file validates, its sweeps expand
    pmemids reproduce ID [ID...] [--scale S] [--out DIR] [--budget D] [--max-rounds N]
    pmemids reproduce --all [--scale S] [--out DIR]
    pmemids reproduce ID... --from FILE|DIR         evaluate existing records (merged shards), run nothing

Running a claim: for each of its sweeps, `pmemids sweep FILE --scale S --out
DIR/S/<sweep name>.jsonl [--only ...] --interleave --rounds N` (resumable by the
sweep's own resume: a second invocation runs only what is missing), then the checks
over those records, with rounds added until the claim is decided (rounds.py); the
verdict is appended to DIR/S/verdicts.jsonl, then printed. At the end the report of
DIR/S (figures and the reproduction page) is written to DIR/S/report/.

Before a sweep runs, --out must be a directory or creatable (not a file, not on a
read-only file system), and each file records are appended to (the sweeps' outputs,
verdicts.jsonl) absent, empty or a pmemids result file (outputs.py).

Signals: each `pmemids sweep` runs in a process group of its own; SIGINT and SIGTERM
to this process are passed to that group, and this process waits for the sweep, which
stops its run, removes the run's pool directory and records nothing for it (exactly
the sweep's own handling), then exits 130 (SIGINT) or 143 (SIGTERM).

Exit codes: 0 every asked claim got a verdict (whatever it is); 2 bad arguments, a claim
file that does not validate (--check: any), an unusable --out, or a sweep that refuses
its file; 1 a runtime failure (the binary or a sweep could not run); 130 or 143
interrupted.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd

from .. import load, outputs
from ..outputs import non_empty
from ..stats import DEFAULTS
from . import claims as claims_mod
from . import rounds as rounds_mod
from . import shipped
from . import loadguard
from . import verdict as verdict_mod
from .claims import SCALES, Claim, ClaimError, Needs, SweepRef
from .evaluate import EvaluationError, matches
from .machine import Machine

PROG = "pmemids reproduce"


class UsageError(Exception):
    pass


class Interrupted(Exception):
    def __init__(self, sig: int = signal.SIGINT):
        super().__init__(signal.Signals(sig).name)
        self.sig = int(sig)


binary = shipped.binary


def locate(kind: str, names: list[str], referrer: Path | None = None) -> list[dict]:
    """shipped.locate, a name found nowhere being a usage error (exit 2)."""
    try:
        return shipped.locate(kind, names, referrer)
    except shipped.NotFound as e:
        raise UsageError(str(e)) from e


def claims_dir() -> Path:
    return Path(locate("claim", ["reproduce"])[0]["path"])


def resolve_files(claim: Claim) -> Claim:
    """The claim with its sweep files as the shipped-file rule finds them (a local
    sweeps/ copy first), and `files`: the claim and sweep files used, path and hash."""
    own = locate("claim", [str(Path(claim.path).resolve())])[0]
    # A claim waiting for a command names a sweep that ships with it (claims.load let it
    # be missing): it stays as written.
    shipped = [s for s in claim.sweeps if Path(s.file).is_file()]
    found = {s.written: f for s, f in zip(shipped, locate(
        "sweep", [s.written for s in shipped], referrer=claim.path) if shipped else [])}
    sweeps = tuple(dataclasses.replace(s, file=Path(found[s.written]["path"]))
                   if s.written in found else s for s in claim.sweeps)
    files = [{"path": f["path"], "hash": f["hash"]} for f in (own, *found.values())]
    return dataclasses.replace(claim, sweeps=sweeps, files=tuple(files))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog=PROG, description="Run the seed papers' claims and decide each with a verdict.")
    p.add_argument("ids", nargs="*", metavar="ID", help="claim ids (see --list) or claim files")
    p.add_argument("--list", action="store_true", help="one line per claim, then exit")
    p.add_argument("--coverage", action="store_true",
                   help="with --list: per seed, the paper's claims, those with a claim file and "
                        "those without (reproduce/inventory/inventory.toml)")
    p.add_argument("--check", action="store_true",
                   help="validate claim files: schema, predicates, metrics, sweeps expand (dry run)")
    p.add_argument("--all", action="store_true", help="every claim")
    p.add_argument("--scale", default="default", choices=SCALES,
                   help="the sweeps' scale: quick (about a minute per claim), default, paper")
    p.add_argument("--out", type=non_empty(Path), default=Path("results/reproduce"), metavar="DIR",
                   help="records, verdicts and report go to DIR/<scale>/ (default results/reproduce)")
    p.add_argument("--from", dest="sources", action="append", metavar="FILE|DIR",
                   help="evaluate these records (e.g. a directory of merged shards) instead of "
                        "running sweeps; repeatable")
    p.add_argument("--pool-dir", type=non_empty(str), metavar="DIR", help="passed to pmemids sweep")
    p.add_argument("--claims", type=Path, metavar="DIR",
                   help="claim files (default: reproduce/ found as shipped files are: the current "
                        "directory, $PMEMIDS_DATA, the installed share directory or the source tree)")
    p.add_argument("--no-report", action="store_true", help="do not write the report at the end")
    rounds_mod.add_arguments(p)
    args = p.parse_args(argv)
    if args.list and (args.ids or args.all or args.check):
        p.error("--list takes no claim ids, --all or --check")
    if args.coverage and not args.list:
        p.error("--coverage goes with --list")
    if args.all and args.ids:
        p.error("give claim ids or --all, not both")
    if not (args.list or args.check or args.all or args.ids):
        p.error("give claim ids, --all, --list or --check")
    return args


def select_claims(all_claims: list[Claim], ids: list[str]) -> list[Claim]:
    by_id = {c.id: c for c in all_claims}
    out = []
    for i in ids:
        if i.endswith(".toml"):
            out.append(claims_mod.load(Path(i)))
        elif i in by_id:
            out.append(by_id[i])
        else:
            raise UsageError(f"unknown claim '{i}'; accepted: an id from '{PROG} --list' or a claim file (.toml)")
    return list({c.id: c for c in out}.values())


_EXPECTED = re.compile(r"expected about ([0-9.]+) (s|min|h)")


def sweep_minutes(sweep: SweepRef, scale: str, bin_path: str) -> float | None:
    """The expected minutes of one sweep at `scale`, from `pmemids sweep --dry-run`'s
    estimate (src/sweep/estimate.h: calibrated on measured sweeps); None if it refuses."""
    cmd = [bin_path, "sweep", str(sweep.file), "--scale", scale, "--dry-run", *sweep.only_args()]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = _EXPECTED.search(p.stderr)
    if p.returncode != 0 or not m:
        return None
    return float(m.group(1)) * {"s": 1 / 60, "min": 1, "h": 60}[m.group(2)]


def estimated_minutes(claims: list[Claim], bin_path: str) -> dict[tuple[str, str], float]:
    """(claim id, scale) -> expected minutes, for every scale a claim runs at: the sum of
    its sweeps' estimates (a sweep two claims share is counted for each, as `reproduce
    ID` alone would run it)."""
    wanted = {(str(s.file), s.only, scale): s for c in claims for scale in c.scales
              for s in c.sweeps}
    with ThreadPoolExecutor(max_workers=4) as pool:
        done = dict(zip(wanted, pool.map(lambda k: sweep_minutes(wanted[k], k[2], bin_path), wanted)))
    out = {}
    for c in claims:
        for scale in c.scales:
            parts = [done[(str(s.file), s.only, scale)] for s in c.sweeps]
            if all(p is not None for p in parts):
                out[(c.id, scale)] = sum(parts)
    return out


def list_claims(all_claims: list[Claim], machine: Machine, bin_path: str) -> None:
    estimates = estimated_minutes(all_claims, bin_path)
    for c in all_claims:
        why = machine.missing(c.needs)
        here = f"  (here: not measurable: {why})" if why else ""
        print(c.list_line(estimates) + here)
    print(f"{len(all_claims)} claims; per scale the time measured (the claim file's [minutes]) "
          "or, when longer or not measured, ~ the sweeps' expected time (src/sweep/estimate.h)",
          file=sys.stderr)


def dry_run(claim: Claim, scale: str, bin_path: str) -> list[dict]:
    """The configurations of the claim's sweeps at `scale`, as option/property dicts."""
    configs = []
    for s in claim.sweeps:
        cmd = [bin_path, "sweep", str(s.file), "--scale", scale, "--dry-run", *s.only_args()]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            raise ClaimError(f"{claim.path}: sweep {s.written} --scale {scale}: "
                             f"{p.stderr.strip() or f'exit {p.returncode}'}")
        configs += [parse_run_line(line) for line in p.stdout.splitlines() if line.strip()]
        if not p.stdout.strip():
            raise ClaimError(f"{claim.path}: sweep {s.written} --scale {scale}: no configurations")
    return configs


def _typed(text: str):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_run_line(line: str) -> dict:
    """'pmemids run --ds btree --mode dram -p recordcount=5 ...' -> {ds: btree, ...}:
    option keys with underscores, workload files by name, numbers as numbers;
    'pmemids micro persist --size 8:*2:64 ...' -> {bench: persist, size: '8:*2:64', ...}
    (a micro option's value may list several values and ranges: see covers)."""
    words = shlex.split(line)
    out: dict = {}
    if len(words) > 2 and words[1] == "micro":
        out["bench"] = words[2]
        words = words[1:]
    words = words[2:]
    i = 0
    while i < len(words):
        w = words[i]
        if w == "-p" and i + 1 < len(words):
            k, _, v = words[i + 1].partition("=")
            out[k] = _typed(v)
            i += 2
        elif w.startswith("--"):
            key = w[2:].replace("-", "_")
            if i + 1 < len(words) and not words[i + 1].startswith("--") and words[i + 1] != "-p":
                out[key] = Path(words[i + 1]).name if key == "workload" else _typed(words[i + 1])
                i += 2
            else:
                out[key] = "true"
                i += 1
        else:
            i += 1
    return out


def _range_ends(part: str, n: float) -> tuple[float, float, str] | None:
    """A micro option's range item ('1:2', '1:*2:N', '0:0.1:1') as (low, high, step),
    N read as `n`; None when it is not a numeric range (a single value, a size with a
    suffix: left as written)."""
    ends = part.split(":")
    if len(ends) not in (2, 3):
        return None
    try:
        lo, hi = float(ends[0]), n if ends[-1] == "N" else float(ends[-1])
    except ValueError:
        return None
    return lo, hi, ends[1] if len(ends) == 3 else "1"


def _range(part: str, cpus: int) -> list | None:
    """A micro option's range item as its values (N: this machine's CPUs); None when it
    is not a numeric range."""
    ends = _range_ends(part, cpus)
    if ends is None:
        return None
    lo, hi, step = ends
    times = step.startswith("*")
    try:
        k = float(step[1:] if times else step)
    except ValueError:
        return None
    if k <= (1 if times else 0):
        return None
    out, v = [], lo
    while v <= hi + 1e-9:
        out.append(_typed(f"{v:g}"))
        v = v * k if times else v + k
    return out


def expanded(configs: list[dict], keys: set[str], cpus: int) -> list[dict]:
    """Dry-run configurations with a micro option's comma lists and numeric ranges of
    `keys` expanded, one configuration per value, as the binary runs its points
    (src/micro/axes.h; N is this machine's CPUs)."""
    out = []
    for cfg in configs:
        rows = [dict(cfg)]
        for key in keys:
            v = cfg.get(key)
            if not isinstance(v, str) or ("," not in v and ":" not in v):
                continue
            values = []
            for part in v.split(","):
                values += _range(part, cpus) or [_typed(part)]
            rows = [{**r, key: x} for r in rows for x in values]
        out += rows
    return out


def compares_threads(claim: Claim, configs: list[dict]) -> tuple[bool, str, list[str]]:
    """loadguard.applies over the claim's configurations (its sweeps' dry run at a scale):
    whether the claim compares thread counts, from the claim file or derived, and which."""
    keys = {"threads"} | {k for ch in claim.checks for s in ch.check.selections for k, _ in s.terms} \
        | {k for ch in claim.checks for k in ch.check.by}
    configs = expanded(configs, keys, os.cpu_count() or 1)
    frame = pd.DataFrame([{**{k: v for k, v in DEFAULTS.items() if k in keys}, **c} for c in configs])
    return loadguard.applies(claim, frame)


def _pending(claim: Claim, machine: Machine) -> list[str]:
    """What the claim needs that this binary does not have yet (commands, structures, options)."""
    return [why for why in (machine.missing(Needs(commands=claim.needs.commands)),
                            machine.missing(Needs(structures=claim.needs.structures)),
                            machine.missing(Needs(options=claim.needs.options))) if why]


def check_claims(claims: list[Claim], machine: Machine, bin_path: str) -> int:
    """Every claim loaded (schema, predicates, metrics: claims.load); for a claim whose
    commands exist, its sweeps expand at each of its scales and every select(...) term
    matches some configuration there (a typo in a value would otherwise select nothing);
    and whether it compares thread counts at its first scale (loadguard.py)."""
    bad = 0
    for c in claims:
        pending = _pending(c, machine)
        if pending:
            print(f"{c.id}: ok (pending: {'; '.join(pending)}; predicates parse and name known "
                  "metrics; its sweeps are checked when that lands)")
            continue
        try:
            configs = {scale: dry_run(c, scale, bin_path) for scale in c.scales}
            for scale in c.scales:
                _check_terms(c, scale, configs[scale])
        except ClaimError as e:
            print(f"{PROG}: error: {e}", file=sys.stderr)
            bad += 1
            continue
        n = len(c.checks)
        threads = ""
        on, source, counts = compares_threads(c, configs[c.scales[0]])
        if on:
            threads = f"; compares thread counts ({source}: {', '.join(counts)} at {c.scales[0]})"
        print(f"{c.id}: ok ({n} check{'s' if n != 1 else ''}; sweeps expand at "
              f"{', '.join(c.scales)}{threads})")
    return 2 if bad else 0


# Keys the records get from the context or the report, not from the sweep's arguments.
_NOT_IN_ARGUMENTS = {"hostname", "pmem", "git_revision", "locality"}


def _check_terms(claim: Claim, scale: str, configs: list[dict]) -> None:
    for ch in (*claim.requires, *claim.checks):
        for sel in ch.check.selections:
            for key, words in sel.terms:
                if key in _NOT_IN_ARGUMENTS:
                    continue
                # A key a configuration does not pass (a flag left off, a knob at its
                # default) has in its records the value DEFAULTS says.
                values = [cfg[key] if key in cfg else DEFAULTS[key] for cfg in configs
                          if key in cfg or key in DEFAULTS]
                if not values and words == ("none",):
                    continue
                if not any(covers(v, w, key) for v in values for w in words):
                    raise ClaimError(
                        f"{claim.path}: {ch.predicate}: {key}={'|'.join(words)} matches no "
                        f"configuration of its sweeps at scale {scale}")
                _check_recorded_spellings(claim, ch.predicate, key, words)


# A configuration's argument and the value its records carry differ where the
# binary resolves it on the machine: --domain eadr runs record "eadr" on an
# eADR platform and "eadr-emulated" elsewhere. A select naming one spelling
# would match nothing on the other machines.
_RECORDED_AS = {"domain": {"eadr": ("eadr", "eadr-emulated")}}


def _check_recorded_spellings(claim: Claim, predicate: str, key: str, words: tuple) -> None:
    for argument, spellings in _RECORDED_AS.get(key, {}).items():
        named = [s for s in spellings if s in words]
        if named and len(named) < len(spellings):
            raise ClaimError(
                f"{claim.path}: {predicate}: {key}={'|'.join(words)}: --{key} {argument} runs "
                f"are recorded as {' or '.join(spellings)} depending on the machine; write "
                f"{key}={'|'.join(spellings)}")


def covers(value, word: str, key: str) -> bool:
    """Whether a configuration's value can produce a record matching `word`. A micro
    option's value is a comma list of values and ranges ('seq,rand', '8:*2:8192',
    '1:*2:N'): a word matches one of the values, or is a number within a range's
    bounds (N: any thread count). The binary expands ranges (the sweep's range
    parser); this only catches a word no value could match."""
    if matches(value, word, key):
        return True
    if not isinstance(value, str) or ("," not in value and ":" not in value):
        return False
    for part in value.split(","):
        if ":" not in part:
            if matches(_typed(part), word, key):
                return True
            continue
        ends = _range_ends(part, math.inf)
        try:
            if ends is not None and ends[0] <= float(word) <= ends[1]:
                return True
        except ValueError:
            continue
    return False


class Runner:
    """Runs a claim's sweeps once per invocation (a second claim on the same sweep reuses it)."""

    def __init__(self, bin_path: str, out: Path, scale: str, pool_dir: str | None):
        self.bin, self.out, self.scale, self.pool_dir = bin_path, out, scale, pool_dir
        self.done: set[tuple] = set()

    def output(self, sweep_file: Path) -> Path:
        return self.out / f"{sweep_file.stem}.jsonl"

    def run(self, claim: Claim, extra: tuple[str, ...] = ()) -> list[Path]:
        """Runs the claim's sweeps with `extra` sweep arguments (--interleave --rounds N)."""
        files = []
        for s in claim.sweeps:
            out = self.output(s.file)
            files.append(out)
            key = (str(s.file), s.only, extra)
            if key in self.done:
                continue
            cmd = [self.bin, "sweep", str(s.file), "--scale", self.scale, "--out", str(out),
                   *s.only_args(), *extra]
            if self.pool_dir:
                cmd += ["--pool-dir", self.pool_dir]
            print(f"{PROG}: {claim.id}: pmemids sweep {s.written} --scale {self.scale} --out {out} "
                  + " ".join([*s.only_args(), *extra]), file=sys.stderr, flush=True)
            code = run_in_own_group(cmd, self.bin)
            if code in (130, 143) or code < 0:
                raise Interrupted(code - 128 if code > 0 else -code)
            if code == 2:
                raise UsageError(f"{claim.path}: pmemids sweep {s.written} refused its file (exit 2)")
            self.done.add(key)  # 0, or 1: some configurations failed; they are recorded as such
        return files


def run_in_own_group(cmd: list[str], bin_path: str) -> int:
    """Runs cmd in a process group of its own, its stdout to our stderr; SIGINT and SIGTERM
    arriving meanwhile are passed to that group (the sweep then stops its run, removes its
    pool directory and exits 128 + the signal), and we wait for it. Its exit code (negative:
    killed by that signal); a signal that came while nothing could receive it is raised as
    Interrupted once the child is done."""
    got: list[int] = []
    proc: subprocess.Popen | None = None

    def forward(sig, _frame):
        got.append(sig)
        if proc is not None:
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                pass

    before = {sig: signal.signal(sig, forward) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        try:
            proc = subprocess.Popen(cmd, stdout=sys.stderr, stdin=subprocess.DEVNULL,
                                    process_group=0)
        except OSError as e:
            raise RuntimeError(f"cannot run {bin_path}: {e}") from e
        if got:  # arrived while it was being started
            os.killpg(proc.pid, got[0])
        code = proc.wait()
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
    if got and code not in (130, 143) and code >= 0:
        raise Interrupted(got[0])
    return code


def check_outputs(out: Path, files: list[Path]) -> None:
    """--out DIR/<scale> usable and every file records go to appendable (outputs.py), before
    anything runs."""
    outputs.check_dir("--out", out.parent)
    outputs.check_dir("--out", out)
    for f in files:
        outputs.check_results_file("--out", f)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    bin_path = binary()
    try:
        all_claims = claims_mod.load_dir(args.claims or claims_dir())
        machine = Machine(bin_path)
        if args.list:
            list_claims(all_claims, machine, bin_path)
            if args.coverage:
                from . import inventory
                entries = inventory.load(args.claims or claims_dir(), all_claims)
                print("\n".join(inventory.coverage(entries, all_claims)))
            return 0
        chosen = all_claims if args.all or not args.ids else select_claims(all_claims, args.ids)
        chosen = [resolve_files(c) for c in chosen]
        if args.check:
            return check_claims(chosen, machine, bin_path)
        return reproduce(chosen, args, machine, bin_path)
    except (ClaimError, UsageError, load.ReportError, EvaluationError) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    except Interrupted as e:
        print(f"{PROG}: interrupted ({e}); run the same command again to resume", file=sys.stderr)
        return 128 + e.sig
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; run the same command again to resume", file=sys.stderr)
        return 130
    except (RuntimeError, OSError) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1


def _scale_reason(claim: Claim, scale: str) -> str | None:
    if claim.runnable_at(scale):
        return None
    return f"scale {scale} (this claim is decided at scale {', '.join(claim.scales)})"


def reproduce(chosen: list[Claim], args, machine: Machine, bin_path: str) -> int:
    out = args.out / args.scale
    runner = Runner(bin_path, out, args.scale, args.pool_dir)
    sources = None
    if args.sources:
        sources = [str(p) for p in load.expand_inputs(args.sources)]
    else:
        check_outputs(out, [out / "verdicts.jsonl"] +
                      [runner.output(s.file) for c in chosen for s in c.sweeps])
        if args.pool_dir is not None:
            outputs.check_existing_dir("--pool-dir", Path(args.pool_dir))
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(f"--out {args.out}: cannot create '{out}': {e.strerror}") from e
    design = rounds_mod.design_of(args)
    verdicts = []
    for claim in chosen:
        t0 = time.monotonic()
        reasons = [r for r in (machine.missing(claim.needs), _scale_reason(claim, args.scale)) if r]
        if reasons:
            record = verdict_mod.not_measurable(claim, args.scale, "; ".join(reasons))
        else:
            record = rounds_mod.decide_claim(claim, args.scale, design, runner, sources)
        record["seconds"] = round(time.monotonic() - t0, 1)
        verdicts.append(record)
        if sources is None:  # recorded first: a reader gone (`| head`) must not lose it
            with open(out / "verdicts.jsonl", "a", encoding="utf-8") as f:
                f.write(verdict_mod.json_line(record) + "\n")
        print(verdict_mod.text(record), flush=True)
    if len(verdicts) > 1:
        print("\nsummary:")
        for v in verdicts:
            print(f"  {v['claim']['id']:<10} {v['display']}")
    if sources is None and not args.no_report:
        from .. import report  # matplotlib: only when a report is drawn
        inputs = [str(f) for f in sorted(out.glob("*.jsonl")) if f.stat().st_size > 0]
        try:
            index = report.make(inputs, out / "report")
        except report.WriteError as e:
            raise RuntimeError(f"{e} (the verdicts are in {out / 'verdicts.jsonl'})") from e
        print(f"{PROG}: wrote {index.parent / 'reproduction.html'}", file=sys.stderr)
    return 0
