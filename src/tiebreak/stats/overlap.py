"""Rank-biased overlap (RBO) between two rankings: the base (prefix) score, the lower bound and
residual, and the extrapolated score, with ties.

Reference: W. Webber, A. Moffat, J. Zobel. A similarity measure for indefinite rankings. ACM
TOIS 28(4), 2010. Equation numbers below are that paper's.

With X_d the overlap of the two depth-d prefixes and A_d their agreement,
``RBO = (1 - p) sum_{d>=1} p^(d-1) A_d``. Two rankings S (length s) and L (length l, s <= l)
are known only to their ends:

* ``prefix`` (the base score at depth k = min(s, l, k); what the ``rbo`` package's
  ``RankingSimilarity.rbo`` returns): ``(1 - p) sum_{d<=k} p^(d-1) A_d``.
* ``min`` (Eq. 11, and its uneven-length form): assume no item beyond the known prefixes ever
  matches; ``max`` assumes every unseen item matches as early as it can
  (X_d <= min(d, X_seen(d) + (d - s)+ + (d - l)+)); ``res = max - min`` (Eq. 13/30): the true
  RBO of any continuation of the two lists lies in ``[min, min + res]``.
* ``ext`` (Eq. 32; Eq. 23 for even lengths): agreement extrapolated beyond the lists at its
  last value (the short list's unseen part at rate X_s / s). The ``rbo`` package's ``rbo_ext``.

Ties (Webber et al. 2010, Section 4.3, Eq. 28): pass ``groups`` (a tie-group label per item,
equal for items with equal score); a tied group enters the prefix whole at the depth of its
first member, so a prefix can hold more than d items, and ``A_d = 2 X_d / (|S:d| + |L:d|)``,
which is X_d / d without ties. (Which depth a tied group enters at is our reading of the paper;
Corsi & Urbano, SIGIR 2024, discuss alternatives.)

Everything is vectorised over depths: O((s + l) log(s + l)) per pair.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["RBO", "rbo", "rbo_at"]


@dataclass(frozen=True)
class RBO:
    """RBO of two rankings (see the module docstring): ``prefix``, ``min``, ``res``, ``ext``,
    all floats in [0, 1]; ``max = min + res``."""

    prefix: float
    min: float
    res: float
    ext: float

    @property
    def max(self) -> float:
        return self.min + self.res


def _entry_depths(items: Sequence[Hashable], groups) -> np.ndarray:
    """Depth at which each item enters the prefix (its rank; a tied group's first rank)."""
    n = len(items)
    d = np.arange(1, n + 1)
    if groups is None:
        return d
    g = list(groups)
    if len(g) != n:
        raise ValueError(f"groups has {len(g)} labels for {n} items")
    new = np.r_[True, [g[i] != g[i - 1] for i in range(1, n)]] if n else np.zeros(0, bool)
    first = np.flatnonzero(new)
    return first[np.cumsum(new) - 1] + 1


def _check(items, name):
    if len(set(items)) != len(items):
        raise ValueError(f"{name} lists an item twice")


def _log_tail(p: float, m: int) -> float:
    """sum_{d>m} p^d / d."""
    d = np.arange(1, m + 1, dtype=np.float64)
    return float(-np.log1p(-p) - np.sum(p ** d / d))


def rbo(S: Sequence[Hashable], T: Sequence[Hashable], p: float = 0.9, k: int | None = None,
        S_groups=None, T_groups=None) -> RBO:
    """Rank-biased overlap of rankings ``S`` and ``T`` (best first).

    Parameters
    ----------
    S, T : sequences of hashable items, without repeats
    p : float in (0, 1)
        Persistence.
    k : int, optional
        Depth of the ``prefix`` score (default: the shorter length).
    S_groups, T_groups : sequences, optional
        Tie-group label of each item (consecutive equal labels are tied).

    Returns
    -------
    RBO

    Raises
    ------
    ValueError
        p outside (0, 1), an item listed twice, or group labels of the wrong length.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must lie in (0, 1), got {p}")
    S, T = list(S), list(T)
    _check(S, "S")
    _check(T, "T")
    if not S and not T:
        return RBO(1.0, 1.0, 0.0, 1.0)
    if not S or not T:
        return _one_empty()
    s, l_, X, A = _agreement(S, T, S_groups, T_groups)
    D = np.arange(1, l_ + 1, dtype=np.float64)
    w = (1.0 - p) * p ** (D - 1.0)
    kk = s if k is None else min(s, int(k))
    prefix = float(np.sum(w[:kk] * A[:kk]))

    Xs, Xl = X[s - 1], X[l_ - 1]
    base = float(np.sum(w * A))
    # lower bound: nothing beyond the lists matches (A_d = X_l / d for d > l)
    lo = base + (1.0 - p) / p * Xl * _log_tail(p, l_)
    # upper bound: unseen items match as early as possible, computed to a depth where
    # X_max = d, then the closed tail sum_{d>H} (1 - X_l/d) p^(d-1) (1-p)
    H = 2 * l_ + 2
    Dh = np.arange(1, H + 1, dtype=np.float64)
    Xseen = np.r_[X, np.full(H - l_, Xl)]
    Xmax = np.minimum(Dh, Xseen + np.maximum(Dh - s, 0) + np.maximum(Dh - l_, 0))
    Xmin = np.r_[X, np.full(H - l_, Xl)]
    gap = (Xmax - Xmin) / Dh
    res = float(np.sum((1.0 - p) * p ** (Dh - 1.0) * gap))
    res += p ** H - (1.0 - p) / p * Xl * _log_tail(p, H)
    # extrapolation (Eq. 32)
    d2 = D[s:]
    ext = (base + float(np.sum((1.0 - p) * p ** (d2 - 1.0) * Xs * (d2 - s) / (s * d2)))
           + ((Xl - Xs) / l_ + Xs / s) * p ** l_)
    clip = lambda v: float(min(max(v, 0.0), 1.0))  # noqa: E731
    return RBO(clip(prefix), clip(lo), clip(res), clip(ext))


def _agreement(S, T, S_groups, T_groups):
    """``(s, l, X, A)``: the shorter and longer lengths, and the overlap X_d and agreement A_d
    (float64, shape (l,)) at depths d = 1..l (the ``groups`` rule of the module docstring)."""
    eS = _entry_depths(S, S_groups)
    eT = _entry_depths(T, T_groups)
    if len(S) > len(T):
        S, T, eS, eT = T, S, eT, eS
    s, l_ = len(S), len(T)
    pos_T = {x: i for i, x in enumerate(T)}
    # depth at which each common item is in both prefixes
    both = np.array([max(eS[i], eT[pos_T[x]]) for i, x in enumerate(S) if x in pos_T],
                    dtype=np.int64)
    D = np.arange(1, l_ + 1, dtype=np.float64)
    X = np.cumsum(np.bincount(both, minlength=l_ + 1)[1:l_ + 1]).astype(np.float64)
    nS = np.minimum(np.cumsum(np.bincount(eS, minlength=l_ + 1)[1:l_ + 1]), s)
    nT = np.cumsum(np.bincount(eT, minlength=l_ + 1)[1:l_ + 1])
    # agreement: tie-aware up to s; beyond s the short list is taken to go on with new items
    A = np.where(D <= s, 2.0 * X / np.maximum(nS + nT, 1), X / D)
    return s, l_, X, A


def rbo_at(S: Sequence[Hashable], T: Sequence[Hashable], p: float = 0.95, depth: int = 1000,
           S_groups=None, T_groups=None) -> float:
    """RBO truncated at ``depth`` and normalised by its largest value: with A_d the agreement
    of :func:`rbo` (ties as there), ``sum_{d<=depth} p^(d-1) A_d / sum_{d<=depth} p^(d-1)``,
    so identical lists of at least ``depth`` items give 1. Beyond the end of a list its prefix
    stops growing (A_d = X_d / d). This is the RBO of Breuer et al., "How to measure the
    reproducibility of system-oriented IR experiments" (SIGIR 2020) as their repro_eval
    computes it (after Clarke, Vtyurina & Smucker, "Assessing top-k preferences", TOIS 2021).

    Parameters: ``S``, ``T``: sequences of hashable items without repeats (best first); ``p``
    in (0, 1); ``depth`` >= 1; ``S_groups``/``T_groups``: tie-group labels as in :func:`rbo`.
    Returns a float in [0, 1]. Raises ValueError on bad input.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must lie in (0, 1), got {p}")
    if int(depth) < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    S, T = list(S), list(T)
    _check(S, "S")
    _check(T, "T")
    depth = int(depth)
    w = p ** np.arange(depth, dtype=np.float64)
    if not S or not T:
        return 1.0 if not S and not T else 0.0
    _, l_, X, A = _agreement(S, T, S_groups, T_groups)
    if l_ < depth:
        A = np.r_[A, X[-1] / np.arange(l_ + 1, depth + 1, dtype=np.float64)]
    return float(np.sum(w * A[:depth]) / np.sum(w))


def _one_empty() -> RBO:
    """One list empty: nothing is known to overlap (the ``rbo`` package returns 0); any
    continuation is possible, so the residual is 1."""
    return RBO(0.0, 0.0, 1.0, 0.0)
