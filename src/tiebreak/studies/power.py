"""Topic set size design and achieved power for the paired t-test (Sakai 2016), from per-topic
scores.

T. Sakai. Topic set size design. Information Retrieval Journal 19(3), 2016, pp. 256-283.

The paired t-test of two systems over n topics, two-sided at level alpha, detects a true mean
difference ``min_diff`` with probability (power)

    power(n) = P(|T'| >= t_{alpha/2; n-1}),  T' ~ noncentral t(n - 1, sqrt(n) min_diff / sd_d)

where ``sd_d`` is the standard deviation of the per-topic differences. The topic set size is
the smallest n with ``power(n) >= 1 - beta``. Sakai estimates the variance from a past score
matrix (systems x topics) as the residual variance of two-way ANOVA without replication,
``V_E = sum (x_ij - x_i. - x_.j + x..)^2 / ((k - 1)(T - 1))``, and takes ``sd_d^2 = 2 V_E``
(the difference of two systems with independent errors).

Shapes: a score matrix is float64 (n_systems, n_topics); every function raises ValueError on
bad input.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["residual_variance", "paired_power", "topic_set_size", "PowerRow", "power_table"]


def residual_variance(X) -> float:
    """V_E of two-way ANOVA without replication over the score matrix ``X`` (k >= 2 systems,
    T >= 2 topics): the variance left once system and topic effects are removed."""
    X = np.asarray(X, np.float64)
    if X.ndim != 2 or min(X.shape) < 2 or not np.all(np.isfinite(X)):
        raise ValueError(f"scores must be a finite (n_systems >= 2, n_topics >= 2) matrix, "
                         f"got shape {X.shape}")
    r = X - X.mean(axis=1, keepdims=True) - X.mean(axis=0, keepdims=True) + X.mean()
    k, t = X.shape
    return float((r ** 2).sum() / ((k - 1) * (t - 1)))


def paired_power(n: int, min_diff: float, sd_diff: float, alpha: float = 0.05) -> float:
    """Power of the two-sided paired t-test with ``n`` topics to detect ``min_diff`` when the
    per-topic differences have standard deviation ``sd_diff``."""
    from scipy import stats as st

    if n < 2:
        raise ValueError("the paired t-test needs at least 2 topics")
    if not (0 < alpha < 1) or sd_diff <= 0:
        raise ValueError("alpha must be in (0, 1) and sd_diff > 0")
    df = n - 1
    crit = st.t.ppf(1 - alpha / 2, df)
    nc = math.sqrt(n) * abs(min_diff) / sd_diff
    return float(st.nct.sf(crit, df, nc) + st.nct.cdf(-crit, df, nc))


def topic_set_size(min_diff: float, sd_diff: float, alpha: float = 0.05,
                   beta: float = 0.20, max_n: int = 1_000_000) -> int:
    """Smallest number of topics whose paired t-test has power >= 1 - beta for ``min_diff``.
    Starts from the normal approximation ``((z_{alpha/2} + z_beta) sd / min_diff)^2`` and
    walks to the exact noncentral-t answer."""
    from scipy import stats as st

    if min_diff == 0:
        raise ValueError("min_diff must be non-zero")
    if not 0 < beta < 1:
        raise ValueError("beta must be in (0, 1)")
    z = (st.norm.ppf(1 - alpha / 2) + st.norm.ppf(1 - beta)) * sd_diff / abs(min_diff)
    n = max(2, int(z * z))
    while n > 2 and paired_power(n - 1, min_diff, sd_diff, alpha) >= 1 - beta:
        n -= 1
    while paired_power(n, min_diff, sd_diff, alpha) < 1 - beta:
        n += 1
        if n > max_n:
            raise ValueError(f"more than {max_n} topics needed")
    return n


@dataclass(frozen=True)
class PowerRow:
    """One measure under one regime: ``variance`` V_E, ``sd_diff`` sqrt(2 V_E), the topic set
    size for ``min_diff`` and the power achieved with the ``n_topics`` at hand."""

    measure: str
    regime: str
    n_systems: int
    n_topics: int
    variance: float
    sd_diff: float
    min_diff: float
    topic_set_size: int
    achieved_power: float


def power_table(res, min_diff: float, alpha: float = 0.05, beta: float = 0.20,
                regimes=None) -> list[PowerRow]:
    """Per measure and regime of an :class:`~tiebreak.evaluation.EvalResult` (runs x topics, no
    NaN), Sakai's design: the topic set size to detect ``min_diff`` and the achieved power."""
    out = []
    for j, m in enumerate(res.measures):
        for r in regimes or res.regimes:
            X = res.per_topic[:, j, res.regimes.index(r)]
            if np.isnan(X).any():
                raise ValueError("per-topic values contain NaN (evaluate with average='qrels')")
            ve = residual_variance(X)
            sd = math.sqrt(2 * ve)
            if sd == 0:
                n, pw = 2, 1.0
            else:
                n = topic_set_size(min_diff, sd, alpha, beta)
                pw = paired_power(X.shape[1], min_diff, sd, alpha)
            out.append(PowerRow(m, r, X.shape[0], X.shape[1], ve, sd, min_diff, n, pw))
    return out
