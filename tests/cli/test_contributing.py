"""CONTRIBUTING.md's steps name files and symbols as the code has them: a step that
names a file or a symbol that no longer exists (a registry line the catalog
replaced, a trait renamed) fails here (issue 27)."""
from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCES = "\n".join(p.read_text(errors="replace") for d in ("src", "include", "tests", "python")
                    for p in (REPO / d).rglob("*")
                    if p.suffix in (".h", ".cc", ".py") and p != Path(__file__).resolve())
# `kName`, `RootHeader`, `repair_leaks`, `OpSet::kOrderedKv`, `b.follow`,
# `CatalogPairs<Keep>`, `entry<X>("...")`: an identifier, maybe qualified, maybe a
# template (then `name<` must occur), maybe called
SYMBOL = re.compile(r"(?:b\.)?(?:\w+::)?([A-Za-z_]\w*)(<[^>`]*>)?(?:\(.*\))?")


def spans(text: str) -> list[str]:
    return re.findall(r"`([^`\n]+)`", text)


def missing_paths(text: str) -> list[str]:
    paths = [s for s in spans(text)
             if re.fullmatch(r"(src|tests|python|scripts|docs|include)/[\w./-]+", s)]
    return [p for p in paths if "<" not in p and not (REPO / p).exists()]


def missing_symbols(text: str) -> list[str]:
    out = []
    for s in spans(text):
        m = SYMBOL.fullmatch(s)
        if not m or s.startswith(("pmemids", "--")) or "/" in s:
            continue
        name, template = m.group(1), m.group(2)
        if not (template or "_" in name or re.search(r"[A-Z]", name)):
            continue  # plain words (`read`, `check`) name operations, not one symbol
        pattern = rf"\b{re.escape(name)}<" if template else rf"\b{re.escape(name)}\b"
        if not re.search(pattern, SOURCES):
            out.append(s)
    return out


def test_every_path_and_symbol_it_names_exists():
    text = (REPO / "CONTRIBUTING.md").read_text()
    assert not missing_paths(text), f"CONTRIBUTING.md names files that do not exist: {missing_paths(text)}"
    assert not missing_symbols(text), f"CONTRIBUTING.md names symbols no source has: {missing_symbols(text)}"


def test_a_stale_step_is_caught():
    stale = "3. **Register it**: one `entry<X>(\"description\")` line in `src/run/registry.cpp`."
    assert missing_symbols(stale) == ['entry<X>("description")']
    assert missing_paths(stale) == ["src/run/registry.cpp"]
