"""The two-stage kernels of :mod:`tiebreak.retrieval.rerank` (a BM25 first pass, then Lkp's
Eq. 4.3 on its top documents): :func:`_rerank_kernel` rescores a first-pass ranking with
rank-safe early termination (upper bounds, a min-heap of the exact scores) and merges the
scaled tail; :func:`_rerank_query` fuses the compiled BM25 top-k with it in one call.

They compile in :func:`~tiebreak.retrieval.dependency.lkp_family._lkp_setup` and the proximity
kernels of :mod:`~tiebreak.retrieval.dependency._kernels` (:func:`_proximity_doc`,
:func:`_select_topk`): numba's on-disk cache of a kernel is keyed by the stamp of the file
that defines it and a compiled caller holds its callees' code, so after an edit of those files
clear the cache.
"""

from __future__ import annotations

import numpy as np

from ..intervals import jit
from ..kernels import _bm25_impact_topk  # the first pass of the two-stage kernel
from ._kernels import (
    _heap_push,
    _lkp_proximity,
    _proximity_direct_doc,
    _proximity_doc,
    _proximity_scratch,
    _select_topk,
)
from .lkp_family import _lkp_setup


@jit
def _rerank_kernel(
    post_ptr, post_docid, pos_ptr, pos, rank, maxdl, sat, df_all, cf_all,
    cands, first_sc, nprox, tail_w, tids, qtf, nq, topk, variant, method, lam, k1, b, avgdl,
    doclen_arr, n_docs, slot_of_mask, pair_slot, ph_slot, pop, direct, doc_start, local,
):  # fmt: skip
    """Two-stage scores. With a non-empty ``direct`` (the stored direct file, int32; document
    d at ``direct[doc_start[d]:doc_start[d+1]]``, ``local`` int32 term id -> local proximity
    term or -1) a candidate's CDF is read from it and ``pos_ptr``/``pos`` are not read (they
    may be empty); else it is merged from the positional postings. ``cands`` (int32) and
    ``first_sc`` (float64) are the first pass's ranking, best first in trec_eval order. The
    first ``nprox`` documents (the head) get their Eq. 4.3 score; the others (the tail)
    ``tail_w * first_sc``, already in order. ``method``: 1 LPS-IF-A, 2 EPS-CDF-A (resolved by
    the caller). Returns the top ``topk`` of head and tail merged, in trec_eval order."""
    w, slot_maxlen, slot_sumw, slot_inc, use_eps, maxp = _lkp_setup(
        df_all, cf_all, tids, nq, variant, method, avgdl, n_docs, ph_slot, pop)
    pairs_only = variant == 2
    use_direct = direct.size > 0
    k = len(tids)
    P = nq
    n_all = len(cands)
    m = min(nprox, n_all)
    # the head in docid order; posting index of (head document i, term j), -1 when absent: per
    # term, a galloping search per document from where the previous one ended (O(log gap):
    # a handful of probes when the head is dense in the postings, few when it is sparse)
    hd = np.sort(cands[:m])
    where = np.full((m, k), -1, np.int64)
    for j in range(k):
        t = tids[j]
        lo = post_ptr[t]
        hi = post_ptr[t + 1]
        for i in range(m):
            if lo >= hi:
                break
            d = hd[i]
            if post_docid[lo] < d:
                # gallop from lo, then a binary search in the last step's range
                step = 1
                while lo + step < hi and post_docid[lo + step] < d:
                    lo += step
                    step <<= 1
                end = min(lo + step, hi)
                lo += 1 + np.searchsorted(post_docid[lo + 1:end], d)
            if lo < hi and post_docid[lo] == d:
                where[i, j] = lo
    nslots = len(slot_maxlen)
    starts, ends, mcur, latest, cdf_pos, cdf_term, stamp, last, acc, touched = \
        _proximity_scratch(P, maxdl, nslots)
    sc = np.empty(m, np.float64)
    ub = np.empty(m, np.float64)
    npx_of = np.zeros(m, np.int64)
    pmax = lam * (1.0 + k1)
    for i in range(m):
        bm = 0.0
        npx = 0
        nslot = 0
        run = 0
        for j in range(k):
            p = where[i, j]
            if p >= 0:
                bm += qtf[j] * w[j] * (k1 + 1.0) * sat[p]
        for j in range(P):
            if where[i, j] >= 0:
                npx += 1
                run += 1
                # the slots ending at term j a document can touch: adjacent pairs (unordered
                # and phrase), or the phrases (contiguous runs of present terms) ending there
                if pairs_only:
                    nslot += 2 if run >= 2 else 0
                else:
                    nslot += min(run, maxp) - 1
            else:
                run = 0
        if not pairs_only and npx >= 2:
            nslot += (1 << npx) - npx - 1   # every subset of >= 2 present terms
        sc[i] = (1.0 - lam) * bm
        npx_of[i] = npx
        # each Eq. 4.2 term S (1 + k1) / (S + K_d) is below 1 + k1: an upper bound of Eq. 4.3
        # (with room for rounding)
        ub[i] = sc[i] + (pmax * nslot) * (1.0 + 1e-9) + 1e-12 if npx >= 2 else sc[i]
    # proximity for the head documents in decreasing bound order; when fewer than m documents
    # are returned, stop once the topk-th exact score is above the next bound (rank-safe: a
    # document left out scores at most its bound, below topk documents already scored)
    prune = topk < m
    if prune:
        order = np.argsort(-ub, kind="mergesort")
    else:
        order = np.arange(m)
    heap = np.empty(max(topk, 1), np.float64)
    hn = 0
    done = np.empty(m, np.int64)
    nd = 0
    for x in range(m):
        i = order[x]
        if prune and hn == topk and heap[0] > ub[i]:
            break
        if npx_of[i] >= 2 and use_direct:
            d = hd[i]
            nt = _proximity_direct_doc(
                direct, doc_start[d], doc_start[d + 1], local, cdf_pos, cdf_term, latest, P,
                0, use_eps, pairs_only, slot_of_mask, pair_slot, slot_maxlen, slot_sumw,
                ph_slot, maxp, slot_inc, w, stamp, last, acc, touched, x,
            )  # fmt: skip
            sc[i] += lam * _lkp_proximity(acc, touched, nt, doclen_arr[d], k1, b, avgdl)
        elif npx_of[i] >= 2:
            d = hd[i]
            for j in range(P):
                p = where[i, j]
                if p >= 0:
                    starts[j] = pos_ptr[p]
                    ends[j] = pos_ptr[p + 1]
                else:
                    starts[j] = 0
                    ends[j] = 0
            nt = _proximity_doc(
                pos, starts, ends, cdf_pos, cdf_term, mcur, latest, P, 0, use_eps,
                pairs_only, slot_of_mask, pair_slot, slot_maxlen, slot_sumw, ph_slot,
                maxp, slot_inc, w, stamp, last, acc, touched, x,
            )  # fmt: skip
            sc[i] += lam * _lkp_proximity(acc, touched, nt, doclen_arr[d], k1, b, avgdl)
        done[nd] = i
        nd += 1
        if prune:
            _heap_push(heap, hn, topk, sc[i])
            hn = min(hn + 1, topk)
    sel = done[:nd]
    h_d, h_s = _select_topk(sc[sel], hd[sel], rank, min(topk, nd))
    # merge the sorted head with the tail (already in order: first-pass order, scaled scores)
    n_out = min(topk, m + (n_all - m))
    out_d = np.empty(n_out, np.int32)
    out_s = np.empty(n_out, np.float64)
    a = 0
    t = m
    for o in range(n_out):
        take_head = a < len(h_d)
        if take_head and t < n_all:
            ts = tail_w * first_sc[t]
            take_head = h_s[a] > ts or (h_s[a] == ts and rank[h_d[a]] > rank[cands[t]])
        if take_head:
            out_d[o] = h_d[a]
            out_s[o] = h_s[a]
            a += 1
        else:
            out_d[o] = cands[t]
            out_s[o] = tail_w * first_sc[t]
            t += 1
    # scaling can make distinct first-pass scores equal (and lam = 1 makes the whole tail 0):
    # put every group of equal scores in docno-descending order, as trec_eval reads them
    g = 0
    while g < n_out:
        e = g + 1
        while e < n_out and out_s[e] == out_s[g]:
            e += 1
        ordered = True
        for i in range(g + 1, e):
            if rank[out_d[i]] > rank[out_d[i - 1]]:
                ordered = False
                break
        if not ordered:  # rare: only where scaling made scores equal
            r = np.empty(e - g, np.int64)
            for i in range(g, e):
                r[i - g] = -rank[out_d[i]]
            o = np.argsort(r, kind="mergesort")
            grp = out_d[g:e].copy()
            for i in range(e - g):
                out_d[g + i] = grp[o[i]]
        g = e
    return out_d, out_s


@jit
def _rerank_query(
    bpp, bpd, imp, tids0, w0, acc, seen, touched, brank, n_first,
    post_ptr, post_docid, pos_ptr, pos, rank, maxdl, sat, df_all, cf_all,
    first_k, tail_w, tids, qtf, nq, topk, variant, method, lam, k1, b, avgdl,
    doclen_arr, n_docs, slot_of_mask, pair_slot, ph_slot, pop, direct, doc_start, local,
):  # fmt: skip
    """The BM25 first pass (the compiled top-k of :mod:`tiebreak.retrieval.models`, given its
    impacts, weights and scratch arrays) and :func:`_rerank_kernel` in one compiled call (one
    dispatch, no Python in between)."""
    cands, first_sc = _bm25_impact_topk(bpp, bpd, imp, tids0, w0, acc, seen, touched, brank,
                                        n_first)
    if len(cands) == 0:
        return np.zeros(0, np.int32), np.zeros(0, np.float64)
    return _rerank_kernel(
        post_ptr, post_docid, pos_ptr, pos, rank, maxdl, sat, df_all, cf_all,
        cands, first_sc, first_k, tail_w, tids, qtf, nq, topk, variant, method, lam, k1, b,
        avgdl, doclen_arr, n_docs, slot_of_mask, pair_slot, ph_slot, pop, direct, doc_start,
        local,
    )  # fmt: skip
