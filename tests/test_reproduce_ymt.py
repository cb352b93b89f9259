"""The reproduction items of Yang, Moffat & Turpin (2016): the quick ones are exact, and stay so."""

from __future__ import annotations

import pytest

from tiebreak.studies.reproduce import Context, items, run_item, verdict_of

QUICK_EXACT = ["ymt2016:fig1", "ymt2016:table2"]


@pytest.mark.parametrize("item_id", QUICK_EXACT)
def test_quick_items_are_exact(item_id):
    item = items()[item_id]
    assert item.quick
    cells = run_item(item, Context(data=None))
    assert cells and verdict_of(cells) == "exact", [(c.name, c.paper, c.ours) for c in cells]


def test_every_ymt_table_and_figure_has_an_item():
    ids = {i for i in items() if i.startswith("ymt2016:")}
    assert {"ymt2016:table1", "ymt2016:table2", "ymt2016:table3", "ymt2016:fig1",
            "ymt2016:fig2", "ymt2016:fig3", "ymt2016:fig4", "ymt2016:fig-score-variation",
            "ymt2016:fig-rho-p-value", "ymt2016:fig-pair-variation"} <= ids


def test_substitute_items_say_what_is_missing_without_data():
    cells = run_item(items()["ymt2016:table3"], Context(data=None))
    assert verdict_of(cells) == "not-reproducible-here"
    assert "data" in cells[0].note
