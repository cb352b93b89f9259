"""Compiled loops of the ranking layer (numba), used once the compiled reader has loaded numba.

Every function here computes exactly what the numpy code in :mod:`tiebreak.ranking` computes
(same additions in the same order, so the same bits); the numpy code stays the definition and
serves small inputs, for which loading numba (about 0.8 s) would cost more than it saves. Tests
hold each kernel equal to its numpy counterpart.
"""

from __future__ import annotations

import numba as nb
import numpy as np


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
def select(order, qtopic, relkey, tmap, judged_only, max_docs, promote,
           promoted):  # pragma: no cover - compiled
    """The positions of :func:`tiebreak.ranking._select` before its -c bogus documents, in
    one pass: ``order`` (int64 (n,), lines) mapped to evaluated topics by ``tmap`` (-1: not
    evaluated), unjudged lines dropped when ``judged_only``, 1-based ranks, ranks past
    ``max_docs`` (when >= 0) cut, unjudged codes set to ``promoted`` when ``promote``.
    Returns (ok, lines, topic, rank, code); ok is False when the evaluated topics do not come
    in non-decreasing order (the numpy code's stable sort then handles it)."""
    n = order.shape[0]
    o = np.empty(n, np.int64)
    t = np.empty(n, np.int64)
    rank = np.empty(n, np.int64)
    code = np.empty(n, np.int64)
    m = 0
    prev = -1
    r = 0
    for i in range(n):
        line = order[i]
        tt = tmap[qtopic[line]]
        if tt < 0:
            continue
        c = relkey[line]
        if judged_only and c < 0:
            continue
        if tt != prev:
            if tt < prev:
                return False, o[:0], t[:0], rank[:0], code[:0]
            prev = tt
            r = 0
        r += 1
        if max_docs >= 0 and r > max_docs:
            continue
        if promote and c < 0:
            c = promoted
        o[m] = line
        t[m] = tt
        rank[m] = r
        code[m] = c
        m += 1
    return True, o[:m], t[:m], rank[:m], code[:m]


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
