"""Learned WSDM (``study proximity --learn``): the linear feature decomposition against the
registered model, average precision and coordinate ascent by hand, the saved weights, and the
command end to end on ADI (its cross-validated run re-made from the saved per-fold weights)."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from click.testing import CliRunner

import tiebreak as tb
from tiebreak.cli import main
from tiebreak.index import Analyzer
from tiebreak.index.build import build_index_from_tokens
from tiebreak.retrieval import registry
from tiebreak.studies.wsdm_learn import (
    average_precision,
    concept_features,
    coordinate_ascent,
    load_weights,
    save_weights,
)


def test_features_are_linear_in_the_weights(tmp_path):
    terms = ["a", "b", "c", "x"]
    docs = ["a b c a", "b x x a c", "c c x", "a b x b a"]
    toks, ptr = [], [0]
    for text in docs:
        toks += [terms.index(t) for t in text.split()]
        ptr.append(len(toks))
    idx = build_index_from_tokens(tmp_path / "i", [f"d{i}" for i in range(4)], np.array(toks),
                                  np.array(ptr), terms, Analyzer("none", "none"))
    d, F = concept_features(idx, ["a", "b", "c"], mu=5.0)
    assert d.tolist() == [0, 1, 2, 3] and F.shape == (4, 6)
    w = np.array([0.7, 0.2, -0.1, 0.3, 0.05, 0.02])
    got, s = registry.run(idx, ["a", "b", "c"], 10, "wsdm", uni=tuple(w[:3]), bi=tuple(w[3:]),
                          mu=5.0)
    want = dict(zip(d.tolist(), (F @ w).tolist()))
    assert {int(x): float(y) for x, y in zip(got, s)} == pytest.approx(want, rel=1e-12)


def test_average_precision_by_hand():
    # ranking by score, ties by the tie key descending: d2 (key 5), d0 (key 1), d1
    scores = np.array([1.0, 0.5, 1.0])
    rel = np.array([True, True, False])
    key = np.array([1, 9, 5])
    assert average_precision(scores, rel, key, 3) == pytest.approx((1 / 2 + 2 / 3) / 3)
    assert average_precision(scores, rel, key, 0) == 0.0


def test_coordinate_ascent_by_hand():
    # one topic: the relevant document has only feature u1; the start (0.8, 0, ...) ranks it
    # last (AP 1/3); lowering u0 past 0 ranks it first (AP 1): found in the first sweep
    F = np.zeros((3, 6))
    F[0, 1] = 1.0
    F[1, 0] = 1.0
    F[2, 0] = 0.5
    data = [(F, np.array([True, False, False]), np.array([0, 1, 2]), 1)]
    from tiebreak.studies.wsdm_learn import START, _mean_ap

    assert _mean_ap(np.array(START), data) == pytest.approx(1 / 3)
    w, m = coordinate_ascent(data)
    assert m == 1.0 and _mean_ap(w, data) == 1.0
    assert w[0] == pytest.approx(0.8 - 2 * 0.8)          # the first move that reaches AP 1


def test_save_and_load(tmp_path):
    learned = {"weights": [[1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1]], "train_map": [0.5, 0.25],
               "all": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], "all_map": 0.4, "mu": 2500.0,
               "topics": ["1", "2", "3"], "fold": np.array([0, 1, 0])}
    p = tmp_path / "w.json"
    save_weights(p, learned)
    doc = json.loads(p.read_text())
    assert doc["folds"][0]["topics"] == ["1", "3"] and doc["folds"][1]["bi"] == [3, 2, 1]
    assert load_weights(p) == {"uni": (0.1, 0.2, 0.3), "bi": (0.4, 0.5, 0.6), "mu": 2500.0}
    assert load_weights(p, 1)["uni"] == (6.0, 5.0, 4.0)
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValueError, match="bad.json: not a WSDM or WFDM weights file"):
        load_weights(tmp_path / "bad.json")


def test_learn_command_on_adi(shared_data, tmp_path):
    from tiebreak.index import build_index
    from tiebreak.index.testcollections import COLLECTIONS
    from tiebreak.retrieval.search import format_run, search

    c = COLLECTIONS["adi"]
    build_index(c.docs_source(shared_data), tmp_path / "adi", fields=c.fields, progress=False)
    qrels = tmp_path / "adi.qrels"
    qrels.write_bytes(c.qrels(shared_data))
    topics = c.topics_source(shared_data)
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["study", "proximity", "--index", str(tmp_path / "adi"),
                                  "--topics", str(topics), "--qrels", str(qrels), "--learn",
                                  "--folds", "3", "--out", str(out), "-q"])
    assert r.exit_code == 0, r.output
    rows = {line.split("\t")[0]: line.split("\t") for line in
            (out / "learn.tsv").read_text().splitlines()[1:]}
    assert list(rows) == ["BOW", "SDM", "SDM-seg", "FDM", "FDM-seg", "WSDM-cv", "WFDM-cv"]
    # the cross-validated run again, from the saved per-fold weights
    from tiebreak.index import open_index
    from tiebreak.index.readers import read_topics

    idx = open_index(tmp_path / "adi")
    tops = dict(read_topics(topics))
    q = tb.read_qrels(str(qrels))
    for model, row in (("wsdm", "WSDM-cv"), ("wfdm", "WFDM-cv")):
        doc = json.loads((out / f"{model}_weights.json").read_text())
        assert doc["model"] == model
        res = []
        for f, fold in enumerate(doc["folds"]):
            w = load_weights(out / f"{model}_weights.json", f)
            res += search(idx, [(t, tops[t]) for t in fold["topics"]], model, 1000, **w)
        run = tb.read_run(io.BytesIO(format_run(idx, res, "x").encode()))
        m = tb.evaluate(q, [run], ["AP"], ["trec_eval"]).mean[0, 0, 0]
        assert float(rows[row][1]) == pytest.approx(m, abs=5e-5)
        assert 0.2 < m < 0.6
    sdm = float(rows["SDM"][1])
    assert 0.3 < sdm < 0.5
    folds = (out / "learn_folds.tsv").read_text().splitlines()
    assert folds[0].split("\t")[:2] == ["model", "fold"] and len(folds) == 1 + 2 * 3
