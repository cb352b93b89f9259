"""Lu (2018) §2.4's measures for incomplete and graded judgments (RankEff, bpref-10, graded AP,
the Ravana-Moffat estimates) and NTCIREVAL's NCU: each against a plain per-topic
implementation of its paper's formula (pyNTCIREVAL for NCU), and the expected regime against
the mean over every order of the tied documents (brute force)."""

from __future__ import annotations

import itertools
import random

import flat_runs as fr
import numpy as np
import pytest

import tiebreak as tb


@pytest.fixture(scope="module")
def dl20(shared_data):
    f = fr.load(shared_data / fr.DL20[0], shared_data / fr.DL20[1]).head(100)
    run = {}
    for t, r, d in zip(f.topic, f.rank, f.docnos):
        run.setdefault(f.topics[t], {})[d] = 100000.0 - float(r)
    return f, run, tb.read_qrels(str(shared_data / fr.DL20[0]))


def _plain(qd, docs, name, top=3, topic="q"):
    """The formulas, written from the papers, for one topic (docs in rank order)."""
    judged = {d: v for d, v in qd.items() if v >= 0}
    if name == "RPref":
        r = {d: min(v / top, 1.0) for d, v in judged.items()}
        num, neg = sum(r.values()), sum(1 - x for x in r.values())
        s, above = 0.0, []
        for d in docs:
            if d not in r:
                continue
            ri = r[d]
            if ri > 0:
                pen = sum((ri - rj) / ri for rj in above if rj < ri)
                s += ri * (1 - (pen / neg if neg else 0.0))
            above.append(ri)
        return s / num if num else 0.0
    if name.startswith("SubAP"):
        import zlib

        rate, seed = 0.3, 7
        kept = [d for d in docs if d in judged or zlib.crc32(
            f"{seed}\t{topic}\t{d}".encode()) / 2 ** 32 < rate]
        R = sum(v >= 1 for v in judged.values())
        hits = [i for i, d in enumerate(kept) if judged.get(d, 0) >= 1]
        return sum((n + 1) / (i + 1) for n, i in enumerate(hits)) / R if R else 0.0
    R = sum(v >= 1 for v in judged.values())
    N = sum(v < 1 for v in judged.values())
    if name in ("RankEff", "bpref_10"):
        s, nonrel_above = 0.0, 0
        for d in docs:
            v = judged.get(d)
            if v is None:
                continue
            if v >= 1:
                s += 1 - (nonrel_above / N if name == "RankEff" else
                          min(nonrel_above, R + 10) / (R + 10))
            else:
                nonrel_above += 1
        return s / R if R else 0.0
    if name.startswith("GAP"):
        g = [0.2, 0.3, 0.5]
        grade = [min(max(judged.get(d, 0), 0), 3) for d in docs]

        def delta(a, b):
            return sum(g[:min(a, b)])
        num = sum(sum(delta(grade[n], grade[m]) for m in range(n + 1)) / (n + 1)
                  for n in range(len(docs)) if grade[n] > 0)
        den = sum(sum(g[:min(v, 3)]) for v in judged.values() if v > 0)
        return num / den if den else 0.0
    raise KeyError(name)


def test_against_the_papers_formulas(dl20):
    f, run, qrels = dl20
    names = ["RankEff", "bpref_10", "GAP(thresholds=(0.2,0.3,0.5))", "RPref",
             "SubAP(rate=0.3,seed=7)"]
    res = tb.evaluate(qrels, [run], names + ["AP", "GAP(thresholds=(1,))", "RBP(p=0.8)",
                                              "RBP_rm", "RBP_rm(lam=0.3)",
                                              "RBP_rm(alpha=0.4)"],
                      regimes=["trec_eval"], average="run-topics")
    qd = f.qrels_dict
    for q in sorted(run):
        docs = sorted(run[q], key=lambda d: -run[q][d])
        for n in names:
            got = res.value(res.runs[0], n, "trec_eval", q)
            assert got == pytest.approx(_plain(qd.get(q, {}), docs, n, topic=q),
                                        abs=1e-12), (n, q)
        v = {n: res.value(res.runs[0], n, "trec_eval", q) for n in res.measures}
        base, dl = v["RBP(p=0.8)"], v["RBP_resid(p=0.8)"]
        assert v["GAP(thresholds=(1,))"] == pytest.approx(v["AP"], abs=1e-12)
        assert v["RBP_rm"] == pytest.approx(base + dl * base / (1 - dl), abs=1e-12)
        assert v["RBP_rm(lam=0.3)"] == pytest.approx(base + 0.3 * dl, abs=1e-12)
        assert v["RBP_rm(alpha=0.4)"] == pytest.approx(
            0.4 * (base + dl * base / (1 - dl)) + 0.6 * base, abs=1e-12)
    # RankEff uses every judged non-relevant document, bpref only R of them: they differ
    assert not np.allclose(res.mean[0, 0], res.mean[0, 1])


def test_rpref_and_subap_by_hand():
    # grades a 2, b 1, c 0, d 2 (top grade 2): r = 1, 1/2, 0, 1; sum r 5/2, sum (1 - r) 3/2.
    # Ranking c, b, u (unjudged), a: c adds 0; b: (1/2 - 0)/(1/2) = 1 below it, 1/2 (1 - 2/3);
    # a: (1 - 0) + (1 - 1/2) = 3/2 = sum (1 - r): 0. RPref = (1/6) / (5/2) = 1/15.
    qrels = {"1": {"a": 2, "b": 1, "c": 0, "d": 2}}
    run = {"1": {"c": 5.0, "b": 4.0, "u": 3.0, "a": 2.0}}
    names = ["RPref", "RankEff", "SubAP(rate=0)", "SubAP(rate=1)", "AP",
             "AP(judged_only=True)"]
    v = tb.evaluate(qrels, [run], names, regimes=["trec_eval"]).mean[0, :, 0]
    assert v[0] == pytest.approx(1 / 15, abs=1e-15)
    # SubAP at rate 0 drops u (AP over judged documents: b 1/2, a 2/3 of R 3), at rate 1 is AP
    assert v[2] == pytest.approx((1 / 2 + 2 / 3) / 3, abs=1e-15) == v[5]
    assert v[3] == pytest.approx((1 / 2 + 2 / 4) / 3, abs=1e-15) == v[4]
    # binary grades: RPref is RankEff ((r_i - r_j)/r_i = 1 for each non-relevant one above)
    # (ranking b, c, u, a: b has none above, a has c: RankEff (1 + 0) / 3)
    binary = {"1": {d: min(x, 1) for d, x in qrels["1"].items()}}
    run2 = {"1": {"b": 5.0, "c": 4.0, "u": 3.0, "a": 2.0}}
    b = tb.evaluate(binary, [run2], ["RPref", "RankEff"], regimes=["trec_eval"]).mean[0, :, 0]
    assert b[0] == pytest.approx(b[1], abs=1e-15) and b[0] == pytest.approx(1 / 3, abs=1e-15)


@pytest.mark.parametrize("name", ["RankEff", "bpref_10", "GAP(thresholds=(0.5,0.5))",
                                  "RPref", "SubAP(rate=0.5)",
                                  "RBP_rm(p=0.5)", "NCU(stop='rb')", "NCU(utility='P')"])
def test_expected_is_the_mean_over_tie_orders(name):
    """Brute force: a topic with a tied group of five (relevant of two grades, judged
    non-relevant, unjudged); the sampled expectation (20000 orders) within 4 SE of the exact
    mean over the 120 orders."""
    qrels = {"q": {"a": 2, "b": 0, "c": 1, "d": 2, "e": 0, "z": 1}}
    tied = ["b", "c", "d", "e", "u"]
    docs = {"a": 9.0, **{x: 5.0 for x in tied}, "v": 1.0}
    res = tb.evaluate(qrels, [{"q": docs}], [name], regimes=["expected"], samples=20000,
                      seed=3)
    vals = []
    for perm in itertools.permutations(tied):
        order = ["a", *perm, "v"]
        r = {"q": {x: 10.0 - i for i, x in enumerate(order)}}
        vals.append(tb.evaluate(qrels, [r], [name], regimes=["file"]).mean[0, 0, 0])
    sd = np.std(vals)
    assert res.mean[0, 0, 0] == pytest.approx(np.mean(vals), abs=4 * sd / np.sqrt(20000) + 1e-9)


def test_ncu_against_pyntcireval():
    """NCU in its four NTCIREVAL forms, per topic, equals pyNTCIREVAL 0.0.3 (gains 1:2:3,
    stop values = gains, gamma 0.95, beta 1) on random graded topics."""
    pytest.importorskip("pyNTCIREVAL", reason="pyNTCIREVAL (test extra) is not installed")
    from pyNTCIREVAL import Labeler
    from pyNTCIREVAL.metrics import NCUguBR, NCUguP, NCUrbBR, NCUrbP
    rng = random.Random(1)
    qrels, run = {}, {}
    for q in range(8):
        docs = [f"d{i}" for i in range(30)]
        qrels[f"q{q}"] = {d: rng.choice([0, 0, 1, 2, 3]) for d in rng.sample(docs, 18)}
        run[f"q{q}"] = {d: 100.0 - i for i, d in enumerate(rng.sample(docs, 20))}
    qrels["q0"]["d1"] = 3
    g = [1, 2, 3]
    cases = {"NCU(stop='gu',utility='P')": lambda x: NCUguP(x, g, g),
             "NCU(stop='gu')": lambda x: NCUguBR(x, g, g, 1.0),
             "NCU(stop='rb',utility='P')": lambda x: NCUrbP(x, g, 0.95),
             "NCU(stop='rb')": lambda x: NCUrbBR(x, g, 0.95, 1.0)}
    res = tb.evaluate(qrels, [run], list(cases), regimes=["trec_eval"], average="run-topics")
    for n, mk in cases.items():
        for q in run:
            lab = Labeler(dict(qrels[q]))
            ranked = lab.label(sorted(run[q], key=lambda d: -run[q][d]))
            ref = mk(lab.compute_per_level_doc_num(4)).compute(ranked)
            assert res.value(res.runs[0], n, "trec_eval", q) == pytest.approx(ref, abs=1e-12)
