"""C/W/L kernels against cwl_eval 1.0.12 (directly and through ir_measures' cwl_eval provider)
on real graded runs, in trec_eval order."""

from __future__ import annotations

import itertools

import flat_runs as fr
import numpy as np
import pytest

from tiebreak.measures import cwl

irm = pytest.importorskip("ir_measures", reason="ir_measures (test extra) is not installed")
pytest.importorskip("cwl", reason="cwl-eval (test extra) is not installed")

RUNS = {"dl20": (fr.DL20, 3), "covid": (fr.COVID, 2)}
KERNELS = {"INST": cwl.inst, "INSQ": cwl.insq, "SDCG": cwl.sdcg, "BPM": cwl.bpm,
           "NERR8": cwl.nerr8, "NERR9": cwl.nerr9, "NERR10": cwl.nerr10, "NERR11": cwl.nerr11}


@pytest.fixture(scope="module", params=sorted(RUNS))
def data(request, shared_data):
    (q, r), max_rel = RUNS[request.param]
    return fr.load(shared_data / q, shared_data / r), max_rel


def _kwargs(m):
    kw = {k: v for k, v in m.params.items() if k not in ("min_rel", "max_rel", "dcg", "cutoff")}
    if "cutoff" in m.params:
        kw["K" if m.NAME == "BPM" else "k"] = m.params["cutoff"]
    return kw


def _names(max_rel):
    out = []
    for s in cwl.IR_MEASURES_NAMES:
        if "max_rel=3" in s:
            s = s.replace("max_rel=3", f"max_rel={max_rel}")
        out.append(s)
    return out


@pytest.mark.slow
def test_ir_measures_names(data):
    """Every ir_measures name in the table, to 4 dp (ir_measures' printed precision); in fact
    to 1e-12. Topics of the qrels without retrieved documents are 0 in both."""
    f, max_rel = data
    names = _names(max_rel)
    ms = [irm.parse_measure(s) for s in names]
    ref = fr.per_topic(irm.cwl_eval.iter_calc(ms, f.ir_qrels(), f.ir_run()), f)
    checked = 0
    for m in ms:
        g = cwl.cwl_gain(f.grade, f.judged, m.params["max_rel"], m.params.get("min_rel", 0))
        ours = KERNELS[m.NAME](f.topic, f.rank, g, f.n_topics, **_kwargs(m))
        r = ref[str(m)]
        ok = ~np.isnan(r)
        assert ok.sum() >= 40
        np.testing.assert_allclose(ours[ok], r[ok], atol=1e-12, err_msg=str(m))
        assert np.all(ours[~ok] == 0)
        checked += int(ok.sum())
    assert checked >= 40 * len(ms)


def _cwl_topic(gains, judged, metric, residual):
    from cwl.ruler.ranking import Ranking
    g = np.where(judged, gains, np.nan)
    rk = Ranking("t", list(g), [np.nan] * len(g), max_n=cwl.DEPTH)
    rk.total_qrel_rels = 1.0
    rk.total_qrel_gain = 1.0
    metric.residuals = residual
    lo = metric.measure(rk)
    return metric.residual_expected_utility if residual else lo


def _direct_cases():
    from cwl.ruler.measures import (
        cwl_bpm,
        cwl_dcg,
        cwl_ift,
        cwl_insq,
        cwl_inst,
        cwl_nerr,
        cwl_precision,
        cwl_rbp,
        cwl_rr,
        cwl_tbg,
        cwl_umeasure,
    )
    return [
        (lambda: cwl_tbg.TBGCWLMetric(224), cwl.tbg, {"halflife": 224}),
        (lambda: cwl_tbg.TBGCWLMetric(5), cwl.tbg, {"halflife": 5}),
        (lambda: cwl_umeasure.UMeasureCWLMetric(1000), cwl.umeasure, {"L": 1000}),
        (lambda: cwl_umeasure.UMeasureCWLMetric(50), cwl.umeasure, {"L": 50}),
        (lambda: cwl_ift.IFTGoalCWLMetric(2.0, 0.9, 10), cwl.ift,
         {"T": 2.0, "b1": 0.9, "R1": 10}),
        (lambda: cwl_ift.IFTRateCWLMetric(0.2, 0.9, 10), cwl.ift,
         {"A": 0.2, "b2": 0.9, "R2": 10}),
        (lambda: cwl_ift.IFTGoalRateCWLMetric(2.0, 0.9, 1, 0.2, 0.9, 10), cwl.ift,
         {"T": 2.0, "b1": 0.9, "R1": 1, "A": 0.2, "b2": 0.9, "R2": 10}),
        (lambda: cwl_bpm.BPMDCWLMetric(1, 10, 1.0, 1.0, 0.5), cwl.bpm,
         {"T": 1, "K": 10, "dynamic": True, "hb": 1.0, "gain_med": 0.5}),
        (lambda: cwl_bpm.BPMCWLMetric(2, 20), cwl.bpm, {"T": 2, "K": 20}),
        (lambda: cwl_inst.INSTCWLMetric(3), cwl.inst, {"T": 3}),
        (lambda: cwl_insq.INSQCWLMetric(3), cwl.insq, {"T": 3}),
        (lambda: cwl_dcg.NDCGCWLMetric(10), cwl.sdcg, {"k": 10}),
        (lambda: cwl_nerr.NERReq8CWLMetric(10), cwl.nerr8, {"k": 10}),
        (lambda: cwl_nerr.NERReq9CWLMetric(5), cwl.nerr9, {"k": 5}),
        (lambda: cwl_nerr.NERReq10CWLMetric(0.8), cwl.nerr10, {"p": 0.8}),
        (lambda: cwl_nerr.NERReq11CWLMetric(2), cwl.nerr11, {"T": 2}),
        (lambda: cwl_rbp.RBPCWLMetric(0.8), cwl.rbp, {"p": 0.8}),
        (lambda: cwl_precision.PrecisionCWLMetric(10), cwl.precision, {"k": 10}),
        (lambda: cwl_rr.RRCWLMetric(), cwl.rr, {}),
    ]


@pytest.mark.slow
@pytest.mark.parametrize("residual", [False, True], ids=["EU", "ResEU"])
def test_direct_cwl_eval(shared_data, residual):
    """Every kernel, value and residual, against cwl_eval's metric classes on 12 topics of
    TREC DL 2020 (BIT.UA-run1, gains grade/3, unjudged = NaN as cwl_eval reads them)."""
    f = fr.load(shared_data / fr.DL20[0], shared_data / fr.DL20[1])
    g = cwl.cwl_gain(f.grade, f.judged, 3)
    topics = np.unique(f.topic)[:12]
    n = 0
    for make, kernel, kw in _direct_cases():
        ours = kernel(f.topic, f.rank, g, f.n_topics, judged=f.judged, residual=residual, **kw)
        for t in topics:
            m = f.topic == t
            ref = _cwl_topic(g[m], f.judged[m], make(), residual)
            assert ours[t] == pytest.approx(ref, abs=1e-10), (kernel.__name__, kw, t)
            n += 1
    assert n == 12 * len(_direct_cases())


def test_fixture_cwl_run(shared_data):
    """ir_measures' own C/W/L fixture (cwl.qrels / cwl.run, gains 0..1)."""
    d = shared_data / "ir_measures_tests"
    f = fr.load(d / "cwl.qrels", d / "cwl.run")
    ms = [irm.parse_measure(s) for s in ("INST(T=1,max_rel=1)", "INSQ(T=2,max_rel=1)",
                                         "SDCG(max_rel=1)@3", "NERR8(max_rel=1)@4",
                                         "BPM(T=1,max_rel=1)@3", "NERR11(T=2,max_rel=1)")]
    ref = fr.per_topic(irm.cwl_eval.iter_calc(ms, f.ir_qrels(), f.ir_run()), f)
    for m in ms:
        g = cwl.cwl_gain(f.grade, f.judged, 1)
        ours = KERNELS[m.NAME](f.topic, f.rank, g, f.n_topics, **_kwargs(m))
        r = ref[str(m)]
        ok = ~np.isnan(r)
        np.testing.assert_allclose(ours[ok], r[ok], atol=1e-12, err_msg=str(m))


def test_empty_topic_and_errors():
    z = np.zeros(0, np.int64)
    assert cwl.inst(z, z, np.zeros(0), 2).tolist() == [0.0, 0.0]
    # nothing retrieved: residual = value of an all-relevant list = 1 for a proper W
    res = cwl.sdcg(z, z, np.zeros(0), 1, k=10, judged=np.zeros(0, bool), residual=True)
    assert res[0] == pytest.approx(1.0)
    with pytest.raises(ValueError):
        cwl.ift(z, z, np.zeros(0), 1)
    with pytest.raises(ValueError):
        cwl.cwl_gain(np.zeros(1), np.ones(1, bool), max_rel=0)
    with pytest.raises(ValueError):
        cwl.inst(z, z, np.zeros(0), 1, residual=True)


def test_linear_kernels_expectation_bruteforce():
    """For the kernels marked linear, the mean over all orderings inside tied groups equals the
    kernel on group-mean gains (what the ``expected`` regime relies on); for INST (sampled) it
    does not."""
    rng = np.random.default_rng(3)
    gains = rng.choice([0.0, 1 / 3, 2 / 3, 1.0], size=7)
    groups = [0, 0, 0, 1, 2, 2, 2]
    perms = [list(p) for p in itertools.permutations(range(3))]
    topic = np.zeros(7, np.int64)
    rank = np.arange(1, 8)
    mean_g = gains.copy()
    for gid in set(groups):
        idx = [i for i, x in enumerate(groups) if x == gid]
        mean_g[idx] = gains[idx].mean()
    for kernel, kw, linear in ((cwl.insq, {"T": 2}, True), (cwl.sdcg, {"k": 5}, True),
                               (cwl.tbg, {"halflife": 3}, True), (cwl.inst, {"T": 2}, False)):
        vals = []
        for p1 in perms:
            for p2 in perms:
                g = np.r_[gains[[0, 1, 2]][p1], gains[3], gains[[4, 5, 6]][p2]]
                vals.append(kernel(topic, rank, g, 1, depth=20, **kw)[0])
        lin = kernel(topic, rank, mean_g, 1, depth=20, **kw)[0]
        assert (abs(np.mean(vals) - lin) < 1e-12) == linear, kernel.__name__
