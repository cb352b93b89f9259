"""Tests over all systems at once and the sign test: Tukey's HSD equal to statsmodels'
pairwise_tukeyhsd, the randomised Tukey HSD within Monte Carlo error of an independent loop
implementation, the sign test equal to scipy's binomtest, effect-size intervals equal to the
noncentral-t inversion, and ``compare --test tukey|randomised-tukey|sign`` on real runs."""

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


def test_tukey_equals_statsmodels(covid):
    mc = pytest.importorskip("statsmodels.stats.multicomp")
    _, _, res = covid
    X = res.per_topic[:, 0, res.regimes.index("trec_eval")]
    k, t = X.shape
    ii, jj = np.triu_indices(k, 1)
    ref = mc.pairwise_tukeyhsd(X.ravel(), np.repeat(np.arange(k), t), alpha=0.05)
    # statsmodels orders its pairs as triu_indices and reports group2 - group1
    p = S.family_pvalues(X, ii, jj, "tukey")
    np.testing.assert_allclose(p, ref.pvalues, rtol=1e-6, atol=1e-9)
    lo, hi = S.tukey_ci(X, jj, ii, 0.95)
    np.testing.assert_allclose(np.c_[lo, hi], ref.confint, rtol=1e-9)
    assert ((p < 0.05) == ref.reject).all()
    assert (p < 0.05).any() and (p >= 0.05).any()


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
    return lambda i, j: sum(r >= abs(m[i] - m[j]) - 1e-12 for r in ranges) / B


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
@pytest.mark.parametrize("test", ["tukey", "randomised-tukey", "sign"])
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
