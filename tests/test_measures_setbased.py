"""Accuracy and Compat kernels, and the registry's set measures, against ir_measures (accuracy,
compat and pytrec_eval providers) on real runs and on ir_measures' own Compat fixture."""

from __future__ import annotations

import flat_runs as fr
import numpy as np
import pytest

from tiebreak.measures import setbased as sb
from tiebreak.ranking._flat import ideal_list

irm = pytest.importorskip("ir_measures", reason="ir_measures (test extra) is not installed")


SET_NAMES = ("SetP", "SetP(rel=2)", "SetRelP", "SetR", "SetR(rel=2)", "SetAP", "SetF",
             "SetF(beta=0.5)", "NumRet", "NumRelRet", "NumRel")


def _ours(name: str, f: fr.Flat) -> np.ndarray:
    m = irm.parse_measure(name)
    P = m.params
    rel = f.judged & (f.grade >= P.get("rel", 1))
    T, t = f.n_topics, f.topic
    if m.NAME == "Accuracy":
        return sb.accuracy(t, f.rank, rel, T, P.get("cutoff"))
    if m.NAME == "Compat":
        qv = f.qrels.value.astype(float)
        it, ig = ideal_list(f.qrels.topic, qv, T)
        g = np.where(f.judged, f.grade, 0.0)
        return sb.compat(t, f.rank, g, T, it, ig, P.get("p", 0.95), P.get("normalize", True))
    raise KeyError(name)


@pytest.mark.slow
@pytest.mark.parametrize("which", ["dl20", "covid", "compat"])
def test_ir_measures_names(shared_data, which):
    """Accuracy and Compat (flat kernels), per topic, to 1e-9 (ir_measures prints 4 dp).
    Accuracy: topics without a relevant retrieved document are NaN here and absent in
    ir_measures."""
    paths = {"dl20": fr.DL20, "covid": fr.COVID,
             "compat": ("ir_measures_tests/compat.qrels", "ir_measures_tests/compat.run")}[which]
    f = fr.load(shared_data / paths[0], shared_data / paths[1])
    names = list(sb.IR_MEASURES_NAMES) + ["Compat(p=0.8,normalize=False)"]
    ms = [irm.parse_measure(s) for s in names]
    others = [m for m in ms if m.NAME != "Accuracy"]
    ref = fr.per_topic(irm.iter_calc(others, f.ir_qrels(), f.ir_run()), f)
    ref.update(_accuracy_reference([m for m in ms if m.NAME == "Accuracy"], f))
    retrieved = np.bincount(f.topic, minlength=f.n_topics) > 0
    for name, m in zip(names, ms):
        ours = _ours(name, f)
        r = ref[str(m)]
        if m.NAME == "Accuracy":
            np.testing.assert_array_equal(np.isnan(ours), np.isnan(r), err_msg=name)
            ok = ~np.isnan(r)
        else:
            ok = retrieved
            assert not np.isnan(r[ok]).any(), name
        assert ok.sum() >= (1 if which == "compat" else 30), name
        np.testing.assert_allclose(ours[ok], r[ok], atol=1e-9, err_msg=name)


@pytest.mark.slow
@pytest.mark.parametrize("which", ["dl20", "covid"])
def test_registry_set_measures_against_ir_measures(shared_data, which):
    """The registry's set measures and counts (trec_eval regime, through the API) per topic =
    ir_measures (pytrec_eval provider) on every topic with a retrieved document."""
    import tiebreak as tb
    paths = {"dl20": fr.DL20, "covid": fr.COVID}[which]
    f = fr.load(shared_data / paths[0], shared_data / paths[1])
    res = tb.evaluate(tb.read_qrels(str(shared_data / paths[0])),
                      [tb.read_run(str(shared_data / paths[1]))], list(SET_NAMES),
                      regimes=["trec_eval"])
    ms = [irm.parse_measure(s) for s in SET_NAMES]
    ref = fr.per_topic(irm.iter_calc(ms, f.ir_qrels(), f.ir_run()), f)
    retrieved = np.bincount(f.topic, minlength=f.n_topics) > 0
    for name, m in zip(SET_NAMES, ms):
        got = np.array([res.value(res.runs[0], name, "trec_eval", q) for q in f.topics])
        ok = retrieved & ~np.isnan(ref[str(m)])
        assert ok.sum() >= 30, name
        np.testing.assert_allclose(got[ok], ref[str(m)][ok], atol=1e-9, err_msg=name)


def _accuracy_reference(ms, f):
    """ir_measures' accuracy provider topic by topic: it divides by zero when the top k holds
    no non-relevant document, where our kernel documents 1.0."""
    out = {str(m): np.full(f.n_topics, np.nan) for m in ms}
    run, qrels = f.ir_run(), f.ir_qrels()
    for qid in {d.query_id for d in run}:
        rq = [d for d in run if d.query_id == qid]
        for m in ms:
            try:
                vals = list(irm.accuracy.iter_calc([m], qrels, rq))
            except ZeroDivisionError:
                out[str(m)][f.index(qid)] = 1.0
                continue
            for v in vals:
                out[str(m)][f.index(v.query_id)] = v.value
    return out


def test_compat_hand_example():
    """Run d1(rel 2) d2(non) d3(rel 1); qrels also hold d4 (rel 2), p = 0.5. Ideal: d1 d4 d3,
    D = 3. Overlaps at depth 1..3: 1, 1, 2, so RBO = (1 + 0.5/2 + 0.25*2/3) / 1.75."""
    t = np.zeros(3, np.int64)
    r = np.arange(1, 4)
    g = np.array([2.0, 0.0, 1.0])
    it, ig = np.zeros(3, np.int64), np.array([2.0, 2.0, 1.0])
    raw = (1 + 0.5 / 2 + 0.25 * 2 / 3) / 1.75
    assert sb.compat(t, r, g, 1, it, ig, 0.5, normalize=False)[0] == pytest.approx(raw)
    assert sb.compat(t, r, g, 1, it, ig, 0.5)[0] == pytest.approx(raw)  # ideal vs itself = 1
    assert sb.compat(t[:0], r[:0], g[:0], 1, it, ig)[0] == 0.0


def test_accuracy_edges():
    t = np.zeros(3, np.int64)
    r = np.arange(1, 4)
    assert np.isnan(sb.accuracy(t, r, np.zeros(3, bool), 1)[0])
    assert sb.accuracy(t, r, np.ones(3, bool), 1)[0] == 1.0
    # rel, non, rel, cut at 3: pairs (r1,n)=ok, (r3,n)=wrong -> 0.5
    assert sb.accuracy(t, r, np.array([True, False, True]), 1)[0] == pytest.approx(0.5)


def test_f1_at_k():
    """Top 4 = rel, non, rel, non with R = 3: P@4 = 1/2, R@4 = 2/3, F1 = 4/7."""
    t = np.zeros(5, np.int64)
    r = np.arange(1, 6)
    rel = np.array([True, False, True, False, True])
    assert sb.f1_at(t, r, rel, 1, 4, np.array([3]))[0] == pytest.approx(4 / 7)
    assert sb.f1_at(t, r, np.zeros(5, bool), 1, 4, np.array([3]))[0] == 0.0
