"""Band-safe top-k and anytime (budgeted) retrieval over impact-ordered postings.

:func:`band_safe` returns the exact top-k documents grouped into the geometric bands of Yang,
Moffat & Turpin (2016), ``b_1 = 1, b_{g+1} = ceil(rho b_g)``
(:func:`tiebreak.ranking.bands.band_starts`):
every document is in the band its exact rank falls in, and every document of band ``g`` gets
score ``1/g`` (the convention of :func:`tiebreak.ranking.bands.band_run`), so a band is one tied
group
and is written in docno-descending order. Scoring reads postings in decreasing contribution
order and stops as soon as the band boundaries are certain; the safety argument is in
``docs/precise-enough.md``.

:func:`anytime` reads at most ``budget`` postings in the same order (Lin & Trotman's anytime
ranking, JASS) and ranks by the partial sums; a budget of at least the query's postings is the
exhaustive ranking itself.

References: Z. Yang, A. Moffat and A. Turpin, "How precise does document scoring need to be?",
AIRS 2016; V. N. Anh and A. Moffat, "Pruned query evaluation using pre-computed impacts",
SIGIR 2006; J. Lin and A. Trotman, "Anytime ranking for impact-ordered indexes", ICTIR 2015.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from . import kernels as K

__all__ = ["band_safe", "anytime", "band_scores", "banded", "BAND_METHODS"]

BAND_METHODS = ("exact", "interval")


def _impact_order(index, p) -> np.ndarray:
    """Per-term impact order (offsets by |impact| descending) for the plan's impacts, filled
    lazily for the query's terms and cached on the index."""
    from .topk import _flat

    c = index._cache
    key = ("iorder",) + p.key
    pp, _, _ = _flat(index)
    if key not in c:
        c[key] = (np.empty(int(pp[-1]), np.int32), np.zeros(index.vocab_size, np.bool_))
    iord, done = c[key]
    for t in p.tids:
        if not done[t]:
            K.impact_order(pp, p.imp, int(t), iord)
            done[t] = True
    return iord


def _mask(index):
    c = index._cache
    if "tmask" not in c:
        c["tmask"] = np.zeros(index.num_docs, np.int64)
    return c["tmask"]


def band_scores(n: int, rho) -> np.ndarray:
    """Score ``1/g`` of ranks ``1..n`` (g = band of the rank), float64 (n,), read-only."""
    return _band_scores(int(n), str(rho) if isinstance(rho, float) else rho)


@lru_cache(maxsize=256)
def _band_scores(n: int, rho) -> np.ndarray:
    from ..ranking.bands import band_starts

    starts = band_starts(rho, n)
    g = np.searchsorted(starts, np.arange(1, n + 1), side="right")
    out = 1.0 / g.astype(np.float64)
    out.flags.writeable = False
    return out


def banded(index, docids: np.ndarray, rho) -> tuple[np.ndarray, np.ndarray]:
    """Documents in exact rank order (int32 (n,)) -> the same documents grouped into bands:
    scores ``1/g`` float64 (n,), docno descending inside a band. Raises ValueError on a bad
    ``rho``."""
    from .topk import _rank

    s = band_scores(len(docids), rho)
    return K.sort_result(np.asarray(docids, np.int32), s.copy(), _rank(index))


def band_safe(index, p, k: int, rho, stats: np.ndarray, method: str = "exact",
              algorithm: str = "exhaustive"):
    """Band-safe top ``k`` of plan ``p`` (see the module docstring).

    ``method="exact"``: the exact top k by the rank-safe ``algorithm``, then banded;
    ``method="interval"``: score-interval refinement over impact-ordered postings, stopping as
    soon as every band boundary is certain (``docs/precise-enough.md`` has the argument).

    Returns
    -------
    docids : int32 (<= k,), scores : float64 (<= k,) -- ``1/g`` for band g.

    Raises
    ------
    ValueError
        ``rho`` not a number > 1.
    """
    from ..ranking.bands import band_starts
    from .topk import _bounds, _flat, _rank, _scratch, run_plan

    starts = band_starts(rho, k)           # validates rho (exact rational, >= 1)
    if method not in BAND_METHODS:
        raise ValueError(f"band_method: expected one of {', '.join(BAND_METHODS)}, "
                         f"got {method!r}")
    if algorithm == "saat":
        algorithm = "exhaustive"    # saat's own band-safe traversal: traversal.retrieve
    if method == "exact":
        d, _ = run_plan(index, p, k, algorithm, stats)
        return banded(index, d, rho)
    sizes = np.unique(np.append(starts[1:] - 1, k)).astype(np.int64)
    pp, pd, _ = _flat(index)
    total = int(sum(int(pp[t + 1] - pp[t]) for t in p.tids))
    if total <= k:                          # nothing to save: exact order, then bands
        d, _ = run_plan(index, p, k, "exhaustive", stats)
        return banded(index, d, rho)
    iord = _impact_order(index, p)
    ub, pbound, tol, *_ = _bounds(index, p)
    acc, seen, touched = _scratch(index, p.zarr.dtype)
    mask = _mask(index)
    rank = _rank(index)
    first = max(4 * k, total // 16, 1024)
    st = np.zeros(2, np.int64)
    status, n, order = K.saat(pp, pd, p.imp, iord, p.tids, p.w, p.prior, p.pw, p.has_prior,
                              p.zarr, acc, seen, mask, touched, rank, k, np.int64(total + 1),
                              sizes, tol, pbound, first, st)
    stats[:2] += st
    if status == 1:
        d = touched[order].copy()
        K.reset(acc, seen, touched, n)
        return banded(index, d, rho)
    if p.integer:                          # exhausted: integer sums are exact in any order
        d, _ = K._topk_of(acc, seen, touched, n, rank, k)
        return banded(index, d, rho)
    # exhausted without certificate (ties or near-ties at a boundary): float sums read in impact
    # order may differ from query-order sums in the last bit, so every document within 2 tol of
    # the k-th sum is rescored in query order (exactly as exhaustive scoring adds) and ranked
    sums = acc[touched[:n]].copy()
    K.reset(acc, seen, touched, n)
    thr = np.partition(sums, n - k)[n - k] if n > k else -np.inf
    cand = touched[:n][sums >= thr - 2 * tol].copy()
    exact = K.exact_scores(pp, pd, p.imp, p.tids, p.w, p.prior, p.pw, p.has_prior, p.zarr, cand)
    d, _ = K.sort_result(cand, exact, rank)
    return banded(index, d[:k], rho)


def anytime(index, p, k: int, budget: int, stats: np.ndarray):
    """Top ``k`` after reading at most ``budget`` postings in impact order (float64 scores are
    partial sums; with quantised impacts, integer partial sums).

    Raises
    ------
    ValueError
        ``budget < 1``.
    """
    from .topk import _flat, _rank, _scratch, run_plan

    if budget < 1:
        raise ValueError("budget must be >= 1 posting")
    pp, pd, _ = _flat(index)
    total = int(sum(int(pp[t + 1] - pp[t]) for t in p.tids))
    if budget >= total:
        return run_plan(index, p, k, "exhaustive", stats)
    iord = _impact_order(index, p)
    acc, seen, touched = _scratch(index, p.zarr.dtype)
    mask = _mask(index)
    rank = _rank(index)
    st = np.zeros(2, np.int64)
    _, n, _ = K.saat(pp, pd, p.imp, iord, p.tids, p.w, p.prior, p.pw, p.has_prior, p.zarr, acc,
                     seen, mask, touched, rank, k, np.int64(budget), np.zeros(0, np.int64), 0.0,
                     0.0, np.int64(total + 1), st)
    stats[:2] += st
    return K._topk_of(acc, seen, touched, n, rank, k)
