"""The drop-ins behave as the peers do on the shapes of the peers' own test suites
(benchmarks/peer_suites.py runs the suites themselves): values re-derived by hand here, the
installed peers as oracles where they are present."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tiebreak.compat import ir_measures as irm
from tiebreak.compat import pytrec_eval as tpe

QRELS = """
0 0 D0 0
0 0 D1 1
0 0 D2 1
0 0 D3 2
0 0 D4 0
1 0 D0 1
1 0 D3 2
1 0 D5 2
"""
RUN = """
0 0 D0 1 0.8 run
0 0 D2 2 0.7 run
0 0 D1 3 0.3 run
0 0 D3 4 0.4 run
0 0 D4 5 0.1 run
1 0 D1 1 0.8 run
1 0 D3 2 0.7 run
1 0 D4 3 0.3 run
1 0 D2 4 0.4 run
1 0 D0 5 0.1 run
"""


def test_two_topic_example_averages_over_qrels_topics():
    q = {"1": {"a": 1}, "2": {"b": 1}}
    got = irm.calc_aggregate([irm.AP, irm.P @ 1, irm.nDCG @ 10], q, {"1": {"a": 1.0}})
    assert got == {irm.AP: 0.5, irm.P @ 1: 0.5, irm.nDCG @ 10: 0.5}
    assert irm.calc_aggregate([irm.AP, irm.P @ 1], q, {}) == {irm.AP: 0.0, irm.P @ 1: 0.0}
    # a run topic without judgments is ignored; the missing qrels topic is reported with 0
    per = list(irm.iter_calc([irm.AP], q, {"1": {"a": 1.0}, "3": {"x": 2.0}}))
    assert [(m.query_id, m.value) for m in per] == [("1", 1.0), ("2", 0.0)]
    # sums: NumRel over the topics the run has, NumQ counts them
    agg = irm.calc_aggregate([irm.NumRel, irm.NumRet, irm.NumQ], q, {"1": {"a": 1.0}})
    assert agg == {irm.NumRel: 1.0, irm.NumRet: 1.0, irm.NumQ: 1.0}


def test_readers_objects_and_names():
    qrels = list(irm.read_trec_qrels(QRELS))
    run = list(irm.read_trec_run(RUN))
    assert qrels[0] == irm.Qrel("0", "D0", 0) and len(qrels) == 8
    assert run[0] == irm.ScoredDoc("0", "D0", 0.8) and len(run) == 10
    # P@5 by hand: topic 0 has D2, D1, D3 relevant in its top 5 (3/5), topic 1 D3, D0 (2/5)
    assert irm.P @ 5 == irm.parse_measure("Precision@5")
    assert (irm.P @ 5).calc_aggregate(qrels, run) == pytest.approx(0.5, abs=1e-15)
    agg, per = (irm.P @ 5).calc(qrels, run)
    assert agg == pytest.approx(0.5) and [round(m.value, 12) for m in per] == [0.6, 0.4]
    # RR(rel=2): topic 0 ranks D3 (grade 2) 3rd by score, topic 1 2nd
    assert irm.calc_aggregate(["RR(rel=2)"], qrels, run)[irm.RR(rel=2)] == \
        pytest.approx((1 / 3 + 1 / 2) / 2, abs=1e-15)
    for name in ("INSQ", "NERR8", "NERR9", "NERR10", "NERR11", "SDCG", "NDCG", "BPref",
                 "Precision", "alpha_nDCG", "Compat", "SetRelP", "NumQ", "MAP", "MRR"):
        assert isinstance(getattr(irm, name), irm.Measure), name
    assert irm.MAP == irm.AP and irm.BPref == irm.Bpref and irm.NDCG == irm.nDCG
    assert irm.parse_measure('nDCG(dcg="exp-log2", cutoff=20)') == irm.nDCG(dcg="exp-log2") @ 20
    assert irm.parse_measure("IPrec(rel=2, recall=0.4)") == irm.IPrec(rel=2) @ 0.4
    assert irm.parse_measure("nDCG(gains={1: 2, 0: 1})") == irm.nDCG(gains={0: 1, 1: 2})
    assert irm.parse_trec_measure("ndcg_cut_5,10") == [irm.nDCG @ 5, irm.nDCG @ 10]
    assert irm.parse_trec_measure("set_F.1.0,0.5") == [irm.SetF, irm.SetF(beta=0.5)]
    assert len(irm.parse_trec_measure("official")) == 28
    with pytest.raises(ValueError, match="qrels: item 0 is a tuple"):
        irm.calc_aggregate([irm.AP], [("1", "a", 1)], {"1": {"a": 1.0}})
    with pytest.raises(ValueError, match="run: item 0 is a tuple"):
        irm.calc_aggregate([irm.AP], {"1": {"a": 1}}, [("1", "a", 1.0)])


def test_undefined_values_are_left_out():
    # Accuracy is undefined without a document of the level: topic 1 has none at rel=3
    q = {"0": {"a": 3, "b": 0}, "1": {"c": 1, "d": 0}}
    r = {"0": {"a": 1.0, "b": 2.0}, "1": {"c": 2.0, "d": 1.0}}
    per = list(irm.iter_calc([irm.Accuracy(rel=3)], q, r))
    assert [(m.query_id, m.value) for m in per] == [("0", 0.0)]


def test_compat_tie_order_and_ideal_match_ir_measures(shared_data):
    """ir_measures 0.4.3 prints Compat = 0.4336436712073801 on DL 2020 BIT.UA-run1 (ideal
    ranking by run score with unretrieved relevant documents at 0; ties docno ascending)."""
    d = shared_data / "trec_dl2020_bitua"
    q, r = str(d / "qrels.dl20-doc.txt"), str(d / "runs" / "BIT.UA-run1.txt.gz")
    got = irm.calc_aggregate([irm.Compat(p=0.95), irm.AP], q, r)
    assert got[irm.Compat(p=0.95)] == pytest.approx(0.4336436712073801, abs=1e-15)
    assert got[irm.AP] == pytest.approx(0.3466406869390774, abs=1e-15)
    # tiebreak's own ideal (retrieved relevant documents first, in run order) is higher
    from tiebreak.evaluation import Evaluator
    own = Evaluator(q, ["Compat(p=0.95)"], ["file"]).evaluate([r]).mean[0, 0, 0]
    conv = Evaluator(q, ["Compat(p=0.95)"], ["file"], convention="ir_measures")
    assert own > 0.4337 and conv.measures[0]["ideal"] == "ir_measures"
    if importlib.util.find_spec("ir_measures"):
        import ir_measures
        ref = ir_measures.calc_aggregate([ir_measures.Compat(p=0.95)],
                                         ir_measures.read_trec_qrels(q),
                                         ir_measures.read_trec_run(r))
        assert got[irm.Compat(p=0.95)] == pytest.approx(list(ref.values())[0], abs=1e-15)


def test_providers_and_regime():
    q = {"1": {"a": 1, "b": 0}}
    r = {"1": {"a": 1.0, "b": 1.0}}
    assert irm.pytrec_eval.supports(irm.AP) and not irm.pytrec_eval.supports(irm.Compat)
    assert irm.compat.supports(irm.Compat(p=0.8))
    # trec_eval's order puts b (docno descending) first; expected averages both orders
    assert irm.calc_aggregate([irm.RR], q, r)[irm.RR] == 0.5
    assert irm.calc_aggregate([irm.RR], q, r, regime="expected")[irm.RR] == 0.75
    assert irm.providers.PytrecEvalProvider().calc_aggregate([irm.RR], q, r)[irm.RR] == 0.5


def test_pytrec_eval_shapes():
    q = {"q1": {"d1": 0, "d2": 1, "d3": 0}, "q2": {"d2": 1, "d3": 1}}
    run = {"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q2": {}}
    with pytest.raises(TypeError, match="query id b'q1' is a bytes"):
        tpe.RelevanceEvaluator(q, {"map"}).evaluate({b"q1": {"d1": 1.0}})
    with pytest.raises(TypeError):
        tpe.RelevanceEvaluator({b"q1": {"d1": 1}}, {"map"})
    ev = tpe.RelevanceEvaluator(q, ["ndcg_cut", "ndcg_cut.1,4", "ndcg_cut_20,4", "ndcg_cut_15"])
    assert set(ev.evaluate(run)["q1"]) == {"ndcg_cut_1", "ndcg_cut_4", "ndcg_cut_15",
                                           "ndcg_cut_20"}
    got = tpe.RelevanceEvaluator(q, {"map", "num_rel", "num_ret"}).evaluate(run)
    # q1: d2 (relevant) ranked 3rd -> AP 1/3; q2 has an empty ranking: scored, not dropped
    assert got == {"q1": {"map": pytest.approx(1 / 3), "num_rel": 1.0, "num_ret": 3.0},
                   "q2": {"map": 0.0, "num_rel": 2.0, "num_ret": 0.0}}
    assert tpe.RelevanceEvaluator(q, set()).evaluate(run) == {"q1": {}, "q2": {}}
    assert tpe.RelevanceEvaluator({}, {"map"}).evaluate(run) == {}
    keys = set(tpe.RelevanceEvaluator(q, {"all_trec"}).evaluate(run)["q1"])
    assert "rbp" not in keys and "P_5" in keys and "relstring" in keys and len(keys) == 95


def test_pytrec_eval_suite_passes():
    """pytrec_eval's own unit tests (mirror pinned in benchmarks/peer_suites.py)."""
    bench = Path(__file__).resolve().parents[1] / "benchmarks"
    sys.path.insert(0, str(bench))
    try:
        import peer_suites
    finally:
        sys.path.remove(str(bench))
    mirror = peer_suites.MIRRORS / peer_suites.PEERS["pytrec_eval"][0] / "repo"
    if not mirror.exists() or not importlib.util.find_spec("pytrec_eval"):
        pytest.skip("no mirror of pytrec_eval's repository or no pytrec_eval installed")
    res = peer_suites.run_suite("pytrec_eval")
    assert res["failed"] == [] and len(res["passed"]) == 5
