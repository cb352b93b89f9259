"""Tie-aware fusion: ``--regime ranx`` equals ranx's ``fuse`` on three round-1 runs with ties
(every topic, scores to 1e-9), ``file`` and ``trec_eval`` rank ties by line and docno,
``expected`` equals the mean over every order of the inputs' tied groups (brute force), and the
movable-rank count."""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
import pytest
from click.testing import CliRunner

from tiebreak.cli import main
from tiebreak.runs import fuse
from tiebreak.runs.fusion import quicksort_order

TIED = ["PL2c1.0", "SinequaR1_2", "UP-cqqrnd1"]


def _scores(r) -> dict:
    d: dict = defaultdict(dict)
    for t, doc, s in zip(r.topic.tolist(), r.docid.tolist(), r.score.tolist()):
        d[r.topics[t]][str(r.docnos[doc])] = s
    return d


def test_quicksort_order_is_numba_argsort():
    numba = pytest.importorskip("numba")
    f = numba.njit(lambda a: np.argsort(a))
    rng = np.random.default_rng(2)
    for n in (1, 2, 15, 16, 17, 100, 1000):
        a = np.round(rng.uniform(0, 5, n))  # many ties
        assert quicksort_order(a) == f(a).tolist()


def test_regime_ranx_equals_ranx_on_tied_runs(shared_data):
    ranx = pytest.importorskip("ranx")
    d = shared_data / "trec_covid" / "round1" / "runs"
    paths = [str(d / f"{n}.gz") for n in TIED]
    ref = ranx.fuse([ranx.Run.from_file(p, kind="gz") for p in paths], method="rrf",
                    params={"k": 60}).to_dict()
    ours = _scores(fuse(paths, "rrf", regime="ranx"))
    te = _scores(fuse(paths, "rrf"))
    assert set(ours) == set(ref) and len(ref) == 30
    differ = 0
    for q in ref:
        assert set(ours[q]) == set(ref[q])
        np.testing.assert_allclose([ours[q][x] for x in ref[q]], list(ref[q].values()),
                                   rtol=0, atol=1e-9)
        differ += any(abs(te[q][x] - ref[q][x]) > 1e-9 for x in ref[q])
    assert differ == 30  # the trec_eval tie order differs from ranx's on every topic


def test_file_and_trec_eval_tie_orders(tmp_path):
    a = tmp_path / "a"
    a.write_text("q1 Q0 d1 1 2 A\nq1 Q0 d3 2 2 A\nq1 Q0 d2 3 2 A\nq1 Q0 d4 4 1 A\n")
    b = tmp_path / "b"
    b.write_text("q1 Q0 d4 1 3 B\nq1 Q0 d1 2 2 B\n")
    k = 60
    f = _scores(fuse([str(a), str(b)], "rrf", regime="file"))["q1"]
    assert f["d1"] == pytest.approx(1 / (k + 1) + 1 / (k + 2), abs=1e-15)
    assert f["d3"] == pytest.approx(1 / (k + 2), abs=1e-15)
    t = _scores(fuse([str(a), str(b)], "rrf"))["q1"]  # docno descending: d3, d2, d1
    assert t["d1"] == pytest.approx(1 / (k + 3) + 1 / (k + 2), abs=1e-15)
    assert t["d3"] == pytest.approx(1 / (k + 1), abs=1e-15)


@pytest.mark.parametrize("method,norm", [("rrf", None), ("isr", None), ("bordafuse", None),
                                         ("sum", "rank"), ("wsum", "borda")])
def test_expected_is_the_mean_over_tie_orders(tmp_path, method, norm):
    """Brute force: every order of every tied group of both inputs, fused in file order."""
    groups_a = [["d1", "d2", "d3"], ["d4"], ["d5", "d6"]]
    groups_b = [["d6"], ["d2", "d7"], ["d1"]]
    want: dict = defaultdict(float)
    n = 0
    for pa in itertools.product(*[itertools.permutations(g) for g in groups_a]):
        for pb in itertools.product(*[itertools.permutations(g) for g in groups_b]):
            paths = []
            for tag, perm in (("A", pa), ("B", pb)):
                lines = [f"q1 Q0 {doc} 0 {10 - gi} {tag}" for gi, g in enumerate(perm)
                         for doc in g]
                p = tmp_path / f"{tag}{n}"
                p.write_text("\n".join(lines) + "\n")
                paths.append(str(p))
            kw = {"weights": [1.0, 2.0]} if method == "wsum" else {}
            for doc, s in _scores(fuse(paths, method, norm, regime="file", **kw))["q1"].items():
                want[doc] += s
            n += 1
    got = _scores(fuse(paths, method, norm, regime="expected",
                       **({"weights": [1.0, 2.0]} if method == "wsum" else {})))["q1"]
    assert set(got) == set(want)
    for doc in want:
        assert got[doc] == pytest.approx(want[doc] / n, rel=1e-12)


def test_movable_and_refusals(tmp_path):
    a = tmp_path / "a"
    a.write_text("q1 Q0 d1 1 2 A\nq1 Q0 d2 2 2 A\nq1 Q0 d3 3 1 A\nq2 Q0 d1 1 2 A\n"
                 "q2 Q0 d2 2 1 A\n")
    b = tmp_path / "b"
    b.write_text("q1 Q0 d3 1 3 B\nq1 Q0 d4 2 2 B\nq2 Q0 d2 1 2 B\nq2 Q0 d1 2 1 B\n")
    f = fuse([str(a), str(b)], "rrf")
    # q1: d1, d2 tied in A, fused in [1/62, 1/61]; d4 has 1/62 from B, which d1 or d2 reaches
    # when ranked second (then tied with d4, which the fusion's tie-break puts first)
    assert f.movable == {"q1": 3, "q2": 0}
    assert "3 documents in 1 of 2 topics" in f.movable_summary()
    # q2 has no input ties, yet d1 and d2 tie in the fusion: not counted
    assert f.tied_groups >= 1
    with pytest.raises(ValueError, match="per-run terms"):
        fuse([str(a), str(b)], "condorcet", regime="expected")
    with pytest.raises(ValueError, match="regime"):
        fuse([str(a), str(b)], "rrf", regime="nope")
    r = CliRunner().invoke(main, ["fuse", str(a), str(b), "--regime", "expected"])
    assert r.exit_code == 0 and "could move the fused rank of 3 documents" in r.output
