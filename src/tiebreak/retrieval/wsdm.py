"""Weighted sequential dependence model (WSDM; Bendersky, Metzler & Croft 2010).

SDM's three potentials (Dirichlet unigram, ``#1`` and ``#uw8`` of adjacent query-term pairs,
Indri semantics as :func:`tiebreak.retrieval.dependency.sdm`), each weighted by its own concept:

``score = sum_q lambda(q) phi_T(q) + sum_b lambda(b) (phi_O(b) + phi_U(b))``

``lambda(q) = u_0 + u_1 ln cf(q) + u_2 ln df(q)`` and ``lambda(b) = v_0 + v_1 ln cf(#1 b) +
v_2 ln df(#1 b)`` over the collection's own statistics (a count of 0 gives the feature 0, as
Galago's ``wsdm`` operator does). The paper learns the weights ``u`` and ``v`` per collection
(and adds features from external sources: Google n-grams, a query log, Wikipedia titles, which
are not available here); Lu (2018) neither gives learned weights nor reruns WSDM (§4.3.4 only
quotes Huston & Croft's GOV2 figure), so there is **no defensible default**: ``uni`` and ``bi``
must be given (``-p uni=u0,u1,u2 -p bi=v0,v1,v2``). The weights are used as given, not divided
by the number of concepts (Galago's ``norm=false``); with ``u = (a, 0, 0)`` and ``v = (c, 0, 0)``
WSDM ranks as SDM with weights ``(a |Q|, c (k-1), c (k-1))`` (|Q| query tokens, k distinct
proximity terms), which the tests check. A repeated query term's unigram weight is multiplied by
its query frequency. ``max_prox_terms`` as for SDM.

Reference: M. Bendersky, D. Metzler and W. B. Croft, "Learning concept importance using a
weighted dependence model", Proc. WSDM 2010, pp. 31-40.
"""

from __future__ import annotations

import math

import numpy as np

from .intervals import MAX_TERMS, jit

__all__ = ["wsdm", "phrase_stats"]


@jit
def _phrase_count(d1, o1, p1, d2, o2, p2):
    """(occurrences, documents) of term 2 at the position right after term 1."""
    i = j = 0
    cf = 0
    df = 0
    while i < len(d1) and j < len(d2):
        if d1[i] < d2[j]:
            i += 1
        elif d1[i] > d2[j]:
            j += 1
        else:
            a, ae = o1[i], o1[i + 1]
            b, be = o2[j], o2[j + 1]
            n = 0
            while a < ae and b < be:
                if p2[b] == p1[a] + 1:
                    n += 1
                    a += 1
                    b += 1
                elif p2[b] <= p1[a]:
                    b += 1
                else:
                    a += 1
            cf += n
            if n > 0:
                df += 1
            i += 1
            j += 1
    return cf, df


def phrase_stats(index, t1: int, t2: int) -> tuple[int, int]:
    """Collection count and document count of the exact phrase ``t1 t2`` (term ids; ``t2`` at
    the position right after ``t1``)."""
    d1, _ = index.postings(t1)
    d2, _ = index.postings(t2)
    o1, p1 = index.positions(t1)
    o2, p2 = index.positions(t2)
    cf, df = _phrase_count(np.asarray(d1), np.asarray(o1), np.asarray(p1), np.asarray(d2),
                           np.asarray(o2), np.asarray(p2))
    return int(cf), int(df)


def _ln(x) -> float:
    return math.log(x) if x > 0 else 0.0


def _check3(name, v):
    if v is None:
        raise ValueError(
            "wsdm needs its learned concept weights: -p uni=u0,u1,u2 -p bi=v0,v1,v2 (constant, "
            "ln cf, ln df of each unigram / #1 bigram; Bendersky et al. 2010 learn them per "
            "collection and Lu 2018 gives none)")
    if isinstance(v, str | bytes) or not hasattr(v, "__iter__"):
        raise ValueError(f"{name} must be 3 numbers, got {v!r}")
    out = [float(x) for x in v]
    if len(out) != 3 or not all(math.isfinite(x) for x in out):
        raise ValueError(f"{name} must be 3 finite numbers, got {v!r}")
    return out


def wsdm(index, query_terms, k: int = 1000, uni=None, bi=None, mu: float = 2500.0,
         window: int = 8, method: str = "auto", max_prox_terms: int | None = None):
    """Top ``k`` of WSDM (module docstring) for one query of analysed terms: ``(docids int32,
    scores float64)`` in trec_eval order; every document with a query term is a candidate.

    Raises
    ------
    ValueError
        ``uni`` or ``bi`` missing or not 3 finite numbers, ``mu <= 0``, ``window < 1``, a bad
        ``method`` or ``max_prox_terms``, or a shard of a sharded index (not supported: the
        concept weights need the whole collection's phrase counts).
    """
    from .dependency._kernels import _run
    from .dependency.plan import _NOLIMIT, K1, B, _arrays, _empty, _method, _prox_plan, _structure

    if getattr(index, "global_stats", None) is not None:
        raise ValueError("wsdm: a shard of a sharded index cannot be scored alone (its window "
                         "and phrase counts must be the whole collection's); search the "
                         "unsharded index")
    u = _check3("uni", uni)
    v = _check3("bi", bi)
    if not mu > 0:
        raise ValueError("mu must be > 0")
    if int(window) < 1:
        raise ValueError("window must be >= 1")
    if method not in ("auto", "lps_if_all", "eps_cdf_all"):
        raise ValueError(f"method: expected auto, lps_if_all or eps_cdf_all, got {method!r}")
    tids, qtf, npx = _prox_plan(index, query_terms, max_prox_terms, MAX_TERMS, "wsdm")
    nq = len(tids)
    if nq == 0 or int(k) <= 0 or index.num_docs == 0:
        return _empty()
    tables, ph_slot, phrases, _ = _structure(npx, "sdm", nq)
    n_o = len(phrases)
    n_u = max(npx - 1, 0)
    arrs = _arrays(index)
    df, cf = arrs[8], arrs[9]
    uni_w = np.array([u[0] + u[1] * _ln(cf[t]) + u[2] * _ln(df[t]) for t in tids.tolist()])
    bi_w = np.empty(n_u)
    for i in range(n_u):
        pc, pd = phrase_stats(index, int(tids[i]), int(tids[i + 1]))
        bi_w[i] = v[0] + v[1] * _ln(pc) + v[2] * _ln(pd)
    # slots as dependency.sdm: unigrams, #1 of pair (i, i+1), #uwN of pair (i, i+1)
    slot_gw = np.concatenate([uni_w * qtf, bi_w[:n_o], bi_w])
    nslot = nq + n_o + n_u
    slot_maxlen = np.concatenate([np.full(nq + n_o, _NOLIMIT, np.int32),
                                  np.full(n_u, int(window), np.int32)])
    uni_cf = np.zeros(nslot)
    uni_cf[:nq] = cf[tids]
    use_eps = _method(index, df[tids[:npx]].tolist(), uni_cf[:npx].tolist(), method, False)
    return _run(index, tids, npx, k, 1, use_eps, True, tables, slot_maxlen, np.zeros(nslot),
                ph_slot, 2, np.ones(nslot), np.zeros(nq), qtf, K1, B, 0.0, slot_gw, uni_cf, mu)
