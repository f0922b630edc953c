"""Claim files: one TOML file per claim of a seed paper, in reproduce/ (docs/reproduce.md).

    id = "001-O4"                     # the file's stem: <seed>-<name>
    seed = "001"                      # 001 .. 004
    section = "§V-B Observation 4, Fig. 3(a)"
    claim = "..."                     # the claim, in our words
    cause = ["software"]              # root-cause classes (CAUSES); a string is a list of one
    figure = "fig3_single_thread"     # the report figure the claim is about (id or id prefix)
    seed_says = "..."                 # the seed's own figures for these cells, as it gives them
    scales = ["paper"]                # optional: the scales whose sweeps can decide the claim
                                      # (default all three); at another it is not measurable

    [needs]                           # everything optional; missing = not needed
    commands = ["micro"]              # pmemids sub-commands beyond run and sweep
    structures = ["stack-dfc"]        # --ds values
    options = ["run --domain"]        # "<command> --<option>"
    tools = ["ipmwatch"]              # programs on PATH (e.g. DCPMM counter tools)
    numa_nodes = 2                    # at least this many NUMA nodes
    cores = 4                         # at least this many CPUs
    pmu = true                        # hardware performance counters
    smt = true                        # simultaneous multithreading (hyper-threads)
    media = true                      # every check without its own label is labelled media

    [minutes]                         # wall time per scale on the development machine, for --list
    quick = 1                         # (docs/reproduce.md says how they were measured)

    [[sweep]]                         # one or more sweeps whose records the checks read
    file = "sweeps/fig3-single-thread.toml"   # relative to the claim file's directory or a parent
    only = { mode = ["pmem-persist", "pmem-trans"] }   # optional: pmemids sweep --only key=v,...

    seed_cpu = "Intel Cascade Lake"   # optional: the CPU the seed measured on, named beside
                                      # ours in the verdict (claims about cache-line instructions)
    drop_noisy_rounds = true          # optional (default false): rounds whose calibration is over
                                      # 3x the best are left out of the decision (rounds.py)
    interleave = false                # optional (default true): run the sweeps once, not in
                                      # rounds added until decided (repetitions that are seeds
                                      # of a deterministic measurement: more rounds repeat them)
    compares_threads = false          # optional (default: derived from the configurations the
                                      # checks compare): whether the claim compares thread
                                      # counts, and is decided only with free CPUs for them
                                      # in every round (loadguard.py)

    [[require]]                       # zero or more: what the experiment must have achieved
    what = "..."                      # for the seed's condition to hold (the condition in words)
    predicate = "value(...) >= 4 for all"     # the same language as checks; must hold, else
                                      # "not measurable here: <what> not achieved (measured ...)"

    [[check]]                         # one or more; the claim holds when every check does
    what = "..."                      # the check in words
    predicate = "ratio(...) < 1 for all"      # predicate.py
    seed_figure = "..."               # optional: the seed's figure for this check
    seed_values = { bplustree = 1.294 }   # optional: the seed's value per group label
    seed_range = [1.09, 1.16]         # optional: the seed's magnitude; the verdict says whether
                                      # ours is within it (evaluate.CheckResult.magnitude)
    label = "media"                   # optional (LABELS): media (a property of Optane media:
                                      # on emulated PMEM shown, not decided), dax (needs a DAX
                                      # file system: without one shown, not decided), sanity
                                      # (cannot fail on any x86: decided, counted apart)

load(path) validates everything it can without the binary (schema, predicate syntax,
metric names against fields.py) and raises ClaimError "<file>: <what>" otherwise.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .. import fields
from . import shipped
from .predicate import Check, PredicateError, parse

SEEDS = ("001", "002", "003", "004")
SCALES = ("quick", "default", "paper")
CAUSES = ("software", "cpu-cache", "prefetcher", "memory-controller", "media", "numa")

_TOP = {"id", "seed", "section", "claim", "cause", "figure", "seed_says", "scales", "needs",
        "minutes", "sweep", "check", "require", "seed_cpu", "drop_noisy_rounds", "interleave",
        "compares_threads"}
_NEEDS = {"commands", "structures", "options", "tools", "numa_nodes", "cores", "pmu", "smt",
          "media"}
_SWEEP = {"file", "only"}
_CHECK = {"what", "predicate", "seed_figure", "seed_values", "seed_range", "label"}
_REQUIRE = {"what", "predicate"}
# Per-check labels: what a check's outcome needs to speak for the seed's claim.
LABELS = ("media", "dax", "sanity")
_ID = re.compile(r"(00[1-4])-[A-Za-z0-9][A-Za-z0-9._-]*")
_OPTION = re.compile(r"([a-z][a-z0-9-]*) --([a-z][a-z0-9-]*)")


class ClaimError(ValueError):
    """A claim file that does not validate; str() is '<file>: <what>'."""


@dataclass(frozen=True)
class Needs:
    commands: tuple[str, ...] = ()
    structures: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    numa_nodes: int = 1
    cores: int = 1
    pmu: bool = False
    smt: bool = False
    media: bool = False

    def text(self) -> str:
        parts = [f"pmemids {c}" for c in self.commands]
        parts += [f"--ds {s}" for s in self.structures]
        parts += [f"{o}" for o in self.options]
        parts += list(self.tools)
        if self.numa_nodes > 1:
            parts.append(f"{self.numa_nodes} NUMA nodes")
        if self.cores > 1:
            parts.append(f"{self.cores} cores")
        if self.pmu:
            parts.append("PMU")
        if self.smt:
            parts.append("SMT")
        if self.media:
            parts.append("real PMEM media")
        return ", ".join(parts) if parts else "run"


@dataclass(frozen=True)
class SweepRef:
    file: Path                              # resolved
    written: str                            # as in the claim file
    only: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def only_args(self) -> list[str]:
        return [a for k, vs in self.only for a in ("--only", f"{k}={','.join(vs)}")]


@dataclass(frozen=True)
class ClaimCheck:
    what: str
    predicate: str
    check: Check
    seed_figure: str | None = None
    seed_values: dict = field(default_factory=dict)
    seed_range: tuple[float, float] | None = None
    label: str | None = None


@dataclass(frozen=True)
class Requirement:
    what: str          # the condition, in words
    predicate: str
    check: Check


@dataclass(frozen=True)
class Claim:
    id: str
    seed: str
    section: str
    claim: str
    cause: tuple[str, ...]
    figure: str | None
    seed_says: str | None
    scales: tuple[str, ...]
    needs: Needs
    minutes: dict
    sweeps: tuple[SweepRef, ...]
    checks: tuple[ClaimCheck, ...]
    path: Path
    requires: tuple[Requirement, ...] = ()
    seed_cpu: str | None = None
    drop_noisy_rounds: bool = False
    interleave: bool = True
    compares_threads: bool | None = None   # None: derived (loadguard.compared)
    files: tuple[dict, ...] = ()     # the claim and sweep files used: path, hash (cli.resolve_files)

    def metrics(self) -> set[str]:
        return {c.check.metric for c in (*self.checks, *self.requires)}

    def runnable_at(self, scale: str) -> bool:
        return scale in self.scales

    def list_line(self, estimates: dict | None = None) -> str:
        """Per scale the measured minutes, or `estimates[(id, scale)]` (expected minutes,
        shown with a ~) when there are none or the estimate is longer."""
        estimates = estimates or {}

        def time(s: str) -> str | None:
            measured, expected = self.minutes.get(s), estimates.get((self.id, s))
            if expected is not None and (measured is None or expected > measured):
                return f"{s} ~{_minutes(expected)}"
            return None if measured is None else f"{s} {_minutes(measured)}"

        times = " / ".join(t for t in map(time, self.scales) if t)
        return (f"{self.id}  seed {self.seed} {self.section}: {self.claim}  "
                f"[needs {self.needs.text()}; cause {', '.join(self.cause)}]  {times}")


def _minutes(m: float) -> str:
    if m < 1:
        return "<1m"
    if m < 90:
        return f"{m:.2g}m"
    return f"{m / 60:.3g}h"


def find_file(written: str, start: Path) -> Path | None:
    """`written` as is when absolute, else looked up in `start` and each of its parents."""
    p = Path(written)
    if p.is_absolute():
        return p if p.is_file() else None
    for d in [start, *start.parents]:
        if (d / p).is_file():
            return d / p
    return None


def _shipped_sweep(written: str, claim: Path) -> Path | None:
    """A sweep not beside the claim file: where the shipped-file rule finds it (a claim
    copied into ./reproduce/ names the installed sweeps)."""
    try:
        return Path(shipped.locate("sweep", [written], claim)[0]["path"])
    except shipped.NotFound:
        return None


def load(path: Path) -> Claim:
    path = Path(path)

    def fail(what: str) -> ClaimError:
        return ClaimError(f"{path}: {what}")

    try:
        # utf-8-sig: a byte order mark is read as workload files read it
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as e:
        raise fail(f"cannot read: {e}") from e
    except tomllib.TOMLDecodeError as e:
        raise fail(f"TOML syntax: {e}") from e

    _known(data, _TOP, "", fail)
    cid = _string(data, "id", "", fail)
    if not _ID.fullmatch(cid):
        raise fail(f"id: '{cid}' is not <seed>-<name> with seed 001..004 (e.g. 001-O4)")
    if cid != path.stem:
        raise fail(f"id: '{cid}' differs from the file name '{path.name}'; accepted: {cid}.toml")
    seed = _string(data, "seed", "", fail)
    if seed not in SEEDS or not cid.startswith(seed + "-"):
        raise fail(f"seed: '{seed}' must be one of {', '.join(SEEDS)} and start the id")
    cause = data.get("cause")
    cause = (cause,) if isinstance(cause, str) else cause
    if not isinstance(cause, list | tuple) or not cause or any(c not in CAUSES for c in cause):
        given = "missing" if data.get("cause") is None else repr(data.get("cause"))
        raise fail(f"cause: {given}; accepted: one or a list of {', '.join(CAUSES)}")

    scales = data.get("scales", list(SCALES))
    if not isinstance(scales, list) or not scales or any(x not in SCALES for x in scales):
        raise fail(f"scales: {scales!r}; accepted: a list of {', '.join(SCALES)}")
    needs = _needs(data.get("needs", {}), fail)
    minutes = data.get("minutes", {})
    if not isinstance(minutes, dict) or any(k not in SCALES for k in minutes) or any(
            isinstance(v, bool) or not isinstance(v, int | float) or v < 0 for v in minutes.values()):
        raise fail(f"minutes: {minutes!r}; accepted: a table of {', '.join(SCALES)} = minutes >= 0")

    sweeps = data.get("sweep")
    if not isinstance(sweeps, list) or not sweeps:
        raise fail("sweep: missing; accepted: one or more [[sweep]] tables with file = \"sweeps/<name>.toml\"")
    refs = tuple(_sweep(s, i, path, needs, fail) for i, s in enumerate(sweeps))

    checks = data.get("check")
    if not isinstance(checks, list) or not checks:
        raise fail("check: missing; accepted: one or more [[check]] tables with what and predicate")
    requires = data.get("require", [])
    if not isinstance(requires, list):
        raise fail("require: accepted: [[require]] tables with what and predicate")
    for key in ("drop_noisy_rounds", "interleave", "compares_threads"):
        if not isinstance(data.get(key, False), bool):
            raise fail(f"{key}: {data[key]!r}; accepted: true or false")
    return Claim(cid, seed, _string(data, "section", "", fail), _string(data, "claim", "", fail),
                 tuple(cause), _string(data, "figure", "", fail, required=False),
                 _string(data, "seed_says", "", fail, required=False), tuple(scales), needs,
                 dict(minutes), refs,
                 tuple(_check(c, i, needs, fail) for i, c in enumerate(checks)), path,
                 tuple(_require(r, i, needs, fail) for i, r in enumerate(requires)),
                 _string(data, "seed_cpu", "", fail, required=False),
                 data.get("drop_noisy_rounds", False), data.get("interleave", True),
                 data.get("compares_threads"))


def load_dir(directory: Path) -> list[Claim]:
    """Every *.toml of `directory`, by id. ClaimError for the first file that does not load."""
    files = sorted(Path(directory).glob("*.toml"), key=lambda f: f.stem)
    if not files:
        raise ClaimError(f"{directory}: no claim files (*.toml)")
    return [load(f) for f in files]


def _known(table: dict, allowed: set[str], where: str, fail) -> None:
    for k in table:
        if k not in allowed:
            raise fail(f"{where}{k}: unknown key; accepted: {', '.join(sorted(allowed))}")


def _string(table: dict, key: str, where: str, fail, required: bool = True) -> str | None:
    v = table.get(key)
    if v is None and not required:
        return None
    if not isinstance(v, str) or not v.strip():
        raise fail(f"{where}{key}: {'missing' if v is None else repr(v)}; accepted: a non-empty string")
    return v.strip()


def _needs(table, fail) -> Needs:
    if not isinstance(table, dict):
        raise fail("needs: must be a table")
    _known(table, _NEEDS, "needs.", fail)
    lists = {}
    for key in ("commands", "structures", "options", "tools"):
        v = table.get(key, [])
        if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
            raise fail(f"needs.{key}: {v!r}; accepted: a list of strings")
        lists[key] = tuple(v)
    for o in lists["options"]:
        if not _OPTION.fullmatch(o):
            raise fail(f"needs.options: '{o}'; accepted: \"<command> --<option>\" (e.g. \"run --domain\")")
    ints = {}
    for key in ("numa_nodes", "cores"):
        v = table.get(key, 1)
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise fail(f"needs.{key}: {v!r}; accepted: an integer >= 1")
        ints[key] = v
    flags = {}
    for key in ("pmu", "smt", "media"):
        v = table.get(key, False)
        if not isinstance(v, bool):
            raise fail(f"needs.{key}: {v!r}; accepted: true or false")
        flags[key] = v
    return Needs(**lists, **ints, **flags)


def _sweep(table, i: int, path: Path, needs: Needs, fail) -> SweepRef:
    where = f"sweep[{i}]."
    if not isinstance(table, dict):
        raise fail(f"sweep[{i}]: must be a table")
    _known(table, _SWEEP, where, fail)
    written = _string(table, "file", where, fail)
    found = find_file(written, path.parent) or _shipped_sweep(written, path)
    if found is None:
        # A claim waiting for a command that is not built names the sweep it will use;
        # that sweep ships with the command.
        if not needs.commands and not needs.structures and not needs.options:
            raise fail(f"{where}file: '{written}' not found (looked in {path.parent}, its parents "
                   "and where shipped sweeps are: pmemids locate)")
        found = path.parent.parent / written
    only = table.get("only", {})
    if not isinstance(only, dict):
        raise fail(f"{where}only: must be a table of key = [values]")
    terms = []
    for k, v in only.items():
        values = v if isinstance(v, list) else [v]
        if not values or not all(isinstance(x, str | int | float) and not isinstance(x, bool) for x in values):
            raise fail(f"{where}only.{k}: {v!r}; accepted: a value or a list of values")
        terms.append((k, tuple(str(x) for x in values)))
    return SweepRef(found, written, tuple(terms))


def _predicate(table: dict, where: str, needs: Needs, fail) -> tuple[str, Check]:
    text = _string(table, "predicate", where, fail)
    try:
        check = parse(text)
    except PredicateError as e:
        raise fail(f"{where}predicate: {e}: {text}") from e
    pending = needs.commands or needs.structures or needs.options
    for metric in check.metrics():
        # A name may also be a number of the record's configuration or context
        # (hit_ratio_achieved-hit_ratio, footprint_bytes/llc_bytes, region_bytes/llc_bytes);
        # those of pending commands are checked when they land.
        if not (fields.is_metric(metric) or fields.is_context_number(metric) or pending
                or fields.is_config_key(metric)):
            raise fail(f"{where}predicate: unknown metric '{metric}'; accepted: "
                       f"{fields.metrics_text()}; also a configuration key or "
                       f"{', '.join(fields.CONTEXT_NUMBERS)}")
    # Keys of records that exist today are checked here; those of pending commands when they land.
    if not pending:
        for key in sorted(check.keys()):
            if not fields.is_config_key(key):
                raise fail(f"{where}predicate: unknown configuration key '{key}'; accepted: "
                           f"{', '.join(fields.CONFIG_KEYS)}")
    if check.quantifier.kind == "count" and check.by == ():
        if check.quantifier.n > 1:
            raise fail(f"{where}predicate: 'for at least {check.quantifier.n}' without by=[...]: "
                       "there is one group")
    return text, check


def _table(table, kind: str, i: int, allowed: set[str], needs: Needs, fail) -> tuple[str, str, str, Check]:
    """A [[check]] or [[require]] table's place, `what` and predicate."""
    where = f"{kind}[{i}]."
    if not isinstance(table, dict):
        raise fail(f"{kind}[{i}]: must be a table")
    _known(table, allowed, where, fail)
    return (where, _string(table, "what", where, fail), *_predicate(table, where, needs, fail))


def _check(table, i: int, needs: Needs, fail) -> ClaimCheck:
    where, what, text, check = _table(table, "check", i, _CHECK, needs, fail)
    values = table.get("seed_values", {})
    if not isinstance(values, dict) or any(
            isinstance(v, bool) or not isinstance(v, int | float) for v in values.values()):
        raise fail(f"{where}seed_values: {values!r}; accepted: a table of group label = number")
    span = table.get("seed_range")
    if span is not None and (not isinstance(span, list) or len(span) != 2 or any(
            isinstance(v, bool) or not isinstance(v, int | float) for v in span) or span[0] > span[1]):
        raise fail(f"{where}seed_range: {span!r}; accepted: [low, high], two numbers, low <= high")
    label = table.get("label", "media" if needs.media else None)
    if label is not None and label not in LABELS:
        raise fail(f"{where}label: {label!r}; accepted: one of {', '.join(LABELS)}")
    return ClaimCheck(what, text, check, _string(table, "seed_figure", where, fail, required=False),
                      dict(values), tuple(float(v) for v in span) if span else None, label)


def _require(table, i: int, needs: Needs, fail) -> Requirement:
    _, what, text, check = _table(table, "require", i, _REQUIRE, needs, fail)
    return Requirement(what, text, check)
