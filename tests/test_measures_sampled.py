"""Sampled judgments with strata (issue 26): the reader of sample_eval's qrels and the measures
estimated from them, xinfAP, infNDCG and statAP with their sampling variances.

Oracles: a worked example computed by hand from the formulas (Yilmaz, Kanoulas & Aslam 2008;
Aslam, Pavlu & Yilmaz 2006); NIST's sample_eval.pl (its printed values for a fixed input, ties
included); brute force (every pooled document judged: the estimates are AP and nDCG exactly;
one stratum with trec_eval's smoothing: trec_eval's infAP); and simulation (repeated stratified
samples of a fully judged topic: the Horvitz-Thompson totals are unbiased, the variance
estimates near the variance over samples).
"""

from __future__ import annotations

import io
import itertools
import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tiebreak as tb
from tiebreak.evaluation import Evaluator
from tiebreak.io import InputError
from tiebreak.io.inputs import as_qrels
from tiebreak.io.sampled import SampledQrels, is_sampled_qrels, read_sampled_qrels
from tiebreak.measures.builtin.sampled import interval

SQRELS = b"""\
1 0 d1 A 1
1 0 d2 A 0
1 0 d3 A -1
1 0 d4 B 1
1 0 d5 B -1
1 0 d6 B -1
1 0 d7 B 0
2 0 x1 A 2
2 0 x2 A 1
2 0 x3 B -1
2 0 x4 B 1
"""
RUN = b"""\
1 Q0 d3 1 10 r
1 Q0 d1 2 9 r
1 Q0 zz 3 8 r
1 Q0 d5 4 7 r
1 Q0 d4 5 6 r
1 Q0 d2 6 5 r
2 Q0 x4 1 3 r
2 Q0 x3 2 2 r
2 Q0 x1 3 1 r
"""
REGIMES = ["file", "trec_eval", "realistic", "optimistic", "lower", "upper"]
SAMPLE_EVAL = "xinfAP(eps=0.00001,prior=0.3333333333333333)"


def _q(data: bytes) -> SampledQrels:
    return read_sampled_qrels(io.BytesIO(data))


def _run(data: bytes):
    return tb.read_run(io.BytesIO(data))


def _values(qrels, run, measures, regimes=("trec_eval",)):
    ev = Evaluator(qrels, measures, list(regimes))
    return ev.evaluate([run]).per_topic[0]            # (measures, regimes, topics)


# --------------------------------------------------------------------------------------------
# the reader
# --------------------------------------------------------------------------------------------


def test_reader_strata_sizes_and_inclusion_probabilities():
    q = _q(b"# a comment\n\n" + SQRELS)
    assert q.topics == ["1", "2"]
    assert q.strata == [("1", "A"), ("1", "B"), ("2", "A"), ("2", "B")]
    assert q.size.tolist() == [3, 4, 2, 2]
    assert q.sampled.tolist() == [2, 2, 2, 1]
    assert q.inclusion.tolist() == [2 / 3, 0.5, 1.0, 0.5]
    row = {(q.topics[t], q.docnos[d]): s for t, d, s in zip(q.topic, q.docid, q.stratum)}
    assert q.strata[row[("1", "d5")]] == ("1", "B") and q.strata[row[("2", "x1")]] == ("2", "A")
    assert dict(zip(q.docnos[q.docid].tolist(), q.value.tolist()))["d3"] == -1
    lc = q.line_counts
    assert (lc.read, lc.comment, lc.blank, lc.evaluated) == (13, 1, 1, 11)


@pytest.mark.parametrize("data, message", [
    (b"1 0 d1 A 1\n1 0 d2 0\n", r"^<stream>:2: expected 5 fields 'qid iter docno stratum rel', "
                               r"found 4 \(ordinary qrels\?"),
    (b"1 0 d1 A 1 x\n", r"^<stream>:1: expected 5 fields .* found 6"),
    (b"1 0 d1 A 1\n1 0 d2 A x\n", r"^<stream>:2: rel 'x' is not an integer"),
    (b"1 0 d1 A 1\n1 0 d2 A 99999999999999999999\n", r"^<stream>:2: rel .* out of range"),
    (b"1 0 d1 A 1\n1 0 d2 A 0\n1 0 d1 B 0\n", r"^<stream>:3: docno 'd1' of topic '1' already "
                                             r"on line 1"),
    (b"", r"^<stream>: no judgments"),
    (b"# only\n\n", r"^<stream>: no judgments \(2 lines: 1 blank, 1 comment\)"),
    (b"1 0 d1 A 1\n2 0 e1 A -1\n2 0 e2 B -1\n", r"^<stream>: topic 2 has no sampled document"),
    (b"1 0 d1 A 1\n1 0 \x00 A 1\n", r"^<stream>:2: NUL byte"),
])
def test_reader_errors_name_file_line_and_field(data, message):
    with pytest.raises(InputError, match=message):
        _q(data)


def test_reader_gzip_path_and_sniffing(tmp_path):
    import gzip

    p = tmp_path / "s.qrels.gz"
    p.write_bytes(gzip.compress(SQRELS))
    plain = tmp_path / "plain.qrels"
    plain.write_bytes(b"# c\n1 0 d1 1\n")
    assert is_sampled_qrels(str(p)) and not is_sampled_qrels(str(plain))
    assert not is_sampled_qrels("-") and not is_sampled_qrels(str(tmp_path / "missing"))
    q = as_qrels(str(p))                               # what tiebreak eval reads a path with
    assert isinstance(q, SampledQrels) and q.size.tolist() == [3, 4, 2, 2]
    assert not isinstance(as_qrels(str(plain)), SampledQrels)


FIELDS = [b"1", b"2", b"0", b"-1", b"d1", b"d2", b"d3", b"A", b"B", b"#", b"x", b"1.5", b"-2",
          b"\xe9", b"99999999999999999999"]


@st.composite
def sampled_soup(draw) -> bytes:
    lines = draw(st.lists(st.tuples(st.lists(st.sampled_from(FIELDS), max_size=7),
                                    st.sampled_from([b" ", b"\t", b"  "]),
                                    st.sampled_from([b"\n", b"\r\n", b"\r"])), max_size=10))
    return b"".join(sep.join(f) + eol for f, sep, eol in lines)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sampled_soup())
def test_fuzz_a_result_equal_to_a_naive_parse_or_a_located_error(data):
    try:
        q = _q(data)
    except InputError as e:
        assert re.match(r"^<stream>(:\d+)?: \S", str(e)), str(e)
        return
    # the naive reading of the same bytes
    text = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    rows = {}
    for line in text.split(b"\n"):
        f = line.split()
        if f and f[0][:1] != b"#":
            assert len(f) == 5
            rows[(f[0].decode("latin-1"), f[2].decode("latin-1"))] = (f[3], int(f[4]))
    got = {}
    for i in range(len(q)):
        t, d = q.topics[q.topic[i]], q.docnos[q.docid[i]]
        got[(t.encode("utf-8", "surrogateescape").decode("latin-1"), d)] = (
            q.strata[q.stratum[i]][1].encode("utf-8", "surrogateescape"), int(q.value[i]))
    assert got == rows
    assert q.size.sum() == len(q) and (q.sampled <= q.size).all()
    lc = q.line_counts
    assert lc.read == lc.comment + lc.blank + lc.evaluated


# --------------------------------------------------------------------------------------------
# the worked example, by hand from the formulas
# --------------------------------------------------------------------------------------------
# Topic 1: stratum A = {d1: 1, d2: 0, d3: unsampled}, N=3, n=2; B = {d4: 1, d5, d6: unsampled,
# d7: 0}, N=4, n=2. R_hat = 1 * 3/2 + 1 * 4/2 = 3.5.
# Ranking: d3 (A, unsampled), d1 (A, rel), zz (not pooled), d5 (B, unsampled), d4 (B, rel), d2.
# xinfAP: d1 at k=2, above: A pooled 1, sampled 0 -> prior 1/2: c = (1 + 1/2) / 2 = 0.75;
#         d4 at k=5, above: A pooled 2, 1 of 1 sampled relevant; B pooled 1, none sampled:
#         c = (1 + 2 * 1 + 1 * 1/2) / 5 = 0.7.  xinfAP = (0.75 * 3/2 + 0.7 * 2) / 3.5
# sample_eval's prior 1/3: c = 2/3 for both: (2/3 * 3/2 + 2/3 * 2) / 3.5 = 2/3
# statAP: d1: c = 1/2; d4: the sampled relevant d1 above, of another stratum, weighs 1/pi = 3/2:
#         c = (1 + 3/2) / 5 = 1/2.  statAP = (1/2 * 3/2 + 1/2 * 2) / 3.5 = 0.5
# infNDCG: top 6 holds A: d3, d1, d2 (M=3, m=2, gains 1/log2(3), 0); B: d5, d4 (M=2, m=1,
#         gain 1/log2(6)). DCG_hat = 3/2 / log2(3) + 2 / log2(6). Grade 1: N_hat = 3.5 -> 4
#         documents, ideal = 1 + 1/log2(3) + 1/log2(4) + 1/log2(5).
# infNDCG_var: A: sample variance of (1/log2(3), 0) = 1/(2 log2(3)^2), times
#         N^2 (1 - n/N) / n = 9 * (1/3) / 2; B: n = 1 -> 0; over ideal^2.
# xinfAP_var: residuals y - theta x over each stratum's sample (y: c plus the share of the
#         relevant below, d4's 2 * 1/5 for d1): A: (0.75 + 0.4 - theta, 0); B: (0.7 - theta, 0).
# Topic 2: A = {x1: 2, x2: 1}, N=n=2; B = {x3: unsampled, x4: 1}, N=2, n=1. R_hat = 2 + 2 = 4.
# Ranking x4 (B, rel), x3 (B, unsampled), x1 (A, rel 2).
# xinfAP: x4 c = 1; x1 at k=3: B pooled 2, sampled 1, relevant 1: c = (1 + 2) / 3 = 1:
#         (1 * 2 + 1 * 1) / 4 = 0.75 (any prior: nothing is unsampled above x4).
# infNDCG: A: x1 (M=m=1) 2/log2(4); B: x4, x3 (M=2, m=1) 1/log2(2): DCG_hat = 1 + 2 * 1 = 3;
#         grades: 2 -> 1 doc, 1 -> 1 + 2 = 3 docs: ideal = 2 + 1/log2(3) + 1/2 + 1/log2(5).

L3, L5, L6 = math.log2(3), math.log2(5), math.log2(6)
X1 = (0.75 * 1.5 + 0.7 * 2) / 3.5
I1 = 1 + 1 / L3 + 0.5 + 1 / L5
N1 = (1.5 / L3 + 2 / L6) / I1
I2 = 2 + 1 / L3 + 0.5 + 1 / L5
V_NDCG1 = 9 * (1 / 3) * (1 / (2 * L3 ** 2)) / 2 / I1 ** 2
V_X1 = (9 * (1 / 3) * ((0.75 + 0.4 - X1) ** 2 / 2) / 2
        + 16 * (1 / 2) * ((0.7 - X1) ** 2 / 2) / 2) / 3.5 ** 2
HAND = {
    "xinfAP": [X1, 0.75],
    SAMPLE_EVAL: [2 / 3, 0.75],
    "statAP": [0.5, 0.75],
    "infNDCG": [N1, 3 / I2],
    "infNDCG_var": [V_NDCG1, 0.0],
    "xinfAP_var": [V_X1, 0.0],
}


@pytest.mark.parametrize("measure", list(HAND))
def test_worked_example_by_hand(measure):
    v = _values(_q(SQRELS), _run(RUN), [measure], REGIMES)[0]
    tol = 1e-5 if "eps" in measure else 1e-15       # sample_eval smooths with eps = 0.00001
    for r in range(len(REGIMES)):                 # untied run: every regime alike
        np.testing.assert_allclose(v[r], HAND[measure], rtol=1e-12, atol=tol)


# --------------------------------------------------------------------------------------------
# NIST's sample_eval.pl (version of 10 Oct 2011) as the oracle: its printed per-topic values
# --------------------------------------------------------------------------------------------
# ``perl sample_eval.pl -q S R`` on the inputs below (three strata judged at 100 %, 50 % and
# 20 %, grades 0-2, tied scores broken as trec_eval breaks them) printed:
SE_QRELS = b"""\
7 0 a01 1 2
7 0 a02 1 0
7 0 a03 1 1
7 0 a04 2 -1
7 0 a05 2 1
7 0 a06 2 0
7 0 a07 2 -1
7 0 a08 3 -1
7 0 a09 3 -1
7 0 a10 3 2
7 0 a11 3 -1
7 0 a12 3 -1
8 0 b01 1 0
8 0 b02 1 1
8 0 b03 2 -1
8 0 b04 2 2
8 0 b05 3 -1
8 0 b06 3 0
8 0 b07 3 -1
8 0 b08 3 -1
"""
SE_RUN = b"""\
7 Q0 a04 1 9 s
7 Q0 a01 2 9 s
7 Q0 zz1 3 8 s
7 Q0 a05 4 7 s
7 Q0 a08 5 7 s
7 Q0 a10 6 7 s
7 Q0 a02 7 5 s
7 Q0 a03 8 4 s
7 Q0 a11 9 3 s
8 Q0 b03 1 5 s
8 Q0 b06 2 5 s
8 Q0 b04 3 4 s
8 Q0 b02 4 1 s
8 Q0 b08 5 0 s
"""
SE_PRINTED = {"infAP": {"7": 0.6420, "8": 0.5463}, "infNDCG": {"7": 0.6448, "8": 0.6461}}


def test_sample_eval_printed_values():
    v = _values(_q(SE_QRELS), _run(SE_RUN), [SAMPLE_EVAL, "infNDCG"])
    for j, name in enumerate(("infAP", "infNDCG")):
        got = [round(x, 4) for x in v[j, 0]]
        assert got == [SE_PRINTED[name]["7"], SE_PRINTED[name]["8"]], name


# what ``perl sample_eval.pl S R`` printed for the summary (mean over the run's topics; the
# counts summed)
SE_ALL = {"infAP": 0.5941, "infNDCG": 0.6454, "iP10": 0.5000, "iP50": 0.1000, "iP1000": 0.0050,
          "inum_rel_ret": 9.9999, "inum_rel": 12.0000, "num_ret": 14,
          **{f"iprec@rec{x / 10:4.2f}": v for x, v in enumerate(
              [0.7917] * 6 + [0.7639] * 2 + [0.3750] * 2 + [0.0])}}


def test_sample_eval_convention_prints_what_sample_eval_prints():
    ev = Evaluator(_q(SE_QRELS), list(SE_ALL), ["trec_eval"], average="run-topics",
                   max_docs=1000, convention="sample_eval")
    res = ev.evaluate([_run(SE_RUN)])
    assert res.measures == list(SE_ALL)
    assert [round(x, 4) for x in res.mean[0, :, 0]] == list(SE_ALL.values())
    # per topic: iP10 of topic 7 and 8
    assert [round(x, 4) for x in res.per_topic[0, 2, 0]] == [0.7, 0.3]


@pytest.mark.parametrize("name, message", [
    ("iprec@rec0.15", "recall levels 0.00, 0.10, ..., 1.00 only"),
    ("map", "is not a sample_eval measure"),
    ("iP0", "is not a sample_eval measure"),
])
def test_sample_eval_convention_refuses_what_it_cannot_mean(name, message):
    from tiebreak.measures.conventions import ConventionError, parse_with

    with pytest.raises(ConventionError, match=message):
        parse_with("sample_eval", [name])


# --------------------------------------------------------------------------------------------
# brute force: every pooled document judged -> AP and nDCG exactly, under every regime
# --------------------------------------------------------------------------------------------


def _collection(rng, T=4, D=40, strata=True, unsampled=0.0):
    ql, rl = [], []
    for t in range(1, T + 1):
        g = rng.choice([0, 0, 1, 1, 2, 3], D)
        lab = rng.choice(["s1", "s2", "s3"], D)
        for i in range(30):                      # the pool: 30 of the 40 documents
            v = -1 if rng.random() < unsampled else g[i]
            ql.append(f"{t} 0 d{i} {lab[i]} {v}" if strata else f"{t} 0 d{i} {v}")
        for r, i in enumerate(rng.permutation(D)[:25]):
            rl.append(f"{t} Q0 d{i} {r + 1} {rng.integers(0, 8)} run")   # many ties
    return ("\n".join(ql) + "\n").encode(), ("\n".join(rl) + "\n").encode()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_everything_judged_gives_ap_and_ndcg_exactly(seed):
    rng = np.random.default_rng(seed)
    qd, rd = _collection(rng)
    q, run = _q(qd), _run(rd)
    pairs = [("xinfAP", "AP"), ("statAP", "AP"), ("xinfAP(rel=2)", "AP(rel=2)"),
             ("infNumRel(rel=3)", "NumRel(rel=3)"),
             ("statAP(rel=2)", "AP(rel=2)"), ("infNDCG", "nDCG"), ("infNDCG@10", "nDCG@10"),
             ("infNDCG(gains={0:0,1:1,2:5,3:9})@5", "nDCG(gains={0:0,1:1,2:5,3:9})@5")]
    got = _values(q, run, [a for a, _ in pairs], REGIMES)
    plain = tb.read_qrels(io.BytesIO(re.sub(rb" s\d ", b" ", qd)))
    want = np.stack([_values(plain, run, [b], REGIMES)[0] for _, b in pairs])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    assert (want > 0).any() and not np.allclose(want[0], want[2])   # a real comparison
    var = _values(q, run, ["xinfAP_var", "statAP_var", "infNDCG_var"], REGIMES)
    assert (var == 0).all()                                         # nothing left to chance
    # P and NumRelRet only grow with a gain: their YMT upper bound counts the unjudged as
    # relevant, the estimates keep them non-relevant (nothing is unsampled)
    pairs = [("infP@10", "P@10"), ("infP(rel=2)@3", "P(rel=2)@3"), ("infNumRelRet", "NumRelRet")]
    got = _values(q, run, [a for a, _ in pairs], REGIMES[:-1])
    want = np.stack([_values(plain, run, [b], REGIMES[:-1])[0] for _, b in pairs])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("seed", [4, 5])
def test_one_stratum_with_trec_eval_smoothing_is_trec_evals_infap(seed):
    rng = np.random.default_rng(seed)
    qd, rd = _collection(rng, strata=False, unsampled=0.4)
    q, run = tb.read_qrels(io.BytesIO(qd)), _run(rd)
    got = _values(q, run, ["xinfAP(eps=0.00001)"], REGIMES)
    want = _values(q, run, ["infAP"], REGIMES)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert not np.allclose(want, _values(q, run, ["AP"], REGIMES))


@pytest.mark.parametrize("name", ["xinfAP", "statAP", "infNDCG@4", "xinfAP_var",
                                  "infNDCG_var"])
def test_expected_is_the_mean_over_tie_orders(name):
    """Brute force: a tied group of five (relevant of two strata, judged non-relevant,
    unsampled, outside the pool); the sampled expectation within 4 SE of the exact mean over
    the 120 orders."""
    q = _q(b"1 0 a A 2\n1 0 b A 0\n1 0 c B 1\n1 0 d B 2\n1 0 e B -1\n1 0 f A -1\n"
           b"1 0 g B 0\n")
    tied = ["b", "c", "d", "e", "u"]
    docs = ["a", *tied, "f"]
    scores = [9.0, 5.0, 5.0, 5.0, 5.0, 5.0, 1.0]
    run = _run("".join(f"1 Q0 {d} {i + 1} {x} r\n" for i, (d, x) in
                       enumerate(zip(docs, scores))).encode())
    got = Evaluator(q, [name], ["expected"], samples=20000, seed=3).evaluate([run])
    vals = []
    for perm in itertools.permutations(tied):
        order = ["a", *perm, "f"]
        r = _run("".join(f"1 Q0 {d} {i + 1} {10 - i} r\n" for i, d in enumerate(order)).encode())
        vals.append(_values(q, r, [name], ["file"])[0, 0, 0])
    assert np.std(vals) > 0
    assert got.per_topic[0, 0, 0, 0] == pytest.approx(np.mean(vals),
                                                      abs=4 * np.std(vals) / np.sqrt(20000))


# --------------------------------------------------------------------------------------------
# simulation: repeated stratified samples of a fully judged topic
# --------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_unbiased_totals_and_variance_estimates_by_simulation():
    rng = np.random.default_rng(7)
    D = 80
    grade = np.where(rng.random(D) < np.linspace(0.7, 0.1, D), rng.choice([1, 2], D), 0)
    lab = np.where(np.arange(D) < 20, "top", np.where(np.arange(D) < 50, "mid", "low"))
    take = {"top": 20, "mid": 15, "low": 6}              # 100 %, 50 %, 20 %
    run = _run("".join(f"1 Q0 d{i} {i + 1} {D - i} r\n" for i in range(60)).encode())
    full = tb.read_qrels(io.BytesIO("".join(f"1 0 d{i} {g}\n"
                                            for i, g in enumerate(grade)).encode()))
    ap, ndcg = _values(full, run, ["AP", "nDCG"])[:, 0, 0]
    R = int((grade >= 1).sum())
    idx = {s: np.flatnonzero(lab == s) for s in take}
    S = 600
    est = np.zeros((S, 6))
    rhat = np.zeros(S)
    for it in range(S):
        pick = np.zeros(D, bool)
        for s, ix in idx.items():
            pick[rng.choice(ix, take[s], replace=False)] = True
            rhat[it] += (grade[ix][pick[ix]] >= 1).sum() * len(ix) / take[s]
        q = _q("".join(f"1 0 d{i} {lab[i]} {grade[i] if pick[i] else -1}\n"
                       for i in range(D)).encode())
        est[it] = _values(q, run, ["statAP", "xinfAP", "infNDCG", "statAP_var", "xinfAP_var",
                                   "infNDCG_var"])[:, 0, 0]
    se = lambda x: x.std(ddof=1) / math.sqrt(S)  # noqa: E731
    # Horvitz-Thompson: the estimated R and statAP's numerator (sum over pairs) are unbiased
    assert abs(rhat.mean() - R) < 3 * se(rhat)
    num = est[:, 0] * rhat
    assert abs(num.mean() - R * ap) < 3 * se(num)
    # the ratios carry the small bias of a ratio estimator
    for j, truth in ((0, ap), (1, ap), (2, ndcg)):
        assert abs(est[:, j].mean() - truth) < 0.02
    # the variance estimates against the variance over samples (measured: 0.82, 0.81, 1.0)
    for j, lo, hi in ((0, 0.65, 1.15), (1, 0.65, 1.15), (2, 0.85, 1.15)):
        ratio = est[:, j + 3].mean() / est[:, j].var(ddof=1)
        assert lo < ratio < hi, (j, ratio)


def test_interval_of_the_mean_over_topics():
    mean, lo, hi = interval([0.2, 0.4, float("nan")], [0.01, 0.03, 0.5])
    half = 1.959963984540054 * math.sqrt(0.04) / 2
    assert mean == pytest.approx(0.3) and lo == pytest.approx(0.3 - half)
    assert hi == pytest.approx(0.3 + half)
    with pytest.raises(ValueError):
        interval([0.1], [0.0], level=1.0)


def test_names_in_the_registry_and_the_measure_table():
    from tiebreak.measures.registry import family
    from tiebreak.measures.table import rows

    for name in ("xinfAP", "infNDCG", "statAP", "xinfAP_var", "infNDCG_var", "statAP_var",
                 "infP", "infNumRel", "infNumRelRet", "infndcg", "XINFAP"):
        assert family(name) is not None, name
    names = {r["measure"] for r in rows()}
    assert {"xinfAP", "infNDCG[@k]", "statAP", "infNDCG_var[@k]"} <= names


def test_sample_eval_ideal_dcg_stops_at_rank_1000():
    """R_hat = 2 x 1500/3 + 100 = 1100 relevant documents: sample_eval's ideal DCG stops at
    rank 1000 (``perl sample_eval.pl -q`` printed infNDCG 0.0758, infAP 0.4840 for topic 5)."""
    lines = [f"5 0 a{i:04d} A {1 if i in (0, 7) else 0 if i == 3 else -1}" for i in range(1500)]
    lines += [f"5 0 b{i:03d} B {1 - i % 2}" for i in range(200)]
    run = [f"5 Q0 b{i:03d} {i + 1} {1000 - i} r" for i in range(0, 200, 3)]
    run += [f"5 Q0 a{i:04d} {300 + i} {500 - i} r" for i in range(10)]
    q, r = _q(("\n".join(lines) + "\n").encode()), _run(("\n".join(run) + "\n").encode())
    ev = Evaluator(q, ["infNDCG", "infAP"], ["trec_eval"], convention="sample_eval")
    v = ev.evaluate([r]).per_topic[0, :, 0, 0]
    assert [round(x, 4) for x in v] == [0.0758, 0.4840]
    deeper = _values(q, r, ["infNDCG"])[0, 0, 0]          # ideal over all 1100: larger
    assert round(deeper, 4) == 0.0701


def test_cli_reads_sampled_qrels_by_their_five_fields(tmp_path):
    from click.testing import CliRunner

    from tiebreak.cli import main

    (tmp_path / "s.qrels").write_bytes(SE_QRELS)
    (tmp_path / "r.run").write_bytes(SE_RUN)
    r = CliRunner().invoke(main, ["eval", str(tmp_path / "s.qrels"), str(tmp_path / "r.run"),
                                  "--convention", "sample_eval", "-m", "infAP", "-m", "infNDCG",
                                  "--regime", "trec_eval", "--average", "run-topics",
                                  "--format", "tsv"])
    assert r.exit_code == 0, r.output
    vals = [float(line.split("\t")[-1]) for line in r.stdout.splitlines()
            if line.startswith("s\t")]
    assert [round(v, 4) for v in vals] == [SE_ALL["infAP"], SE_ALL["infNDCG"]]
    (tmp_path / "bad.qrels").write_bytes(b"1 0 d1 A 1\n1 0 d2 A x\n")
    r = CliRunner().invoke(main, ["eval", str(tmp_path / "bad.qrels"), str(tmp_path / "r.run"),
                                  "-m", "xinfAP"])
    assert r.exit_code == 2 and "bad.qrels:2: rel 'x' is not an integer" in r.output
    assert "Traceback" not in r.output



# small pools, short runs (sample_eval.pl printed these iprec@rec lines; several recall levels
# fall on one rank, its rounding of 0.1 x R_hat against the estimated counts matters)
SMALL_QRELS = b"""\
1 0 D1-000 2 0
1 0 D1-001 1 -1
1 0 D1-002 1 2
1 0 D1-003 2 -1
1 0 D1-004 1 0
1 0 D1-005 2 -1
1 0 D1-006 1 1
1 0 D1-007 2 -1
1 0 D1-008 2 -1
1 0 D1-009 2 0
2 0 D2-000 1 0
2 0 D2-001 1 0
2 0 D2-002 2 0
2 0 D2-003 1 0
2 0 D2-004 2 -1
2 0 D2-005 2 1
2 0 D2-006 2 -1
2 0 D2-007 2 2
2 0 D2-008 1 0
2 0 D2-009 1 0
3 0 D3-000 2 1
3 0 D3-001 1 1
3 0 D3-002 2 0
3 0 D3-003 2 2
3 0 D3-004 2 -1
3 0 D3-005 2 -1
3 0 D3-006 2 -1
3 0 D3-007 1 -1
3 0 D3-008 1 -1
3 0 D3-009 1 2
4 0 D4-000 1 1
4 0 D4-001 1 0
4 0 D4-002 2 -1
4 0 D4-003 1 0
4 0 D4-004 2 -1
4 0 D4-005 2 -1
4 0 D4-006 2 -1
4 0 D4-007 1 1
4 0 D4-008 2 -1
4 0 D4-009 2 -1
"""
SMALL_RUN = b"""\
1 Q0 D1-004 1 0 run
1 Q0 D1-011 2 2 run
1 Q0 D1-008 3 3 run
1 Q0 D1-007 4 2 run
1 Q0 D1-009 5 1 run
1 Q0 D1-010 6 2 run
2 Q0 D2-004 1 4 run
3 Q0 D3-009 1 4 run
3 Q0 D3-000 2 1 run
3 Q0 D3-013 3 0 run
3 Q0 D3-004 4 1 run
3 Q0 D3-011 5 0 run
3 Q0 D3-001 6 0 run
3 Q0 D3-010 7 0 run
3 Q0 D3-007 8 4 run
4 Q0 D4-008 1 1 run
4 Q0 D4-012 2 4 run
"""
SMALL_IPREC = [0.4583, 0.3750, 0.2500, 0.2500, 0.2500, 0.1667, 0.1562, 0.0, 0.0, 0.0, 0.0]


def test_sample_eval_iprec_on_small_pools():
    names = [f"iprec@rec{x / 10:4.2f}" for x in range(11)]
    ev = Evaluator(_q(SMALL_QRELS), names, ["trec_eval"], average="run-topics",
                   convention="sample_eval")
    got = ev.evaluate([_run(SMALL_RUN)]).mean[0, :, 0]
    assert [f"{v:.4f}" for v in got] == [f"{v:.4f}" for v in SMALL_IPREC]
