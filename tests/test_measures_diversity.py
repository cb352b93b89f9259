"""Diversity kernels and the subtopic-qrels reader against pyndeval (NIST ndeval 4.5), through
ir_measures' pyndeval provider, on a real run (TREC DL 2020, BIT.UA-run1) with generated
subtopic qrels, and a hand-checked example."""

from __future__ import annotations

import flat_runs as fr
import numpy as np
import pytest

from tiebreak.io import InputError
from tiebreak.io.subtopics import read_subtopic_qrels
from tiebreak.measures import diversity as dv

irm = pytest.importorskip("ir_measures", reason="ir_measures (test extra) is not installed")
pytest.importorskip("pyndeval", reason="pyndeval (test extra) is not installed")


def _write_qrels(path, f, seed=7):
    """Subtopic qrels for every topic of the run: 2-5 subtopics, judgments of 40 documents from
    the run's top 60 and 5 documents it never retrieved, values 0, 1, 2."""
    rng = np.random.default_rng(seed)
    lists = f.lists()
    lines = []
    for qid, docs in lists.items():
        ns = int(rng.integers(2, 6))
        pick = rng.choice(docs[:60], size=min(40, len(docs[:60])), replace=False)
        extra = [f"unret-{qid}-{j}" for j in range(5)]
        for s in range(ns):
            for d in list(pick) + extra:
                if rng.random() < 0.35:
                    lines.append(f"{qid} {s + 1} {d} {int(rng.choice([0, 1, 1, 2]))}")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def data(shared_data, tmp_path_factory):
    f = fr.load(shared_data / fr.DL20[0], shared_data / fr.DL20[1]).head(100)
    p = _write_qrels(tmp_path_factory.mktemp("div") / "subtopics.qrels", f)
    return f, read_subtopic_qrels(p)


def _ours(m, f, sq):
    P = m.params
    level = P.get("rel", 1)
    alpha = P.get("alpha", 0.5)
    pos, sub = sq.pairs(f.topic, f.docnos, f.topics, level)
    n_sub, sub_nrel = dv.subtopic_counts(sq, f.topics, level)
    T, t, r = f.n_topics, f.topic, f.rank
    k = P.get("cutoff")
    name = m.NAME
    if name == "alpha_DCG":
        return dv.alpha_dcg(t, r, pos, sub, T, n_sub, k, alpha)
    if name == "alpha_nDCG":
        return dv.alpha_ndcg(t, r, pos, sub, T, dv.greedy_ideal(sq, f.topics, level, alpha), k,
                             alpha)
    if name == "ERR_IA":
        return dv.err_ia(t, r, pos, sub, T, n_sub, k)
    if name == "nERR_IA":
        return dv.nerr_ia(t, r, pos, sub, T, dv.greedy_ideal(sq, f.topics, level, 0.5), k)
    if name == "NRBP":
        return dv.nrbp(t, r, pos, sub, T, n_sub, alpha, P.get("beta", 0.5))
    if name == "nNRBP":
        return dv.nnrbp(t, r, pos, sub, T, dv.greedy_ideal(sq, f.topics, level, alpha), alpha,
                        P.get("beta", 0.5))
    if name == "P_IA":
        return dv.p_ia(t, r, pos, sub, T, n_sub, k)
    if name == "StRecall":
        return dv.st_recall(t, r, pos, sub, T, n_sub, k)
    if name == "AP_IA":
        return dv.ap_ia(t, r, pos, sub, T, n_sub, sub_nrel)
    raise KeyError(name)


def test_against_pyndeval(data):
    """Every diversity name, per topic, to 1e-9 (ndeval prints 6 dp)."""
    f, sq = data
    qrels = [irm.Qrel(sq.topics[t], str(d), int(v), sq.subtopics[s][1])
             for t, s, d, v in zip(sq.topic, sq.subtopic, sq.docno, sq.value)]
    names = list(dv.IR_MEASURES_NAMES) + ["nNRBP(alpha=0.3,beta=0.8)", "ERR_IA@1",
                                          "alpha_DCG@1"]
    ms = [irm.parse_measure(s) for s in names]
    # one call per measure: ir_measures' pyndeval provider hands the same run iterator to each
    # of its invocations (one per rel/alpha/beta), so every invocation after the first sees an
    # empty run and reports 0 (ir_measures 0.4.3)
    run = f.ir_run()
    ref = {}
    for m in ms:
        ref.update(fr.per_topic(irm.pyndeval.iter_calc([m], qrels, run), f))
    n = 0
    for m in ms:
        r = ref[str(m)]
        ok = ~np.isnan(r)
        assert ok.sum() >= 40, m
        ours = _ours(m, f, sq)
        np.testing.assert_allclose(ours[ok], r[ok], atol=1e-9, err_msg=str(m))
        n += int(ok.sum())
    assert n >= 40 * len(ms)


def test_hand_example(tmp_path):
    """Two subtopics; run a (s1), b (s1, s2), c (none). alpha = 0.5:
    g = 1, 0.5 + 1, 0; alpha-DCG@2 = (1 + 1.5/log2 3) / (2 + 2*0.5/log2 3);
    ERR-IA@2 = (1 + 1.5/2) / (2 + 1/2); P-IA@3 = 3 / (3*2); StRecall@1 = 1/2."""
    p = tmp_path / "q"
    p.write_text("7 1 a 1\n7 1 b 1\n7 2 b 1\n7 2 z 0\n")
    sq = read_subtopic_qrels(p)
    topic = np.zeros(3, np.int64)
    rank = np.arange(1, 4)
    pos, sub = sq.pairs(topic, ["a", "b", "c"], ["7"])
    assert pos.tolist() == [0, 1, 1]
    n_sub, sub_nrel = dv.subtopic_counts(sq, ["7"])
    assert n_sub.tolist() == [2.0] and sub_nrel.tolist() == [2.0, 1.0]
    l3 = np.log2(3)
    assert dv.alpha_dcg(topic, rank, pos, sub, 1, n_sub, 2)[0] == pytest.approx(
        (1 + 1.5 / l3) / (2 + 1 / l3))
    assert dv.err_ia(topic, rank, pos, sub, 1, n_sub, 2)[0] == pytest.approx(1.75 / 2.5)
    assert dv.p_ia(topic, rank, pos, sub, 1, n_sub, 3)[0] == pytest.approx(0.5)
    assert dv.st_recall(topic, rank, pos, sub, 1, n_sub, 1)[0] == pytest.approx(0.5)
    # ideal: b first (gain 2), then a (gain 0.5)
    it, ir, ig = dv.greedy_ideal(sq, ["7"])
    assert ig.tolist() == [2.0, 0.5]
    assert dv.ap_ia(topic, rank, pos, sub, 1, n_sub, sub_nrel)[0] == pytest.approx(
        ((1 / 1 + 2 / 2) / 2 + (1 / 2) / 1) / 2)


def test_reader_errors(tmp_path):
    p = tmp_path / "bad"
    p.write_text("1 1 d1 1\n1 1 d1\n")
    with pytest.raises(InputError, match=r"bad:2: expected 4 fields"):
        read_subtopic_qrels(p)
    p.write_text("1 1 d1 x\n")
    with pytest.raises(InputError, match=r"bad:1: rel 'x'"):
        read_subtopic_qrels(p)
    p.write_text("1 1 d1 1\n# note\n\n1 1 d1 0\n")
    with pytest.raises(InputError, match=r"bad:4: .*twice \(lines 1 and 4\)"):
        read_subtopic_qrels(p)
