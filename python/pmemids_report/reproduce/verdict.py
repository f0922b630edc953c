"""A claim's verdict from its checks, and the verdict record.

Verdicts (VERDICTS):
  reproduced                 every check reproduced
  not reproduced             some check not reproduced (the difference is outside the noise,
                             the other way)
  within noise               neither: some check's groups are within noise
  not measurable here: <why> the machine or binary lacks what the claim needs (nothing is
                             run), or every configuration a check selects was skipped (the
                             runs' reasons)
  media property: not expected on emulated PMEM
                             the claim is about Optane media and the records were measured on
                             emulated PMEM; the measured outcome is kept in `outcome`

The record (one JSON line, schema_version 1, recognised by the report by its `claim`
object) carries the claim, the scale, the verdict, the statistical outcome, every check
with every group's numbers, the test, the records' hosts and PMEM kind, and the load
average of the machine when the verdict was made.
"""

from __future__ import annotations

import datetime
import math
import os

import pandas as pd

from .claims import Claim
from .evaluate import MISSING, TEST_TEXT, CheckResult, EvaluationError, evaluate

REPRODUCED, NOT_REPRODUCED, NOISE = "reproduced", "not reproduced", "within noise"
NOT_MEASURABLE = "not measurable here"
MEDIA = "media property: not expected on emulated PMEM"
VERDICTS = (REPRODUCED, NOT_REPRODUCED, NOISE, NOT_MEASURABLE, MEDIA)


def combine(outcomes: list[str]) -> str:
    if any(o == NOT_REPRODUCED for o in outcomes):
        return NOT_REPRODUCED
    if outcomes and all(o == REPRODUCED for o in outcomes):
        return REPRODUCED
    return NOISE


def not_measurable(claim: Claim, scale: str, why: str) -> dict:
    return _record(claim, scale, f"{NOT_MEASURABLE}: {why}", None, [], rows=None)


def decide(claim: Claim, scale: str, rows: pd.DataFrame, skipped: pd.DataFrame,
           files: list[str]) -> dict:
    """The verdict record of `claim` over run rows (metrics as columns) and skipped rows."""
    results: list[tuple[object, CheckResult]] = []
    for c in claim.checks:
        try:
            results.append((c, evaluate(c.check, rows, c.seed_values, skipped)))
        except EvaluationError as e:
            raise EvaluationError(f"{claim.path}: {c.predicate}: {e}") from e
    empty = [r for _, r in results if r.outcome == "no data"]
    if empty:
        why = "; ".join(dict.fromkeys(r.reason for r in empty))
        record = _record(claim, scale, f"{NOT_MEASURABLE}: {why}", None, results, rows)
    else:
        outcome = combine([r.outcome for _, r in results])
        emulated = "pmem" in rows and (rows["pmem"] == "emulated").any()
        verdict = MEDIA if claim.needs.media and emulated else outcome
        record = _record(claim, scale, verdict, outcome, results, rows)
    record["records"] = files
    return record


def _record(claim: Claim, scale: str, verdict: str, outcome: str | None, results, rows) -> dict:
    checks = []
    for c, r in results:
        checks.append({
            "what": c.what, "predicate": c.predicate, "seed_figure": c.seed_figure,
            "outcome": r.outcome, "summary": r.summary(c.check.function),
            "needed": r.needed, "groups_total": len(r.groups),
            "level": r.level, "groups": [g.to_json() for g in r.groups],
            "skipped": r.skipped})
    hosts = sorted(set(rows["hostname"].dropna())) if rows is not None and "hostname" in rows else []
    pmem = sorted(set(rows["pmem"].dropna())) if rows is not None and "pmem" in rows else []
    return {
        "schema_version": 1,
        "claim": {"id": claim.id, "seed": claim.seed, "section": claim.section, "text": claim.claim,
                  "cause": list(claim.cause), "figure": claim.figure, "seed_says": claim.seed_says,
                  "needs": claim.needs.text(), "file": str(claim.path)},
        "scale": scale,
        "verdict": verdict,
        "outcome": outcome,
        "test": TEST_TEXT,
        "checks": checks,
        "ours": "; ".join(ch["summary"] for ch in checks) if checks else None,
        "hosts": hosts,
        "pmem": pmem,
        "timestamp": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        # The machine's load when the verdict was made: on a shared machine, the noise's cause.
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def _pct(v) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{100 * v:.1f}%"


def _num(v, ratio: bool) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.3g}x" if ratio else f"{v:.4g}"


def text(record: dict) -> str:
    """The verdict as printed by `pmemids reproduce`."""
    c = record["claim"]
    lines = [f"{c['id']} [{record['scale']}] {record['verdict']}",
             f"  seed {c['seed']} {c['section']}: {c['text']}"]
    if record["verdict"] == NOISE:
        lines.append("  (neither reproduced nor not reproduced at the stated level: some groups' "
                     "intervals straddle the threshold; more repetitions or a quieter machine may decide it)")
    if record.get("outcome") and record["outcome"] != record["verdict"]:
        lines.append(f"  measured outcome: {record['outcome']}")
    if record.get("hosts"):
        lines.append(f"  measured on {', '.join(record['hosts'])} ({', '.join(record['pmem'])} PMEM)")
    if c.get("seed_says"):
        lines.append(f"  seed says: {c['seed_says']}")
    for i, ch in enumerate(record["checks"], start=1):
        lines.append(f"  check {i}: {ch['what']}: {ch['outcome']} ({ch['summary']})")
        lines.append(f"    {ch['predicate']}")
        if ch.get("seed_figure"):
            lines.append(f"    seed: {ch['seed_figure']}")
        ratio = ch["predicate"].lstrip().startswith("ratio")
        level = f"{100 * ch['level']:.2f}% CI" if ch.get("level") else "CI"
        rows = [("group", "ours", level, "n", "cv", "seed", "result")]
        for g in ch["groups"]:
            ci = f"[{_num(g['ci'][0], ratio)}, {_num(g['ci'][1], ratio)}]" if g["ci"] else "-"
            rows.append((g["group"], _num(g["estimate"], ratio), ci,
                         "/".join(str(n) for n in g["n"]) or "-",
                         "/".join(_pct(v) for v in g["cv"]) or "-",
                         _num(g["seed_value"], ratio) if g["seed_value"] is not None else "-",
                         g["status"] + (f" ({g['note']})" if g.get("note") else "")))
        widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]) - 1)]
        for r in rows:
            lines.append("    " + "  ".join(v.ljust(w) for v, w in zip(r, widths)) + "  " + r[-1])
        if ch.get("skipped"):
            lines.append(f"    skipped configurations: {'; '.join(ch['skipped'])}")
    if record["checks"]:
        lines.append(f"  test: {record['test']}")
    return "\n".join(lines)


__all__ = ["VERDICTS", "decide", "not_measurable", "text", "MISSING"]
