"""Two passes of `pmemids reproduce` side by side (pmemids_report.reproduce.passes)."""

import json

import pytest

from pmemids_report.reproduce import passes


def verdict(cid, outcome, ran=5, stopped="decided", seconds=60.0, load=1.0, klass=None):
    return {"claim": {"id": cid}, "outcome": outcome, "seconds": seconds,
            "class": klass or outcome,
            "load_average": [load, load, load],
            "rounds": {"ran": ran, "stopped": stopped} if ran else None}


def write(tmp_path, name, records):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_counts_claims_decided_here_by_their_measured_outcome(tmp_path):
    records = [verdict("a", "reproduced"), verdict("b", "within noise", 3, "budget", 180),
               verdict("c", "not reproduced", 12, klass="media property"),
               verdict("d", "not measurable here", ran=0),
               verdict("e", "within noise", 3, klass="not measurable here"),
               verdict("f", "within noise", 3, klass="reproduced"),
               verdict("g", "reproduced", 3, klass="sanity")]
    col = passes.column(records)
    assert col["claims decided here"] == "5"
    assert col["ran, a requirement not met"] == "1"
    assert col["not run (hardware, scale)"] == "1"
    # the verdict decides (f: a labelled check measured within noise), a label's outcome
    # stands in for it (c: a media property measured not reproduced), sanity apart
    assert (col["reproduced"], col["not reproduced"], col["within noise"]) == ("2", "1", "1")
    assert col["sanity"] == "1"
    assert col["within noise, share"] == "20%"
    assert col["rounds per claim, median (range)"] == "3 (3-12)"
    assert col["stopped"] == "4 decided, 1 budget"
    assert col["minutes per claim, median (range)"] == "1.0 (1.0-3.0)"
    assert col["minutes, all claims"] == "7"


def test_counts_groups_of_rates_decided_on_own_time():
    def with_groups(*bases):
        v = verdict("a", "reproduced")
        v["checks"] = [{"groups": [{"basis": b} for b in bases]}]
        return v
    assert passes.column([with_groups("own time", "wall clock", None),
                          with_groups("own time")])["groups of rates on own time"] == "2 of 3"
    # verdicts made before groups said their basis
    assert passes.column([verdict("a", "reproduced")])["groups of rates on own time"] == "n/a"


def test_agreement_counts_claims_decided_in_both_and_names_those_that_differ():
    a = [verdict("x", "reproduced"), verdict("y", "reproduced"), verdict("z", "within noise")]
    b = [verdict("x", "reproduced"), verdict("y", "not reproduced"), verdict("z", "reproduced")]
    assert passes.agreement(a, b) == (2, ["y (reproduced / not reproduced)"])


def test_main_prints_a_column_per_pass_and_the_agreement(tmp_path, capsys):
    a = write(tmp_path, "a.jsonl", [verdict("x", "reproduced")])
    b = write(tmp_path, "b.jsonl", [verdict("x", "reproduced", load=4.0)])
    assert passes.main([f"idle={a}", f"load={b}"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "| | idle | load |"
    assert "| load average (1 min) at the verdicts | 1.0 (1.0-1.0) | 4.0 (4.0-4.0) |" in out
    assert "idle and load: 1 claims decided in both, 1 agree." in out


@pytest.mark.parametrize("arg", ["no-label.jsonl", "=x.jsonl", "idle="])
def test_an_argument_without_its_label_exits_2(arg, capsys):
    assert passes.main([arg]) == 2
    assert "expected LABEL=VERDICTS" in capsys.readouterr().err


def test_a_missing_file_exits_2(tmp_path, capsys):
    assert passes.main([f"idle={tmp_path / 'none.jsonl'}"]) == 2
    assert "cannot read" in capsys.readouterr().err
