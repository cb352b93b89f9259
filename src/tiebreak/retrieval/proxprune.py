"""Rank-safe dynamic pruning for the sequential dependence model: upper bounds of the proximity
potentials from the postings alone, so that the positions of most candidates are never read.

SDM (D. Metzler and W. B. Croft, "A Markov random field model for term dependencies", SIGIR
2005; :func:`tiebreak.retrieval.dependency.sdm`, Indri semantics) scores a candidate D as

    score(D) = c0 - g ln(|D| + mu) + sum_q w_q (ln(tf_q + b_q) - ln b_q)
               + sum_{pairs i, features f} w_f (ln(n_f(D) + b_f) - ln b_f)     [n_f(D) > 0]

with ``b = mu cf / |C|`` per feature, the ordered (``#1``) and unordered (``#uwN``) counts
``n_f(D)`` of each adjacent query-term pair and ``c0``, ``g`` constants of the query. Both
window counts of a pair are at most ``min(tf_a, tf_b)``: an exact phrase uses one occurrence
of each term, and the ``#uwN`` windows counted are non-overlapping, each holding an occurrence
of both. The potential grows with the count, so

    ub(D) = score without the windows + sum_pairs w_f (ln(min(tf_a, tf_b) + b_f) - ln b_f)

bounds the score from the term frequencies alone (both terms present; 0 otherwise). The
traversal (MaxScore-like, in the spirit of H. Turtle and J. Flood, "Query evaluation:
strategies and optimizations", IP&M 31(6), 1995, applied to the proximity part as Lu 2018
§3.5 / ch. 7 proposes) is:

1. one document-at-a-time merge of the query terms' postings (no positions): every candidate's
   score without its window potentials -- a *lower* bound of its score, since each potential
   of a count >= 1 is positive -- and its upper bound; the k-th largest lower bound is the
   first threshold;
2. a second pass over the candidates: one whose upper bound is below the threshold cannot be in
   the top k and is skipped; the others are scored exactly (windows from the positions), and
   the threshold rises to the k-th best exact score found (a document whose bound *equals*
   the threshold is scored: it could tie and win on the docno). The threshold never exceeds
   the true k-th score, so the top k is exact (rank-safe).

The collection counts ``cf_f`` of the window features are needed before any score: they come
from a **term-pair statistics index** (:func:`pair_statistics`): per adjacent pair and window,
the ``#1`` and ``#uwN`` counts summed over the collection, computed once per pair by one merge
of the two terms' positional postings and kept on the index object (Table 2.2's term-pair
index, for the pairs a query set needs;
:func:`tiebreak.retrieval.dependency.build_pair_statistics` fills it for a topic set). The
driver is :func:`tiebreak.retrieval.dependency.sdm_bounds` (``sdm -p algorithm=bounds``).
The results are those of exhaustive :func:`~tiebreak.retrieval.dependency.sdm`: the same
documents in the same order, scores equal to within float rounding (the window potentials are
added in another order; tested to 1e-12 on the classic collections).
"""

from __future__ import annotations

import math

import numpy as np

from .intervals import jit

__all__ = ["bounds_search", "pair_statistics", "pair_counts_in"]


@jit
def _pair_counts(pos, a0, a1, b0, b1, window):
    """(#1 count, #uwN count) of terms A (positions pos[a0:a1]) then B (pos[b0:b1]) in one
    document: exact phrases ``A B``; the greedy non-overlapping optimal intervals of the two
    terms of length <= ``window`` (the length filter first, Indri's #uwN)."""
    # ordered: positions p of A with p + 1 in B
    o = 0
    j = b0
    for i in range(a0, a1):
        t = pos[i] + 1
        while j < b1 and pos[j] < t:
            j += 1
        if j < b1 and pos[j] == t:
            o += 1
    # unordered: merge; each adjacent pair of different terms is an optimal interval
    u = 0
    last = -1
    i = a0
    j = b0
    prev_p = -1
    prev_t = -1
    while i < a1 or j < b1:
        if j >= b1 or (i < a1 and pos[i] < pos[j]):
            p = pos[i]
            t = 0
            i += 1
        else:
            p = pos[j]
            t = 1
            j += 1
        if prev_t >= 0 and t != prev_t:
            if p - prev_p + 1 <= window and prev_p > last:
                u += 1
                last = p
        prev_p = p
        prev_t = t
    return o, u


@jit(inline=True)
def next_common(pd, i, ie, j, je):
    """The first postings ``i' >= i``, ``j' >= j`` of two docid-ascending lists
    ``pd[i:ie]``, ``pd[j:je]`` with the same docid, or ``(ie, je)`` when there is none (one
    step of the merge of two posting lists)."""
    while i < ie and j < je:
        if pd[i] < pd[j]:
            i += 1
        elif pd[j] < pd[i]:
            j += 1
        else:
            return i, j
    return ie, je


@jit
def _pair_totals(pp, pd, qp, pos, ta, tb, window):
    """Collection (#1, #uwN) counts of the pair (ta, tb): one merge of the two posting lists."""
    ie, je = pp[ta + 1], pp[tb + 1]
    so = 0.0
    su = 0.0
    i, j = next_common(pd, pp[ta], ie, pp[tb], je)
    while i < ie:
        o, u = _pair_counts(pos, qp[i], qp[i + 1], qp[j], qp[j + 1], window)
        so += o
        su += u
        i, j = next_common(pd, i + 1, ie, j + 1, je)
    return so, su


def pair_counts_in(pos_a, pos_b, window: int) -> tuple[int, int]:
    """``(#1, #uwN)`` counts of term A then B in one document from their sorted position lists
    (int sequences): the per-document quantities of the bound (tests compare them with
    :func:`tiebreak.retrieval.proximity.count_ordered` / ``count_unordered``)."""
    p = np.concatenate([np.asarray(pos_a, np.int32), np.asarray(pos_b, np.int32)])
    na = len(pos_a)
    o, u = _pair_counts(p, 0, na, na, len(p), int(window))
    return int(o), int(u)


def pair_statistics(index, pairs, window: int, arrays) -> dict:
    """The term-pair statistics index of ``index``: ``{(ta, tb): (#1 count, #uwN count)}``
    summed over the collection (float64 values, exact integers), for the term-id ``pairs``
    (each computed once and kept on the index object, under ``("pair-stats", window)``).
    ``arrays``: the index's ``(post_ptr int64, post_docid int32, post_tf, pos_ptr int64, pos
    int32)``. Raises ValueError on a shard of a sharded index (which holds part of the
    positions)."""
    if getattr(index, "global_stats", None) is not None:
        raise ValueError("pair statistics need the whole collection's positions (not a shard)")
    store = index._cache.setdefault(("pair-stats", int(window)), {})
    missing = [p for p in pairs if p not in store]
    if missing:
        pp, pd, _, qp, pos = arrays[:5]
        for ta, tb in missing:
            store[(ta, tb)] = _pair_totals(pp, pd, qp, pos, np.int64(ta), np.int64(tb),
                                           np.int64(window))
    return {p: store[p] for p in pairs}


@jit
def _heap_push(h, size, k, x):
    """Push ``x`` into the min-heap ``h[:size]`` of capacity ``k`` (the k largest kept);
    returns the new size."""
    if size < k:
        i = size
        h[i] = x
        while i > 0:
            par = (i - 1) // 2
            if h[par] <= h[i]:
                break
            h[par], h[i] = h[i], h[par]
            i = par
        return size + 1
    if x <= h[0]:
        return size
    h[0] = x
    i = 0
    while True:
        left = 2 * i + 1
        m = i
        if left < k and h[left] < h[m]:
            m = left
        if left + 1 < k and h[left + 1] < h[m]:
            m = left + 1
        if m == i:
            return size
        h[m], h[i] = h[i], h[m]
        i = m


@jit
def _find(pp, pd, t, d):
    """Posting index of document ``d`` in term ``t``'s list (ascending docids), or -1."""
    lo = pp[t]
    hi = pp[t + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        if pd[mid] < d:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < pp[t + 1] and pd[lo] == d else -1


@jit
def _search(pp, pd, pt, qp, pos, dl, tids, qtf, cf, npx, window, sat, lt, lo, lu, mu, coll_len,
            ln_dl, k, acc, bnd, ptf, mark, touched):
    """The pruned traversal (module docstring). Term-at-a-time over the postings into the dense
    (N,) scratch arrays ``acc`` (the score without window potentials, less its constant part),
    ``bnd`` (the bound of the window potentials), ``ptf`` and ``mark`` (the tf and index + 1 of
    the last proximity term seen in the document, which makes each adjacent pair's bound
    ``min(tf_a, tf_b)`` available while the second term's postings pass; 0: not touched); zero
    on entry and left so. A document's score without its window potentials is a lower bound of
    its score (each potential of a count >= 1 is > 0): the k-th largest of those is the first
    threshold, then the k-th largest exact score found; a candidate whose upper bound is below
    it is skipped, the others are scored from their positions (their postings found by binary
    search). ``cf``: the slots' collection counts (unigrams, then the ordered and the unordered
    features of the adjacent pairs). Returns the scored candidates at or above the final
    threshold (docids, exact scores), the number of candidates and the number whose positions
    were read."""
    nq = tids.size
    no = max(npx - 1, 0)
    nslot = nq + 2 * no
    # slot weights (Indri #combine) and Dirichlet backgrounds, summed in the exhaustive
    # kernel's slot order so that c0 and gsum have its bits
    gw = np.zeros(nslot)
    qsum = 0.0
    for j in range(nq):
        qsum += qtf[j]
    for j in range(nq):
        gw[j] = lt * qtf[j] / qsum
    for j in range(no):
        gw[nq + j] = lo / max(no, 1)
        gw[nq + no + j] = lu / max(no, 1)
    bg = np.zeros(nslot)
    lbg = np.zeros(nslot)
    c0 = 0.0
    gsum = 0.0
    for s in range(nslot):
        if cf[s] > 0:
            bg[s] = mu * cf[s] / coll_len
            lbg[s] = math.log(bg[s])
            c0 += gw[s] * lbg[s]
            gsum += gw[s]
    # pass 1: term at a time. ptf[d] holds the tf of the last proximity term seen in d and
    # mark[d] that term's index + 1 (0: d not touched yet), so the previous term's tf is read
    # only when it is the previous term's
    n = 0
    for j in range(nq):
        t = tids[j]
        for p in range(pp[t], pp[t + 1]):
            d = pd[p]
            tag = mark[d]
            if tag == 0:
                touched[n] = d
                n += 1
            if bg[j] > 0:
                acc[d] += gw[j] * sat[p]
            if j < npx:
                if j > 0 and tag == j:
                    m = min(ptf[d], pt[p])
                    so = nq + j - 1
                    su = nq + no + j - 1
                    if bg[so] > 0:
                        bnd[d] += gw[so] * (math.log(m + bg[so]) - lbg[so])
                    if bg[su] > 0:
                        bnd[d] += gw[su] * (math.log(m + bg[su]) - lbg[su])
                ptf[d] = pt[p]
                mark[d] = j + 1
            elif tag == 0:
                mark[d] = nq + 1
    theta = -np.inf
    if n >= k:
        lb = np.empty(n, np.float64)
        for i in range(n):
            d = touched[i]
            lb[i] = (c0 - gsum * ln_dl[dl[d]]) + acc[d]
        theta = np.partition(lb, n - k)[n - k]
    heap = np.empty(max(k, 1), np.float64)
    hn = 0
    # pass 2: exact scores of the candidates whose upper bound reaches the threshold
    out_d = np.empty(n, np.int64)
    out_s = np.empty(n, np.float64)
    hn = 0
    ns = 0
    nread = 0
    for i in range(n):
        d = touched[i]
        a = acc[d]
        bd = bnd[d]
        acc[d] = 0.0
        bnd[d] = 0.0
        mark[d] = 0
        ptf[d] = 0
        front = c0 - gsum * ln_dl[dl[d]]
        if front + (a + bd) < theta:
            continue
        if bd > 0.0:
            nread += 1
            for j in range(no):
                pa = _find(pp, pd, tids[j], d)
                if pa < 0:
                    continue
                pb = _find(pp, pd, tids[j + 1], d)
                if pb < 0:
                    continue
                o, u = _pair_counts(pos, qp[pa], qp[pa + 1], qp[pb], qp[pb + 1], window)
                so = nq + j
                su = nq + no + j
                if o > 0 and bg[so] > 0:
                    a += gw[so] * (math.log(o + bg[so]) - lbg[so])
                if u > 0 and bg[su] > 0:
                    a += gw[su] * (math.log(u + bg[su]) - lbg[su])
        sc = front + a
        out_d[ns] = d
        out_s[ns] = sc
        ns += 1
        hn = _heap_push(heap, hn, k, sc)
        if hn == k and heap[0] > theta:
            theta = heap[0]
    m = 0
    for i in range(ns):
        if out_s[i] >= theta:
            out_d[m] = out_d[i]
            out_s[m] = out_s[i]
            m += 1
    return out_d[:m], out_s[:m], n, nread


def bounds_search(index, arrays, tids, qtf, npx: int, window: int, sat, ln_dl, weights,
                  mu: float, coll_len: float, k: int):
    """The pruned traversal of one SDM query (module docstring) over ``arrays`` (the index's
    ``(post_ptr, post_docid, post_tf, pos_ptr, pos, doclen, rank, maxdl, df, cf)``), for the
    distinct term ids ``tids`` (proximity terms first, ``npx`` of them) with query frequencies
    ``qtf``; ``sat`` and ``ln_dl`` the cached per-posting Dirichlet parts and ``ln(L + mu)`` of
    :mod:`tiebreak.retrieval.dependency`. Returns ``(docids int64, scores float64, candidates,
    scored)``: the scored candidates at or above the final threshold, unsorted."""
    pp, pd, pt, qp, pos, dl = arrays[:6]
    nq = len(tids)
    no = max(npx - 1, 0)
    cf = np.zeros(nq + 2 * no)
    cf[:nq] = np.asarray(arrays[9], np.float64)[tids]
    if no:
        pairs = [(int(tids[j]), int(tids[j + 1])) for j in range(no)]
        ps = pair_statistics(index, pairs, int(window), arrays)
        for j, pr in enumerate(pairs):
            cf[nq + j], cf[nq + no + j] = ps[pr]
    scratch = index._cache.get("prune-scratch")
    if scratch is None:
        N = int(index.num_docs)
        scratch = index._cache["prune-scratch"] = (
            np.zeros(N), np.zeros(N), np.zeros(N, np.int32), np.zeros(N, np.int32),
            np.empty(N, np.int32))
    lt, lo, lu = (float(x) for x in weights)
    return _search(pp, pd, pt, qp, pos, dl, tids, qtf, cf, np.int64(npx), np.int64(window), sat,
                   lt, lo, lu, float(mu), float(coll_len), ln_dl, np.int64(k), *scratch)
