"""TPSpan: BM25 with the term frequency replaced by span-based relevance contributions (Song,
Taylor, Wen, Hon & Yu 2008; Lu 2018 Eq. 2.12, §4.1.1).

A document's query-term occurrences ("hits", in position order; positions are the index's) are
cut into non-overlapping *expanded spans* of distinct query terms. Walking the hits with ``c``
the current hit and ``n`` the next one, the span that holds ``c`` ends after ``c`` when

1. ``n - c + 1 > max_dis`` (the next hit is too far), or
2. ``n`` and ``c`` are occurrences of the same term, or
3. ``n``'s term already has a hit ``p`` in the span: if ``c - p + 1 < n - c + 1`` the span ends
   after ``c``; otherwise it ends *before* ``c``, and ``c`` opens the next span with ``n``
   (``c`` goes with whichever of the two occurrences of that term it is closer to);

and otherwise ``c`` and ``n`` stay in one span. A span's width is ``last - first + 1``, at most
``max_dis``, and ``max_dis`` for a span of a single hit. Each span ``s`` of ``n_s`` hits (all of
different terms) gives every term in it the relevance contribution ``n_s^lam / width^gamma``;
``rc(t)`` is the sum over the spans holding ``t``, and

``score(Q, D) = sum_t f_{t,Q} w_t rc(t) (k1 + 1) / (rc(t) + K_D)``, ``K_D = k1 (1 - b + b |D| /
avgdl)``

(BM25 with ``rc`` in the place of the term frequency; ``w_t`` the ``idf`` weight).

Provenance (the paper's text could not be read for this implementation; Lu 2018 §2.2.3 gives
Eq. 2.12 and the amortisation but not the segmentation): rules 1-3, the widths and the
paper's worked example (query "sea thousand years", hits sea 5, 29; thousand 7, 10; years
8, 11, ``max_dis`` 10: spans {5, 7, 8} of width 4, {10, 11} of width 2, {29} of width 10) are as
the open-source Cuely/Stract engine implements and tests the paper; ``max_dis`` = 45 is that
engine's value, ``rc`` as Manabe & Fujita (arXiv:1709.03260) restate the method. The exponents
default to the values Lu (2018, §4.1.1) calls Song et al.'s defaults, ``lam = 2``, ``gamma =
1``; that engine uses ``lam = 0.55``, ``gamma = 0.25`` (``-p lam=0.55 -p gamma=0.25``). BM25's
``k1``, ``b`` and idf default to those of the other distance models of
:mod:`tiebreak.retrieval.positional` (0.9, 0.4, ``ln(N/df)``).

Reference: R. Song, M. J. Taylor, J.-R. Wen, H.-W. Hon and Y. Yu, "Viewing term proximity from
a different perspective", ECIR 2008, LNCS 4956, pp. 346-357.
"""

from __future__ import annotations

import numpy as np

from .intervals import jit

__all__ = ["tpspan", "segment"]


@jit
def _segment(pos, term, a, b, max_dis, start, size):
    """Cut hits ``a..b-1`` (``pos``/``term`` in position order) into spans; writes each
    span's first hit index into ``start`` and its number of hits into ``size``; returns the
    number of spans."""
    ns = 0
    if b <= a:
        return 0
    s0 = a          # first hit of the open span
    for c in range(a, b - 1):
        n = c + 1
        cut = -1    # the open span ends before this hit index
        if pos[n] - pos[c] + 1 > max_dis or term[n] == term[c]:
            cut = n
        else:
            p = -1
            for h in range(s0, c):
                if term[h] == term[n]:
                    p = h
                    break
            if p >= 0:
                cut = n if pos[c] - pos[p] + 1 < pos[n] - pos[c] + 1 else c
        if cut >= 0:
            start[ns] = s0
            size[ns] = cut - s0
            ns += 1
            s0 = cut
    start[ns] = s0
    size[ns] = b - s0
    return ns + 1


@jit
def _tpspan_kernel(ptr, pos, term, w, qtf, knorm_d, k1, max_dis, lam, gamma, out):
    nq = w.size
    rc = np.zeros(nq)
    start = np.empty(pos.size + 1, np.int64)
    size = np.empty(pos.size + 1, np.int64)
    for i in range(ptr.size - 1):
        rc[:] = 0.0
        ns = _segment(pos, term, ptr[i], ptr[i + 1], max_dis, start, size)
        for s in range(ns):
            m = size[s]
            f = start[s]
            width = max_dis if m == 1 else min(pos[f + m - 1] - pos[f] + 1, max_dis)
            v = np.float64(m) ** lam / np.float64(width) ** gamma
            for e in range(f, f + m):
                rc[term[e]] += v
        sc = 0.0
        for t in range(nq):
            if rc[t] > 0.0:
                sc += qtf[t] * w[t] * rc[t] * (k1 + 1.0) / (rc[t] + knorm_d[i])
        out[i] = sc


def segment(positions, terms, max_dis: int = 45) -> list[list[int]]:
    """The expanded spans of one document's hits (module docstring): ``positions`` ascending
    and ``terms`` (a term label per hit), as lists of hit indices."""
    pos = np.asarray(positions, np.int64)
    codes = {t: i for i, t in enumerate(dict.fromkeys(terms))}
    term = np.array([codes[t] for t in terms], np.int64)
    if pos.size and np.any(np.diff(pos) <= 0):
        raise ValueError("positions must be strictly ascending")
    start = np.empty(pos.size + 1, np.int64)
    size = np.empty(pos.size + 1, np.int64)
    ns = _segment(pos, term, 0, pos.size, int(max_dis), start, size)
    return [list(range(start[s], start[s] + size[s])) for s in range(ns)]


def tpspan(index, query_terms, k: int = 1000, k1: float = 0.9, b: float = 0.4,
           idf: str = "rw", max_dis: int = 45, lam: float = 2.0, gamma: float = 1.0):
    """Top ``k`` of TPSpan (module docstring) for one query of analysed terms: ``(docids
    int32, scores float64)`` in trec_eval order; every document with a query term is a
    candidate.

    Raises
    ------
    ValueError
        ``max_dis < 1`` or an unknown ``idf``.
    """
    from .positional import _empty, _finish, cdf_of
    from .weights import collection_stats, idf_weights, query_term_ids

    if int(max_dis) < 1:
        raise ValueError(f"max_dis must be >= 1, got {max_dis!r}")
    if idf not in ("rsj", "rw", "lucene"):
        raise ValueError(f"idf must be one of rsj, rw, lucene, got {idf!r}")
    tids, qtf = query_term_ids(index, query_terms)
    if tids.size == 0 or index.num_docs == 0 or int(k) <= 0:
        return _empty()
    docs, ptr, pos, term = cdf_of(index, tids)
    st = collection_stats(index)
    dl = np.asarray(index.doclen, np.float64)[docs]
    knorm_d = float(k1) * ((1.0 - float(b)) + float(b) * dl / st.avgdl)
    w = idf_weights(index, tids, idf)
    out = np.zeros(docs.size)
    _tpspan_kernel(ptr, pos.astype(np.int64), term.astype(np.int64), w, qtf, knorm_d,
                   float(k1), int(max_dis), float(lam), float(gamma), out)
    return _finish(index, docs, out, k)
