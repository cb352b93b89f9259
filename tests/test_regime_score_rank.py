"""The score-rank regime: Yang, Moffat & Turpin (2016) re-sort every run by score descending, then
by the rank column ascending (Sect. 3). Held against a hand example and against the file regime
of a run written out in that order."""

from __future__ import annotations

import io

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tiebreak as tb

QRELS = b"1 0 a 1\n1 0 b 1\n1 0 c 0\n1 0 d 1\n"
# tied group at 5.0 whose ranks contradict the file order
RUN = b"1 Q0 c 3 5.0 t\n1 Q0 a 1 5.0 t\n1 Q0 d 2 4.0 t\n1 Q0 b 4 5.0 t\n"


def _read(b, name="t"):
    return tb.read_run(io.BytesIO(b), name=name)


def test_hand_example():
    q = tb.read_qrels(io.BytesIO(QRELS))
    res = tb.evaluate(q, [_read(RUN)], ["RR", "P@1", "AP"], ["trec_eval", "score-rank"])
    # score-rank: a (rank 1), c (3), b (4), then d; trec_eval: c, b, a (docno descending), d
    assert res.value("t", "RR", "score-rank") == 1.0
    assert res.value("t", "P@1", "score-rank") == 1.0
    assert abs(res.value("t", "AP", "score-rank") - (1 + 2 / 3 + 3 / 4) / 3) < 1e-15
    assert res.value("t", "RR", "trec_eval") == 0.5


def test_all_keeps_its_seven_regimes():
    q = tb.read_qrels(io.BytesIO(QRELS))
    res = tb.evaluate(q, [_read(RUN)], ["RR"], "all")
    assert "score-rank" not in res.regimes and len(res.regimes) == 7


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(1, 6), st.integers(0, 1)),
                min_size=1, max_size=12))
def test_equals_file_order_of_the_resorted_run(rows):
    docs = [f"d{i:02d}" for i in range(len(rows))]
    rels = "".join(f"1 0 {d} {r}\n" for d, (_, _, r) in zip(docs, rows))
    ranks = np.random.default_rng(len(rows)).permutation(len(rows)) + 1
    lines = [(d, int(k), float(s)) for d, k, (s, _, _) in zip(docs, ranks, rows)]
    run = "".join(f"1 Q0 {d} {k} {s} t\n" for d, k, s in lines)
    resorted = sorted(lines, key=lambda x: (-x[2], x[1]))
    run2 = "".join(f"1 Q0 {d} {i} {s} t\n" for i, (d, _, s) in enumerate(resorted, 1))
    q = tb.read_qrels(io.BytesIO(rels.encode()))
    ms = ["AP", "RR", "nDCG@5", "P@3"]
    a = tb.evaluate(q, [_read(run.encode())], ms, ["score-rank"]).mean[0, :, 0]
    b = tb.evaluate(q, [_read(run2.encode())], ms, ["file"]).mean[0, :, 0]
    np.testing.assert_array_equal(a, b)
