
"""Reduced rankings: without the documents absent from the qrels (``sparse``) and of the top
ranks only (``depth``). Every kernel declared safe for a reduction gives, bit for bit, the value
it gives on the whole ranking, under every ordering, the expected regime's fractional ranking
and the closed forms' tied groups, with -M, -J and -c topics without results; a kernel that is
not safe (unj, which counts the documents left out) does change, so the check can fail."""

import io

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tiebreak as tb
from tiebreak.measures import parse_measures
from tiebreak.measures.kernels import (
    CLOSED_SPARSE_SAFE,
    DEPTH_SAFE,
    SPARSE_SAFE,
    depth_safe,
    sparse_safe,
)
from tiebreak.ranking import expected_ranking, groups, prepare, ranking

NAMES = ["NumRet", "NumRet(rel=1)", "NumRel", "NumQ", "NumRelRet", "NumNonrelJudgedRet",
         "SetP", "SetRelP", "SetR", "SetAP", "SetF", "utility", "P@3", "R@5", "relative_P@3",
         "Rprec", "Rprec_mult(mult=0.5)", "Success@2", "Judged@3", "Judged", "unj@3", "RR",
         "RR@3", "AP", "AP@4", "AP(rel=2)", "bpref", "bpref(rel=2)", "IPrec(recall=0.5)",
         "11pt_avg", "infAP", "binG", "nDCG", "nDCG@3", "nDCG(dcg='exp-log2')@3",
         "nDCG(gains={0:0,1:1,2:5})@4", "DCG@4", "IDCG@3", "ndcg_rel", "RBP(p=0.8)",
         "RBP(p=0.5,rel=2)@3", "RBP(p=0.8,graded=True)", "RBP_resid(p=0.8)@3", "ERR@3", "ERR"]
MEASURES = parse_measures(NAMES)
ORDERS = ("trec_eval", "realistic", "optimistic", "upper_mono")

_line = st.tuples(st.integers(0, 3), st.integers(0, 11), st.integers(0, 3))  # topic, doc, score
_judgment = st.tuples(st.integers(0, 3), st.integers(0, 11), st.integers(-1, 2))


def _prepared(lines, judgments, max_docs, judged_only):
    seen, text = set(), []
    for t, d, s in lines:
        if (t, d) not in seen:
            seen.add((t, d))
            text.append(f"q{t} Q0 d{d} 0 {s} tag\n")
    qrels = {}
    for t, d, v in judgments:
        qrels.setdefault(f"q{t}", {})[f"d{d}"] = v
    qrels.setdefault("q0", {})["d0"] = 1  # at least one relevant document
    qrels.setdefault("q3", {})["d11"] = 2  # a qrels topic the run may lack (-c)
    Q = tb.Evaluator(qrels, ["AP"]).qrels
    run = tb.read_run(io.BytesIO("".join(text).encode()))
    return prepare(run, Q, max_docs=max_docs, judged_only=judged_only)


def _same(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(st.lists(_line, min_size=1, max_size=40), st.lists(_judgment, max_size=30),
       st.sampled_from([None, 2, 5]), st.booleans())
def test_reduced_rankings_give_the_same_values(lines, judgments, max_docs, judged_only):
    P = _prepared(lines, judgments, max_docs, judged_only)
    assume(len(P.J.qtopic))  # a run without a qrels topic is refused before ranking
    for order in ORDERS:
        whole = ranking(P, order)
        for m in MEASURES:
            want = m.family.kernel(whole, m)
            d = depth_safe(m)
            variants = []
            if sparse_safe(m):
                variants.append((True, None))
            if d is not None:
                variants += [(False, d), (False, d + 3)]
                if sparse_safe(m):
                    variants.append((True, d))
            for sparse, depth in variants:
                got = m.family.kernel(ranking(P, order, sparse=sparse, depth=depth), m)
                assert _same(got, want), (order, str(m), sparse, depth)
    full = expected_ranking(P)
    for m in MEASURES:
        if m.family.expected not in ("linear", "linear_uncut"):
            continue
        want = m.family.kernel(full, m)
        d = depth_safe(m)
        for sparse, depth in ((sparse_safe(m), None), (sparse_safe(m), d)):
            got = m.family.kernel(expected_ranking(P, sparse, depth), m)
            assert _same(got, want), ("expected", str(m), sparse, depth)
    G, Gs = groups(P), groups(P, sparse=True)
    for m in parse_measures(["AP", "AP@3", "RR", "RR@2", "Success@2", "bpref", "AP(rel=2)"]):
        assert m.family.closed in CLOSED_SPARSE_SAFE
        for k in (None, 2, 4):
            assert _same(m.family.closed(Gs, m, k), m.family.closed(G, m, k)), (str(m), k)


def test_the_safe_sets_are_what_the_reductions_read():
    """The declared sets name real kernels, a reduction applies only to them, and a kernel that
    counts the documents left out (unj) changes on the sparse ranking: the equality above is a
    property of the sets, not of every kernel."""
    by_name = {str(m): m for m in MEASURES}
    assert sparse_safe(by_name["AP"]) and depth_safe(by_name["nDCG@3"]) == 3
    assert not sparse_safe(by_name["unj@3"]) and depth_safe(by_name["unj@3"]) == 3
    assert depth_safe(by_name["AP"]) is None and depth_safe(by_name["Rprec"]) is None
    assert not sparse_safe(parse_measures(["nDCG(unjudged=1)@3"])[0])
    assert all(callable(k) for k in SPARSE_SAFE | DEPTH_SAFE | CLOSED_SPARSE_SAFE)
    P = _prepared([(0, d, 5 - d % 3) for d in range(10)], [(0, 1, 1), (0, 4, 0)], None, False)
    m = by_name["unj@3"]
    whole = m.family.kernel(ranking(P, "trec_eval"), m)
    sparse = m.family.kernel(ranking(P, "trec_eval", sparse=True), m)
    assert whole[0] > 0 and not _same(whole, sparse)


def test_a_reduced_ranking_refuses_deeper_cutoffs():
    P = _prepared([(0, d, d % 4) for d in range(12)], [(0, 2, 1)], None, False)
    R = ranking(P, "trec_eval", depth=3)
    assert R.at(np.arange(len(R.rank), dtype=np.float64), 3).shape == (P.rel_levels.shape[0],)
    try:
        R.at(np.zeros(len(R.rank)), 4)
    except ValueError as e:
        assert "top 3" in str(e)
    else:
        raise AssertionError("at() past the depth must raise")
