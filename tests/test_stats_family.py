"""Tests over all systems at once and the sign test: the one-way Tukey HSD equal to
statsmodels' pairwise_tukeyhsd, the topic-blocked one equal to the residual of statsmodels'
two-way ANOVA in scipy's studentized range, the randomised Tukey HSD within Monte Carlo error of
an independent loop implementation and of the exact permutation distribution, its intervals
agreeing with its p-values, the sign test equal to scipy's binomtest, effect-size intervals
equal to the noncentral-t inversion, and ``compare --test tukey|randomised-tukey|sign`` on real
runs."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats as st

import tiebreak as tb
from tiebreak.cli import main
from tiebreak.stats import significance as S
from tiebreak.stats.compare import compare, needed_regimes

SYSTEMS = ["BBGhelani1", "BERT", "BITEM_BL", "CSIROmedNIR", "BM25R2"]


@pytest.fixture(scope="module")
def covid(shared_data):
    d = shared_data / "trec_covid" / "round1"
    paths = [str(d / "runs" / f"{s}.gz") for s in SYSTEMS]
    qrels = str(d / "qrels-rnd1.txt")
    res = tb.Evaluator(tb.read_qrels(qrels), ["AP", "P@5"], needed_regimes()).evaluate(paths)
    return qrels, paths, res


def test_tukey_oneway_equals_statsmodels(covid):
    mc = pytest.importorskip("statsmodels.stats.multicomp")
    _, _, res = covid
    X = res.per_topic[:, 0, res.regimes.index("trec_eval")]
    k, t = X.shape
    ii, jj = np.triu_indices(k, 1)
    ref = mc.pairwise_tukeyhsd(X.ravel(), np.repeat(np.arange(k), t), alpha=0.05)
    # statsmodels orders its pairs as triu_indices and reports group2 - group1
    p = S.family_pvalues(X, ii, jj, "tukey-oneway")
    np.testing.assert_allclose(p, ref.pvalues, rtol=1e-6, atol=1e-9)
    lo, hi = S.tukey_ci(X, jj, ii, 0.95, "tukey-oneway")
    np.testing.assert_allclose(np.c_[lo, hi], ref.confint, rtol=1e-9)
    assert ((p < 0.05) == ref.reject).all()
    assert (p < 0.05).any() and (p >= 0.05).any()
    # scipy's tukey_hsd (what ranx's "tukey" test calls) is the same one-way form
    sp = st.tukey_hsd(*X).pvalue
    np.testing.assert_allclose(p, sp[ii, jj], rtol=1e-9)


def _randomised_tukey_loop(X, B, seed):
    """Carterette (2012) / Sakai (2018) written plainly: shuffle each topic's scores across
    the systems, keep the largest difference of system means."""
    rng = random.Random(seed)
    k, t = X.shape
    cols = [list(X[:, j]) for j in range(t)]
    ranges = []
    for _ in range(B):
        sums = [0.0] * k
        for c in cols:
            c = c[:]
            rng.shuffle(c)
            for i in range(k):
                sums[i] += c[i]
        ranges.append((max(sums) - min(sums)) / t)
    m = X.mean(axis=1)
    return lambda i, j: (sum(r >= abs(m[i] - m[j]) - 1e-12 for r in ranges) + 1) / (B + 1)


def test_randomised_tukey_within_monte_carlo_error(covid):
    _, _, res = covid
    X = res.per_topic[:, 0, res.regimes.index("trec_eval")]
    k = X.shape[0]
    ii, jj = np.triu_indices(k, 1)
    B = 4000
    ours = S.family_pvalues(X, ii, jj, "randomised-tukey", n=B, seed=1)
    ref = _randomised_tukey_loop(X, 2000, 7)
    for a, b, p in zip(ii, jj, ours):
        q = ref(a, b)
        se = math.sqrt(max(p * (1 - p), 1e-4) * (1 / B + 1 / 2000))
        assert abs(p - q) <= 4 * se + 1e-9, (a, b, p, q)
    # it is more conservative than the paired t-test without correction
    pt = S.paired_pvalues_rows(X[ii] - X[jj], "t")
    assert (ours >= pt - 0.01).mean() > 0.8


def test_blocked_tukey_equals_two_way_anova(covid):
    """The residual mean square of statsmodels' two-way ANOVA (systems + topics, no
    interaction) in the studentized range: p-values and intervals."""
    pd = pytest.importorskip("pandas")
    smf = pytest.importorskip("statsmodels.formula.api")
    anova_lm = pytest.importorskip("statsmodels.stats.anova").anova_lm
    _, _, res = covid
    X = res.per_topic[:, 0, res.regimes.index("trec_eval")]
    k, t = X.shape
    df = pd.DataFrame({"y": X.ravel(), "s": np.repeat(np.arange(k), t),
                       "q": np.tile(np.arange(t), k)})
    table = anova_lm(smf.ols("y ~ C(s) + C(q)", df).fit())
    mse, dfe = table.loc["Residual", "mean_sq"], table.loc["Residual", "df"]
    assert dfe == (k - 1) * (t - 1)
    ii, jj = np.triu_indices(k, 1)
    m = X.mean(axis=1)
    q = np.abs(m[ii] - m[jj]) / np.sqrt(mse / t)
    want = st.studentized_range.sf(q, k, dfe)
    got = S.family_pvalues(X, ii, jj, "tukey")
    np.testing.assert_allclose(got, want, rtol=1e-9)
    half = st.studentized_range.ppf(0.95, k, dfe) * np.sqrt(mse / t)
    lo, hi = S.tukey_ci(X, ii, jj, 0.95)
    np.testing.assert_allclose(np.c_[lo, hi], np.c_[m[ii] - m[jj] - half, m[ii] - m[jj] + half],
                               rtol=1e-9)
    # blocking by topic removes the topic variance: never less powerful here
    one = S.family_pvalues(X, ii, jj, "tukey-oneway")
    assert (got <= one + 1e-12).all() and (got < one).any()
    assert (((lo > 0) | (hi < 0)) == (got < 0.05)).all()


def _exact_max_range(X):
    """Every assignment of each topic's scores to the systems: the exact permutation
    distribution of the largest difference of system means."""
    import itertools

    k, t = X.shape
    perms = list(itertools.permutations(range(k)))
    out = []
    for choice in itertools.product(perms, repeat=t):
        sums = np.zeros(k)
        for j, pi in enumerate(choice):
            sums += X[list(pi), j]
        out.append((sums.max() - sums.min()) / t)
    return np.array(out)


def test_randomised_tukey_brute_force_and_intervals():
    rng = np.random.default_rng(11)
    X = np.round(rng.uniform(0, 1, (3, 5)), 2)
    X[0] += 0.3
    ii, jj = np.triu_indices(3, 1)
    exact = _exact_max_range(X)  # 6^5 = 7776 assignments
    m = X.mean(axis=1)
    B = 20000
    p = S.family_pvalues(X, ii, jj, "randomised-tukey", n=B, seed=3)
    for a, b, pk in zip(ii, jj, p):
        want = np.mean(exact >= abs(m[a] - m[b]) - 1e-12)
        assert abs(pk - want) <= 4 * math.sqrt(want * (1 - want) / B) + 2 / B, (a, b, pk, want)
    assert (p >= 1 / (B + 1)).all()
    # the interval excludes 0 exactly when p < alpha, for many alphas and seeds
    for seed in range(4):
        Y = rng.normal(0, 1, (6, 12)) + np.linspace(0, 1.2, 6)[:, None]
        i6, j6 = np.triu_indices(6, 1)
        for n, alpha in ((99, 0.05), (999, 0.05), (1000, 0.01), (500, 0.2), (19, 0.05)):
            pk = S.family_pvalues(Y, i6, j6, "randomised-tukey", n=n, seed=seed)
            lo, hi = S.tukey_ci(Y, i6, j6, 1 - alpha, "randomised-tukey", n=n, seed=seed,
                                alpha=alpha)
            assert (((lo > 0) | (hi < 0)) == (pk < alpha)).all(), (seed, n, alpha)
    # a p-value below 1/(B+1) cannot be reached: with B = 18 nothing is significant at 0.05
    lo, hi = S.tukey_ci(Y, i6, j6, 0.95, "randomised-tukey", n=18)
    assert np.isinf(hi).all()


def test_compare_randomised_tukey_interval_agrees_with_p(covid):
    _, _, res = covid
    c = compare(res, all_pairs=True, test="randomised-tukey", n=999, measures=["AP"])
    assert c.comparisons and all(((x.ci_low > 0) or (x.ci_high < 0)) == x.significant
                                 for x in c.comparisons)
    assert any(x.significant for x in c.comparisons)
    assert "blocks" in compare(res, all_pairs=True, test="tukey").legend()


def test_sign_test_equals_binomtest():
    rng = np.random.default_rng(4)
    d = np.round(rng.normal(0.02, 0.1, (30, 25)), 1)
    d[3] = 0
    p = S.paired_pvalues_rows(d, "sign")
    for row, pk in zip(d, p):
        w, lo = int((row > 0).sum()), int((row < 0).sum())
        want = 1.0 if w + lo == 0 else st.binomtest(w, w + lo, 0.5).pvalue
        assert pk == pytest.approx(want, rel=1e-12)
    r = S.sign_test(d[0] + 1, np.ones(25))
    assert r.pvalue == pytest.approx(p[0]) and r.statistic == (d[0] > 0).sum()


def test_effect_size_interval_inverts_noncentral_t():
    rng = np.random.default_rng(5)
    d = rng.normal(0.1, 0.3, (6, 40))
    lo, hi = S.effect_size_ci_rows(d, 0.9)
    e = S.effect_size_rows(d)
    n = d.shape[1]
    for k in range(6):
        t = e[k] * math.sqrt(n)
        assert st.nct.cdf(t, n - 1, lo[k] * math.sqrt(n)) == pytest.approx(0.95, abs=1e-9)
        assert st.nct.cdf(t, n - 1, hi[k] * math.sqrt(n)) == pytest.approx(0.05, abs=1e-9)
        assert lo[k] < e[k] < hi[k]


@pytest.mark.slow
@pytest.mark.parametrize("test", ["tukey", "tukey-oneway", "randomised-tukey", "sign"])
def test_compare_offers_the_new_tests(covid, test):
    _, _, res = covid
    c = compare(res, all_pairs=True, test=test, n=2000)
    X = res.per_topic[:, 0, res.regimes.index("trec_eval")]
    rows = [x for x in c.comparisons if x.measure == "AP"]
    ii, jj = np.triu_indices(len(SYSTEMS), 1)
    if test == "sign":
        want = S.paired_pvalues_rows(X[ii] - X[jj], "sign")
        assert c.correction == "holm"
    else:
        want = S.family_pvalues(X, ii, jj, test, n=2000, seed=0)
        assert c.correction == "none"
        assert [x.p_adjusted for x in rows] == pytest.approx(list(want))
    assert [x.p for x in rows] == pytest.approx(list(want))
    assert all(x.effect_low <= x.effect_size <= x.effect_high for x in rows)
    assert c.legend()


def test_compare_cli_tukey_and_convention(covid):
    qrels, paths, _ = covid
    r = CliRunner().invoke(main, ["compare", qrels, *paths[:3], "--test", "tukey",
                                  "--convention", "trec_eval", "-m", "map", "--format", "tsv",
                                  "--quiet"])
    assert r.exit_code == 0, r.output
    head = r.output.splitlines()[0].split("\t")
    assert "effect_low" in head and r.output.count("\tmap\t") == 2
    r = CliRunner().invoke(main, ["compare", qrels, *paths[:2], "--convention", "trec_eval",
                                  "-m", "AP"])
    assert r.exit_code == 2 and "not a trec_eval measure" in r.output
