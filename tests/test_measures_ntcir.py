"""NTCIREVAL kernels against pyNTCIREVAL 0.0.3 on real graded runs (trec_eval order)."""

from __future__ import annotations

import flat_runs as fr
import numpy as np
import pytest

from tiebreak.measures import ntcir
from tiebreak.ranking._flat import ideal_list

pytest.importorskip("pyNTCIREVAL", reason="pyNTCIREVAL (test extra) is not installed")

RUNS = {"dl20": (fr.DL20, [1, 2, 3]), "covid": (fr.COVID, [1, 2]),
        "robust": (fr.ROBUST, [1])}


@pytest.fixture(scope="module", params=sorted(RUNS))
def data(request, shared_data):
    (q, r), grades = RUNS[request.param]
    # pyNTCIREVAL is quadratic in the list length: compare on the top 150 of each topic
    f = fr.load(shared_data / q, shared_data / r).head(150)
    table = np.r_[0.0, grades]
    level = np.where(f.judged, np.clip(f.grade, 0, len(grades)), 0).astype(int)
    gain = table[level]
    qv = np.clip(f.qrels.value, 0, len(grades))
    it, ig = ideal_list(f.qrels.topic, table[np.maximum(qv, 0)] * (f.qrels.value >= 0),
                        f.n_topics)
    nrel = np.bincount(it, minlength=f.n_topics)
    return f, grades, gain, it, ig, nrel


def _reference(f, grades, metrics):
    """{name: (T,) array} from pyNTCIREVAL, NaN for topics it cannot score."""
    from pyNTCIREVAL import Labeler
    qd = f.qrels_dict
    lists = f.lists()
    out = {name: np.full(f.n_topics, np.nan) for name in metrics}
    for qid, docs in lists.items():
        rels = {d: min(v, len(grades)) for d, v in qd.get(qid, {}).items() if v >= 0}
        lab = Labeler(rels)
        xrelnum = lab.compute_per_level_doc_num(len(grades) + 1)
        if sum(xrelnum[1:]) == 0:
            continue
        ranked = lab.label(docs)
        for name, make in metrics.items():
            out[name][f.index(qid)] = make(xrelnum, grades).compute(ranked)
    return out


@pytest.mark.slow
def test_against_pyntcireval(data):
    from pyNTCIREVAL.metrics import (
        AP,
        ERR,
        RBP,
        MSnDCG,
        OMeasure,
        PMeasure,
        PPlusMeasure,
        QMeasure,
        nDCG,
        nERR,
    )
    f, grades, gain, it, ig, nrel = data
    T, top, rk = f.n_topics, f.topic, f.rank
    gmax = grades[-1]
    cases = {
        "Q-measure": (lambda x, g: QMeasure(x, g, 1.0),
                      ntcir.q_measure(top, rk, gain, T, it, ig, nrel)),
        "Q@10": (lambda x, g: QMeasure(x, g, 1.0, 10),
                 ntcir.q_measure(top, rk, gain, T, it, ig, nrel, k=10)),
        "Q(beta=0.5)@100": (lambda x, g: QMeasure(x, g, 0.5, 100),
                            ntcir.q_measure(top, rk, gain, T, it, ig, nrel, beta=0.5, k=100)),
        "AP": (lambda x, g: AP(x, g), ntcir.ap(top, rk, gain, T, nrel)),
        "AP@10": (lambda x, g: AP(x, g, 10), ntcir.ap(top, rk, gain, T, nrel, k=10)),
        "O-measure": (lambda x, g: OMeasure(x, g, 1.0),
                      ntcir.o_measure(top, rk, gain, T, it, ig)),
        "P-measure": (lambda x, g: PMeasure(x, g, 1.0),
                      ntcir.p_measure(top, rk, gain, T, it, ig)),
        "P-plus": (lambda x, g: PPlusMeasure(x, g, 1.0),
                   ntcir.p_plus(top, rk, gain, T, it, ig)),
        "nDCG@10": (lambda x, g: nDCG(x, g, 2.0, 10),
                    ntcir.ndcg(top, rk, gain, T, it, ig, k=10)),
        "nDCG(logb=5)@20": (lambda x, g: nDCG(x, g, 5.0, 20),
                            ntcir.ndcg(top, rk, gain, T, it, ig, k=20, logb=5.0)),
        "MSnDCG@10": (lambda x, g: MSnDCG(x, g, 10),
                      ntcir.ndcg(top, rk, gain, T, it, ig, k=10, microsoft=True)),
        "ERR": (lambda x, g: ERR(x, g), ntcir.err(top, rk, gain, T, gmax)),
        "nERR@10": (lambda x, g: nERR(x, g, 10),
                    ntcir.nerr(top, rk, gain, T, it, ig, gmax, k=10)),
        "RBP(0.95)": (lambda x, g: RBP(x, g, 0.95), ntcir.rbp(top, rk, gain, T, gmax, p=0.95)),
    }
    ref = _reference(f, grades, {k: v[0] for k, v in cases.items()})
    for name, (_, ours) in cases.items():
        r = ref[name]
        ok = ~np.isnan(r)
        assert ok.sum() >= 30, name
        # NTCIREVAL prints 4 decimals; we agree to float rounding
        np.testing.assert_allclose(ours[ok], r[ok], atol=1e-12, err_msg=name)


def test_no_relevant_gives_zero():
    t = np.zeros(3, np.int64)
    r = np.arange(1, 4)
    g = np.zeros(3)
    e = np.zeros(0, np.int64)
    assert ntcir.q_measure(t, r, g, 1, e, np.zeros(0), np.zeros(1))[0] == 0.0
    assert ntcir.p_plus(t, r, g, 1, e, np.zeros(0))[0] == 0.0
    assert ntcir.nerr(t, r, g, 1, e, np.zeros(0), 3.0)[0] == 0.0


def test_q_binary_equals_ap_b():
    """Lu (2018) Section 2.4.3: with binary grades and R >= k, Q@k equals AP_b@k for any beta
    (Table 2.5's runs, R = 20)."""
    rels = [[1, 1, 1, 0, 0, 0, 0, 1, 0, 1], [0, 0, 1, 0, 0, 1, 1, 1, 0, 1],
            [1, 0, 0, 1, 0, 1, 1, 0, 1, 1]]
    topic = np.repeat(np.arange(3), 10)
    rank = np.tile(np.arange(1, 11), 3)
    g = np.array(rels, float).ravel()
    it = np.repeat(np.arange(3), 20)
    ig = np.ones(60)
    nrel = np.full(3, 20)
    q = ntcir.q_measure(topic, rank, g, 3, it, ig, nrel, beta=1.0, k=10)
    np.testing.assert_allclose(q, ntcir.ap(topic, rank, g, 3, nrel, k=10))
    np.testing.assert_allclose(np.round(q, 3), [0.400, 0.210, 0.373])
