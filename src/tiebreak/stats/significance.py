"""Paired significance tests, bootstrap confidence intervals and effect sizes over per-topic
scores (see :mod:`tiebreak.stats` for the conventions).

Size: one module because the paired tests, the family-wise tests and the corrections share the
(systems x topics) matrix conventions and the permutation machinery.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import _pair, _vector
from .corrections import ADJUSTMENTS, _pvalues, adjust, benjamini_hochberg, bonferroni, holm
from .correlation import kendall_tau, tau_ap

__all__ = [
    "PairedTestResult", "BootstrapCI", "paired_t", "wilcoxon", "randomization_test",
    "bootstrap_ci", "kendall_tau", "tau_ap", "discrimination_ratio", "holm",
    "benjamini_hochberg", "bonferroni", "adjust", "bootstrap_test", "paired_pvalues_rows",
    "paired_ci_rows", "effect_size_rows", "all_pairs", "ALTERNATIVES", "TESTS", "CORRECTIONS",
    "ROW_TESTS", "ADJUSTMENTS", "FAMILY_TESTS", "family_pvalues", "tukey_ci",
    "effect_size_ci_rows", "sign_test",
]

ALTERNATIVES = ("two-sided", "greater", "less")
TESTS = ("t", "wilcoxon", "randomization")
CORRECTIONS = (None, "holm", "bh")
ROW_TESTS = ("t", "wilcoxon", "randomization", "bootstrap", "sign")
#: tests over every system at once (the family of all pairs), from the score matrix
FAMILY_TESTS = ("tukey", "tukey-oneway", "randomised-tukey")

_CHUNK = 1 << 22  # elements per block in the randomization test (32 MiB of float64)


@dataclass(frozen=True)
class PairedTestResult:
    """Result of a paired test of ``a`` against ``ratio * b`` over topics.

    ``statistic`` is the test statistic (t for :func:`paired_t`, the Wilcoxon W for
    :func:`wilcoxon`, the mean difference for :func:`randomization_test`); ``pvalue`` is in
    [0, 1]; ``mean_diff`` is ``mean(a - ratio * b)``; ``df`` is the degrees of freedom of the t
    test (``n_topics - 1``) and ``None`` for the other tests.
    """

    statistic: float
    pvalue: float
    mean_diff: float
    df: int | None = None


@dataclass(frozen=True)
class BootstrapCI:
    """Percentile bootstrap confidence interval ``[low, high]`` of ``mean`` at ``level``."""

    low: float
    high: float
    mean: float
    level: float
    n_resamples: int


# ------------------------------------------------------------------------------------- input


def _differences(a, b, ratio: float) -> np.ndarray:
    a, b = _pair(a, b)
    if not np.isfinite(ratio):
        raise ValueError(f"ratio must be finite, got {ratio}")
    return a - float(ratio) * b


def _check_alternative(alternative: str) -> None:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")


def _check_n(n: int) -> int:
    if int(n) != n or n < 1:
        raise ValueError(f"n (number of resamples) must be a positive integer, got {n}")
    return int(n)


# -------------------------------------------------------------------------------- paired tests


def _degenerate_t(mean_diff: np.ndarray, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """t and p for differences with zero variance: no difference -> (0, 1); otherwise t = +-inf
    and p = 0 in the direction of the difference (1 against it), as scipy gives for that case."""
    stat = np.where(mean_diff == 0, 0.0, np.copysign(np.inf, mean_diff))
    if alternative == "two-sided":
        p = np.where(mean_diff == 0, 1.0, 0.0)
    elif alternative == "greater":
        p = np.where(mean_diff > 0, 0.0, 1.0)
    else:
        p = np.where(mean_diff < 0, 0.0, 1.0)
    return stat, p


def _ttest_rows(d: np.ndarray, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """Paired t over the last axis of d (shape (P, T)); vectorised over rows with scipy."""
    from scipy import stats as st

    mean = d.mean(axis=1)
    flat = np.all(d == d[:, :1], axis=1)  # zero variance: t undefined or infinite
    stat, p = _degenerate_t(mean, alternative)
    if not np.all(flat):
        live = ~flat
        r = st.ttest_rel(d[live], np.zeros_like(d[live]), axis=1, alternative=alternative)
        stat[live] = r.statistic
        p[live] = r.pvalue
    return stat, p


def paired_t(a, b, alternative: str = "two-sided", ratio: float = 1.0) -> PairedTestResult:
    """Paired Student t-test of ``a`` against ``ratio * b`` over topics (scipy ``ttest_rel``).

    With ``d = a - ratio * b`` (shape ``(n_topics,)``), ``t = mean(d) / (sd(d) / sqrt(n))`` with
    ``n - 1`` degrees of freedom. ``alternative="greater"`` tests H1: mean(a) > ratio * mean(b);
    e.g. "is the banded score at least 0.99 of the original" is
    ``paired_t(banded, original, alternative="greater", ratio=0.99)``. This is the test the
    evaluation-depth study used for every pairwise comparison (two-sided, alpha = 0.05).

    Zero-variance differences are handled without scipy's NaN: all differences 0 gives
    t = 0, p = 1; a constant non-zero difference gives t = +-inf and p = 0 (1 against the
    alternative's direction).

    Parameters: ``a``, ``b``: 1-D arrays of equal shape, at least 2 finite values each;
    ``alternative``: ``"two-sided"``, ``"greater"`` or ``"less"``; ``ratio``: finite float.

    Returns :class:`PairedTestResult` (statistic = t, pvalue, mean_diff, df = n - 1).
    Raises ValueError on bad input.
    """
    _check_alternative(alternative)
    d = _differences(a, b, ratio)
    stat, p = _ttest_rows(d[None, :], alternative)
    return PairedTestResult(float(stat[0]), float(p[0]), float(d.mean()), int(d.size - 1))


def paired_t_rows(a, b, alternative: str = "greater", ratio: float = 1.0) -> np.ndarray:
    """p-values of :func:`paired_t` for each row pair: ``a`` and ``b`` have shape
    (n_systems, n_topics) (``b`` may be a single row, broadcast); returns float64 (n_systems,).

    Raises
    ------
    ValueError
        As :func:`paired_t`, for any row.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.broadcast_to(np.asarray(b, dtype=np.float64), a.shape)
    return np.array([paired_t(x, y, alternative=alternative, ratio=ratio).pvalue
                     for x, y in zip(a, b)])


def wilcoxon(a, b, alternative: str = "two-sided", ratio: float = 1.0) -> PairedTestResult:
    """Wilcoxon signed-rank test of ``a`` against ``ratio * b`` over topics (scipy ``wilcoxon``).

    scipy's defaults are kept: zero differences are dropped (``zero_method="wilcox"``) and
    ``method="auto"`` (exact null distribution for small samples without ties or zeros, normal
    approximation otherwise). When every difference is zero there is nothing to rank and the
    result is statistic 0, p = 1 (older scipy versions raise there).

    Parameters and errors as :func:`paired_t`. Returns :class:`PairedTestResult` (statistic =
    scipy's W: the sum of the ranks of the positive differences for one-sided tests, the smaller
    of the two rank sums for two-sided; df = None).
    """
    _check_alternative(alternative)
    d = _differences(a, b, ratio)
    if np.all(d == 0):
        return PairedTestResult(0.0, 1.0, 0.0)
    from scipy import stats as st

    r = st.wilcoxon(d, alternative=alternative)
    return PairedTestResult(float(r.statistic), float(r.pvalue), float(d.mean()))


def _signflip_pvalues(d: np.ndarray, n: int, seed, alternative: str) -> np.ndarray:
    """Sign-flip randomization p-values for every row of d (shape (P, T)).

    Every row is tested with the same sign vectors. Exact (count / 2^T) when 2^T <= n, otherwise
    (count + 1) / (n + 1) over n random sign vectors from ``numpy.random.default_rng(seed)``.
    """
    n_pairs, t = d.shape
    obs = d.sum(axis=1)
    # Permuted sums are obs - 2 * (flipped part); allow for rounding when comparing with obs.
    tol = 1e-10 * np.abs(d).sum(axis=1)
    exact = t < 63 and 2**t <= n
    total = 2**t if exact else n
    rows = max(1, min(_CHUNK // t, _CHUNK // max(n_pairs, 1)))
    count = np.zeros(n_pairs, dtype=np.int64)
    rng = None if exact else np.random.default_rng(seed)
    bit = np.arange(t, dtype=np.int64)
    for start in range(0, total, rows):
        m = min(rows, total - start)
        if exact:
            flips = ((np.arange(start, start + m, dtype=np.int64)[:, None] >> bit) & 1)
            flips = flips.astype(np.float64)
        else:
            flips = (rng.random((m, t)) < 0.5).astype(np.float64)
        perm = obs - 2.0 * (flips @ d.T)  # (m, P)
        if alternative == "two-sided":
            hit = np.abs(perm) >= np.abs(obs) - tol
        elif alternative == "greater":
            hit = perm >= obs - tol
        else:
            hit = perm <= obs + tol
        count += hit.sum(axis=0)
    if exact:
        return count / total
    return (count + 1) / (n + 1)


def randomization_test(
    a, b, n: int = 10000, seed=0, alternative: str = "two-sided", ratio: float = 1.0
) -> PairedTestResult:
    """Paired (sign-flip) randomization test of ``a`` against ``ratio * b`` over topics.

    Under H0 each per-topic difference ``d_i = a_i - ratio * b_i`` is equally likely to have
    either sign (Fisher's randomization test as used in IR by Smucker, Allan & Carterette 2007).
    The statistic is the mean difference; a sign vector counts when its permuted mean is at least
    as extreme as the observed one (``|m*| >= |m|`` two-sided, ``m* >= m`` greater,
    ``m* <= m`` less, with a relative tolerance of 1e-10 for rounding).

    * When ``2**n_topics <= n`` all sign vectors are enumerated and the exact p-value
      ``count / 2**n_topics`` is returned (the observed vector is one of them, so p > 0).
    * Otherwise ``n`` random sign vectors are drawn with ``numpy.random.default_rng(seed)`` and
      ``p = (count + 1) / (n + 1)`` (Phipson & Smyth 2010), so p >= 1 / (n + 1).

    Vectorised: the sign vectors are blocks of a matrix multiplied with d. Deterministic for a
    given seed. Parameters and errors as :func:`paired_t`, plus ``n`` (positive int) and ``seed``
    (anything ``default_rng`` accepts). Returns :class:`PairedTestResult` (statistic = mean
    difference, df = None).
    """
    _check_alternative(alternative)
    n = _check_n(n)
    d = _differences(a, b, ratio)
    p = _signflip_pvalues(d[None, :], n, seed, alternative)
    return PairedTestResult(float(d.mean()), float(p[0]), float(d.mean()))


def bootstrap_ci(a, b=None, n: int = 10000, seed=0, level: float = 0.95) -> BootstrapCI:
    """Percentile bootstrap confidence interval of the mean of ``a`` (or of ``a - b``).

    Resamples topics with replacement ``n`` times (scipy ``stats.bootstrap``,
    ``method="percentile"``; Efron & Tibshirani 1993, ch. 13) and returns the
    ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of the resampled means. With ``b`` the
    topics are resampled in pairs, i.e. the interval is that of the mean paired difference.
    Deterministic for a given ``seed`` (``numpy.random.default_rng(seed)``).

    Parameters: ``a`` (and ``b``): 1-D arrays of shape ``(n_topics,)``, at least 2 finite
    values; ``n``: positive int; ``level``: in (0, 1). Returns :class:`BootstrapCI`.
    Raises ValueError on bad input.
    """
    n = _check_n(n)
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    x = _vector(a, "a") if b is None else _differences(a, b, 1.0)
    import scipy
    from scipy import stats as st

    major, minor = (int(v) for v in scipy.__version__.split(".")[:2])
    key = "rng" if (major, minor) >= (1, 15) else "random_state"
    r = st.bootstrap(
        (x,), np.mean, n_resamples=n, confidence_level=level, method="percentile",
        vectorized=True, axis=-1, **{key: np.random.default_rng(seed)},
    )
    ci = r.confidence_interval
    return BootstrapCI(float(ci.low), float(ci.high), float(x.mean()), float(level), n)


# --------------------------------------------------------------------------- rank correlation


# ---------------------------------------------------------------------- many pairs of systems


def discrimination_ratio(p_values, alpha: float = 0.05) -> float:
    """Share of system pairs with ``p < alpha`` (discriminative power, Sakai 2006; Eq. 2.46 of the
    evaluation-depth spec: ``|{(i, j), i < j : p_ij < alpha}| / (n (n - 1) / 2)``).

    ``p_values``: either the 1-D array of the pairs' p-values or the square ``(n_systems,
    n_systems)`` matrix of :func:`all_pairs` (only the upper triangle ``i < j`` is read).
    Returns a float in [0, 1]. Raises ValueError for no pairs, a non-square matrix, p-values
    outside [0, 1] or NaN, or alpha outside (0, 1).
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim == 2:
        if p.shape[0] != p.shape[1]:
            raise ValueError(f"a p-value matrix must be square, got shape {p.shape}")
        p = p[np.triu_indices(p.shape[0], 1)]
    elif p.ndim != 1:
        raise ValueError(f"p_values must be 1-D or a square matrix, got shape {p.shape}")
    if p.size == 0:
        raise ValueError("no system pairs")
    p = _pvalues(p)
    return float(np.mean(p < alpha))


def all_pairs(
    scores, test: str = "t", correction: str | None = None, *, n: int = 10000, seed=0
) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Two-sided paired test of every pair of systems over topics.

    ``scores``: array of shape ``(n_systems, n_topics)``, at least 2 systems and 2 topics, finite.
    ``test``: ``"t"`` (paired t-test, vectorised across pairs with scipy ``ttest_rel`` and the
    zero-variance handling of :func:`paired_t`), ``"wilcoxon"`` (:func:`wilcoxon` per pair) or
    ``"randomization"`` (:func:`randomization_test` with ``n`` and ``seed``; all pairs share the
    same sign vectors, so each entry equals ``randomization_test(scores[i], scores[j], n, seed)``).
    ``correction``: ``None``, ``"holm"`` (:func:`holm`) or ``"bh"`` (:func:`benjamini_hochberg`),
    applied over the ``n_systems (n_systems - 1) / 2`` pairs.

    Returns ``(P, pairs)``: P is a symmetric float matrix ``(n_systems, n_systems)`` with
    ``P[i, j]`` the (adjusted) p-value of systems i and j and 1.0 on the diagonal; ``pairs`` is
    the list of ``(i, j)``, ``i < j``, in the order used for the correction (row-major upper
    triangle). The sign of ``mean(scores[i]) - mean(scores[j])`` gives the direction.
    Raises ValueError on bad input or unknown test / correction.
    """
    if test not in TESTS:
        raise ValueError(f"test must be one of {TESTS}, got {test!r}")
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}, got {correction!r}")
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 2 or s.shape[0] < 2 or s.shape[1] < 2:
        raise ValueError(
            f"scores must have shape (n_systems >= 2, n_topics >= 2), got {s.shape}"
        )
    if not np.all(np.isfinite(s)):
        raise ValueError("scores contains NaN or infinite values")
    n_sys, n_top = s.shape
    ii, jj = np.triu_indices(n_sys, 1)
    p = np.empty(ii.size)
    if test == "t":
        step = max(1, _CHUNK // n_top)
        for k in range(0, ii.size, step):
            sl = slice(k, k + step)
            p[sl] = _ttest_rows(s[ii[sl]] - s[jj[sl]], "two-sided")[1]
    elif test == "wilcoxon":
        for k, (i, j) in enumerate(zip(ii, jj)):
            p[k] = wilcoxon(s[i], s[j]).pvalue
    else:
        n = _check_n(n)
        p = _signflip_pvalues(s[ii] - s[jj], n, seed, "two-sided")
    if correction == "holm":
        p = holm(p)
    elif correction == "bh":
        p = benjamini_hochberg(p)
    mat = np.ones((n_sys, n_sys))
    mat[ii, jj] = p
    mat[jj, ii] = p
    return mat, [(int(i), int(j)) for i, j in zip(ii, jj)]


# ------------------------------------------------------- rows of paired differences, adjustment


def _bootstrap_pvalues(d: np.ndarray, n: int, seed) -> np.ndarray:
    """Two-sided paired bootstrap p-values for every row of d (shape (P, T)); see
    :func:`bootstrap_test`. All rows share the same resampled topic sets."""
    n_pairs, t = d.shape
    obs = d.mean(axis=1)
    shifted = d - obs[:, None]
    tol = 1e-10 * np.abs(d).mean(axis=1)
    rng = np.random.default_rng(seed)
    count = np.zeros(n_pairs, dtype=np.int64)
    rows = max(1, _CHUNK // max(t * max(n_pairs, 1), 1))
    for start in range(0, n, rows):
        m = min(rows, n - start)
        idx = rng.integers(0, t, size=(m, t))
        w = np.zeros((m, t))
        np.add.at(w, (np.repeat(np.arange(m), t), idx.ravel()), 1.0 / t)
        means = w @ shifted.T  # (m, P): mean of each resample, per row
        count += (np.abs(means) >= np.abs(obs) - tol).sum(axis=0)
    return count / n


def bootstrap_test(a, b, n: int = 10000, seed=0) -> PairedTestResult:
    """Two-sided paired bootstrap test of ``a`` against ``b`` over topics.

    The per-topic differences ``d = a - b`` are shifted to mean 0 (the null hypothesis), topics
    are resampled with replacement ``n`` times, and the p-value is the share of resamples whose
    mean is at least as far from 0 as the observed mean ``|mean(d*)| >= |mean(d)|`` (Efron &
    Tibshirani 1993, "An Introduction to the Bootstrap", Sec. 16.4; used for IR by Sakai 2006,
    "Evaluating evaluation metrics based on the bootstrap", SIGIR). Deterministic for a given
    ``seed`` (``numpy.random.default_rng(seed)``); the Monte Carlo error of p is about
    ``sqrt(p (1 - p) / n)``.

    Parameters and errors as :func:`paired_t`, plus ``n`` (positive int). Returns
    :class:`PairedTestResult` (statistic = mean difference, df = None).
    """
    n = _check_n(n)
    d = _differences(a, b, 1.0)
    p = _bootstrap_pvalues(d[None, :], n, seed)
    return PairedTestResult(float(d.mean()), float(p[0]), float(d.mean()))


def _rows(d) -> np.ndarray:
    d = np.asarray(d, dtype=np.float64)
    if d.ndim != 2 or d.shape[1] < 2:
        raise ValueError(f"differences must have shape (n_pairs, n_topics >= 2), got {d.shape}")
    if not np.all(np.isfinite(d)):
        raise ValueError("differences contain NaN or infinite values")
    return d


def paired_pvalues_rows(d, test: str = "t", n: int = 10000, seed=0) -> np.ndarray:
    """Two-sided p-values of a paired test for every row of per-topic differences.

    ``d``: float array (n_pairs, n_topics), ``d[k] = a_k - b_k``. ``test``: ``"t"``
    (:func:`paired_t`, vectorised), ``"wilcoxon"`` (:func:`wilcoxon`, vectorised),
    ``"randomization"`` (:func:`randomization_test`; rows share the sign vectors) or
    ``"bootstrap"`` (:func:`bootstrap_test`; rows share the resamples). Each entry equals the
    single-pair function called with the same ``n`` and ``seed``. Returns float64 (n_pairs,).
    Raises ValueError on bad shapes, NaN, or an unknown test.
    """
    if test not in ROW_TESTS:
        raise ValueError(f"test must be one of {ROW_TESTS}, got {test!r}")
    d = _rows(d)
    if d.shape[0] == 0:
        return np.zeros(0)
    if test == "t":
        out = np.empty(d.shape[0])
        step = max(1, _CHUNK // d.shape[1])
        for k in range(0, d.shape[0], step):
            out[k:k + step] = _ttest_rows(d[k:k + step], "two-sided")[1]
        return out
    if test == "wilcoxon":
        from scipy import stats as st

        out = np.ones(d.shape[0])  # all differences zero: p = 1, as wilcoxon()
        live = np.any(d != 0, axis=1)
        a = np.sort(np.abs(d), axis=1)
        # scipy's method="auto" decides over the whole array (exact only without zeros or tied
        # |d|); decide per row as wilcoxon() does: clean rows together, rows with zeros or ties
        # together (normal approximation), or one by one when short enough for scipy to
        # enumerate their sign flips.
        rough = (a[:, 0] == 0) | np.any(a[:, 1:] == a[:, :-1], axis=1)
        clean = live & ~rough
        if clean.any():
            out[clean] = st.wilcoxon(d[clean], axis=1).pvalue
        rough &= live
        if rough.any() and d.shape[1] > 13:
            try:
                out[rough] = st.wilcoxon(d[rough], axis=1, method="asymptotic").pvalue
            except ValueError:  # pragma: no cover - scipy < 1.13 calls it "approx"
                out[rough] = st.wilcoxon(d[rough], axis=1, method="approx").pvalue
        elif rough.any():
            z = np.zeros(d.shape[1])
            out[rough] = [wilcoxon(row, z).pvalue for row in d[rough]]
        return out
    if test == "sign":
        return _sign_pvalues(d)
    n = _check_n(n)
    if test == "randomization":
        return _signflip_pvalues(d, n, seed, "two-sided")
    return _bootstrap_pvalues(d, n, seed)


def _sign_pvalues(d: np.ndarray) -> np.ndarray:
    """Two-sided exact sign test per row: topics with d = 0 are dropped; p = min(1, 2 P(X <=
    min(wins, losses))) with X ~ Binomial(wins + losses, 1/2); 1 when every d is 0."""
    from scipy import stats as st

    w = (d > 0).sum(axis=1)
    lo = (d < 0).sum(axis=1)
    m = w + lo
    p = np.minimum(1.0, 2.0 * st.binom.cdf(np.minimum(w, lo), np.maximum(m, 1), 0.5))
    return np.where(m == 0, 1.0, p)


def sign_test(a, b) -> PairedTestResult:
    """Two-sided exact sign test of ``a`` against ``b`` over topics (shape ``(n_topics,)``):
    the number of topics where ``a > b`` against Binomial(non-tied topics, 1/2); tied topics
    are dropped (W. J. Conover, Practical Nonparametric Statistics, 3rd ed., 1999, §3.4).
    ``statistic`` is the number of topics where a > b. Raises ValueError on bad input."""
    d = _differences(a, b, 1.0)
    p = float(_sign_pvalues(d[None, :])[0])
    return PairedTestResult(float((d > 0).sum()), p, float(d.mean()))


# ----------------------------------------------------------------------- family (all systems)


def _matrix(X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 2:
        raise ValueError(f"scores must have shape (n_systems >= 2, n_topics >= 2), got "
                         f"{X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("scores contain NaN or infinite values")
    return X


def _tukey_mse(X: np.ndarray, blocked: bool = True) -> tuple[float, int]:
    """Error mean square of the Tukey HSD and its degrees of freedom.

    ``blocked``: the residual mean square of the two-way ANOVA without replication (systems x
    topics, each topic a block), ``sum (x_ij - m_i. - m_.j + m..)^2 / ((k - 1)(T - 1))``;
    otherwise the pooled within-system variance of a one-way layout on ``k (T - 1)`` df."""
    k, t = X.shape
    r = X - X.mean(axis=1, keepdims=True)
    if blocked:
        r = r - r.mean(axis=0, keepdims=True)
        df = (k - 1) * (t - 1)
    else:
        df = k * (t - 1)
    return float((r ** 2).sum() / df), df


def _max_range_null(X: np.ndarray, n: int, seed) -> np.ndarray:
    """Sorted permutation distribution (float64, (n,)) of the largest difference between two
    system means when each topic's scores are shuffled across the systems."""
    k, t = X.shape
    rng = np.random.default_rng(seed)
    ranges = np.empty(n)
    step = max(1, _CHUNK // (k * t))
    cols = np.arange(t)[None, None, :]
    for b in range(0, n, step):
        nb = min(step, n - b)
        perm = np.argsort(rng.random((nb, k, t)), axis=1)  # per topic, a permutation of k
        means = X[perm, cols].mean(axis=2)                # (nb, k)
        ranges[b:b + nb] = means.max(axis=1) - means.min(axis=1)
    ranges.sort()
    return ranges


#: equal means within this count as "at least as large" in the randomised Tukey HSD
_RANGE_TOL = 1e-12


def family_pvalues(X, ii, jj, test: str = "tukey", n: int = 10000, seed=0,
                   diffs=None) -> np.ndarray:
    """p-values, adjusted for all ``k (k - 1) / 2`` pairs of systems, of the pairs
    ``(ii[m], jj[m])`` of the score matrix ``X`` (float, shape (k systems, T topics)).

    ``"tukey"``: Tukey's honestly significant difference with the topics as blocks (the
    two-way ANOVA without replication, systems x topics; B. Carterette, "Multiple testing in
    statistical analysis of systems-based information retrieval experiments", ACM TOIS 30(1),
    2012; T. Sakai, Laboratory Experiments in Information Retrieval, Springer 2018, ch. 4):
    ``q = |mean_i - mean_j| / sqrt(MSE / T)`` with MSE the residual mean square on
    ``(k - 1)(T - 1)`` df, ``p = P(Q_{k, df} >= q)`` from the studentized range distribution
    (J. W. Tukey, The problem of multiple comparisons, 1953; scipy's ``studentized_range``).
    ``"tukey-oneway"``: the same with MSE the pooled within-system variance of a one-way
    layout on ``k (T - 1)`` df, as if every system had its own topics (statsmodels'
    ``pairwise_tukeyhsd``, and ranx's Tukey test, compute this form).
    ``"randomised-tukey"``: the randomised Tukey HSD (Carterette 2012; Sakai 2018, §4.4):
    ``n`` times, the scores of each topic are permuted across the systems and the largest
    difference between two system means is kept; ``p = (c + 1) / (n + 1)`` with ``c`` the
    number of those ranges at least ``|mean_i - mean_j|`` (within 1e-12), so p is never below
    ``1 / (n + 1)`` (B. Phipson, G. K. Smyth, Permutation p-values should never be zero,
    Stat. Appl. Genet. Mol. Biol. 9(1), 2010). ``diffs`` (len(ii),): mean differences to test
    instead of those of ``X`` (the null distribution still comes from ``X``).
    Returns float64 (len(ii),). Raises ValueError for another test or bad input.
    """
    X = _matrix(X)
    ii, jj = np.asarray(ii, int), np.asarray(jj, int)
    m = X.mean(axis=1)
    diff = np.abs(m[ii] - m[jj] if diffs is None else np.asarray(diffs, np.float64))
    k, t = X.shape
    if test in ("tukey", "tukey-oneway"):
        from scipy import stats as st

        q, df = tukey_q(X, diff, test)
        if np.isinf(q).any() or np.isnan(q).any():  # MSE 0
            return np.where(diff == 0, 1.0, 0.0)
        return st.studentized_range.sf(q, k, df)
    if test != "randomised-tukey":
        raise ValueError(f"test must be one of {FAMILY_TESTS}, got {test!r}")
    n = _check_n(n)
    ranges = _max_range_null(X, n, seed)
    ge = n - np.searchsorted(ranges, diff - _RANGE_TOL, side="left")
    return (ge + 1) / (n + 1)


def tukey_q(X, diffs, test: str = "tukey") -> tuple[np.ndarray, int]:
    """Studentized range statistic ``|diffs| / sqrt(MSE / T)`` (float64, like ``diffs``) of
    mean differences of ``X`` (k, T) and the degrees of freedom of MSE, for ``"tukey"``
    (topics as blocks) or ``"tukey-oneway"`` (see :func:`family_pvalues`). scipy's
    ``studentized_range.sf`` integrates numerically (about 0.1 s a value): to decide many
    pairs, compare ``q`` with one ``studentized_range.isf(alpha, k, df)``. MSE 0 gives
    ``inf`` (``nan`` for a zero difference)."""
    X = _matrix(X)
    k, t = X.shape
    mse, df = _tukey_mse(X, blocked=test == "tukey")
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.abs(np.asarray(diffs, np.float64)) / np.sqrt(mse / t), df


def tukey_ci(X, ii, jj, level: float = 0.95, test: str = "tukey", n: int = 10000,
             seed=0, alpha: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Simultaneous interval of ``mean_i - mean_j`` for the pairs ``(ii, jj)`` of ``X``
    (float, (k systems, T topics)) at ``level``, ``diff +- h``.

    ``"tukey"`` / ``"tukey-oneway"``: ``h = q_{level; k, df} sqrt(MSE / T)`` with MSE and df
    of :func:`family_pvalues` (for the one-way form, statsmodels' ``pairwise_tukeyhsd``
    ``confint``). ``"randomised-tukey"``: ``h`` is the order statistic of the permutation
    distribution of the largest difference (same ``n`` and ``seed`` as the p-values) that makes
    the interval exclude 0 exactly when ``family_pvalues(...) < 1 - level``: with ``n``
    sorted ranges ``r_(1) <= ... <= r_(n)`` and ``K`` the largest count ``c`` with
    ``(c + 1) / (n + 1) < alpha`` (``alpha`` defaults to ``1 - level``; pass the test's alpha
    to agree with ``p < alpha`` to the last bit), ``h = r_(n - K) + 1e-12`` (infinite when no
    count qualifies: too few resamples for that level). Returns ``(low, high)``, float64
    (len(ii),). Raises ValueError for another test or bad input."""
    from scipy import stats as st

    X = _matrix(X)
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    k, t = X.shape
    m = X.mean(axis=1)
    d = m[np.asarray(ii, int)] - m[np.asarray(jj, int)]
    if test in ("tukey", "tukey-oneway"):
        mse, df = _tukey_mse(X, blocked=test == "tukey")
        half = st.studentized_range.ppf(level, k, df) * np.sqrt(mse / t)
    elif test == "randomised-tukey":
        n = _check_n(n)
        ranges = _max_range_null(X, n, seed)
        # p < a  <=>  (count(r >= |d| - tol) + 1) / (n + 1) < a  <=>  count <= K
        a = 1 - level if alpha is None else alpha
        ok = np.flatnonzero((np.arange(n + 1) + 1) / (n + 1) < a)
        half = np.inf if ok.size == 0 else ranges[n - ok[-1] - 1] + _RANGE_TOL
    else:
        raise ValueError(f"test must be one of {FAMILY_TESTS}, got {test!r}")
    return d - half, d + half


def paired_ci_rows(d, method: str = "t", level: float = 0.95, n: int = 10000,
                   seed=0) -> tuple[np.ndarray, np.ndarray]:
    """Confidence interval of the mean paired difference for every row of ``d``.

    ``method="t"``: Student's interval ``mean +- t_{T-1, (1+level)/2} sd / sqrt(T)`` (what scipy
    ``ttest_rel(...).confidence_interval(level)`` gives; zero-variance rows give the point
    ``[mean, mean]``). ``method="bootstrap"``: percentile bootstrap over topics
    (:func:`bootstrap_ci`; Efron & Tibshirani 1993, ch. 13), computed here for all rows with
    shared resamples. ``d``: float array (n_pairs, n_topics >= 2). Returns ``(low, high)``, each
    float64 (n_pairs,). Raises ValueError on bad input.
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    d = _rows(d)
    mean = d.mean(axis=1)
    if method == "t":
        from scipy import stats as st

        t = d.shape[1]
        half = st.t.ppf((1 + level) / 2, t - 1) * d.std(axis=1, ddof=1) / np.sqrt(t)
        return mean - half, mean + half
    if method != "bootstrap":
        raise ValueError(f"method must be 't' or 'bootstrap', got {method!r}")
    n = _check_n(n)
    t = d.shape[1]
    idx = np.random.default_rng(seed).integers(0, t, size=(n, t))
    w = np.zeros((n, t))  # w[b, i]: weight of topic i in resample b (its count / t)
    np.add.at(w, (np.repeat(np.arange(n), t), idx.ravel()), 1.0 / t)
    lo, hi = np.empty(d.shape[0]), np.empty(d.shape[0])
    step = max(1, _CHUNK // n)  # rows per block: at most _CHUNK resampled means in memory
    for k in range(0, d.shape[0], step):
        means = d[k:k + step] @ w.T  # (rows, n)
        lo[k:k + step], hi[k:k + step] = np.quantile(means, [(1 - level) / 2, (1 + level) / 2],
                                                     axis=1)
    return lo, hi


def effect_size_ci_rows(d, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Confidence interval of Cohen's d_z for every row of ``d`` (n_pairs, n_topics): the
    exact interval from the noncentral t distribution, inverting ``t = d_z sqrt(T)`` with
    ``T - 1`` df for its noncentrality (G. Cumming, S. Finch. A primer on the understanding,
    use, and calculation of confidence intervals that are based on central and noncentral
    distributions. Educational and Psychological Measurement 61(4), 2001). Rows with zero
    variance give ``[d_z, d_z]``. Returns ``(low, high)``, float64 (n_pairs,)."""
    from scipy import optimize
    from scipy import stats as st

    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    e = effect_size_rows(d)
    t_obs = e * np.sqrt(d.shape[1])
    df = d.shape[1] - 1
    lo, hi = e.copy(), e.copy()
    a = (1 - level) / 2
    for r, t in enumerate(t_obs):
        if not np.isfinite(t):
            continue

        def f(nc, q, t=t):
            return st.nct.cdf(t, df, nc) - q
        for out, q in ((lo, 1 - a), (hi, a)):
            w = 1.0  # the cdf falls as the noncentrality grows: widen until it brackets q
            while w < 1e3 and not (f(t - w, q) > 0 > f(t + w, q)):
                w *= 2
            out[r] = optimize.brentq(f, t - w, t + w, args=(q,)) / np.sqrt(d.shape[1])
    return lo, hi


def effect_size_rows(d) -> np.ndarray:
    """Standardised mean difference of paired samples, Cohen's d_z = mean(d) / sd(d) with the
    n - 1 standard deviation (Lakens 2013, "Calculating and reporting effect sizes", Frontiers
    in Psychology 4:863, eq. 6), for every row of ``d`` (n_pairs, n_topics). Rows with zero
    variance give 0 when the mean is 0, else +-inf. Returns float64 (n_pairs,)."""
    d = _rows(d)
    mean = d.mean(axis=1)
    sd = d.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sd > 0, mean / np.where(sd > 0, sd, 1.0),
                        np.where(mean == 0, 0.0, np.copysign(np.inf, mean)))
