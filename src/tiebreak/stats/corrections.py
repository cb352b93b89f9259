"""Multiple-comparison corrections of a family of p-values: Holm (1979), Benjamini & Hochberg
(1995), Bonferroni, and :func:`adjust` that picks one by name. Arrays of any shape, values in
[0, 1]; ValueError on NaN or values outside [0, 1]. The adjustments are statsmodels'
``multipletests`` (imported on first use)."""

from __future__ import annotations

import numpy as np

ADJUSTMENTS = ("none", "holm", "bh", "bonferroni")


def _pvalues(p, name: str = "p-values") -> np.ndarray:
    p = np.asarray(p, dtype=np.float64)
    if not np.all(np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError(f"{name} must be finite and in [0, 1]")
    return p


def _multipletests(pvals, method: str) -> np.ndarray:
    """``statsmodels.stats.multitest.multipletests(p, method=method)``'s adjusted p-values for
    an array of any shape (flattened as one family), in the original order and shape."""
    p = _pvalues(pvals)
    flat = p.ravel()
    if flat.size == 0:
        return np.zeros(p.shape)
    import gc

    from statsmodels.stats.multitest import multipletests

    # statsmodels' Holm branch calls gc.collect(), a full collection that takes 0.2 s in a
    # process holding numba and statsmodels; with the objects alive before the call frozen
    # (moved aside, not freed, and back at once after) it scans only what the call made.
    gc.freeze()
    try:
        adjusted = multipletests(flat, method=method)[1]
    finally:
        gc.unfreeze()
    return np.asarray(adjusted, dtype=np.float64).reshape(p.shape)


def holm(pvals) -> np.ndarray:
    """Holm (1979) step-down adjusted p-values, controlling the family-wise error rate.

    With the m p-values sorted ascending, ``p~_(k) = max_{j <= k} min(1, (m - j + 1) p_(j))``
    (statsmodels' ``multipletests(method="holm")``). ``pvals``: array of any shape with values
    in [0, 1]; returns the adjusted p-values as a float array of the same shape, in the original
    order. Raises ValueError for NaN or values outside [0, 1].

    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian
    Journal of Statistics 6(2), 65-70.
    """
    return _multipletests(pvals, "holm")


def benjamini_hochberg(pvals) -> np.ndarray:
    """Benjamini & Hochberg (1995) adjusted p-values, controlling the false discovery rate.

    With the m p-values sorted ascending, ``q_(k) = min_{j >= k} min(1, m p_(j) / j)``
    (statsmodels' ``multipletests(method="fdr_bh")``); a hypothesis is rejected at FDR level
    alpha when ``q < alpha`` (or ``<=``, as in the paper). ``pvals``: array of any shape with
    values in [0, 1]; returns a float array of the same shape in the original order. Raises
    ValueError for NaN or values outside [0, 1].

    Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate: a practical and
    powerful approach to multiple testing. JRSS B 57(1), 289-300.
    """
    return _multipletests(pvals, "fdr_bh")


def bonferroni(pvals) -> np.ndarray:
    """Bonferroni adjusted p-values ``min(1, m p)`` over the m p-values (family-wise error rate;
    statsmodels' ``multipletests(method="bonferroni")``).

    ``pvals``: array of any shape with values in [0, 1]; returns a float array of the same
    shape. Raises ValueError for NaN or values outside [0, 1].
    """
    return _multipletests(pvals, "bonferroni")


def adjust(pvals, method: str | None) -> np.ndarray:
    """Adjust a family of p-values: ``method`` is ``"none"`` (or None), ``"holm"`` (:func:`holm`),
    ``"bh"`` (:func:`benjamini_hochberg`) or ``"bonferroni"`` (:func:`bonferroni`).

    NaN entries (comparisons that could not be tested) are left out of the family and stay NaN.
    Returns a float array of the shape of ``pvals``. Raises ValueError for an unknown method or
    p-values outside [0, 1].
    """
    method = "none" if method is None else method
    if method not in ADJUSTMENTS:
        raise ValueError(f"correction must be one of {ADJUSTMENTS}, got {method!r}")
    p = np.asarray(pvals, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if not ok.any():
        return out
    f = {"none": _pvalues, "holm": holm, "bh": benjamini_hochberg, "bonferroni": bonferroni}
    out[ok] = f[method](p[ok])
    return out
