"""Compiled loops of the ranking layer (numba), used once the compiled reader has loaded numba.

Every function here computes exactly what the numpy code in :mod:`tiebreak.ranking` computes
(same additions in the same order, so the same bits); the numpy code stays the definition and
serves small inputs, for which loading numba (about 0.8 s) would cost more than it saves. Tests
hold each kernel equal to its numpy counterpart. When the C extension :mod:`tiebreak._native._ext`
is
built, :func:`tiebreak.ranking.judged._compiled` gives its twins (:mod:`tiebreak.ranking._cloops`)
for every input instead, and this module is the fallback.
"""

from __future__ import annotations

import numpy as np

from .._native.jit import numba as nb


@nb.njit(cache=True, nogil=True)
def seg_cumsum(x, topic):  # pragma: no cover - compiled
    """Inclusive cumulative sum of ``x`` (float64 (n,)) restarted where ``topic`` (int64 (n,),
    non-decreasing) changes, added left to right from 0 as a sequential loop adds it."""
    n = x.shape[0]
    out = np.empty(n)
    acc = 0.0
    for i in range(n):
        if i > 0 and topic[i] != topic[i - 1]:
            acc = 0.0
        acc += x[i]
        out[i] = acc
    return out


@nb.njit(cache=True, nogil=True)
def hygiene(t, s, rk, nt):  # pragma: no cover - compiled
    """:func:`tiebreak.ranking.run_hygiene`'s three counts (int64 (nt,) each): each topic's
    lines are put in rank-column order by a stable sort (file order for equal ranks) only when
    they are not in it already. (False, ...) when a rank is NaN or a topic's lines are not
    contiguous (the numpy code then handles the run)."""
    n = t.shape[0]
    contra = np.zeros(nt, np.int64)
    ties = np.zeros(nt, np.int64)
    inc = np.zeros(nt, np.int64)
    seen = np.zeros(nt, np.bool_)
    for i in range(n):
        if np.isnan(rk[i]):
            return False, contra, ties, inc
    i = 0
    while i < n:
        tt = t[i]
        if seen[tt]:
            return False, contra, ties, inc
        seen[tt] = True
        j = i + 1
        in_order = True
        while j < n and t[j] == tt:
            if s[j] > s[j - 1]:
                inc[tt] += 1
            if rk[j] < rk[j - 1]:
                in_order = False
            j += 1
        if in_order:
            contra[tt] = inc[tt]
            for k in range(i + 1, j):
                if rk[k] == rk[k - 1]:
                    ties[tt] += 1
        else:
            o = np.argsort(rk[i:j], kind="mergesort") + i
            for k in range(1, j - i):
                if s[o[k]] > s[o[k - 1]]:
                    contra[tt] += 1
                if rk[o[k]] == rk[o[k - 1]]:
                    ties[tt] += 1
        i = j
    return True, contra, ties, inc


@nb.njit(cache=True, nogil=True)
def select(order, qtopic, relkey, tmap, n_eval, judged_only, max_docs, promote,
           promoted):  # pragma: no cover - compiled
    """The positions of :func:`tiebreak.ranking._select` before its -c bogus documents:
    ``order`` (int64 (n,), lines) mapped to evaluated topics 0..n_eval-1 by ``tmap`` (-1: not
    evaluated), unjudged lines dropped when ``judged_only``, grouped by evaluated topic with
    the order kept inside each (a stable counting sort), 1-based ranks, ranks past
    ``max_docs`` (when >= 0) cut, unjudged codes set to ``promoted`` when ``promote``.
    Returns (lines, topic, rank, code), int64 (m,) each."""
    n = order.shape[0]
    cnt = np.zeros(n_eval, np.int64)
    for i in range(n):
        line = order[i]
        tt = tmap[qtopic[line]]
        if tt < 0 or (judged_only and relkey[line] < 0):
            continue
        cnt[tt] += 1
    off = np.empty(n_eval, np.int64)
    m = 0
    for k in range(n_eval):
        off[k] = m
        m += cnt[k] if max_docs < 0 else min(cnt[k], max_docs)
    o = np.empty(m, np.int64)
    t = np.empty(m, np.int64)
    rank = np.empty(m, np.int64)
    code = np.empty(m, np.int64)
    seen = np.zeros(n_eval, np.int64)
    for i in range(n):
        line = order[i]
        tt = tmap[qtopic[line]]
        if tt < 0:
            continue
        c = relkey[line]
        if judged_only and c < 0:
            continue
        r = seen[tt] + 1
        seen[tt] = r
        if max_docs >= 0 and r > max_docs:
            continue
        if promote and c < 0:
            c = promoted
        p = off[tt] + r - 1
        o[p] = line
        t[p] = tt
        rank[p] = r
        code[p] = c
    return o, t, rank, code


@nb.njit(cache=True, nogil=True, inline="always")
def _cmp_rows(a, i, b, j):  # pragma: no cover - compiled
    """Compare row ``i`` of ``a`` with row ``j`` of ``b`` (code points, zero-padded to the
    wider): -1, 0 or 1."""
    wa, wb = a.shape[1], b.shape[1]
    for x in range(max(wa, wb)):
        ca = a[i, x] if x < wa else 0
        cb = b[j, x] if x < wb else 0
        if ca != cb:
            return -1 if ca < cb else 1
    return 0


@nb.njit(cache=True, nogil=True)
def match_sorted(a, b):  # pragma: no cover - compiled
    """For each row of ``a`` (uint32 (n, wa): text sorted ascending, one code point per column,
    zero-padded) the index of the equal row of ``b`` (uint32 (m, wb), sorted ascending,
    distinct), or -1: int64 (n,). A merge of the two sorted lists, so n + m comparisons."""
    n, m = a.shape[0], b.shape[0]
    out = np.full(n, -1, np.int64)
    j = 0
    for i in range(n):
        while j < m:
            c = _cmp_rows(a, i, b, j)
            if c == 0:
                out[i] = j
                break
            if c < 0:
                break
            j += 1
        if j == m:
            break
    return out


@nb.njit(cache=True, nogil=True)
def score_order(t0, s0, n_topics):  # pragma: no cover - compiled
    """:func:`tiebreak.ranking.orderings`' sort and tied groups: lines (topic ``t0`` int64
    (n,), score ``s0`` float64 (n,)) sorted by topic, then score descending, file order inside
    equal scores (a counting sort by topic, then a stable merge sort of a topic's lines only
    when they are not in score order already). Returns (order, group, tied, starts, n_ret,
    rank): group ids (n,) increasing along the order, positions in groups of 2 or more,
    each topic's first position (n_topics,), its number of lines, 1-based ranks (n,)."""
    n = t0.shape[0]
    n_ret = np.zeros(n_topics, np.int64)
    for i in range(n):
        n_ret[t0[i]] += 1
    starts = np.empty(n_topics, np.int64)
    acc = 0
    for k in range(n_topics):
        starts[k] = acc
        acc += n_ret[k]
    so = np.empty(n, np.int64)
    fill = starts.copy()
    for i in range(n):
        so[fill[t0[i]]] = i
        fill[t0[i]] += 1
    for k in range(n_topics):
        a, b = starts[k], starts[k] + n_ret[k]
        for p in range(a + 1, b):
            if s0[so[p]] > s0[so[p - 1]]:
                neg = np.empty(b - a)
                for q in range(a, b):
                    neg[q - a] = -s0[so[q]]
                perm = np.argsort(neg, kind="mergesort")
                block = so[a:b].copy()
                for q in range(b - a):
                    so[a + q] = block[perm[q]]
                break
    group = np.empty(n, np.int64)
    rank = np.empty(n, np.int64)
    g = -1
    for p in range(n):
        i = so[p]
        if p == 0 or t0[i] != t0[so[p - 1]] or s0[i] != s0[so[p - 1]]:
            g += 1
        group[p] = g
        rank[p] = p - starts[t0[i]] + 1
    size = np.zeros(g + 1, np.int64)
    for p in range(n):
        size[group[p]] += 1
    m = 0
    for p in range(n):
        if size[group[p]] > 1:
            m += 1
    tied = np.empty(m, np.int64)
    m = 0
    for p in range(n):
        if size[group[p]] > 1:
            tied[m] = p
            m += 1
    return so, group, tied, starts, n_ret, rank
