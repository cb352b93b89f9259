"""The registered ad hoc families end to end: ``tiebreak eval -m NAME`` (trec_eval regime)
against ir_measures and against the flat kernels, and the tie regimes (closed form vs brute
force, lower <= expected <= upper)."""

from __future__ import annotations

import itertools
import subprocess
import sys

import flat_runs as fr
import numpy as np
import pytest

import tiebreak as tb
from tiebreak.measures import cwl, depth, ntcir, parse_measure, setbased
from tiebreak.ranking._flat import ideal_list


def _cli(qrels, run, names, regime="trec_eval"):
    cmd = [sys.executable, "-m", "tiebreak.cli", "eval", str(qrels), str(run), "--regime",
           regime, "-q", "--format", "tsv", "-j", "1"]
    for n in names:
        cmd += ["-m", n]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    vals: dict[str, dict[str, float]] = {}
    for line in out.splitlines():
        _, m, _, q, v = line.split("\t")
        vals.setdefault(m, {})[q] = float(v)
    return vals


IRM_NAMES = ["INST(T=3.0,max_rel=3)", "INSQ(max_rel=3)", "SDCG(max_rel=3)@10",
             "NERR8(max_rel=3)@10", "NERR11(T=2.0,max_rel=3)", "BPM(T=2.0,max_rel=3)@20",
             "Compat(p=0.95)", "Accuracy@10"]


@pytest.mark.slow
def test_cli_against_ir_measures(shared_data):
    """``tiebreak eval -m NAME`` per topic = ir_measures (cwl_eval, compat, accuracy
    providers) on TREC DL 2020 BIT.UA-run1 (no ties inside the top 20 that matter: the run is
    handed to ir_measures in trec_eval order)."""
    irm = pytest.importorskip("ir_measures", reason="ir_measures (test extra) not installed")
    q, r = shared_data / fr.DL20[0], shared_data / fr.DL20[1]
    f = fr.load(q, r)
    got = _cli(q, r, IRM_NAMES)
    n = 0
    for name in IRM_NAMES:
        m = irm.parse_measure(name)
        try:
            ref = fr.per_topic(irm.iter_calc([m], f.ir_qrels(), f.ir_run()), f)[str(m)]
        except ZeroDivisionError:  # ir_measures' Accuracy on an all-relevant top k
            continue
        for i, qid in enumerate(f.topics):
            if np.isnan(ref[i]) or qid not in got[name]:
                continue
            assert got[name][qid] == pytest.approx(ref[i], abs=1e-9), (name, qid)
            n += 1
    assert n >= 40 * (len(IRM_NAMES) - 1)


def test_cli_against_flat_kernels(shared_data):
    """NTCIREVAL and Lu families through the CLI = the flat kernels (themselves checked
    against pyNTCIREVAL, ir_measures, sklearn and Lu's Table 2.5)."""
    q, r = shared_data / fr.DL20[0], shared_data / fr.DL20[1]
    f = fr.load(q, r)
    T, t, rk = f.n_topics, f.topic, f.rank
    gain = np.where(f.judged, f.grade, 0.0)
    it, ig = ideal_list(f.qrels.topic, np.maximum(f.qrels.value, 0).astype(float), T)
    nrel = np.bincount(it, minlength=T)
    rel = f.judged & (f.grade >= 1)
    expect = {
        "Qmeasure@10": ntcir.q_measure(t, rk, gain, T, it, ig, nrel, k=10),
        "Pplus": ntcir.p_plus(t, rk, gain, T, it, ig),
        "nDCG_orig@10": ntcir.ndcg(t, rk, gain, T, it, ig, k=10),
        "nERR@20": ntcir.nerr(t, rk, gain, T, it, ig, 3.0, k=20),
        "AP_b@10": depth.ap_b(t, rk, rel, T, 10, f.qrels.num_rel(1)),
        "AP_c@10": depth.ap_c(t, rk, rel, T, 10),
        "DCG_lu(discount='zipf')@10": depth.dcg(t, rk, gain, T, 10, "zipf"),
        "NDCG_a(discount='linear')@10": depth.ndcg(t, rk, gain, T, it, ig, 10, "linear"),
        "TBG(halflife=5,max_rel=3)": cwl.tbg(t, rk, gain / 3, T, halflife=5),
        "INST_resid(max_rel=3)": cwl.inst(t, rk, gain / 3, T, judged=f.judged, residual=True),
    }
    got = _cli(q, r, list(expect))
    for name, v in expect.items():
        for i, qid in enumerate(f.topics):
            assert got[name][qid] == pytest.approx(v[i], abs=1e-12), (name, qid)


def test_names_parse_verbatim():
    for s in cwl.IR_MEASURES_NAMES + setbased.IR_MEASURES_NAMES + ("QM@10", "F1@10",
                                                                 "NDCG_a(discount='zipf')@5"):
        m = parse_measure(s)
        assert str(m) == s


def _tiny(tmp_path):
    """A run with tied groups straddling the cutoff, graded qrels, unjudged documents."""
    (tmp_path / "q").write_text("1 0 a 2\n1 0 b 0\n1 0 c 1\n1 0 d 1\n1 0 e 0\n1 0 z 2\n"
                                "2 0 a 1\n2 0 f 2\n")
    lines = ["1 Q0 a 1 3 r", "1 Q0 b 2 2 r", "1 Q0 c 3 2 r", "1 Q0 d 4 2 r", "1 Q0 x 5 1 r",
             "1 Q0 e 6 1 r", "2 Q0 f 1 5 r", "2 Q0 a 2 5 r", "2 Q0 y 3 5 r"]
    (tmp_path / "r").write_text("\n".join(lines) + "\n")
    return tb.read_qrels(str(tmp_path / "q")), tb.read_run(str(tmp_path / "r"))


def test_expected_regime_bruteforce(tmp_path):
    """Under ``expected``: AP_b@k (closed form) and INSQ/SDCG (linear) equal the mean over
    every ordering of the tied groups; lower <= expected <= upper."""
    qrels, run = _tiny(tmp_path)
    names = ["AP_b@3", "AP_b", "INSQ(max_rel=2)", "SDCG(max_rel=2)@3", "DCG_lu(discount='zipf')@2"]
    res = tb.evaluate(qrels, [run], names, regimes=["expected", "lower", "upper"])
    # brute force: every within-group permutation of each topic
    grades = {"1": {"a": 2, "b": 0, "c": 1, "d": 1, "e": 0, "z": 2},
              "2": {"a": 1, "f": 2}}
    groups = {"1": [["a"], ["b", "c", "d"], ["x", "e"]], "2": [["f", "a", "y"]]}
    R = {"1": 4, "2": 2}
    for name in names:
        m = parse_measure(name)
        per_topic = []
        for qid, gs in groups.items():
            vals = []
            for perm in itertools.product(*[list(itertools.permutations(g)) for g in gs]):
                docs = [d for g in perm for d in g]
                g = np.array([grades[qid].get(d, 0) for d in docs], float)
                judged = np.array([d in grades[qid] for d in docs])
                top = np.zeros(len(docs), np.int64)
                rk = np.arange(1, len(docs) + 1)
                if m.family.name == "AP_b":
                    v = depth.ap_b(top, rk, judged & (g >= 1), 1, m.cutoff, np.array([R[qid]]))
                elif m.family.name == "INSQ":
                    v = cwl.insq(top, rk, g / 2, 1)
                elif m.family.name == "SDCG":
                    v = cwl.sdcg(top, rk, g / 2, 1, k=3)
                else:
                    v = depth.dcg(top, rk, g, 1, 2, "zipf")
                vals.append(v[0])
            per_topic.append(np.mean(vals))
        e = res.value(run.name, name, "expected")
        assert e == pytest.approx(np.mean(per_topic), abs=1e-12), name
        lo, hi = res.value(run.name, name, "lower"), res.value(run.name, name, "upper")
        assert lo - 1e-12 <= e <= hi + 1e-12, name


def _bruteforce(qid_groups, grades, fn):
    """Per-topic mean and variance of ``fn(docs, gains, judged)`` over every ordering."""
    out = []
    for qid, gs in qid_groups.items():
        vals = []
        for perm in itertools.product(*[list(itertools.permutations(g)) for g in gs]):
            docs = [d for g in perm for d in g]
            g = np.array([grades[qid].get(d, 0) for d in docs], float)
            judged = np.array([d in grades[qid] for d in docs])
            vals.append(fn(qid, g, judged))
        out.append((np.mean(vals), np.var(vals)))
    return out


def test_expected_regime_sampled_within_5_se(tmp_path):
    """Nonlinear families (sampled under ``expected``): the estimate from 4000 seeded orderings
    lies within 5 standard errors of the exact mean over every ordering."""
    qrels, run = _tiny(tmp_path)
    grades = {"1": {"a": 2, "b": 0, "c": 1, "d": 1, "e": 0, "z": 2},
              "2": {"a": 1, "f": 2}}
    groups = {"1": [["a"], ["b", "c", "d"], ["x", "e"]], "2": [["f", "a", "y"]]}
    ideal = {"1": [2.0, 2.0, 1.0, 1.0], "2": [2.0, 1.0]}
    S = 4000

    def one(g):
        top = np.zeros(len(g), np.int64)
        return top, np.arange(1, len(g) + 1)

    cases = {
        "INST(T=2.0,max_rel=2)": lambda q, g, j: cwl.inst(*one(g), g / 2, 1, T=2.0)[0],
        "NERR8(max_rel=2)@3": lambda q, g, j: cwl.nerr8(*one(g), g / 2, 1, k=3)[0],
        "Qmeasure@3": lambda q, g, j: ntcir.q_measure(
            *one(g), g, 1, np.zeros(len(ideal[q]), np.int64), np.array(ideal[q]),
            np.array([len(ideal[q])]), k=3)[0],
        "AP_c@3": lambda q, g, j: depth.ap_c(*one(g), j & (g >= 1), 1, 3)[0],
    }
    res = tb.evaluate(qrels, [run], list(cases), regimes=["expected"], samples=S, seed=1)
    for name, fn in cases.items():
        bf = _bruteforce(groups, grades, fn)
        exact = np.mean([m for m, _ in bf])
        se = np.sqrt(sum(v for _, v in bf) / S) / len(bf)
        got = res.value(run.name, name, "expected")
        assert abs(got - exact) <= 5 * se + 1e-12, (name, got, exact, se)


ALL_FAMILIES = ["INST(max_rel=2)", "INSQ(max_rel=2)", "SDCG(max_rel=2)@10", "BPM(max_rel=2)@10",
                "NERR8(max_rel=2)@10", "NERR9(max_rel=2)@10", "NERR10(max_rel=2)",
                "NERR11(max_rel=2)", "TBG", "UMeasure", "IFT(T=1,b1=0.9,R1=10)",
                "INSQ_resid(max_rel=2)", "SDCG_resid(max_rel=2)@10", "Qmeasure@10", "Omeasure",
                "Pmeasure", "Pplus", "nDCG_orig@10", "MSnDCG@10", "nERR@10", "ERR_lin@10",
                "AP_b@10", "AP_c@10", "DCG_lu(discount='linear')@10", "NDCG_a(discount='zipf')@10",
                "NDCG_b@10", "ERR_resid@10", "Accuracy@10", "Compat", "F1@10"]


def test_every_family_under_every_regime(shared_data):
    """Every registered family runs under all seven regimes on a tied TREC-COVID run (with a
    -c topic and -M 100); values are finite (Accuracy may be undefined), residuals and
    normalised values lie in [0, 1], and lower <= expected <= upper where the expectation is
    exact (linear or closed)."""
    q = tb.read_qrels(str(shared_data / fr.COVID[0]))
    run = tb.read_run(str(shared_data / "trec_covid/round5/runs/final.qruir.txt.gz"))
    res = tb.evaluate(q, [run], ALL_FAMILIES, regimes="all", samples=20, max_docs=100)
    for name in ALL_FAMILIES:
        m = parse_measure(name)
        vals = {r: res.value(res.runs[0], name, r) for r in res.regimes}
        assert all(np.isfinite(v) for v in vals.values()), (name, vals)
        if m.kind in ("normalised", "residual") and m.family.name != "DCG_lu":
            assert all(-1e-12 <= v <= 1 + 1e-12 for v in vals.values()), (name, vals)
        assert vals["lower"] <= vals["upper"] + 1e-12, (name, vals)
        if m.family.expected in ("linear", "closed") and m.kind != "residual":
            assert vals["lower"] - 1e-12 <= vals["expected"] <= vals["upper"] + 1e-12, name
