"""The readable table writer: its grid is tabulate's ``simple`` layout (tabulate as oracle)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from tiebreak.evaluation.output import grid


def _tabulate_simple(head, rows, nleft):
    import tabulate as tb

    align = ["left"] * nleft + ["right"] * (len(head) - nleft)
    pad, tb.MIN_PADDING = tb.MIN_PADDING, 0
    try:
        text = tb.tabulate(rows, headers=head, tablefmt="simple", colalign=align,
                           disable_numparse=True)
    finally:
        tb.MIN_PADDING = pad
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


_cell = st.text(alphabet="abcXYZ019.-_ ", min_size=1, max_size=9).map(str.strip).filter(bool)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 5).flatmap(lambda ncol: st.tuples(
    st.lists(_cell, min_size=ncol, max_size=ncol),
    st.lists(st.lists(_cell, min_size=ncol, max_size=ncol), min_size=1, max_size=6),
    st.integers(0, ncol))))
def test_grid_is_tabulate_simple(case):
    """The table writer's grid is tabulate's ``simple`` layout, cell for cell."""
    head, rows, nleft = case
    assert grid(head, rows, nleft) == _tabulate_simple(head, rows, nleft)


def test_grid_example():
    text = grid(["run", "measure", "value"], [["r1", "AP", "0.5000"], ["run-two", "P@5", "1"]], 2)
    assert text == ("run      measure   value\n"
                    "-------  -------  ------\n"
                    "r1       AP       0.5000\n"
                    "run-two  P@5           1\n")
