"""Relevance prediction from document text and from text with ranks (Büttcher et al. 2007;
Jayasinghe et al. 2014): the tf-idf rows against a hand computation on an index of five
documents, a toy whose predictions are solved by hand, cross-validation that never trains on
the fold it predicts, the logistic fit on sparse input against scikit-learn, and the content
and hybrid adjustments of ``adjusted_scores``."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from scipy import sparse

from tiebreak.io import read_qrels, read_run
from tiebreak.judgments.adjust import adjusted_scores
from tiebreak.judgments.estimate import KMAX, topic_lists
from tiebreak.judgments.pool import run_lists
from tiebreak.judgments.predict import (
    DocumentText,
    TopicPredictor,
    _logistic_fit,
    cross_validate,
    document_text,
    prediction_scores,
)


def _lists(run_lines: dict[str, list[str]], qrels_text: str):
    runs = [read_run(io.BytesIO(("\n".join(lines) + "\n").encode()), name=name)
            for name, lines in run_lines.items()]
    q = read_qrels(io.BytesIO(qrels_text.encode()))
    return runs, q, run_lists(runs, q)


def _text(L, vectors: dict[str, dict[int, float]], vocab: int) -> DocumentText:
    """A DocumentText with the given (already normalised) rows, by docno."""
    rows, cols, vals = [], [], []
    for i, d in enumerate(L.docnos):
        for c, v in vectors.get(str(d), {}).items():
            rows.append(i)
            cols.append(c)
            vals.append(v)
    M = sparse.csr_matrix((vals, (rows, cols)), shape=(len(L.docnos), vocab))
    return DocumentText(M, np.array([str(d) in vectors for d in L.docnos]))


# ---------------------------------------------------------------- tf-idf rows from an index


def test_document_text_is_log_tf_idf_l2_normalised(tmp_path):
    from tiebreak.index import build_index

    docs = {"d1": "cat cat dog", "d2": "dog fish", "d3": "fish fish fish bird",
            "d4": "cat bird", "d5": "dog"}
    src = tmp_path / "c.trec"
    src.write_text("".join(f"<DOC>\n<DOCNO>{k}</DOCNO>\n<TEXT>\n{v}\n</TEXT>\n</DOC>\n"
                           for k, v in docs.items()))
    idx = build_index(str(src), tmp_path / "idx", progress=False)
    T = document_text(idx, np.array(["d3", "nope", "d1", "d5"]))
    assert T.found.tolist() == [True, False, True, True]
    df = {"cat": 2, "dog": 3, "fish": 2, "bird": 2}
    for row, name in ((0, "d3"), (2, "d1"), (3, "d5")):
        words = docs[name].split()
        w = {t: (1 + math.log(words.count(t))) * math.log(5 / df[t]) for t in set(words)}
        n = math.sqrt(sum(v * v for v in w.values()))
        got = {idx.term(int(c)): v for c, v in zip(T.matrix[row].indices, T.matrix[row].data)}
        assert got == pytest.approx({t: v / n for t, v in w.items()}, abs=1e-12)
    assert T.matrix[1].nnz == 0          # not in the index: a zero row
    with pytest.raises(ValueError, match="none of the 2 documents"):
        document_text(idx, np.array(["x", "y"]))


# ------------------------------------------------------------------ a toy solved by hand


def _toy():
    """Topic 1: r1 ranks a b c d e f, r2 ranks b a d c f e; a, b relevant and made of the
    term 0 ("apple"), c, d non-relevant of term 1 ("pear"); e holds apple, f holds both."""
    runs, q, L = _lists({"r1": [f"1 Q0 {d} {i + 1} {10 - i} r1" for i, d in enumerate("abcdef")],
                         "r2": [f"1 Q0 {d} {i + 1} {10 - i} r2" for i, d in enumerate("badcfe")]},
                        "1 0 a 1\n1 0 b 1\n1 0 c 0\n1 0 d 0\n")
    s = 1 / math.sqrt(2)
    T = _text(L, {"a": {0: 1.0}, "b": {0: 1.0}, "c": {1: 1.0}, "d": {1: 1.0}, "e": {0: 1.0},
                  "f": {0: s, 1: s}}, 2)
    return runs, q, L, T


def test_content_predictions_solve_the_toy_by_hand():
    from scipy.optimize import brentq

    _, q, L, T = _toy()
    tl = topic_lists(L, q, [0, 1], KMAX)[0]
    model = TopicPredictor(tl, "content", 0.95, 1.0, T)
    # by symmetry the intercept is 0 and the weights are (w, -w); the gradient in w gives
    # 2 w = 4 * sigma(-w) (two documents of each class, lam = 1)
    w = brentq(lambda x: 2 * x - 4 / (1 + math.exp(x)), 0, 10)
    assert model.b == pytest.approx([0.0, w, -w], abs=1e-7)
    prob = dict(zip((str(L.docnos[d]) for d in tl.docs), model(tl.docs, tl.ranks)))
    sig = 1 / (1 + math.exp(-w))
    assert prob["a"] == pytest.approx(sig, abs=1e-8) and prob["e"] == pytest.approx(sig, 1e-8)
    assert prob["c"] == pytest.approx(1 - sig, abs=1e-8)
    assert prob["f"] == pytest.approx(0.5, abs=1e-8)       # apple and pear cancel


def test_content_and_hybrid_adjustments_score_unjudged_documents_at_their_probability():
    _, q, L, T = _toy()
    p, depth = 0.5, 6
    tl = topic_lists(L, q, [0, 1], KMAX)[0]
    lower = np.zeros((2, 1))
    upper = np.ones((2, 1))
    adj = adjusted_scores(L, q, ["r1", "r2"], 4, lower, upper, p, depth,
                          ("prediction", "content", "hybrid"), text=T)
    for name, kind in (("prediction", "rank"), ("content", "content"), ("hybrid", "hybrid")):
        model = TopicPredictor(tl, kind, p, 1.0, T)
        prob = dict(zip((str(L.docnos[d]) for d in tl.docs), model(tl.docs, tl.ranks)))
        gain = {"a": 1, "b": 1, "c": 0, "d": 0, "e": prob["e"], "f": prob["f"]}
        for r, order in enumerate(("abcdef", "badcfe")):
            want = sum((1 - p) * p ** i * gain[d] for i, d in enumerate(order))
            assert adj[name][r, 0] == pytest.approx(want, abs=1e-12), name
    with pytest.raises(ValueError, match="needs the documents' text"):
        adjusted_scores(L, q, ["r1", "r2"], 4, lower, upper, p, depth, ("content",))


def test_a_document_no_contributing_run_retrieves_keeps_its_own_text():
    # r3 does not contribute; its document g holds apple: content scores it by its text, the
    # rank predictor as a document with absent ranks
    runs, q, L = _lists({"r1": [f"1 Q0 {d} {i + 1} {10 - i} r1" for i, d in enumerate("abcd")],
                         "r2": [f"1 Q0 {d} {i + 1} {10 - i} r2" for i, d in enumerate("badc")],
                         "r3": ["1 Q0 g 1 5 r3"]},
                        "1 0 a 1\n1 0 b 1\n1 0 c 0\n1 0 d 0\n")
    T = _text(L, {"a": {0: 1.0}, "b": {0: 1.0}, "c": {1: 1.0}, "d": {1: 1.0}, "g": {0: 1.0}}, 2)
    got = prediction_scores(L, q, ["r1", "r2"], 0.5, 1, ["r3"], "content", T)
    tl = topic_lists(L, q, [0, 1], KMAX)[0]
    model = TopicPredictor(tl, "content", 0.5, 1.0, T)
    a = int(np.flatnonzero(L.docnos == "a")[0])
    assert got[0, 0] == pytest.approx(0.5 * model(np.array([a]), tl.ranks[:1])[0], abs=1e-12)
    assert got[0, 0] > 0.5 * 0.5


# --------------------------------------------------------------------------- cross-validation


def _unique_terms(n_pos=4, n_neg=4):
    """One run of n_pos relevant then n_neg non-relevant documents, each of its own term."""
    names = [f"x{i}" for i in range(n_pos + n_neg)]
    runs, q, L = _lists({"r": [f"1 Q0 {d} {i + 1} {100 - i} r" for i, d in enumerate(names)]},
                        "".join(f"1 0 {d} {int(i < n_pos)}\n" for i, d in enumerate(names)))
    T = _text(L, {d: {i: 1.0} for i, d in enumerate(names)}, len(names))
    return L, q, T


def test_cross_validation_never_trains_on_the_fold_it_predicts():
    # every document has its own term: a model that saw a document predicts it (AUC 1); one
    # that did not has weight 0 on its term and predicts the training prior, 0.5 by symmetry
    L, q, T = _unique_terms()
    (row,) = cross_validate(L, q, ["r"], "content", T, folds=4, seed=3)
    assert row["prob"] == pytest.approx(np.full(8, 0.5), abs=1e-7)
    assert row["auc"] == 0.5 and row["accuracy"] == 0.5
    # stratified: every fold holds one relevant and one non-relevant document
    y = np.array([str(L.docnos[d]) in {"x0", "x1", "x2", "x3"} for d in row["docs"]])
    for f in range(4):
        assert sorted(y[row["fold"] == f].tolist()) == [False, True]
    # the same model fitted on everything does separate them (the leak the test would catch)
    tl = topic_lists(L, q, [0], KMAX)[0]
    full = TopicPredictor(tl, "content", text=T)(tl.docs, tl.ranks)
    assert ((full > 0.5) == (tl.gain > 0)).all()


def test_cross_validation_skips_topics_short_of_a_class_and_checks_folds():
    L, q, T = _unique_terms(n_pos=2, n_neg=6)
    (row,) = cross_validate(L, q, ["r"], "content", T, folds=3)
    assert math.isnan(row["auc"]) and math.isnan(row["accuracy"]) and row["relevant"] == 2
    (row,) = cross_validate(L, q, ["r"], "rank", None, folds=2)
    assert row["judged"] == 8 and not math.isnan(row["auc"])
    with pytest.raises(ValueError, match="at least 2 folds"):
        cross_validate(L, q, ["r"], "rank", folds=1)
    with pytest.raises(ValueError, match="needs document text"):
        cross_validate(L, q, ["r"], "hybrid", folds=2)


def test_logistic_fit_on_sparse_input_matches_scikit_learn():
    LogisticRegression = pytest.importorskip("sklearn.linear_model").LogisticRegression
    rng = np.random.default_rng(7)
    X = sparse.random(60, 40, density=0.1, random_state=7, format="csr")
    y = (rng.random(60) < 0.4).astype(float)
    b = _logistic_fit(X, y, 2.0)
    clf = LogisticRegression(C=0.5, tol=1e-10, max_iter=10000).fit(X, y)
    assert b[0] == pytest.approx(clf.intercept_[0], abs=1e-5)
    assert b[1:] == pytest.approx(clf.coef_[0], abs=1e-5)
    assert _logistic_fit(X.toarray(), y, 2.0) == pytest.approx(b, abs=1e-6)


# ---------------------------------------------------------------- end to end on a collection


@pytest.mark.slow
def test_content_prediction_end_to_end_on_adi(shared_data, tmp_path):
    """ADI (82 documents, 35 topics): index, three runs, the qrels completed over the runs
    (ADI lists only relevant documents), a depth-5 pool; ``tiebreak estimate --baselines
    content,hybrid`` and ``tiebreak study predict`` give what the library gives."""
    import json

    from click.testing import CliRunner

    from tiebreak.cli import main
    from tiebreak.index import open_index
    from tiebreak.index.testcollections import COLLECTIONS
    from tiebreak.judgments.pool import pool_depth, restrict_qrels
    from tiebreak.studies.predict import pool_judgments, predict_summary, run_predict_study

    adi = shared_data / "adi"
    cli = CliRunner()
    idx = str(tmp_path / "idx")
    assert cli.invoke(main, ["index", str(adi / "ADI.ALL"), "-o", idx]).exit_code == 0
    paths = []
    for m in ("bm25", "ql", "vsm"):
        r = cli.invoke(main, ["search", idx, "--topics", str(adi / "ADI.QRY"), "--model", m,
                              "-k", "30"])
        assert r.exit_code == 0, r.output
        paths.append(tmp_path / f"{m}.run")
        paths[-1].write_text(r.stdout)
    runs = [read_run(str(p)) for p in paths]
    listed = read_qrels(io.BytesIO(COLLECTIONS["adi"].qrels(shared_data)))
    L0 = run_lists(runs, listed)
    full = pool_judgments(listed, L0, None, list(L0.names), unlisted_nonrelevant=True)
    retrieved = {(ln.split()[0], ln.split()[2]) for p in paths for ln in open(p)}
    rel = {(listed.topics[t], str(listed.docnos[d])) for t, d in zip(listed.topic, listed.docid)}
    got = {(full.topics[t], str(full.docnos[d])): int(v)
           for t, d, v in zip(full.topic, full.docid, full.value)}
    assert got == {k: int(k in rel) for k in retrieved}
    fq = tmp_path / "complete.qrels"
    from tiebreak.judgments.pool import write_qrels

    with open(fq, "w") as fh:
        write_qrels(full, fh)
    shallow = restrict_qrels(full, pool_depth(run_lists(runs, full), 5))
    sq = tmp_path / "shallow.qrels"
    with open(sq, "w") as fh:
        write_qrels(shallow, fh)
    # tiebreak estimate --baselines content,hybrid
    r = cli.invoke(main, ["estimate", str(sq), *map(str, paths), "--dprime", "5", "--depth",
                          "20", "--baselines", "prediction,content,hybrid", "--index", idx,
                          "--estimator", "content", "--format", "json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    L = run_lists(runs, shallow)
    T = document_text(open_index(idx), L.docnos)
    want = prediction_scores(L, shallow, list(L.names), 0.95, 20, None, "content", T)
    got = {(x["run"], x["qid"]): x["estimate"] for x in rows}
    for i, name in enumerate(L.names):
        for j, t in enumerate(L.topics):
            assert got[(name, t)] == pytest.approx(want[i, j], abs=1e-12)
    assert all(x["lower"] - 1e-12 <= x["estimate"] <= x["upper"] + 1e-12 for x in rows)
    bad = cli.invoke(main, ["estimate", str(sq), *map(str, paths), "--baselines", "content"])
    assert bad.exit_code == 2 and "--index" in bad.stderr
    # study estimate --index adds content and hybrid to the default baselines
    r = cli.invoke(main, ["study", "estimate", str(fq), *map(str, paths), "--index", idx,
                          "--pool-depth", "5", "--reference-depth", "20", "--models", "const",
                          "--loss", "a", "--two-strata", "0", "-j", "1", "--format", "json"])
    assert r.exit_code == 0, r.output
    acc = {x["estimator"]: x for x in json.loads(r.stdout)["accuracy"]}
    from tiebreak.judgments.accuracy import accuracy
    from tiebreak.judgments.scoring import score_runs

    Lf = run_lists(runs, full)
    sh = restrict_qrels(full, pool_depth(Lf, 5))
    T = document_text(open_index(idx), Lf.docnos)
    truth = score_runs(full, runs, ["RBP(p=0.95)"], [20])
    lo, res = truth["scores"][:, 0, 0, 0], truth["residual"][:, 0, 0, 0]
    for name in ("content", "hybrid"):
        est = prediction_scores(Lf, sh, list(Lf.names), 0.95, 20, None, name, T)
        assert acc[name]["RMSE"] == pytest.approx(accuracy(est, lo, lo + res)["RMSE"], abs=1e-12)
    # tiebreak study predict
    r = cli.invoke(main, ["study", "predict", str(fq), *map(str, paths), "--index", idx,
                          "--pool-depth", "10", "--folds", "3", "--predictors", "content,hybrid",
                          "--format", "json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    df = run_predict_study(full, runs, open_index(idx), 10, None, ("content", "hybrid"), 3)
    summary = predict_summary(df)
    assert [s["predictor"] for s in doc["summary"]] == ["content", "hybrid"]
    for s, (_, w) in zip(doc["summary"], summary.iterrows()):
        assert s["topics"] == w["topics"] == 13   # with 3 relevant and 3 non-relevant
        assert s["auc"] == pytest.approx(w["auc"], abs=1e-12)
        assert s["accuracy"] == pytest.approx(w["accuracy"], abs=1e-12)
    assert len(doc["topics"]) == 2 * len(full.topics)
