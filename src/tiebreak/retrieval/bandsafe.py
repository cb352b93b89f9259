"""Band-safe top-k and anytime (budgeted) retrieval over impact-ordered postings.

:func:`band_safe` returns the exact top-k documents grouped into the geometric bands of Yang,
Moffat & Turpin (2016), ``b_1 = 1, b_{g+1} = ceil(rho b_g)``
(:func:`tiebreak.ranking.bands.band_starts`):
every document is in the band its exact rank falls in, and every document of band ``g`` gets
score ``1/g`` (the convention of :func:`tiebreak.ranking.bands.band_run`), so a band is one tied
group
and is written in docno-descending order. Scoring reads postings in decreasing contribution
order and stops as soon as the band boundaries are certain; the safety argument is in
``docs/precise-enough.md``. The traversal is the score-at-a-time kernel of
:mod:`tiebreak.retrieval.saat` (its ``INTERVAL`` and ``ANYTIME`` modes).

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
    from . import saat as S
    from .topk import _flat, run_plan

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
    pp, _, _ = _flat(index)
    total = int(sum(int(pp[t + 1] - pp[t]) for t in p.tids))
    if total <= k:                          # nothing to save: exact order, then bands
        d, _ = run_plan(index, p, k, "exhaustive", stats)
        return banded(index, d, rho)
    first = max(4 * k, total // 16, 1024)
    status, n, order, acc, seen, touched, tol = S.run(index, p, k, S.INTERVAL, sizes, stats,
                                                      first_check=first)
    if status == 1:
        d = touched[order].copy()
        K.reset(acc, seen, touched, n)
        return banded(index, d, rho)
    # exhausted without certificate (ties or near-ties at a boundary): integer sums are exact;
    # float sums read in impact order are rescored in query order near the k-th
    d, _ = S.finish_exhausted(index, p, k, n, acc, seen, touched, tol)
    return banded(index, d, rho)


def anytime(index, p, k: int, budget: int, stats: np.ndarray):
    """Top ``k`` after reading at most ``budget`` postings in impact order (float64 scores are
    partial sums; with quantised impacts, integer partial sums).

    Raises
    ------
    ValueError
        ``budget < 1``.
    """
    from . import saat as S
    from .topk import _flat, _rank, run_plan

    if budget < 1:
        raise ValueError("budget must be >= 1 posting")
    pp, _, _ = _flat(index)
    total = int(sum(int(pp[t + 1] - pp[t]) for t in p.tids))
    if budget >= total:
        return run_plan(index, p, k, "exhaustive", stats)
    _, n, _, acc, seen, touched, _ = S.run(index, p, k, S.ANYTIME, np.zeros(0, np.int64), stats,
                                           budget=budget)
    return K._topk_of(acc, seen, touched, n, _rank(index), k)
