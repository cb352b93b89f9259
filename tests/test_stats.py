"""Tests of tiebreak.stats against scipy, hand-computed examples and brute force."""

from __future__ import annotations

import itertools
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats as st

from tiebreak import stats

RNG = np.random.default_rng(20240601)
A = np.round(RNG.uniform(0.1, 0.6, 25), 4)  # per-topic scores of two systems, 25 topics
B = np.round(np.clip(A - RNG.normal(0.03, 0.05, 25), 0, 1), 4)
SCORES = np.round(RNG.uniform(0, 1, (6, 12)), 3)  # 6 systems x 12 topics


# ---------------------------------------------------------------------------- paired t-test


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_paired_t_matches_scipy(alternative):
    r = stats.paired_t(A, B, alternative=alternative)
    ref = st.ttest_rel(A, B, alternative=alternative)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert r.df == 24
    assert r.mean_diff == pytest.approx(np.mean(A - B))


def test_paired_t_ratio():
    r = stats.paired_t(B, A, alternative="greater", ratio=0.9)
    ref = st.ttest_rel(B, 0.9 * A, alternative="greater")
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert r.mean_diff == pytest.approx(np.mean(B - 0.9 * A))
    # ratio 1 is the ordinary test
    assert stats.paired_t(A, B, ratio=1.0) == stats.paired_t(A, B)


def test_paired_t_zero_variance():
    b = np.array([0.25, 0.5, 0.75, 0.0])
    same = stats.paired_t(b, b)
    assert (same.statistic, same.pvalue, same.mean_diff) == (0.0, 1.0, 0.0)
    a = b + 0.125  # exact in binary: every difference is 0.125
    assert stats.paired_t(a, b).pvalue == 0.0
    assert stats.paired_t(a, b).statistic == np.inf
    assert stats.paired_t(a, b, alternative="greater").pvalue == 0.0
    assert stats.paired_t(a, b, alternative="less").pvalue == 1.0
    assert stats.paired_t(b, a, alternative="less").pvalue == 0.0


# --------------------------------------------------------------------------------- Wilcoxon


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_wilcoxon_matches_scipy(alternative):
    r = stats.wilcoxon(A, B, alternative=alternative)
    ref = st.wilcoxon(A, B, alternative=alternative)
    assert r.statistic == pytest.approx(ref.statistic)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert r.df is None


def test_wilcoxon_all_zero_differences():
    r = stats.wilcoxon(A, A)
    assert (r.statistic, r.pvalue, r.mean_diff) == (0.0, 1.0, 0.0)
    # ratio is applied before the test
    assert stats.wilcoxon(2 * A, A, ratio=2.0).pvalue == 1.0


# ------------------------------------------------------------------------ randomization test


def test_randomization_exact_by_hand():
    # d = (1, 2, 3): the 8 sign vectors give sums 6, 4, 2, 0, 0, -2, -4, -6; observed 6.
    a, b = np.array([1.0, 2.0, 3.0]), np.zeros(3)
    assert stats.randomization_test(a, b, n=8).pvalue == 2 / 8  # |s| >= 6: +-6
    assert stats.randomization_test(a, b, n=8, alternative="greater").pvalue == 1 / 8
    assert stats.randomization_test(a, b, n=8, alternative="less").pvalue == 1.0
    r = stats.randomization_test(b, a, n=8, alternative="less")
    assert r.pvalue == 1 / 8 and r.statistic == -2.0 and r.mean_diff == -2.0
    # d = (1, 2, -3): observed 0; sums >= 0 are 6, 4, 2, 0, 0 -> 5/8 (ties count)
    c = np.array([1.0, 2.0, -3.0])
    assert stats.randomization_test(c, b, n=8, alternative="greater").pvalue == 5 / 8
    assert stats.randomization_test(c, b, n=8).pvalue == 1.0
    # rounding must not break ties: 0.1 + 0.2 != 0.3 in floating point
    d = np.array([0.1, 0.2, -0.3])
    assert stats.randomization_test(d, np.zeros(3), n=8, alternative="greater").pvalue == 5 / 8


def test_randomization_exact_matches_brute_force():
    d = A[:10] - B[:10]
    signs = np.array(list(itertools.product([1, -1], repeat=10)))
    perm = signs @ d
    expected = np.mean(np.abs(perm) >= abs(d.sum()) - 1e-12)
    assert stats.randomization_test(A[:10], B[:10], n=1024).pvalue == pytest.approx(expected)


def test_randomization_monte_carlo():
    r1 = stats.randomization_test(A, B, n=2000, seed=3)
    r2 = stats.randomization_test(A, B, n=2000, seed=3)
    assert r1 == r2
    # (count + 1) / (n + 1)
    assert (r1.pvalue * 2001) == pytest.approx(round(r1.pvalue * 2001))
    # a difference beyond every sign flip: only the +1 remains
    big = stats.randomization_test(A + 1.0, A, n=999, seed=1)
    assert big.pvalue == pytest.approx(1 / 1000)
    # agrees with the exact test (10 topics, 1024 sign vectors) up to Monte Carlo error
    exact = stats.randomization_test(A[:10], B[:10], n=1024).pvalue
    mc = stats.randomization_test(A[:10], B[:10], n=1000, seed=5).pvalue
    assert abs(mc - exact) < 0.05
    # and roughly with the t-test on 25 topics
    assert abs(r1.pvalue - stats.paired_t(A, B).pvalue) < 0.05


# -------------------------------------------------------------------------------- bootstrap


def test_bootstrap_ci():
    ci = stats.bootstrap_ci(A, n=2000, seed=7)
    assert ci.low < A.mean() < ci.high and ci.mean == pytest.approx(A.mean())
    assert ci == stats.bootstrap_ci(A, n=2000, seed=7)
    assert ci != stats.bootstrap_ci(A, n=2000, seed=8)
    wide = stats.bootstrap_ci(A, n=2000, seed=7, level=0.99)
    assert wide.low <= ci.low and wide.high >= ci.high
    paired = stats.bootstrap_ci(A, B, n=2000, seed=7)
    assert paired == stats.bootstrap_ci(A - B, n=2000, seed=7)
    assert paired.low < np.mean(A - B) < paired.high
    const = stats.bootstrap_ci(np.full(5, 0.5), n=100)
    assert (const.low, const.high) == (0.5, 0.5)


def test_bootstrap_ci_percentile_by_hand():
    # Same resamples as scipy draws them: percentile of the resampled means.
    x = A[:8]
    ci = stats.bootstrap_ci(x, n=500, seed=11, level=0.9)
    rng = np.random.default_rng(11)
    means = x[rng.integers(0, x.size, (500, x.size))].mean(axis=1)
    lo, hi = np.percentile(means, [5, 95])
    # scipy's batching / interpolation details may differ slightly: compare loosely
    assert ci.low == pytest.approx(lo, abs=0.02) and ci.high == pytest.approx(hi, abs=0.02)


# ----------------------------------------------------------------------------- correlations


def test_kendall_tau_matches_scipy():
    x, y = SCORES.mean(axis=1), SCORES[:, :4].mean(axis=1)
    assert stats.kendall_tau(x, y) == pytest.approx(st.kendalltau(x, y).statistic)
    xt, yt = np.array([1, 2, 2, 3, 4, 4.0]), np.array([1, 3, 2, 2, 4, 5.0])
    assert stats.kendall_tau(xt, yt) == pytest.approx(st.kendalltau(xt, yt, variant="b")[0])
    assert stats.kendall_tau([1, 2, 3, 4], [1, 2, 4, 3]) == pytest.approx(4 / 6)
    assert np.isnan(stats.kendall_tau([1, 2, 3], [1, 1, 1]))


def _tau_ap_strict(x, y):
    """Yilmaz et al.'s formula, literally, for orderings without ties."""
    order = np.argsort(-np.asarray(y), kind="stable")
    xs = np.asarray(x)[order]
    n = len(xs)
    total = sum(np.sum(xs[:i] > xs[i]) / i for i in range(1, n))
    return 2 * total / (n - 1) - 1


def _tau_ap_brute(x, y):
    """Mean of the strict tau_AP over all tie-breakings of x and of y (independently)."""
    def breakings(v):
        v = np.asarray(v, dtype=float)
        groups = [np.flatnonzero(v == u) for u in np.unique(v)]
        for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
            out = np.empty(v.size)
            for g, pg in zip(groups, perms):
                # inside a tie group, the k-th position of the permutation gets the k-th offset
                out[list(pg)] = v[g] + np.arange(len(g)) * 1e-6
            yield out

    vals = [_tau_ap_strict(bx, by) for bx in breakings(x) for by in breakings(y)]
    return float(np.mean(vals))


def test_tau_ap_hand_examples():
    x = np.array([4.0, 3.0, 2.0, 1.0])  # reference order A, B, C, D
    assert stats.tau_ap(x, x) == pytest.approx(1.0)
    assert stats.tau_ap(x, -x) == pytest.approx(-1.0)
    assert stats.tau_ap(x, 10 * x + 3) == pytest.approx(1.0)  # only the order matters
    # candidate B, A, C, D: C(2)=0/1, C(3)=2/2, C(4)=3/3 -> 2/3 * 2 - 1 = 1/3
    assert stats.tau_ap(x, [3, 4, 2, 1]) == pytest.approx(1 / 3)
    # candidate A, B, D, C: 1/1 + 2/2 + 2/3 = 8/3 -> 2/3 * 8/3 - 1 = 7/9 (bottom swap is cheaper)
    assert stats.tau_ap(x, [4, 3, 1, 2]) == pytest.approx(7 / 9)
    # Kendall's tau does not see the difference
    assert stats.kendall_tau(x, [3, 4, 2, 1]) == stats.kendall_tau(x, [4, 3, 1, 2])
    # two systems: +-1
    assert stats.tau_ap([1, 2], [1, 2]) == 1.0 and stats.tau_ap([1, 2], [2, 1]) == -1.0


def test_tau_ap_ties_by_hand():
    # candidate ties A and B on top: order A,B,C gives 1, order B,A,C gives 0 -> expected 0.5
    assert stats.tau_ap([3, 2, 1], [1, 1, 0]) == pytest.approx(0.5)
    # reference ties A and B: the pair counts half correct. Candidate A,B,C:
    # C(2) = 1/2, C(3) = 2 -> (2/2) * (1/2 + 2/2) - 1 = 0.5
    assert stats.tau_ap([2, 2, 1], [3, 2, 1]) == pytest.approx(0.5)
    assert stats.tau_ap([5, 5, 5, 5], [4, 3, 2, 1]) == pytest.approx(0.0)


# Reference values from the test suite of ircor (Urbano's R package, tests/testthat): tauAP and,
# with ties in y, tauAP_a (Urbano & Marrero 2017).
IRCOR = [
    ([0.897, 0.372, 0.908, 0.898, 0.661, 0.062, 0.177, 0.384, 0.498, 0.992],
     [0.82, 0.406, 0.817, 0.953, 0.673, 0.073, 0.364, 0.547, 0.589, 0.988],
     [0.8, 0.4, 0.8, 1, 0.7, 0.1, 0.4, 0.5, 0.6, 1], 0.8519, 0.7454),
    ([0.266, 0.573, 0.202, 0.945, 0.629, 0.206, 0.687, 0.77, 0.718, 0.38],
     [0.263, 0.843, 0.728, 0.928, 0.08, 0.114, 0.467, 0.641, 0.973, 0.644],
     [0.3, 0.8, 0.7, 0.9, 0.1, 0.1, 0.5, 0.6, 1, 0.6], 0.2504, 0.2692),
    ([0.185, 0.573, 0.944, 0.129, 0.468, 0.553, 0.761, 0.405, 0.976, 0.445],
     [0.845, 0.272, 0.275, 0.924, 0.605, 0.334, 0.162, 0.872, 0.018, 0.25],
     [0.8, 0.3, 0.3, 0.9, 0.6, 0.3, 0.2, 0.9, 0, 0.2], -0.6971, -0.5558),
]


@pytest.mark.parametrize("x,y,y_ties,tau,tau_a", IRCOR)
def test_tau_ap_matches_ircor(x, y, y_ties, tau, tau_a):
    assert stats.tau_ap(x, y) == pytest.approx(tau, abs=5e-5)
    assert stats.tau_ap(x, y) == pytest.approx(_tau_ap_strict(x, y))
    assert stats.tau_ap(x, y_ties) == pytest.approx(tau_a, abs=5e-5)
    assert stats.tau_ap(x, y_ties) == pytest.approx(_tau_ap_brute(x, y_ties))


@pytest.mark.parametrize("case", range(6))
def test_tau_ap_ties_match_brute_force(case):
    rng = np.random.default_rng(case)
    x = rng.integers(0, 4, 7).astype(float)  # ties in both lists
    y = rng.integers(0, 4, 7).astype(float)
    assert stats.tau_ap(x, y) == pytest.approx(_tau_ap_brute(x, y), abs=1e-12)


# ----------------------------------------------------------------------- corrections, pairs


def test_holm_by_hand():
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> max so far 0.06
    p = np.array([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(stats.holm(p), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(stats.holm([0.5, 0.6]), [1.0, 1.0])
    assert stats.holm(np.empty(0)).shape == (0,)
    np.testing.assert_allclose(stats.holm(p.reshape(2, 2)), [[0.03, 0.06], [0.06, 0.02]])


@pytest.mark.skipif(not hasattr(st, "false_discovery_control"), reason="scipy < 1.11")
def test_benjamini_hochberg_matches_scipy():
    p = np.concatenate([RNG.uniform(0, 0.05, 10), RNG.uniform(0, 1, 30), [0.01, 0.01]])
    ref = st.false_discovery_control(p, method="bh")
    np.testing.assert_allclose(stats.benjamini_hochberg(p), ref, rtol=1e-12)


def test_benjamini_hochberg_by_hand():
    # sorted 0.01, 0.02, 0.03, 0.5: m p / k = 0.04, 0.04, 0.04, 0.5
    p = np.array([0.5, 0.03, 0.01, 0.02])
    np.testing.assert_allclose(stats.benjamini_hochberg(p), [0.5, 0.04, 0.04, 0.04])


def test_discrimination_ratio():
    assert stats.discrimination_ratio([0.01, 0.2, 0.049, 0.05]) == 0.5  # p < alpha, strictly
    mat = np.array([[1, 0.01, 0.3], [0.01, 1, 0.02], [0.3, 0.02, 1]])
    assert stats.discrimination_ratio(mat) == pytest.approx(2 / 3)
    assert stats.discrimination_ratio(mat, alpha=0.015) == pytest.approx(1 / 3)


@pytest.mark.slow
@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_all_pairs_matches_single_tests(test):
    p, pairs = stats.all_pairs(SCORES, test=test)
    one = stats.paired_t if test == "t" else stats.wilcoxon
    assert pairs == [(i, j) for i in range(6) for j in range(i + 1, 6)]
    for i, j in pairs:
        assert p[i, j] == pytest.approx(one(SCORES[i], SCORES[j]).pvalue, rel=1e-12)
    np.testing.assert_array_equal(p, p.T)
    np.testing.assert_array_equal(np.diag(p), 1.0)


def test_all_pairs_t_vectorised_matches_scipy_and_duplicates():
    s = np.vstack([SCORES, SCORES[:1]])  # system 6 duplicates system 0
    p, pairs = stats.all_pairs(s)
    assert p[0, 6] == 1.0
    for i, j in pairs[:5]:
        assert p[i, j] == pytest.approx(st.ttest_rel(s[i], s[j]).pvalue, rel=1e-12)


def test_all_pairs_randomization_and_corrections():
    p, pairs = stats.all_pairs(SCORES, test="randomization", n=999, seed=4)
    for i, j in pairs[:4]:
        assert p[i, j] == stats.randomization_test(SCORES[i], SCORES[j], n=999, seed=4).pvalue
    raw, _ = stats.all_pairs(SCORES)
    vec = raw[np.triu_indices(6, 1)]
    holm, _ = stats.all_pairs(SCORES, correction="holm")
    np.testing.assert_allclose(holm[np.triu_indices(6, 1)], stats.holm(vec))
    bh, _ = stats.all_pairs(SCORES, correction="bh")
    np.testing.assert_allclose(bh[np.triu_indices(6, 1)], stats.benjamini_hochberg(vec))
    assert np.all(holm >= raw - 1e-15) and np.all(bh >= raw - 1e-15)


# ------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "call",
    [
        lambda: stats.paired_t([1, 2, 3], [1, 2]),
        lambda: stats.paired_t([1], [2]),
        lambda: stats.paired_t([1, np.nan], [1, 2]),
        lambda: stats.paired_t([1, 2], [1, np.inf]),
        lambda: stats.paired_t([[1, 2]], [[1, 2]]),
        lambda: stats.paired_t([1, 2], [1, 3], alternative="bigger"),
        lambda: stats.paired_t([1, 2], [1, 3], ratio=np.nan),
        lambda: stats.wilcoxon([1, 2, 3], [1, 2]),
        lambda: stats.randomization_test([1, 2], [1, 2], n=0),
        lambda: stats.randomization_test([1, 2], [np.nan, 2]),
        lambda: stats.bootstrap_ci([1.0]),
        lambda: stats.bootstrap_ci([1, 2], level=1.5),
        lambda: stats.bootstrap_ci([1, 2], [1, 2, 3]),
        lambda: stats.kendall_tau([1, 2], [1, 2, 3]),
        lambda: stats.tau_ap([1], [1]),
        lambda: stats.tau_ap([1, np.nan], [1, 2]),
        lambda: stats.discrimination_ratio([]),
        lambda: stats.discrimination_ratio([0.1, 1.2]),
        lambda: stats.discrimination_ratio(np.ones((2, 3))),
        lambda: stats.holm([0.1, np.nan]),
        lambda: stats.benjamini_hochberg([-0.1]),
        lambda: stats.all_pairs(np.ones(5)),
        lambda: stats.all_pairs(np.ones((1, 5))),
        lambda: stats.all_pairs(np.ones((3, 1))),
        lambda: stats.all_pairs(SCORES, test="z"),
        lambda: stats.all_pairs(SCORES, correction="bonferroni"),
        lambda: stats.all_pairs(np.where(SCORES > 0.5, np.nan, SCORES)),
    ],
)
def test_bad_input_raises(call):
    with pytest.raises(ValueError):
        call()


def test_scipy_imported_lazily():
    code = "import sys, tiebreak.stats; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ------------------------------------------------- rows of differences, corrections, bootstrap


def test_adjust_matches_statsmodels():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    p = np.array([0.001, 0.04, 0.03, 0.2, 0.012, 0.5])
    for method, sm in (("holm", "holm"), ("bh", "fdr_bh"), ("bonferroni", "bonferroni")):
        ref = multitest.multipletests(p, method=sm)[1]
        np.testing.assert_allclose(stats.adjust(p, method), ref, rtol=1e-12)
    np.testing.assert_array_equal(stats.adjust(p, "none"), p)
    # NaN entries stay out of the family
    q = stats.adjust(np.r_[p, np.nan], "bonferroni")
    assert np.isnan(q[-1]) and q[0] == pytest.approx(0.006)
    with pytest.raises(ValueError, match="correction"):
        stats.adjust(p, "sidak")


@pytest.mark.slow
def test_row_pvalues_equal_single_pair_functions():
    d = SCORES[1:] - SCORES[0]
    np.testing.assert_allclose(stats.paired_pvalues_rows(d, "t"),
                               [st.ttest_rel(s, SCORES[0]).pvalue for s in SCORES[1:]],
                               rtol=1e-12)
    np.testing.assert_allclose(stats.paired_pvalues_rows(d, "wilcoxon"),
                               [st.wilcoxon(s, SCORES[0]).pvalue for s in SCORES[1:]],
                               rtol=1e-12)
    # rows with zero and tied differences (scipy then leaves the exact method) and all zeros
    dz = np.round(RNG.normal(0, 0.1, (40, 20)), 2)
    dz[:10, :4] = 0
    dz[10] = 0
    np.testing.assert_allclose(stats.paired_pvalues_rows(dz, "wilcoxon"),
                               [stats.wilcoxon(r, np.zeros(20)).pvalue for r in dz], rtol=1e-12)
    r = stats.paired_pvalues_rows(d, "randomization", n=5000, seed=3)
    assert r.tolist() == [stats.randomization_test(s, SCORES[0], n=5000, seed=3).pvalue
                          for s in SCORES[1:]]
    b = stats.paired_pvalues_rows(d, "bootstrap", n=3000, seed=3)
    assert b.tolist() == [stats.bootstrap_test(s, SCORES[0], n=3000, seed=3).pvalue
                          for s in SCORES[1:]]
    with pytest.raises(ValueError, match="test"):
        stats.paired_pvalues_rows(d, "median")


def test_bootstrap_test_against_exact_enumeration():
    """With 4 topics the bootstrap distribution has 4^4 equally likely resamples: the Monte
    Carlo p-value must approach the exact share."""
    d = np.array([0.30, -0.05, 0.12, 0.02])
    s = d - d.mean()
    means = np.array([s[list(ix)].mean() for ix in itertools.product(range(4), repeat=4)])
    exact = np.mean(np.abs(means) >= abs(d.mean()) - 1e-12)
    p = stats.bootstrap_test(d, np.zeros(4), n=200_000, seed=1).pvalue
    assert p == pytest.approx(exact, abs=0.005)


def test_ci_rows_match_scipy():
    d = A - B
    lo, hi = stats.paired_ci_rows(d[None], "t", level=0.9)
    ci = st.ttest_rel(A, B).confidence_interval(0.9)
    assert (lo[0], hi[0]) == pytest.approx((ci.low, ci.high), rel=1e-12)
    lo, hi = stats.paired_ci_rows(d[None], "bootstrap", level=0.95, n=20000, seed=0)
    ref = stats.bootstrap_ci(A, B, n=20000, seed=1)
    assert lo[0] == pytest.approx(ref.low, abs=0.003)
    assert hi[0] == pytest.approx(ref.high, abs=0.003)


def test_effect_size_rows():
    d = np.vstack([A - B, np.full(25, 0.125), np.zeros(25)])
    e = stats.effect_size_rows(d)
    assert e[0] == pytest.approx(np.mean(A - B) / np.std(A - B, ddof=1))
    assert e[1] == np.inf and e[2] == 0.0
