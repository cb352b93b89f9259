"""The measure registry: one definition per name, validation, and the fixes that came with it."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

import tiebreak as tb
from tiebreak.measures import MeasureError, family, parse_measure, parse_measures
from tiebreak.measures.registry import REGISTRY, Family, register
from tiebreak.measures.table import markdown
from tiebreak.measures.trec_names import TREC_NAMES, expand


def _q(text):
    return tb.read_qrels(io.BytesIO(text.encode()))


def _r(text):
    return tb.read_run(io.BytesIO(text.encode()))


def test_every_family_is_declared_once_with_doc_and_source():
    family("AP")
    assert len(REGISTRY) >= 35
    for f in REGISTRY.values():
        assert f.doc and f.source, f.name
    with pytest.raises(ValueError, match="registered twice"):
        register(Family("ap", "dup", "other", lambda R, m: None))


def test_every_trec_eval_name_maps_onto_a_registered_family():
    for t in TREC_NAMES:
        if t.family:
            assert family(t.family) is not None, t.name
    assert [str(m) for m in expand("P.5,10")] == ["P_5", "P_10"]
    assert parse_measure("map_cut.10") == parse_measure("AP@10") == parse_measure("map_cut_10")
    assert parse_measure("ndcg.2=5") == parse_measure("nDCG(gains={2:5})")
    assert parse_measure("recip_rank") == parse_measure("RR")
    assert parse_measure("rbp").family.name == "trec_rbp"  # trec_eval's own variant
    assert parse_measure("RBP").family.name == "RBP"
    assert parse_measure("gm_map").agg == "gmean"


@pytest.mark.parametrize("bad", ["P@0", "RBP(p=1.5)", "nDCG@abc", "AP(rel=1.5)", "RBP(q=1)",
                                 "nDCG(gains={1:1e400})", "nDCG(gains={[1]:1})", "bpref@10",
                                 "rbp.p=1.5", "rbp_resid.p=2", "Foo", "nDCG(dcg='x')",
                                 "RBP(p=0.8,gains={1:2})", "utility.1,2"])
def test_bad_parameters_are_clear_errors(bad):
    with pytest.raises(MeasureError):
        parse_measures([bad])


def test_non_string_measure_and_wrong_types_are_type_errors():
    q = _q("1 0 a 1\n")
    with pytest.raises(TypeError, match="must be a string"):
        tb.Evaluator(q, [3])
    # {qid: {docno: ...}} dicts and DataFrames are inputs (tiebreak.io.frames); a list is not
    with pytest.raises(TypeError, match="Qrels"):
        tb.Evaluator([("1", "a", 1)], ["AP"])
    with pytest.raises(TypeError, match="Run"):
        tb.Evaluator(q, ["AP"]).evaluate([[("1", "a", 1.0)]])
    res = tb.evaluate(q, [_r("1 Q0 a 1 1 t\n")], ["AP"], ["trec_eval"])
    with pytest.raises(KeyError, match="no run 'nosuchrun'.*runs: t"):
        res.value("nosuchrun", "AP", "trec_eval")


def test_judged_at_k_on_a_short_list_is_the_field_convention():
    # ir_measures, trec_eval's judged and trectools: divide by the documents retrieved (<= k)
    q = _q("1 0 a 1\n")
    res = tb.evaluate(q, [_r("1 Q0 a 1 1 t\n")], ["Judged@10"], ["trec_eval"])
    assert res.mean[0, 0, 0] == 1.0
    res = tb.evaluate(q, [_r("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")], ["Judged@10", "unj.10"],
                      ["trec_eval"])
    assert res.mean[0, :, 0].tolist() == [0.5, 0.1]


def test_ndcg_gain_map_keeps_unmapped_grades(shared_data):
    d = shared_data / "trec_eval_test"
    q, r = tb.read_qrels(d / "qrels.rel_level"), tb.read_run(d / "results.test")
    res = tb.evaluate(q, [r], ["nDCG(gains={2:5})"], ["trec_eval"])
    # trec_eval -q -m ndcg.2=5 prints 0.1285 for topic 301 (ir_measures agrees)
    assert f"{res.value(res.runs[0], 'nDCG(gains={2:5})', 'trec_eval', '301'):.4f}" == "0.1285"


def test_grades_of_1024_and_more_stay_finite():
    q = _q("1 0 a 1030\n1 0 b 3\n1 0 c 0\n")
    r = _r("1 Q0 b 1 3 t\n1 Q0 a 2 3 t\n1 Q0 c 3 1 t\n")
    res = tb.evaluate(q, [r], ["ERR(gmax=0)", "nDCG(dcg='exp-log2')"],
                      ["trec_eval", "expected"])
    assert np.isfinite(res.mean).all()
    assert res.mean[0, 0].tolist() == [0.5, 0.75]  # a is a certain stop; tie a/b half-half
    with pytest.raises(MeasureError, match="overflow"):
        tb.evaluate(q, [r], ["DCG(dcg='exp-log2')"], ["trec_eval"])


def test_mean_over_zero_topics_is_nan_and_a_run_without_common_topics_an_error():
    from tiebreak.evaluation import summarize

    assert math.isnan(summarize(parse_measure("AP"), np.zeros(0)))
    assert summarize(parse_measure("num_ret"), np.zeros(0)) == 0.0
    q = _q("1 0 a 1\n")
    for average in ("qrels", "run-topics"):
        with pytest.raises(tb.InputError, match="none of the run's topics"):
            tb.evaluate(q, [_r("2 Q0 a 1 1 t\n")], ["AP"], average=average)


def test_summary_adds_in_trec_eval_order_and_gm_map_is_geometric():
    q = _q("1 0 a 1\n2 0 b 1\n")
    r = _r("1 Q0 a 1 1 t\n2 Q0 x 1 2 t\n2 Q0 b 2 1 t\n")
    res = tb.evaluate(q, [r], ["map", "gm_map", "num_rel", "num_ret"], ["trec_eval"])
    assert res.mean[0, :, 0].tolist() == pytest.approx([0.75, math.sqrt(0.5), 2, 3])


def test_err_default_is_the_ir_measures_convention(shared_data):
    d = shared_data / "trec_dl2020_bitua"
    q = tb.read_qrels(d / "qrels.dl20-doc.txt")
    res = tb.evaluate(q, [d / "runs" / "BIT.UA-run1.txt.gz"], ["ERR@20", "ERR(gmax=0)@20"],
                      ["trec_eval"])
    # ir_measures (gdeval, fixed largest grade 4) prints 0.3347; per-topic largest grade 0.5592
    assert [f"{v:.4f}" for v in res.mean[0, :, 0]] == ["0.3347", "0.5592"]
    assert parse_measure("ERR(gmax=4)@20") == parse_measure("ERR@20")


def test_measure_table_in_readme_is_generated_from_the_registry():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert markdown() in readme, "regenerate the table with: tiebreak measures"
