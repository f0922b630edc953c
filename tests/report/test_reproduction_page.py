"""The report's reproduction page: one row per claim and scale (the last verdict of
each), the seed's figure beside ours, the verdict, a link to the figure."""

from __future__ import annotations

import json

from conftest import FIXTURES, main


def verdict(cid: str, verdict_text: str, ours: str, figure="fig3_single_thread", scale="quick") -> dict:
    return {"schema_version": 1, "scale": scale, "verdict": verdict_text, "outcome": verdict_text,
            "claim": {"id": cid, "seed": cid[:3], "section": "§V-B", "text": f"claim {cid}",
                      "cause": ["software"], "figure": figure, "seed_says": f"seed figure of {cid}",
                      "needs": "run", "file": f"reproduce/{cid}.toml"},
            "test": "Welch", "ours": ours, "hosts": ["vm"], "pmem": ["emulated"],
            "checks": [{"what": "w", "predicate": "ratio(select(mode=a), select(mode=b), metric=ops_per_sec, by=[ds]) < 1",
                        "seed_figure": "half", "outcome": verdict_text, "summary": ours, "needed": 1,
                        "groups_total": 1, "level": 0.95, "skipped": [],
                        "groups": [{"group": "ds=btree", "n": [3, 3], "mean": [1.0, 2.0], "cv": [0.01, 0.02],
                                    "estimate": 0.5, "ci": [0.45, 0.55], "status": "holds", "note": None,
                                    "seed_value": 0.4}]}]}


def write(tmp_path, records, name="verdicts.jsonl"):
    p = tmp_path / name
    p.write_text("".join(json.dumps(r) + "\n" for r in records))
    return p


def test_page_lists_the_last_verdict_of_each_claim(tmp_path):
    v = write(tmp_path, [verdict("001-O4", "within noise", "old numbers"),
                         verdict("001-O4", "reproduced", "0.5x over 1 group"),
                         verdict("001-O7", "not measurable here: 1 NUMA node (needs 2)", None, figure="fig9_numa"),
                         verdict("001-O4", "not reproduced", "2x", scale="default")])
    assert main([str(FIXTURES / "single.jsonl"), str(v), "--out", str(tmp_path / "out")]) == 0
    page = (tmp_path / "out" / "reproduction.html").read_text()
    assert "old numbers" not in page and "0.5x over 1 group" in page
    assert page.count('<td><a href="#001-O4-') == 2  # quick and default: two rows
    assert '<td class="verdict ok">reproduced</td>' in page
    assert '<td class="verdict bad">not reproduced</td>' in page
    assert '<td class="verdict na">not measurable here: 1 NUMA node (needs 2)</td>' in page
    assert '<a href="index.html#fig3_single_thread">fig3_single_thread</a>' in page
    assert "seed figure of 001-O4; half" in page
    # fig9_numa is not among this report's figures: no dead link.
    assert "index.html#fig9_numa" not in page
    index = (tmp_path / "out" / "index.html").read_text()
    assert 'href="reproduction.html" id="reproduction-link"' in index and "Verdicts of 3 claims" in index


def test_verdicts_alone_make_a_page(tmp_path):
    v = write(tmp_path, [verdict("003-missrate", "reproduced", "0.1001 over 2 groups", figure=None)])
    assert main([str(v), "--out", str(tmp_path / "out")]) == 0
    assert "003-missrate" in (tmp_path / "out" / "reproduction.html").read_text()


def test_no_page_without_verdicts(tmp_path):
    assert main([str(FIXTURES / "single.jsonl"), "--out", str(tmp_path / "out")]) == 0
    assert not (tmp_path / "out" / "reproduction.html").exists()
    assert "reproduction-link" not in (tmp_path / "out" / "index.html").read_text()


def test_a_verdict_record_needs_its_claim_id(tmp_path, capsys):
    bad = verdict("001-O4", "reproduced", "x")
    del bad["claim"]["id"]
    v = write(tmp_path, [bad])
    assert main([str(v), "--out", str(tmp_path / "out")]) == 2
    assert f"{v}:1: missing field 'claim.id'" in capsys.readouterr().err


def test_readme_table_is_spliced_between_its_markers(tmp_path, capsys):
    from pmemids_report.reproduce import table
    v = write(tmp_path, [verdict("001-O4", "within noise", "old"), verdict("001-O4", "reproduced", "0.5x | 1 group"),
                         verdict("003-missrate", "reproduced", "0.1001")])
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{table.BEGIN}\nstale table\n{table.END}\noutro\n")
    assert table.main([str(v), "--readme", str(readme), "--command", "scripts/reproduce-table.sh quick"]) == 0
    text = readme.read_text()
    assert text.startswith("intro\n<!-- reproduce-table:begin -->\n2 claims at scale quick, measured on vm (emulated PMEM)")
    assert "stale table" not in text and text.endswith("<!-- reproduce-table:end -->\noutro\n")
    assert "regenerate with `scripts/reproduce-table.sh quick`" in text
    assert "| 001-O4 | §V-B | reproduced | 0.5x \\| 1 group |" in text
    assert "| 003-missrate |" in text and "| old |" not in text
    # Again: the same table, not a second one.
    assert table.main([str(v), "--readme", str(readme)]) == 0
    assert readme.read_text().count("| 001-O4 |") == 1
    bare = tmp_path / "BARE.md"
    bare.write_text("no markers\n")
    assert table.main([str(v), "--readme", str(bare)]) == 2
    assert "no '<!-- reproduce-table:begin -->'" in capsys.readouterr().err
    assert bare.read_text() == "no markers\n"


def test_readme_update_replaces_only_the_rows_of_its_claims(tmp_path, capsys):
    from pmemids_report.reproduce import table
    full = write(tmp_path, [verdict("001-O4", "within noise", "old"),
                            verdict("003-missrate", "reproduced", "0.1001")])
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{table.BEGIN}\nstale\n{table.END}\noutro\n")
    assert table.main([str(full), "--readme", str(readme), "--command", "all"]) == 0
    some = tmp_path / "some.jsonl"
    some.write_text(json.dumps(verdict("001-O4", "reproduced", "0.5x")) + "\n"
                    + json.dumps(verdict("002-ring", "not reproduced", "0.9x")) + "\n")
    before = readme.read_text()
    assert table.main([str(some), "--readme", str(readme), "--update", "--command", "ids"]) == 0
    text = readme.read_text()
    assert text.startswith("intro\n<!-- reproduce-table:begin -->\n3 claims at scale quick")
    assert "regenerate with `all`" in text
    assert "The rows of 001-O4, 002-ring were updated at scale quick" in text and "with `ids`" in text
    assert "| 001-O4 | §V-B | reproduced | 0.5x |" in text and "| old |" not in text
    assert "| 003-missrate |" in text
    ids = [ln.split("|")[1].strip() for ln in text.splitlines() if ln.startswith("| 0")]
    assert ids == ["001-O4", "002-ring", "003-missrate"]
    assert text.endswith("<!-- reproduce-table:end -->\noutro\n")
    # Nothing to update: refused, the README unchanged.
    bare = tmp_path / "BARE.md"
    bare.write_text(f"{table.BEGIN}\nno table\n{table.END}\n")
    assert table.main([str(some), "--readme", str(bare), "--update"]) == 2
    assert "no table of verdicts" in capsys.readouterr().err
    assert bare.read_text() == f"{table.BEGIN}\nno table\n{table.END}\n"
    assert before != text


def test_page_shows_the_measured_outcome_beside_a_label(tmp_path):
    v = verdict("002-I2", "media property: not expected on emulated PMEM", "1.2x")
    v.update({"class": "media property", "outcome": "not reproduced",
              "measured": "measured: not reproduced, 1 of 3 groups fail"})
    v["checks"][0].update(label="media", label_applies=True,
                          magnitude={"text": "magnitude 1.2x vs the seed's 1.6-2x: outside"})
    v["requires"] = [{**v["checks"][0], "what": "a region 4x the LLC", "label": None, "outcome": "reproduced"}]
    path = write(tmp_path, [v])
    assert main([str(path), "--out", str(tmp_path / "out")]) == 0
    page = (tmp_path / "out" / "reproduction.html").read_text()
    assert ('<td class="verdict media">media property: not expected on emulated PMEM '
            "(measured: not reproduced, 1 of 3 groups fail)</td>") in page
    assert "[media: shown, not deciding]" in page and "magnitude 1.2x vs the seed&#39;s 1.6-2x: outside" in page
    assert "Requires: <strong>a region 4x the LLC</strong>: met" in page
