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


def test_item_verdict_rolls_up_the_compared_cells():
    cells = [Cell("a", "1", 1.0, "exact"), Cell("b", "2", 2.2, "differs", "a paper typo")]
    assert verdict_of(cells) == "differs"
    with pytest.raises(ValueError):
        verdict_of([])
    missing = Cell("paper", "95.2", None, "not-reproducible-here", "TREC-7 runs absent")
    holds = Cell("substitute", "", 0.9, "substitute-holds", "claim: ...")
    fails = Cell("substitute", "", 0.9, "substitute-differs", "claim: ...")
    defn = Cell("definition", "", 1.0, "by-definition", "M_R <= M_C")
    desc = Cell("figure", "", None, "descriptive", "a diagram")
    assert verdict_of([missing]) == "not-reproducible-here"
    # no number of the paper compared: not reproducible, whatever the substitute says
    assert verdict_of([missing, holds]) == "not-reproducible-here"
    assert verdict_of([holds]) == "not-reproducible-here"
    assert verdict_of([defn, fails]) == "not-reproducible-here"
    assert verdict_of([defn]) == verdict_of([defn, desc]) == "by-definition"
    assert verdict_of([desc]) == "descriptive"
    # a compared cell decides, the substitute and definition cells do not count
    assert verdict_of([Cell("a", "1", 1.0, "exact"), fails, defn, missing]) == "exact"
    w = Cell("w", "0.5", 0.51, "within-tolerance")
    assert verdict_of([Cell("a", "1", 1.0, "exact"), w, holds]) == "within-tolerance"
    with pytest.raises(ValueError):
        Cell("a", "1", 1.0, "close enough")
    with pytest.raises(ValueError):
        Cell("a", "1", 1.0, "shape-holds")
    assert VERDICTS[0] == "exact" and VERDICTS[-1] == "not-reproducible-here"


def test_count_verdicts_counts_items_and_cells_per_paper():
    from tiebreak.studies.reproduce import count_verdicts

    a = Item("ymt2016:tableX", "t", "p", "c", lambda ctx: [])
    b = Item("lu2018:tableY", "t", "p", "c", lambda ctx: [])
    res = [(a, [Cell("x", "1", 1.0, "exact"), Cell("y", "", 1.0, "substitute-differs")]),
           (b, [Cell("z", "2", None, "not-reproducible-here")])]
    n = count_verdicts(res)
    assert n["ymt2016"]["items"]["exact"] == 1 and sum(n["ymt2016"]["items"].values()) == 1
    assert n["ymt2016"]["cells"]["substitute-differs"] == 1
    assert sum(n["ymt2016"]["cells"].values()) == 2
    assert n["lu2018"]["items"]["not-reproducible-here"] == 1
    assert sum(n["cabanac2010"]["cells"].values()) == 0


def test_register_rejects_bad_and_duplicate_ids():
    items()  # load the built-in items first
    with pytest.raises(ValueError):
        register(Item("nobody2020:table1", "x", "p. 1", "tiebreak eval", lambda ctx: []))
    some = next(iter(items().values()), None)
    if some is not None:
        with pytest.raises(ValueError):
            register(some)


def test_table_format_fits_100_columns():
    r = CliRunner().invoke(main, ["reproduce", "lu2018:table4.1", "lu2018:table6.1",
                                  "--format", "table"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert max(map(len, lines)) <= 100
    assert any("1/log2(9)" in x for x in lines)  # the long note is wrapped, not cut


def test_progress_bar_only_on_a_terminal(monkeypatch):
    import io
    import sys

    from tiebreak.evaluation.output import Progress  # the progress of reproduce --all

    class Tty(io.StringIO):
        def isatty(self):
            return True

    def drawn(quiet: bool) -> bool:
        with Progress(3, "reproduce", "items", enabled=not quiet) as bar:
            return bar.bar is not None

    monkeypatch.setattr(sys, "stderr", Tty())
    assert drawn(False) and not drawn(True)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert not drawn(False)
    # redirected (CliRunner's stderr is no terminal): no bar, the output alone
    r = CliRunner().invoke(main, ["reproduce", "ymt2016:table2", "--format", "tsv"])
    assert r.exit_code == 0 and "item/s" not in r.stderr and "reproduce:" not in r.stderr
    r = CliRunner().invoke(main, ["reproduce", "ymt2016:table2", "--quiet", "--format", "tsv"])
    assert r.exit_code == 0 and r.stderr == ""


def test_cli_list_and_unknown_item():
    r = CliRunner().invoke(main, ["reproduce", "--list"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["reproduce", "nobody:table9"])
    assert r.exit_code == 2 and "unknown reproduction item" in r.output
    r = CliRunner().invoke(main, ["reproduce"])
    assert r.exit_code == 2
