"""reproduction.html: the verdicts of `pmemids reproduce` found among the inputs.

One row per (claim, scale) — the last verdict record of each in input order — with the
seed's figure, ours, the verdict with the measured outcome beside any label
(reproduce.verdict.display) and a link to the report figure the claim is about
(the figure whose id is the claim's `figure`, or the first whose id starts with it and
an underscore); then each claim's checks with every group's numbers and the test.
Written only when the inputs hold verdict records; index.html links to it.
"""

from __future__ import annotations

import math
from pathlib import Path

import jinja2

from .load import Record
from .reproduce.verdict import display, verdict_class

PAGE = "reproduction.html"
VERDICT_CLASS = {"reproduced": "ok", "not reproduced": "bad", "within noise": "noise",
                 "sanity": "sanity"}


def latest(records: list[Record]) -> list[dict]:
    """The last verdict of each (claim id, scale), ordered by claim id then scale."""
    last: dict[tuple[str, str], dict] = {}
    for r in records:
        if r.kind == "verdict":
            last[(r.data["claim"]["id"], r.data["scale"])] = r.data
    return [last[k] for k in sorted(last)]


def figure_link(prefix: str | None, figure_ids: list[str]) -> str | None:
    if not prefix:
        return None
    for fid in figure_ids:
        if fid == prefix or fid.startswith(prefix + "_"):
            return fid
    return None


def css_class(verdict: str) -> str:
    kind = verdict_class(verdict)
    if kind == "not measurable here":
        return "na"
    if kind == "media property":
        return "media"
    return VERDICT_CLASS.get(kind, "")


def _fmt(v, ratio: bool) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{v:.3g}×" if ratio else f"{v:.4g}"


def _groups(check: dict) -> list[dict]:
    ratio = check["predicate"].lstrip().startswith("ratio")
    out = []
    for g in check.get("groups", []):
        ci = g.get("ci")
        out.append({"group": g["group"], "ours": _fmt(g.get("estimate"), ratio),
                    "ci": f"[{_fmt(ci[0], ratio)}, {_fmt(ci[1], ratio)}]" if ci else "–",
                    "n": "/".join(str(n) for n in g.get("n", [])) or "–",
                    "cv": "/".join("–" if c is None else f"{100 * c:.1f}%" for c in g.get("cv", [])) or "–",
                    "seed": _fmt(g.get("seed_value"), ratio) if g.get("seed_value") is not None else "–",
                    "test": g.get("test") or "–", "status": g["status"], "note": g.get("note") or ""})
    return out


def _check(ch: dict, requirement: bool = False) -> dict:
    return {"label": None, "label_applies": False, "magnitude": None, "seed_figure": None,
            "level": None, "skipped": [], **ch, "requirement": requirement, "rows": _groups(ch)}


def render(out_dir: Path, verdicts: list[dict], figure_ids: list[str]) -> Path:
    rows = []
    for v in verdicts:
        c = v["claim"]
        seed_parts = [c.get("seed_says")] + [ch.get("seed_figure") for ch in v.get("checks", [])]
        rows.append({
            "id": c["id"], "scale": v["scale"], "seed": c["seed"], "section": c["section"],
            "text": c["text"], "cause": ", ".join(c.get("cause", [])), "needs": c.get("needs", ""),
            "seed_figure": "; ".join(p for p in seed_parts if p) or "–",
            "ours": v.get("ours") or "–", "verdict": v.get("display") or display(v),
            "class": css_class(v["verdict"]), "kind": verdict_class(v["verdict"]),
            "outcome": v.get("outcome"), "figure": figure_link(c.get("figure"), figure_ids),
            "hosts": ", ".join(v.get("hosts", [])), "pmem": ", ".join(v.get("pmem", [])),
            "test": v.get("test"), "timestamp": v.get("timestamp"),
            "checks": [_check(ch, requirement=True) for ch in v.get("requires", [])]
                      + [_check(ch) for ch in v.get("checks", [])],
        })
    env = jinja2.Environment(loader=jinja2.PackageLoader("pmemids_report", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["kind"]] = counts.get(r["kind"], 0) + 1
    path = out_dir / PAGE
    path.write_text(env.get_template("reproduction.html.j2").render(rows=rows, counts=counts),
                    encoding="utf-8")
    return path
