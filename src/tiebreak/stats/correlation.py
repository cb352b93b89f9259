"""Rank correlation between two orderings of systems: Kendall's tau and tau_AP (Yilmaz,
Aslam & Robertson 2008). Arguments are arrays of shape ``(n_systems,)``; ValueError on bad input."""

from __future__ import annotations

import numpy as np

from ._checks import _pair


def kendall_tau(x, y) -> float:
    """Kendall's tau-b between two scorings of the same systems (scipy ``kendalltau``).

    ``tau_b = (C - D) / sqrt((n0 - n1) (n0 - n2))`` with C / D the concordant / discordant
    pairs, ``n0 = n (n - 1) / 2`` and n1 / n2 the pairs tied in x / y (Kendall 1945). Symmetric
    in x and y. ``x``, ``y``: 1-D arrays of shape ``(n_systems,)``, at least 2 finite values.
    Returns a float in [-1, 1], or NaN when x or y is constant. Raises ValueError on bad input.
    """
    x, y = _pair(x, y, "systems")
    from scipy import stats as st

    return float(st.kendalltau(x, y, variant="b").statistic)


def _harmonic(n: int) -> np.ndarray:
    """H[k] = sum_{m=1..k} 1/m for k = 0..n (H[0] = 0)."""
    h = np.zeros(n + 1)
    h[1:] = np.cumsum(1.0 / np.arange(1, n + 1))
    return h


def tau_ap(x, y) -> float:
    """AP rank correlation tau_AP (Yilmaz, Aslam & Robertson 2008) of ``y`` against ``x``.

    ``x`` holds the reference (ground-truth) scores and ``y`` the candidate scores of the same
    systems, larger = better. Walking down the candidate ranking (y descending),

        tau_AP = 2 / (n - 1) * sum_{i=2..n} C(i) / (i - 1) - 1            (Yilmaz et al., eq. 4)

    where C(i) is the number of systems above position i that the reference also places above
    the system at position i. Errors near the top cost more than errors near the bottom; unlike
    Kendall's tau it is not symmetric in x and y. Without ties it is 1 for identical orderings
    and -1 for reversed ones.

    Ties: the value returned is the *expected* tau_AP when every tied group is put in uniformly
    random order, independently in x and in y (the spirit of the ``expected`` tie regime).
    Concretely, a pair tied in y is equally likely to appear in either order, and a pair tied in
    x counts as half correctly ordered. With ties in y only this is exactly tau_AP,a of Urbano &
    Marrero (2017, "The treatment of ties in AP correlation", ICTIR), their measure of the
    accuracy of an estimated ranking (with ties) against a true one. Consequences: two identical
    orderings that contain ties give less than 1, and a constant y gives the expectation over
    random orderings; a constant x gives 0.

    Computed in closed form in O(n^2) (vectorised): for a system with p systems strictly above
    it in y and t systems in its y-tie group (itself included), its position is uniform on
    p+1..p+t, so it contributes ``A * S1 + G * S2`` where A (G) counts the correctly ordered
    systems above its group (inside its group),
    ``S1 = (1/t) sum_{k=max(p,1)}^{p+t-1} 1/k`` and
    ``S2 = (1 / (t (t-1))) sum_{k=1}^{t-1} k / (p+k)``.

    Parameters: ``x``, ``y``: 1-D arrays of shape ``(n_systems,)``, at least 2 finite values.
    Returns a float in [-1, 1]. Raises ValueError on bad input.
    """
    x, y = _pair(x, y, "systems")
    n = x.size
    above_y = y[None, :] > y[:, None]  # [i, j]: j strictly above i in the candidate ranking
    tied_y = y[None, :] == y[:, None]
    np.fill_diagonal(tied_y, False)
    # correct[i, j]: reference puts j above i (1), ties them (1/2) or reverses them (0)
    correct = (x[None, :] > x[:, None]) + 0.5 * (x[None, :] == x[:, None])
    p = above_y.sum(axis=1)
    t = tied_y.sum(axis=1) + 1
    a_cnt = (correct * above_y).sum(axis=1)
    g_cnt = (correct * tied_y).sum(axis=1)
    h = _harmonic(n)
    s1 = (h[p + t - 1] - h[np.maximum(p, 1) - 1]) / t
    with np.errstate(divide="ignore", invalid="ignore"):
        s2 = np.where(t > 1, ((t - 1) - p * (h[p + t - 1] - h[p])) / (t * (t - 1)), 0.0)
    total = float(np.sum(a_cnt * s1 + g_cnt * s2))
    return 2.0 * total / (n - 1) - 1.0


def tau_a(x, y) -> float:
    """Kendall's tau-a: ``(C - D) / (n (n - 1) / 2)`` over all pairs of systems (a pair tied in x
    or y is neither concordant nor discordant; Kendall 1938). ``x``, ``y``: 1-D arrays of shape
    ``(n_systems,)``, at least 2 finite values. Returns a float in [-1, 1]. Raises ValueError on
    bad input."""
    x, y = _pair(x, y, "systems")
    ii, jj = np.triu_indices(x.size, 1)
    s = np.sign(x[ii] - x[jj]) * np.sign(y[ii] - y[jj])
    return float(s.sum() / ii.size)


def spearman(x, y) -> float:
    """Spearman's rho (Pearson correlation of the mid-ranks; scipy ``spearmanr``). Same shapes
    and errors as :func:`tau_a`; NaN when x or y is constant."""
    x, y = _pair(x, y, "systems")
    from scipy import stats as st

    return float(st.spearmanr(x, y).statistic)


def _ordering(names, v):
    o = np.argsort(-v, kind="stable")
    return [names[i] for i in o], [float(v[i]) for i in o]


#: The coefficients of :func:`correlations`, in output order.
COEFFICIENTS = ("tau", "tau_ap", "tau_b", "spearman", "rbo")


def correlations(x, y, p: float = 0.9) -> dict[str, float]:
    """Every rank correlation of two scorings of the same systems (shape ``(n_systems,)``):
    ``tau`` (tau-a, :func:`tau_a`), ``tau_ap`` (:func:`tau_ap`, y against the reference x),
    ``tau_b`` (:func:`kendall_tau`), ``spearman`` and ``rbo`` (the extrapolated RBO of the two
    orderings, best first, equal scores tied: :func:`tiebreak.stats.overlap.rbo` with persistence
    ``p``). Raises ValueError on bad input."""
    from .overlap import rbo

    x, y = _pair(x, y, "systems")
    names = list(range(x.size))
    sa, ga = _ordering(names, x)
    sb, gb = _ordering(names, y)
    return {"tau": tau_a(x, y), "tau_ap": tau_ap(x, y), "tau_b": kendall_tau(x, y),
            "spearman": spearman(x, y), "rbo": rbo(sa, sb, p, S_groups=ga, T_groups=gb).ext}


def bootstrap_correlations(A, B, n: int = 1000, seed=0, p: float = 0.9, level: float = 0.95,
                           over: str = "topics") -> dict[str, tuple[float, float]]:
    """Percentile bootstrap intervals of every coefficient of :func:`correlations`.

    ``A``, ``B``: per-topic scores of the same systems, shape ``(n_systems, n_topics)`` with the
    same topics (``over="topics"``: topics are resampled with replacement, the same sample for A
    and B, and the means recomputed), or mean scores of shape ``(n_systems,)``
    (``over="systems"``: systems are resampled, repeated systems dropped, samples with fewer
    than 3 distinct systems skipped). ``n`` resamples, seeded by ``seed``; ``level`` the
    coverage. Returns coefficient -> (low, high); NaN samples (a constant ordering) are left out.
    Raises ValueError on bad shapes or options.
    """
    if over not in ("topics", "systems"):
        raise ValueError(f"over must be 'topics' or 'systems', not {over!r}")
    if not 0 < level < 1 or int(n) < 1:
        raise ValueError("level must lie in (0, 1) and n be at least 1")
    A, B = np.asarray(A, np.float64), np.asarray(B, np.float64)
    if A.shape != B.shape:
        raise ValueError(f"A and B must have the same shape, got {A.shape} and {B.shape}")
    rng = np.random.default_rng(seed)
    vals: dict[str, list[float]] = {k: [] for k in COEFFICIENTS}
    for _ in range(int(n)):
        if over == "topics":
            if A.ndim != 2:
                raise ValueError("over='topics' needs arrays of shape (n_systems, n_topics)")
            t = rng.integers(0, A.shape[1], A.shape[1])
            x, y = A[:, t].mean(axis=1), B[:, t].mean(axis=1)
        else:
            s = np.unique(rng.integers(0, A.shape[0], A.shape[0]))
            if s.size < 3:
                continue
            x, y = A[s], B[s]
        with np.errstate(all="ignore"):
            for k, v in correlations(x, y, p).items():
                vals[k].append(v)
    q = ((1 - level) / 2, 1 - (1 - level) / 2)
    out = {}
    for k, v in vals.items():
        arr = np.asarray(v)
        arr = arr[~np.isnan(arr)]
        out[k] = tuple(float(z) for z in np.quantile(arr, q)) if arr.size else (np.nan, np.nan)
    return out
