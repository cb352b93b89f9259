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

__all__ = ["wsdm", "phrase_stats", "phrase_masks"]


@jit
def _phrase_masks(post_ptr, post_docid, pos_ptr, pos, tids, masks):
    """Collection count and document count (int64 (len(masks),) each) of the exact phrase of
    every subquery in ``masks`` (int64 bitmasks over ``tids``, int64): its terms in the order
    of ``tids``, each at the position right after the previous one. The documents holding all
    the terms are found by a merge of their postings (int64 ``post_ptr``, int32
    ``post_docid``), the phrases by one pass over the first term's positions (int64
    ``pos_ptr`` per posting, int32 ``pos``) with a cursor per further term."""
    n = len(masks)
    P = len(tids)
    cf = np.zeros(n, np.int64)
    df = np.zeros(n, np.int64)
    ts = np.empty(P, np.int64)
    p = np.empty(P, np.int64)
    q = np.empty(P, np.int64)
    for r in range(n):
        m = masks[r]
        L = 0
        for j in range(P):
            if (m >> j) & 1:
                ts[L] = tids[j]
                L += 1
        if L == 0:
            continue
        for i in range(L):
            p[i] = post_ptr[ts[i]]
        done = False
        while not done:
            cand = -1
            for i in range(L):
                if p[i] >= post_ptr[ts[i] + 1]:
                    done = True
                    break
                if post_docid[p[i]] > cand:
                    cand = post_docid[p[i]]
            if done:
                break
            same = True
            for i in range(L):
                e = post_ptr[ts[i] + 1]
                while p[i] < e and post_docid[p[i]] < cand:
                    p[i] += 1
                if p[i] >= e:
                    done = True
                    break
                if post_docid[p[i]] != cand:
                    same = False
            if done or not same:
                continue
            for i in range(L):
                q[i] = pos_ptr[p[i]]
            c = 0
            for a in range(pos_ptr[p[0]], pos_ptr[p[0] + 1]):
                x = pos[a]
                ok = True
                for i in range(1, L):
                    e = pos_ptr[p[i] + 1]
                    while q[i] < e and pos[q[i]] < x + i:
                        q[i] += 1
                    if q[i] >= e or pos[q[i]] != x + i:
                        ok = False
                        break
                if ok:
                    c += 1
            cf[r] += c
            if c > 0:
                df[r] += 1
            for i in range(L):
                p[i] += 1
    return cf, df


def phrase_masks(index, tids, masks) -> tuple[np.ndarray, np.ndarray]:
    """Collection and document counts (int64 (len(masks),) each) of the exact phrase of each
    subquery ``masks`` (bitmasks over the term ids ``tids``; a phrase's terms in the order of
    ``tids``, at consecutive positions). A mask with one bit gives the term's cf and df."""
    from .dependency.plan import _arrays

    pp, pd, _, qp, pos = _arrays(index)[:5]
    return _phrase_masks(pp, pd, qp, pos, np.ascontiguousarray(tids, np.int64),
                         np.ascontiguousarray(masks, np.int64))


def phrase_stats(index, t1: int, t2: int) -> tuple[int, int]:
    """Collection count and document count of the exact phrase ``t1 t2`` (term ids; ``t2`` at
    the position right after ``t1``)."""
    cf, df = phrase_masks(index, [t1, t2], [3])
    return int(cf[0]), int(df[0])


def _ln(x) -> float:
    return math.log(x) if x > 0 else 0.0


def _check3(name, v, model: str = "wsdm"):
    if v is None:
        raise ValueError(
            f"{model} needs its learned concept weights: -p uni=u0,u1,u2 -p bi=v0,v1,v2 "
            "(constant, ln cf, ln df of each unigram / phrase concept; Bendersky et al. 2010 "
            "learn them per collection and Lu 2018 gives none)")
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
