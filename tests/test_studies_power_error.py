"""``study power`` (Sakai 2016's topic set size design) against statsmodels' power of the
paired t-test and Cohen's (1988) tables; ``study error-rate`` (Buckley & Voorhees 2000, Sanderson
& Zobel 2005; Lu 2018 Eq. 2.45) on cases whose answer is known."""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner

from tiebreak.cli import main
from tiebreak.studies.error_rate import error_rate, swap_rate
from tiebreak.studies.power import paired_power, residual_variance, topic_set_size


@pytest.mark.parametrize("alpha,beta", [(0.05, 0.20), (0.01, 0.20), (0.05, 0.10)])
def test_topic_set_size_against_statsmodels(alpha, beta):
    sp = pytest.importorskip("statsmodels.stats.power")
    for d in (0.1, 0.2, 0.3, 0.5, 0.8, 1.2):
        n = topic_set_size(d * 0.2, 0.2, alpha, beta)
        ref = sp.TTestPower().solve_power(effect_size=d, alpha=alpha, power=1 - beta)
        assert n == math.ceil(ref - 1e-9), (d, n, ref)
        assert paired_power(n, d, 1.0, alpha) >= 1 - beta > paired_power(n - 1, d, 1.0, alpha)
        assert paired_power(n, d, 1.0, alpha) == pytest.approx(
            sp.TTestPower().power(effect_size=d, nobs=n, alpha=alpha), abs=1e-10)


def test_topic_set_size_cohen_table():
    """Cohen (1988): paired/one-sample t, two-sided alpha .05, power .80."""
    assert [topic_set_size(d, 1.0) for d in (0.2, 0.5, 0.8)] == [199, 34, 15]


def test_residual_variance_is_two_way_anova_residual():
    rng = np.random.default_rng(2)
    X = rng.random((6, 20)) + np.arange(6)[:, None] * 0.1 + rng.random(20)[None, :]
    k, t = X.shape
    g = X.mean()
    ss_tot = ((X - g) ** 2).sum()
    ss_sys = t * ((X.mean(axis=1) - g) ** 2).sum()
    ss_top = k * ((X.mean(axis=0) - g) ** 2).sum()
    assert residual_variance(X) == pytest.approx((ss_tot - ss_sys - ss_top) /
                                                 ((k - 1) * (t - 1)), rel=1e-12)
    with pytest.raises(ValueError):
        residual_variance(X[:1])


def test_error_rate_known_cases():
    # constant per-topic scores: every draw decides the same; 0.50 vs 0.51 is within 5 %
    X = np.array([[0.5] * 10, [0.51] * 10, [0.7] * 10])
    e = error_rate(X, 4, n_sets=20)
    assert (e.error_rate, e.tie_rate) == (0.0, pytest.approx(1 / 3))
    s = swap_rate(X, 4, n_sets=20)
    assert (s.swaps, s.decisions) == (0, 40)
    # two systems that each win half the topics by the same margin: with one topic per set
    # the decisions split evenly, so the error rate approaches 1/2 and so does the swap rate
    Y = np.array([[1.0, 0.0] * 20, [0.0, 1.0] * 20])
    e = error_rate(Y, 1, n_sets=4000, seed=1)
    assert 0.47 < e.error_rate <= 0.5 and e.tie_rate == 0
    s = swap_rate(Y, 1, n_sets=4000, seed=1)
    assert 0.47 < s.swap_rate < 0.53
    # the t-test variant: a clear winner is decided in every split and never swapped; two
    # equal systems are rarely decided (about alpha of the splits)
    rng = np.random.default_rng(3)
    Z = np.array([0.2 + 0.05 * rng.random(40), 0.5 + 0.05 * rng.random(40)])
    st = swap_rate(Z, 10, n_sets=50, test="t")
    assert (st.decisions, st.swaps) == (50, 0)
    W = rng.random((2, 40))
    assert swap_rate(W, 20, n_sets=400, test="t", seed=2).decisions < 0.12 * 400
    with pytest.raises(ValueError, match="needs"):
        swap_rate(Y, 30)
    with pytest.raises(ValueError, match="at least 2 topics"):
        swap_rate(Y, 1, test="t")


def test_study_cli(shared_data):
    d = shared_data / "trec_covid" / "round1"
    runs = [str(d / "runs" / f"{s}.gz") for s in ("BBGhelani1", "BERT", "BITEM_BL")]
    q = str(d / "qrels-rnd1.txt")
    r = CliRunner().invoke(main, ["study", "power", q, *runs, "-m", "AP", "--min-diff", "0.05",
                                  "--format", "tsv"])
    assert r.exit_code == 0, r.output
    rows = [x.split("\t") for x in r.output.splitlines()]
    assert rows[0][-2:] == ["topic_set_size", "achieved_power"] and len(rows) == 5
    sd = float(rows[1][5])
    assert int(rows[1][7]) == topic_set_size(0.05, sd) or abs(
        int(rows[1][7]) - topic_set_size(0.05, sd)) <= 1  # sd printed to 4 decimals
    r = CliRunner().invoke(main, ["study", "error-rate", q, *runs, "-m", "AP", "--size", "10",
                                  "--sets", "20", "--format", "tsv"])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0].split("\t")[3:] == ["error_rate", "tie_rate", "swap_rate",
                                                         "swap_rate_t"]
