"""Verdicts as the seeds state them (issue 25), on synthetic records: a label never hides
a failing software check, [[require]] conditions met and not met, seed_range magnitudes
within and outside, equivalence (TOST) and `outside` decided both ways, a metric minus
a configuration field, DAX read from the records, the CPU named, the sanity class, and
the README summary line counting a verdicts file's classes."""

from __future__ import annotations

import json

import pytest

from pmemids_report.reproduce import claims, evaluate, predicate, table, verdict
from test_reproduce_engine import claim_file, frame, noisy, record

SOFT = ("ratio(select(mode=pmem-trans), select(mode=pmem-persist), metric=ops_per_sec, "
        "by=[ds]) < 1 for all")
MEDIA = ("ratio(select(mode=dram), select(mode=pmem-persist), metric=ops_per_sec, "
         "by=[ds]) > 1.5 for all")


def two_checks(label2: str = "media", extra: str = "") -> str:
    return (f'{extra}[[sweep]]\nfile = "sweeps/s.toml"\n'
            f'[[check]]\nwhat = "software"\npredicate = "{SOFT}"\n'
            f'[[check]]\nwhat = "media"\npredicate = "{MEDIA}"\nlabel = "{label2}"\n')


def recs(trans: float, dram: float = 3e6, spread: float = 0.02, n: int = 5) -> list[dict]:
    out = []
    for ds in ("btree", "rbtree"):
        out += noisy(ds, "pmem-persist", 1e6, spread, n=n) + noisy(ds, "pmem-trans", trans, spread, n=n)
        out += noisy(ds, "dram", dram, spread, n=n)
    return out


def decide(tmp_path, body: str, records: list[dict], metrics=("ops_per_sec",), cid="001-X1"):
    c = claims.load(claim_file(tmp_path, body, cid))
    df, sk = frame(tmp_path, records, metrics=tuple(set(metrics) | c.metrics()), name=f"{cid}.jsonl")
    return verdict.decide(c, "quick", df, sk, [])


# ------------------------------------------------------------------ labels


def test_a_label_never_hides_a_failing_software_check(tmp_path):
    # The software check fails (trans faster than persist); the media check holds.
    v = decide(tmp_path, two_checks(), recs(trans=2e6))
    assert v["class"] == "not reproduced" and v["verdict"] == "not reproduced"
    assert v["display"] == ("not reproduced (check 2, media property: measured reproduced, "
                            "2 of 2 groups hold)")
    assert [c["label_applies"] for c in v["checks"]] == [False, True]
    first = verdict.text(v).splitlines()[0]
    assert first == "001-X1 [quick] " + v["display"]
    assert "[media property: shown, not deciding]" in verdict.text(v)


def test_a_media_only_claim_shows_its_measured_outcome(tmp_path):
    body = ('[needs]\nmedia = true\n[[sweep]]\nfile = "sweeps/s.toml"\n'
            f'[[check]]\nwhat = "media"\npredicate = "{MEDIA}"\n')
    v = decide(tmp_path, body, recs(trans=5e5, dram=5e5))  # DRAM slower: the media check fails
    assert v["verdict"] == verdict.MEDIA and v["class"] == "media property"
    assert v["outcome"] == "not reproduced"
    assert v["display"] == f"{verdict.MEDIA} (measured: not reproduced, 2 of 2 groups fail)"


def test_media_label_decides_on_real_pmem(tmp_path):
    rs = recs(trans=5e5)
    for r in rs:
        r["context"]["pmem"] = "real"
    v = decide(tmp_path, two_checks(), rs)
    assert v["verdict"] == "reproduced" and v["display"] == "reproduced"
    assert v["checks"][1]["label_applies"] is False


def test_dax_is_read_from_the_records_store_granularity(tmp_path):
    body = ('[[sweep]]\nfile = "sweeps/s.toml"\n'
            f'[[check]]\nwhat = "msync"\npredicate = "{SOFT}"\nlabel = "dax"\n')
    rs = recs(trans=5e5)
    for r in rs:
        r["context"].update(store_granularity="page", pool_fs="tmpfs")
    v = decide(tmp_path, body, rs)
    assert v["verdict"] == "not measurable here: no DAX file system (pool directory on tmpfs)"
    assert v["display"].endswith("(measured: reproduced, 2 of 2 groups hold)")
    for g in ("cache-line", "byte"):
        for r in rs:
            r["context"].update(store_granularity=g, pool_fs="ext4")
        assert decide(tmp_path, body, rs, cid=f"001-X{len(g)}")["verdict"] == "reproduced"


def test_sanity_checks_are_counted_apart(tmp_path):
    body = ('[[sweep]]\nfile = "sweeps/s.toml"\n'
            f'[[check]]\nwhat = "cannot fail"\npredicate = "{SOFT}"\nlabel = "sanity"\n')
    assert decide(tmp_path, body, recs(trans=5e5))["verdict"] == "sanity"
    # A sanity check is decided: failing, it is not reproduced.
    assert decide(tmp_path, body, recs(trans=2e6), cid="001-X2")["verdict"] == "not reproduced"
    # Beside a reproduced real check, the claim is reproduced.
    v = decide(tmp_path, two_checks("sanity"), recs(trans=5e5), cid="001-X3")
    assert v["verdict"] == "reproduced"


def test_the_cpu_is_named_beside_the_seeds(tmp_path):
    body = 'seed_cpu = "Intel Cascade Lake"\n' + two_checks()
    rs = recs(trans=5e5)
    for r in rs:
        r["context"]["cpu_model"] = "AMD EPYC"
    v = decide(tmp_path, body, rs)
    assert v["cpu"] == {"measured": ["AMD EPYC"], "vendor": ["AMD"], "seed": "Intel Cascade Lake"}
    assert v["display"].endswith("[ran on AMD EPYC; the seed on Intel Cascade Lake]")


# ------------------------------------------------------------------ requirements


REQUIRE = ('[[require]]\nwhat = "a working set at least 4x the LLC"\n'
           'predicate = "value(select(mode=pmem-persist|pmem-trans), metric=footprint_bytes/llc_bytes, '
           'by=[ds, mode]) >= 4 for all"\n')


def with_footprint(rs: list[dict], footprint: int) -> list[dict]:
    for r in rs:
        r["metrics"]["footprint_bytes"] = footprint
        r["context"]["llc_bytes"] = 32 << 20
    return rs


def test_require_not_met_is_not_measurable_naming_the_value(tmp_path):
    body = REQUIRE + '[[sweep]]\nfile = "sweeps/s.toml"\n' + f'[[check]]\nwhat = "w"\npredicate = "{SOFT}"\n'
    v = decide(tmp_path, body, with_footprint(recs(trans=5e5), 16 << 20))
    assert v["class"] == "not measurable here"
    assert v["verdict"] == ("not measurable here: a working set at least 4x the LLC not achieved "
                            "(measured footprint_bytes/llc_bytes 0.5 over 4 groups: 4 fail (needs 4))")
    assert v["outcome"] == "reproduced"  # the checks are still measured and shown
    assert v["display"].endswith("(checks measured: reproduced, 2 of 2 groups hold)")
    assert "requires 1: a working set at least 4x the LLC: not met (0.5 over 4 groups" in verdict.text(v)


def test_require_met_decides_as_before(tmp_path):
    body = REQUIRE + '[[sweep]]\nfile = "sweeps/s.toml"\n' + f'[[check]]\nwhat = "w"\npredicate = "{SOFT}"\n'
    v = decide(tmp_path, body, with_footprint(recs(trans=5e5), 256 << 20))
    assert v["verdict"] == "reproduced" and v["requires"][0]["outcome"] == "reproduced"
    v = decide(tmp_path, body, with_footprint(recs(trans=2e6), 256 << 20), cid="001-X2")
    assert v["verdict"] == "not reproduced"


def test_a_metric_minus_a_configuration_field(tmp_path):
    rs = recs(trans=5e5)
    for i, r in enumerate(rs):
        r["config"]["readmissrate"] = 0.5
        r["metrics"]["hit_ratio_achieved"] = 0.5 + (0.01 if i % 2 else -0.01)
    df, _ = frame(tmp_path, rs, metrics=("hit_ratio_achieved-readmissrate",))
    res = evaluate.evaluate(predicate.parse(
        "value(select(mode=pmem-persist), metric=hit_ratio_achieved-readmissrate, by=[ds]) "
        "within -0.05..0.05 for all"), df)
    assert res.outcome == "reproduced" and abs(res.groups[0].estimate) < 0.01
    assert predicate.parse("value(select(), metric=a-b) > 0").metrics() == ("a", "b")


# ------------------------------------------------------------------ magnitudes


def magnitude_claim(span: str) -> str:
    return (f'[[sweep]]\nfile = "sweeps/s.toml"\n[[check]]\nwhat = "w"\npredicate = "{SOFT}"\n'
            f'seed_range = {span}\n')


def test_seed_range_within(tmp_path):
    v = decide(tmp_path, magnitude_claim("[0.35, 0.45]"), recs(trans=4e5))
    m = v["checks"][0]["magnitude"]
    assert m["within"] and m["meets"] == 2
    assert v["display"].startswith("reproduced (direction); magnitude 0.")
    assert "vs the seed's 0.35-0.45x: within (2 of 2 groups' intervals meet it, needs 2)" in v["display"]


def test_seed_range_outside(tmp_path):
    v = decide(tmp_path, magnitude_claim("[0.05, 0.1]"), recs(trans=4e5))
    m = v["checks"][0]["magnitude"]
    assert not m["within"] and m["meets"] == 0
    assert v["class"] == "reproduced"  # the direction decides the class
    assert "vs the seed's 0.05-0.1x: outside (0 of 2" in v["display"]


def test_seed_range_overlap_is_decided_with_the_interval(tmp_path):
    # Point estimates near 0.4, outside [0.5, 0.6], but wide intervals reach it: within.
    v = decide(tmp_path, magnitude_claim("[0.5, 0.6]"), recs(trans=4e5, spread=0.3, n=3))
    g = v["checks"][0]["groups"]
    assert all(x["estimate"] < 0.5 <= x["ci"][1] for x in g)
    assert v["checks"][0]["magnitude"]["within"]


# ------------------------------------------------------------------ equivalence and outside


def pair(ratio: float, spread: float, n: int = 5) -> list[dict]:
    return noisy("btree", "pmem-persist", 1e6, spread, n=n) + noisy("btree", "pmem-trans", ratio * 1e6, spread, n=n)


RATIO = "ratio(select(mode=pmem-trans), select(mode=pmem-persist), metric=ops_per_sec) {}"


@pytest.mark.parametrize("ratio,spread,outcome", [
    (1.02, 0.01, "reproduced"),      # the whole interval inside the margin: equivalent
    (1.5, 0.01, "not reproduced"),   # wholly outside: different by more than the margin
    (1.08, 0.3, "within noise"),     # straddles the margin
])
def test_equivalence_is_decided_both_ways(tmp_path, ratio, spread, outcome):
    df, _ = frame(tmp_path, pair(ratio, spread))
    res = evaluate.evaluate(predicate.parse(RATIO.format("equivalent 0.9..1.11")), df)
    assert res.outcome == outcome
    # TOST's interval: two one-sided tests at 5% each, the 90% interval of one group.
    assert res.level == pytest.approx(0.90)


def test_equivalence_uses_a_narrower_interval_than_within(tmp_path):
    df, _ = frame(tmp_path, pair(1.0, 0.06, n=4))
    eq = evaluate.evaluate(predicate.parse(RATIO.format("equivalent 0.93..1.075")), df)
    wi = evaluate.evaluate(predicate.parse(RATIO.format("within 0.93..1.075")), df)
    lo_eq, hi_eq = eq.groups[0].ci
    lo_wi, hi_wi = wi.groups[0].ci
    assert lo_wi < lo_eq < hi_eq < hi_wi


@pytest.mark.parametrize("ratio,outcome", [(1.3, "reproduced"), (0.7, "reproduced"), (1.0, "not reproduced")])
def test_outside_is_a_difference_either_way(tmp_path, ratio, outcome):
    df, _ = frame(tmp_path, pair(ratio, 0.01))
    assert evaluate.evaluate(predicate.parse(RATIO.format("outside 0.9..1.11")), df).outcome == outcome


# ------------------------------------------------------------------ the README's summary line


def test_readme_summary_counts_match_the_verdicts_file(tmp_path):
    fixture = [
        {"claim": {"id": "001-A", "section": "§1"}, "scale": "quick", "verdict": "reproduced",
         "class": "reproduced", "outcome": "reproduced", "measured": None, "checks": []},
        {"claim": {"id": "001-B", "section": "§1"}, "scale": "quick", "verdict": "not reproduced",
         "class": "not reproduced", "outcome": "not reproduced", "measured": None, "checks": []},
        {"claim": {"id": "002-C", "section": "§2"}, "scale": "quick", "verdict": verdict.MEDIA,
         "class": "media property", "outcome": "reproduced", "measured": "measured: reproduced", "checks": []},
        {"claim": {"id": "002-D", "section": "§2"}, "scale": "quick",
         "verdict": "not measurable here: 1 NUMA node (needs 2)", "class": "not measurable here",
         "outcome": None, "measured": "not run", "checks": []},
        {"claim": {"id": "003-E", "section": "§3"}, "scale": "quick", "verdict": "sanity",
         "class": "sanity", "outcome": "reproduced", "measured": None, "checks": []},
        {"claim": {"id": "003-F", "section": "§3"}, "scale": "quick", "verdict": "within noise",
         "class": "within noise", "outcome": "within noise", "measured": None, "checks": []},
        # An older verdict of 001-B: only the last one counts.
        {"claim": {"id": "001-B", "section": "§1"}, "scale": "quick", "verdict": "reproduced",
         "class": "reproduced", "outcome": "reproduced", "measured": None, "checks": []},
    ]
    fixture.insert(0, fixture.pop())
    path = tmp_path / "verdicts.jsonl"
    path.write_text("".join(json.dumps(v) + "\n" for v in fixture))
    text = table.markdown(table.latest(path), None)
    expected = {"reproduced": 1, "not reproduced": 1, "within noise": 1, "not measurable here": 1,
                "media property": 1, "sanity": 1, "not run": 0}
    line = next(ln for ln in text.splitlines() if ln.startswith("Verdicts: "))
    assert line == "Verdicts: " + ", ".join(f"{n} {k}" for k, n in expected.items()) + "."
    # Whatever follows the class (a magnitude, a CPU) does not change it.
    assert verdict.verdict_class("within noise [ran on AMD EPYC; the seed on Intel]") == "within noise"
    assert verdict.verdict_class("reproduced (direction); magnitude 1x") == "reproduced"
    # The counts are the rows': recount them from the table itself.
    rows = [ln for ln in text.splitlines() if ln.startswith("| 00")]
    assert {k: sum(1 for r in rows if table.row_class(r) == k) for k in expected} == expected
    assert "| 002-C | §2 | media property: not expected on emulated PMEM (measured: reproduced) |" in text
    assert "| 002-D | §2 | not measurable here: 1 NUMA node (needs 2) (not run) |" in text


def test_claims_without_a_verdict_are_rows_that_say_not_run(tmp_path):
    claim_file(tmp_path, f'[[sweep]]\nfile = "sweeps/s.toml"\n[[check]]\nwhat = "w"\npredicate = "{SOFT}"\n', "001-Y")
    path = tmp_path / "verdicts.jsonl"
    path.write_text("")
    text = table.markdown([], None, claims.load_dir(tmp_path / "reproduce"))
    assert "| 001-Y | §1 | not run (no verdict made with this claim file yet) | – |" in text
    assert "0 reproduced" in text and "1 not run." in text


def test_a_verdict_line_is_strict_json_with_unobserved_means_as_null():
    """A check over a metric no record observed has NaN means; verdicts.jsonl held them as
    `NaN`, which is not JSON, so the next reproduce into the same --out refused its own
    file ("invalid JSON: 'NaN'")."""
    import math

    from pmemids_report.reproduce import verdict

    def refuse(constant):
        raise AssertionError(f"not JSON: {constant}")

    record = {"checks": [{"groups": [{"mean": [math.nan, 1.5], "n": [0, 3]}]}], "ratio": math.inf}
    line = verdict.json_line(record)
    parsed = json.loads(line, parse_constant=refuse)
    assert parsed["checks"][0]["groups"][0]["mean"] == [None, 1.5]
    assert parsed["ratio"] is None
    assert "\n" not in line
