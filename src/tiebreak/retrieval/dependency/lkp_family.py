"""Lkp, Lkpf and L2p (Lu 2018, ch. 4; :mod:`tiebreak.retrieval.dependency`): the per-query
set-up in numba (:func:`_lkp_setup`: term weights, Eq. 4.1 subquery weight sums, window limits,
phrase scores, interval method), the whole query in one compiled call (:func:`_lkp_query`:
the set-up, then :func:`~tiebreak.retrieval.dependency._kernels._score_query` in mode 0), the
checks and plan shared with the two-stage path (:func:`_lkp_prepare`) and the three models.

:func:`_lkp_setup` is also compiled into the two-stage kernel
(:mod:`tiebreak.retrieval.dependency.rerank`): after an edit of this file, clear numba's cache.
"""

from __future__ import annotations

import math

import numpy as np

from ..intervals import MAX_ALL_TERMS, MAX_TERMS, jit
from ..weights import collection_stats
from ._kernels import _ALL_DOCS, _saturation, _score_query
from .plan import (
    _NOLIMIT,
    _VARIANT_CODE,
    _ZERO1,
    K1,
    LAMBDA,
    MAX_PROX_TERMS,
    MU,
    WINDOW_PER_TERM,
    B,
    _arrays,
    _check_k,
    _empty,
    _method_code,
    _prox_plan,
    _scratch,
    _structure,
)
from .pruned import _NOPOP, _bound_tables, _pruned_query, _report

__all__ = ["lkp", "lkpf", "l2p", "lkp_bounds"]


@jit
def _lkp_setup(df_all, cf_all, tids, nq, variant, method, avgdl, n_docs, ph_slot, pop):
    """Per-query set-up of Lkp / Lkpf / L2p (``variant`` 0 / 1 / 2), in numba:
    term weights ``w = ln(N / f_t)``, the Eq. 4.1 subquery weight sums (subset sums of
    ``min(w, 1)`` over the ``2^nq`` masks, or over adjacent pairs), the window limits of Lkpf,
    the per-occurrence phrase scores and the interval method (``method`` 1 LPS-IF-A, 2
    EPS-CDF-A, resolved by the caller: :func:`~tiebreak.retrieval.dependency.plan._method_code`).
    ``tids`` holds the distinct query terms, the ``nq`` proximity terms first."""
    k = len(tids)
    pairs_only = variant == 2
    w = np.empty(k, np.float64)
    for j in range(k):
        # a vocabulary term without postings (possible in an index built from tokens) has no
        # weight: it scores nothing
        w[j] = math.log(n_docs / df_all[tids[j]]) if df_all[tids[j]] > 0 else 0.0
    mw = np.empty(nq, np.float64)
    for j in range(nq):
        mw[j] = min(w[j], 1.0)
    if pairs_only:
        n_u = max(nq - 1, 0)
        u_sumw = np.empty(n_u, np.float64)
        for i in range(n_u):
            u_sumw[i] = mw[i] + mw[i + 1]
    else:
        n_u = 1 << nq
        u_sumw = np.zeros(n_u, np.float64)
        for i in range(nq):
            lo = 1 << i
            for m in range(lo):
                u_sumw[lo + m] = u_sumw[m] + mw[i]
    # phrase slots follow the unordered ones in ph_slot's numbering (start i, length L)
    maxp = 2 if pairs_only else nq
    n_p = 0
    for L in range(2, maxp + 1):
        n_p += max(nq - L + 1, 0)
    nslots = n_u + n_p
    slot_maxlen = np.empty(nslots, np.int32)
    slot_sumw = np.zeros(nslots, np.float64)
    slot_inc = np.zeros(nslots, np.float64)
    for s in range(n_u):
        slot_sumw[s] = u_sumw[s]
        if variant == 1:
            slot_maxlen[s] = WINDOW_PER_TERM * int(pop[s])
        else:
            slot_maxlen[s] = _NOLIMIT
    for L in range(2, maxp + 1):
        for i in range(nq - L + 1):
            s = ph_slot[i, L]
            sw = 0.0
            for j in range(i, i + L):
                sw += mw[j]
            slot_maxlen[s] = _NOLIMIT
            if sw > 0:
                slot_inc[s] = w[i] * w[i + L - 1] * (sw / L) * (sw / L)
    use_eps = method == 2
    return w, slot_maxlen, slot_sumw, slot_inc, use_eps, maxp


@jit
def _lkp_query(
    post_ptr, post_docid, post_tf, pos_ptr, pos, doclen, rank, maxdl,
    d_acc, d_cnt, d_head, d_touched, sat, df_all, cf_all,
    tids, qtf, nq, topk, variant, method, lam, k1, b, avgdl, n_docs,
    slot_of_mask, pair_slot, ph_slot, pop,
):  # fmt: skip
    """:func:`_lkp_setup` then :func:`_score_query` in one call (the whole query in numba)."""
    w, slot_maxlen, slot_sumw, slot_inc, use_eps, maxp = _lkp_setup(
        df_all, cf_all, tids, nq, variant, method, avgdl, n_docs, ph_slot, pop)
    return _score_query(
        post_ptr, post_docid, post_tf, pos_ptr, pos, doclen, rank, maxdl,
        d_acc, d_cnt, d_head, d_touched,
        tids, nq, topk, 0, use_eps, variant == 2,
        slot_of_mask, pair_slot, slot_maxlen, slot_sumw, ph_slot, maxp, slot_inc,
        w, qtf, k1, b, avgdl, lam,
        _ZERO1, _ZERO1, 1.0, MU, sat, np.zeros(0), 0, _ZERO1,
    )  # fmt: skip

def _lkp_prepare(index, query_terms, k, variant, lam, k1, b, method, max_prox_terms,
                 plan=None):
    """Checks and the query plan of the Lkp family: ``None`` when nothing can be retrieved,
    else (tids, qtf, nq, structure tables). Raises ValueError for a bad parameter."""
    if not 0.0 <= lam <= 1.0:
        raise ValueError("lam must be in [0, 1]")
    if k1 < 0 or not 0.0 <= b <= 1.0:
        raise ValueError("k1 must be >= 0 and b in [0, 1]")
    if method not in ("auto", "lps_if_all", "eps_cdf_all"):
        raise ValueError(f"method: expected auto, lps_if_all or eps_cdf_all, got {method!r}")
    k = _check_k(k)
    pairs_only = variant == "l2p"
    limit = MAX_TERMS if pairs_only else MAX_ALL_TERMS
    tids, qtf, nq = _prox_plan(index, query_terms, max_prox_terms, limit, variant, plan)
    if len(tids) == 0 or k <= 0 or index.num_docs == 0:
        return None
    # nq = the number of proximity terms (the first nq of tids)
    return tids, qtf, nq, _structure(nq, variant)


def _lkp_family(index, query_terms, k, variant, lam, k1, b, method, max_prox_terms,
                algorithm="exhaustive"):
    if algorithm == "bounds":
        return lkp_bounds(index, query_terms, k, variant, lam, k1, b, method, max_prox_terms)
    if algorithm != "exhaustive":
        raise ValueError(f"algorithm: exhaustive or bounds, not {algorithm!r}")
    plan = _lkp_prepare(index, query_terms, k, variant, lam, k1, b, method, max_prox_terms)
    if plan is None:
        return _empty()
    tids, qtf, nq, (tables, ph_slot, _, pop) = plan
    # the rest of the set-up runs in numba (_lkp_query)
    pp, pd, pt, qp, pos, dl, rank, maxdl, df_all, cf_all = _arrays(index)
    st = collection_stats(index)
    return _lkp_query(
        pp, pd, pt, qp, pos, dl, rank, maxdl, *_scratch(index), _saturation(index, k1, b),
        df_all, cf_all, tids, qtf, nq, int(k), _VARIANT_CODE[variant],
        _method_code(index, tids, nq, method, variant != "l2p"),
        float(lam), float(k1), float(b), float(st.avgdl), float(st.num_docs),
        tables[0], tables[1], ph_slot, _ZERO1 if pop is None else pop,
    )  # fmt: skip


def lkp(index, query_terms, k: int = 1000, lam: float = LAMBDA, k1: float = K1, b: float = B,
        method: str = "auto", max_prox_terms: int | None = MAX_PROX_TERMS,
        algorithm: str = "exhaustive"):  # fmt: skip
    """Lkp, Lu (2018) Eq. 4.3 with Eq. 4.1 / 4.2 (spec §5):

    ``score = (1 - lam) * sum_q f_{q,Q} BM25(q, D) + lam * (sum_{Q' in Q_0} phrase(Q', D)
    + sum_{Q' in Q} Score(Q', D))``

    * BM25 part: BM25^(2), ``w_q = ln(N / f_t)`` (Robertson-Walker, never negative),
      ``k1 = 0.9``, ``b = 0.3`` (Table 4.3), query-frequency factor ``f_{q,Q}`` (k3 dropped).
    * ``Score(Q', D)`` (Eq. 4.2) ``= S (1 + k1) / (S + K)``, ``K = k1 (1 - b + b |D|/avg|D|)``,
      ``S`` = sum of Eq. 4.1 ``w_l w_r / dbar^2``, ``dbar = |I| / sum_{q in Q'} min(w_q, 1)``,
      over the non-overlapping optimal intervals of ``Q'`` (greedy by start, §2.4), for every
      subquery ``Q'`` of >= 2 distinct query terms.
    * phrase part: for each contiguous sub-sequence (>= 2 terms) of the distinct query terms,
      Eq. 4.2 over its exact-phrase occurrences (adjacent, in query order), each scored with
      Eq. 4.1 with ``|I| = |Q'|`` (spec §5.5 ambiguity 1, recommended reading).
    * ``lam = 0.4``. Single-term queries get ``(1 - lam) BM25``.

    ``method``: ``"auto"`` (per query, :func:`~tiebreak.retrieval.intervals.choose_method`),
    ``"lps_if_all"`` or ``"eps_cdf_all"``; the scores do not depend on it.
    ``max_prox_terms`` (default 12, at most 20): the proximity parts use only the highest-IDF
    distinct terms, in query order; BM25 uses all (module docstring: a deliberate deviation).
    ``algorithm="bounds"``: rank-safe pruning by upper bounds of the proximity part from the
    term frequencies (:mod:`tiebreak.retrieval.dependency.pruned`): the same top k, bit for
    bit (the bound is loose for Lkp: see the skip rates in ``benchmarks/bench_models.py``).
    Returns ``(docids int32 (k',), scores float64 (k',))``, k' = min(k, #candidates).
    """
    return _lkp_family(index, query_terms, k, "lkp", lam, k1, b, method, max_prox_terms,
                       algorithm)


def lkpf(index, query_terms, k: int = 1000, lam: float = LAMBDA, k1: float = K1, b: float = B,
         method: str = "auto", max_prox_terms: int | None = MAX_PROX_TERMS,
         algorithm: str = "exhaustive"):  # fmt: skip
    """Lkpf (spec §5.6): :func:`lkp` with the optimal intervals of each subquery ``Q'`` limited
    to ``p_r - p_l + 1 <= 4 |Q'|`` (Indri's length convention) *before* the non-overlap
    selection (equivalent to Indri's ``#uwN`` counting). Phrases always fit. Same parameters,
    return value and errors as :func:`lkp`."""
    return _lkp_family(index, query_terms, k, "lkpf", lam, k1, b, method, max_prox_terms,
                       algorithm)


def l2p(index, query_terms, k: int = 1000, lam: float = LAMBDA, k1: float = K1, b: float = B,
        method: str = "auto", max_prox_terms: int | None = None,
        algorithm: str = "exhaustive"):  # fmt: skip
    """L2p (spec §5.6): :func:`lkp` restricted to the order-preserving bigram subqueries, read as
    the adjacent query pairs ``(q_i, q_{i+1})`` (as in SDM) for both the unordered part (no
    distance limit) and the phrase part. Same parameters, return value as :func:`lkp`, except
    ``max_prox_terms`` defaults to ``None`` = all distinct terms, capped at 62 (the pairs are
    then those of the highest-IDF terms, adjacent in query order)."""
    return _lkp_family(index, query_terms, k, "l2p", lam, k1, b, method, max_prox_terms,
                       algorithm)


@jit
def _pruned_lkp(
    post_ptr, post_docid, post_tf, pos_ptr, pos, doclen, rank, maxdl,
    d_acc, d_cnt, d_head, d_touched, sat, df_all, cf_all,
    tids, qtf, nq, topk, variant, method, lam, k1, b, avgdl, n_docs,
    slot_of_mask, pair_slot, ph_slot, pop, b_slot, b_mask, n_phrase, every,
):  # fmt: skip
    """Lkp / Lkpf / L2p: :func:`~tiebreak.retrieval.dependency.lkp_family._lkp_setup`, the
    per-count bounds of the slots (module docstring: a phrase occurrence adds its constant, an
    unordered interval at most ``max w_a w_b (sumw / |Q'|)^2``), then :func:`_pruned_query`
    in mode 0. The first ``n_phrase`` entries of ``b_slot`` are the phrase slots."""
    w, slot_maxlen, slot_sumw, slot_inc, use_eps, maxp = _lkp_setup(
        df_all, cf_all, tids, nq, variant, method, avgdl, n_docs, ph_slot, pop)
    nslot = len(slot_maxlen)
    unit = np.zeros(nslot, np.float64)
    pairs_only = variant == 2
    for e in range(len(b_slot)):
        s = b_slot[e]
        if e < n_phrase:
            unit[s] = slot_inc[s]
        else:
            m = b_mask[e]
            i = 0
            while ((m >> i) & 1) == 0:
                i += 1
            q = slot_sumw[s] / 2.0
            unit[s] = w[i] * w[i + 1] * q * q
    if not pairs_only:
        # per mask, in increasing order: the two largest weights and the popcount, from the
        # mask without its highest term
        n_m = 1 << nq
        w1 = np.zeros(n_m)
        w2 = np.zeros(n_m)
        cnt = np.zeros(n_m, np.int64)
        for j in range(nq):
            lo = 1 << j
            wj = w[j]
            for r in range(lo):
                m = lo + r
                cnt[m] = cnt[r] + 1
                if wj > w1[r]:
                    w1[m] = wj
                    w2[m] = w1[r]
                else:
                    w1[m] = w1[r]
                    w2[m] = max(w2[r], wj)
                s = slot_of_mask[m]
                if s >= 0:
                    q = slot_sumw[s] / cnt[m]
                    unit[s] = w1[m] * w2[m] * q * q
    return _pruned_query(
        post_ptr, post_docid, post_tf, pos_ptr, pos, doclen, rank, maxdl,
        d_acc, d_cnt, d_head, d_touched,
        tids, nq, topk, 0, use_eps, pairs_only,
        slot_of_mask, pair_slot, slot_maxlen, slot_sumw, ph_slot, maxp, slot_inc,
        w, qtf, k1, b, avgdl, lam,
        _ZERO1, _ZERO1, 1.0, 2500.0, sat, _ZERO1, _ZERO1,
        b_slot, b_mask, unit, every, _ALL_DOCS,
    )  # fmt: skip


def lkp_bounds(index, query_terms, k, variant: str, lam: float, k1: float, b: float,
               method: str, max_prox_terms, stats: dict | None = None, every: bool = False):
    """Lkp / Lkpf / L2p (``variant``) by the pruned traversal (module docstring): ``(docids
    int32, scores float64)``, the exhaustive top ``k`` bit for bit; ``stats`` and ``every``
    as for :func:`mrf_bounds`. Raises ValueError for a bad parameter."""
    plan = _lkp_prepare(index, query_terms, max(int(k), 1) if every else k, variant, lam, k1,
                        b, method, max_prox_terms)
    if plan is None:
        return None if every else _empty()
    tids, qtf, nq = plan[:3]
    tables, ph_slot, phrases, pop, b_slot, b_mask = _bound_tables(nq, variant)
    pp, pd, pt, qp, pos, dl, rank, maxdl, df_all, cf_all = _arrays(index)
    st = collection_stats(index)
    out = _pruned_lkp(
        pp, pd, pt, qp, pos, dl, rank, maxdl, *_scratch(index), _saturation(index, k1, b),
        df_all, cf_all, tids, qtf, nq, int(k), _VARIANT_CODE[variant],
        _method_code(index, tids, nq, method, variant != "l2p"),
        float(lam), float(k1), float(b), float(st.avgdl), float(st.num_docs),
        tables[0], tables[1], ph_slot, _NOPOP if pop is None else pop, b_slot, b_mask,
        len(phrases), bool(every),
    )  # fmt: skip
    _report(out, stats)
    return out if every else out[:2]
