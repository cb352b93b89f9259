"""Stability of a measure over topic sets: Buckley & Voorhees' error rate with fuzziness and
Sanderson & Zobel's swap rate over disjoint topic sets.

C. Buckley, E. M. Voorhees. Evaluating evaluation measure stability. SIGIR 2000.
M. Sanderson, J. Zobel. Information retrieval system evaluation: effort, sensitivity, and
reliability. SIGIR 2005.
X. Lu. Efficient and effective retrieval using higher-order proximity models. PhD thesis, RMIT
University, 2018, Eq. 2.45.

**Error rate** (Eq. 2.45). ``n_sets`` times, ``size`` topics are drawn without replacement and
each system's mean is taken over them. For each pair of systems the draw decides ``>``, ``<``,
or ``=`` when the means differ by less than the fuzziness (``fuzziness * max(M_i, M_j)``, 5 %
in Buckley & Voorhees, or an absolute difference with ``relative=False``). Then

    error rate = sum_pairs min(|>|, |<|) / sum_pairs (|>| + |<| + |=|)

and the tie rate is ``sum |=| / sum (|>| + |<| + |=|)``.

**Swap rate** (Sanderson & Zobel). ``n_sets`` times, the topics are split into two disjoint
sets of ``size`` topics; a pair whose difference on the first set is at least the fuzziness
(or, with ``test="t"``, significant by the paired t-test at ``alpha`` on the first set:
Sanderson & Zobel's replacement of the fuzziness by a significance level) is a decision, and a
swap when the second set orders the pair the other way. Swap rate = swaps / decisions.

A score matrix is float64 (n_systems, n_topics); the functions raise ValueError on bad input.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["error_rate", "swap_rate", "ErrorRate", "SwapRate"]


@dataclass(frozen=True)
class ErrorRate:
    error_rate: float
    tie_rate: float
    n_sets: int
    size: int


@dataclass(frozen=True)
class SwapRate:
    swap_rate: float
    decisions: int
    swaps: int
    n_sets: int
    size: int


def _check(X, size: int, two: bool) -> np.ndarray:
    X = np.asarray(X, np.float64)
    if X.ndim != 2 or X.shape[0] < 2 or not np.all(np.isfinite(X)):
        raise ValueError(f"scores must be a finite (n_systems >= 2, n_topics) matrix, got "
                         f"shape {X.shape}")
    need = 2 * size if two else size
    if size < 1 or need > X.shape[1]:
        raise ValueError(f"size {size} needs {need} topics, have {X.shape[1]}")
    return X


def _decide(mi, mj, fuzziness, relative):
    d = mi - mj
    f = fuzziness * np.maximum(np.abs(mi), np.abs(mj)) if relative else fuzziness
    return np.where(np.abs(d) < f, 0, np.sign(d)).astype(int)


def error_rate(X, size: int, n_sets: int = 50, fuzziness: float = 0.05,
               relative: bool = True, seed=0) -> ErrorRate:
    """Buckley & Voorhees (2000) error rate over ``n_sets`` random topic sets of ``size``."""
    X = _check(X, size, False)
    rng = np.random.default_rng(seed)
    k, t = X.shape
    ii, jj = np.triu_indices(k, 1)
    gt = np.zeros(len(ii))
    lt = np.zeros(len(ii))
    eq = np.zeros(len(ii))
    for _ in range(n_sets):
        m = X[:, rng.choice(t, size, replace=False)].mean(axis=1)
        d = _decide(m[ii], m[jj], fuzziness, relative)
        gt += d > 0
        lt += d < 0
        eq += d == 0
    total = (gt + lt + eq).sum()
    return ErrorRate(float(np.minimum(gt, lt).sum() / total), float(eq.sum() / total),
                     n_sets, size)


def swap_rate(X, size: int, n_sets: int = 50, fuzziness: float = 0.05,
              relative: bool = True, test: str | None = None, alpha: float = 0.05,
              seed=0) -> SwapRate:
    """Sanderson & Zobel (2005) swap rate over ``n_sets`` splits into two disjoint topic sets
    of ``size``; ``test="t"`` decides by the paired t-test at ``alpha`` instead of the
    fuzziness."""
    from ..stats.significance import paired_pvalues_rows

    X = _check(X, size, True)
    if test == "t" and size < 2:
        raise ValueError("the t-test variant needs at least 2 topics per set")
    rng = np.random.default_rng(seed)
    k, t = X.shape
    ii, jj = np.triu_indices(k, 1)
    decisions = swaps = 0
    for _ in range(n_sets):
        perm = rng.permutation(t)
        a, b = perm[:size], perm[size:2 * size]
        ma, mb = X[:, a].mean(axis=1), X[:, b].mean(axis=1)
        if test == "t":
            p = paired_pvalues_rows(X[ii][:, a] - X[jj][:, a], "t")
            da = np.where(p < alpha, np.sign(ma[ii] - ma[jj]), 0)
        elif test is None:
            da = _decide(ma[ii], ma[jj], fuzziness, relative)
        else:
            raise ValueError(f"test must be None or 't', got {test!r}")
        db = np.sign(mb[ii] - mb[jj])
        decided = da != 0
        decisions += int(decided.sum())
        swaps += int((decided & (db == -da)).sum())
    return SwapRate(swaps / decisions if decisions else float("nan"), decisions, swaps,
                    n_sets, size)
