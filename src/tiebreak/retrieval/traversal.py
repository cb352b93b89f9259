"""The traversal layer: one entry point for exhaustive, rank-safe pruned, quantised, band-safe and
anytime top-k retrieval over BM25 and query likelihood.

>>> from tiebreak.retrieval.traversal import retrieve
>>> d, s = retrieve(idx, terms, 10, model="bm25", algorithm="bmw")          # == exhaustive
>>> d, s = retrieve(idx, terms, 10, model="bm25", algorithm="bmw", quantize=8)
>>> d, s = retrieve(idx, terms, 1000, model="bm25", rho="1.4")              # band-safe
>>> d, s = retrieve(idx, terms, 1000, model="ql", budget=20000)             # anytime (JASS)

A model is reduced to *impacts*: a per-posting array ``imp`` (P,), per-query-term weights ``w``
and, for query likelihood, a per-document additive prior. The contribution of posting ``j`` of
query term ``i`` is ``w[i] * imp[j]``:

=====  =====================================  ==============  =============================
model  imp[j]                                 w[i]            prior[d] (times pw)
=====  =====================================  ==============  =============================
bm25   ``(k1+1) tf / (K_D + tf)``             ``f_{q,Q} idf``  --
ql     ``log(1 + tf |C| / (mu f_{q,C}))``     ``f_{q,Q}``      ``log(mu/(|D|+mu))`` (pw=|Q|)
=====  =====================================  ==============  =============================

With ``quantize=BITS`` the per-posting contributions ``idf * imp`` (bm25) or ``imp`` (ql) are
replaced by integers (:mod:`tiebreak.retrieval.quantize`) fitted to the whole index, the weights
become the integer query frequencies and scores are int64 sums (returned as float64, exactly).

Result order everywhere: score descending, then docno descending in byte order (trec_eval's
reading order), never a heap or traversal artefact. The pruned algorithms return exactly the
exhaustive top k (same documents, bit-identical scores, same order); see
``docs/precise-enough.md``.

References: H. Turtle and J. Flood, "Query evaluation: strategies and optimizations", IP&M 31(6),
1995 (MaxScore); S. Ding and T. Suel, "Faster top-k document retrieval using block-max indexes",
SIGIR 2011 (block-max WAND); A. Broder et al., "Efficient query evaluation using a two-level
retrieval process", CIKM 2003 (WAND); J. Lin and A. Trotman, "Anytime ranking for
impact-ordered indexes", ICTIR 2015 (JASS); Z. Yang, A. Moffat and A. Turpin, "How precise does
document scoring need to be?", AIRS 2016 (bands).
"""

from __future__ import annotations

import numpy as np

from . import kernels as K
from .quantize import QUANTIZERS
from .topk import (
    ALGORITHMS,
    KTH,
    Plan,
    _bounds,
    _rank,
    _scratch,
    _theta0,
    auto_algorithm,
    bound_arrays,
    run_plan,
)
from .weights import TERM_SCORERS, TermScorer, _flat, query_term_ids, term_scorer

__all__ = ["ALGORITHMS", "Plan", "plan", "retrieve", "retrieve_many", "query_batch", "impacts",
           "bound_arrays", "run_plan", "QUANTIZERS", "KTH", "TermScorer"]

#: the models the traversal can run by name (any :class:`TermScorer` object runs too)
TRAVERSAL_MODELS = tuple(TERM_SCORERS)
_ = (_bounds, _rank, _scratch, _flat)   # re-exported for callers of the old names


# ------------------------------------------------------------------ impacts (cached per index)
def impacts(index, model, quantize: int | None = None, quantizer: str = "linear",
            **params) -> tuple[tuple, np.ndarray, np.ndarray | None]:
    """Per-posting impacts of ``model`` for the whole index, cached on ``index``.

    ``model`` is a :class:`~tiebreak.retrieval.weights.TermScorer` or the name of one
    (:data:`~tiebreak.retrieval.weights.TERM_SCORERS`, then built from ``params``).
    Returns ``(key, imp, prior)``: ``imp`` (P,) float64 (exact) or int32 (quantised; for bm25
    the idf is folded in), ``prior`` (N,) for models with a document prior (ql) else None.

    Raises
    ------
    ValueError
        Unknown model, quantiser or parameter values.
    """
    sc = term_scorer(model, **params)
    if quantize is None:
        return sc.impacts(index)
    return sc.quantized(index, int(quantize), quantizer)


def plan(index, model, query_terms, quantize: int | None = None,
         quantizer: str = "linear", **params) -> Plan | None:
    """The :class:`Plan` of one query, None when no query term is in the vocabulary.
    ``model``: a :class:`TermScorer` or its name (then built from ``params``)."""
    sc = term_scorer(model, **params)
    tids, qtf = query_term_ids(index, query_terms)
    if tids.size == 0 or index.num_docs == 0:
        return None
    key, imp, prior = impacts(index, sc, quantize, quantizer)
    integer = quantize is not None
    w, pw = sc.weights(index, tids, qtf, integer)
    zarr = np.zeros(1, np.int64 if integer else np.float64)
    if not integer:
        w = w.astype(np.float64)   # as in retrieve_many: one kernel signature per dtype
    if prior is None:
        prior = np.zeros(0, zarr.dtype)
    # the prior's weight in the score dtype: the kernels compile for one signature per dtype
    return Plan(tids, w, imp, key, prior, zarr.dtype.type(pw), prior.size > 0, zarr)


def retrieve(index, query_terms, k: int = 1000, model="bm25",
             algorithm: str = "exhaustive", quantize: int | None = None,
             quantizer: str = "linear", rho=None, budget: int | None = None,
             stats: np.ndarray | None = None, band_method: str = "exact",
             **params) -> tuple[np.ndarray, np.ndarray]:
    """Top ``k`` documents of one query.

    Parameters
    ----------
    index : tiebreak.index.Index
    query_terms : list of str
        Analysed terms (repeats count as query term frequency).
    k : int
        Documents to return (>= 1).
    model : str or TermScorer
        A :class:`~tiebreak.retrieval.weights.TermScorer` object, or the name of one
        (``"bm25"``, ``"ql"``, ``"vsm"``; then built from ``params``).
    algorithm : {"exhaustive", "maxscore", "bmw", "saat", "auto"}
        Rank-safe: all four return the same documents, scores and order ("saat": impact-ordered
        score-at-a-time, :mod:`tiebreak.retrieval.saat`; with ``rho`` it certifies only the
        band ends); "auto": the one measured fastest for the model and k
        (:func:`tiebreak.retrieval.topk.auto_algorithm`).
    quantize : int, optional
        Impact bits (1..16); scores become integer sums.
    quantizer : {"linear", "geometric"}
    rho : rational-like, optional
        Band-safe top-k with geometric bands of ratio ``rho`` (>= 1): see
        :func:`tiebreak.retrieval.bandsafe.band_safe`.
    band_method : {"exact", "interval"}
        How ``rho`` is served: the exact top k by ``algorithm``, then banded (default, the
        fastest here), or score-interval refinement over impact-ordered postings that stops as
        soon as every band boundary is certain.
    budget : int, optional
        Anytime score-at-a-time processing of at most ``budget`` postings in impact order.
    stats : ndarray of int64, shape (2,), optional
        Incremented by postings scored and documents fully evaluated.
    **params
        Model parameters when ``model`` is a name (bm25: k1, b, idf, doclen; ql: smoothing, mu,
        lam, delta; vsm: none).

    Returns
    -------
    docids : ndarray of int32, shape (<= k,)
    scores : ndarray of float64, shape (<= k,)
        Score descending, then docno descending.

    Raises
    ------
    ValueError
        Unknown model, algorithm, quantiser or parameter, k < 1, bits outside 1..16,
        rho <= 1 or budget < 1.
    """
    k = int(k)
    if k < 1:
        raise ValueError("k must be >= 1")
    algorithm = _resolve(algorithm, k, model, quantize)
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm: expected one of {', '.join(ALGORITHMS)}, got {algorithm!r}")
    if quantize is not None and not 1 <= int(quantize) <= 16:
        raise ValueError(f"quantize: bits must be 1..16, got {quantize}")
    if quantizer not in QUANTIZERS:
        raise ValueError(f"quantizer: expected one of {', '.join(QUANTIZERS)}, got {quantizer!r}")
    if stats is None:
        stats = np.zeros(2, np.int64)
    p = plan(index, model, query_terms, None if quantize is None else int(quantize), quantizer,
             **params)
    if p is None:
        return np.zeros(0, np.int32), np.zeros(0, np.float64)
    if rho is not None or budget is not None:
        from . import bandsafe

        if rho is not None and budget is not None:
            raise ValueError("use either rho or budget, not both")
        if rho is not None and algorithm == "saat" and band_method == "exact":
            from .saat import band_safe as saat_band_safe

            # the impact-ordered traversal certifies only the band ends, not every rank
            d, s = bandsafe.banded(index, saat_band_safe(index, p, k, rho, stats), rho)
        elif rho is not None:
            d, s = bandsafe.band_safe(index, p, k, rho, stats, band_method, algorithm)
        else:
            d, s = bandsafe.anytime(index, p, k, int(budget), stats)
    elif algorithm == "saat":
        from .saat import topk as saat_topk

        d, s = saat_topk(index, p, k, stats)
    else:
        d, s = run_plan(index, p, k, algorithm, stats)
    return d, s.astype(np.float64)


def _resolve(algorithm: str, k: int, model, quantize) -> str:
    """``algorithm``, with ``"auto"`` replaced by :func:`~tiebreak.retrieval.topk.
    auto_algorithm`'s choice for ``k``, ``model`` (a name or a term scorer) and ``quantize``."""
    if algorithm != "auto":
        return algorithm
    return auto_algorithm(k, model if isinstance(model, str) else getattr(model, "name", ""),
                          quantize)


def query_batch(index, queries) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct in-vocabulary term ids of every query, vectorised over the batch.

    Returns ``q_ptr`` int64 (nq+1,), ``q_tids`` int64 and ``qtf`` float64 (q_ptr[-1],): query
    i's terms are ``q_tids[q_ptr[i]:q_ptr[i+1]]`` in first-occurrence order with their query
    frequencies -- what :func:`tiebreak.retrieval.models.query_term_ids` gives per query."""
    nq = len(queries)
    lens = np.fromiter((len(q) for q in queries), np.int64, nq)
    flat = [t for q in queries for t in q]
    tids = index.term_ids(flat) if hasattr(index, "term_ids") else \
        np.fromiter((index.term_id(t) for t in flat), np.int64, len(flat))
    return K.distinct_terms(lens, tids)


def retrieve_many(index, queries, k: int = 1000, model="bm25",
                  algorithm: str = "auto", quantize: int | None = None,
                  quantizer: str = "linear", rho=None, budget: int | None = None,
                  stats: np.ndarray | None = None, band_method: str = "exact",
                  **params) -> list[tuple[np.ndarray, np.ndarray]]:
    """:func:`retrieve` for a list of queries (each a list of analysed terms), with the
    exhaustive / maxscore / bmw loop over queries inside one compiled call. Same arguments,
    results and errors as :func:`retrieve`; returns one ``(docids, scores)`` per query.
    ``algorithm="auto"`` (the default) runs the one measured fastest for the model and k
    (:func:`tiebreak.retrieval.topk.auto_algorithm`)."""
    k = int(k)
    algorithm = _resolve(algorithm, k, model, quantize)
    band = None
    if rho is not None and budget is None and band_method == "exact" and k >= 1 \
            and algorithm != "saat":
        from .bandsafe import band_scores

        # the exact top k of the batch, then banded in the same compiled pass over its arrays
        band = band_scores(k, rho)    # validates rho; a prefix serves every shorter ranking
        rho = None
    if rho is not None or budget is not None or k < 1 or algorithm == "saat":
        return [retrieve(index, q, k, model, algorithm, quantize, quantizer, rho, budget, stats,
                         band_method, **params) for q in queries]
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm: expected one of {', '.join(ALGORITHMS)}, got {algorithm!r}")
    if quantize is not None and not 1 <= int(quantize) <= 16:
        raise ValueError(f"quantize: bits must be 1..16, got {quantize}")
    if stats is None:
        stats = np.zeros(2, np.int64)
    nq = len(queries)
    if index.num_docs == 0 or nq == 0:
        return [(np.zeros(0, np.int32), np.zeros(0, np.float64)) for _ in queries]
    if quantizer not in QUANTIZERS:
        raise ValueError(f"quantizer: expected one of {', '.join(QUANTIZERS)}, got {quantizer!r}")
    sc = term_scorer(model, **params)
    key, imp, prior = impacts(index, sc, None if quantize is None else int(quantize), quantizer)
    integer = quantize is not None
    q_ptr, q_tids, qtf = query_batch(index, queries)
    qid = np.repeat(np.arange(nq), np.diff(q_ptr))
    zarr = np.zeros(1, np.int64 if integer else np.float64)
    q_w, q_pw = sc.batch_weights(index, q_tids, qtf, qid, nq, integer)
    if not integer:
        # float weights for float impacts (a model may give integer query frequencies or prior
        # weights, small integers, exact as float64): one signature of run_batch per dtype
        q_w, q_pw = q_w.astype(np.float64), q_pw.astype(np.float64)
    has_prior = prior is not None
    if prior is None:
        prior = np.zeros(0, zarr.dtype)
    p = Plan(q_tids, q_w, imp, key, prior, 0, has_prior, zarr)
    pp, pd, _ = _flat(index)
    rank = _rank(index)
    acc, seen, touched = _scratch(index, zarr.dtype)
    if algorithm == "exhaustive" and (k > KTH[-1] or has_prior):
        # no starting threshold to use (see kernels.taat)
        q_ub, q_pb, q_tol = np.zeros(0), np.zeros(nq), np.zeros(nq)
        blk = (np.zeros(1, np.int64), np.zeros(0, np.int32), imp[:0], imp[:0])
        q_th0 = np.full(nq, -np.inf)
    else:
        tmax, tmin, *blk = bound_arrays(index, key, imp)
        w = q_w.astype(np.float64)
        hi = np.where(w >= 0, w * tmax[q_tids], w * tmin[q_tids])
        lo = np.where(w >= 0, w * tmin[q_tids], w * tmax[q_tids])
        q_ub = np.maximum(hi, 0.0)
        if has_prior:
            pmax, pmin = float(prior.max()), float(prior.min())
            pwf = q_pw.astype(np.float64)
            q_pb = np.maximum(pwf * pmax, pwf * pmin)
            pabs = np.maximum(np.abs(pwf * pmax), np.abs(pwf * pmin))
        else:
            q_pb = np.zeros(nq)
            pabs = np.zeros(nq)
        if integer:
            q_tol = np.zeros(nq)
        else:
            mag = np.abs(hi) + np.abs(lo)
            s = np.bincount(qid, weights=mag, minlength=nq)
            q_tol = 1e-9 * (s + pabs + 1.0)
        pmin = float(prior.min()) if has_prior else 0.0
        q_th0 = _theta0(index, key, imp, q_tids, q_w, qid, nq, k, q_tol,
                        q_pw.astype(np.float64), pmin)
    alg = ALGORITHMS.index(algorithm)
    kk = min(k, int(index.num_docs))      # a larger k returns every candidate all the same
    step = max(1, (1 << 22) // kk)        # queries per compiled call: output <= 4M entries
    out = []
    for a in range(0, nq, step):
        b = min(nq, a + step)
        out_d, out_s, cnt = K.run_batch(alg, pp, pd, p.imp, q_ptr[a:b + 1], q_tids, q_w, q_ub,
                                        q_pb[a:b], q_tol[a:b], q_pw[a:b], prior, has_prior,
                                        zarr, index.num_docs, rank, kk, blk[0], blk[1], blk[2],
                                        blk[3], K.BLOCK, q_th0[a:b], acc, seen, touched, stats)
        if band is not None:
            out_d, out_s = K.band_batch(out_d, cnt, band, rank)
        else:
            out_s = out_s.astype(np.float64)
        if cnt.size and (cnt == kk).all():     # every query has k results: rows of a view
            out.extend(zip(out_d.reshape(-1, kk), out_s.reshape(-1, kk)))
            continue
        bounds = np.concatenate([[0], np.cumsum(cnt)]).tolist()
        out.extend((out_d[x:y], out_s[x:y]) for x, y in zip(bounds, bounds[1:]))
    return out
