"""Lu (2018) ch. 2 reproduction items: the quick ones' verdicts, cell by cell, so that an item
that was ``exact`` cannot silently become ``differs``."""

from __future__ import annotations

import pytest

from tiebreak.studies.reproduce import Context, items, run_item, verdict_of


def _cells(item_id):
    return {c.name: c for c in run_item(items()[item_id], Context(None))}


def test_ch2_items_registered():
    ids = items()
    for i in ("lu2018:table2.4", "lu2018:table2.5", "lu2018:table2.6", "lu2018:fig2.9"):
        assert i in ids
    assert ids["lu2018:table2.5"].quick and ids["lu2018:table2.6"].quick
    assert not ids["lu2018:fig2.9"].quick
    assert "§2.4.3" in ids["lu2018:table2.5"].where


def test_table_2_5_verdicts():
    cells = _cells("lu2018:table2.5")
    expected = {
        "S1 P@10": "exact", "S2 P@10": "exact", "S3 P@10": "exact", "S1 P@3": "exact",
        "best P@3 system": "exact", "S2 DCG@3": "exact", "S1 AP_b@3": "exact",
        "S1 AP_a@3 < 1": "by-definition", "S1 NDCG_a@3": "exact",
        "S3 P@20 - S2 P@20 (ranks 11-19 unjudged)": "exact",
        # the thesis's DCG values exceed the number of relevant documents in the top k
        "S1 DCG@3": "differs", "S1 DCG@10": "differs", "S2 DCG@10": "differs",
    }
    assert {n: c.verdict for n, c in cells.items()} == expected
    assert cells["S1 DCG@3"].ours == pytest.approx(1 + 1 / 1.5849625007211563 + 0.5)
    assert cells["S2 DCG@10"].ours == pytest.approx(1.7940702235449721)
    assert cells["S1 AP_a@3 < 1"].ours == pytest.approx(3 / 20)
    assert "paper error" in cells["S1 DCG@10"].note and "5 at k = 10" in cells["S1 DCG@10"].note
    assert verdict_of(list(cells.values())) == "differs"


def test_table_2_6_not_reproducible_here():
    [cell] = run_item(items()["lu2018:table2.6"], Context(None))
    assert cell.verdict == "not-reproducible-here" and "ClueWeb09" in cell.note


def test_fig_2_9_needs_data():
    [cell] = run_item(items()["lu2018:fig2.9"], Context(None))
    assert cell.verdict == "not-reproducible-here"


def test_table_2_4_every_weight_exact():
    cells = run_item(items()["lu2018:table2.4"], Context(None))
    assert len(cells) == 7
    assert {c.verdict for c in cells} == {"exact"}
    assert all(c.ours < 1e-12 for c in cells)
