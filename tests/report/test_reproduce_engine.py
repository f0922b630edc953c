"""The claims engine without the binary: the predicate language, the test over
repetitions on fixture records (reproduced, not reproduced, within noise, not
measurable), hosts kept apart, and claim-file validation."""

from __future__ import annotations

import copy
import json
import math
import random
from pathlib import Path

import pytest

from conftest import FIXTURES
from pmemids_report import fields
from pmemids_report.load import read_records
from pmemids_report.reproduce import claims, evaluate, machine, predicate, rows, tdist, verdict

TEMPLATE = json.loads((FIXTURES / "single.jsonl").read_text().splitlines()[0])
REPO = Path(__file__).resolve().parents[2]


def record(ds: str, mode: str, ops: float, rep: int = 0, workload: str = "pmemids-write",
           host: str = "vm", **metrics) -> dict:
    r = copy.deepcopy(TEMPLATE)
    r["config"].update(ds=ds, mode=mode, workload=workload, repetition=rep)
    r["context"]["hostname"] = host
    r["metrics"].update(ops_per_sec=ops, **metrics)
    return r


def noisy(ds, mode, mean, spread, n=5, seed=0, **kw) -> list[dict]:
    rng = random.Random(f"{ds}{mode}{mean}{seed}")
    return [record(ds, mode, mean * (1 + rng.uniform(-spread, spread)), rep=i, **kw) for i in range(n)]


def frame(tmp_path, recs: list[dict], metrics=("ops_per_sec",), name="r.jsonl"):
    p = tmp_path / name
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    records = read_records([str(p)])
    return rows.run_rows(records, set(metrics)), rows.skipped_rows(records)


TRANS_BELOW_PERSIST = ("ratio(select(mode=pmem-trans), select(mode=pmem-persist), metric=ops_per_sec, "
                       "by=[ds]) < 1 for all")

# ------------------------------------------------------------------ the language


def test_parses_every_form():
    c = predicate.parse(TRANS_BELOW_PERSIST)
    assert c.function == "ratio" and c.metric == "ops_per_sec" and c.by == ("ds",)
    assert c.selections[0].terms == (("mode", ("pmem-trans",)),)
    assert c.test == predicate.Test("<", 1.0) and c.quantifier.kind == "all"
    c = predicate.parse("contrast(select(a=1), select(a=2), select(a=3|4), select(), metric=x_ops/y_ops) "
                        "within 0.9..1.1 for at least 60%")
    assert len(c.selections) == 4 and c.selections[2].terms == (("a", ("3", "4")),)
    assert c.metrics() == ("x_ops", "y_ops") and c.test == predicate.Test("within", 0.9, 1.1)
    assert c.quantifier == predicate.Quantifier("percent", 60) and c.quantifier.needed(7) == 5
    c = predicate.parse("value(select(workload=workloads/pmemids-read, threads=16), metric=ops, by=[ds, mode]) >= 2.5e3 for any")
    assert c.selections[0].terms[0] == ("workload", ("workloads/pmemids-read",))
    assert c.test.low == 2500 and c.quantifier.needed(9) == 1
    assert predicate.parse("diff(select(), select(), metric=ops) > -1 for at least 3").quantifier.needed(9) == 3
    # The text form parses back to the same check.
    for text in [TRANS_BELOW_PERSIST, "value(select(a=x|y), metric=m) within 1..2 for any"]:
        assert predicate.parse(predicate.parse(text).text()) == predicate.parse(text)


@pytest.mark.parametrize("text,where", [
    ("", "empty predicate"),
    ("ratio(select(mode=a), metric=ops) < 1", "column 23: expected 'select', found 'metric'"),
    ("ratio(select(mode=a), select(mode=b)) < 1", "expected ', metric=<name>'"),
    ("ratio(select(mode=a), select(mode=b), metric=ops, metric=ops) < 1", "each at most once"),
    ("ratio(select(mode=a), select(mode=b), metric=ops) = 1", "expected a comparison"),
    ("ratio(select(mode=a), select(mode=b), metric=ops) < x", "expected a number"),
    ("ratio(select(mode=a), select(mode=b), metric=ops) within 2..1", "low end is above the high end"),
    ("ratio(select(mode=a), select(mode=b), metric=ops) < 1 for most", "expected 'at'"),
    ("ratio(select(mode=a), select(mode=b), metric=ops) < 1 for at least 0", "a whole number >= 1"),
    ("ratio(select(mode=a), select(mode=b), metric=ops) < 1 for at least 101%", "above 100%"),
    ("ratio(select(mode=a), select(mode=b), metric=ops) < 1 and more", "the end of the predicate"),
    ("ratio(select(mode=a, mode=b), select(), metric=ops) < 1", "a key not already in this select"),
    ("ratio(select(mode=a), select(), metric=ops, by=[ds, ds]) < 1", "listed twice"),
    ("ratio(select(mode=a), select(), metric=a/b/c) < 1", "a metric name, or name/name"),
    ("__import__('os').system('x')", "column 12: unexpected character"),
    ("os.system(x) < 1", "column 1: expected 'ratio'"),
    ("ratio(select(mode=a); select(), metric=ops) < 1", "unexpected character ';'"),
])
def test_parse_errors_name_the_place(text, where):
    with pytest.raises(predicate.PredicateError) as e:
        predicate.parse(text)
    assert where in str(e.value), str(e.value)


# ------------------------------------------------------------------ the t distribution


@pytest.mark.parametrize("df,q", [(1, 12.706), (2, 4.303), (4, 2.776), (10, 2.228), (30, 2.042)])
def test_t_quantiles_match_the_table(df, q):
    assert tdist.quantile(0.975, df) == pytest.approx(q, abs=6e-4)
    assert tdist.cdf(tdist.quantile(0.99, df + 0.5), df + 0.5) == pytest.approx(0.99, abs=1e-9)
    assert tdist.quantile(0.025, df) == pytest.approx(-q, abs=6e-4)


# ------------------------------------------------------------------ deciding a check


def decide(text, df, skipped=None):
    return evaluate.evaluate(predicate.parse(text), df, skipped=skipped)


STRUCTS = ["hashtable", "btree", "rbtree"]


def test_reproduced_when_every_interval_is_below(tmp_path):
    recs = [r for ds in STRUCTS for r in noisy(ds, "pmem-persist", 1e6, 0.03) + noisy(ds, "pmem-trans", 4e5, 0.03)]
    df, _ = frame(tmp_path, recs)
    res = decide(TRANS_BELOW_PERSIST, df)
    assert res.outcome == "reproduced"
    assert [g.status for g in res.groups] == ["holds"] * 3
    g = res.groups[0]
    assert g.n == (5, 5) and g.estimate == pytest.approx(0.4, rel=0.05)
    assert g.ci[0] < g.estimate < g.ci[1] < 1
    assert res.level == pytest.approx(1 - 0.05 / 3)


def test_not_reproduced_when_intervals_are_on_the_other_side(tmp_path):
    recs = [r for ds in STRUCTS for r in noisy(ds, "pmem-persist", 1e6, 0.03) + noisy(ds, "pmem-trans", 2e6, 0.03)]
    df, _ = frame(tmp_path, recs)
    res = decide(TRANS_BELOW_PERSIST, df)
    assert res.outcome == "not reproduced" and res.count("fails") == 3


def test_within_noise_when_the_spread_covers_the_difference(tmp_path):
    recs = [r for ds in STRUCTS for r in noisy(ds, "pmem-persist", 1e6, 0.4, n=3) + noisy(ds, "pmem-trans", 0.9e6, 0.4, n=3)]
    df, _ = frame(tmp_path, recs)
    res = decide(TRANS_BELOW_PERSIST, df)
    assert res.outcome == "within noise" and res.count("within noise") == 3


def test_one_repetition_is_never_decided(tmp_path):
    recs = [r for ds in STRUCTS for r in noisy(ds, "pmem-persist", 1e6, 0.01, n=1) + noisy(ds, "pmem-trans", 1e5, 0.01, n=1)]
    df, _ = frame(tmp_path, recs)
    res = decide(TRANS_BELOW_PERSIST, df)
    assert res.outcome == "within noise"
    assert all("fewer than 2 repetitions" in g.note for g in res.groups)
    assert res.groups[0].estimate == pytest.approx(0.1, rel=0.05)


def test_three_repetitions_decide_a_large_effect(tmp_path):
    """The brief's worry: a rank test cannot reach 0.05 with 3 repetitions; Welch's t can."""
    recs = [r for ds in STRUCTS for r in noisy(ds, "pmem-persist", 1e6, 0.05, n=3) + noisy(ds, "pmem-trans", 5e5, 0.05, n=3)]
    df, _ = frame(tmp_path, recs)
    assert decide(TRANS_BELOW_PERSIST, df).outcome == "reproduced"


def test_quantifier_counts_groups(tmp_path):
    recs = []
    for ds, trans in zip(STRUCTS, [4e5, 5e5, 2e6]):
        recs += noisy(ds, "pmem-persist", 1e6, 0.02) + noisy(ds, "pmem-trans", trans, 0.02)
    df, _ = frame(tmp_path, recs)
    base = TRANS_BELOW_PERSIST.replace(" for all", "")
    assert decide(base + " for all", df).outcome == "not reproduced"
    assert decide(base + " for at least 2", df).outcome == "reproduced"
    assert decide(base + " for any", df).outcome == "reproduced"
    assert decide(base + " for at least 66%", df).outcome == "reproduced"
    assert decide(base + " for at least 67%", df).outcome == "not reproduced"
    assert decide(base + " for at least 3", df).outcome == "not reproduced"


def test_within_is_an_equivalence_test(tmp_path):
    recs = [record("rbtree", "pmem-persist", x * 1e6, rep=i) for i, x in enumerate([1.0, 1.01, 0.99, 1.0, 1.0])]
    recs += [record("rbtree", "pmem-trans", x * 1e6, rep=i) for i, x in enumerate([1.02, 1.03, 1.01, 1.02, 1.02])]
    df, _ = frame(tmp_path, recs)
    text = "ratio(select(mode=pmem-trans), select(mode=pmem-persist), metric=ops_per_sec) within {}"
    assert decide(text.format("0.9..1.1"), df).outcome == "reproduced"
    assert decide(text.format("1.5..2.0"), df).outcome == "not reproduced"
    assert decide(text.format("1.02..1.5"), df).outcome == "within noise"


def test_contrast_diff_value_and_metric_ratios(tmp_path):
    recs = (noisy("btree", "dram", 4e6, 0.01) + noisy("btree", "pmem-persist", 2e6, 0.01)
            + noisy("btree-embedded", "dram", 4e6, 0.01) + noisy("btree-embedded", "pmem-persist", 1e6, 0.01))
    for r in recs:
        r["metrics"].update(read_ops=1000, read_not_found=100 if r["config"]["ds"] == "btree" else 500)
    df, _ = frame(tmp_path, recs, metrics=("ops_per_sec", "read_not_found/read_ops"))
    c = decide("contrast(select(ds=btree-embedded, mode=dram), select(ds=btree-embedded, mode=pmem-persist), "
               "select(ds=btree, mode=dram), select(ds=btree, mode=pmem-persist), metric=ops_per_sec) > 1.5", df)
    assert c.outcome == "reproduced" and c.groups[0].estimate == pytest.approx(2.0, rel=0.05)
    d = decide("diff(select(mode=dram), select(mode=pmem-persist), metric=ops_per_sec, by=[ds]) > 1e6", df)
    assert d.outcome == "reproduced" and d.groups[0].estimate == pytest.approx(2e6, rel=0.05)
    v = decide("value(select(mode=dram), metric=read_not_found/read_ops, by=[ds]) within 0.09..0.11", df)
    assert [g.status for g in v.groups] == ["holds", "fails"] and v.outcome == "not reproduced"
    # Every repetition equal (a deterministic count): an interval of zero width.
    assert v.groups[0].ci == (pytest.approx(0.1), pytest.approx(0.1))


def test_missing_side_and_skipped_configurations(tmp_path):
    recs = noisy("btree", "pmem-persist", 1e6, 0.01)
    skipped = {"schema_version": 1, "skipped": True, "reason": "--cpu-node 1: no such NUMA node",
               "config": {"ds": "btree", "mode": "pmem-trans", "workload": "pmemids-write"}}
    df, sk = frame(tmp_path, recs + [skipped])
    res = decide(TRANS_BELOW_PERSIST, df, sk)
    assert res.outcome == "no data" and res.groups[0].status == "no data"
    assert res.skipped == ["--cpu-node 1: no such NUMA node"]


def test_ambiguous_selection_names_the_differing_fields(tmp_path):
    recs = noisy("btree", "pmem-persist", 1e6, 0.01) + noisy("btree", "pmem-trans", 5e5, 0.01)
    recs += [copy.deepcopy(r) for r in recs]
    for r in recs[10:]:
        r["config"]["recordcount"] = 7
    df, _ = frame(tmp_path, recs)
    with pytest.raises(evaluate.EvaluationError, match="differ in recordcount"):
        decide(TRANS_BELOW_PERSIST, df)


def test_hosts_are_kept_apart(tmp_path):
    """Merged shards from two machines: each host's records are compared with its own."""
    recs = []
    for host, trans in [("alpha", 4e5), ("beta", 2e6)]:
        recs += noisy("btree", "pmem-persist", 1e6, 0.01, host=host) + noisy("btree", "pmem-trans", trans, 0.01, host=host)
    df, _ = frame(tmp_path, recs)
    res = decide(TRANS_BELOW_PERSIST, df)
    assert [(g.label, g.status) for g in res.groups] == [("ds=btree (on alpha)", "holds"), ("ds=btree (on beta)", "fails")]
    # Shards that put the two sides on different hosts are compared across them, and say so.
    split = [r for r in recs if (r["context"]["hostname"], r["config"]["mode"]) in
             {("alpha", "pmem-persist"), ("beta", "pmem-trans")}]
    df, _ = frame(tmp_path, split, name="split.jsonl")
    g = decide(TRANS_BELOW_PERSIST, df).groups[0]
    assert g.note == "across hosts beta, alpha" and g.status == "fails"  # the trans side's host first


def test_a_sweep_resumed_after_a_rebuild_compares_the_latest_build(tmp_path):
    """The same configuration recorded by two builds is never pooled: with both builds on
    both sides each is its own group; otherwise each side keeps its most recent build."""
    recs = []
    for rev, stamp, trans in [("aaaa", "2026-01-01T00:00:00Z", 2e6), ("bbbb", "2026-02-01T00:00:00Z", 4e5)]:
        for r in noisy("btree", "pmem-persist", 1e6, 0.01, seed=rev) + noisy("btree", "pmem-trans", trans, 0.01, seed=rev):
            r["context"].update(git_revision=rev, timestamp=stamp)
            recs.append(r)
    df, _ = frame(tmp_path, recs)
    res = decide(TRANS_BELOW_PERSIST, df)
    assert [(g.label, g.status) for g in res.groups] == [("ds=btree (git aaaa)", "fails"), ("ds=btree (git bbbb)", "holds")]
    # A build shared by both sides is preferred to mixing builds.
    partial = [r for r in recs if not (r["context"]["git_revision"] == "bbbb" and r["config"]["mode"] == "pmem-trans")]
    df, _ = frame(tmp_path, partial, name="partial.jsonl")
    assert [g.label for g in decide(TRANS_BELOW_PERSIST, df).groups] == ["ds=btree (git aaaa)"]
    # No build in common: each side keeps its most recent build, and the group says so.
    apart = [r for r in recs if (r["context"]["git_revision"], r["config"]["mode"]) in
             {("aaaa", "pmem-trans"), ("aaaa", "pmem-persist"), ("bbbb", "pmem-persist")}
             and not (r["context"]["git_revision"] == "aaaa" and r["config"]["mode"] == "pmem-persist")]
    apart += [r for r in recs if r["context"]["git_revision"] == "aaaa" and r["config"]["mode"] == "pmem-persist"
              and r["config"]["repetition"] == 0]
    for r in apart[-1:]:
        r["context"]["git_revision"] = "0000"
        r["context"]["timestamp"] = "2025-12-01T00:00:00Z"
    df, _ = frame(tmp_path, apart, name="apart.jsonl")
    (g,) = decide(TRANS_BELOW_PERSIST, df).groups
    assert g.note == "across builds aaaa, bbbb" and g.n == (5, 5) and g.estimate == pytest.approx(2.0, rel=0.05)


# ------------------------------------------------------------------ verdicts


def claim_file(tmp_path, body: str, cid="001-X1") -> Path:
    sweeps = tmp_path / "sweeps"
    sweeps.mkdir(exist_ok=True)
    (sweeps / "s.toml").write_text("ds = \"btree\"\nmode = \"dram\"\n")
    d = tmp_path / "reproduce"
    d.mkdir(exist_ok=True)
    p = d / f"{cid}.toml"
    p.write_text(f'id = "{cid}"\nseed = "{cid[:3]}"\nsection = "§1"\nclaim = "c"\ncause = "software"\n' + body)
    return p


CHECK = f'[[sweep]]\nfile = "sweeps/s.toml"\n[[check]]\nwhat = "w"\npredicate = "{TRANS_BELOW_PERSIST}"\n'


def test_verdict_record_carries_numbers_and_media_label(tmp_path):
    recs = [r for ds in STRUCTS for r in noisy(ds, "pmem-persist", 1e6, 0.02) + noisy(ds, "pmem-trans", 4e5, 0.02)]
    df, sk = frame(tmp_path, recs)
    c = claims.load(claim_file(tmp_path, CHECK))
    v = verdict.decide(c, "quick", df, sk, ["r.jsonl"])
    assert v["verdict"] == "reproduced" and v["outcome"] == "reproduced"
    assert v["checks"][0]["groups"][0]["n"] == [5, 5] and v["checks"][0]["level"] < 1
    assert "over 3 groups: 3 hold" in v["ours"]
    assert "reproduced" in verdict.text(v) and "98.33% CI" in verdict.text(v)
    media = claims.load(claim_file(tmp_path, "[needs]\nmedia = true\n" + CHECK, "001-X2"))
    v = verdict.decide(media, "quick", df, sk, [])
    assert v["verdict"] == verdict.MEDIA and v["outcome"] == "reproduced"


def test_not_measurable_when_the_machine_lacks_something(tmp_path):
    fake_sys = tmp_path / "sys"
    (fake_sys / "devices/system/node").mkdir(parents=True)
    (fake_sys / "devices/system/node/online").write_text("0\n")
    m = machine.Machine(str(tmp_path / "no-binary"), sys=fake_sys)
    needs = claims.Needs(commands=("micro",), numa_nodes=2, pmu=True, tools=("no-such-tool-here",))
    why = m.missing(needs)
    assert why == ("needs 'pmemids micro' (not built); needs no-such-tool-here (not on PATH); "
                   "1 NUMA node (needs 2); no PMU (hardware performance counters)")
    (fake_sys / "devices/system/node/online").write_text("0-1\n")
    (fake_sys / "bus/event_source/devices/cpu/events").mkdir(parents=True)
    (fake_sys / "bus/event_source/devices/cpu/events/cpu-cycles").write_text("event=0x3c\n")
    m = machine.Machine(str(tmp_path / "no-binary"), sys=fake_sys)
    assert m.missing(claims.Needs(numa_nodes=2, pmu=True)) is None
    c = claims.load(claim_file(tmp_path, "[needs]\nnuma_nodes = 4\n" + CHECK))
    v = verdict.not_measurable(c, "default", m.missing(c.needs))
    assert v["verdict"] == "not measurable here: 2 NUMA nodes (needs 4)" and v["outcome"] is None


def test_all_selected_configurations_skipped_is_not_measurable(tmp_path):
    skipped = [{"schema_version": 1, "skipped": True, "reason": "remote node 1 does not exist",
                "config": {"ds": "btree", "mode": m, "workload": "pmemids-write"}}
               for m in ("pmem-persist", "pmem-trans")]
    p = tmp_path / "s.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in skipped))
    records = read_records([str(p)])
    c = claims.load(claim_file(tmp_path, CHECK))
    v = verdict.decide(c, "default", rows.run_rows(records, c.metrics()), rows.skipped_rows(records), [str(p)])
    assert v["verdict"] == "not measurable here: remote node 1 does not exist"


# ------------------------------------------------------------------ claim files


@pytest.mark.parametrize("body,message", [
    ("", "sweep: missing"),
    ('[[sweep]]\nfile = "sweeps/nope.toml"\n', "sweep[0].file: 'sweeps/nope.toml' not found"),
    (CHECK.replace("metric=ops_per_sec", "metric=opz"), "unknown metric 'opz'"),
    (CHECK.replace("by=[ds]", "by=[dz]"), "unknown configuration key 'dz'"),
    (CHECK.replace("< 1 for all", "< 1 for all and"), "predicate: column"),
    ("colour = 1\n" + CHECK, "colour: unknown key"),
    ("[needs]\ncores = 0\n" + CHECK, "needs.cores: 0"),
    ("[needs]\noptions = [\"domain\"]\n" + CHECK, "needs.options: 'domain'"),
    ("scales = [\"huge\"]\n" + CHECK, "scales: ['huge']"),
    ("[minutes]\nquick = -1\n" + CHECK, "minutes:"),
])
def test_bad_claim_files_name_file_and_key(tmp_path, body, message):
    p = claim_file(tmp_path, body)
    with pytest.raises(claims.ClaimError) as e:
        claims.load(p)
    assert str(e.value).startswith(f"{p}: ") and message in str(e.value), str(e.value)


def test_id_must_match_the_file_name(tmp_path):
    p = claim_file(tmp_path, CHECK)
    q = p.with_name("001-Y.toml")
    p.rename(q)
    with pytest.raises(claims.ClaimError, match="differs from the file name"):
        claims.load(q)


def test_pending_claims_name_their_sweep_before_it_exists(tmp_path):
    body = ('[needs]\ncommands = ["micro"]\n[[sweep]]\nfile = "sweeps/micro-later.toml"\n[[check]]\nwhat = "w"\n'
            'predicate = "ratio(select(op=flush), select(op=persist), metric=ns_per_op, by=[size]) < 1"\n')
    c = claims.load(claim_file(tmp_path, body))
    assert c.needs.commands == ("micro",) and c.sweeps[0].written == "sweeps/micro-later.toml"


def test_every_shipped_claim_file_loads_and_lists():
    shipped = claims.load_dir(REPO / "reproduce")
    assert len(shipped) >= 30
    ids = [c.id for c in shipped]
    assert len(set(ids)) == len(ids)
    for c in shipped:
        assert c.list_line().startswith(f"{c.id}  seed {c.seed} ")
        for m in c.metrics():
            assert all(fields.is_metric(x) or fields.is_context_number(x) or fields.is_config_key(x)
                       or c.needs.commands for x in predicate.metric_names(m)), (c.id, m)
    assert {c.id for c in shipped} >= {f"001-O{i}" for i in range(1, 8)} | {f"001-Fig{i}" for i in range(3, 10)} | {"001-T3"}


def test_a_pinned_by_key_compares_every_group_with_one_configuration(tmp_path):
    recs = []
    for t, ops in [(1, 1e6), (2, 6e5), (4, 5e5)]:
        for r in noisy("rbtree", "pmem-persist", ops, 0.01, seed=t):
            r["config"]["threads"] = t
            recs.append(r)
    df, _ = frame(tmp_path, recs)
    res = decide("ratio(select(threads=2|4), select(threads=1), metric=ops_per_sec, by=[threads]) < 1", df)
    assert [g.label for g in res.groups] == ["threads=2", "threads=4"] and res.outcome == "reproduced"
    assert res.groups[1].estimate == pytest.approx(0.5, rel=0.05)
    with pytest.raises(evaluate.EvaluationError, match="every selection pins"):
        decide("ratio(select(threads=2|4, ds=rbtree), select(threads=1, ds=rbtree|btree), metric=ops_per_sec, "
               "by=[threads, ds]) < 1", df)


def test_fewer_groups_than_the_quantifier_needs_is_no_data(tmp_path):
    recs = [r for ds in STRUCTS for r in noisy(ds, "pmem-persist", 1e6, 0.02) + noisy(ds, "pmem-trans", 4e5, 0.02)]
    df, _ = frame(tmp_path, recs)
    res = decide(TRANS_BELOW_PERSIST.replace("for all", "for at least 5"), df)
    assert res.outcome == "no data" and res.reason == "3 groups measured, the claim needs 5"
    assert res.count("holds") == 3
