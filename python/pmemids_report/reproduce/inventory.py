"""The claim inventory: every claim each seed paper makes, with its claim files or the
reason none tests it (reproduce/inventory/inventory.toml).

    python -m pmemids_report.reproduce.inventory [--markdown] [--claims DIR]

load(claims_dir) reads and validates it against the claim files of claims_dir (every
id names a claim file, every claim file is named, each entry has ids or a reason, not
both); coverage(...) gives the counts per seed that `pmemids reproduce --list
--coverage` prints; markdown(...) the table docs/reproduce.md holds between its
`<!-- claim-inventory:begin -->` and `<!-- claim-inventory:end -->` lines (a test
checks that the docs hold exactly this).
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .claims import SEEDS, Claim, ClaimError, load_dir

FILE = Path("inventory") / "inventory.toml"
BEGIN, END = "<!-- claim-inventory:begin -->", "<!-- claim-inventory:end -->"
_KEYS = {"seed", "section", "says", "ids", "reason"}


@dataclass(frozen=True)
class Entry:
    seed: str
    section: str
    says: str
    ids: tuple[str, ...] = ()
    reason: str | None = None


def load(claims_dir: Path, claims: list[Claim] | None = None) -> list[Entry]:
    """The inventory of `claims_dir`, checked against its claim files; ClaimError otherwise."""
    path = Path(claims_dir) / FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ClaimError(f"{path}: cannot read: {e}") from e
    claims = load_dir(claims_dir) if claims is None else claims
    known = {c.id for c in claims}
    out = []
    for i, t in enumerate(data.get("claim", [])):
        where = f"{path}: claim[{i}]"
        if not isinstance(t, dict) or set(t) - _KEYS:
            raise ClaimError(f"{where}: accepted keys: {', '.join(sorted(_KEYS))}")
        if t.get("seed") not in SEEDS or not t.get("section") or not t.get("says"):
            raise ClaimError(f"{where}: seed (one of {', '.join(SEEDS)}), section and says are required")
        ids, reason = t.get("ids", []), t.get("reason")
        if bool(ids) == bool(reason):
            raise ClaimError(f"{where}: give ids (its claim files) or a reason, not both")
        for cid in ids:
            if cid not in known:
                raise ClaimError(f"{where}: '{cid}' is not a claim file of {claims_dir}")
            if not cid.startswith(t["seed"] + "-"):
                raise ClaimError(f"{where}: '{cid}' is not a claim of seed {t['seed']}")
        out.append(Entry(t["seed"], t["section"], t["says"], tuple(ids), reason))
    named = {cid for e in out for cid in e.ids}
    missing = sorted(known - named)
    if missing:
        raise ClaimError(f"{path}: claim files no entry names: {', '.join(missing)}")
    return out


def coverage(entries: list[Entry], claims: list[Claim]) -> list[str]:
    """One line per seed and a total: the paper's claims, how many have claim files, how
    many do not, and the claim files."""
    lines = []
    for seed in (*SEEDS, None):
        es = [e for e in entries if seed is None or e.seed == seed]
        files = [c for c in claims if seed is None or c.seed == seed]
        tested = sum(1 for e in es if e.ids)
        name = f"seed {seed}" if seed else "all seeds"
        lines.append(f"{name}: {len(es)} claims in the paper, {tested} with a claim file, "
                     f"{len(es) - tested} without (reason given); {len(files)} claim files")
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown(entries: list[Entry], claims: list[Claim]) -> str:
    rows = ["| seed | section | the paper's claim (our words) | claim files, or why none |",
            "| --- | --- | --- | --- |"]
    for e in entries:
        tested = ", ".join(e.ids) if e.ids else f"none: {e.reason}"
        rows.append(f"| {e.seed} | {_cell(e.section)} | {_cell(e.says)} | {_cell(tested)} |")
    counts = "\n".join(f"- {line}" for line in coverage(entries, claims))
    return counts + "\n\n" + "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="pmemids_report.reproduce.inventory",
                                description="The seeds' claims against the claim files.")
    p.add_argument("--markdown", action="store_true", help="the table of docs/reproduce.md")
    p.add_argument("--claims", type=Path, default=Path(__file__).resolve().parents[3] / "reproduce")
    args = p.parse_args(argv)
    try:
        claims = load_dir(args.claims)
        entries = load(args.claims, claims)
    except ClaimError as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 2
    print(markdown(entries, claims) if args.markdown else "\n".join(coverage(entries, claims)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
