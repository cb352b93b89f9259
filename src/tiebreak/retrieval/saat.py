"""Score-at-a-time traversal over impact-ordered postings, rank-safe and band-safe.

Every query term's postings are read in decreasing contribution order (``w_i * imp``; a term's
postings with one quantised impact form a *segment*), always from the term whose next
contribution is largest, into per-document accumulators -- Anh & Moffat's impact-ordered
evaluation. After a read, a touched document ``d`` scores at least ``lo_d`` = its accumulator
and at most ``up_d = lo_d + sum`` of the next contributions of the terms it has not been seen
in; a document not touched yet scores at most ``R`` = the sum of every term's next
contribution (plus the largest prior). The traversal stops as soon as the result is certain
(contributions must be non-negative; otherwise, and beyond 63 query terms, the query is run by
MaxScore, which returns the same result):

* ``R`` below the k-th largest ``lo`` ("AND mode", Anh & Moffat): no untouched document can
  enter, so postings of untouched documents are skipped from then on;
* settling: once in AND mode, when looking up the remaining candidates (documents whose upper
  bound reaches the k-th lower bound; binary search in the docid-ordered postings, counted as
  :data:`LOOKUP_COST` postings per term) costs less than reading the rest of the lists, the
  documents whose score intervals straddle a boundary are made exact by lookups, and reading
  stops;
* certificate: with the touched documents ordered by ``(lo, docno rank)`` descending, every
  *boundary* ``c`` must separate -- the c-th document's ``lo`` exceeds the ``up`` of every
  later document (or equals it, with integer scores, and every later document reaching it loses
  on docno). **Rank-safe** (:func:`topk`): every c in 1..k is a boundary, then the k documents
  are rescored exactly in query order (:func:`tiebreak.retrieval.kernels.exact_scores`), so the
  result is the exhaustive one bit for bit. **Band-safe** (:func:`band_safe`): only the ends of
  the geometric bands ``b_{g+1} = ceil(rho b_g)`` (Yang, Moffat & Turpin) and k are
  boundaries -- the order *between* bands is all that band-safe top-k needs -- and no score is
  recomputed (band g scores ``1/g``).

The same kernel (:func:`saat`, one loop with three stopping rules) also serves the band-safe
``interval`` method (score-interval certificates at doubling check points, any signs of
contributions) and anytime ranking (stop after a budget of postings) of
:mod:`tiebreak.retrieval.bandsafe`.

Postings are kept in impact order per term in a layout built lazily (one term at a time, on
first use) from the index's docid-ordered postings and the impacts, cached on the index; see
:func:`impact_layout`. Whether the band-safe variant pays is measured in
``benchmarks/bench_pruning.py`` and reported in ``docs/precise-enough.md``.

References: V. N. Anh and A. Moffat, "Pruned query evaluation using pre-computed impacts",
SIGIR 2006; V. N. Anh, O. de Kretser and A. Moffat, "Vector-space ranking with effective early
termination", SIGIR 2001; Z. Yang, A. Moffat and A. Turpin, "How precise does document scoring
need to be?", AIRS 2016.

Size: one module because the impact-ordered postings, the rank-safe stop rule and the band-safe
variant share one numba kernel and its accumulator layout.
"""

from __future__ import annotations

import numpy as np

from .._native.jit import njit
from . import kernels as K

__all__ = ["impact_layout", "topk", "band_safe", "saat", "run", "ANYTIME", "INTERVAL", "SETTLE",
           "CHECK_GROWTH", "LOOKUP_COST"]

#: a lookup (binary search of one document in one term's docid-ordered postings) is counted as
#: this many sequentially read postings when choosing between reading on and looking up
LOOKUP_COST = 16
#: certificates are attempted when the postings read have grown by this factor since the last
#: attempt (and first after max(k, 256) postings): their cost stays a fraction of the reading
CHECK_GROWTH = 1.25


# ------------------------------------------------------------------ layout
@njit(cache=True)
def _fill_term(pp, pd, imp, t, io_doc, io_imp):
    """Term ``t``'s postings by |impact| descending, docid ascending among equal impacts."""
    a = pp[t]
    b = pp[t + 1]
    key = np.empty(b - a, np.float64)
    for j in range(a, b):
        key[j - a] = -abs(np.float64(imp[j]))
    o = np.argsort(key, kind="mergesort")
    for j in range(b - a):
        io_doc[a + j] = pd[a + o[j]]
        io_imp[a + j] = imp[a + o[j]]


def impact_layout(index, key: tuple, imp: np.ndarray, tids) -> tuple[np.ndarray, np.ndarray]:
    """The impact-ordered copy of the postings of terms ``tids`` for impacts ``imp`` (identified
    by ``key``, see :func:`tiebreak.retrieval.traversal.impacts`).

    Returns ``(io_doc, io_imp)``: int32 (P,) docids and impacts (dtype of ``imp``) (P,); term
    ``t``'s postings occupy ``[pp[t], pp[t+1])`` as in the docid-ordered arrays, by |impact|
    descending then docid ascending. Terms are filled on first use; the arrays are cached on
    the index (memory: 4 + itemsize bytes per posting, touched only for used terms)."""
    from .weights import _flat

    pp, pd, _ = _flat(index)
    c = index._cache
    ck = ("saat-layout",) + tuple(key)
    if ck not in c:
        c[ck] = (np.empty(int(pp[-1]), np.int32), np.empty(int(pp[-1]), imp.dtype),
                 np.zeros(max(int(index.vocab_size), 1), np.bool_))
    io_doc, io_imp, done = c[ck]
    for t in np.asarray(tids).tolist():
        if not done[t]:
            _fill_term(pp, pd, imp, int(t), io_doc, io_imp)
            done[t] = True
    return io_doc, io_imp


# ------------------------------------------------------------------ kernel
@njit(cache=True)
def _kth_lo(acc, touched, n, k):
    """The k-th largest accumulator of the n touched documents (float64)."""
    lo = np.empty(n, np.float64)
    for i in range(n):
        lo[i] = -np.float64(acc[touched[i]])
    return -np.partition(lo, k - 1)[k - 1]


@njit(cache=True)
def _candidates(acc, mask, touched, pos, k, rem, tol, integer):
    """The documents at positions ``pos`` of ``touched`` (a superset of every document that can
    still reach the k-th largest lower bound ``L`` among them) whose upper bound reaches ``L``:
    ``(cand, lo, up, exact, L)``, bounds widened by ``tol`` unless exact (integer sums over
    every query term)."""
    m = rem.size
    full = (np.int64(1) << m) - 1
    n = pos.size
    lo = np.empty(n, np.float64)
    for i in range(n):
        lo[i] = np.float64(acc[touched[pos[i]]])
    L = -np.partition(-lo, k - 1)[k - 1]
    up = np.empty(n, np.float64)
    nc = 0
    for i in range(n):
        u = lo[i]
        mk = mask[touched[pos[i]]]
        for q in range(m):
            if not (mk >> q) & 1:
                u += rem[q]
        up[i] = u
        if u + tol >= L - tol:
            nc += 1
    cand = np.empty(nc, np.int64)
    clo = np.empty(nc, np.float64)
    cup = np.empty(nc, np.float64)
    ex = np.zeros(nc, np.bool_)
    nc = 0
    for i in range(n):
        if up[i] + tol >= L - tol:
            cand[nc] = pos[i]
            if integer and mask[touched[pos[i]]] == full:
                ex[nc] = True
                clo[nc] = lo[i]
                cup[nc] = lo[i]
            else:
                clo[nc] = lo[i] - tol
                cup[nc] = up[i] + tol
            nc += 1
    return cand, clo, cup, ex, L


@njit(cache=True)
def _settle(pp, pd, imp, tids, w, prior, pw, has_prior, zarr, touched, cand, lo, up, exact,
            bounds, rank, k, resolve, stats):
    """Certify the boundaries ``bounds`` among the candidates; with ``resolve``, make the
    documents whose score intervals straddle a failing boundary exact (query-order sums by
    binary search in the docid-ordered postings, ``stats[2]`` += lookups) until every boundary
    holds. Returns the candidate indices of the top k, best first, or an empty array.

    Boundary c holds when the c-th candidate by (lo, rank) descending, ``a``, beats every later
    one ``b``: ``lo_a > up_b``, or ``lo_a == up_b`` and rank_a > rank_b (true scores
    ``s_a >= lo_a >= up_b >= s_b`` are then equal only with the docno deciding)."""
    nc = cand.size
    r = np.empty(nc, np.int64)
    for j in range(nc):
        r[j] = np.int64(rank[touched[cand[j]]])
    sufmax = np.empty(nc + 1, np.float64)
    sufrk = np.empty(nc + 1, np.int64)
    fail = np.zeros(nc + 1, np.bool_)
    one = np.empty(1, np.int32)
    rounds = 0
    while True:
        key = np.empty(nc, np.float64)
        for j in range(nc):
            key[j] = -np.float64(r[j])
        o1 = np.argsort(key, kind="mergesort")
        for j in range(nc):
            key[j] = -lo[o1[j]]
        o2 = np.argsort(key, kind="mergesort")
        srt = o1[o2]
        sufmax[nc] = -np.inf
        sufrk[nc] = -1
        for j in range(nc - 1, -1, -1):
            u = up[srt[j]]
            if u > sufmax[j + 1]:
                sufmax[j] = u
                sufrk[j] = r[srt[j]]
            elif u == sufmax[j + 1]:
                sufmax[j] = u
                sufrk[j] = max(r[srt[j]], sufrk[j + 1])
            else:
                sufmax[j] = sufmax[j + 1]
                sufrk[j] = sufrk[j + 1]
        nfail = 0
        fail[:] = False
        for b in range(bounds.size):
            c = bounds[b]
            if c >= nc:
                continue
            a = srt[c - 1]
            if lo[a] > sufmax[c] or (lo[a] == sufmax[c] and sufrk[c] < r[a]):
                continue
            fail[c] = True
            nfail += 1
        if nfail == 0:
            return srt[:min(k, nc)].copy()
        if not resolve:
            return np.zeros(0, np.int64)
        # documents to make exact: after a failing boundary c, those reaching lo of its c-th;
        # before it, those whose lo does not exceed the best upper bound after it
        mark = np.zeros(nc, np.bool_)
        last = -1
        for j in range(nc):
            if fail[j]:
                last = j
            if last > 0 and up[srt[j]] >= lo[srt[last - 1]]:
                mark[j] = True
        nxt = -1
        for j in range(nc - 1, -1, -1):
            if fail[j + 1]:
                nxt = j + 1
            if nxt > 0 and lo[srt[j]] <= sufmax[nxt]:
                mark[j] = True
        rounds += 1
        if rounds > 2:                   # the straddlers keep moving: settle them all at once
            mark[:] = True
        todo = 0
        for j in range(nc):
            x = srt[j]
            if mark[j] and not exact[x]:
                one[0] = touched[cand[x]]
                s = np.float64(K.exact_scores(pp, pd, imp, tids, w, prior, pw, has_prior, zarr,
                                              one)[0])
                lo[x] = s
                up[x] = s
                exact[x] = True
                todo += 1
        stats[2] += todo
        if todo == 0:                    # cannot happen: exact scores order themselves
            for x in range(nc):
                if not exact[x]:
                    one[0] = touched[cand[x]]
                    s = np.float64(K.exact_scores(pp, pd, imp, tids, w, prior, pw, has_prior,
                                                  zarr, one)[0])
                    lo[x] = s
                    up[x] = s
                    exact[x] = True
                    todo += 1
            stats[2] += todo
            if todo == 0:
                return srt[:min(k, nc)].copy()


#: modes of :func:`saat`: read at most ``budget`` postings (anytime ranking); certify the
#: boundaries by score intervals at doubling check points (band-safe ``interval`` method);
#: AND mode, then settle the straddling candidates by lookups (the ``saat`` algorithm)
ANYTIME, INTERVAL, SETTLE = 0, 1, 2


@njit(cache=True)
def _certify(acc, mask, touched, n, k, sizes, rem_hi, rem_lo, tol, pbound, cur, end):
    """Interval certificate of the boundaries ``sizes`` over the n touched documents: the
    positions in ``touched`` of the k documents with the largest lower bounds, best first, if
    for every c in ``sizes`` the c-th lower bound exceeds (by more than ``tol``) the upper bound
    of every later document, touched or not; else an empty array. Bounds: a touched document's
    unread terms can still add between ``rem_lo`` and ``rem_hi`` of each (the term's next
    contribution, clipped at 0); an untouched one at most their sum plus ``pbound``."""
    m = rem_hi.size
    lo = np.empty(n, np.float64)
    up = np.empty(n, np.float64)
    for i in range(n):
        d = touched[i]
        a = np.float64(acc[d])
        low = a
        u = a
        mk = mask[d]
        for q in range(m):
            if not (mk >> q) & 1:
                low += rem_lo[q]
                u += rem_hi[q]
        lo[i] = low
        up[i] = u
    u0 = -np.inf
    any_left = False
    tot = pbound
    for q in range(m):
        if cur[q] < end[q]:
            any_left = True
        tot += rem_hi[q]
    if any_left:
        u0 = tot
    neg = np.empty(n, np.float64)
    for i in range(n):
        neg[i] = -lo[i]
    thr = -np.partition(neg, k - 1)[k - 1]     # k-th largest lower bound
    cnt = 0
    for i in range(n):
        if lo[i] >= thr:
            cnt += 1
    cand = np.empty(cnt, np.int64)
    j = 0
    rest_up = u0
    for i in range(n):
        if lo[i] >= thr:
            cand[j] = i
            j += 1
    ck = np.empty(cnt, np.float64)
    for i in range(cnt):
        ck[i] = -lo[cand[i]]
    o = np.argsort(ck, kind="mergesort")
    top = np.empty(cnt, np.int64)
    for i in range(cnt):
        top[i] = cand[o[i]]
    # documents beyond the first k of `top`, and all non-candidates, are "rest"
    intop = np.zeros(n, np.bool_)
    for i in range(k):
        intop[top[i]] = True
    for i in range(n):
        if not intop[i] and up[i] > rest_up:
            rest_up = up[i]
    # suffix maximum of upper bounds over top[c:k]
    suf = np.empty(k + 1, np.float64)
    suf[k] = rest_up
    for i in range(k - 1, -1, -1):
        v = up[top[i]]
        suf[i] = v if v > suf[i + 1] else suf[i + 1]
    for s in sizes:
        if not lo[top[s - 1]] > suf[s] + tol:
            return np.zeros(0, np.int64)
    return top[:k].copy()


@njit(cache=True)
def saat(pp, pd, imp, io_doc, io_imp, tids, w, prior, pw, has_prior, zarr, pmax, acc, seen, mask,
         touched, rank, k, mode, budget, bounds, tol, integer, lookup_cost, first_check, stats):
    """Impact-ordered traversal of one query (module docstring): the one score-at-a-time loop
    of the traversal layer. Postings are read from the term with the largest next
    ``|contribution|`` (``io_doc``/``io_imp``, :func:`impact_layout`) into ``acc``; a term's
    run stops where another term's next contribution is larger, or at a check point.

    ``mode`` (``pmax``: an upper bound of ``pw * prior``, 0 without a prior):

    * :data:`ANYTIME`: stop after ``budget`` postings; returns status 0.
    * :data:`INTERVAL`: after ``first_check`` postings, then at every doubling, certify the
      boundary counts ``bounds`` by score intervals (:func:`_certify`, slack ``tol``; any
      signs of contributions); status 1 with ``order`` = positions in ``touched`` of the top
      k, best first.
    * :data:`SETTLE` (non-negative contributions): reading stops at the first check where the
      result is certain, or where no untouched document can enter and making the straddling
      candidates exact by lookups (``lookup_cost`` postings per lookup per term) is cheaper
      than reading on; status 2, ``order`` as above.

    Returns ``(status, n, order)``; status 0 = budget spent or all postings read (``acc``
    holds the sums read, complete sums when exhausted). ``n`` documents are in ``touched``;
    the caller resets ``acc``/``seen``. ``stats`` int64 (3,): += postings read, documents
    touched, lookups."""
    m = tids.size
    cur, end = K.term_cursors(pp, tids)
    rem = np.zeros(m, np.float64)
    rem_lo = np.zeros(m, np.float64)
    n = 0
    processed = 0
    and_mode = False
    Lk = -np.inf
    next_full = max(k, 256)
    next_check = np.int64(first_check) if mode == INTERVAL else np.int64(0)
    cand = np.zeros(0, np.int64)
    empty = np.zeros(0, np.int64)
    while True:
        best = -1
        bv = -1.0
        second = -1.0
        for i in range(m):
            if cur[i] < end[i]:
                v = abs(np.float64(w[i] * io_imp[cur[i]]))
                if v > bv:
                    second = bv
                    bv = v
                    best = i
                elif v > second:
                    second = v
        if best < 0:
            break
        bit = np.int64(1) << best
        wb = w[best]
        j = cur[best]
        if mode == ANYTIME:
            stop = budget
        elif mode == INTERVAL or and_mode:
            stop = next_check
        else:
            stop = next_full
        e = min(end[best], j + max(stop - processed, 1))   # a run stops at a check
        if and_mode:
            while j < e:
                c = wb * io_imp[j]
                if abs(np.float64(c)) < second:
                    break
                d = io_doc[j]
                if seen[d]:
                    acc[d] += c
                    mask[d] |= bit
                j += 1
        else:
            while j < e:
                c = wb * io_imp[j]
                if abs(np.float64(c)) < second:
                    break
                d = io_doc[j]
                if not seen[d]:
                    seen[d] = True
                    touched[n] = d
                    n += 1
                    mask[d] = 0
                    if has_prior:
                        acc[d] += pw * prior[d]
                acc[d] += c
                mask[d] |= bit
                j += 1
        processed += j - cur[best]
        cur[best] = j
        if mode == ANYTIME:
            if processed >= budget:
                break
            continue
        if mode == INTERVAL:
            if processed < next_check:
                continue
            next_check *= 2
            if n > k:
                for i in range(m):
                    c = np.float64(w[i] * io_imp[cur[i]]) if cur[i] < end[i] else 0.0
                    rem[i] = c if c > 0 else 0.0
                    rem_lo[i] = c if c < 0 else 0.0
                order = _certify(acc, mask, touched, n, k, bounds, rem, rem_lo, tol, pmax, cur,
                                 end)
                if order.size > 0:
                    stats[0] += processed
                    stats[1] += n
                    return 1, n, order
            continue
        if n < k:
            continue
        R = pmax
        left = 0
        for i in range(m):
            if cur[i] < end[i]:
                rem[i] = np.float64(w[i] * io_imp[cur[i]])
                left += end[i] - cur[i]
            else:
                rem[i] = 0.0
            R += rem[i]
        if left == 0:
            break
        if not and_mode:
            # no untouched document can enter once R < L_k: tested against the last computed
            # L_k (a lower bound of the current one) after every run, recomputed (O(n)) when the
            # postings read have doubled or when the test passes
            if R + 2 * tol < Lk or processed >= next_full:
                next_full = 2 * processed
                Lk = _kth_lo(acc, touched, n, k)
            if not R + 2 * tol < Lk:
                continue
            and_mode = True
            cand = np.arange(n)
            next_check = processed
        if processed < next_check:
            continue
        next_check = int(processed * CHECK_GROWTH) + 1
        # candidates only shrink from here: bounds are recomputed over the last candidates
        cand, lo, up, ex, L = _candidates(acc, mask, touched, cand, k, rem, tol, integer)
        resolve = cand.size * m * lookup_cost <= left
        if not resolve:
            # quick test of boundary k: a candidate below L that could rise above it fails
            straddle = False
            for x in range(cand.size):
                if lo[x] < L and up[x] > L:
                    straddle = True
                    break
            if straddle:
                continue
        top = _settle(pp, pd, imp, tids, w, prior, pw, has_prior, zarr, touched, cand, lo, up,
                      ex, bounds, rank, k, resolve, stats)
        if top.size > 0:
            stats[0] += processed
            stats[1] += n
            return 2, n, cand[top]
    stats[0] += processed
    stats[1] += n
    return 0, n, empty


# ------------------------------------------------------------------ entry points
def _supported(index, p) -> bool:
    """Non-negative contributions and at most 63 terms (the per-document term mask)."""
    from .topk import bound_arrays

    if p.tids.size > 63 or (np.asarray(p.w) < 0).any():
        return False
    tmin = bound_arrays(index, p.key, p.imp)[1]
    return bool((tmin[p.tids] >= 0).all())


def _mask(index) -> np.ndarray:
    """The per-document term mask scratch (int64 (N,), bit i = query term i read), cached."""
    c = index._cache
    if "tmask" not in c:
        c["tmask"] = np.zeros(index.num_docs, np.int64)
    return c["tmask"]


def run(index, p, k: int, mode: int, bounds: np.ndarray, stats: np.ndarray, budget: int = 0,
        first_check: int = 0):
    """Run :func:`saat` on plan ``p`` in ``mode`` (:data:`ANYTIME`, :data:`INTERVAL`,
    :data:`SETTLE`). Returns ``(status, n, order, acc, seen, touched, tol)``: the kernel's
    result and the scratch it left for the caller to read and reset."""
    from .topk import _bounds, _flat, _rank, _scratch

    io_doc, io_imp = impact_layout(index, p.key, p.imp, p.tids)
    ub, pbound, tol, *_ = _bounds(index, p)
    acc, seen, touched = _scratch(index, p.zarr.dtype)
    mask = _mask(index)
    rank = _rank(index)
    st = np.zeros(3, np.int64)
    pp, pd, _ = _flat(index)
    status, n, order = saat(pp, pd, p.imp, io_doc, io_imp, p.tids, p.w, p.prior, p.pw,
                            p.has_prior, p.zarr, pbound, acc, seen, mask, touched, rank, k,
                            mode, np.int64(budget), bounds, tol, p.integer, LOOKUP_COST,
                            np.int64(first_check), st)
    stats[:min(stats.size, 3)] += st[:min(stats.size, 3)]
    return status, n, order, acc, seen, touched, tol


def finish_exhausted(index, p, k, n, acc, seen, touched, tol):
    """Exact top k after every posting was read (sums in impact order)."""
    from .topk import _flat, _rank

    rank = _rank(index)
    if p.integer:                      # integer sums are exact in any order
        return K._topk_of(acc, seen, touched, n, rank, k)
    # float sums in impact order may differ from query order in the last bits: rescore every
    # document within 2 tol of the k-th sum in query order and rank those
    sums = acc[touched[:n]].copy()
    K.reset(acc, seen, touched, n)
    thr = np.partition(sums, n - k)[n - k] if n > k else -np.inf
    cand = touched[:n][sums >= thr - 2 * tol].copy()
    pp, pd, _ = _flat(index)
    ex = K.exact_scores(pp, pd, p.imp, p.tids, p.w, p.prior, p.pw, p.has_prior, p.zarr, cand)
    d, s = K.sort_result(cand, ex, rank)
    return d[:k].copy(), s[:k].copy()


def topk(index, p, k: int, stats: np.ndarray | None = None):
    """Rank-safe top ``k`` of plan ``p`` (:class:`tiebreak.retrieval.topk.Plan`) by
    impact-ordered traversal: the same documents, scores (bit for bit) and order as exhaustive
    scoring. Returns docids int32 (<= k,) and scores (dtype of the plan's scores)."""
    from .topk import _flat, _rank, run_plan

    if stats is None:
        stats = np.zeros(2, np.int64)
    k = min(int(k), int(index.num_docs))
    if not _supported(index, p):
        return run_plan(index, p, k, "maxscore", stats)
    bounds = np.arange(1, k + 1, dtype=np.int64)
    status, n, order, acc, seen, touched, tol = run(index, p, k, SETTLE, bounds, stats)
    if status == 2:
        d = touched[order].copy()
        K.reset(acc, seen, touched, n)
        pp, pd, _ = _flat(index)
        s = K.exact_scores(pp, pd, p.imp, p.tids, p.w, p.prior, p.pw, p.has_prior, p.zarr, d)
        return K.sort_result(d, s, _rank(index))
    return finish_exhausted(index, p, k, n, acc, seen, touched, tol)


def band_safe(index, p, k: int, rho, stats: np.ndarray | None = None) -> np.ndarray:
    """Band-safe top ``k`` of plan ``p`` by impact-ordered traversal that stops once the band
    ends (and k) are certain. Returns the docids (int32 (<= k,)) with every document at a
    position inside the band of its exact rank (the order inside a band is not exact):
    :func:`tiebreak.retrieval.bandsafe.banded` gives them their band scores ``1/g``.

    Raises
    ------
    ValueError
        ``rho`` not a number >= 1.
    """
    from ..ranking.bands import band_starts
    from .topk import run_plan

    if stats is None:
        stats = np.zeros(2, np.int64)
    starts = band_starts(rho, int(k))          # validates rho
    k = min(int(k), int(index.num_docs))
    if not _supported(index, p):
        return run_plan(index, p, k, "maxscore", stats)[0]
    bounds = np.unique(np.append(starts[1:] - 1, k)).astype(np.int64)
    bounds = bounds[(bounds >= 1) & (bounds <= k)]
    status, n, order, acc, seen, touched, tol = run(index, p, k, SETTLE, bounds, stats)
    if status == 2:
        d = touched[order].copy()
        K.reset(acc, seen, touched, n)
        return d
    return finish_exhausted(index, p, k, n, acc, seen, touched, tol)[0]
