"""Thread counts on a loaded machine (loadguard.py): a claim comparing configurations of
different thread counts is decided only when every round's load average left free CPUs
for them; otherwise it is not measurable here, the load and the threshold named in the
verdict line, the JSON record, the report page and the passes' table. Synthetic records,
no pmemids runs."""

from __future__ import annotations

import json
import math
import random

import pytest

from conftest import main as report_main
from pmemids_report.reproduce import claims, loadguard, passes, rounds, verdict
from test_reproduce_engine import claim_file, frame, record
from test_reproduce_rounds import in_round

FEWER = ("ratio(select(threads=2), select(threads=1), metric=ops_per_sec, by=[mode]) < 1 for all")
MODES = ("ratio(select(mode=pmem-trans), select(mode=pmem-persist), metric=ops_per_sec, "
         "by=[threads]) < 1 for all")


def body(predicate: str, extra: str = "") -> str:
    return extra + f'[[sweep]]\nfile = "sweeps/s.toml"\n[[check]]\nwhat = "w"\npredicate = "{predicate}"\n'


def rounds_of(n: int, load, threads=(1, 2), modes=("pmem-persist", "pmem-trans"), cpus=2,
              reading=True) -> list[dict]:
    """n rounds of every (threads, mode): 2 threads at 0.6x of one, pmem-trans at 0.6x of
    pmem-persist; round k's runs read the load average load(k) before and after."""
    rng = random.Random(n)
    out = []
    for k in range(n):
        for t in threads:
            for m in modes:
                ops = 1e6 * (0.6 if t > 1 else 1) * (0.6 if m == "pmem-trans" else 1)
                r = in_round(record("rbtree", m, ops * math.exp(rng.gauss(0, 0.01)), rep=k), k)
                r["config"].update(threads=t, thread_mode="concurrent" if t > 1 else "single")
                r["sweep"]["config_id"] = f"{m}/{t}"
                r["context"]["cpus_online"] = cpus
                if reading:
                    r["sweep"]["loadavg_before"] = [load(k), 1.0, 1.0]
                    r["sweep"]["loadavg_after"] = [load(k), 1.0, 1.0]
                out.append(r)
    return out


def decide(tmp_path, recs, text: str, design=rounds.Design((3, 5, 8), 3600)):
    c = claims.load(claim_file(tmp_path, text))
    return rounds.replay(c, "quick", design, frame(tmp_path, recs, metrics=tuple(c.metrics())) + ([],))


def test_a_thread_count_claim_is_decided_on_a_machine_with_free_cpus(tmp_path):
    v = decide(tmp_path, rounds_of(8, lambda k: 1.5), body(FEWER))
    assert v["class"] == "reproduced" and v["rounds"]["stopped"] == "decided"
    req = v["requires"][-1]
    assert req["kind"] == "load" and req["outcome"] == "reproduced"
    assert req["load"]["threshold"] == pytest.approx(2 / 0.9, abs=1e-3)
    assert req["load"]["threads"] == ["1", "2"] and req["load"]["source"] == "derived"
    assert "requires 1: free CPUs for the thread counts compared (1, 2 threads; derived): met" in verdict.text(v)


def test_a_thread_count_claim_is_refused_when_a_round_was_loaded(tmp_path):
    # Round 1 at 5.0: over 2 CPUs / 0.9. The checks alone would say reproduced.
    v = decide(tmp_path, rounds_of(8, lambda k: 5.0 if k == 1 else 1.5), body(FEWER))
    assert v["class"] == verdict.NOT_MEASURABLE and v["outcome"] == "reproduced"
    assert v["verdict"] == ("not measurable here: machine loaded for a comparison of thread counts: "
                            "load average 5.00 (round 1) over 2.22 = 2 CPUs / 0.9, in 1 of 3 rounds")
    assert v["display"].startswith(v["verdict"] + " (checks measured: reproduced")
    # Decided not met at the first look: more rounds cannot meet it, so it stops there.
    assert v["rounds"]["ran"] == 3 and v["rounds"]["stopped"] == "decided"
    req = v["requires"][-1]
    assert req["outcome"] == "not reproduced" and req["load"]["loaded"] == [["round 1", 5.0]]
    assert [g["status"] for g in req["groups"]] == ["holds", "fails", "holds"]
    assert "not met (load average 5.00 (round 1)" in verdict.text(v)
    line = json.loads(verdict.json_line(v))
    assert line["requires"][-1]["load"]["threshold"] == pytest.approx(2.222, abs=1e-3)
    # Counted with the claims whose requirement was not met, never within noise.
    assert passes.column([v])["ran, a requirement not met"] == "1"
    assert passes.column([v])["within noise"] == "0"


def test_the_report_page_names_the_load(tmp_path):
    v = decide(tmp_path, rounds_of(3, lambda k: 13.2), body(FEWER))
    path = tmp_path / "v.jsonl"
    path.write_text(verdict.json_line(v) + "\n")
    assert report_main([str(path), "--out", str(tmp_path / "out")]) == 0
    page = (tmp_path / "out" / "reproduction.html").read_text()
    assert "machine loaded for a comparison of thread counts: load average 13.20 (round 0) over 2.22" in page
    assert "free CPUs for the thread counts compared" in page


def test_load_that_configurations_of_one_thread_count_share_does_not_refuse(tmp_path):
    # Modes compared per thread count: the load is shared alike, pairing cancels it.
    v = decide(tmp_path, rounds_of(8, lambda k: 13.0), body(MODES))
    assert v["class"] == "reproduced" and all(r.get("kind") != "load" for r in v["requires"])


def test_a_claim_file_overrides_the_derivation(tmp_path):
    v = decide(tmp_path, rounds_of(8, lambda k: 13.0), body(FEWER, "compares_threads = false\n"))
    assert v["class"] == "reproduced" and not v["requires"]
    v = decide(tmp_path, rounds_of(8, lambda k: 13.0), body(MODES, "compares_threads = true\n"))
    assert v["class"] == verdict.NOT_MEASURABLE
    assert v["requires"][-1]["load"]["source"] == "claim file"
    with pytest.raises(claims.ClaimError, match="compares_threads: 'no'; accepted: true or false"):
        claims.load(claim_file(tmp_path, body(FEWER, 'compares_threads = "no"\n')))


def test_no_reading_or_more_threads_than_cpus_refuses(tmp_path):
    v = decide(tmp_path, rounds_of(8, lambda k: 0.5, reading=False), body(FEWER))
    assert v["class"] == verdict.NOT_MEASURABLE and "load average not recorded in 3 of 3 rounds" in v["verdict"]
    v = decide(tmp_path, rounds_of(8, lambda k: 0.5, threads=(1, 4)),
               body(FEWER.replace("threads=2", "threads=4")))
    assert "4 threads compared on 2 CPUs: no free CPUs for them whatever the load" in v["verdict"]
    assert v["verdict"].startswith("not measurable here: no free CPUs for a comparison of thread counts")


def test_runs_without_rounds_are_each_under_the_threshold(tmp_path):
    recs = rounds_of(3, lambda k: 1.0)
    for r in recs:
        del r["sweep"]
        r["context"]["loadavg_before"] = r["context"]["loadavg_after"] = [1.0, 1.0, 1.0]
    recs[4]["context"]["loadavg_after"] = [4.0, 1.0, 1.0]  # one run's mean 2.5
    v = decide(tmp_path, recs, body(FEWER))
    assert "rounds" not in v and v["class"] == verdict.NOT_MEASURABLE
    assert "load average 2.50 (runs without rounds)" in v["verdict"]


def test_derivation_reads_the_groups_each_check_compares(tmp_path):
    import pandas as pd
    configs = pd.DataFrame([{"threads": t, "mode": m} for t in (1, 2) for m in ("pmem-persist", "pmem-trans")])
    fewer = claims.load(claim_file(tmp_path, body(FEWER)))
    modes = claims.load(claim_file(tmp_path, body(MODES), "001-X2"))
    assert loadguard.compared(fewer, configs) == (True, ["1", "2"])
    assert loadguard.compared(modes, configs) == (False, [])
