"""The predicates that test a paper's claim on computed values (``tiebreak reproduce``).

Every ``substitute-*`` cell of :mod:`tiebreak.studies.reproduce` takes its verdict from one of
these functions applied to the values the item computed, with the threshold taken from the
paper's claim; none returns a constant, and ``tests/test_reproduce_claims.py`` perturbs the
input of each and asserts that the outcome changes. The sampling intervals say how far a
substitute's statistic may be from the paper's before "similar" fails: a Wilson score interval
for a proportion of systems, a percentile bootstrap over runs for a pooled ratio.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np


def decreasing(xs: Sequence[float], slack: float = 0.0, strict: bool = False) -> bool:
    """True when every step of ``xs`` falls (rises by at most ``slack``; ``strict``: falls by
    more than 0). Fewer than two values: ValueError."""
    d = np.diff(np.asarray(xs, dtype=float))
    if d.size == 0:
        raise ValueError("a trend needs at least two values")
    return bool(np.all(d < 0)) if strict else bool(np.all(d <= slack + 1e-12))


def increasing(xs: Sequence[float], slack: float = 0.0, strict: bool = False) -> bool:
    """True when every step of ``xs`` rises (see :func:`decreasing`)."""
    return decreasing([-float(x) for x in xs], slack, strict)


def is_max(values: Mapping[str, float], key: str) -> bool:
    """True when ``values[key]`` is strictly the largest value."""
    return all(values[key] > v for k, v in values.items() if k != key)


def is_min(values: Mapping[str, float], key: str) -> bool:
    """True when ``values[key]`` is strictly the smallest value."""
    return all(values[key] < v for k, v in values.items() if k != key)


def balanced(a: float, b: float, max_ratio: float) -> bool:
    """True when both shares are positive and the larger is at most ``max_ratio`` times the
    smaller ("nearly as many gain as lose")."""
    lo, hi = sorted((float(a), float(b)))
    return lo > 0 and hi <= max_ratio * lo


def wilson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of the proportion ``k / n`` (statsmodels), as fractions."""
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(k, n, alpha=1 - level, method="wilson")
    return float(lo), float(hi)


def boot_ratio(num: Sequence[float], den: Sequence[float], level: float = 0.95,
               reps: int = 4000, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of ``sum(num) / sum(den)`` resampling the units (runs)."""
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    if num.shape != den.shape or num.size < 2:
        raise ValueError("boot_ratio needs two equal-length vectors of at least two units")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, num.size, size=(reps, num.size))
    r = num[idx].sum(1) / den[idx].sum(1)
    a = (1 - level) / 2
    return float(np.quantile(r, a)), float(np.quantile(r, 1 - a))


def inside(x: float, interval: tuple[float, float]) -> bool:
    """True when ``lo <= x <= hi``."""
    return interval[0] <= x <= interval[1]
