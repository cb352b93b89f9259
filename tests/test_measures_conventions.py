"""Conventions that differ between tools, each a parameter or a name here, each checked against
the tool that defines it (installed from PyPI as a test oracle) on TREC DL 2020 (graded 0-3,
unjudged documents) BIT.UA-run1, its top 100 in trec_eval order handed to every peer with
strictly decreasing scores:

* ranx's metric names (``hits@k``, ``dcg_burges@k``, ``ndcg_burges@k``, ``rbp.P`` with raw
  grades, ``-lN`` relevance levels, ...) against ranx;
* ir_measures' ``judged_only=`` against its pytrec_eval provider, ``Judged`` without a cutoff
  against its judged provider, ``IPrec@r`` and ``NumQ`` as it writes them;
* RBP with raw grades (``RBP(graded=True)``) against trectools' ``get_rbp`` through
  ir_measures' trectools provider (ir_measures' ``RBP`` without ``rel=``).
"""

from __future__ import annotations

import flat_runs as fr
import numpy as np
import pytest

import tiebreak as tb
from tiebreak.measures import MeasureError, parse_measure


@pytest.fixture(scope="module")
def dl20(shared_data):
    f = fr.load(shared_data / fr.DL20[0], shared_data / fr.DL20[1]).head(100)
    run = {}
    for t, r, d in zip(f.topic, f.rank, f.docnos):
        run.setdefault(f.topics[t], {})[d] = 100000.0 - float(r)
    return f, run, tb.read_qrels(str(shared_data / fr.DL20[0]))


def _ours(qrels, run, names, topics):
    res = tb.evaluate(qrels, [run], names, regimes=["trec_eval"], average="run-topics")
    return {n: np.array([res.value(res.runs[0], n, "trec_eval", q) for q in topics])
            for n in names}


RANX = ["hits@10", "hits@100-l2", "hits", "precision@10", "hit_rate@5", "r-precision", "mrr@10",
        "map@100", "map@100-l2", "ndcg@10", "ndcg@10-l2", "ndcg_burges@10",
        "ndcg_burges@20-l2", "dcg@10", "dcg_burges@10", "rbp.8", "rbp@95", "rbp.8-l2", "f1@10",
        "recall@100", "bpref"]


@pytest.mark.slow
def test_ranx_names(dl20):
    """Every ranx name, per topic, equals ranx 0.3's value to 1e-12."""
    ranx = pytest.importorskip("ranx", reason="ranx (test extra) is not installed")
    f, run, qrels = dl20
    qd = {q: v for q, v in f.qrels_dict.items() if q in run}
    ref = ranx.evaluate(ranx.Qrels(qd), ranx.Run(run), RANX, return_mean=False)
    topics = list(ranx.Qrels(qd).keys())
    ours = _ours(qrels, run, RANX, topics)
    assert len(topics) >= 40
    for n in RANX:
        np.testing.assert_allclose(ours[n], ref[n], rtol=1e-12, atol=1e-12, err_msg=n)
    # raw grades: RBP exceeds 1 on some topic, binary RBP never does
    assert ours["rbp.8"].max() > 1.0


def test_ranx_name_parsing():
    assert parse_measure("rbp.95").canonical == "RBP(p=0.95,graded=True)"
    assert parse_measure("rbp@8").canonical == "RBP(graded=True)"
    assert parse_measure("ndcg_burges@10").canonical == "nDCG(dcg='exp-log2')@10"
    assert parse_measure("map@100-l2").canonical == "AP(rel=2)@100"
    assert parse_measure("hit_rate@5").canonical == "Success@5"
    with pytest.raises(MeasureError, match="persistence and no cutoff"):
        parse_measure("rbp.95@10")
    with pytest.raises(MeasureError, match="needs a cutoff"):
        parse_measure("precision")


JUDGED_ONLY = ["P(judged_only=True)@10", "AP(judged_only=True)", "AP(judged_only=True)@100",
               "nDCG(judged_only=True)@10", "nDCG(judged_only=True)", "RR(judged_only=True)",
               "Rprec(judged_only=True)", "Success(judged_only=True)@5",
               "R(judged_only=True)@100", "SetP(judged_only=True)", "SetAP(judged_only=True)",
               "SetF(judged_only=True)", "IPrec(judged_only=True)@0.5"]


@pytest.mark.slow
def test_judged_only_against_pytrec_eval(dl20):
    """``judged_only=True`` (trec_eval -J for one measure), per topic, equals ir_measures'
    pytrec_eval provider to 1e-12, and differs from the plain measure on some topic."""
    irm = pytest.importorskip("ir_measures", reason="ir_measures (test extra) not installed")
    f, run, qrels = dl20
    topics = sorted(run)
    ours = _ours(qrels, run, JUDGED_ONLY + ["AP"], topics)
    for n in JUDGED_ONLY:
        m = irm.parse_measure(n)
        ref = {r.query_id: r.value for r in irm.pytrec_eval.iter_calc([m], f.ir_qrels(),
                                                                        f.ir_run())}
        want = np.array([ref[q] for q in topics])
        np.testing.assert_allclose(ours[n], want, rtol=1e-12, atol=1e-12, err_msg=n)
    assert np.sum(ours["AP(judged_only=True)"] > ours["AP"]) >= 10
    assert str(parse_measure("IPrec@0.5")) == "IPrec@0.5"


def test_judged_without_cutoff_and_numq(dl20):
    """``Judged`` without a cutoff (every retrieved document) and ``NumQ`` as ir_measures."""
    irm = pytest.importorskip("ir_measures", reason="ir_measures (test extra) not installed")
    f, run, qrels = dl20
    topics = sorted(run)
    ours = _ours(qrels, run, ["Judged", "Judged@10"], topics)
    for n in ("Judged", "Judged@10"):
        ref = {r.query_id: r.value for r in irm.judged.iter_calc([irm.parse_measure(n)],
                                                                   f.ir_qrels(), f.ir_run())}
        np.testing.assert_allclose(ours[n], [ref[q] for q in topics], atol=1e-12, err_msg=n)
    assert np.any(ours["Judged"] != ours["Judged@10"])
    res = tb.evaluate(qrels, [run], ["NumQ"], regimes=["trec_eval"], average="run-topics")
    want = irm.calc_aggregate([irm.NumQ], f.ir_qrels(), f.ir_run())[irm.NumQ]
    assert res.mean[0, 0, 0] == want == len(run)


@pytest.mark.slow
def test_graded_rbp_against_trectools(dl20):
    """ir_measures' RBP without ``rel=`` (its trectools provider: trectools' get_rbp with
    binary_topical_relevance=False) uses the raw grade as the gain: ``RBP(graded=True)``."""
    irm = pytest.importorskip("ir_measures", reason="ir_measures (test extra) not installed")
    pytest.importorskip("trectools", reason="trectools (test extra) not installed")
    f, run, qrels = dl20
    topics = sorted(run)
    names = ["RBP(p=0.8,graded=True)", "RBP(p=0.5,graded=True)@20"]
    ours = _ours(qrels, run, names, topics)
    for n, irn in zip(names, ["RBP(p=0.8)", "RBP(p=0.5)@20"]):
        ref = {r.query_id: r.value for r in irm.trectools.iter_calc([irm.parse_measure(irn)],
                                                                      f.ir_qrels(), f.ir_run())}
        # trectools reports no row for a topic without a relevant document in the top depth
        got = {q: v for q, v in zip(topics, ours[n]) if q in ref}
        assert len(got) >= 40
        for q, v in got.items():
            assert v == pytest.approx(ref[q], abs=1e-9), (n, q)
        assert all(v == 0 for q, v in zip(topics, ours[n]) if q not in ref)
    with pytest.raises(MeasureError, match="drop gains"):
        tb.evaluate(qrels, [run], ["RBP(graded=True,gains={1:0.5})"])


def test_urbp_ubpref_against_trectools(dl20, tmp_path):
    """uRBP and uBpref with a generated understandability qrels (values 0-100 for 80% of the
    retrieved documents, scale 0.01), per topic, equal trectools 0.0.50's get_urbp and
    get_ubpref to 1e-12; topics trectools leaves out score 0 here."""
    trectools = pytest.importorskip("trectools", reason="trectools (test extra) not installed")
    f, run, qrels = dl20
    rng = np.random.default_rng(1)
    lines = [f"{q} 0 {d} {int(rng.integers(0, 101))}" for q, ds in f.lists().items() for d in ds
             if rng.random() < 0.8]
    u = tmp_path / "u.qrels"
    u.write_text("\n".join(lines) + "\n")
    rp = tmp_path / "run"
    rp.write_text("".join(f"{f.topics[t]} Q0 {d} {r} {100000.0 - r} r\n"
                          for t, r, d in zip(f.topic, f.rank, f.docnos)))
    te = trectools.TrecEval(trectools.TrecRun(str(rp)), trectools.TrecQrel(qrels.name))
    uq = trectools.TrecQrel(str(u))
    o = f"other='{u}'"
    cases = {
        f"uRBP(p=0.8,{o},scale=0.01)": lambda: te.get_urbp(
            uq, normalization_factor=0.01, p=0.8, depth=1000, per_query=True),
        f"uRBP(p=0.9,{o},scale=0.01,graded=True)@50": lambda: te.get_urbp(
            uq, normalization_factor=0.01, p=0.9, depth=50, per_query=True,
            binary_topical_relevance=False),
        f"uBpref({o},scale=0.01)": lambda: te.get_ubpref(
            uq, normalization_factor=0.01, per_query=True, depth=1000),
        f"uBpref({o})@20": lambda: te.get_ubpref(uq, per_query=True, depth=20),
    }
    res = tb.evaluate(qrels, [str(rp)], list(cases), regimes=["trec_eval"],
                      average="run-topics")
    for name, fn in cases.items():
        ref = fn()
        ref = {str(q): v for q, v in ref[ref.columns[0]].items()}
        assert len(ref) >= 40, name
        for q in res.topics:
            got = res.value(res.runs[0], name, "trec_eval", q)
            if not np.isnan(got):
                assert got == pytest.approx(ref.get(q, 0.0), abs=1e-12), (name, q)
    with pytest.raises(MeasureError, match="name the second qrels"):
        tb.evaluate(qrels, [str(rp)], ["uRBP"])
    with pytest.raises(MeasureError, match="cannot read the second qrels"):
        tb.evaluate(qrels, [str(rp)], ["uBpref(other='/nonexistent/u.qrels')"])


def test_every_convention_is_a_name_with_a_test():
    """depth.CONVENTIONS: every tool's convention parses as a tiebreak name, and the test that
    checks it against the tool exists."""
    import ast
    from pathlib import Path

    from tiebreak.measures.depth import CONVENTIONS

    here = Path(__file__).parent
    for tool, (name, test) in CONVENTIONS.items():
        parse_measure(name)
        module, func = test.split("::")
        tree = ast.parse((here / module).read_text())
        assert func in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}, (tool,
                                                                                       test)


def test_every_regime_on_a_tied_run(shared_data, tmp_path):
    """The new names under all seven regimes on a tied TREC-COVID run (a -c topic, -M 100):
    finite values; lower <= expected <= upper for the linear ones (Hits, graded RBP)."""
    q = tb.read_qrels(str(shared_data / fr.COVID[0]))
    run = tb.read_run(str(shared_data / "trec_covid/round5/runs/final.qruir.txt.gz"))
    u = tmp_path / "u.qrels"
    rng = np.random.default_rng(0)
    u.write_text("".join(f"{q.topics[t]} 0 {q.docnos[d]} {int(rng.integers(0, 101))}\n"
                         for t, d in zip(q.topic, q.docid)))
    names = ["hits@10", "rbp.8", "RBP(p=0.9,graded=True)@50", "ndcg_burges@10",
             "P(judged_only=True)@10", "AP(judged_only=True)", f"uRBP(other='{u}',scale=0.01)",
             f"uBpref(other='{u}')@100", "Judged", "NumQ"]
    res = tb.evaluate(q, [run], names, regimes="all", samples=20, max_docs=100)
    for name in names:
        vals = {r: res.value(res.runs[0], name, r) for r in res.regimes}
        assert all(np.isfinite(v) for v in vals.values()), (name, vals)
        if parse_measure(name).family.expected in ("linear", "closed"):
            assert vals["lower"] - 1e-12 <= vals["expected"] <= vals["upper"] + 1e-12, name
