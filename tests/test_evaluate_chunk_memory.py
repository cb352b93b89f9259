"""Memory of a topic-chunked evaluation does not grow with the qrels' topics (issue 29): the
qrels-side arrays cached on the Qrels (ideal lists, gain tables per topic set: one entry per
chunk) are bounded in bytes, the oldest dropped first, with the same values as unbounded."""

from __future__ import annotations

import numpy as np

import tiebreak as tb
import tiebreak.ranking.rankings as rankings

MEASURES = ["AP", "nDCG@10", "nDCG", "Rndcg", "bpref"]


def _inputs(tmp_path, n_topics=40, seed=5):
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for t in range(n_topics):
        docs = rng.choice(300, 60, replace=False)
        score = np.sort(rng.integers(0, 8, 60))[::-1] / 4
        run += [f"{t} Q0 d{d} {r} {s} tag\n" for r, (d, s) in enumerate(zip(docs, score), 1)]
        for d in rng.choice(300, 80, replace=False):
            qrels.append(f"{t} 0 d{d} {int(rng.integers(0, 4))}\n")
    qrels.append("999 0 d1 1\n")  # a qrels topic the run lacks: evaluated after the parts
    (tmp_path / "qrels").write_text("".join(qrels))
    (tmp_path / "run").write_text("".join(run))
    return tmp_path / "qrels", tmp_path / "run"


def _evaluate(qp, rp, **kw):
    q = tb.read_qrels(qp)
    res = tb.Evaluator(q, MEASURES, "all", samples=20, **kw).evaluate([str(rp)])
    return q, res


def test_qrels_side_cache_bounded_in_bytes(tmp_path, monkeypatch):
    qp, rp = _inputs(tmp_path)
    q0, whole = _evaluate(qp, rp)
    q1, unbounded = _evaluate(qp, rp, chunk_topics=3)
    full = sum(q1.__dict__["_qrels_side_bytes"].values())
    cap = full // 5
    monkeypatch.setattr(rankings, "QRELS_SIDE_BYTES", cap)
    q2, bounded = _evaluate(qp, rp, chunk_topics=3)
    c, sizes = q2.__dict__["_qrels_side"], q2.__dict__["_qrels_side_bytes"]
    assert list(c) == list(sizes)  # the sizes follow the entries
    assert 0 < sum(sizes.values()) <= cap < full  # entries were dropped, the bound held
    assert len(c) < len(q1.__dict__["_qrels_side"])
    for res in (unbounded, bounded):
        assert np.array_equal(res.per_topic, whole.per_topic, equal_nan=True)
        assert res.warnings == whole.warnings
    assert not np.isnan(whole.per_topic[0][:, :, q0.topics.index("999")]).any()


def test_one_entry_larger_than_the_bound_is_kept_alone(tmp_path, monkeypatch):
    qp, rp = _inputs(tmp_path, n_topics=12)
    monkeypatch.setattr(rankings, "QRELS_SIDE_BYTES", 1)
    q, res = _evaluate(qp, rp)
    assert len(q.__dict__["_qrels_side"]) == 1
    monkeypatch.undo()
    _, want = _evaluate(qp, rp)
    assert np.array_equal(res.per_topic, want.per_topic, equal_nan=True)
