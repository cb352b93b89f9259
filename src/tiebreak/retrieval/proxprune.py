"""The term-pair statistics index of the pruned SDM (Table 2.2's term-pair index, for the
pairs a query set needs): per adjacent query-term pair and window, the ``#1`` (exact phrase)
and ``#uwN`` (non-overlapping optimal intervals of length <= N) counts summed over the
collection (:func:`pair_statistics`), computed once per pair by one merge of the two terms'
positional postings and kept on the index object;
:func:`tiebreak.retrieval.dependency.build_pair_statistics` fills it for a topic set.

SDM (D. Metzler and W. B. Croft, "A Markov random field model for term dependencies", SIGIR
2005) needs these collection counts before it can score any document; with them, the rank-safe
pruned traversal of :mod:`tiebreak.retrieval.dependency.pruned` (one traversal for SDM, FDM
and the Lkp family, its bounds derived there) skips the candidates whose upper bound cannot
reach the top k. :func:`pair_counts_in` gives the per-document counts (tested against the
reference window counters).
"""

from __future__ import annotations

import numpy as np

from .intervals import jit

__all__ = ["pair_statistics", "pair_counts_in"]


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
