"""Multiple-comparison corrections of a family of p-values: Holm (1979), Benjamini & Hochberg
(1995), Bonferroni, and :func:`adjust` that picks one by name. Arrays of any shape, values in
[0, 1]; ValueError on NaN or values outside [0, 1]."""

from __future__ import annotations

import numpy as np

ADJUSTMENTS = ("none", "holm", "bh", "bonferroni")


def _pvalues(p, name: str = "p-values") -> np.ndarray:
    p = np.asarray(p, dtype=np.float64)
    if not np.all(np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError(f"{name} must be finite and in [0, 1]")
    return p


def holm(pvals) -> np.ndarray:
    """Holm (1979) step-down adjusted p-values, controlling the family-wise error rate.

    With the m p-values sorted ascending, ``p~_(k) = max_{j <= k} min(1, (m - j + 1) p_(j))``.
    ``pvals``: array of any shape with values in [0, 1]; returns the adjusted p-values as a float
    array of the same shape, in the original order. Raises ValueError for NaN or values outside
    [0, 1].
    """
    p = _pvalues(pvals)
    flat = p.ravel()
    m = flat.size
    order = np.argsort(flat, kind="stable")
    adj = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * flat[order]))
    out = np.empty(m)
    out[order] = adj
    return out.reshape(p.shape)


def _bh(flat: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg adjustment of a 1-D array (fallback for scipy < 1.11)."""
    m = flat.size
    order = np.argsort(flat, kind="stable")
    q = flat[order] * m / np.arange(1, m + 1)
    q = np.minimum(1.0, np.minimum.accumulate(q[::-1])[::-1])
    out = np.empty(m)
    out[order] = q
    return out


def benjamini_hochberg(pvals) -> np.ndarray:
    """Benjamini & Hochberg (1995) adjusted p-values, controlling the false discovery rate.

    With the m p-values sorted ascending, ``q_(k) = min_{j >= k} min(1, m p_(j) / j)``; a
    hypothesis is rejected at FDR level alpha when ``q < alpha`` (or ``<=``, as in the paper).
    Uses ``scipy.stats.false_discovery_control(method="bh")`` (scipy >= 1.11), else the same
    formula in numpy. ``pvals``: array of any shape with values in [0, 1]; returns a float array
    of the same shape in the original order. Raises ValueError for NaN or values outside [0, 1].
    """
    p = _pvalues(pvals)
    flat = p.ravel()
    if flat.size == 0:
        return np.zeros(p.shape)
    from scipy import stats as st

    if hasattr(st, "false_discovery_control"):
        q = np.asarray(st.false_discovery_control(flat, method="bh"), dtype=np.float64)
    else:  # pragma: no cover - scipy 1.10
        q = _bh(flat)
    return q.reshape(p.shape)


def bonferroni(pvals) -> np.ndarray:
    """Bonferroni adjusted p-values ``min(1, m p)`` over the m p-values (family-wise error rate).

    ``pvals``: array of any shape with values in [0, 1]; returns a float array of the same
    shape. Raises ValueError for NaN or values outside [0, 1].
    """
    p = _pvalues(pvals)
    return np.minimum(1.0, p * p.size)


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
