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

from dataclasses import dataclass

import numpy as np

from . import kernels as K
from .quantize import QUANTIZERS, Quantizer

__all__ = ["ALGORITHMS", "Plan", "plan", "retrieve", "retrieve_many", "query_batch", "impacts",
           "bound_arrays", "QUANTIZERS"]

ALGORITHMS = ("exhaustive", "maxscore", "bmw")
TRAVERSAL_MODELS = ("bm25", "ql")


@dataclass
class Plan:
    """Everything a kernel needs for one query (see the module docstring)."""

    tids: np.ndarray      # (m,) int64 distinct query term ids
    w: np.ndarray         # (m,) float64 or int64 weights
    imp: np.ndarray       # (P,) float64 or int32 impacts
    key: tuple            # cache key of imp
    prior: np.ndarray     # (N,) float64 or int64, or (0,)
    pw: object            # weight of the prior (float or int)
    has_prior: bool
    zarr: np.ndarray      # (1,) zero of the score dtype

    @property
    def integer(self) -> bool:
        return self.zarr.dtype.kind == "i"


# ------------------------------------------------------------------ impacts (cached per index)
def _flat(index):
    from .models import _flat as flat

    return flat(index)


def impacts(index, model: str, quantize: int | None = None, quantizer: str = "linear",
            **params) -> tuple[tuple, np.ndarray, np.ndarray | None]:
    """Per-posting impacts of ``model`` for the whole index, cached on ``index``.

    Returns ``(key, imp, prior)``: ``imp`` (P,) float64 (exact) or int32 (quantised; for bm25
    the idf is folded in), ``prior`` (N,) for ql (float64 or int64) else None.

    Raises
    ------
    ValueError
        Unknown model, quantiser or parameter values.
    """
    from . import models as M

    c = index._cache
    pp, pd, pt = _flat(index)
    if model == "bm25":
        k1 = float(params.get("k1", 0.9))
        b = float(params.get("b", 0.4))
        idf = str(params.get("idf", "lucene"))
        doclen = str(params.get("doclen", "exact"))
        fkey = ("full-bm25", k1, b, doclen)
        if fkey not in c:
            c[fkey] = M.bm25_impacts(index, k1, b, doclen)
        imp, prior = c[fkey], None
        if quantize is None:
            return fkey, imp, None
        qkey = fkey + (idf, int(quantize), quantizer)
        if qkey not in c:
            tw = M.idf_weights(index, np.arange(index.vocab_size), idf)
            x = imp * np.repeat(tw, np.diff(np.asarray(pp)))
            qz = Quantizer.fit(x, quantize, quantizer)
            c[qkey] = (qz(x), None, qz)
        return qkey, c[qkey][0], None
    if model == "ql":
        mu = float(params.get("mu", 2500.0))
        if not mu > 0:
            raise ValueError("mu must be > 0")
        fkey = ("full-ql", mu)
        if fkey not in c:
            c[fkey] = M.ql_impacts(index, mu)
        imp, prior = c[fkey]
        if quantize is None:
            return fkey, imp, prior
        qkey = fkey + (int(quantize), quantizer)
        if qkey not in c:
            qz = Quantizer.fit(imp, quantize, quantizer)
            c[qkey] = (qz(imp), qz.additive(prior), qz)
        return qkey, c[qkey][0], c[qkey][1]
    raise ValueError(f"traversal supports models {', '.join(TRAVERSAL_MODELS)}, got {model!r}")


def _check_params(model: str, params: dict) -> None:
    known = {"bm25": {"k1", "b", "idf", "doclen"}, "ql": {"mu"}}.get(model)
    if known is None:
        raise ValueError(f"traversal supports models {', '.join(TRAVERSAL_MODELS)}, "
                         f"got {model!r}")
    bad = set(params) - known
    if bad:
        raise ValueError(f"unknown parameter(s) for {model}: {', '.join(sorted(bad))}")


def plan(index, model: str, query_terms, quantize: int | None = None,
         quantizer: str = "linear", **params) -> Plan | None:
    """The :class:`Plan` of one query, None when no query term is in the vocabulary."""
    from . import models as M

    _check_params(model, params)
    tids, qtf = M.query_term_ids(index, query_terms)
    if tids.size == 0 or index.num_docs == 0:
        return None
    key, imp, prior = impacts(index, model, quantize, quantizer, **params)
    integer = quantize is not None
    if model == "bm25":
        w = qtf.astype(np.int64) if integer else \
            M.idf_weights(index, tids, str(params.get("idf", "lucene"))) * qtf
        pw = 0
    else:
        w = qtf.astype(np.int64) if integer else qtf.astype(np.float64)
        pw = int(qtf.sum()) if integer else float(qtf.sum())
    zarr = np.zeros(1, np.int64 if integer else np.float64)
    if prior is None:
        prior = np.zeros(0, zarr.dtype)
    return Plan(tids, w, imp, key, prior, pw, prior.size > 0, zarr)


def bound_arrays(index, key: tuple, imp: np.ndarray) -> tuple:
    """Per-term largest/smallest impact ``tmax``/``tmin`` (V,), block-max arrays ``blk_ptr``
    (V+1,) int64, ``blk_last`` int32, ``bmax``/``bmin`` (blocks of :data:`kernels.BLOCK`
    postings) of the impacts ``imp`` identified by ``key`` (see :func:`impacts`); computed once
    per index and parameter setting and cached in memory and next to the index
    (:meth:`tiebreak.index.Index.derived`), with the per-term k-th largest impacts used by the
    starting threshold. Returns ``(tmax, tmin, blk_ptr, blk_last, bmax, bmin)``."""
    c = index._cache
    bkey = ("blockmax",) + key
    if bkey not in c:
        def compute():
            pp, pd, _ = _flat(index)
            tmax, tmin = K.term_max_min(pp, imp)
            blk_ptr, blk_last, bmax, bmin = K.block_max(pp, pd, imp, K.BLOCK)
            return {"tmax": tmax, "tmin": tmin, "blk_ptr": blk_ptr, "blk_last": blk_last,
                    "bmax": bmax, "bmin": bmin, "kth": K.term_kth(pp, imp, KTH)}

        a = index.derived("bounds", (K.BLOCK, tuple(KTH.tolist())) + tuple(key), compute)
        c[bkey] = tuple(a[n] for n in ("tmax", "tmin", "blk_ptr", "blk_last", "bmax", "bmin"))
        c[("kth",) + key] = a["kth"]
    return c[bkey]


def _bounds(index, p: Plan):
    """Per-term bounds, block maxima, prior bound and float slack for plan ``p``."""
    c = index._cache
    tmax, tmin, blk_ptr, blk_last, bmax, bmin = bound_arrays(index, p.key, p.imp)
    w = p.w.astype(np.float64)
    hi = np.where(w >= 0, w * tmax[p.tids], w * tmin[p.tids])
    ub = np.maximum(hi, 0.0)
    if p.has_prior:
        pk = ("priormax",) + p.key
        if pk not in c:
            c[pk] = (float(p.prior.max()), float(p.prior.min()))
        pmax, pmin = c[pk]
        pbound = max(float(p.pw) * pmax, float(p.pw) * pmin)
        pabs = max(abs(float(p.pw) * pmax), abs(float(p.pw) * pmin))
    else:
        pbound = pabs = 0.0
    if p.integer:
        tol = 0.0
    else:
        lo = np.where(w >= 0, w * tmin[p.tids], w * tmax[p.tids])
        tol = 1e-9 * (float(np.abs(hi).sum() + np.abs(lo).sum()) + pabs + 1.0)
    return ub, float(pbound), tol, blk_ptr, blk_last, bmax, bmin


KTH = np.array([10, 100, 1000], np.int64)


def _theta0(index, key, imp, tids, w, qid, nq, k, tol, pw, pmin):
    """Per query, a score at least ``k`` documents reach (a safe starting threshold), float64
    (nq,): for an anchor term t with w >= 0, its k'-th largest contribution (k' >= k, from
    :data:`KTH`) plus the lowest possible contribution of every other term (0 if the document
    lacks it) plus the lowest possible prior, minus the rounding slack; -inf without one."""
    out = np.full(nq, -np.inf)
    r = int(np.searchsorted(KTH, k))
    if r >= KTH.size or tids.size == 0:
        return out
    c = index._cache
    tmax, tmin = (a[tids] for a in bound_arrays(index, key, imp)[:2])
    kth = c[("kth",) + key][r][tids]
    wf = w.astype(np.float64)
    low = np.minimum(0.0, np.where(wf >= 0, wf * tmin, wf * tmax))
    sumlow = np.bincount(qid, weights=low, minlength=nq)
    with np.errstate(invalid="ignore"):
        anchor = np.where((wf >= 0) & np.isfinite(kth), wf * kth - low, -np.inf)
    np.maximum.at(out, qid, anchor)
    out = out + sumlow + pw * pmin - tol
    out[~np.isfinite(out)] = -np.inf
    return out


def _scratch(index, dtype):
    c = index._cache
    key = ("tscratch", np.dtype(dtype).str)
    if key not in c:
        N = index.num_docs
        c[key] = (np.zeros(N, dtype), np.zeros(N, np.bool_), np.empty(N, np.int32))
    return c[key]


def _rank(index):
    c = index._cache
    if "rank" not in c:
        c["rank"] = np.ascontiguousarray(index.docno_rank)
    return c["rank"]


def run_plan(index, p: Plan, k: int, algorithm: str = "exhaustive",
             stats: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Top ``k`` of plan ``p`` with ``algorithm``; ``stats`` (int64 (2,), optional) receives
    postings scored and documents fully evaluated."""
    if stats is None:
        stats = np.zeros(2, np.int64)
    k = min(int(k), int(index.num_docs))     # the heaps are allocated with k entries
    pp, pd, _ = _flat(index)
    rank = _rank(index)
    if algorithm == "exhaustive":
        acc, seen, touched = _scratch(index, p.zarr.dtype)
        return K.taat(pp, pd, p.imp, p.tids, p.w, p.prior, p.pw, p.has_prior, acc, seen, touched,
                      rank, k, stats)
    ub, pbound, tol, blk_ptr, blk_last, bmax, bmin = _bounds(index, p)
    pmin = float(index._cache[("priormax",) + p.key][1]) if p.has_prior else 0.0
    th0 = float(_theta0(index, p.key, p.imp, p.tids, p.w, np.zeros(p.tids.size, np.int64), 1, k,
                        tol, float(p.pw), pmin)[0])
    if algorithm == "maxscore":
        return K.maxscore(pp, pd, p.imp, p.tids, p.w, ub, pbound, tol, p.prior, p.pw,
                          p.has_prior, p.zarr, index.num_docs, rank, k, th0, stats)
    if algorithm == "bmw":
        return K.bmw(pp, pd, p.imp, p.tids, p.w, ub, pbound, tol, p.prior, p.pw, p.has_prior,
                     p.zarr, index.num_docs, rank, k, blk_ptr, blk_last, bmax, bmin, K.BLOCK,
                     th0, stats)
    raise ValueError(f"algorithm: expected one of {', '.join(ALGORITHMS)}, got {algorithm!r}")


def retrieve(index, query_terms, k: int = 1000, model: str = "bm25",
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
    model : {"bm25", "ql"}
    algorithm : {"exhaustive", "maxscore", "bmw"}
        Rank-safe: all three return the same documents, scores and order.
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
        Model parameters (bm25: k1, b, idf, doclen; ql: mu).

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
        if rho is not None:
            d, s = bandsafe.band_safe(index, p, k, rho, stats, band_method, algorithm)
        else:
            d, s = bandsafe.anytime(index, p, k, int(budget), stats)
    else:
        d, s = run_plan(index, p, k, algorithm, stats)
    return d, s.astype(np.float64)


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
    qid = np.repeat(np.arange(nq, dtype=np.int64), lens)
    keep = tids >= 0
    V = max(int(index.vocab_size), 1)
    key = qid[keep] * V + tids[keep]
    uniq, first, counts = np.unique(key, return_index=True, return_counts=True)
    o = np.argsort(first)            # first occurrences are distinct
    uniq = uniq[o]
    q_ptr = np.zeros(nq + 1, np.int64)
    np.cumsum(np.bincount(uniq // V, minlength=nq), out=q_ptr[1:])
    return q_ptr, uniq % V, counts[o].astype(np.float64)


def retrieve_many(index, queries, k: int = 1000, model: str = "bm25",
                  algorithm: str = "exhaustive", quantize: int | None = None,
                  quantizer: str = "linear", rho=None, budget: int | None = None,
                  stats: np.ndarray | None = None, band_method: str = "exact",
                  **params) -> list[tuple[np.ndarray, np.ndarray]]:
    """:func:`retrieve` for a list of queries (each a list of analysed terms), with the
    exhaustive / maxscore / bmw loop over queries inside one compiled call. Same arguments,
    results and errors as :func:`retrieve`; returns one ``(docids, scores)`` per query."""
    from . import models as M

    k = int(k)
    band = None
    if rho is not None and budget is None and band_method == "exact" and k >= 1:
        from .bandsafe import band_scores

        # the exact top k of the batch, then banded in the same compiled pass over its arrays
        band = band_scores(k, rho)    # validates rho; a prefix serves every shorter ranking
        rho = None
    if rho is not None or budget is not None or k < 1:
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
    _check_params(model, params)
    key, imp, prior = impacts(index, model, None if quantize is None else int(quantize),
                              quantizer, **params)
    integer = quantize is not None
    q_ptr, q_tids, qtf = query_batch(index, queries)
    qid = np.repeat(np.arange(nq), np.diff(q_ptr))
    nqt = np.bincount(qid, weights=qtf, minlength=nq)
    if model == "bm25":
        idf_all = index._cache.get(("idf-all", params.get("idf", "lucene")))
        if idf_all is None:
            idf_all = index._cache[("idf-all", params.get("idf", "lucene"))] = M.idf_weights(
                index, np.arange(index.vocab_size), str(params.get("idf", "lucene")))
        q_w = qtf.astype(np.int64) if integer else idf_all[q_tids] * qtf
        q_pw = np.zeros(nq, np.int64 if integer else np.float64)
    else:
        q_w = qtf.astype(np.int64) if integer else qtf
        q_pw = nqt.astype(np.int64) if integer else nqt
    zarr = np.zeros(1, np.int64 if integer else np.float64)
    has_prior = prior is not None
    if prior is None:
        prior = np.zeros(0, zarr.dtype)
    p = Plan(q_tids, q_w, imp, key, prior, 0, has_prior, zarr)
    pp, pd, _ = _flat(index)
    rank = _rank(index)
    acc, seen, touched = _scratch(index, zarr.dtype)
    if algorithm == "exhaustive":
        q_ub, q_pb, q_tol = np.zeros(0), np.zeros(nq), np.zeros(nq)
        blk = (np.zeros(1, np.int64), np.zeros(0, np.int32), imp[:0], imp[:0])
        q_th0 = np.zeros(nq)
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
        bounds = np.concatenate([[0], np.cumsum(cnt)])
        out.extend((out_d[bounds[i]:bounds[i + 1]], out_s[bounds[i]:bounds[i + 1]])
                   for i in range(b - a))
    return out
