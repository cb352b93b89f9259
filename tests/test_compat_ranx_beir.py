"""tiebreak.compat.ranx against ranx's values, and tiebreak.compat.beir against BEIR's
convention re-derived on pytrec_eval (BEIR 2.2.0 itself agreed on DL 2020 BIT.UA-run1: the
pinned values below)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from tiebreak.compat import beir as tbeir
from tiebreak.compat import ranx as tr

Q = {"q1": {"d1": 1, "d2": 2, "d5": 1}, "q2": {"d3": 1, "d9": 1, "d4": 0}}
R = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.8, "d4": 0.1},
     "q2": {"d3": 0.5, "d7": 0.6, "d9": 0.1, "d4": 0.6}}
METRICS = ["ndcg@3", "precision@2", "map", "mrr", "recall@3", "hits@2", "hit_rate@1",
           "ndcg_burges@3", "f1@2", "r-precision", "rbp.95", "map@2", "precision", "dcg@3",
           "map@3-l2"]


#: ranx 0.3.21's ``evaluate(Qrels(Q), Run(R), METRICS)`` (its numba compilation takes about a
#: minute, so the values are pinned here rather than recomputed by each test run)
RANX = {"ndcg@3": 0.5144989117117665, "precision@2": 0.5, "map": 0.5416666666666666,
        "mrr": 0.6666666666666666, "recall@3": 0.5833333333333333, "hits@2": 1.0,
        "hit_rate@1": 0.5, "ndcg_burges@3": 0.5034245920153055, "f1@2": 0.4,
        "r-precision": 0.3333333333333333, "rbp.95": 0.1164968750000001,
        "map@2": 0.3333333333333333, "precision": 0.5, "dcg@3": 1.3809297535714575,
        "map@3-l2": 0.25}
RANX_NDCG3 = [0.7224242270408039, 0.3065735963827292]  # return_mean=False


def test_ranx_evaluate_equals_ranx():
    got = tr.evaluate(tr.Qrels(Q), tr.Run(R), METRICS)
    assert list(got) == METRICS
    for m in METRICS:
        assert got[m] == pytest.approx(RANX[m], abs=1e-12), m
    np.testing.assert_allclose(tr.evaluate(Q, R, "ndcg@3", return_mean=False), RANX_NDCG3,
                               atol=1e-12)


def test_ranx_by_hand_ties_and_regime():
    # q2: d7 and d4 tie at 0.6 (d7 given first: ranx keeps it first), d3 relevant at rank 3
    assert tr.evaluate(Q, R, "mrr") == pytest.approx((1 + 1 / 3) / 2)
    # q1: d2 (grade 2) ties d3 (unjudged); given first, d2 is 2nd (P@2 = 1), realistic puts
    # it 3rd (P@2 = 1/2); q2's top two are not relevant in any order
    assert tr.evaluate(Q, R, "precision@2") == 0.5
    assert tr.evaluate(Q, R, "precision@2", regime="optimistic") == 0.5
    assert tr.evaluate(Q, R, "precision@2", regime="realistic") == 0.25
    # expected over q2's tie {d7, d4} (neither relevant): RR stays 1/3; q1: 1
    assert tr.evaluate(Q, R, "mrr", regime="expected") == pytest.approx((1 + 1 / 3) / 2)
    with pytest.raises(ValueError, match="different query ids"):
        tr.evaluate(Q, {"q1": R["q1"]}, "map")
    # make_comparable: q2 missing scores 0; q1 AP = (1/1 + 2/2) / 3
    assert tr.evaluate(Q, {"q1": R["q1"]}, "map", make_comparable=True) == \
        pytest.approx(2 / 3 / 2)


def test_ranx_run_qrels_io_compare_fuse(tmp_path):
    run = tr.Run(R, name="a")
    run.save(tmp_path / "a.trec")
    back = tr.Run.from_file(tmp_path / "a.trec")
    assert back.to_dict() == R and back.get_query_ids() == ["q1", "q2"]
    tr.Qrels(Q).save(tmp_path / "q.json")
    assert tr.Qrels.from_file(tmp_path / "q.json").to_dict() == Q
    df = run.to_dataframe()
    assert tr.Run.from_df(df).to_dict() == R
    tr.evaluate(Q, run, ["map", "mrr"])
    assert run.mean_scores["mrr"] == pytest.approx((1 + 1 / 3) / 2)
    assert run.scores["mrr"] == {"q1": 1.0, "q2": pytest.approx(1 / 3)}
    other = tr.Run({"q1": {"d2": 1.0, "d1": 0.5}, "q2": {"d9": 1.0, "d3": 0.9}}, name="b")
    rep = tr.compare(Q, [run, other], ["map", "mrr"], max_p=0.5)
    df = rep.to_dataframe()
    assert list(df["model_names"]) == ["a", "b"]
    assert df.loc[1, "mrr"] == 1.0 and "\\begin{tabular}" in rep.to_latex()
    fused = tr.fuse([run, other], norm="min-max", method="sum")
    # q1 by hand: min-max of a: d1 1, d2 .875, d3 .875, d4 0; b: d2 1, d1 0 -> d2 1.875 first
    assert list(fused["q1"])[0] == "d2"
    assert fused["q1"]["d2"] == pytest.approx(1.875)


def test_beir_shape_against_pytrec_eval_convention():
    pe = pytest.importorskip("pytrec_eval")
    qrels = {"q1": {"d1": 1, "d2": 2}, "q2": {"d3": 1}}
    results = {"q1": {"q1": 9.0, "d1": 0.5, "d2": 0.5, "d4": 0.7}, "q2": {"d3": 0.1}}
    before = copy.deepcopy(results)
    res = tbeir.EvaluateRetrieval.evaluate(qrels, results, [1, 3])
    ndcg, _map, recall, precision = res
    assert results == before  # BEIR pops q1 from results; the input stays as given here
    # BEIR's convention re-derived: pytrec_eval without the identical id, mean, 5 decimals
    kept = {q: {d: s for d, s in docs.items() if d != q} for q, docs in results.items()}
    ref = pe.RelevanceEvaluator(qrels, {"ndcg_cut.1,3", "map_cut.1,3", "recall.1,3",
                                        "P.1,3"}).evaluate(kept)
    for name, trec, got in (("NDCG", "ndcg_cut", ndcg), ("MAP", "map_cut", _map),
                            ("Recall", "recall", recall), ("P", "P", precision)):
        for k in (1, 3):
            assert got[f"{name}@{k}"] == round(
                np.mean([v[f"{trec}_{k}"] for v in ref.values()]), 5)
    # q1: d4 first, then d1 / d2 tied at 0.5; P@1 is 0 for q1 in every tie order
    assert res.ties["P@1"] == (0.5, 0.5)
    # R@3 is 1 in every order; nDCG@3 moves: d2 (grade 2) second or third
    assert res.ties["Recall@3"] == (1.0, 1.0)
    lo, hi = res.ties["NDCG@3"]
    assert lo < res.expected["NDCG@3"] < hi
    g = [0, 1, 3]  # trec_eval's ndcg gains are the grades: ideal DCG@3 = 2 + 1/log2(3)
    idcg = 2 + 1 / np.log2(3)
    assert hi == round((1 + (2 / np.log2(3) + 1 / 2) / idcg) / 2, 5) and g
    assert lo == round((1 + (1 / np.log2(3) + 2 / 2) / idcg) / 2, 5)


def test_beir_on_dl2020_bitua(shared_data):
    from tiebreak.compat.ir_measures import read_trec_qrels, read_trec_run

    d = shared_data / "trec_dl2020_bitua"
    q: dict = {}
    for x in read_trec_qrels(str(d / "qrels.dl20-doc.txt")):
        q.setdefault(x.query_id, {})[x.doc_id] = x.relevance
    r: dict = {}
    for x in read_trec_run(str(d / "runs" / "BIT.UA-run1.txt.gz")):
        r.setdefault(x.query_id, {})[x.doc_id] = x.score
    res = tbeir.evaluate(q, r, [3, 10])
    # BEIR 2.2.0 prints these four dicts for the same input
    assert res == ({"NDCG@3": 0.5544, "NDCG@10": 0.5358}, {"MAP@3": 0.09503, "MAP@10": 0.20095},
                   {"Recall@3": 0.10297, "Recall@10": 0.2444}, {"P@3": 0.72727, "P@10": 0.56818})
    assert res.ties["NDCG@3"] == (0.55263, 0.55711) and res.ties["P@3"] == (0.7197, 0.72727)
    assert res.ties["NDCG@10"] == (0.53547, 0.53663) and res.expected["NDCG@10"] == 0.53605
    with pytest.raises(ValueError, match="no query of the qrels"):
        tbeir.evaluate(q, {"nope": {"a": 1.0}}, [10])


def test_ranx_add_multi_std_and_report_dict():
    qrels, run = tr.Qrels(), tr.Run(name="m")
    qrels.add_multi(["q1", "q2"], [["d1", "d2"], ["d3"]], [[1, 2], [1]])
    run.add_multi(["q1", "q2"], [["d1", "d2", "d3"], ["d3", "d4"]], [[0.9, 0.8, 0.7], [1, 2]])
    res = tr.evaluate(qrels, run, ["mrr"], return_std=True)
    # q1: d1 relevant at rank 1 (RR 1); q2: d4 (2.0) then d3 (RR 1/2); population sd 1/4
    assert res == {"mrr": {"mean": 0.75, "std": 0.25}} and run.std_scores == {"mrr": 0.25}
    other = tr.Run({"q1": {"d3": 1.0, "d1": 0.5}, "q2": {"d3": 1.0}}, name="o")
    for test in ("student", "fisher", "tukey", "wilcoxon"):
        rep = tr.compare(qrels, [run, other], ["mrr"], stat_test=test)
        d = rep.to_dict()
        assert d["model_names"] == ["m", "o"] and d["stat_test"] == test
        assert 0 < d["m"]["comparisons"]["o"]["mrr"] <= 1
        assert rep.get_stat_test_label(test) in rep.to_latex()
    # per topic: m has RR (1, 1/2), o (1/2, 1): one win, one loss each
    assert d["m"]["win_tie_loss"]["o"]["mrr"] == {"W": 1, "T": 0, "L": 1}


def test_ranx_data_structure_methods():
    q = tr.Qrels({"q1": {"d1": 1, "d2": 2, "d3": 3}, "q2": {"d1": 1}})
    q.set_relevance_level(2)  # grade 2 becomes 1, lower grades 0
    assert q.qrels == {"q1": {"d1": 0, "d2": 1, "d3": 2}, "q2": {"d1": 0}}
    r = tr.Run({"q1": {"d1": 0.1, "d2": 0.3}, "q9": {"d1": 1.0}})
    r.add_score("q1", "d3", 0.2)
    assert r.sorted is False
    r.sort()
    assert list(r.run["q1"]) == ["d2", "d3", "d1"] and r.sorted
    assert r.make_comparable(q).run == {"q1": {"d2": 0.3, "d3": 0.2, "d1": 0.1}, "q2": {}}
    assert [a.shape for a in r.to_typed_list()] == [(3, 2), (0, 2)]
    assert [tr.get_file_kind(f) for f in ("a.json", "a.parq", "a.gz", "a.txt")] == \
        ["json", "parquet", "gz", "trec"]
