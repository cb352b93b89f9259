"""Weighted FDM and PMI query segmentation (:mod:`tiebreak.retrieval.wfdm`,
:mod:`tiebreak.retrieval.segment`): hand computations on three documents, the reductions to
FDM / SDM, the learned WFDM's cross-validation folds and its saved weights."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

import tiebreak as tb
from tiebreak.index import Analyzer
from tiebreak.index.build import build_index_from_tokens
from tiebreak.retrieval import registry
from tiebreak.retrieval.segment import adjacent_pmi, segment

# d0 "a b c d", d1 "a b x c", d2 "c x d b": |C| = 12, every |D| = 4
TERMS = ["a", "b", "c", "d", "x"]
DOCS = ["a b c d", "a b x c", "c x d b"]
MU = 5.0


@pytest.fixture
def idx(tmp_path):
    toks, ptr = [], [0]
    for text in DOCS:
        toks += [TERMS.index(t) for t in text.split()]
        ptr.append(len(toks))
    return build_index_from_tokens(tmp_path / "i", ["d0", "d1", "d2"], np.array(toks),
                                   np.array(ptr), TERMS, Analyzer("none", "none"))


def _phi(f_d, f_c):
    """Dirichlet potential of a document of length 4 in a collection of 12 tokens."""
    return math.log((f_d + MU * f_c / 12) / (4 + MU))


def _scores(idx, terms, model, **p):
    d, s = registry.run(idx, terms, 10, model, mu=MU, **p)
    return dict(zip(d.tolist(), s.tolist()))


def test_pmi_segmentation_by_hand(idx):
    # phrases: "a b" 2 (d0, d1), "b c" 1 (d0), "c d" 1 (d0); cf a 2, b 3, c 3, d 2
    # PMI = ln(cf(#1) |C| / (cf cf)): ab ln(24/6) = ln 4, bc ln(12/9), cd ln(12/6) = ln 2
    tids = [idx.term_id(t) for t in "abcd"]
    assert adjacent_pmi(idx, tids).tolist() == pytest.approx(
        [math.log(4), math.log(12 / 9), math.log(2)], rel=1e-14)
    q = ["a", "b", "c", "d"]
    assert segment(idx, q, 0.0) == [["a", "b", "c", "d"]]
    assert segment(idx, q, 0.5) == [["a", "b"], ["c", "d"]]          # cut at b|c (0.288)
    assert segment(idx, q, 1.0) == [["a", "b"], ["c"], ["d"]]        # and at c|d (0.693)
    assert segment(idx, q, 2.0) == [["a"], ["b"], ["c"], ["d"]]
    # "a c" never occurs as a phrase: PMI -inf, cut at any threshold
    assert adjacent_pmi(idx, [idx.term_id("a"), idx.term_id("c")])[0] == -math.inf
    assert segment(idx, ["a", "c"], -1e9) == [["a"], ["c"]]
    from tiebreak.retrieval.wsdm import _phrase_masks

    # the phrase-count kernel is compiled for one signature (int64 / int32 index arrays)
    assert len(getattr(_phrase_masks, "signatures", [None])) == 1


# Query "a b c" by hand. Term stats: cf/df a 2/2, b 3/3, c 3/3. Concepts (exact phrase in query
# order): ab cf 2 df 2; bc cf 1 df 1; abc cf 1 df 1; ac cf 0 df 0.
# Per document: #1 ab (d0 1, d1 1, d2 0; total 2), #1 bc (1, 0, 0; 1), #1 abc (1, 0, 0; 1);
# #uw8 {a,b} (1, 1, 0; 2), #uw8 {b,c} (1, 1, 1: d2 c@0..b@3; 3), #uw8 {a,c} (1, 1, 0; 2),
# #uw12 {a,b,c} (1, 1, 0; 2); tf a (1, 1, 0), b (1, 1, 1), c (1, 1, 1).
TF = {"a": (1, 1, 0), "b": (1, 1, 1), "c": (1, 1, 1)}
CF = {"a": 2, "b": 3, "c": 3}
ORD = {"ab": ((1, 1, 0), 2), "bc": ((1, 0, 0), 1), "abc": ((1, 0, 0), 1)}
UNO = {"ab": ((1, 1, 0), 2), "bc": ((1, 1, 1), 3), "ac": ((1, 1, 0), 2),
       "abc": ((1, 1, 0), 2)}


def _hand_wfdm(u, v, keep=("ab", "bc", "ac", "abc")):
    lam_t = {"a": u[0] + (u[1] + u[2]) * math.log(2), "b": u[0] + (u[1] + u[2]) * math.log(3),
             "c": u[0] + (u[1] + u[2]) * math.log(3)}
    lam_c = {"ab": v[0] + (v[1] + v[2]) * math.log(2), "bc": v[0], "abc": v[0], "ac": v[0]}
    out = {}
    for d in range(3):
        s = sum(lam_t[t] * _phi(TF[t][d], CF[t]) for t in "abc")
        s += sum(lam_c[c] * _phi(ORD[c][0][d], ORD[c][1]) for c in ORD if c in keep)
        s += sum(lam_c[c] * _phi(UNO[c][0][d], UNO[c][1]) for c in UNO if c in keep)
        out[d] = s
    return out


def test_wfdm_by_hand(idx):
    u, v = (0.7, 0.2, -0.1), (0.3, 0.05, 0.02)
    got = _scores(idx, ["a", "b", "c"], "wfdm", uni=u, bi=v)
    assert got == pytest.approx(_hand_wfdm(u, v), rel=1e-12)
    # segment at PMI 0.5 cuts b|c: only the concept ab is kept
    got = _scores(idx, ["a", "b", "c"], "wfdm", uni=u, bi=v, segment=0.5)
    assert got == pytest.approx(_hand_wfdm(u, v, keep=("ab",)), rel=1e-12)


def test_wfdm_with_constant_weights_is_fdm(idx):
    # u = (a, 0, 0), v = (c, 0, 0): FDM with (a |Q|, c n_o, c n_u), n_o = 3, n_u = 4
    got = _scores(idx, ["a", "b", "c", "a"], "wfdm", uni=(0.5, 0, 0), bi=(0.2, 0, 0))
    want = _scores(idx, ["a", "b", "c", "a"], "fdm", weights=(0.5 * 4, 0.2 * 3, 0.2 * 4))
    assert got == pytest.approx(want, rel=1e-12)


def test_segmented_models_by_hand(idx):
    q = ["a", "b", "c"]
    # no cut: exactly SDM / FDM
    assert _scores(idx, q, "sdm-seg", pmi=-50.0) == pytest.approx(_scores(idx, q, "sdm"),
                                                                   rel=1e-12)
    assert _scores(idx, q, "fdm-seg", pmi=-50.0) == pytest.approx(_scores(idx, q, "fdm"),
                                                                   rel=1e-12)
    # PMI 0.5 cuts b|c: SDM keeps the pair ab alone (group weights over 1 child)
    uni = {d: sum(0.8 / 3 * _phi(TF[t][d], CF[t]) for t in "abc") for d in range(3)}
    want = {d: uni[d] + 0.15 * _phi(ORD["ab"][0][d], 2) + 0.05 * _phi(UNO["ab"][0][d], 2)
            for d in range(3)}
    assert _scores(idx, q, "sdm-seg", pmi=0.5) == pytest.approx(want, rel=1e-12)
    # FDM-seg keeps ab too (abc and ac span the cut): FDM's 0.1 / 0.1 over 1 child each
    want = {d: uni[d] + 0.1 * _phi(ORD["ab"][0][d], 2)
            + 0.1 * _phi(UNO["ab"][0][d], 2) for d in range(3)}
    assert _scores(idx, q, "fdm-seg", pmi=0.5) == pytest.approx(want, rel=1e-12)


def test_errors(idx):
    with pytest.raises(ValueError, match="wfdm needs its learned concept weights"):
        registry.run(idx, ["a", "b"], 10, "wfdm")
    with pytest.raises(ValueError, match="segment must be a finite number"):
        registry.run(idx, ["a", "b"], 10, "wfdm", uni=(1, 0, 0), bi=(1, 0, 0),
                     segment=math.nan)
    idx.global_stats = object()
    with pytest.raises(ValueError, match="sdm-seg: a shard"):
        registry.run(idx, ["a", "b"], 10, "sdm-seg")


def _qrels(rows):
    return tb.read_qrels(io.BytesIO("".join(f"{t} 0 {d} {r}\n" for t, d, r in rows).encode()))


def test_cv_never_trains_on_its_test_fold(idx, monkeypatch, tmp_path):
    from tiebreak.studies import wsdm_learn

    topics = [(str(i), q) for i, q in enumerate(
        ["a b", "b c", "c d", "a b c", "x d", "b x", "a c", "c x d"])]
    qrels = _qrels([(t, f"d{i % 3}", 1) for i, (t, _) in enumerate(topics)]
                   + [(t, f"d{(i + 1) % 3}", 0) for i, (t, _) in enumerate(topics)])
    seen = {}
    orig_data = wsdm_learn._topic_data
    orig_ca = wsdm_learn.coordinate_ascent

    def data(*a, **kw):
        out = orig_data(*a, **kw)
        for i, x in enumerate(out):
            seen[id(x[0])] = i
        return out

    calls = []

    def ca(train, **kw):
        calls.append({seen[id(x[0])] for x in train})
        return orig_ca(train, **kw)

    monkeypatch.setattr(wsdm_learn, "_topic_data", data)
    monkeypatch.setattr(wsdm_learn, "coordinate_ascent", ca)
    L = wsdm_learn.learn_cv(idx, topics, qrels, folds=4, seed=3, mu=MU, model="wfdm")
    assert len(calls) == 5                     # 4 folds, then all topics
    for f in range(4):
        test = set(np.flatnonzero(L["fold"] == f).tolist())
        assert test and calls[f] == set(range(8)) - test
    assert calls[4] == set(range(8))
    # each fold's topics are ranked by that fold's weights through the registered wfdm
    for i, (_, q) in enumerate(topics):
        w = L["weights"][int(L["fold"][i])]
        d, s = registry.run(idx, q.split(), 1000, "wfdm", uni=tuple(w[:3]), bi=tuple(w[3:]),
                            mu=MU)
        r = L["results"][i]
        assert np.asarray(r.docids).tolist() == d.tolist()
        assert np.asarray(r.scores) == pytest.approx(s, rel=1e-12)

    # the weights round-trip through save / load and score as learned
    p = tmp_path / "wfdm.json"
    wsdm_learn.save_weights(p, L)
    back = wsdm_learn.load_weights(p)
    assert back["uni"] == tuple(L["all"][:3]) and back["bi"] == tuple(L["all"][3:])
    assert back["mu"] == MU
    for f in range(4):
        assert wsdm_learn.load_weights(p, f)["bi"] == tuple(L["weights"][f][3:])
    got = _scores(idx, ["a", "b", "c"], "wfdm", uni=back["uni"], bi=back["bi"])
    assert got == pytest.approx(_hand_wfdm(L["all"][:3], L["all"][3:]), rel=1e-12)
