"""Tests of tiebreak.stats.compare: statistics against scipy/statsmodels on real TREC-COVID runs,
the
tie-robustness flag on a constructed case, the output formats and the CLI."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats as st

import tiebreak as tb
from tiebreak.cli import main
from tiebreak.io.frames import qrels_from_dict, run_from_dict
from tiebreak.stats.compare import TSV_COLUMNS, compare, needed_regimes

SYSTEMS = ["BBGhelani1", "BERT", "BITEM_BL", "CSIROmedNIR", "BM25R2"]
MEASURES = ["AP", "nDCG@10", "P@5"]


@pytest.fixture(scope="module")
def covid(shared_data):
    d = shared_data / "trec_covid" / "round1"
    paths = [str(d / "runs" / f"{s}.gz") for s in SYSTEMS]
    qrels = str(d / "qrels-rnd1.txt")
    res = tb.Evaluator(tb.read_qrels(qrels), MEASURES, needed_regimes()).evaluate(paths)
    return qrels, paths, res


def _values(res, system, measure, regime="trec_eval"):
    return res.per_topic[res.runs.index(system), res.measures.index(measure),
                         res.regimes.index(regime)]


@pytest.mark.slow
@pytest.mark.parametrize("correction,sm", [("holm", "holm"), ("bh", "fdr_bh"),
                                           ("bonferroni", "bonferroni"), ("none", None)])
def test_t_test_against_scipy_and_statsmodels(covid, correction, sm):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    _, _, res = covid
    c = compare(res, "BBGhelani1", test="t", correction=correction)
    assert len(c.comparisons) == 4 * len(MEASURES)
    for m in MEASURES:
        rows = [x for x in c.comparisons if x.measure == m]
        base = _values(res, "BBGhelani1", m)
        ps = []
        for x in rows:
            a = _values(res, x.system, m)
            ref = st.ttest_rel(a, base)
            ci = ref.confidence_interval(0.95)
            assert x.p == pytest.approx(ref.pvalue, rel=1e-10)
            assert (x.ci_low, x.ci_high) == pytest.approx((ci.low, ci.high), rel=1e-10)
            assert x.mean == pytest.approx(a.mean()) and x.delta == pytest.approx(
                a.mean() - base.mean())
            assert x.effect_size == pytest.approx((a - base).mean() / (a - base).std(ddof=1))
            assert (x.wins, x.ties, x.losses) == (int((a > base).sum()), int((a == base).sum()),
                                                  int((a < base).sum()))
            ps.append(ref.pvalue)
        adj = multitest.multipletests(ps, method=sm)[1] if sm else ps
        np.testing.assert_allclose([x.p_adjusted for x in rows], adj, rtol=1e-10)
        for x, q in zip(rows, adj):
            assert x.significant == (q < 0.05)
    # TREC-COVID round 1: BBGhelani1 beats BERT on every topic; CSIROmedNIR's nDCG@10 deficit
    # (-0.0814) is not significant
    bert = next(x for x in c.comparisons if x.system == "BERT" and x.measure == "AP")
    assert (bert.wins, bert.ties, bert.losses) == (0, 0, 30)
    csiro = next(x for x in c.comparisons if x.system == "CSIROmedNIR" and x.measure ==
                 "nDCG@10")
    assert csiro.delta == pytest.approx(-0.08136, abs=1e-5) and not csiro.significant


@pytest.mark.slow
def test_wilcoxon_and_randomization_against_scipy(covid):
    _, _, res = covid
    c = compare(res, "BM25R2", test="wilcoxon", correction="none", measures=["AP"])
    for x in c.comparisons:
        ref = st.wilcoxon(_values(res, x.system, "AP"), _values(res, "BM25R2", "AP"))
        assert x.p == pytest.approx(ref.pvalue, rel=1e-10)
    # randomization: scipy's permutation_test draws other sign vectors; agree within Monte
    # Carlo error on the pairs with p away from 0
    c = compare(res, "BM25R2", test="randomization", correction="none", measures=["AP"],
                n=20000)
    for x in c.comparisons:
        a, b = _values(res, x.system, "AP"), _values(res, "BM25R2", "AP")
        ref = st.permutation_test((a, b), lambda u, v: np.mean(u - v), permutation_type="samples",
                                  n_resamples=20000, random_state=1)
        assert x.p == pytest.approx(ref.pvalue, abs=0.01)
    assert any(x.p > 0.05 for x in c.comparisons)  # BITEM_BL vs BM25R2 is a real test


def test_all_pairs(covid):
    _, _, res = covid
    c = compare(res, all_pairs=True, measures=["AP"], correction="holm")
    assert len(c.comparisons) == 10 and c.baseline is None
    P, pairs = tb.stats.all_pairs(res.per_topic[:, 0, res.regimes.index("trec_eval")], "t",
                                  "holm")
    for x, (i, j) in zip(c.comparisons, pairs):
        assert (x.system, x.baseline) == (res.runs[i], res.runs[j])
        assert x.p_adjusted == pytest.approx(P[i, j], rel=1e-10)
    marks = c.markers()
    # BBGhelani1 (a) is significantly better than all four others on AP
    assert marks[("BBGhelani1", "AP")] == "b c d e"


def _flip_case():
    """Baseline B has no ties. A ties the relevant document with two non-relevant ones at the
    top of every topic; trec_eval's order (docno descending) happens to put it first. C is
    genuinely better than B. 10 topics."""
    qrels, a, b, c = {}, {}, {}, {}
    for t in range(10):
        q = str(t + 1)
        qrels[q] = {"z_rel": 1, "b_non": 0, "a_non": 0}
        a[q] = {"a_non": 1.0, "b_non": 1.0, "z_rel": 1.0}
        # B: relevant document at rank 2 (AP 1/2) or 3 (AP 1/3)
        if t % 2:
            b[q] = {"a_non": 3.0, "z_rel": 2.0, "b_non": 1.0}
        else:
            b[q] = {"a_non": 3.0, "b_non": 2.0, "z_rel": 1.0}
        c[q] = {"z_rel": 3.0, "a_non": 2.0, "b_non": 1.0}
    return (qrels_from_dict(qrels), run_from_dict(a, "A"), run_from_dict(b, "B"),
            run_from_dict(c, "C"))


def test_tie_dependent_difference_is_flagged():
    q, a, b, c = _flip_case()
    res = tb.Evaluator(q, ["AP"], needed_regimes()).evaluate([b, a, c])
    assert res.value("A", "AP", "trec_eval") == 1.0
    assert res.value("A", "AP", "realistic") == pytest.approx(1 / 3)
    assert res.value("A", "AP", "expected") == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)
    cmp = compare(res, "B", test="t", correction="holm")
    ca, cc = cmp.comparisons
    assert ca.system == "A" and ca.significant and ca.delta > 0
    assert ca.tie_robust == "no" and "reverses at worst tie order" in ca.tie_note
    assert ca.p_adjusted_expected < 0.05  # the expected value still favours A
    assert ca.marker == "+~"
    assert cc.system == "C" and cc.significant and cc.tie_robust == "yes" and cc.marker == "+"
    # wins/ties/losses at trec_eval: A is above B on every topic
    assert (ca.wins, ca.ties, ca.losses) == (10, 0, 0)
    tsv = cmp.format("tsv").splitlines()
    head = tsv[0].split("\t")
    assert head == list(TSV_COLUMNS)
    row = dict(zip(head, tsv[1].split("\t")))
    assert row["tie_robust"] == "no" and row["significant"] == "yes" and row["marker"] == "+~"
    tex = cmp.format("latex")
    assert r"\toprule" in tex and r"\bottomrule" in tex
    assert r"\textbf{1.0000}$^{+\sim}$" in tex and r"\textbf{1.0000}$^{+}$" in tex
    md = cmp.format("markdown")
    assert "| A " in md and "reverses at worst tie order" in md


def test_json_and_pandas(covid):
    _, _, res = covid
    c = compare(res, "BBGhelani1", measures=["AP"])
    doc = json.loads(c.format("json"))
    assert doc["meta"]["baseline"] == "BBGhelani1" and len(doc["comparisons"]) == 4
    assert doc["comparisons"][0]["p"] == c.comparisons[0].p
    df = c.to_pandas()
    assert list(df.columns) == list(TSV_COLUMNS) and len(df) == 4
    got = {e["system"]: e for e in doc["means"]}
    assert got["BERT"]["mean"] == pytest.approx(c.comparisons[0].mean)
    assert got["BERT"]["realistic"] <= got["BERT"]["optimistic"]


def test_errors(covid):
    _, _, res = covid
    with pytest.raises(ValueError, match="not one of the runs"):
        compare(res, "nosuch")
    with pytest.raises(ValueError, match="correction"):
        compare(res, correction="sidak")
    only = tb.Evaluator(tb.read_qrels(covid[0]), ["AP"], ["trec_eval"]).evaluate(covid[1][:2])
    with pytest.raises(ValueError, match="lacks regime"):
        compare(only)


def test_cli_tsv_equals_api(covid):
    qrels, paths, res = covid
    r = CliRunner().invoke(main, ["compare", qrels, *paths[1:], "--baseline", paths[0],
                                  "-m", "AP", "-m", "nDCG@10", "--format", "tsv"])
    assert r.exit_code == 0, r.output
    import pandas as pd

    df = pd.read_csv(io.StringIO(r.stdout), sep="\t", keep_default_na=False)
    c = compare(res, "BBGhelani1", measures=["AP", "nDCG@10"])
    assert df["system"].tolist() == [x.system for x in c.comparisons]
    np.testing.assert_array_equal(df["p_adjusted"].to_numpy(float),
                                  [x.p_adjusted for x in c.comparisons])
    # a baseline named by its run name works too; an unknown one exits 2
    r = CliRunner().invoke(main, ["compare", qrels, *paths, "--baseline", "BERT", "-m", "AP"])
    assert r.exit_code == 0 and "BERT (baseline)" in r.stdout
    r = CliRunner().invoke(main, ["compare", qrels, *paths, "--baseline", "nosuch"])
    assert r.exit_code == 2 and "nosuch" in r.output


def test_too_few_resamples_for_the_family_is_noted(covid):
    _, _, res = covid
    c = compare(res, all_pairs=True, measures=["AP"], test="randomization", n=100)
    # 10 pairs, min p 1/101, Holm: 10/101 > 0.05 -> nothing can be significant
    assert not any(x.significant for x in c.comparisons)
    assert len(c.notes) == 1 and "--resamples >= 200" in c.notes[0]
    assert compare(res, all_pairs=True, measures=["AP"], test="randomization", n=1000).notes == []
    assert compare(res, all_pairs=True, measures=["AP"], test="randomization", n=100,
                   correction="bh").notes == []
