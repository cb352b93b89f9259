"""The pruned dependency models' checks and baselines (:mod:`tiebreak.retrieval.dependency`):
every candidate's bounds and exact score (:func:`proximity_bounds`, for tests) and the
two-stage SDM / FDM (:func:`mrf_rerank`) the rank-safe pruning
(:mod:`~tiebreak.retrieval.dependency.pruned`) is measured against.
"""

from __future__ import annotations

import numpy as np

from .lkp_family import lkp_bounds
from .mrf import mrf_bounds
from .plan import _empty

__all__ = ["proximity_bounds", "mrf_rerank"]


def mrf_rerank(index, query_terms, k, full: bool, first_k: int = 1000, weights=None,
               mu: float = 2500.0, window=None, method: str = "auto", max_prox_terms=None,
               stats: dict | None = None):
    """Two-stage SDM (``full`` False) / FDM: query likelihood (Dirichlet, the same ``mu``)
    retrieves its top ``first_k`` (:func:`tiebreak.retrieval.models.ql`), and only those are
    scored by the model, through the pruned traversal restricted to them (their scores are the
    full model's, bit for bit; the window statistics are the collection's). Returns the top
    ``min(k, first_k)`` as ``(docids int32, scores float64)``: **not** rank-safe (a document
    outside the first pass's top K is never retrieved), the baseline the rank-safe pruning is
    measured against (``benchmarks/bench_models.py --pruning``). Raises ValueError for a bad
    parameter."""
    from ..models import ql
    from .plan import FDM_WEIGHTS, SDM_WEIGHTS, SDM_WINDOW

    if weights is None:
        weights = FDM_WEIGHTS if full else SDM_WEIGHTS
    if window is None and not full:
        window = SDM_WINDOW
    if max_prox_terms is None and full:
        max_prox_terms = 12
    first, _ = ql(index, query_terms, int(first_k), mu=mu)
    if len(first) == 0:
        return _empty()
    mask = index._cache.get("rerank-mask")
    if mask is None:
        mask = index._cache["rerank-mask"] = np.zeros(int(index.num_docs), np.uint8)
    mask[first] = 1
    try:
        return mrf_bounds(index, query_terms, k, full, weights, mu, window, method,
                          max_prox_terms, stats, only=mask)
    finally:
        mask[first] = 0


def proximity_bounds(model: str, index, query_terms, **params):
    """Every candidate of one query with its bounds and exact score, all scored (no pruning):
    ``(docids int32, lower bounds, upper bounds, exact scores)`` (float64), in no particular
    order; empty arrays when nothing is retrieved. ``model``: sdm, fdm, lkp, lkpf or l2p;
    ``params`` as for the model (not ``k`` or ``algorithm``). For tests: the upper bound is
    never below the exact score, the lower bound never above it.

    Raises
    ------
    ValueError
        An unknown model or a bad parameter.
    """
    import inspect

    from . import lkp_family, mrf

    if model not in ("sdm", "fdm", "lkp", "lkpf", "l2p"):
        raise ValueError(f"proximity bounds exist for sdm, fdm, lkp, lkpf and l2p, not {model!r}")
    fn = getattr(mrf if model in ("sdm", "fdm") else lkp_family, model)
    ba = inspect.signature(fn).bind(index, query_terms, 1, **params)
    ba.apply_defaults()
    a = ba.arguments
    if model in ("sdm", "fdm"):
        out = mrf_bounds(index, query_terms, 1, model == "fdm", a["weights"], a["mu"],
                         a.get("window"), a["method"], a["max_prox_terms"], every=True)
    else:
        out = lkp_bounds(index, query_terms, 1, model, a["lam"], a["k1"], a["b"], a["method"],
                         a["max_prox_terms"], every=True)
    if out is None:
        e = np.zeros(0)
        return np.zeros(0, np.int32), e, e, e
    return out[2], out[3], out[4], out[5]
