"""PRECALL (Raghavan, Bollmann & Jung 1989): precision at a recall level, by hand on an untied
ranking, and its closed-form expectation over tie orders against the mean over every order."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tiebreak as tb

QRELS = {"q": {"a": 1, "b": 0, "c": 1, "d": 1, "e": 0, "z": 1, "y": 2}}


@pytest.mark.parametrize("x, want", [(0.25, 1.0), (0.5, 2 / 3), (0.6, 3 / 4), (0.75, 3 / 4),
                                     (1.0, 4 / 8)])
def test_by_hand_on_an_untied_ranking(x, want):
    # without z: relevant a, c, d, y (R = 4) at ranks 1, 3, 4, 8; NR = ceil(x R) relevant
    # documents are read at the rank of the NR-th: 1/1, 2/3, 3/4 (x = 0.6 -> NR = 3), 4/8
    order = ["a", "b", "c", "d", "e", "u", "v", "y"]
    run = {"q": {d: 10.0 - i for i, d in enumerate(order)}}
    q = {"q": {k: v for k, v in QRELS["q"].items() if k != "z"}}        # R = 4
    got = tb.evaluate(q, [run], [f"PRECALL(recall={x})"], regimes=["trec_eval"]).mean[0, 0, 0]
    assert got == pytest.approx(want, abs=1e-15)
    # with z relevant (R = 5) full recall is never reached: 0
    full = tb.evaluate(QRELS, [run], ["PRECALL(recall=1)"], regimes=["trec_eval"]).mean
    assert full[0, 0, 0] == 0.0
    rel2 = tb.evaluate(QRELS, [run], ["PRECALL(rel=2,recall=1)"], regimes=["trec_eval"]).mean
    assert rel2[0, 0, 0] == pytest.approx(1 / 8)


@pytest.mark.parametrize("x", [0.2, 0.4, 0.6, 0.8])
@pytest.mark.parametrize("max_docs", [None, 4])
def test_expected_is_the_mean_over_every_tie_order(x, max_docs):
    tied = ["b", "c", "d", "e", "u"]
    docs = {"a": 9.0, **{t: 5.0 for t in tied}, "v": 1.0, "y": 0.5}
    name = f"PRECALL(recall={x})"
    res = tb.evaluate(QRELS, [{"q": docs}], [name], regimes=["expected", "realistic",
                                                              "optimistic"],
                      max_docs=max_docs)
    vals = []
    for perm in itertools.permutations(tied):
        order = ["a", *perm, "v", "y"]
        r = {"q": {d: 10.0 - i for i, d in enumerate(order)}}
        vals.append(tb.evaluate(QRELS, [r], [name], regimes=["file"],
                                max_docs=max_docs).mean[0, 0, 0])
    exp, lo, hi = res.mean[0, 0]
    assert exp == pytest.approx(np.mean(vals), abs=1e-12)
    assert (lo, hi) == (pytest.approx(min(vals)), pytest.approx(max(vals)))
    if x in (0.4, 0.6):
        assert max(vals) > min(vals)          # the tie order matters there


def test_precall_in_the_registry():
    from tiebreak.measures.registry import MeasureError, family

    assert family("precall").name == "PRECALL"
    with pytest.raises(MeasureError, match="recall must lie in"):
        tb.evaluate(QRELS, [{"q": {"a": 1.0}}], ["PRECALL(recall=0)"])
