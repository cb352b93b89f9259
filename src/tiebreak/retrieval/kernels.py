"""Numba kernels of the traversal layer (see :mod:`tiebreak.retrieval.traversal`).

All kernels score one query. A query is a list of ``m`` distinct term ids ``tids`` with weights
``w`` (query order); the contribution of posting ``j`` of term ``tids[i]`` is ``w[i] * imp[j]``
and a document's score is ``sum_i w[i] * imp[j_i]`` over the terms it contains, added **in query
order starting from zero**, plus ``pw * prior[d]`` when ``has_prior`` (query likelihood's length
part). Every algorithm adds in that same order, so floating-point scores are bit-identical across
algorithms. Kernels are dtype-generic: float64 impacts and weights give float64 scores, int32
impacts with int64 weights (quantised) give int64 scores.

Order of the result: score descending, then ``rank`` (docno byte-order rank) descending --
trec_eval's order. A document enters the top ``k`` when ``(score, rank)`` is lexicographically
larger than the current k-th; "cannot enter" tests are therefore strict (``bound + tol < theta``)
so that a document that could tie the threshold and win on docno is always scored.

Size: one module because numba compiles the traversal kernels together and they share the block-max
and accumulator helpers.
"""

from __future__ import annotations

import numpy as np

from .._native.jit import njit

#: postings per block of the block-max arrays
BLOCK = 64


# ------------------------------------------------------------------ result order and heap
# The top k is kept in a min-heap of (score, rank, docid) triples with the worst entry (in
# trec_eval order) at the root. Hot loops test a candidate against the root through
# :func:`_consider` (inlined by numba at the IR level: a scalar comparison, no call) and call
# :func:`_offer` only for the few that enter; a call per candidate costs more than the test.
@njit(cache=True)
def _radix_order(key, maxkey):
    """Stable order (int64 indices) of non-negative int64 keys <= maxkey, ascending: LSD radix
    sort on 8-bit digits (a few passes over the keys; no comparisons)."""
    n = key.size
    src = np.arange(n)
    dst = np.empty(n, np.int64)
    count = np.empty(257, np.int64)
    shift = 0
    while (maxkey >> shift) > 0:
        count[:] = 0
        for j in range(n):
            count[((key[j] >> shift) & 255) + 1] += 1
        for x in range(256):
            count[x + 1] += count[x]
        for j in range(n):
            x = src[j]
            c = (key[x] >> shift) & 255
            dst[count[c]] = x
            count[c] += 1
        src, dst = dst, src
        shift += 8
    return src


@njit(cache=True)
def _better(s1, r1, s2, r2):
    return s1 > s2 or (s1 == s2 and r1 > r2)


@njit(cache=True, inline="always")
def _set_entry(hs, hr, hd, x, s, r, d):
    """Heap slot ``x`` := (score ``s``, rank ``r``, docid ``d``)."""
    hs[x] = s
    hr[x] = r
    hd[x] = d


@njit(cache=True)
def _offer(hs, hr, hd, n, k, s, r, d):
    """Put (s, r, d) into the heap of capacity k holding n entries: appended (sift up) while
    n < k, else it replaces the root (sift down) -- the caller has checked that it beats the
    root. Returns the new n."""
    if n < k:
        x = n
        while x > 0:
            p = (x - 1) >> 1
            if _better(hs[p], hr[p], s, r):
                _set_entry(hs, hr, hd, x, hs[p], hr[p], hd[p])
                x = p
            else:
                break
        _set_entry(hs, hr, hd, x, s, r, d)
        return n + 1
    x = 0
    while True:
        c = 2 * x + 1
        if c >= n:
            break
        if c + 1 < n and _better(hs[c], hr[c], hs[c + 1], hr[c + 1]):
            c += 1
        if _better(s, r, hs[c], hr[c]):
            _set_entry(hs, hr, hd, x, hs[c], hr[c], hd[c])
            x = c
        else:
            break
    _set_entry(hs, hr, hd, x, s, r, d)
    return n


@njit(cache=True)
def _heap_push(hs, hr, hd, n, k, s, r, d):
    """Offer (s, r, d) to a min-heap (worst at the root) of capacity k holding n entries; returns
    the new n."""
    if n < k or _better(s, r, hs[0], hr[0]):
        return _offer(hs, hr, hd, n, k, s, r, d)
    return n


@njit(cache=True)
def _ordered(docids, scores, ranks):
    """(docids int32, scores) of the given entries best first: score descending, then rank
    descending. Up to 64 entries: one sort by score, then every run of equal scores is ordered
    by rank; more: a radix sort by rank descending, then a stable sort by score (runs of ties
    are long in real rankings, quantised ones above all)."""
    m = docids.size
    if m > 64:
        mx = np.int64(0)
        for i in range(m):
            if ranks[i] > mx:
                mx = ranks[i]
        key = np.empty(m, np.int64)
        for i in range(m):
            key[i] = mx - ranks[i]
        o1 = _radix_order(key, mx)
        neg = np.empty(m, scores.dtype)
        for i in range(m):
            neg[i] = -scores[o1[i]]
        o2 = np.argsort(neg, kind="mergesort")      # stable
        od = np.empty(m, np.int32)
        os_ = np.empty(m, scores.dtype)
        for i in range(m):
            x = o1[o2[i]]
            od[i] = docids[x]
            os_[i] = scores[x]
        return od, os_
    o = np.argsort(-scores, kind="mergesort")   # quicksort degrades on long runs of ties
    od = np.empty(m, np.int32)
    os_ = np.empty(m, scores.dtype)
    orr = np.empty(m, np.int64)
    for i in range(m):
        j = o[i]
        od[i] = docids[j]
        os_[i] = scores[j]
        orr[i] = ranks[j]
    i = 0
    while i < m:
        j = i + 1
        while j < m and os_[j] == os_[i]:
            j += 1
        if j - i > 16:
            o2 = np.argsort(-orr[i:j])
            td = od[i:j].copy()
            tr = orr[i:j].copy()
            for a in range(j - i):
                od[i + a] = td[o2[a]]
                orr[i + a] = tr[o2[a]]
        elif j - i > 1:
            for a in range(i + 1, j):
                rr = orr[a]
                dd = od[a]
                b = a - 1
                while b >= i and orr[b] < rr:
                    orr[b + 1] = orr[b]
                    od[b + 1] = od[b]
                    b -= 1
                orr[b + 1] = rr
                od[b + 1] = dd
        i = j
    return od, os_


@njit(cache=True)
def sort_result(docids, scores, rank):
    """Sort (docids, scores) by score descending, then docno rank descending."""
    m = docids.size
    r = np.empty(m, np.int64)
    for i in range(m):
        r[i] = rank[docids[i]]
    return _ordered(docids, scores, r)


@njit(cache=True)
def _heap_result(hs, hr, hd, n):
    return _ordered(hd[:n], hs[:n], hr[:n])


# ------------------------------------------------------------------ exhaustive TAAT
@njit(cache=True)
def accumulate(pp, pd, imp, tids, w, acc, seen, touched):
    """Term-at-a-time sums ``acc[d] += w[q] imp[j]`` over every posting of the query terms
    ``tids``, in query-term order; each document first touched is marked in ``seen`` and
    appended to ``touched``, which must hold N + 1 entries (branch-free: each posting's
    document is written to the next slot before it is known to be new). Returns the number of
    documents touched."""
    n = 0
    for qi in range(tids.size):
        t = tids[qi]
        wi = w[qi]
        for j in range(pp[t], pp[t + 1]):
            d = pd[j]
            touched[n] = d                 # branch-free: the slot is kept only for a new d
            n += 1 - seen[d]
            seen[d] = True
            acc[d] += wi * imp[j]
    return n


@njit(cache=True)
def taat(pp, pd, imp, tids, w, prior, pw, has_prior, acc, seen, touched, rank, k, stats,
         theta0=-np.inf, cs=None):
    """Exhaustive term-at-a-time scoring: every posting of every query term. Returns the top k
    of the touched documents; resets acc/seen.

    ``theta0``: a score at least k documents are known to reach (:func:`tiebreak.retrieval.topk.
    _theta0`, or -inf). When it is > 0 and there is no prior, no per-posting bookkeeping is
    done: the postings are summed into ``acc``, then read again in the same order, each
    document's sum taken and cleared at its first posting; a document's later postings see 0,
    below ``theta0``, so only documents scoring at least ``theta0`` -- a superset of the top k,
    usually a few times k -- are collected (:func:`_taat_threshold`). ``stats[1]`` then counts
    the documents with a non-zero score. ``cs``: scratch of acc's dtype, (N + 1,) (allocated
    when None). ``touched`` must hold N + 1 entries (each posting's document is written to the next
    slot before it is known to be new; raises ValueError otherwise)."""
    if touched.size <= acc.size:
        raise ValueError("taat: touched needs one slot more than there are documents")
    if theta0 > 0.0 and not has_prior:
        if cs is None:
            cs = np.empty(acc.size + 1, acc.dtype)
        if cs.size <= acc.size:
            raise ValueError("taat: cs needs one slot more than there are documents")
        return _taat_threshold(pp, pd, imp, tids, w, acc, touched, cs, rank, k, stats, theta0)
    n = accumulate(pp, pd, imp, tids, w, acc, seen, touched)
    for qi in range(tids.size):
        stats[0] += pp[tids[qi] + 1] - pp[tids[qi]]
    if has_prior:
        for i in range(n):
            d = touched[i]
            acc[d] += pw * prior[d]
    stats[1] += n
    return _topk_of(acc, seen, touched, n, rank, k)


@njit(cache=True)
def _taat_threshold(pp, pd, imp, tids, w, acc, touched, cs, rank, k, stats, theta0):
    """:func:`taat` without a prior and with a starting threshold ``theta0`` > 0 (see there):
    :func:`_collect_threshold`, then :func:`_select`."""
    c = _collect_threshold(pp, pd, imp, tids, w, acc, touched, cs, stats, theta0)
    return _select(touched, cs, c, rank, k)


@njit(cache=True)
def _collect_threshold(pp, pd, imp, tids, w, acc, touched, cs, stats, theta0):
    """Sum the query's postings into ``acc`` and collect the documents scoring at least
    ``theta0`` > 0 into ``touched[:c]`` / ``cs[:c]`` (returns c), clearing ``acc``. The last
    query term's postings complete their documents' sums: those are taken and cleared as they
    are added; the other terms' postings are read a second time, each document's sum taken and
    cleared at its first posting (later ones read 0). Collection is branch-free: every posting
    writes the next slot, which is kept only when the sum reaches ``theta0``, so ``touched``
    and ``cs`` need N + 1 slots. Docids are read as uint32 (they are non-negative: no
    negative-index test per posting)."""
    m = tids.size
    total = 0
    for qi in range(m):
        total += pp[tids[qi] + 1] - pp[tids[qi]]
    stats[0] += total
    # the term whose pass completes the sums: the last one (query order); of two terms the
    # longer (a + b == b + a exactly), so the longer list is read once
    last = m - 1
    if m == 2 and pp[tids[0] + 1] - pp[tids[0]] > pp[tids[1] + 1] - pp[tids[1]]:
        last = 0
    for qi in range(m):
        if qi == last:
            continue
        t = tids[qi]
        wi = w[qi]
        if qi == 0 or (qi == 1 and last == 0):
            for j in range(pp[t], pp[t + 1]):     # the first term read: acc is 0, write
                acc[np.uint32(pd[j])] = wi * imp[j]
        else:
            for j in range(pp[t], pp[t + 1]):
                acc[np.uint32(pd[j])] += wi * imp[j]
    c = 0
    nz = 0
    t = tids[last]
    wi = w[last]
    for j in range(pp[t], pp[t + 1]):
        d = np.uint32(pd[j])
        s = acc[d] + wi * imp[j]
        acc[d] = 0
        nz += s != 0
        touched[c] = d
        cs[c] = s
        c += s >= theta0
    for qi in range(m):
        if qi == last:
            continue
        t = tids[qi]
        for j in range(pp[t], pp[t + 1]):
            d = np.uint32(pd[j])
            s = acc[d]
            acc[d] = 0
            nz += s != 0
            touched[c] = d            # a document's first posting; later ones read 0
            cs[c] = s
            c += s >= theta0
    stats[1] += nz
    return c


@njit(cache=True, inline="always")
def _consider(hs, hr, hd, m, k, s, d, rank):
    """Offer document ``d`` scoring ``s`` to the heap of ``m`` of ``k`` entries after the root
    test (a full heap whose root beats ``(s, rank[d])`` rejects it without a call); returns
    the entries held. Inlined into the hot loops."""
    if m == k:
        if s < hs[0]:
            return m
        r = rank[d]
        if s == hs[0] and r <= hr[0]:
            return m
    else:
        r = rank[d]
    return _offer(hs, hr, hd, m, k, s, r, d)


@njit(cache=True)
def _cut_at_kth(docs, scores, n, rank, k):
    """Top ``k`` of the ``n > k`` candidates ``docs[:n]`` / ``scores[:n]`` by a partition at
    the k-th largest score: every candidate scoring at least that is kept (ties at the cut
    included), the survivors sorted in trec_eval order, the first k returned."""
    thr = np.partition(scores[:n].copy(), n - k)[n - k]
    c = 0
    for i in range(n):
        if scores[i] >= thr:
            c += 1
    cd = np.empty(c, np.int32)
    cs = np.empty(c, scores.dtype)
    c = 0
    for i in range(n):
        if scores[i] >= thr:            # ties at the cut are all kept, then ordered
            cd[c] = docs[i]
            cs[c] = scores[i]
            c += 1
    od, os_ = sort_result(cd, cs, rank)
    return od[:k].copy(), os_[:k].copy()


@njit(cache=True)
def _fill_heap(docs, scores, n, rank, k, hs, hr, hd):
    """Offer the first ``n`` candidates (``docs``, ``scores``) to the empty k-entry heap
    ``hs``/``hr``/``hd``, testing each against the root inline; returns the entries held."""
    m = 0
    for i in range(n):
        m = _consider(hs, hr, hd, m, k, scores[i], docs[i], rank)
    return m


@njit(cache=True)
def _select(docs, scores, n, rank, k):
    """Top k of the n candidates ``docs[:n]`` with ``scores[:n]``, best first in trec_eval
    order (as :func:`_topk_of` selects them)."""
    if n <= k:
        return sort_result(docs[:n].copy(), scores[:n].copy(), rank)
    if n <= 4 * k:
        return _cut_at_kth(docs, scores, n, rank, k)
    hs = np.empty(k, scores.dtype)
    hr = np.empty(k, np.int64)
    hd = np.empty(k, np.int32)
    m = _fill_heap(docs, scores, n, rank, k, hs, hr, hd)
    return _heap_result(hs, hr, hd, m)


@njit(cache=True)
def _topk_of(acc, seen, touched, n, rank, k):
    """Top k of the n touched documents, best first in trec_eval order (score descending, then
    docno rank descending); resets acc/seen for them. Selection: with more than 4k documents,
    one pass through a k-entry min-heap whose root (the current k-th) rejects most documents
    with one comparison; otherwise a partition finds the k-th largest score and every document
    scoring at least that is kept (ties at the cut included). Only the survivors are sorted.
    ``acc``: float64 or integer (quantised)."""
    kk = min(k, n)
    if n <= 4 * k:
        # few documents per slot: a partition at the k-th score, then sort the candidates
        sc = np.empty(n, acc.dtype)
        for i in range(n):
            d = touched[i]
            sc[i] = acc[d]
            acc[d] = 0
            seen[d] = False
        if n <= k:
            return sort_result(touched[:n], sc, rank)
        return _cut_at_kth(touched, sc, n, rank, k)
    hs = np.empty(kk, acc.dtype)
    hr = np.empty(kk, np.int64)
    hd = np.empty(kk, np.int32)
    m = 0
    for i in range(n):
        d = touched[i]
        s = acc[d]
        acc[d] = 0
        seen[d] = False
        m = _consider(hs, hr, hd, m, kk, s, d, rank)
    return _heap_result(hs, hr, hd, m)


# ------------------------------------------------------------------ cursors
@njit(cache=True)
def term_cursors(pp, tids):
    """``(cur, end)`` int64 (m,): the first and one-past-last posting of each query term
    ``tids`` (m,) in the docid-ordered postings ``pp``."""
    m = tids.size
    cur = np.empty(m, np.int64)
    end = np.empty(m, np.int64)
    for i in range(m):
        cur[i] = pp[tids[i]]
        end[i] = pp[tids[i] + 1]
    return cur, end


@njit(cache=True)
def _next_geq(pd, p, e, target):
    """First posting index in [p, e) whose docid is >= target (galloping search); e if none."""
    if p >= e or pd[p] >= target:
        return p
    lo = p
    step = 1
    hi = p + 1
    while hi < e and pd[hi] < target:
        lo = hi
        step *= 2
        hi = lo + step
    if hi > e:
        hi = e
    lo += 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if pd[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    return lo


# ------------------------------------------------------------------ MaxScore (DAAT)
@njit(cache=True)
def maxscore(pp, pd, imp, tids, w, ub, pbound, tol, prior, pw, has_prior, zarr, n_docs, rank, k,
             theta0, stats):
    """Rank-safe MaxScore (Turtle & Flood 1995) document-at-a-time.

    ``ub[i]``: an upper bound (float64, >= 0) of term i's contribution; ``pbound``: an upper
    bound of ``pw * prior[d]`` (0 without a prior); ``tol``: absolute slack for the rounding of
    float bound sums; ``theta0``: a score that at least k documents are known to reach (or
    -inf), the starting threshold. Terms are sorted by ub; the lowest ones whose bound sum
    cannot reach the threshold are non-essential: they are only probed (galloping search) for
    documents found in the essential lists, and only while the running bound can still reach
    the threshold.
    """
    m = tids.size
    zero = zarr[0]
    order = np.argsort(ub)
    prefix = np.empty(m, np.float64)
    acc_ub = 0.0
    for i in range(m):
        acc_ub += ub[order[i]]
        prefix[i] = acc_ub + pbound + tol      # bound of terms 0..i, prior and slack
    pos = np.empty(m, np.int64)
    end = np.empty(m, np.int64)
    cur = np.empty(m, np.int64)                # current docid (n_docs when exhausted)
    ws = np.empty(m, zarr.dtype)
    for i in range(m):
        t = tids[order[i]]
        pos[i] = pp[t]
        end[i] = pp[t + 1]
        cur[i] = pd[pos[i]] if pos[i] < end[i] else n_docs
        ws[i] = w[order[i]]
    hs = np.empty(k, zarr.dtype)
    hr = np.empty(k, np.int64)
    hd = np.empty(k, np.int32)
    n = 0
    theta = theta0
    n_ne = 0
    while n_ne < m and prefix[n_ne] < theta:
        n_ne += 1
    cb = np.zeros(m, zarr.dtype)               # contribution per query-order term (0: absent)
    scored = 0
    evaluated = 0
    while n_ne < m:
        d = n_docs
        for i in range(n_ne, m):
            if cur[i] < d:
                d = cur[i]
        if d >= n_docs:
            break
        partial = 0.0
        for i in range(n_ne, m):
            if cur[i] == d:
                p = pos[i]
                c = ws[i] * imp[p]
                cb[order[i]] = c
                partial += c
                p += 1
                pos[i] = p
                cur[i] = pd[p] if p < end[i] else n_docs
                scored += 1
        ok = True
        for i in range(n_ne - 1, -1, -1):
            if partial + prefix[i] < theta:
                ok = False
                break
            p = pos[i]
            e = end[i]
            if p < e and pd[p] < d:
                p = _next_geq(pd, p, e, np.int64(d))
                pos[i] = p
            if p < e and pd[p] == d:
                c = ws[i] * imp[p]
                cb[order[i]] = c
                partial += c
                pos[i] = p + 1
                scored += 1
        if ok:
            evaluated += 1
            s = zero
            for qi in range(m):
                s += cb[qi]
            if has_prior:
                s += pw * prior[d]
            if n < k or s > hs[0] or (s == hs[0] and rank[d] > hr[0]):
                n = _offer(hs, hr, hd, n, k, s, rank[d], d)
                if n == k and np.float64(hs[0]) > theta:
                    theta = np.float64(hs[0])
                    while n_ne < m and prefix[n_ne] < theta:
                        n_ne += 1
        for qi in range(m):
            cb[qi] = zero
    stats[0] += scored
    stats[1] += evaluated
    return _heap_result(hs, hr, hd, n)


# ------------------------------------------------------------------ block-max WAND (DAAT)
@njit(cache=True)
def bmw(pp, pd, imp, tids, w, ub, pbound, tol, prior, pw, has_prior, zarr, n_docs, rank, k,
        blk_ptr, blk_last, bmax, bmin, block, theta0, stats):
    """Rank-safe block-max WAND (Ding & Suel 2011) document-at-a-time.

    Per term: a global bound ``ub``; per block of ``block`` postings: the last docid
    ``blk_last`` and the largest/smallest impact ``bmax``/``bmin`` (so a block's contribution
    bound is ``max(0, w * bmax)`` for w >= 0, ``max(0, w * bmin)`` otherwise). Blocks of term t
    are ``blk_ptr[t] .. blk_ptr[t+1]-1``; each term keeps the index of the block its shallow
    pointer is in (it only moves forward, as the pivot does).
    """
    m = tids.size
    zero = zarr[0]
    pos = np.empty(m, np.int64)
    end = np.empty(m, np.int64)
    cd = np.empty(m, np.int64)
    bi = np.empty(m, np.int64)                 # current block (shallow pointer)
    be = np.empty(m, np.int64)
    wf = np.empty(m, np.float64)
    for i in range(m):
        t = tids[i]
        pos[i] = pp[t]
        end[i] = pp[t + 1]
        cd[i] = pd[pos[i]] if pos[i] < end[i] else n_docs
        bi[i] = blk_ptr[t]
        be[i] = blk_ptr[t + 1]
        wf[i] = np.float64(w[i])
    ordr = np.arange(m)
    hs = np.empty(k, zarr.dtype)
    hr = np.empty(k, np.int64)
    hd = np.empty(k, np.int32)
    n = 0
    theta = theta0 - tol                       # compare bounds against theta - tol
    cb = np.zeros(m, zarr.dtype)
    scored = 0
    evaluated = 0
    while True:
        # insertion sort of the terms by current docid
        for a in range(1, m):
            x = ordr[a]
            y = cd[x]
            b = a - 1
            while b >= 0 and cd[ordr[b]] > y:
                ordr[b + 1] = ordr[b]
                b -= 1
            ordr[b + 1] = x
        acc_ub = pbound
        piv = -1
        for j in range(m):
            t = ordr[j]
            if cd[t] >= n_docs:
                break
            acc_ub += ub[t]
            if acc_ub >= theta:
                piv = j
                break
        if piv < 0:
            break
        pdoc = cd[ordr[piv]]
        while piv + 1 < m and cd[ordr[piv + 1]] == pdoc:
            piv += 1
        # shallow move to the blocks holding pdoc
        bsum = pbound
        minlast = n_docs
        for j in range(piv + 1):
            t = ordr[j]
            x = bi[t]
            e = be[t]
            if x < e and blk_last[x] < pdoc:
                x += 1
                if x < e and blk_last[x] < pdoc:
                    x = _next_geq(blk_last, x, e, np.int64(pdoc))
                bi[t] = x
            if x < e:
                v = wf[t] * (np.float64(bmax[x]) if wf[t] >= 0 else np.float64(bmin[x]))
                if v > 0.0:
                    bsum += v
                if blk_last[x] < minlast:
                    minlast = blk_last[x]
        if bsum >= theta:
            if cd[ordr[0]] == pdoc:
                for j in range(piv + 1):
                    t = ordr[j]
                    p = pos[t]
                    cb[t] = w[t] * imp[p]
                    scored += 1
                    p += 1
                    pos[t] = p
                    cd[t] = pd[p] if p < end[t] else n_docs
                evaluated += 1
                s = zero
                for i in range(m):
                    s += cb[i]
                    cb[i] = zero
                if has_prior:
                    s += pw * prior[pdoc]
                if n < k or s > hs[0] or (s == hs[0] and rank[pdoc] > hr[0]):
                    n = _offer(hs, hr, hd, n, k, s, rank[pdoc], pdoc)
                    if n == k and np.float64(hs[0]) - tol > theta:
                        theta = np.float64(hs[0]) - tol
            else:
                for j in range(piv):
                    t = ordr[j]
                    if cd[t] < pdoc:
                        p = _next_geq(pd, pos[t], end[t], np.int64(pdoc))
                        pos[t] = p
                        cd[t] = pd[p] if p < end[t] else n_docs
        else:
            nxt = minlast + 1
            if piv + 1 < m and cd[ordr[piv + 1]] < nxt:
                nxt = cd[ordr[piv + 1]]
            for j in range(piv + 1):
                t = ordr[j]
                if cd[t] < nxt:
                    p = _next_geq(pd, pos[t], end[t], np.int64(nxt))
                    pos[t] = p
                    cd[t] = pd[p] if p < end[t] else n_docs
    stats[0] += scored
    stats[1] += evaluated
    return _heap_result(hs, hr, hd, n)


@njit(cache=True, inline="always")
def _max_min(imp, a, e):
    """``(max, min)`` of ``imp[a:e]`` (a < e)."""
    mx = imp[a]
    mn = imp[a]
    for x in range(a + 1, e):
        if imp[x] > mx:
            mx = imp[x]
        if imp[x] < mn:
            mn = imp[x]
    return mx, mn


@njit(cache=True)
def block_max(pp, pd, imp, block):
    """Per-block last docid and max/min impact for every term (blocks of ``block`` postings,
    aligned to each term's first posting). Returns (blk_ptr (V+1,), blk_last, bmax, bmin)."""
    V = pp.size - 1
    blk_ptr = np.zeros(V + 1, np.int64)
    for t in range(V):
        df = pp[t + 1] - pp[t]
        blk_ptr[t + 1] = blk_ptr[t] + (df + block - 1) // block
    nb = blk_ptr[V]
    blk_last = np.empty(nb, np.int32)
    bmax = np.empty(nb, imp.dtype)
    bmin = np.empty(nb, imp.dtype)
    for t in range(V):
        bi = blk_ptr[t]
        j = pp[t]
        e = pp[t + 1]
        while j < e:
            je = min(j + block, e)
            bmax[bi], bmin[bi] = _max_min(imp, j, je)
            blk_last[bi] = pd[je - 1]
            bi += 1
            j = je
    return blk_ptr, blk_last, bmax, bmin


@njit(cache=True)
def term_kth(pp, imp, ks):
    """(len(ks), V) float64: the ks[r]-th largest impact of every term (-inf when df < ks[r])."""
    V = pp.size - 1
    out = np.full((ks.size, V), -np.inf)
    for t in range(V):
        df = pp[t + 1] - pp[t]
        if df < ks[0]:
            continue
        neg = np.empty(df, np.float64)
        for j in range(df):
            neg[j] = -np.float64(imp[pp[t] + j])
        for r in range(ks.size):
            kk = ks[r]
            if df >= kk:
                out[r, t] = -np.partition(neg, kk - 1)[kk - 1]
    return out


@njit(cache=True)
def term_max_min(pp, imp):
    V = pp.size - 1
    mx = np.zeros(V, imp.dtype)
    mn = np.zeros(V, imp.dtype)
    for t in range(V):
        if pp[t + 1] > pp[t]:
            mx[t], mn[t] = _max_min(imp, pp[t], pp[t + 1])
    return mx, mn


# ------------------------------------------------------------------ scratch
@njit(cache=True)
def reset(acc, seen, touched, n):
    for i in range(n):
        d = touched[i]
        acc[d] = 0
        seen[d] = False


# ------------------------------------------------------------------ batches
@njit(cache=True)
def _select_into(docs, scores, n, rank, k, hs, hr, hd, out_d, out_s, o):
    """:func:`_select` of the n candidates written to ``out_d``/``out_s`` from position ``o``
    (returns the count): the same entries in the same order. With more than 4k candidates and
    k <= 64 nothing is allocated: the k-entry heap ``hs``/``hr``/``hd`` (preallocated, ``hr``
    holds 2k entries: the second half keeps the ranks of the entries written) is filled with
    the inline root test, then its entries are insertion-sorted into the output."""
    if n <= 4 * k or k > 64:
        d, s = _select(docs, scores, n, rank, k)
        for j in range(d.size):
            out_d[o + j] = d[j]
            out_s[o + j] = s[j]
        return d.size
    m = _fill_heap(docs, scores, n, rank, k, hs, hr, hd)
    for x in range(m):
        s = hs[x]
        r = hr[x]
        y = x - 1
        while y >= 0 and (out_s[o + y] < s or (out_s[o + y] == s and hr[k + y] < r)):
            out_s[o + y + 1] = out_s[o + y]
            out_d[o + y + 1] = out_d[o + y]
            hr[k + y + 1] = hr[k + y]
            y -= 1
        out_s[o + y + 1] = s
        out_d[o + y + 1] = hd[x]
        hr[k + y + 1] = r
    return m


@njit(cache=True)
def run_batch(alg, pp, pd, imp, q_ptr, q_tids, q_w, q_ub, q_pbound, q_tol, q_pw, prior,
              has_prior, zarr, n_docs, rank, k, blk_ptr, blk_last, bmax, bmin, block, q_theta0,
              acc, seen, touched, stats):
    """Run ``alg`` (0 exhaustive, 1 maxscore, 2 bmw) for every query of a batch: query ``i`` is
    ``q_tids[q_ptr[i]:q_ptr[i+1]]`` with weights/bounds sliced alike. Returns the concatenated
    results (docids int32, scores) and per-query counts (int64). Exhaustive queries with a
    starting threshold write their results in place (:func:`_select_into`), with scratch
    allocated once per batch."""
    nq = q_ptr.size - 1
    out_d = np.empty(nq * k, np.int32)
    out_s = np.empty(nq * k, zarr.dtype)
    cnt = np.zeros(nq, np.int64)
    cs = np.empty(n_docs + 1 if alg == 0 else 0, zarr.dtype)
    kh = k if alg == 0 and k <= 64 else 0
    hs = np.empty(kh, zarr.dtype)
    hr = np.empty(2 * kh, np.int64)
    hd = np.empty(kh, np.int32)
    o = 0
    for i in range(nq):
        a = q_ptr[i]
        b = q_ptr[i + 1]
        if b == a:
            continue
        tids = q_tids[a:b]
        w = q_w[a:b]
        if alg == 0 and q_theta0[i] > 0.0 and not has_prior:
            c = _collect_threshold(pp, pd, imp, tids, w, acc, touched, cs, stats, q_theta0[i])
            c = _select_into(touched, cs, c, rank, k, hs, hr, hd, out_d, out_s, o)
            o += c
            cnt[i] = c
            continue
        if alg == 0:
            d, s = taat(pp, pd, imp, tids, w, prior, q_pw[i], has_prior, acc, seen, touched, rank,
                        k, stats, q_theta0[i], cs)
        elif alg == 1:
            d, s = maxscore(pp, pd, imp, tids, w, q_ub[a:b], q_pbound[i], q_tol[i], prior,
                            q_pw[i], has_prior, zarr, n_docs, rank, k, q_theta0[i], stats)
        else:
            d, s = bmw(pp, pd, imp, tids, w, q_ub[a:b], q_pbound[i], q_tol[i], prior, q_pw[i],
                       has_prior, zarr, n_docs, rank, k, blk_ptr, blk_last, bmax, bmin, block,
                       q_theta0[i], stats)
        for j in range(d.size):
            out_d[o + j] = d[j]
            out_s[o + j] = s[j]
        o += d.size
        cnt[i] = d.size
    return out_d[:o], out_s[:o], cnt


@njit(cache=True)
def distinct_terms(lens, tids):
    """Query i's term ids are ``tids[sum(lens[:i]):sum(lens[:i+1])]`` (int64, -1 = not in
    the vocabulary). Returns ``q_ptr`` int64 (nq+1,), the distinct in-vocabulary ids of every
    query in first-occurrence order int64 (q_ptr[-1],) and their counts float64 (query term
    frequencies)."""
    nq = lens.size
    q_ptr = np.zeros(nq + 1, np.int64)
    out = np.empty(tids.size, np.int64)
    cnt = np.empty(tids.size, np.float64)
    o = 0
    a = 0
    for i in range(nq):
        start = o
        if lens[i] > 32:             # long query: group equal ids after a stable sort
            q = tids[a:a + lens[i]]
            srt = np.argsort(q, kind="mergesort")
            first = np.empty(q.size, np.int64)      # per position: its id's first position
            j = 0
            while j < q.size:
                e = j
                while e < q.size and q[srt[e]] == q[srt[j]]:
                    first[srt[e]] = srt[j]
                    e += 1
                j = e
            slot = np.full(q.size, -1, np.int64)
            for j in range(q.size):
                if q[j] < 0:
                    continue
                f = first[j]
                if slot[f] < 0:
                    slot[f] = o
                    out[o] = q[j]
                    cnt[o] = 1.0
                    o += 1
                else:
                    cnt[slot[f]] += 1.0
            a += lens[i]
            q_ptr[i + 1] = o
            continue
        for j in range(a, a + lens[i]):
            t = tids[j]
            if t < 0:
                continue
            x = start
            while x < o and out[x] != t:       # queries are short: a linear scan
                x += 1
            if x < o:
                cnt[x] += 1.0
            else:
                out[o] = t
                cnt[o] = 1.0
                o += 1
        a += lens[i]
        q_ptr[i + 1] = o
    return q_ptr, out[:o].copy(), cnt[:o].copy()


@njit(cache=True)
def exact_scores(pp, pd, imp, tids, w, prior, pw, has_prior, zarr, docs):
    """Scores of ``docs`` summed in query order (as :func:`taat` sums them), by binary search
    of each document in each query term's docid-sorted postings."""
    out = np.empty(docs.size, zarr.dtype)
    for x in range(docs.size):
        d = docs[x]
        s = zarr[0]
        for qi in range(tids.size):
            t = tids[qi]
            j = _next_geq(pd, pp[t], pp[t + 1], np.int64(d))
            if j < pp[t + 1] and pd[j] == d:
                s += w[qi] * imp[j]
        if has_prior:
            s += pw * prior[d]
        out[x] = s
    return out


@njit(cache=True)
def band_batch(docids, counts, band_score, rank):
    """Band every query's exact ranking at once: query i's documents (``counts[i]`` of them,
    concatenated in ``docids``, exact order) get ``band_score[:counts[i]]`` and are re-sorted
    by (band ascending, docno rank descending) -- trec_eval order of the banded scores -- with
    one radix sort per query. Returns (docids int32, scores float64)."""
    out_d = np.empty(docids.size, np.int32)
    out_s = np.empty(docids.size, np.float64)
    big = np.int64(rank.size)
    o = 0
    for i in range(counts.size):
        n = counts[i]
        key = np.empty(n, np.int64)
        g = 0
        for j in range(n):
            if j > 0 and band_score[j] != band_score[j - 1]:
                g += 1
            key[j] = g * big + (big - 1 - np.int64(rank[docids[o + j]]))
        srt = _radix_order(key, (g + 1) * big - 1)
        for j in range(n):
            out_d[o + j] = docids[o + srt[j]]
            out_s[o + j] = band_score[j]
        o += n
    return out_d, out_s


@njit(cache=True)
def _impact_accumulate_dense(post_ptr, post_docid, imp, tids, weights, acc, seen, touched):
    """Dense variant for queries whose postings cover much of the collection and whose weights
    are all positive: no per-posting bookkeeping; touched documents are those with acc > 0."""
    for qi in range(tids.size):
        t = tids[qi]
        w = weights[qi]
        for j in range(post_ptr[t], post_ptr[t + 1]):
            acc[post_docid[j]] += w * imp[j]
    n = 0
    for d in range(acc.size):
        if acc[d] > 0.0:
            seen[d] = True
            touched[n] = d
            n += 1
    return n


@njit(cache=True)
def _bm25_impact_topk(post_ptr, post_docid, imp, tids, weights, acc, seen, touched, rank, k):
    """Top ``k`` of the weighted impacts of the query terms ``tids``: the dense accumulation
    when every weight is positive and the postings cover over a quarter of the collection,
    else :func:`accumulate`; then :func:`_topk_of` (trec_eval order)."""
    total = 0
    positive = True
    for qi in range(tids.size):
        total += post_ptr[tids[qi] + 1] - post_ptr[tids[qi]]
        if weights[qi] <= 0.0:
            positive = False
    if positive and total * 4 > acc.size:
        n = _impact_accumulate_dense(post_ptr, post_docid, imp, tids, weights, acc, seen,
                                     touched)
    else:
        n = accumulate(post_ptr, post_docid, imp, tids, weights, acc, seen, touched)
    return _topk_of(acc, seen, touched, n, rank, k)
