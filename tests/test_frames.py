"""Tests of tiebreak.io.frames, tiebreak.io.irds and tiebreak.compat.pyterrier: in-memory inputs
equal
file inputs, clear errors, ir_datasets ids offline, PyTerrier frames and pt.Experiment."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tiebreak as tb
from tiebreak.io import InputError
from tiebreak.io.frames import (
    qrels_from_dict,
    qrels_from_frame,
    run_from_dict,
    run_from_frame,
)
from tiebreak.io.inputs import as_qrels, as_run

SRC = Path(__file__).resolve().parents[1] / "src"
RUN_FIELDS = ("topics", "topic", "docnos", "docid", "score", "rank", "lineno")
QRELS_FIELDS = ("topics", "topic", "docid", "value", "keys", "docnos")


def _same(a, b, fields):
    for f in fields:
        x, y = getattr(a, f), getattr(b, f)
        if isinstance(x, list):
            assert x == y, f
        else:
            np.testing.assert_array_equal(x, y, err_msg=f)


def _run_frame(path) -> pd.DataFrame:
    r = tb.read_run(path)
    return pd.DataFrame({"qid": [r.topics[t] for t in r.topic],
                         "docno": [r.docno(i) for i in range(len(r))],
                         "score": r.score, "rank": r.rank.astype(np.int64)})


@pytest.fixture(scope="module")
def covid(shared_data):
    d = shared_data / "trec_covid" / "round1"
    return d / "qrels-rnd1.txt", d / "runs" / "BITEM_BL.gz", d / "runs" / "CSIROmedNIR.gz"


@pytest.mark.slow
def test_frames_and_dicts_equal_files(covid):
    qpath, rpath, _ = covid
    q = tb.read_qrels(qpath)
    r = tb.read_run(rpath)
    pt_frame = _run_frame(rpath)
    irm_frame = pt_frame.rename(columns={"qid": "query_id", "docno": "doc_id"})
    for f in (run_from_frame(pt_frame, "BITEM_BL"), run_from_frame(irm_frame, "BITEM_BL")):
        _same(f, r, RUN_FIELDS)
        assert f.name == "BITEM_BL"
    # a dict keeps topic and document order; BITEM_BL's file lists topics in blocks
    nested: dict = {}
    for qid, d, s in zip(pt_frame["qid"], pt_frame["docno"], pt_frame["score"]):
        nested.setdefault(qid, {})[d] = s
    _same(run_from_dict(nested, "BITEM_BL"), r, ("topics", "topic", "docnos", "docid", "score"))
    qt = [q.topics[t] for t in q.topic]
    qd = [q.docnos[i] for i in q.docid]
    qf = pd.DataFrame({"qid": qt, "docno": qd, "label": q.value})
    _same(qrels_from_frame(qf), q, QRELS_FIELDS)
    _same(qrels_from_frame(qf.rename(columns={"qid": "query_id", "docno": "doc_id",
                                              "label": "relevance"})), q, QRELS_FIELDS)
    qdict: dict = {}
    for a, b, v in zip(qt, qd, q.value.tolist()):
        qdict.setdefault(a, {})[b] = v
    _same(qrels_from_dict(qdict), q, QRELS_FIELDS)
    # and the evaluation is the same, value for value, BITEM_BL has 10511 tied documents
    ev = tb.Evaluator(q, ["AP", "nDCG@10", "RBP(p=0.8)"], "all")
    a = ev.evaluate([r]).per_topic
    b = tb.Evaluator(as_qrels(qdict), ["AP", "nDCG@10", "RBP(p=0.8)"], "all").evaluate(
        [as_run(pt_frame, "x")]).per_topic
    np.testing.assert_array_equal(a, b)


def test_float32_scores_and_non_string_ids():
    df = pd.DataFrame({"qid": [1, 1, 2], "docno": [10, 11, 10],
                       "score": np.array([0.1, 0.2, 0.3], np.float32)})
    r = run_from_frame(df)
    assert r.topics == ["1", "2"] and r.score.tolist() == df["score"].astype(float).tolist()
    assert r.rank.tolist() == [1, 2, 1]


@pytest.mark.parametrize("frame,msg", [
    (pd.DataFrame({"qid": ["1"], "doc": ["a"], "score": [1.0]}), "needs the columns"),
    (pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "a"], "score": [1.0, 2.0]}),
     "rows 0 and 1: docno 'a' listed twice"),
    (pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, np.nan]}),
     "row 1: score nan is not a finite number"),
    (pd.DataFrame({"qid": ["1"], "docno": ["a b"], "score": [1.0]}), "row 0: docno 'a b'"),
    (pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": ["high"]}),
     "row 0: score 'high' is not a number"),
])
def test_run_frame_errors(frame, msg):
    with pytest.raises(InputError, match=msg):
        run_from_frame(frame, "r")


def test_other_errors():
    with pytest.raises(InputError, match="row 0: label 0.5 is not an integer"):
        qrels_from_frame(pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [0.5]}))
    with pytest.raises(InputError, match="expected a dict"):
        run_from_dict({"1": [("a", 1.0)]})
    with pytest.raises(InputError, match="cannot read a run from int"):
        as_run(3)
    with pytest.raises(InputError, match="cannot read qrels from list"):
        as_qrels([])


@pytest.fixture()
def irds_home(shared_data, tmp_path):
    """A copy of the offline ir_datasets home. ir_datasets reads IR_DATASETS_HOME when it is
    imported, so the tests run tiebreak in a fresh process with the variable set."""
    if importlib.util.find_spec("ir_datasets") is None:  # not imported here: see above
        pytest.skip("ir_datasets is not installed")
    home = tmp_path / "irds"
    shutil.copytree(shared_data / "ir_datasets_home", home)
    return home


def _run(home, *args, code=None):
    env = dict(os.environ, IR_DATASETS_HOME=str(home),
               PYTHONPATH=os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])))
    cmd = [sys.executable] + (["-c", code] if code else ["-m", "tiebreak.cli", *args])
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_irds_qrels_equal_the_collection_file(irds_home, tmp_path):
    code = """
import ir_datasets, pickle, sys
from tiebreak.io.inputs import as_qrels
q = as_qrels("irds:vaswani")
got = {(q.topics[t], str(q.docnos[d])): int(v) for t, d, v in zip(q.topic, q.docid, q.value)}
ref = {(r.query_id, r.doc_id): r.relevance for r in ir_datasets.load("vaswani").qrels_iter()}
print(q.name, len(q), len(q.topics), got == ref)
"""
    r = _run(irds_home, code=code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["irds:vaswani", "2083", "93", "True"]


@pytest.mark.slow
def test_eval_and_compare_take_irds_ids(irds_home, tmp_path):
    # a run listing every judged document of each topic (all relevant in vaswani), and its
    # P@5 by hand: min(5, |rel|) / 5 averaged over the 93 topics
    r = _run(irds_home, code="""
import numpy as np
from tiebreak.io.inputs import as_qrels
q = as_qrels("irds:vaswani")
for t, qid in enumerate(q.topics):
    docs = sorted(q.docnos[q.docid[q.topic == t]])
    for i, d in enumerate(docs):
        print(f"{qid} Q0 {d} {i + 1} {len(docs) - i} A")
print("WANT", repr(float(np.mean(np.minimum(5, q.num_rel()) / 5))))
""")
    assert r.returncode == 0, r.stderr
    *lines, want = r.stdout.splitlines()
    (tmp_path / "a.run").write_text("\n".join(lines) + "\n")
    r = _run(irds_home, "eval", "irds:vaswani", str(tmp_path / "a.run"), "-m", "P@5",
             "--format", "tsv")
    assert r.returncode == 0, r.stderr
    assert f"A\tP@5\ttrec_eval\tall\t{want.split()[1]}" in r.stdout
    r = _run(irds_home, "compare", "irds:vaswani", str(tmp_path / "a.run"),
             str(tmp_path / "a.run"), "-m", "P@5", "--format", "tsv")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("\t") > 20


@pytest.mark.slow
def test_irds_unavailable_offline_is_a_clear_error(irds_home):
    r = _run(irds_home, "eval", "irds:no-such-dataset", "x.run")
    assert r.returncode == 2 and "unknown ir_datasets id" in r.stderr
    # antique is not in the offline home, and there is no network for it here (or the test
    # machine has network: then the download works and the command fails on x.run instead)
    r = _run(irds_home, "eval", "irds:antique/test", "x.run")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    if "not available offline" in r.stderr:
        assert str(irds_home) in r.stderr


# ------------------------------------------------------------------------------- PyTerrier


def _pt_frames():
    qrels = pd.DataFrame({"qid": ["1", "1", "1", "2", "2"], "docno": ["a", "b", "c", "a", "d"],
                          "label": [1, 0, 2, 0, 1]})
    tied = pd.DataFrame({"qid": ["1", "1", "1", "2", "2"], "docno": ["a", "b", "c", "a", "d"],
                         "score": [1.0, 1.0, 0.5, 2.0, 1.0], "rank": [0, 1, 2, 0, 1]})
    clean = pd.DataFrame({"qid": ["1", "1", "2", "2"], "docno": ["c", "a", "d", "a"],
                          "score": [3.0, 2.0, 1.0, 0.5], "rank": [0, 1, 0, 1]})
    return qrels, tied, clean


def test_pyterrier_frames_one_call():
    from tiebreak.compat.pyterrier import compare_frames, evaluate_frames

    qrels, tied, clean = _pt_frames()
    res = evaluate_frames({"tied": tied, "clean": clean}, qrels, ["AP"])
    assert res.runs == ["tied", "clean"] and "expected" in res.regimes
    # topic 1 of "tied": a (rel 1) and b (rel 0) tie at the top, c (rel 2) third
    # realistic: b, a, c -> AP (1/2 + 2/3) / 2; optimistic: a, b, c -> (1 + 2/3) / 2
    assert res.value("tied", "AP", "realistic", "1") == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert res.value("tied", "AP", "optimistic", "1") == pytest.approx((1 + 2 / 3) / 2)
    assert res.value("tied", "AP", "expected", "1") == pytest.approx(
        ((1 / 2 + 2 / 3) / 2 + (1 + 2 / 3) / 2) / 2)
    c = compare_frames({"tied": tied, "clean": clean}, qrels, ["AP"], baseline="tied")
    assert c.comparisons[0].system == "clean"


def test_tie_measure_in_pt_experiment():
    pt = pytest.importorskip("pyterrier", reason="python-terrier is not installed")
    from tiebreak.compat.pyterrier import evaluate_frames, tie_measure

    qrels, tied, clean = _pt_frames()
    topics = pd.DataFrame({"qid": ["1", "2"], "query": ["x", "y"]})
    out = pt.Experiment([tied, clean], topics, qrels, names=["tied", "clean"],
                        eval_metrics=[tie_measure("AP", "expected"), tie_measure("AP", "lower")])
    res = evaluate_frames({"tied": tied, "clean": clean}, qrels, ["AP"])
    for _, row in out.iterrows():
        assert row["tiebreak.AP.expected"] == pytest.approx(res.value(row["name"], "AP",
                                                                      "expected"))
        assert row["tiebreak.AP.lower"] == pytest.approx(res.value(row["name"], "AP", "lower"))
    with pytest.raises(ValueError):
        tie_measure("AP", "sideways")


def test_evaluator_takes_frames_and_dicts(covid):
    qpath, rpath, _ = covid
    frame = _run_frame(rpath)
    qrels = tb.read_qrels(qpath)
    qd: dict = {}
    for t, d, v in zip(qrels.topic, qrels.docid, qrels.value.tolist()):
        qd.setdefault(qrels.topics[t], {})[qrels.docnos[d]] = v
    ref = tb.evaluate(qrels, tb.read_run(rpath), ["AP", "P@10"], "all")
    got = tb.evaluate(qd, frame, ["AP", "P@10"], "all")
    np.testing.assert_array_equal(got.per_topic, ref.per_topic)
    nested = {q: dict(zip(g["docno"], g["score"])) for q, g in frame.groupby("qid", sort=False)}
    got = tb.Evaluator(str(qpath), ["AP"], "expected").evaluate([nested, frame])
    np.testing.assert_array_equal(got.per_topic[0], got.per_topic[1])
