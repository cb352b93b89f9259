"""ranking.orderings: the sort by topic then score (file order inside ties) on inputs that are
already in that order (the usual run file, where the sort is skipped) and on any other order."""

import io

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tiebreak as tb
from tiebreak.ranking import judge, orderings

_line = st.tuples(st.integers(0, 3), st.integers(0, 4))  # topic, score (few values: ties)


@settings(max_examples=120, deadline=None)
@given(st.lists(_line, min_size=1, max_size=40), st.booleans())
def test_score_order_is_the_stable_sort(lines, presorted):
    if presorted:
        lines = sorted(lines, key=lambda x: (x[0], -x[1]))
    text = "".join(f"q{t} Q0 d{i} {i + 1} {s} tag\n" for i, (t, s) in enumerate(lines))
    qrels = tb.Evaluator({f"q{t}": {"d0": 1} for t in range(4)}, ["AP"]).qrels
    run = tb.read_run(io.BytesIO(text.encode()))
    J = judge(run, qrels)
    O = orderings(J)
    expect = np.lexsort((-J.score, J.qtopic))
    assert O.score_order.tolist() == expect.tolist()
    if presorted:
        assert O.score_order.tolist() == list(range(len(lines)))
