"""Accuracy, Compatibility and F1@k over flat arrays of all topics.

Shapes: positions sorted by (topic, rank); ``topic`` int64 (n,), ``rank`` int64 (n,) 1-based,
``rel`` bool (n,) (judged with grade >= the relevance level), ``grade`` float64 (n,) (the qrels
value of judged documents); per-topic ``nrel`` (T,) = R; all kernels return float64 (T,).

(The set measures SetP, SetR, SetRelP, SetAP, SetF and the counts are the registry's own
families in :mod:`tiebreak.measures.kernels`; they are checked against ir_measures in
``tests/test_measures_setbased.py``.)
"""

from __future__ import annotations

import numpy as np

from ..ranking._flat import div, seg_cumsum, starts_of, tcount, tsum, within


def f1_at(topic, rank, rel, n_topics, k, nrel) -> np.ndarray:
    """F1@k (ranx ``f1@k``): ``2 P@k R@k / (P@k + R@k)`` with P@k = hits/k, R@k = hits/R; 0
    without a relevant document in the top k. Regime: linear in the hits only through a ratio,
    so sampled when a tie group straddles k."""
    h = tcount(topic, np.asarray(rel, bool) & within(rank, k), n_topics)
    P = h / float(k)
    R = div(h, nrel)
    return div(2.0 * P * R, P + R)


def accuracy(topic, rank, rel, n_topics, k=None) -> np.ndarray:
    """Accuracy (ir_measures): over the top k, with m relevant and N non-relevant (including
    unjudged) documents, ``1 - sum_{relevant d} (non-relevant above d) / (N m)``: the share of
    (relevant, non-relevant) pairs in the right order.

    Undefined when no relevant document is in the top k: NaN (ir_measures leaves such topics out
    of its mean). 1 when the top k holds no non-relevant document (ir_measures divides by zero
    there). Regime: sampled.
    """
    rel = np.asarray(rel, bool)
    w = within(rank, k)
    non = (~rel & w).astype(np.float64)
    above = seg_cumsum(non, topic, n_topics)
    m = tcount(topic, rel & w, n_topics)
    N = tcount(topic, ~rel & w, n_topics)
    s = tsum(topic, above, n_topics, rel & w)
    out = np.full(n_topics, np.nan)
    ok = m > 0
    out[ok] = 1.0 - div(s[ok], N[ok] * m[ok])
    out[ok & (N == 0)] = 1.0
    return out


def _rbo_tail(p: float, D: int) -> np.ndarray:
    """A(n) = sum_{d=1..n} p^(d-1) / d for n = 0..D, float64 (D + 1,)."""
    d = np.arange(1, D + 1, dtype=np.float64)
    return np.r_[0.0, np.cumsum(p ** (d - 1.0) / d)]


def compat(topic, rank, grade, n_topics, ideal_topic, ideal_grade, p=0.95,
           normalize=True, extra=None) -> np.ndarray:
    """Compatibility (Clarke, Vtyurina & Smucker 2021) as ir_measures computes it: the
    rank-biased overlap, at depth D = max(retrieved, relevant), between the run and an ideal
    ranking of the relevant documents (grade > 0) sorted by grade, normalised by the RBO of the
    ideal ranking with itself when ``normalize``.

    Within a grade the ideal ranking puts the retrieved documents first, in run order.
    ir_measures 0.4.3 sorts them by run score giving unretrieved ones score 0, so the two agree
    when every score is positive; with negative scores ir_measures ranks the unretrieved
    relevant documents of a grade ahead of the retrieved ones scored below 0 (a less
    compatible ideal, hence a lower value). That is the whole of the gap on TREC DL 2020
    BIT.UA-run1 (5,375 of 19,900 scores negative): ir_measures 0.43364 there, 0.43464 with
    every score raised by 100, which is tiebreak's value in ir_measures' tie order (docno
    ascending; tiebreak's trec_eval order, docno descending, gives 0.43420, and the tie orders
    0.43392-0.43492). ``grade`` (n,) is each position's qrels value (<= 0 or unjudged: not
    relevant);
    ``ideal_topic``/``ideal_grade`` list every relevant judgment of the qrels, grade descending
    within topic (:func:`tiebreak.ranking._flat.ideal_list`). With relevant document x at run
    rank r_x and ideal rank q_x,
    ``RBO = sum_x sum_{d=max(r_x, q_x)..D} p^(d-1)/d / sum_{d=1..D} p^(d-1)``.
    0 for a topic with nothing retrieved. ``extra`` (n,) int, optional: ideal places added
    to each position's q_x (``Compat(ideal='ir_measures')`` passes, for a retrieved relevant
    document scored below 0, the unretrieved relevant documents of its grade, which
    ir_measures' ideal ranking puts ahead of it). Regime: sampled.
    """
    topic = np.asarray(topic, np.int64)
    grade = np.asarray(grade, np.float64)
    n_ret = np.bincount(topic, minlength=n_topics)
    n_ideal = np.bincount(ideal_topic, minlength=n_topics)
    D = np.maximum(n_ret, n_ideal)
    A = _rbo_tail(p, int(D.max()) if len(D) else 0)
    Z = (1.0 - p ** D) / (1.0 - p)
    relp = np.flatnonzero(grade > 0)
    t, v = topic[relp], grade[relp]
    # ideal documents of the topic with a higher grade
    key = ideal_topic.astype(np.float64) * 1e9 - np.asarray(ideal_grade, np.float64)
    higher = np.searchsorted(key, t * 1e9 - v, side="left") - starts_of(ideal_topic,
                                                                       n_topics)[t]
    # rank among retrieved documents of the same grade, in run order
    o = np.lexsort((rank[relp], v, t))
    same = np.r_[False, (t[o][1:] == t[o][:-1]) & (v[o][1:] == v[o][:-1])]
    run_start = np.flatnonzero(~same)
    c = np.arange(len(o)) - run_start[np.cumsum(~same) - 1]
    within_grade = np.empty(len(o), np.int64)
    within_grade[o] = c
    q = higher + within_grade + 1
    if extra is not None:
        q = q + np.asarray(extra, np.int64)[relp]
    m = np.maximum(rank[relp], q)
    contrib = A[D[t]] - A[m - 1]
    score = np.bincount(t, weights=contrib, minlength=n_topics)
    score = div(score, Z)
    if normalize:
        ni = n_ideal.astype(np.float64)
        best_sum = (1.0 - p ** n_ideal) / (1.0 - p) + ni * (A[D] - A[n_ideal])
        best = div(best_sum, Z)
        score = np.where(best > 0, div(score, best), score)
    score[n_ret == 0] = 0.0
    return score


IR_MEASURES_NAMES = (
    "Accuracy", "Accuracy@10", "Accuracy(rel=2)@20", "Compat", "Compat(p=0.95)",
    "Compat(p=0.8)",
)
