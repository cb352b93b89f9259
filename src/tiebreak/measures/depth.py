"""Metric variants at an evaluation depth k, as Lu (2018) defines them, and the residuals of the
weighted-precision metrics.

Reference: X. Lu. Efficient and effective retrieval using higher-order proximity models. PhD
thesis, RMIT University, 2018, Section 2.4.3 (Table 2.4, Eqs. 2.21-2.35) and Chapter 5; the
truncated AP variants follow Eqs. 2.31-2.33 with ``Prec@i`` inside the sum (the printed
``Prec@k`` is a typo: with it the variants would not be average precisions at all).

Shapes (all kernels): positions of all topics sorted by (topic, rank); ``topic`` int64 (n,),
``rank`` int64 (n,) 1-based, ``rel`` bool (n,) (judged and grade >= the relevance level),
``gain`` float64 (n,) (unjudged = 0), ``judged`` bool (n,); per-topic arrays have shape (T,);
every kernel returns float64 (T,), 0 for a topic with nothing retrieved (residuals: the full
unknown weight).

=============  ===============================================================  ============
measure        definition                                                       regime
=============  ===============================================================  ============
AP_a@k         sum_{i<=k, rel} Prec@i / R (trec_eval ``map_cut``)               closed
AP_b@k         ... / min(R, k) (NTCIREVAL AP@k; Spark MAP@k)                    closed
AP_c@k         ... / R_k, R_k relevant found by pooling to depth k              closed with
                                                                                a pool R_k
DCG@k          sum_{i<=k} gain_i * W(i), W log / Zipf / linear / Jarvelin        linear
NDCG_a@k       DCG@k / ideal DCG@k, ideal from all judged relevant documents     linear
NDCG_b@k       DCG@k / ideal DCG@k, ideal from the relevant documents of the    linear with a
               depth-k pool                                                     pool ideal
ERR residual   ERR@k upper bound (unjudged and missing ranks at the maximum      sampled
               grade) minus ERR@k
RBP residual   g_max * (p^min(n,k) + (1 - p) sum_{i<=k, unjudged} p^(i-1))       linear in
                                                                                unjudged
=============  ===============================================================  ============
"""

from __future__ import annotations

import numpy as np

from ..ranking._flat import (
    dense,
    div,
    ideal_list,
    ideal_ranks,
    seg_cumprod_excl,
    seg_cumsum,
    tcount,
    tsum,
    within,
)

DISCOUNTS = ("log", "log_shift", "jarvelin", "zipf", "linear")


# ---------------------------------------------------------------------------------------------
# AP at depth k
# ---------------------------------------------------------------------------------------------


def ap_sum(topic, rank, rel, n_topics, k=None) -> np.ndarray:
    """``sum_{i<=k, rel_i} Prec@i`` per topic (the numerator shared by AP_a/b/c@k)."""
    rel = np.asarray(rel, bool)
    C = seg_cumsum(rel.astype(np.float64), topic, n_topics)
    return tsum(topic, C / rank, n_topics, rel & within(rank, k))


def ap_a(topic, rank, rel, n_topics, k, nrel) -> np.ndarray:
    """AP_a@k = ap_sum / R (Lu Eq. 2.31; trec_eval ``map_cut.k``). ``nrel`` (T,) is R."""
    return div(ap_sum(topic, rank, rel, n_topics, k), nrel)


def ap_b(topic, rank, rel, n_topics, k, nrel) -> np.ndarray:
    """AP_b@k = ap_sum / min(R, k) (Lu Eq. 2.32; NTCIREVAL ``AP@k``; Spark's
    ``meanAveragePrecisionAt(k)``). A perfect top k scores 1. (ranx's ``map@k`` divides by R,
    i.e. it is AP_a@k, whatever some surveys say.)"""
    norm = np.asarray(nrel, np.float64) if k is None else np.minimum(nrel, k)
    return div(ap_sum(topic, rank, rel, n_topics, k), norm)


def ap_c(topic, rank, rel, n_topics, k, nrel_k=None) -> np.ndarray:
    """AP_c@k = ap_sum / R_k (Lu Eq. 2.33), R_k the relevant documents found by pooling to
    depth k. ``nrel_k`` (T,) is that pool count; without it, R_k is the relevant documents in
    this run's own top k (a single-run pool), so AP_c@k is the mean precision at the relevant
    ranks of the top k."""
    if nrel_k is None:
        nrel_k = tcount(topic, np.asarray(rel, bool) & within(rank, k), n_topics)
    return div(ap_sum(topic, rank, rel, n_topics, k), nrel_k)


def ap_c_pool(topic, rank, rel, n_topics, k, pool_nrel_k) -> np.ndarray:
    """AP_c@k with the thesis's normaliser (Lu Eq. 2.33): ``ap_sum / R_k``, where ``R_k``
    (``pool_nrel_k``, (T,)) is the number of relevant documents a depth-k pool of the
    contributing runs finds, the same for every run (compute it with
    :func:`tiebreak.judgments.pool.pool_relevant_counts`). :func:`ap_c` without ``nrel_k`` is
    the single-run variant (the run's own relevant documents in its top k), which is not the
    thesis's definition."""
    return div(ap_sum(topic, rank, rel, n_topics, k), np.asarray(pool_nrel_k, np.float64))


def e_ap_sum(topic, rank, rel, n_topics, gid, g_first, g_size, k=None) -> np.ndarray:
    """Closed form of E[ap_sum@k] over all orderings inside tied groups (so E[AP_a@k] and
    E[AP_b@k], whose normalisers depend only on the qrels, are this divided by R or min(R, k)).

    Parameters: the per-position arrays in any order within groups, ``gid`` int64 (n,) group
    of each position (groups numbered in rank order, each inside one topic), ``g_first`` int64
    (G,) first rank b_g of each group, ``g_size`` int64 (G,) its size s_g.

    Slot j = b_g + i (i = 0..s-1) of a group with r relevant documents and A relevant
    documents in the earlier groups of its topic holds a relevant document with probability
    r/s; given that, the relevant documents at ranks <= j number on average
    ``A + 1 + i (r - 1) / (s - 1)``. So slot j adds ``(r/s)(A + 1 + i (r-1)/(s-1)) / j``.
    """
    rel = np.asarray(rel, np.float64)
    G = len(g_size)
    r = np.bincount(gid, weights=rel, minlength=G)
    s = np.asarray(g_size, np.float64)
    g_topic = np.zeros(G, np.int64)
    g_topic[gid] = topic
    c = np.cumsum(r) - r
    first = np.ones(G, bool)
    first[1:] = g_topic[1:] != g_topic[:-1]
    A = c - c[first][np.cumsum(first) - 1] if G else c
    slope = div(r - 1.0, s - 1.0)
    i = rank - np.asarray(g_first)[gid]
    val = (r[gid] / s[gid]) * (A[gid] + 1.0 + i * slope[gid]) / rank
    return tsum(topic, val, n_topics, within(rank, k) & (r[gid] > 0))


# ---------------------------------------------------------------------------------------------
# DCG family
# ---------------------------------------------------------------------------------------------


def weights(rank, discount="log", base=2.0, L=None) -> np.ndarray:
    """Rank weights W(i), float64 like ``rank``.

    ``log``: 1 / log_b(1 + i) (trec_eval and ir_measures at b = 2; scikit-learn's ``log_base``);
    ``log_shift``: 1 / log_b(b - 1 + i) (Lu Table 2.4); ``jarvelin``: 1 for i < b, 1 / log_b(i)
    otherwise (Jarvelin & Kekalainen 2002, Eq. 2.21 with its typo fixed); ``zipf``: 1 / i;
    ``linear``: (L + 1 - i) / L for i <= L, 0 beyond (Lu Table 2.4; L is the evaluation depth).
    Raises ValueError for an unknown discount or a linear discount without L.
    """
    i = np.asarray(rank, np.float64)
    lb = np.log(base)
    if discount == "log":
        return lb / np.log1p(i)
    if discount == "log_shift":
        return lb / np.log(base - 1.0 + i)
    if discount == "jarvelin":
        w = np.ones_like(i)
        m = (i >= base) & (i > 1)
        w[m] = lb / np.log(i[m])
        return w
    if discount == "zipf":
        return 1.0 / i
    if discount == "linear":
        if L is None:
            raise ValueError("the linear discount needs the depth L")
        return np.maximum(L + 1.0 - i, 0.0) / L
    raise ValueError(f"unknown discount {discount!r}; expected one of {', '.join(DISCOUNTS)}")


def dcg(topic, rank, gain, n_topics, k=None, discount="log", base=2.0) -> np.ndarray:
    """DCG@k = sum_{i<=k} gain_i W(i) (Lu Table 2.4; for ``linear`` L = k). Regime: linear."""
    w = weights(rank, discount, base, k)
    return tsum(topic, np.asarray(gain, np.float64) * w, n_topics, within(rank, k))


def ndcg(topic, rank, gain, n_topics, ideal_topic, ideal_gain, k=None, discount="log",
         base=2.0) -> np.ndarray:
    """NDCG@k = DCG@k / DCG@k of the ideal list (Lu Eqs. 2.26, 2.34). With the ideal list of all
    judged relevant documents this is NDCG_a@k; with :func:`ideal_from_pool` it is NDCG_b@k.
    0 when the ideal DCG is 0. Regime: linear (for a fixed ideal list)."""
    num = dcg(topic, rank, gain, n_topics, k, discount, base)
    ir = ideal_ranks(ideal_topic, n_topics)
    den = dcg(ideal_topic, ir, ideal_gain, n_topics, k, discount, base)
    return div(num, den)


def ideal_from_pool(topic, rank, gain, n_topics, k) -> tuple[np.ndarray, np.ndarray]:
    """Ideal list (ideal_topic, ideal_gain) of the relevant documents in the top k of the given
    positions, which may hold several runs' rankings of the same topic concatenated (a depth-k
    pool; pass each document once). With one run this is NDCG_b's ideal from the run's own top
    k."""
    m = within(rank, k)
    return ideal_list(topic[m], np.asarray(gain, np.float64)[m], n_topics)


# ---------------------------------------------------------------------------------------------
# ERR conventions
# ---------------------------------------------------------------------------------------------


def err_stop(grade, judged, gmax=4.0, form="exp") -> np.ndarray:
    """ERR's stop probability of each position from its grade (unjudged and grade <= 0: 0).

    ``form="exp"``: ``(2^g - 1) / 2^gmax`` (Chapelle et al. 2009). ``gmax=4`` is gdeval's fixed
    ``$MAX_JUDGMENT`` and so ir_measures' ``ERR@k`` (its only provider is gdeval): the
    default. trec-style per-topic maxima give other numbers (``ERR(gmax=4)@20`` on TREC DL 2020
    BIT.UA-run1 is 0.3347, ir_measures' value). ``form="linear"``: ``g / (gmax + 1)``
    (NTCIREVAL's ERR, gmax the top gain of its gain table). ``gmax`` scalar or per position.
    Raises ValueError for another form."""
    g = np.where(np.asarray(judged, bool), np.maximum(np.asarray(grade, np.float64), 0.0), 0.0)
    if form == "exp":
        return (2.0 ** g - 1.0) / 2.0 ** np.asarray(gmax, np.float64)
    if form == "linear":
        return g / (np.asarray(gmax, np.float64) + 1.0)
    raise ValueError(f"unknown ERR form {form!r}; expected 'exp' or 'linear'")


def err(topic, rank, stop, n_topics, k=None) -> np.ndarray:
    """ERR@k = ``sum_{i<=k} (R_i / i) prod_{j<i} (1 - R_j)`` over given stop probabilities R
    (:func:`err_stop`; Chapelle, Metzler, Zhang & Grinspan, CIKM 2009). Regime: sampled."""
    stop = np.asarray(stop, np.float64)
    surv = seg_cumprod_excl(1.0 - stop, topic, n_topics)
    return tsum(topic, stop * surv / rank, n_topics, within(rank, k))


# ---------------------------------------------------------------------------------------------
# residuals
# ---------------------------------------------------------------------------------------------


def rbp_residual(topic, rank, judged, n_topics, n_ret, p=0.8, k=None, gmax=1.0) -> np.ndarray:
    """RBP residual for graded gains (Moffat & Zobel 2008; Lu Eq. 2.23 fixed as in its spec):
    ``gmax * (p^d + (1 - p) sum_{i<=d, unjudged} p^(i-1))``, d = min(n_ret, k), the most that
    unjudged and unretrieved documents could add when a gain is at most ``gmax`` (1 for gains
    scaled to [0, 1]; the largest gain of the gain table otherwise). ``judged`` may be a fraction
    (the regime ``expected`` passes the group mean): the residual is linear in 1 - judged.
    ``n_ret`` (T,) is the number of retrieved documents of each topic. Regime: linear."""
    n_ret = np.asarray(n_ret, np.float64)
    d = n_ret if k is None else np.minimum(n_ret, k)
    u = 1.0 - np.asarray(judged, np.float64)
    w = (1.0 - p) * p ** (rank - 1.0) * u
    g = np.broadcast_to(np.asarray(gmax, np.float64), (n_topics,))
    return g * (p ** d + tsum(topic, w, n_topics, within(rank, k)))


def _err_dense(S: np.ndarray) -> np.ndarray:
    surv = np.ones_like(S)
    surv[:, 1:] = np.cumprod(1.0 - S[:, :-1], axis=1)
    i = np.arange(1, S.shape[1] + 1, dtype=np.float64)[None, :]
    return (S * surv / i).sum(axis=1)


def err_residual(topic, rank, stop, judged, n_topics, stop_max, k=None,
                 depth=1000) -> np.ndarray:
    """ERR residual (Lu 2018 Section 2.4.3 and Table 5.7): ERR@k with every unjudged document
    and every rank after the list (up to k, or ``depth`` without a cutoff) at the stop
    probability of the maximum grade ``stop_max`` (e.g. (2^gmax - 1) / 2^gmax), minus ERR@k.
    ``stop`` (n,) is each position's stop probability (0 for unjudged). Regime: sampled."""
    D = int(depth if k is None else k)
    smax = np.broadcast_to(np.asarray(stop_max, np.float64), (n_topics,))
    lo = dense(topic, rank, stop, n_topics, D, 0.0)
    hi_fill = np.repeat(smax[:, None], D, axis=1)
    hi = hi_fill.copy()
    m = rank <= D
    s = np.asarray(stop, np.float64)
    unj = ~np.asarray(judged, bool)
    hi[topic[m], rank[m] - 1] = np.where(unj[m], smax[topic[m]], s[m])
    return _err_dense(hi) - _err_dense(lo)


#: Other tools' conventions, each reachable as a tiebreak measure name: the tool's name ->
#: (the name ``tiebreak eval -m`` takes, the test that checks it against the tool). A test
#: (tests/test_measures_conventions.py) parses every name and finds every test.
CONVENTIONS = {
    "ERR@k (ir_measures, gdeval: gmax 4)": ("ERR@20", "test_measures_depth.py::"
                                           "test_err_gdeval_convention"),
    "ERR (NTCIREVAL: stop g/(gmax+1))": ("ERR_lin@20", "test_measures_ntcir.py::"
                                        "test_against_pyntcireval"),
    "nDCG@k (NTCIREVAL, Jarvelin discount)": ("nDCG_orig@10", "test_measures_ntcir.py::"
                                             "test_against_pyntcireval"),
    "AP@k (NTCIREVAL; Spark MAP@k: over min(k, R))": ("AP_b@100", "test_measures_depth.py::"
                                                     "test_ap_b_against_ntcireval"),
    "map_cut.k (trec_eval), map@k (ranx): over R": ("AP_a@100", "test_measures_depth.py::"
                                                   "test_ap_a_and_ndcg_a_against_ir_measures"),
    "dcg_score(log_base=b) (scikit-learn)": ("DCG_lu(base=10)@10", "test_measures_depth.py::"
                                            "test_dcg_log_base_against_sklearn_with_ties"),
    "dcg@k (ranx)": ("dcg@10", "test_measures_conventions.py::test_ranx_names"),
    "dcg_burges@k (ranx)": ("dcg_burges@10", "test_measures_conventions.py::test_ranx_names"),
    "ndcg_burges@k (ranx)": ("ndcg_burges@10", "test_measures_conventions.py::test_ranx_names"),
    "rbp.p (ranx: raw grades)": ("rbp.95", "test_measures_conventions.py::test_ranx_names"),
    "hits@k (ranx)": ("hits@10", "test_measures_conventions.py::test_ranx_names"),
    "f1@k (ranx)": ("f1@10", "test_measures_conventions.py::test_ranx_names"),
    "RBP without rel= (ir_measures' trectools provider: raw grades)": (
        "RBP(p=0.8,graded=True)", "test_measures_conventions.py::"
                                  "test_graded_rbp_against_trectools"),
    "get_urbp (trectools)": ("uRBP(other='u.qrels',scale=0.01)",
                             "test_measures_conventions.py::test_urbp_ubpref_against_trectools"),
    "get_ubpref (trectools)": ("uBpref(other='u.qrels')",
                               "test_measures_conventions.py::"
                               "test_urbp_ubpref_against_trectools"),
    "judged_only=True (ir_measures)": ("P(judged_only=True)@10",
                                       "test_measures_conventions.py::"
                                       "test_judged_only_against_pytrec_eval"),
    "Judged without a cutoff (ir_measures)": ("Judged", "test_measures_conventions.py::"
                                                        "test_judged_without_cutoff_and_numq"),
    "IPrec@r (ir_measures)": ("IPrec@0.5", "test_measures_conventions.py::"
                                          "test_judged_only_against_pytrec_eval"),
    "alpha_nDCG@k, ERR_IA@k, ... (ir_measures' pyndeval provider)": (
        "alpha_nDCG@20", "test_measures_diversity.py::test_against_pyndeval_on_a_real_run"),
}
