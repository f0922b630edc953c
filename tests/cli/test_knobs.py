"""The structures' knobs: each structure declares its own (name, type, default, range,
help), `list --json` describes them, `run` accepts each as an option whose help is the
descriptor's, and a record's config carries the knobs of the structure that ran and no
other's."""

from __future__ import annotations

import json

from conftest import CATALOG, TINY, WORKLOADS

TYPES = {"unsigned", "real", "flag", "choice"}


def _knobs() -> dict[str, dict]:
    return {k["name"]: k for e in CATALOG for k in e["knobs"]}


def test_list_describes_each_structures_knobs():
    knobs = _knobs()
    assert {"node_keys", "load_factor", "max_height", "wait"} <= set(knobs)
    for e in CATALOG:
        for k in e["knobs"]:
            assert k == knobs[k["name"]], (e["ds"], k)  # one descriptor per name
            assert k["type"] in TYPES and k["help"], k
            assert k["option"] == "--" + k["name"].replace("_", "-"), k
            if k["type"] in ("unsigned", "real"):
                assert k["min"] <= k["max"], k
            if k["type"] == "choice":
                assert k["default"] in k["choices"], k
    by_ds = {e["ds"]: {k["name"] for k in e["knobs"]} for e in CATALOG}
    assert by_ds["btree"] == by_ds["bplustree"] == {"node_keys"}
    assert by_ds["hashtable"] == {"load_factor"} and by_ds["arraylist"] == set()
    assert "persist_requests" in by_ds["stack-dfc"] and "persist_requests" not in by_ds["stack-pbcomb"]


def test_run_help_offers_every_knob_with_its_help(pmemids):
    r = pmemids("run", "--help")
    assert r.returncode == 0, r.describe()
    text = " ".join(r.stdout.split())
    for k in _knobs().values():
        assert f"{k['option']} " in r.stdout, k
        assert " ".join(k["help"].split()) in text, k


def test_a_record_carries_the_knobs_of_its_structure_only(pmemids):
    knobs = set(_knobs())
    own = {e["ds"]: {k["name"] for k in e["knobs"]} for e in CATALOG}
    r = pmemids.run("--ds", "arraylist,hashtable,btree", "--mode", "dram", "-P",
                    WORKLOADS / "pmemids-write", *TINY, "--node-keys", "5", "--wait", "yield")
    assert r.returncode == 0, r.describe()
    stack = pmemids.run("--ds", "stack-dfc,stack-pbcomb", "--mode", "dram", "-P",
                        WORKLOADS / "stack-pushpop", "-p", "operationcount=200", "--wait", "yield")
    assert stack.returncode == 0, stack.describe()
    records = r.new_records + stack.new_records
    assert [x["config"]["ds"] for x in records] == ["arraylist", "hashtable", "btree", "stack-dfc",
                                                   "stack-pbcomb"]
    for x in records:
        c = x["config"]
        assert knobs & set(c) == own[c["ds"]], c
    assert records[1]["config"]["load_factor"] == 0.75
    assert records[2]["config"]["node_keys"] == 5
    assert records[3]["config"]["wait"] == records[4]["config"]["wait"] == "yield"
    assert records[3]["config"]["persist_requests"] == "on"
    assert records[4]["config"]["combining_rounds"] == 20
