"""A claim's verdict from its requirements and checks, and the verdict record.

Verdict classes (CLASSES), each with the measured outcome beside it whenever
something was measured:
  reproduced                 every deciding check reproduced
  not reproduced             some deciding check not reproduced (the difference is
                             outside the noise, the other way)
  within noise               neither: some deciding check's groups are within noise
  not measurable here: <why> the machine or binary lacks what the claim needs (nothing is
                             run: "not run"), a [[require]] condition was not achieved by
                             the experiment ("<condition> not achieved (measured ...)"),
                             a claim comparing thread counts ran on a machine without free
                             CPUs for them ("machine loaded for a comparison of thread
                             counts: load average ... over ...": loadguard.py),
                             every configuration a check selects was skipped, or every
                             check is labelled dax and the pool was not on a DAX file
                             system ("no DAX file system")
  media property: not expected on emulated PMEM
                             every check is labelled media and the records were
                             measured on emulated PMEM
  sanity                     every deciding check is labelled sanity (it cannot fail on
                             any x86) and reproduced: counted apart from reproduced claims

Labels apply per check (claims.LABELS): a media check on emulated PMEM and a dax check
off DAX are measured and shown but do not decide; the claim's other checks decide it,
so a label never hides a failing software check ("not reproduced (check 2, media
property: measured reproduced, 3 of 3 groups hold)"). Requirements are decided first;
one that does not hold makes the claim not measurable, its checks still measured and
shown. A check with a seed_range has its magnitude beside the direction:
"reproduced (direction); magnitude 1.09x vs the seed's 1.09-1.16x: within". Claims
with a seed_cpu name the CPU the records ran on beside the seed's.

The record (one JSON line, schema_version 1, recognised by the report by its `claim`
object) carries the claim, the scale, `verdict` (the class with its reason), `class`,
`outcome` (all checks' outcome combined, null when nothing was measured), `display`
(the one line printed, put in the README and the report), every check with every
group's numbers and test (`groups[].test`, `tests`: groups per test, `looks`), its
label and magnitude, the requirements (with the load requirement of a claim comparing
thread counts: `kind` "load", its rounds' load averages and threshold in `load`), the test, the records' hosts, PMEM kind and
CPU, and the load average when the verdict was made; decided in rounds (rounds.py),
also `rounds` (how many ran, why it stopped: decided, budget, maximum or the end of
the records; the looks and their level), shown at the end of `display`
("[12 rounds, stopped: decided]"), and `noise` (the rounds whose calibration was
over 3x the best, and whether they were dropped).
"""

from __future__ import annotations

import datetime
import json
import math
import os

import pandas as pd

from . import loadguard
from .claims import Claim
from .evaluate import MISSING, OWN_TIME, CheckResult, EvaluationError, evaluate, test_text

REPRODUCED, NOT_REPRODUCED, NOISE = "reproduced", "not reproduced", "within noise"
NOT_MEASURABLE = "not measurable here"
MEDIA = "media property: not expected on emulated PMEM"
SANITY = "sanity"
NO_DAX = "no DAX file system"
CLASSES = (REPRODUCED, NOT_REPRODUCED, NOISE, NOT_MEASURABLE, "media property", SANITY)
VERDICTS = (REPRODUCED, NOT_REPRODUCED, NOISE, NOT_MEASURABLE, MEDIA, SANITY)
NOT_RUN = "not run"
LABEL_WORDS = {"media": "media property", "dax": NO_DAX, "sanity": SANITY}


def combine(outcomes: list[str]) -> str:
    if any(o == NOT_REPRODUCED for o in outcomes):
        return NOT_REPRODUCED
    if outcomes and all(o == REPRODUCED for o in outcomes):
        return REPRODUCED
    return NOISE


def verdict_class(verdict: str) -> str:
    """The class of a verdict text (CLASSES)."""
    for c in CLASSES:
        if verdict == c or verdict.startswith((c + ":", c + " ")):
            return c
    return verdict


def not_measurable(claim: Claim, scale: str, why: str) -> dict:
    return _record(claim, scale, f"{NOT_MEASURABLE}: {why}", None, [], [], rows=None,
                   measured=NOT_RUN)


def _label_applies(label: str | None, rows: pd.DataFrame) -> bool:
    """Whether what the label names is missing from the records' machine."""
    if label == "media":
        return bool("pmem" in rows and (rows["pmem"] == "emulated").any())
    if label == "dax":
        # libpmem2 maps a file of a DAX file system at byte or cache-line granularity,
        # anything else at page granularity (the records' context says which).
        col = rows.get("context_store_granularity")
        return bool(col is None or not col.isin(["byte", "cache-line"]).all())
    return False


def _pool_fs(rows: pd.DataFrame) -> str:
    fs = sorted(set(rows.get("context_pool_fs", pd.Series(dtype=object)).dropna()))
    return f" (pool directory on {', '.join(fs)})" if fs else ""


def _cpu(claim: Claim, rows: pd.DataFrame | None) -> dict | None:
    if not claim.seed_cpu:
        return None
    models = [] if rows is None or "context_cpu_model" not in rows else sorted(
        set(rows["context_cpu_model"].dropna()))
    vendors = sorted({"AMD" if "AMD" in m else "Intel" if "Intel" in m else m for m in models})
    return {"measured": models, "vendor": vendors, "seed": claim.seed_cpu}


def decide(claim: Claim, scale: str, rows: pd.DataFrame, skipped: pd.DataFrame,
           files: list[str], looks: int = 1) -> dict:
    """The verdict record of `claim` over run rows (metrics as columns) and skipped rows;
    `looks`: the looks of the sequential design the level is divided over (rounds.py)."""
    def run(items) -> list[tuple[object, CheckResult]]:
        out = []
        for c in items:
            try:
                out.append((c, evaluate(c.check, rows, getattr(c, "seed_values", {}), skipped,
                                        looks=looks)))
            except EvaluationError as e:
                raise EvaluationError(f"{claim.path}: {c.predicate}: {e}") from e
        return out

    results, required = run(claim.checks), run(claim.requires)
    empty = [r for _, r in results + required if r.outcome == MISSING]
    if empty:
        why = "; ".join(dict.fromkeys(r.reason for r in empty))
        record = _record(claim, scale, f"{NOT_MEASURABLE}: {why}", None, results, required, rows,
                         measured="measured: no data")
        record["records"] = files
        return record
    outcome = combine([r.outcome for _, r in results])
    guard = loadguard.requirement(claim, rows)
    applies = [_label_applies(c.label, rows) for c, _ in results]
    deciding = [(c, r) for (c, r), a in zip(results, applies) if not a]
    labelled = [(i, c, r) for i, ((c, r), a) in enumerate(zip(results, applies), start=1) if a]
    unmet = [(c, r) for c, r in required if r.outcome != REPRODUCED]
    loaded = guard is not None and guard["outcome"] != REPRODUCED
    if unmet or loaded:
        verdict = f"{NOT_MEASURABLE}: " + "; ".join(
            [f"{c.what} not achieved (measured {c.check.metric} {r.summary(c.check.function)})"
             for c, r in unmet] + ([loaded_text(guard)] if loaded else []))
        measured = f"checks measured: {_measured(outcome, [r for _, r in results])}"
    elif deciding:
        verdict = combine([r.outcome for _, r in deciding])
        if verdict == REPRODUCED and all(c.label == "sanity" for c, _ in deciding):
            verdict = SANITY
        measured = "; ".join(
            f"check {i}, {LABEL_WORDS[c.label]}: measured {_measured(r.outcome, [r])}"
            for i, c, r in labelled) or None
    else:
        kinds = sorted({c.label for _, c, _ in labelled})
        verdict = MEDIA if kinds == ["media"] else f"{NOT_MEASURABLE}: " + "; ".join(
            MEDIA if k == "media" else NO_DAX + _pool_fs(rows) for k in kinds)
        measured = f"measured: {_measured(outcome, [r for _, r in results])}"
    record = _record(claim, scale, verdict, outcome, results, required, rows, measured=measured)
    if guard is not None:
        record["requires"].append(guard)
    record["records"] = files
    return record


def loaded_text(guard: dict) -> str:
    """Why the load requirement refused the claim: 'machine loaded for a comparison of
    thread counts: load average 13.22 (round 2) over 2.22 = 2 CPUs / 0.9, in 3 of 3
    rounds' (loadguard.py)."""
    load = guard["load"]
    loaded = load["cpus"] and load["max_threads"] <= load["cpus"] and not load["unread"]
    what = "machine loaded" if loaded else "no free CPUs"
    return f"{what} for a comparison of thread counts: {guard['summary']}"


def _measured(outcome: str, results: list[CheckResult]) -> str:
    """'not reproduced, 1 of 3 groups fail' (one check) or 'not reproduced' (several)."""
    return f"{outcome}, {results[0].tally()}" if len(results) == 1 else outcome


def _check_json(c, r: CheckResult, applies_label: bool) -> dict:
    out = {"what": c.what, "predicate": c.predicate, "seed_figure": getattr(c, "seed_figure", None),
           "outcome": r.outcome, "summary": r.summary(c.check.function),
           "needed": r.needed, "groups_total": len(r.groups),
           "level": r.level, "groups": [g.to_json() for g in r.groups],
           "skipped": r.skipped, "label": getattr(c, "label", None), "label_applies": applies_label,
           "tests": r.tests(), "looks": r.looks}
    if getattr(c, "seed_range", None) and r.groups:
        out["magnitude"] = r.magnitude(c.seed_range, c.check.function)
    return out


def _record(claim: Claim, scale: str, verdict: str, outcome: str | None, results, required, rows,
            measured: str | None) -> dict:
    have_rows = rows is not None and not rows.empty
    checks = [_check_json(c, r, have_rows and _label_applies(c.label, rows)) for c, r in results]
    requires = [{"what": c.what, **_check_json(c, r, False)} for c, r in required]
    hosts = sorted(set(rows["hostname"].dropna())) if rows is not None and "hostname" in rows else []
    pmem = sorted(set(rows["pmem"].dropna())) if rows is not None and "pmem" in rows else []
    record = {
        "schema_version": 1,
        "claim": {"id": claim.id, "seed": claim.seed, "section": claim.section, "text": claim.claim,
                  "cause": list(claim.cause), "figure": claim.figure, "seed_says": claim.seed_says,
                  "needs": claim.needs.text(), "file": str(claim.path)},
        # The claim and sweep files used, by absolute path and content hash.
        "files": list(claim.files),
        "scale": scale,
        "verdict": verdict,
        "class": verdict_class(verdict),
        "outcome": outcome,
        "measured": measured,
        "test": test_text([r for _, r in results + required], max([r.looks for _, r in results] or [1])),
        "checks": checks,
        "requires": requires,
        "cpu": _cpu(claim, rows),
        "ours": "; ".join(ch["summary"] for ch in checks) if checks else None,
        "hosts": hosts,
        "pmem": pmem,
        "timestamp": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        # The machine's load when the verdict was made: on a shared machine, the noise's cause.
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    record["display"] = display(record)
    return record


def display(record: dict) -> str:
    """The verdict in one line, the measured outcome beside any label: 'media property:
    not expected on emulated PMEM (measured: not reproduced, 1 of 3 groups fail)',
    'reproduced (direction); magnitude 1.09x vs the seed's 1.09-1.16x: within'. Records
    written before issue 25 (no `class`) show their verdict and outcome as they were."""
    verdict = record["verdict"]
    if "class" not in record:
        out = record.get("outcome")
        return verdict if not out or out == verdict else f"{verdict} (measured: {out})"
    parts = [verdict]
    magnitudes = [ch["magnitude"]["text"] for ch in record.get("checks", []) if ch.get("magnitude")
                  and not ch.get("label_applies")]
    if magnitudes and record["class"] in (REPRODUCED, NOT_REPRODUCED, NOISE, SANITY):
        parts = [f"{verdict} (direction); " + "; ".join(magnitudes)]
    if record.get("measured"):
        parts.append(f"({record['measured']})")
    cpu = record.get("cpu")
    if cpu:
        ran = ", ".join(cpu["measured"]) or "no records"
        parts.append(f"[ran on {ran}; the seed on {cpu['seed']}]")
    if record.get("rounds"):
        parts.append(f"[{rounds_text(record['rounds'], record.get('noise'))}]")
    return " ".join(parts)


STOPPED = {"decided": "decided", "maximum": "maximum", "records": "end of the records"}


def rounds_text(rounds: dict, noise: dict | None = None) -> str:
    """'8 rounds, stopped: decided', '12 rounds, stopped: budget 3m spent', plus
    '; 2 noisy rounds dropped'."""
    why = rounds["stopped"]
    why = f"budget {budget_text(rounds)} spent" if why == "budget" else STOPPED.get(why, why)
    out = f"{rounds['ran']} round{'s' if rounds['ran'] != 1 else ''}, stopped: {why}"
    if noise and noise.get("dropped"):
        n = len(noise["noisy"])
        out += f"; {n} noisy round{'s' if n != 1 else ''} dropped"
    return out


def budget_text(rounds: dict, detail: bool = False) -> str:
    """The budget that applied. A given one (--budget) as it was written, '5m' ('5m, given
    (--budget)' in detail); the default scaled to the round time '10m (the default 3m
    scaled to the round time)', in detail '... to 8 rounds at 1m a round x 1.25, cap 12m'.
    Records from before the scaled budget: their budget_s."""
    b = rounds.get("budget")
    if not b:
        return minutes(rounds["budget_s"])
    if b["from"] == "given":
        return f"{minutes(b['s'])}" + (", given (--budget)" if detail else "")
    out = f"{minutes(b['s'])} (the default {minutes(b['default_s'])} scaled to the round time"
    if not detail:
        return out + ")"
    pace = "" if b.get("pace_s") is None else f" at {minutes(b['pace_s'])} a round x {b['slack']:g}"
    return out + f": {b['rounds']} rounds{pace}, cap {minutes(b['cap_s'])})"


def minutes(seconds: float) -> str:
    """'2h', '3m', '90s', '10.4m'."""
    if seconds >= 3600 and seconds % 3600 == 0:
        return f"{seconds / 3600:g}h"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{seconds / 60:g}m"
    if seconds >= 60:
        return f"{seconds / 60:.1f}m"
    return f"{seconds:.3g}s"


def _pct(v) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{100 * v:.1f}%"


def _num(v, ratio: bool) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.3g}x" if ratio else f"{v:.4g}"


# A requirement is met or not, not reproduced.
REQUIRE_WORDS = {REPRODUCED: "met", NOT_REPRODUCED: "not met", NOISE: "not shown to be met (within noise)"}


def _check_lines(title: str, ch: dict, words: dict | None = None) -> list[str]:
    label = ""
    if ch.get("label"):
        label = f" [{LABEL_WORDS[ch['label']]}{': shown, not deciding' if ch.get('label_applies') else ''}]"
    outcome = (words or {}).get(ch["outcome"], ch["outcome"])
    lines = [f"  {title}: {ch['what']}{label}: {outcome} ({ch['summary']})",
             f"    {ch['predicate']}"]
    if ch.get("seed_figure"):
        lines.append(f"    seed: {ch['seed_figure']}")
    if ch.get("magnitude"):
        lines.append(f"    {ch['magnitude']['text']}")
    ratio = ch["predicate"].lstrip().startswith(("ratio", "contrast"))
    level = f"{100 * ch['level']:.2f}% CI" if ch.get("level") else "CI"
    rows = [("group", "ours", level, "n", "cv", "seed", "test", "result")]
    for g in ch["groups"]:
        ci = f"[{_num(g['ci'][0], ratio)}, {_num(g['ci'][1], ratio)}]" if g["ci"] else "-"
        rows.append((g["group"], _num(g["estimate"], ratio), ci,
                     "/".join(str(n) for n in g["n"]) or "-",
                     "/".join(_pct(v) for v in g["cv"]) or "-",
                     _num(g["seed_value"], ratio) if g["seed_value"] is not None else "-",
                     (g.get("test") or "-") + (", own time" if g.get("basis") == OWN_TIME else ""),
                     g["status"] + (f" ({g['note']})" if g.get("note") else "")))
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]) - 1)]
    for r in rows:
        lines.append("    " + "  ".join(v.ljust(w) for v, w in zip(r, widths)) + "  " + r[-1])
    if ch.get("skipped"):
        lines.append(f"    skipped configurations: {'; '.join(ch['skipped'])}")
    return lines


def text(record: dict) -> str:
    """The verdict as printed by `pmemids reproduce`."""
    c = record["claim"]
    lines = [f"{c['id']} [{record['scale']}] {record.get('display') or display(record)}",
             f"  seed {c['seed']} {c['section']}: {c['text']}"]
    if record.get("class", record["verdict"]) == NOISE:
        lines.append("  (neither reproduced nor not reproduced at the stated level: some groups' "
                     "intervals straddle the threshold; more repetitions or a quieter machine may decide it)")
    if record.get("hosts"):
        lines.append(f"  measured on {', '.join(record['hosts'])} ({', '.join(record['pmem'])} PMEM)")
    if c.get("seed_says"):
        lines.append(f"  seed says: {c['seed_says']}")
    if record.get("rounds"):
        lines.append(f"  rounds: {rounds_detail(record['rounds'])}")
    if record.get("noise") and record["noise"].get("noisy"):
        lines.append(f"  noise: {noise_detail(record['noise'])}")
    for i, req in enumerate(record.get("requires", []), start=1):
        lines += _check_lines(f"requires {i}", req, REQUIRE_WORDS)
    for i, ch in enumerate(record["checks"], start=1):
        lines += _check_lines(f"check {i}", ch)
    if record["checks"]:
        lines.append(f"  test: {record['test']}")
    return "\n".join(lines)


def rounds_detail(r: dict) -> str:
    """The rounds line of a verdict: how many, the looks and their level, why it stopped."""
    looks = ", ".join(str(n) for n in r["looks"])
    plan = ", ".join(str(n) for n in r["schedule"])
    return (f"{r['ran']} interleaved rounds ({r['order']} order); decided at looks after rounds "
            f"{looks} of the design's {plan} (each look at 1/{len(r['schedule'])} of the 5% "
            f"level); stopped: {rounds_text(r).split('stopped: ', 1)[1]}"
            + (f"; budget {budget_text(r, detail=True)}" if r.get("budget") else ""))


def noise_detail(n: dict) -> str:
    rounds = ", ".join(f"{k} ({1e3 * s:.1f} ms)" for k, s in n["noisy"])
    what = ("dropped from the decision (the claim file sets drop_noisy_rounds)" if n["dropped"]
            else "kept (the claim file does not set drop_noisy_rounds)")
    return (f"{len(n['noisy'])} of {n['rounds']} rounds noisy (calibration over {n['factor']:g}x "
            f"the best {1e3 * n['best_s']:.1f} ms): {rounds}; {what}")


__all__ = ["VERDICTS", "CLASSES", "decide", "display", "not_measurable", "text", "verdict_class",
           "MISSING"]


def _strict(value):
    """value with every non-finite float (an unobserved mean: NaN) as None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_strict(v) for v in value]
    return value


def json_line(record: dict) -> str:
    """The verdict as one line of strict JSON (verdicts.jsonl): what was not observed is
    null, never NaN, which JSON does not have."""
    return json.dumps(_strict(record), sort_keys=True, allow_nan=False)
