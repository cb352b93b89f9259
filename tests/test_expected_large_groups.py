"""The closed forms of the ``expected`` regime on tied groups far too large to enumerate.

A ranking with big tied groups (one cut by the cutoffs) is evaluated once with ``expected``; the
same documents in many random within-group orders, each with distinct scores and written as its
own topic, are evaluated with ``trec_eval``. The closed form must lie within 5 standard errors
of the sample mean. Brute-force enumeration covers small groups in test_properties.py.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

import tiebreak as tb

MEASURES = [
    "AP", "AP@20", "P@20", "R@30", "Rprec", "RR", "RR@5", "nDCG", "nDCG@20",
    "nDCG(dcg='exp-log2')@20", "RBP(p=0.9)", "RBP(p=0.9,gains={0:0,1:0.3,2:0.6,3:1})",
    "ERR", "ERR@20", "Success@5", "bpref", "Judged@20",
]


def _topic_lines(qid, docs, scores):
    rows = enumerate(zip(docs, scores), 1)
    return "".join(f"{qid} Q0 {d} {i} {float(s)!r} t\n" for i, (d, s) in rows)


@pytest.fixture(scope="module")
def case():
    rng = np.random.default_rng(7)
    sizes = [1, 1, 1, 60, 1, 35, 12]  # the 60-group spans ranks 4-63 and straddles 5, 20, 30
    docs, grades, groups = [], {}, []
    for g, s in enumerate(sizes):
        members = []
        for j in range(s):
            d = f"g{g}d{j}"
            members.append(d)
            u = rng.random()
            if g < 3:
                grades[d] = 0
            elif u < 0.2:
                pass  # unjudged
            else:
                grades[d] = int(rng.choice([0, 0, 1, 2, 3]))
        groups.append(members)
        docs += members
    for j in range(7):
        grades[f"unret{j}"] = int(rng.integers(0, 4))
    return groups, grades


@pytest.mark.slow
def test_expected_matches_monte_carlo_on_large_groups(case):
    groups, grades = case
    rng = np.random.default_rng(11)
    n_samples = 4000
    qrel_lines = []
    run_lines = []
    for t in range(n_samples):
        order = [d for g in groups for d in rng.permutation(g)]
        scores = np.arange(len(order), 0, -1, dtype=float)
        run_lines.append(_topic_lines(f"s{t}", order, scores))
        qrel_lines += [f"s{t} 0 {d} {g}\n" for d, g in grades.items()]
    tied_scores = [float(100 - gi) for gi, g in enumerate(groups) for _ in g]
    tied_docs = [d for g in groups for d in g]
    run_lines.append(_topic_lines("tied", tied_docs, tied_scores))
    qrel_lines += [f"tied 0 {d} {g}\n" for d, g in grades.items()]
    q = tb.read_qrels(io.BytesIO("".join(qrel_lines).encode()))
    r = tb.read_run(io.BytesIO("".join(run_lines).encode()))
    res = tb.Evaluator(q, MEASURES, regimes=["trec_eval", "expected"]).evaluate([r])
    ti = res.topics.index("tied")
    samples = np.delete(np.arange(len(res.topics)), ti)
    checked = 0
    for j, m in enumerate(res.measures):
        vals = res.per_topic[0, j, 0, samples]
        exp = res.per_topic[0, j, 1, ti]
        se = vals.std(ddof=1) / np.sqrt(len(vals))
        assert abs(vals.mean() - exp) <= 5 * se + 1e-12, (m, vals.mean(), exp, se)
        # and the sampled orderings all have distinct scores: expected == trec_eval per sample
        assert np.allclose(res.per_topic[0, j, 0, samples], res.per_topic[0, j, 1, samples])
        checked += 1
    assert checked == len(MEASURES) + 1  # both RBPs share one residual row (same p)


def test_float32_precision_creates_ties():
    """Scores that differ beyond single precision tie under --score-precision float32."""
    q = tb.read_qrels(io.BytesIO(b"1 0 a 1\n1 0 b 0\n"))
    r = tb.read_run(io.BytesIO(b"1 Q0 a 1 1.00000001 t\n1 Q0 b 2 1.00000002 t\n"))
    d = tb.evaluate(q, r, ["P@1"], ["trec_eval", "expected"])
    f = tb.evaluate(q, r, ["P@1"], ["trec_eval", "expected"], score_precision="float32")
    assert d.value("t", "P@1", "trec_eval") == 0.0 and d.value("t", "P@1", "expected") == 0.0
    # float32: a tie; trec_eval breaks it by docno descending (b first), expected is 1/2
    assert f.value("t", "P@1", "trec_eval") == 0.0 and f.value("t", "P@1", "expected") == 0.5


def test_several_runs_and_run_topics_average():
    q = tb.read_qrels(io.BytesIO(b"1 0 a 1\n2 0 b 1\n3 0 c 1\n"))
    r1 = tb.read_run(io.BytesIO(b"1 Q0 a 1 2 A\n2 Q0 x 1 2 A\n"))
    r2 = tb.read_run(io.BytesIO(b"3 Q0 c 1 2 B\n3 Q0 z 2 2 B\n"))
    res = tb.evaluate(q, [r1, r2], ["RR"], ["trec_eval", "expected"])
    assert res.runs == ["A", "B"]
    assert res.value("A", "RR", "trec_eval") == pytest.approx(1 / 3)
    assert res.value("B", "RR", "expected") == pytest.approx(0.75 / 3)
    res = tb.evaluate(q, [r1, r2], ["RR"], ["expected"], average="run-topics")
    assert res.value("A", "RR", "expected") == pytest.approx(0.5)
    assert res.value("B", "RR", "expected") == pytest.approx(0.75)
    assert np.isnan(res.per_topic[1, 0, 0, 0])
    df = res.to_pandas()
    assert set(df.columns) == {"run", "measure", "regime", "qid", "value"}
    assert len(df) == 2 + 1  # A: topics 1, 2; B: topic 3 (per-topic rows only)
    means = res.to_pandas(per_topic=False)
    assert means.qid.tolist() == ["all", "all"]
    assert means.value.tolist() == pytest.approx([0.5, 0.75])


def test_repeated_run_names_are_kept_apart():
    q = tb.read_qrels(io.BytesIO(b"1 0 a 1\n"))
    r = [tb.read_run(io.BytesIO(b"1 Q0 a 1 2 same\n")) for _ in range(2)]
    res = tb.evaluate(q, r, ["RR"], ["trec_eval"])
    assert res.runs == ["same", "same#2"]
    assert "run name repeated; renamed" in res.warnings["same#2"]


def test_bad_measure_parameters():
    from tiebreak.measures import MeasureError, parse_measure

    for bad in ["bpref@10", "RBP(p=1.5)", "RBP(q=0.5)", "AP(rel=1.5)", "nDCG(dcg='x')",
                "RBP(p=0.8,gains={1:2})", "Foo@10", "P@0"]:
        with pytest.raises(MeasureError):
            parse_measure(bad)
    assert parse_measure("P_10") == parse_measure("P@10")
    assert parse_measure("map_cut_10") == parse_measure("AP@10")
    assert parse_measure("ndcg_cut.5") == parse_measure("nDCG@5")
    assert parse_measure("rbp")["p"] == 0.9 and parse_measure("RBP")["p"] == 0.8
