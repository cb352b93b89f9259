"""The top-k core of the traversal layer: a query :class:`Plan` (term ids, weights, impacts,
prior) and :func:`run_plan`, which scores it exhaustively (term at a time) or with the rank-safe
MaxScore / block-max WAND kernels of :mod:`tiebreak.retrieval.kernels`; the per-term and
block-max bounds they use are computed once per impact array and cached on the index.

:mod:`tiebreak.retrieval.traversal` (one-query and batch entry points) and
:mod:`tiebreak.retrieval.bandsafe` (band-safe and anytime retrieval) both build on this module;
it imports neither, nor any model. References as in :mod:`tiebreak.retrieval.traversal`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import kernels as K
from .weights import _flat

__all__ = ["ALGORITHMS", "Plan", "run_plan", "bound_arrays", "KTH", "auto_algorithm"]

#: rank-safe algorithms; "saat" is impact-ordered score-at-a-time (:mod:`.saat`), dispatched by
#: :func:`tiebreak.retrieval.traversal.retrieve` (saat builds on this module, not the reverse)
ALGORITHMS = ("exhaustive", "maxscore", "bmw", "saat")

#: ``algorithm="auto"`` (the default of :func:`tiebreak.retrieval.traversal.retrieve_many`, so of
#: ``tiebreak search``): MaxScore for a float (unquantised) bm25 or vsm top k of at most this
#: many documents, exhaustive otherwise. Fitted on ``benchmarks/bench_pruning.py
#: --skip-vaswani --zipf-docs 300000 --queries 10000 --frequency-drawn --algorithms-only``
#: (BM25, 10,000 queries of 2-5 terms drawn by collection frequency, one core): per query,
#: k = 10: exhaustive 0.70 ms CPU, MaxScore 0.24 (0.34x), BMW 0.56 (0.81x), saat 1.73 (2.47x);
#: k = 100: exhaustive 0.69 ms, MaxScore 0.55 (0.81x), BMW 0.99 (1.44x), saat 2.18 (3.18x);
#: k = 1000: exhaustive 1.14 ms, MaxScore 1.51 (1.33x), BMW 2.42 (2.13x), saat 6.24 (5.49x)
#: (docs/performance.md). k between 100 and 1000 was not measured: the rule keeps MaxScore to
#: the largest k where it was measured faster. Models with a document prior (ql) and quantised
#: impacts were not measured and stay exhaustive.
AUTO_MAXSCORE_K = 100
#: the term scorers the ``auto`` rule was measured on
AUTO_MODELS = ("bm25", "vsm")


def auto_algorithm(k: int, model: str, quantize=None) -> str:
    """The algorithm ``"auto"`` stands for (:data:`AUTO_MAXSCORE_K`): ``"maxscore"`` or
    ``"exhaustive"``; every choice returns the same documents, scores and order."""
    if quantize is None and model in AUTO_MODELS and 1 <= int(k) <= AUTO_MAXSCORE_K:
        return "maxscore"
    return "exhaustive"


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
    """(acc (N,), seen (N,), touched (N + 1,)) scratch arrays kept on the index: ``touched``
    has one slot more than there are documents, because :func:`tiebreak.retrieval.kernels.taat`
    writes each posting's document to the next slot before it knows whether it is new."""
    c = index._cache
    key = ("tscratch", np.dtype(dtype).str)
    if key not in c:
        N = index.num_docs
        c[key] = (np.zeros(N, dtype), np.zeros(N, np.bool_), np.empty(N + 1, np.int32))
    return c[key]


def _tscores(index, dtype):
    """Scratch scores (N + 1,) of ``dtype`` for :func:`tiebreak.retrieval.kernels.taat`, kept
    on the index."""
    key = ("tscores", np.dtype(dtype).str)
    if key not in index._cache:
        index._cache[key] = np.empty(index.num_docs + 1, dtype)
    return index._cache[key]


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
    if algorithm == "exhaustive" and (k > KTH[-1] or p.has_prior):
        acc, seen, touched = _scratch(index, p.zarr.dtype)
        # every argument given (no starting threshold): one compiled signature per dtype
        return K.taat(pp, pd, p.imp, p.tids, p.w, p.prior, p.pw, p.has_prior, acc, seen, touched,
                      rank, k, stats, -np.inf, _tscores(index, p.zarr.dtype))
    ub, pbound, tol, blk_ptr, blk_last, bmax, bmin = _bounds(index, p)
    pmin = float(index._cache[("priormax",) + p.key][1]) if p.has_prior else 0.0
    th0 = float(_theta0(index, p.key, p.imp, p.tids, p.w, np.zeros(p.tids.size, np.int64), 1, k,
                        tol, float(p.pw), pmin)[0])
    if algorithm == "exhaustive":
        acc, seen, touched = _scratch(index, p.zarr.dtype)
        return K.taat(pp, pd, p.imp, p.tids, p.w, p.prior, p.pw, p.has_prior, acc, seen, touched,
                      rank, k, stats, th0, _tscores(index, p.zarr.dtype))
    if algorithm == "maxscore":
        return K.maxscore(pp, pd, p.imp, p.tids, p.w, ub, pbound, tol, p.prior, p.pw,
                          p.has_prior, p.zarr, index.num_docs, rank, k, th0, stats)
    if algorithm == "bmw":
        return K.bmw(pp, pd, p.imp, p.tids, p.w, ub, pbound, tol, p.prior, p.pw, p.has_prior,
                     p.zarr, index.num_docs, rank, k, blk_ptr, blk_last, bmax, bmin, K.BLOCK,
                     th0, stats)
    raise ValueError(f"algorithm: expected one of {', '.join(ALGORITHMS)}, got {algorithm!r}")


