"""Verdicts of the quick reproduction items of Lu (2018) chapters 3 and 4."""

from __future__ import annotations

from tiebreak.studies.reproduce import Context, items, run_item, verdict_of


def _cells(item_id):
    return run_item(items()[item_id], Context(data=None))


def test_table31_configurations_exact():
    cells = _cells("lu2018:table3.1")
    assert verdict_of(cells) == "exact" and len(cells) == 20


def test_table41_worked_values():
    cells = {c.name: c for c in _cells("lu2018:table4.1")}
    assert cells["MinDist"].verdict == "exact"
    assert cells["Summation2 (w_Q' = w_I = 1)"].verdict == "exact"
    assert cells["Amortized per term (lambda 2, gamma 1)"].verdict == "exact"
    assert cells["Summation1 (w_Q' = w_I = 1)"].verdict == "within-tolerance"
    assert cells["Amortized, three terms"].verdict == "within-tolerance"
    # the thesis mixes the two length conventions: differs, with the reason
    assert cells["MaxDist"].verdict == "differs" and cells["MaxDist"].ours == 47
    assert cells["AvgDist"].ours == 32.5 and "46" in cells["AvgDist"].note


def test_table43_parameters_exact():
    assert verdict_of(_cells("lu2018:table4.3")) == "exact"


def test_gov2_items_say_what_is_missing():
    for i in ("lu2018:table3.2", "lu2018:table4.5", "lu2018:fig4.5"):
        (c,) = _cells(i)
        assert c.verdict == "not-reproducible-here" and "data" in c.note


def test_quick_flags():
    it = items()
    assert {i for i in ("lu2018:table3.1", "lu2018:table4.1", "lu2018:table4.3")
            if it[i].quick} == {"lu2018:table3.1", "lu2018:table4.1", "lu2018:table4.3"}
    assert not it["lu2018:table4.8"].quick and not it["lu2018:fig4.9"].quick
