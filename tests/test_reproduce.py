"""tiebreak reproduce: the item registry, the verdict rules and the command's formats."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tiebreak.cli import main
from tiebreak.studies.reproduce import (
    VERDICTS,
    Cell,
    Item,
    compare_number,
    items,
    register,
    verdict_of,
)


def test_compare_number_verdicts():
    assert compare_number("c", "0.2760", 0.27604).verdict == "exact"
    assert compare_number("c", "0.276", 0.2769).verdict == "within-tolerance"  # 1 unit off
    assert compare_number("c", "0.276", 0.2790).verdict == "differs"
    assert compare_number("c", "60 %", 0.6, scale=100).verdict == "exact"
    assert compare_number("c", "-0.0038", -0.00376).verdict == "exact"
    assert compare_number("c", "0.5", 0.56, tol=0.07).verdict == "within-tolerance"


def test_item_verdict_is_worst_cell():
    cells = [Cell("a", "1", 1.0, "exact"), Cell("b", "2", 2.2, "differs", "substitute data")]
    assert verdict_of(cells) == "differs"
    assert verdict_of([]) == "exact"
    missing = Cell("paper", "95.2", None, "not-reproducible-here", "TREC-7 runs absent")
    assert verdict_of([missing]) == "not-reproducible-here"
    assert verdict_of([missing, Cell("substitute", "", 0.9, "shape-holds")]) == "shape-holds"
    with pytest.raises(ValueError):
        Cell("a", "1", 1.0, "close enough")
    assert VERDICTS[0] == "exact" and VERDICTS[-1] == "not-reproducible-here"


def test_register_rejects_bad_and_duplicate_ids():
    items()  # load the built-in items first
    with pytest.raises(ValueError):
        register(Item("nobody2020:table1", "x", "p. 1", "tiebreak eval", lambda ctx: []))
    some = next(iter(items().values()), None)
    if some is not None:
        with pytest.raises(ValueError):
            register(some)


def test_cli_list_and_unknown_item():
    r = CliRunner().invoke(main, ["reproduce", "--list"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["reproduce", "nobody:table9"])
    assert r.exit_code == 2 and "unknown reproduction item" in r.output
    r = CliRunner().invoke(main, ["reproduce"])
    assert r.exit_code == 2
