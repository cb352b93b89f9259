"""The ir_measures- and pytrec_eval-compatible APIs give the peers' numbers on the peers' own
test data (ir_measures' compat.run/compat.qrels, trec_eval's results.test/qrels.test)."""

from __future__ import annotations

import pytest

from tiebreak.compat import ir_measures as tirm
from tiebreak.compat import pytrec_eval as tpe

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@100", "Bpref", "Judged@10", "nDCG", "AP(rel=2)",
            "P(rel=2)@5", "Success@5", "NumRel", "NumRet", "NumRelRet", "Rprec", "infAP",
            "SetP", "nDCG@5", "IPrec@0.5"]


@pytest.fixture(scope="module")
def irm_data(shared_data):
    irm = pytest.importorskip("ir_measures")
    d = shared_data / "ir_measures_tests"
    return irm, list(irm.read_trec_qrels(str(d / "compat.qrels"))), \
        list(irm.read_trec_run(str(d / "compat.run")))


def test_ir_measures_calc_aggregate_and_iter_calc(irm_data):
    irm, qrels, run = irm_data
    ms_theirs = [irm.parse_measure(m) for m in MEASURES]
    ms_mine = [tirm.parse_measure(m) for m in MEASURES]
    ref = irm.calc_aggregate(ms_theirs, qrels, run)
    got = tirm.calc_aggregate(ms_mine, qrels, run)
    assert len(got) == len(MEASURES)
    for a, b in zip(ms_theirs, ms_mine):
        assert got[b] == pytest.approx(ref[a], rel=1e-12, abs=1e-12), str(a)
    name = {str(a): str(b) for a, b in zip(ms_theirs, ms_mine)}  # Bpref is bpref here
    ref_q = {(m.query_id, name[str(m.measure)]): m.value
             for m in irm.iter_calc(ms_theirs, qrels, run)}
    got_q = {(m.query_id, str(m.measure)): m.value for m in tirm.iter_calc(ms_mine, qrels, run)}
    assert got_q.keys() == ref_q.keys() and len(got_q) == 2 * len(MEASURES)
    assert all(got_q[k] == pytest.approx(v, rel=1e-12, abs=1e-12) for k, v in ref_q.items())


def test_ir_measures_objects_as_written(irm_data):
    irm, qrels, run = irm_data
    # code written for ir_measures, with the tiebreak import
    res = tirm.calc_aggregate([tirm.AP, tirm.nDCG @ 10, tirm.P(rel=2) @ 5], qrels, run)
    ref = irm.calc_aggregate([irm.AP, irm.nDCG @ 10, irm.P(rel=2) @ 5], qrels, run)
    assert [str(m) for m in res] == ["AP", "nDCG@10", "P(rel=2)@5"]
    assert [res[m] for m in (tirm.AP, tirm.nDCG @ 10, tirm.P(rel=2) @ 5)] == pytest.approx(
        [ref[m] for m in (irm.AP, irm.nDCG @ 10, irm.P(rel=2) @ 5)], rel=1e-12)
    ev = tirm.evaluator([tirm.RR], {"31_1": {"CAR_x": 1}}, regime="expected")
    assert ev.calc_aggregate({"31_1": {"CAR_x": 1.0, "y": 1.0}}) == {tirm.RR: 0.75}


def test_pytrec_eval_shape_and_values(shared_data):
    pe = pytest.importorskip("pytrec_eval")
    d = shared_data / "trec_eval_test"
    with open(d / "qrels.test") as f:
        q = pe.parse_qrel(f)
    with open(d / "results.test") as f:
        r = pe.parse_run(f)
    for level in (1, 2):
        ref = pe.RelevanceEvaluator(q, pe.supported_measures, relevance_level=level).evaluate(r)
        got = tpe.RelevanceEvaluator(q, pe.supported_measures,
                                     relevance_level=level).evaluate(r)
        assert got.keys() == ref.keys()
        n = 0
        for qid, vals in ref.items():
            assert got[qid].keys() == vals.keys()
            for m, v in vals.items():
                # iprec_at_recall / 11pt_avg: pytrec_eval keeps trec_eval 9's cutoff rule
                # (tests/test_trec_eval_pytrec.py shows it is the only difference)
                if m.startswith(("iprec_at_recall", "11pt_avg")):
                    continue
                n += 1
                assert got[qid][m] == pytest.approx(v, abs=1e-9), (qid, m)
        assert n > 240
    small = tpe.RelevanceEvaluator(q, {"map", "ndcg"}).evaluate(r)
    assert set(next(iter(small.values()))) == {"map", "ndcg"}
    with pytest.raises(ValueError):
        tpe.RelevanceEvaluator(q, {"no_such_measure"})
