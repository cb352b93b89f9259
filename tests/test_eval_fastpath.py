"""The compiled fast path of the evaluation (``tiebreak._native._ext.eval_core``,
:mod:`tiebreak.measures.fastpath`) against the measure kernels it twins (every family with a
compiled twin is in MEASURES, with measures without one beside them): on generated runs with
many ties, graded and pooled-but-unjudged qrels, topics missing from the run and cutoffs around
the ranks present, every per-topic value of every regime and every warning is bit-identical
with the extension and without it (``TIEBREAK_NO_EXT=1``: the numpy kernels)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tiebreak as tb
from tiebreak.evaluation import Evaluator, measure_values
from tiebreak.io.inputs import as_qrels, as_run
from tiebreak.measures import parse_measures
from tiebreak.measures.fastpath import _spec
from tiebreak.ranking import prepare

pytest.importorskip("tiebreak._native._ext")

MEASURES = ["AP", "AP@3", "AP(rel=2)", "P@1", "P@5", "P(rel=2)@3", "R@2", "R@50", "RR",
            "RR@2", "RR(rel=2)", "nDCG", "nDCG@3", "nDCG@20", "bpref", "bpref(rel=2)",
            "RBP(p=0.8)", "Success@3", "relative_P@3", "Rprec", "Rprec(rel=2)",
            "Rprec_mult(mult=0.5)", "Rprec_mult(mult=2.0)", "unj@3", "NumRet", "NumRet(rel=2)",
            "NumRel", "NumRelRet", "NumNonrelJudgedRet", "SetP", "SetRelP", "SetR", "SetAP",
            "SetF(beta=0.5)", "utility(coef=(1,-2,0.5,0.25),num_docs=100)", "IPrec(recall=0.0)",
            "IPrec(recall=0.3)", "IPrec(recall=0.5)", "IPrec(recall=1.0)", "11pt_avg",
            "IPrec(rel=2,recall=0.5)"]


@st.composite
def cases(draw):
    n_topics = draw(st.integers(1, 5))
    docs = [f"d{i}" for i in range(draw(st.integers(1, 14)))]
    qrels: dict = {}
    run: dict = {}
    for t in range(n_topics):
        q = f"q{t}"
        judged = draw(st.lists(st.sampled_from(docs), unique=True, max_size=len(docs)))
        if judged:
            qrels[q] = {d: draw(st.sampled_from([-2, 0, 0, 1, 1, 2, 3])) for d in judged}
        if draw(st.booleans()) or not run:
            got = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1,
                                max_size=len(docs)))
            # few distinct scores: many tied groups, of every size
            run[q] = {d: float(draw(st.integers(0, 3))) for d in got}
    if not qrels:
        qrels["q0"] = {docs[0]: 1}
    run.setdefault(next(iter(qrels)), {docs[0]: 1.0})
    return qrels, run


def _both(fn):
    """``fn()`` with the extension, then without it (the environment restored after)."""
    old = os.environ.pop("TIEBREAK_NO_EXT", None)
    try:
        fast = fn()
        os.environ["TIEBREAK_NO_EXT"] = "1"
        slow = fn()
    finally:
        os.environ.pop("TIEBREAK_NO_EXT", None)
        if old is not None:
            os.environ["TIEBREAK_NO_EXT"] = old
    return fast, slow


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(["qrels", "run-topics"]))
def test_every_regime_bit_identical(case, average):
    qrels, run = case
    ev = Evaluator(as_qrels(qrels), MEASURES, regimes="all", average=average)
    r = as_run(run)

    def go():
        v, w = ev.evaluate_run(r)
        return v, {k: x for k, x in w.items() if k != "lines"}

    (vf, wf), (vs, ws) = _both(go)
    assert vf.shape == vs.shape
    # bit for bit: the same float64 values (NaN where a topic is not averaged)
    assert np.array_equal(vf.view(np.int64), vs.view(np.int64)), (
        [(m, g) for i, m in enumerate(ev.measures) for k, g in enumerate(ev.regimes)
         if not np.array_equal(vf[i, k].view(np.int64), vs[i, k].view(np.int64))])
    assert wf == ws


@settings(max_examples=25, deadline=None)
@given(cases(), st.sampled_from(["trec_eval", "expected", "realistic", "optimistic", "lower",
                                 "upper"]))
def test_one_regime_bit_identical(case, regime):
    """``measure_values`` on its own (as ``tiebreak trec_eval`` calls it): one regime."""
    qrels, run = case
    q = as_qrels(qrels)
    ms = parse_measures(MEASURES)

    def go():
        P = prepare(as_run(run), q, complete=True)
        return measure_values(P, ms, regime)[0]

    fast, slow = _both(go)
    for m, a, b in zip(ms, fast, slow):
        assert np.array_equal(np.asarray(a).view(np.int64), np.asarray(b).view(np.int64)), m


def test_fast_path_taken_and_values():
    """The compiled path is taken for the six families (and not for others), and its values are
    the worked ones: one topic, scores 3 2 2 1 with the tied pair (relevant, non-relevant)."""
    ms = parse_measures(["AP", "P@2", "R@2", "RR", "nDCG@2", "bpref", "RBP(p=0.8)",
                         "AP(judged_only=True)"])
    assert [_spec(m) is not None for m in ms] == [True] * 6 + [False] * 3  # RBP, its residual
    q = as_qrels({"q": {"a": 1, "b": 1, "c": 0, "e": 1}})
    r = as_run({"q": {"a": 3.0, "b": 2.0, "c": 2.0, "d": 1.0}})
    ev = Evaluator(q, ["AP", "P@2", "RR", "bpref"], regimes="all")
    res = ev.evaluate([r])
    # trec_eval: docno descending in the tie: a c b d -> AP = (1 + 2/3) / 3
    assert res.value(r.name, "AP", "trec_eval") == pytest.approx((1 + 2 / 3) / 3)
    assert res.value(r.name, "AP", "optimistic") == pytest.approx(2 / 3)
    # expected over {a b c, a c b}: AP (1 + 1)/3 and (1 + 2/3)/3
    assert res.value(r.name, "AP", "expected") == pytest.approx((2 / 3 + 5 / 9) / 2)
    assert res.value(r.name, "P@2", "expected") == pytest.approx(0.75)
    assert res.value(r.name, "bpref", "lower") == pytest.approx((1 + 0) / 3)
    assert res.value(r.name, "bpref", "expected") == pytest.approx((1 + 0.5) / 3)


def test_readme_example_unchanged():
    """A run file of the shipped example through the whole command path, both ways."""
    here = os.path.join(os.path.dirname(tb.__file__), "data")
    runs = sorted(p for p in os.listdir(here) if p.endswith(".run"))
    qrels = [p for p in os.listdir(here) if "qrels" in p]
    if not runs or not qrels:
        pytest.skip("no example data shipped")
    ev = Evaluator(os.path.join(here, qrels[0]), ["AP", "nDCG@10", "P@10", "RR", "R@1000",
                                                   "bpref"])
    paths = [os.path.join(here, p) for p in runs]
    fast, slow = _both(lambda: ev.evaluate(paths, jobs=1).per_topic)
    assert np.array_equal(fast.view(np.int64), slow.view(np.int64))
