"""The claim inventory (reproduce/inventory/inventory.toml): every shipped claim file is
named in it, every id in it is a claim file of its seed, each entry has claim files or
a reason, docs/reproduce.md holds exactly its generated table, and its coverage counts
add up; a bad inventory is an error naming the file and the entry."""

from __future__ import annotations

from pathlib import Path

import pytest

from pmemids_report.reproduce import claims, inventory

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def shipped():
    cs = claims.load_dir(REPO / "reproduce")
    return cs, inventory.load(REPO / "reproduce", cs)


def test_every_claim_file_is_in_the_inventory(shipped):
    cs, entries = shipped
    named = {cid for e in entries for cid in e.ids}
    assert named == {c.id for c in cs}
    assert all(bool(e.ids) != bool(e.reason) for e in entries)
    assert {e.seed for e in entries} == set(claims.SEEDS)


def test_docs_hold_the_generated_table(shipped):
    cs, entries = shipped
    docs = (REPO / "docs" / "reproduce.md").read_text()
    inside = docs.split(inventory.BEGIN, 1)[1].split(inventory.END, 1)[0]
    assert inside.strip("\n") == inventory.markdown(entries, cs).strip("\n"), (
        "docs/reproduce.md's inventory differs: regenerate it with "
        "python -m pmemids_report.reproduce.inventory --markdown")


def test_coverage_counts_add_up(shipped):
    cs, entries = shipped
    lines = inventory.coverage(entries, cs)
    assert [ln.split(":")[0] for ln in lines] == ["seed 001", "seed 002", "seed 003", "seed 004", "all seeds"]
    total = lines[-1]
    assert total.startswith(f"all seeds: {len(entries)} claims in the paper, "
                            f"{sum(1 for e in entries if e.ids)} with a claim file")
    assert total.endswith(f"; {len(cs)} claim files")


@pytest.mark.parametrize("entry,message", [
    ('seed = "001"\nsection = "s"\nsays = "x"\n', "give ids (its claim files) or a reason"),
    ('seed = "001"\nsection = "s"\nsays = "x"\nids = ["001-NOPE"]\n', "'001-NOPE' is not a claim file"),
    ('seed = "002"\nsection = "s"\nsays = "x"\nids = ["001-A"]\n', "'001-A' is not a claim of seed 002"),
    ('seed = "001"\nsection = "s"\nsays = "x"\nreason = "r"\n', "claim files no entry names: 001-A"),
    ('seed = "009"\nsection = "s"\nsays = "x"\nreason = "r"\n', "seed (one of 001"),
])
def test_a_bad_inventory_names_file_and_entry(tmp_path, entry, message):
    d = tmp_path / "reproduce"
    (d / "inventory").mkdir(parents=True)
    (tmp_path / "sweeps").mkdir()
    (tmp_path / "sweeps" / "s.toml").write_text('ds = "btree"\n')
    (d / "001-A.toml").write_text(
        'id = "001-A"\nseed = "001"\nsection = "s"\nclaim = "c"\ncause = "software"\n'
        '[[sweep]]\nfile = "sweeps/s.toml"\n[[check]]\nwhat = "w"\n'
        'predicate = "value(select(ds=btree), metric=ops_per_sec) > 1"\n')
    (d / inventory.FILE).write_text("[[claim]]\n" + entry)
    with pytest.raises(claims.ClaimError) as e:
        inventory.load(d)
    assert str(e.value).startswith(str(d / inventory.FILE)) and message in str(e.value), str(e.value)
