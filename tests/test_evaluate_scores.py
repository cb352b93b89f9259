"""tiebreak.evaluate_scores: a score matrix evaluated equals the equivalent run file evaluated."""

from __future__ import annotations

import numpy as np
import pytest

import tiebreak as tb
from tiebreak.evaluation import scores as SC
from tiebreak.evaluation.compute import WARN_TIED
from tiebreak.ranking.formats import WARN_MERGED

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "R@20"]


def problem(seed=0, nq=23, nd=60):
    rng = np.random.default_rng(seed)
    qids = [f"q{i}" for i in range(nq)]
    docs = [f"d{j:03d}" for j in rng.permutation(nd)]  # not in byte order
    S = np.round(rng.normal(0, 1, (nq, nd)), 1)  # many ties
    S[3] = 0.5  # one query whose documents all tie
    lines = []
    for q in qids[:-2]:  # two queries without judgments
        for j in rng.choice(nd, 15, replace=False):
            lines.append(f"{q} 0 {docs[j]} {rng.integers(0, 3)}")
    lines.append("qx 0 d000 1")  # a qrels topic the matrix lacks
    return qids, docs, S, "\n".join(lines) + "\n"


def write_run(path, qids, docs, rows):
    """rows: per query a list of (doc index, score) in file order."""
    with open(path, "w") as f:
        for q, row in zip(qids, rows):
            for r, (j, s) in enumerate(row, 1):
                f.write(f"{q} Q0 {docs[j]} {r} {float(s)!r} scores\n")


def same(a, b):
    assert a.runs == b.runs and a.topics == b.topics and a.regimes == b.regimes
    np.testing.assert_array_equal(a.per_topic, b.per_topic)
    np.testing.assert_array_equal(a.mean, b.mean)


def dense_rows(S, k):
    out = []
    for s in S:
        o = sorted(range(len(s)), key=lambda j: (-s[j], j))[:k]
        out.append([(j, s[j]) for j in o])
    return out


@pytest.mark.parametrize("k", [None, 7])
@pytest.mark.parametrize("precision", ["float64", "float16", "int8", "decimals:0"])
def test_dense_equals_the_run_file(tmp_path, k, precision):
    qids, docs, S, qrels_text = problem()
    (tmp_path / "q").write_text(qrels_text)
    qrels = tb.read_qrels(str(tmp_path / "q"))
    write_run(tmp_path / "r", qids, docs, dense_rows(S, k or S.shape[1]))
    want = tb.evaluate(qrels, [str(tmp_path / "r")], MEASURES, "all",
                       score_precision=precision)
    got = tb.evaluate_scores(qrels, S, qids, docs, k=k, precision=precision,
                             measures=MEASURES, regimes="all")
    same(got, want)
    w, g = want.warnings["scores"], got.warnings["scores"]
    assert g[WARN_TIED] == w[WARN_TIED] > 0
    assert g.get(WARN_MERGED) == w.get(WARN_MERGED)


@pytest.mark.parametrize("precision", ["float64", "bfloat16", "int8-global", "bits:2"])
def test_top_k_equals_the_run_file(tmp_path, monkeypatch, precision):
    monkeypatch.setattr(SC, "BLOCK_LINES", 40)  # several blocks of queries
    qids, docs, S, qrels_text = problem(1)
    (tmp_path / "q").write_text(qrels_text)
    qrels = tb.read_qrels(str(tmp_path / "q"))
    rng = np.random.default_rng(2)
    k = 9
    ix = np.stack([rng.choice(S.shape[1], k, replace=False) for _ in qids])
    sc = np.take_along_axis(S, ix, axis=1).astype(np.float32)  # as a GPU returns them
    ix[5, 6:] = -1  # FAISS padding
    ix[8, :] = -1  # a query with no result at all
    rows = [[(j, s) for j, s in zip(r, t) if j >= 0] for r, t in zip(ix, sc)]
    write_run(tmp_path / "r", qids, docs, rows)
    want = tb.evaluate(qrels, [str(tmp_path / "r")], MEASURES, "all",
                       score_precision=precision)
    got = tb.evaluate_scores(qrels, (sc, ix), qids, docs, precision=precision,
                             measures=MEASURES, regimes="all")
    same(got, want)


def test_bad_input_is_named():
    qids, docs, S, _ = problem()
    qrels = {"q0": {docs[0]: 1}}
    with pytest.raises(ValueError, match="shape"):
        tb.evaluate_scores(qrels, S[:, :5], qids, docs)
    with pytest.raises(ValueError, match="appears more than once"):
        tb.evaluate_scores(qrels, S, qids, docs[:-1] + docs[:1])
    bad = S.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="not a finite number"):
        tb.evaluate_scores(qrels, bad, qids, docs)
    ix = np.zeros((len(qids), 2), np.int64)
    with pytest.raises(ValueError, match="listed twice"):
        tb.evaluate_scores(qrels, (S[:, :2], ix), qids, docs)
    with pytest.raises(ValueError, match="precision"):
        tb.evaluate_scores(qrels, S, qids, docs, precision="float8")
