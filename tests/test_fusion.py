"""Fusion against ranx's ``fuse`` (the oracle) on real TREC-COVID round 1 runs, every method and
normalisation both have; plus hand-checked values and the tie counts.

Score-based methods do not depend on the order of tied documents, so they are compared on the
runs as they are. Rank-based methods (RRF, ISR, log_ISR, BordaFuse, rank/borda normalisation)
use ranks, and ranx ranks tied scores in the order of numba's quicksort; for those the runs are
first given strictly decreasing scores in trec_eval order (the order tiebreak ranks by), so both
see the same ranks. The runs are cut to 60 documents per topic and 15 topics to keep the test
fast (ranx compiles every method with numba); benchmarks/bench_fusion.py compares them in
full."""

from __future__ import annotations

import numpy as np
import pytest

import tiebreak as tb
from tiebreak.runs import fuse, normalise_scores

ranx = pytest.importorskip("ranx")

RUNS = ["BBGhelani1.gz", "BM25R2.gz", "BITEM_BL.gz"]
SCORE_METHODS = ["sum", "mnz", "anz", "max", "min", "med", "wsum"]
RANK_METHODS = ["rrf", "isr", "log_isr", "bordafuse"]
NORMS = ["min-max", "zmuv", "max", "sum", "rank", "borda", None]


def _top(d: dict, k: int) -> dict:
    return {q: dict(sorted(v.items(), key=lambda x: (-x[1], [-ord(c) for c in x[0]]))[:k])
            for q, v in d.items()}


def _as_dict(r) -> dict:
    d: dict = {}
    for t, doc, s in zip(r.topic.tolist(), r.docid.tolist(), r.score.tolist()):
        d.setdefault(r.topics[t], {})[str(r.docnos[doc])] = s
    return d


def _untie(d: dict) -> dict:
    """Scores n, n-1, ..., 1 in trec_eval order (score descending, docno descending)."""
    out = {}
    for q, v in d.items():
        order = sorted(v, key=lambda x: (-v[x], tuple(-ord(c) for c in x)))
        out[q] = {doc: float(len(order) - i) for i, doc in enumerate(order)}
    return out


@pytest.fixture(scope="module")
def dicts(shared_data):
    base = shared_data / "trec_covid/round1/runs"
    return [{q: v for q, v in _top(_as_dict(tb.read_run(base / n)), 60).items()
             if int(q) <= 15} for n in RUNS]


def _agree(mine, theirs) -> tuple[int, int]:
    """(values compared, values that differ beyond 1e-12 relative)."""
    got = _as_dict(mine)
    n = bad = 0
    for q, v in theirs.run.items():
        for d, x in v.items():
            n += 1
            y = got.get(q, {}).get(d)
            if y is None or not np.isclose(y, x, rtol=1e-12, atol=1e-12):
                bad += 1
    assert sum(len(v) for v in got.values()) == n  # no extra documents either
    return n, bad


@pytest.mark.slow
@pytest.mark.parametrize("norm", NORMS)
def test_score_methods_equal_ranx(dicts, norm):
    """Every score-based method under min-max, every normalisation under CombSUM and CombMNZ
    (the full matrix is in benchmarks/bench_fusion.py)."""
    src = dicts if norm not in ("rank", "borda") else [_untie(d) for d in dicts]
    rr = [ranx.Run.from_dict(d) for d in src]
    for m in SCORE_METHODS if norm == "min-max" else ["sum", "mnz"]:
        params = {"weights": [1.0, 2.0, 0.5]} if m == "wsum" else None
        ref = ranx.fuse(rr, norm=norm, method=m, params=params)
        mine = fuse(src, m, norm, weights=params and params["weights"])
        n, bad = _agree(mine, ref)
        assert n > 1200 and bad == 0, (m, norm, bad)


@pytest.mark.slow
def test_rank_methods_equal_ranx(dicts):
    src = [_untie(d) for d in dicts]
    rr = [ranx.Run.from_dict(d) for d in src]
    for m in RANK_METHODS:
        n, bad = _agree(fuse(src, m), ranx.fuse(rr, method=m))
        assert n > 1200 and bad == 0, (m, bad)
    n, bad = _agree(fuse(src, "rrf", k=10), ranx.fuse(rr, method="rrf", params={"k": 10}))
    assert bad == 0


@pytest.mark.slow
def test_condorcet_equals_ranx_comparator(dicts):
    """ranx sorts the candidates of a set (an order that changes between processes) with a
    comparator that is not a total order; given the same starting order (docno byte order),
    its sort and tiebreak's agree."""
    from numba.typed import List as TypedList
    from ranx.fusion.condorcet import _condorcet

    src = [{q: v for q, v in _untie(d).items() if q in ("1", "2")} for d in dicts]
    mine = _as_dict(fuse(src, "condorcet"))
    for q in ("1", "2"):
        cands = sorted({doc for d in src for doc in d[q]})
        results = TypedList([TypedList(list(d[q])) for d in src])
        ref = _condorcet(results, TypedList(cands))
        assert {k: float(v) for k, v in ref.items()} == mine[q]


def test_hand_values_and_ties():
    a = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    b = {"q": {"d4": 9.0, "d1": 5.0}}
    f = fuse([a, b], "rrf", k=60)
    got = _as_dict(f)["q"]
    assert got == {"d1": 1 / 61 + 1 / 62, "d2": 1 / 62, "d3": 1 / 63, "d4": 1 / 61}
    assert f.tied_groups == 0
    c = {"q": {"d5": 1.0, "d2": 0.5}}
    f = fuse([a, c], "rrf")
    # d1 and d5 are both rank 1 of one run only: tied at 1/61
    assert _as_dict(f)["q"]["d1"] == _as_dict(f)["q"]["d5"] == 1 / 61
    assert (f.tied_groups, f.tied_docs, f.tied_topics) == (1, 2, 1)
    assert "1 tied groups (2 documents) in 1 of 1 topics" in f.ties_summary()
    # Borda: 4 candidates; a gives 4, 3, 2 and (4 - 3 + 1) / 2 = 1 to d5; c gives 4, 3 and
    # (4 - 2 + 1) / 2 = 1.5 to d1 and d3
    got = _as_dict(fuse([a, c], "bordafuse"))["q"]
    assert got == {"d1": 5.5, "d2": 6.0, "d3": 3.5, "d5": 5.0}
    # min-max then CombSUM; ranks follow trec_eval order in the output
    f = fuse([a, b], "sum", "min-max")
    assert _as_dict(f)["q"] == {"d1": 1.0, "d2": 0.5, "d3": 0.0, "d4": 1.0}
    assert [str(f.docnos[i]) for i in f.docid] == ["d4", "d1", "d2", "d3"]
    assert f.rank.tolist() == [1, 2, 3, 4]


def test_normalise_scores_by_hand():
    s = np.array([4.0, 2.0, 1.0, 10.0, 10.0])
    t = np.array([0, 0, 0, 1, 1])
    assert normalise_scores(s, t, "min-max").tolist() == [1.0, 1 / 3, 0.0, 0.0, 0.0]
    assert normalise_scores(s, t, "max").tolist() == [1.0, 0.5, 0.25, 1.0, 1.0]
    assert np.allclose(normalise_scores(s, t, "rank"), [1.0, 2 / 3, 1 / 3, 1.0, 0.5],
                       rtol=1e-15)
    z = normalise_scores(s, t, "z-score")
    assert np.allclose(z[:3], (s[:3] - s[:3].mean()) / s[:3].std()) and z[3] == 0.0


def test_errors():
    a = {"q": {"d1": 1.0}}
    with pytest.raises(ValueError, match="unknown fusion method"):
        fuse([a, a], "combfoo")
    with pytest.raises(ValueError, match="at least two"):
        fuse([a], "sum")
    with pytest.raises(ValueError, match="2 weights for 3 runs"):
        fuse([a, a, a], "wsum", weights=[1, 2])
    with pytest.raises(ValueError, match="unknown normalisation"):
        fuse([a, a], "sum", "nope")
