"""The quick Lu (2018) chapter 5/6 reproduction items: verdicts asserted."""

from __future__ import annotations

from tiebreak.studies.reproduce import Context, items, run_item, verdict_of


def test_table_6_1_running_example():
    it = items()["lu2018:table6.1"]
    assert it.quick
    cells = {c.name: c for c in run_item(it, Context(None))}
    s = cells["DCG@10 of S"]
    assert s.verdict == "within-tolerance" and abs(s.ours - 2.7355) < 1e-4
    sp = cells["DCG@10 of S' (S left out, unjudged = 0)"]
    assert sp.verdict == "differs" and abs(sp.ours - 1.9464) < 1e-4
    assert verdict_of(list(cells.values())) == "differs"


def test_chapter_5_and_6_items_are_registered():
    ids = set(items())
    assert {"lu2018:fig5.2", "lu2018:fig5.5", "lu2018:fig5.10", "lu2018:table5.3",
            "lu2018:table5.7", "lu2018:table6.2", "lu2018:table6.5", "lu2018:table6.7",
            "lu2018:table6.9", "lu2018:fig6.7", "lu2018:fig6.12"} <= ids
    for i in ("lu2018:table6.6", "lu2018:table6.8"):  # no data: one cell naming it
        cells = run_item(items()[i], Context(None))
        assert [c.verdict for c in cells] == ["not-reproducible-here"]


def test_table_6_3_gain_models_match_their_formulas():
    it = items()["lu2018:table6.3"]
    assert it.quick
    cells = run_item(it, Context(None))
    assert len(cells) == 5 and verdict_of(cells) == "exact"
    assert all(c.ours < 1e-12 for c in cells)
