"""The report warns when the records it compares come from different builds or machines
(checks.MIXED_KEYS): hosts, CPU models, revisions, PMEM kinds, build types, PMDK versions
and libpmemobj's linkage (a static libpmemobj runs a transaction in fewer instructions than
the shared library, so the two are not one configuration)."""

from __future__ import annotations

import pandas as pd
import pytest

from conftest import fixture_lines, real_records_with
from pmemids_report import checks


def records_with(tmp_path, contexts: dict[int, dict]):
    return real_records_with(tmp_path, contexts, section="context")


@pytest.mark.parametrize("key, a, b, what", [
    ("libpmemobj_link", "static", "shared", "libpmemobj linkages"),
    ("pmdk_version", "1.12.1", "1.11.1", "PMDK versions"),
])
def test_records_of_two_builds_are_warned(tmp_path, key, a, b, what):
    recs = records_with(tmp_path, {0: {key: a}, 1: {key: b}})
    text = " ".join(checks.warnings(recs, pd.DataFrame()))
    assert f"different {what}" in text and f"{a} (" in text and f"{b} (" in text, text


def test_one_linkage_is_not_warned(tmp_path):
    n = len(fixture_lines("real.jsonl"))
    recs = records_with(tmp_path, {i: {"libpmemobj_link": "static"} for i in range(n)})
    assert "libpmemobj linkages" not in " ".join(checks.warnings(recs, pd.DataFrame()))
