"""Rank-safe dynamic pruning of the dependency models (SDM, FDM, Lkp, Lkpf, L2p): per-document
upper bounds of the proximity component from the postings alone (term frequencies, document
length and collection statistics; no positions), so that the positions of the candidates that
cannot reach the top ``k`` are never read. One traversal (:func:`_pruned_query`) serves every
model; the per-document features and scores are those of the exhaustive kernel
(:func:`~tiebreak.retrieval.dependency._kernels._proximity`, the same set-up, the same
summation order), so the top ``k`` is the exhaustive one **bit for bit**: the same documents,
scores and trec_eval tie order.

The bounds (a derivation; ``tf_q`` is the document's frequency of term q, ``|D|`` its length):

* **Counts.** A window feature of a subquery Q' (SDM/FDM's ``#1`` and ``#uwN``, Lkp's phrase
  and unordered features) counts, in one document, exact phrases or greedily selected
  *non-overlapping* optimal intervals; each holds an occurrence of every term of Q' and no two
  share an occurrence (phrases: each starts at a distinct occurrence of the first term,
  likewise for the others). So ``n(Q', D) <= min_{q in Q'} tf_q``, and, the |Q'| terms sitting
  at distinct positions of disjoint intervals, ``n(Q', D) <= |D| // |Q'|``. A feature of a
  subquery with a term absent from D is 0.
* **SDM / FDM** (Metzler & Croft 2005, Indri semantics): a window potential is
  ``g_f (ln(n + b_f) - ln b_f)`` with ``b_f = mu cf_f / |C| > 0``, increasing in the count n,
  so replacing each n by its count bound bounds the window part; the rest of the score (the
  unigram potentials and the length term) is exact and is a *lower* bound of the score (each
  potential of a count >= 1 is > 0). The collection counts ``cf_f`` are needed before any
  score: SDM's come from the term-pair statistics index
  (:func:`tiebreak.retrieval.proxprune.pair_statistics`), FDM's from a subquery statistics
  store (:func:`~tiebreak.retrieval.dependency.mrf.window_statistics`: the exhaustive pass 1
  of the query's proximity terms, computed once and kept on the index;
  :func:`~tiebreak.retrieval.dependency.mrf.build_subquery_statistics` fills it for a topic
  set).
* **Lkp, Lkpf, L2p** (Lu 2018, Eq. 4.1-4.3): ``Score(Q', D) = S (1 + k1) / (S + K_D)`` is
  non-decreasing in the accumulated ``S`` (derivative ``(1 + k1) K_D / (S + K_D)^2 >= 0``).
  An unordered interval of Q' adds ``w_l w_r (sumw(Q') / |I|)^2`` with ``w_l, w_r`` the
  weights of its two end terms (distinct terms of Q') and ``|I| >= |Q'|``, so at most
  ``u(Q') = max_{a != b in Q'} w_a w_b (sumw(Q') / |Q'|)^2`` (the two largest weights of Q');
  a phrase occurrence adds exactly its constant. Hence ``S <= n_max(Q', D) u(Q')`` and
  ``Score(Q', D) <= f(n_max u)``; the BM25 part is exact, and ``(1 - lam) BM25`` (the score
  with no proximity) is a lower bound. This bound ignores how far apart the terms are, the
  heart of Lkp's proximity: where one document's intervals are long, ``S`` is far below it,
  and the bound prunes little (the benchmark prints the skip rate).

For the subset models (FDM, Lkp, Lkpf) the bound above visits the ``2^m`` subsets of the
document's m proximity terms; a coarse bound is tried first -- the phrases as above, and per
subset size c the ``C(m, c)`` subsets each at the largest per-count value of the query's
subsets of that size with the count bound ``min(max tf, |D| // c)`` -- and the subsets are
visited only where the coarse bound reaches the first threshold.

Every bound is computed in floating point and then widened by ``1e-9`` of the magnitudes summed
(far above the rounding of the few thousand additions of a score), so it is never below the
computed exact score (tested:
:func:`~tiebreak.retrieval.dependency.bounds.proximity_bounds`).

The traversal (MaxScore-like, in the spirit of H. Turtle and J. Flood, "Query evaluation:
strategies and optimizations", IP&M 31(6), 1995, applied to the proximity part as Lu 2018
§3.5 proposes): (1) one term-at-a-time pass over the postings, as the exhaustive kernel's:
every candidate's exact score without proximity (the lower bound) and its upper bound; the
k-th largest lower bound is the first threshold; (2) the candidates whose bound reaches it,
in decreasing bound order, are scored exactly from their positions; the threshold rises to
the k-th best exact score, and the traversal stops at the first bound below it (a document
whose bound *equals* the threshold is scored: it could tie and win on the docno). No document
skipped can be in the top k.

This module is the kernel layer, below the models: the drivers are
:func:`tiebreak.retrieval.dependency.mrf.mrf_bounds` (SDM, FDM; with the window statistics,
:func:`~tiebreak.retrieval.dependency.mrf.window_statistics`) and
:func:`tiebreak.retrieval.dependency.lkp_family.lkp_bounds`; the bound check
:func:`tiebreak.retrieval.dependency.bounds.proximity_bounds`. The kernels of ``mrf.py`` and
``lkp_family.py`` compile in :func:`_pruned_query`: after an edit of this file, clear numba's
cache (:mod:`tiebreak._native.jit`).

Selected with the models' ``algorithm="bounds"`` parameter (``tiebreak search --model fdm -p
algorithm=bounds``).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..intervals import jit
from ._kernels import (
    _heap_push,
    _lkp_proximity,
    _postings_pass,
    _proximity,
    _proximity_scratch,
    _select_topk,
)
from .plan import (
    _PROX_UNIT,
    _structure,
)

__all__: list[str] = []

#: relative widening of every bound (module docstring)
_SLACK = 1e-9
#: the popcount table of a pair model (unused), read-only like :func:`_structure`'s tables so
#: that every query passes the same argument types (one compiled signature per kernel)
_NOPOP = np.zeros(1)
_NOPOP.flags.writeable = False


@jit(inline=True)
def _slot_bound(s, n, mode, slot_gw, bg, lbg, slot_unit, k1, kd):
    """Bound of slot ``s``'s contribution for a count of at most ``n`` (module docstring):
    mode 1 the Dirichlet window potential, mode 0 Eq. 4.2 (without the factor lam)."""
    if n <= 0:
        return 0.0
    if mode == 1:
        if bg[s] > 0:
            return slot_gw[s] * (math.log(n + bg[s]) - lbg[s])
        return 0.0
    S = n * slot_unit[s]
    if S > 0.0:
        return S * (1.0 + k1) / (S + kd)
    return 0.0


@jit(inline=True)
def _explicit_bound(present, tfv, dl, P, mode, b_slot, b_mask, slot_gw, bg, lbg, slot_unit, k1,
                    kd):  # fmt: skip
    """Bound of the explicit slots ``b_slot`` of term masks ``b_mask`` (phrases; adjacent
    pairs) of one document whose proximity terms are the bits of ``present`` with frequencies
    ``tfv`` (module docstring)."""
    tot = 0.0
    for e in range(len(b_slot)):
        m = b_mask[e]
        if (m & present) == m:
            n = dl
            c = 0
            for j in range(P):
                if (m >> j) & 1:
                    n = min(n, tfv[j])
                    c += 1
            tot += _slot_bound(b_slot[e], min(n, dl // c), mode, slot_gw, bg, lbg, slot_unit,
                               k1, kd)
    return tot


@jit(inline=True)
def _subset_bound(present, tfv, dl, mode, slot_of_mask, slot_gw, bg, lbg, slot_unit, k1, kd,
                  mt, pc):  # fmt: skip
    """Bound of the subset slots (``slot_of_mask``) of one document: every subset of
    ``present`` with >= 2 terms (``mt``, ``pc``: (2^P,) scratch for the subsets' minimum tf and
    popcount, visited in increasing order)."""
    tot = 0.0
    sub = np.int64(0)
    while True:
        sub = (sub - present) & present
        if sub == 0:
            break
        low = sub & -sub
        rest = sub ^ low
        j = 0
        while (low >> j) != 1:
            j += 1
        if rest == 0:
            mt[sub] = tfv[j]
            pc[sub] = 1
        else:
            mt[sub] = min(mt[rest], tfv[j])
            pc[sub] = pc[rest] + 1
            s = slot_of_mask[sub]
            if s >= 0:
                tot += _slot_bound(s, min(mt[sub], dl // pc[sub]), mode, slot_gw, bg, lbg,
                                   slot_unit, k1, kd)
    return tot


@jit(inline=True)
def _level_bound(npr, tmax, dl, mode, lv_u, lv_g, lv_bg, lv_lbg, k1, kd):
    """Coarse bound of the subset slots of a document with ``npr`` proximity terms, the largest
    of frequency ``tmax``: per size c, ``C(npr, c)`` subsets, each with a count of at most
    ``min(tmax, |D| // c)`` and the largest per-count value of the query's subsets of size c
    (mode 0: ``lv_u``; mode 1: the largest weight ``lv_g`` and background ``lv_bg``, the
    smallest ``ln`` background ``lv_lbg``)."""
    tot = 0.0
    binom = 1.0
    for c in range(1, npr + 1):
        binom = binom * (npr - c + 1) / c
        if c < 2:
            continue
        n = min(tmax, dl // c)
        if n <= 0:
            continue
        if mode == 0:
            S = n * lv_u[c]
            if S > 0.0:
                tot += binom * (S * (1.0 + k1) / (S + kd))
        elif lv_g[c] > 0:
            tot += binom * (lv_g[c] * (math.log(n + lv_bg[c]) - lv_lbg[c]))
    return tot


@jit
def _pruned_query(
    post_ptr, post_docid, post_tf, pos_ptr, pos, doclen, rank, maxdl,
    d_acc, d_cnt, d_head, d_touched,
    tids, nprox, topk, mode, use_eps, pairs_only,
    slot_of_mask, pair_slot, slot_maxlen, slot_sumw, ph_slot, max_phrase, slot_inc,
    w, qw, k1, b, avgdl, lam,
    slot_gw, uni_cf, coll_len, mu, sat, win, ln_dl,
    b_slot, b_mask, slot_unit, every, only,
):  # fmt: skip
    """The pruned traversal of one query (module docstring). Arguments as
    :func:`~tiebreak.retrieval.dependency._kernels._score_query` (mode 0 Lkp family, mode 1
    SDM/FDM with the window features' collection counts ``win`` (nslots,)), plus the bound
    tables: ``b_slot`` / ``b_mask`` (int64) the explicit slots and their term masks,
    ``slot_unit`` (mode 0) the per-count bound of each slot's Eq. 4.1 sum. ``every``: score
    every candidate (no pruning), for the bound check. ``only``: uint8 (N,) marking the
    documents that may be candidates (a two-stage first pass's top K), or empty for all.

    Returns ``(top docids int32, top scores float64, docids, lower bounds, upper bounds, exact
    scores of the documents scored, candidates, candidates with >= 2 proximity terms, those
    whose positions were read)``. ``d_*`` are the (N,) scratch arrays of the exhaustive kernel,
    zero / -1 on entry and left so."""
    k = len(tids)
    P = nprox
    nslots = len(slot_maxlen)
    total = 0
    for j in range(k):
        total += post_ptr[tids[j] + 1] - post_ptr[tids[j]]
    l_term = np.empty(total, np.int32)
    l_post = np.empty(total, np.int64)
    l_next = np.empty(total, np.int32)
    # mode 1: the Dirichlet constants, summed in the exhaustive kernel's slot order (same bits)
    bg = np.zeros(nslots, np.float64)
    lbg = np.zeros(nslots, np.float64)
    c0 = 0.0
    gsum = 0.0
    if mode == 1:
        for s in range(nslots):
            ts = uni_cf[s] if s < k else win[s]
            if ts > 0:
                bg[s] = mu * ts / coll_len
                lbg[s] = math.log(bg[s])
                c0 += slot_gw[s] * lbg[s]
                gsum += slot_gw[s]
    # pass 1: term at a time, the exhaustive kernel's own pass (the same sums in the same order)
    nd = _postings_pass(tids, P, post_ptr, post_docid, qw, w, k1, mode, bg, slot_gw, sat, only,
                        d_acc, d_cnt, d_head, d_touched, l_term, l_post, l_next)
    # the lower bounds (exact scores without proximity) and the first threshold, the k-th
    # largest of them
    kk = max(topk, 0)
    bounded = every or nd > kk
    lb = np.empty(nd, np.float64)
    ub = np.empty(nd, np.float64)
    for i in range(nd):
        d = d_touched[i]
        if mode == 0:
            lb[i] = (1.0 - lam) * d_acc[d]
        else:
            lb[i] = (c0 - gsum * ln_dl[doclen[d]]) + d_acc[d]
    theta = -np.inf
    if not every and kk > 0 and nd >= kk:
        theta = np.partition(lb, nd - kk)[nd - kk]
    # the coarse bound of the subset models (:func:`_level_bound`): per subset size, the
    # largest per-count value of the query's slots, so that the fine bound's 2^|present|
    # subsets are visited only where the coarse one reaches theta
    lv_u = np.zeros(P + 1, np.float64)
    lv_g = np.zeros(P + 1, np.float64)
    lv_bg = np.zeros(P + 1, np.float64)
    lv_lbg = np.full(P + 1, np.inf)
    if not pairs_only and bounded:
        pcm = np.zeros(1 << P, np.int64)
        for m in range(1, 1 << P):
            pcm[m] = pcm[m & (m - 1)] + 1
            s = slot_of_mask[m]
            if s < 0:
                continue
            c = pcm[m]
            if mode == 0:
                lv_u[c] = max(lv_u[c], slot_unit[s])
            elif bg[s] > 0 and slot_gw[s] > 0:
                lv_g[c] = max(lv_g[c], slot_gw[s])
                lv_bg[c] = max(lv_bg[c], bg[s])
                lv_lbg[c] = min(lv_lbg[c], lbg[s])
    tfv = np.zeros(max(P, 1), np.int64)
    nm = 1 if pairs_only else 1 << P
    mt = np.zeros(nm, np.int64)
    pc = np.zeros(nm, np.int64)
    n_multi = 0
    for i in range(nd):
        d = d_touched[i]
        low = lb[i]
        ub[i] = low
        if d_cnt[d] < 2 * _PROX_UNIT:
            continue
        n_multi += 1
        if not bounded:         # every candidate is in the top k: no bound is needed
            ub[i] = np.inf
            continue
        present = np.int64(0)
        npr = 0
        tmax = 0
        x = d_head[d]
        while x >= 0:
            j = l_term[x]
            if j < P:
                tfv[j] = post_tf[l_post[x]]
                tmax = max(tmax, tfv[j])
                present |= np.int64(1) << j
                npr += 1
            x = l_next[x]
        dl = doclen[d]
        a = d_acc[d]
        fixed = 0.0
        kd = 0.0
        if mode == 1:
            fixed = abs(c0) + abs(gsum * ln_dl[dl]) + abs(a)
        else:
            kd = k1 * (1.0 - b + b * dl / avgdl) if avgdl > 0 else k1 * (1.0 - b)
        pb = _explicit_bound(present, tfv, dl, P, mode, b_slot, b_mask, slot_gw, bg, lbg,
                             slot_unit, k1, kd)
        if not pairs_only:
            if not every:
                cb = pb + _level_bound(npr, tmax, dl, mode, lv_u, lv_g, lv_bg, lv_lbg, k1, kd)
                if mode == 0:
                    cu = low + lam * cb + _SLACK * (abs(low) + lam * cb) + 1e-300
                else:
                    cu = low + cb + _SLACK * (fixed + cb)
                if cu < theta:
                    ub[i] = cu
                    continue
            pb += _subset_bound(present, tfv, dl, mode, slot_of_mask, slot_gw, bg, lbg,
                                slot_unit, k1, kd, mt, pc)
        if mode == 0:
            ub[i] = low + lam * pb + _SLACK * (abs(low) + lam * pb) + 1e-300
        else:
            ub[i] = low + pb + _SLACK * (fixed + pb)
    if every or not bounded:
        order = np.arange(nd)
    else:
        keep = np.empty(nd, np.int64)
        nk = 0
        for i in range(nd):
            if ub[i] >= theta:
                keep[nk] = i
                nk += 1
        keep = keep[:nk]
        order = keep[np.argsort(-ub[keep], kind="mergesort")]
    # pass 2: exact scores in decreasing bound order
    starts, ends, mcur, latest, cdf_pos, cdf_term, stamp, last, acc, touched = \
        _proximity_scratch(P, maxdl, nslots)
    heap = np.empty(max(kk, 1), np.float64)
    hn = 0
    no = len(order)
    out_d = np.empty(no, np.int32)
    out_lb = np.empty(no, np.float64)
    out_ub = np.empty(no, np.float64)
    out_s = np.empty(no, np.float64)
    ns = 0
    nread = 0
    for x in range(no):
        i = order[x]
        if not every and ub[i] < theta:
            break
        d = d_touched[i]
        sc = lb[i]
        if d_cnt[d] >= 2 * _PROX_UNIT:
            nread += 1
            y = d_head[d]
            while y >= 0:
                j = l_term[y]
                if j < P:
                    starts[j] = pos_ptr[l_post[y]]
                    ends[j] = pos_ptr[l_post[y] + 1]
                y = l_next[y]
            nt = _proximity(
                pos, starts, ends, cdf_pos, cdf_term, mcur, latest, P, mode, use_eps,
                pairs_only, slot_of_mask, pair_slot, slot_maxlen, slot_sumw, ph_slot,
                max_phrase, slot_inc, w, stamp, last, acc, touched, i,
            )  # fmt: skip
            for j in range(P):
                starts[j] = 0
                ends[j] = 0
            a = d_acc[d]
            if mode == 0:
                prox = _lkp_proximity(acc, touched, nt, doclen[d], k1, b, avgdl)
                sc = (1.0 - lam) * a + lam * prox
            else:
                for t in range(nt):
                    s = touched[t]
                    if bg[s] > 0:
                        a += slot_gw[s] * (math.log(acc[s] + bg[s]) - lbg[s])
                sc = (c0 - gsum * ln_dl[doclen[d]]) + a
        out_d[ns] = d
        out_lb[ns] = lb[i]
        out_ub[ns] = ub[i]
        out_s[ns] = sc
        ns += 1
        if kk > 0:
            _heap_push(heap, hn, kk, sc)
            hn = min(hn + 1, kk)
            if hn == kk and heap[0] > theta:
                theta = heap[0]
    for i in range(nd):
        d = d_touched[i]
        d_acc[d] = 0.0
        d_cnt[d] = 0
        d_head[d] = -1
    top_d, top_s = _select_topk(out_s[:ns], out_d[:ns], rank, kk)
    return (top_d, top_s, out_d[:ns], out_lb[:ns], out_ub[:ns], out_s[:ns], nd, n_multi,
            nread)


@lru_cache(maxsize=256)
def _bound_tables(npx: int, kind: str, n_uni: int | None = None):
    """:func:`~tiebreak.retrieval.dependency.plan._structure`'s tables and the explicit (slot,
    term mask) lists of the bound (:func:`_bound_slots`); cached, read-only."""
    tables, ph_slot, phrases, pop = _structure(npx, kind, n_uni)
    b_slot, b_mask = _bound_slots(tables, ph_slot, phrases, kind in ("sdm", "l2p"))
    b_slot.flags.writeable = False
    b_mask.flags.writeable = False
    return tables, ph_slot, phrases, pop, b_slot, b_mask


def _bound_slots(tables, ph_slot, phrases, pairs_only: bool):
    """The explicit (slot, term mask) lists of the bound: every phrase slot, and for the pair
    models every adjacent pair's unordered slot; int64 arrays."""
    slots, masks = [], []
    for i, L in phrases:
        slots.append(int(ph_slot[i, L]))
        masks.append(((1 << L) - 1) << i)
    if pairs_only:
        pair = tables[1]
        for i in range(len(pair) - 1):
            if pair[i, i + 1] >= 0:
                slots.append(int(pair[i, i + 1]))
                masks.append(3 << i)
    return np.asarray(slots, np.int64), np.asarray(masks, np.int64)


def _report(out, stats):
    if stats is not None:
        stats["candidates"] = int(out[6])
        stats["multi"] = int(out[7])
        stats["scored"] = int(out[8])
