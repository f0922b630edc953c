"""The documented transaction shapes are the ones pmemids logs (issue 30).

docs/performance.md, "Transaction shapes", tabulates per structure and operation what a
pmem-trans transaction logs (ranges, bytes, the changes they cover, allocations, frees,
libpmemobj's fences and written-back lines), as `scripts/tx-shapes.sh` prints it. Every
key-value structure that runs in pmem-trans (by its traits in `pmemids list --json`) has
its three rows there, and the script, run again, prints the same figures: counts, not
times, so they are exact on any machine. A change that logs one more range on a path taken
by one operation in 100 moves a figure by 0.01 and fails here; a structure added to the
catalog fails until its rows are documented. Besides, the unit suite `TxShapeTest`
(tests/unit/tx_shape_test.cc) holds every single operation to its design's minimum.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from conftest import REPO, names

DOC = REPO / "docs" / "performance.md"
SECTION = "## Transaction shapes"
HEADER = ("structure", "operation", "ranges", "bytes", "changes", "allocs", "frees",
          "lib fences", "lib lines")
OPERATIONS = ("insert", "update", "delete")
TX_KV = names(lambda e: e["operation_set"] in ("kv", "ordered-kv") and "pmem-trans" in e["modes"])


def _table_rows(lines: list[str]) -> dict[tuple[str, str], tuple[str, ...]]:
    """The rows of the first markdown table in `lines` whose header begins with HEADER, by
    (structure, operation): the figures of HEADER's columns, as written."""
    rows: dict[tuple[str, str], tuple[str, ...]] = {}
    in_table = False
    for line in lines:
        cells = tuple(c.strip() for c in line.strip().strip("|").split("|"))
        if not in_table:
            in_table = line.startswith("|") and cells[:len(HEADER)] == HEADER
            continue
        if not line.startswith("|"):
            break
        if set(cells[0]) <= set("-: "):
            continue
        rows[cells[:2]] = cells[2:len(HEADER)]
    return rows


def documented() -> dict[tuple[str, str], tuple[str, ...]]:
    text = DOC.read_text().splitlines()
    start = next(i for i, l in enumerate(text) if l.startswith(SECTION))
    return _table_rows(text[start + 1:])


def test_the_table_is_found_and_names_only_listed_structures():
    rows = documented()
    assert rows, f"{DOC}: no table under '{SECTION}' with the columns {HEADER}"
    assert {ds for ds, _ in rows} <= set(TX_KV), \
        f"{DOC}, '{SECTION}': rows for structures that are not key-value ones of pmem-trans"


def test_the_table_parser_reads_rows_and_stops_at_the_table_end():
    lines = ["| " + " | ".join(HEADER) + " | before |", "| --- | --- |",
             "| a | insert | 1.00 | 2.00 | 3.00 | 4.00 | 5.00 | 6.00 | 7.00 | x |",
             "", "| b | insert | 9 | 9 | 9 | 9 | 9 | 9 | 9 |"]
    assert _table_rows(["| other | header |", "| --- |", *lines]) == {
        ("a", "insert"): ("1.00", "2.00", "3.00", "4.00", "5.00", "6.00", "7.00")}


@pytest.mark.parametrize("ds", TX_KV)
def test_shape_is_the_documented_one(ds, binary, pool_dir):
    rows = documented()
    missing = [op for op in OPERATIONS if (ds, op) not in rows]
    assert not missing, (
        f"{ds} runs in pmem-trans but {DOC.relative_to(REPO)}, '{SECTION}', has no row for "
        f"its {', '.join(missing)}: run scripts/tx-shapes.sh {ds} and add its rows")
    env = dict(os.environ, PMEMIDS_BIN=str(binary), PMEMIDS_POOL_DIR=str(pool_dir))
    p = subprocess.run([str(REPO / "scripts" / "tx-shapes.sh"), ds], capture_output=True,
                       text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    measured = _table_rows(p.stdout.splitlines())
    for op in OPERATIONS:
        assert measured[(ds, op)] == rows[(ds, op)], (
            f"{ds} {op}: measured {dict(zip(HEADER[2:], measured[(ds, op)]))}, documented "
            f"{dict(zip(HEADER[2:], rows[(ds, op)]))}")
