"""Score formats (tiebreak.ranking.formats): rounding against numpy, ml_dtypes and reference
quantisers; the formats as --score-precision of eval, trec_eval, compare and the API."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import tiebreak as tb
from tiebreak.cli.app import main
from tiebreak.evaluation.compute import WARN_TIED
from tiebreak.ranking.formats import (
    WARN_MERGED,
    WARN_NAN,
    WARN_OVERFLOW,
    parse_format,
    round_scores,
)

DATA = Path(tb.__file__).parent / "data"
QRELS, RUN = str(DATA / "ymt2016.qrels"), str(DATA / "ymt2016.run")

ADVERSARIAL = np.array([
    0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0,
    65504.0, 65519.99, 65520.0, -65520.0, 1e6,  # float16: max, just below/at overflow
    6.103515625e-05, 6e-05, 5.96e-08, 2.98e-08, 2.9e-08, 1e-40, -3e-8,  # float16 subnormals
    3.3895313892515355e38, 3.39e38, 3.4e38, 1e39,  # bfloat16 / float32 overflow
    1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -8, 1.0 + 2.0 ** -8 + 2.0 ** -30,  # bfloat16 ties
    1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11,  # float16 ties to even
    1.1754943508222875e-38, 1e-45, 5e-324,  # float32 / bfloat16 subnormals
])


def scores_sample(seed=0, n=20000):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-45, 45, n)
    return np.concatenate([x, ADVERSARIAL])


def same_bits(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return bool(np.all((a.view(np.uint64) == b.view(np.uint64)) | (np.isnan(a) & np.isnan(b))))


@pytest.mark.parametrize("name,dtype", [("float16", np.float16), ("float32", np.float32)])
def test_ieee_formats_equal_numpy(name, dtype):
    x = scores_sample()
    with np.errstate(over="ignore"):
        ref = x.astype(dtype).astype(np.float64)
    got, warn = round_scores(x, name)
    assert same_bits(got, ref)
    assert warn[WARN_OVERFLOW] == int((np.isinf(ref) & np.isfinite(x)).sum()) > 0
    assert warn[WARN_NAN] == 1


def test_bfloat16_equals_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = scores_sample(1)
    with np.errstate(over="ignore"):
        x32 = x.astype(np.float32).astype(np.float64)
    for xs in (x, x32):  # float64 and float32 scores
        with np.errstate(over="ignore"):
            ref = xs.astype(ml_dtypes.bfloat16).astype(np.float64)
        got, _ = round_scores(xs, "bfloat16")
        assert same_bits(got, ref)
    # rounded once from float64, not via float32: 1 + 2^-8 + 2^-30 goes up
    assert round_scores([1.0 + 2.0 ** -8 + 2.0 ** -30], "bfloat16")[0][0] == 1.0 + 2.0 ** -7
    assert round_scores([1.0 + 2.0 ** -8], "bfloat16")[0][0] == 1.0  # a tie, to even


def test_bits_k_is_a_k_bit_mantissa():
    x = scores_sample(2)
    # inside float16's normal range, bits:10 is float16; bits:23 is float32 in its range
    r = np.abs(x) > 1e-4
    r &= np.abs(x) < 6e4
    assert same_bits(round_scores(x[r], "bits:10")[0], x[r].astype(np.float16))
    r = (np.abs(x) > 1e-37) & (np.abs(x) < 3e38)
    assert same_bits(round_scores(x[r], "bits:23")[0], x[r].astype(np.float32))
    assert same_bits(round_scores(x, "bits:52")[0], x)
    # brute force: the nearest value with K fraction bits, ties to an even last bit
    for k in (1, 3, 7):
        for v in np.random.default_rng(k).uniform(-50, 50, 300):
            e = math.frexp(v)[1] - 1
            step = 2.0 ** (e - k)
            want = round(v / step) * step  # Python's round is half to even
            assert round_scores([v], f"bits:{k}")[0][0] == want
    assert parse_format("bits:7").rho == 1 + 2 ** -7


def reference_int8(x, topic):
    """Per-element min–max int8: code = round((s - lo) / (hi - lo) * 255) - 128."""
    out = []
    for s, t in zip(x, topic):
        fin = [v for v, u in zip(x, topic) if u == t and math.isfinite(v)]
        lo, hi = min(fin), max(fin)
        if math.isnan(s):
            out.append(math.nan)
        elif s == math.inf:
            out.append(127.0)
        elif s == -math.inf:
            out.append(-128.0)
        elif hi > lo:
            out.append(float(round((s - lo) / (hi - lo) * 255.0) - 128))
        else:
            out.append(-128.0)
    return np.array(out)


def test_int8_equals_a_reference_quantiser():
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.normal(0, 3, 600), [np.nan, np.inf, -np.inf, -0.0, 0.0, 5, 5, 5]])
    topic = np.concatenate([rng.integers(0, 4, 600), [0, 1, 2, 3, 3, 4, 4, 4]])
    got, warn = round_scores(x, "int8", topic)
    assert same_bits(got, reference_int8(x, topic))
    assert np.nanmin(got) == -128 and np.nanmax(got) == 127
    assert warn == {WARN_OVERFLOW: 2, WARN_NAN: 1}  # topic 4 had one score: nothing merged
    g, _ = round_scores(x, "int8-global", topic)
    assert same_bits(g, reference_int8(x, np.zeros_like(topic)))


def test_merged_topics_are_reported():
    s = np.array([1.0, 1.0 + 1e-9, 2.0, 3.0, 7.0, 7.0])
    t = np.array([0, 0, 1, 1, 2, 2])
    _, w = round_scores(s, "float16", t)
    assert w == {WARN_MERGED: 1}  # topic 0 merged; topic 2 was tied already
    _, w = round_scores(s, "decimals:0", t)
    assert w == {WARN_MERGED: 1}
    assert round_scores(s, "float64", t)[1] == {}


def test_decimals_are_what_printf_prints():
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.uniform(-100, 100, 5000), np.arange(-64, 64) / 8, ADVERSARIAL,
                        [2.675, 0.125, 0.375, 1e17, -1e20, 123456789.5]])
    for d in (0, 1, 2, 4, 7):
        got, _ = round_scores(x, f"decimals:{d}")
        ref = np.array([float("%.*f" % (d, v)) for v in x])  # noqa: UP031 (printf itself)
        assert same_bits(got, ref), d


def test_parse_errors_name_the_option():
    for bad in ("float8", "bits:0", "bits:53", "decimals:x", "int4"):
        with pytest.raises(ValueError, match="score_precision"):
            tb.Evaluator(tb.read_qrels(QRELS), ["AP"], score_precision=bad)
    r = CliRunner().invoke(main, ["eval", QRELS, RUN, "--score-precision", "bits:99"])
    assert r.exit_code == 2 and "--score-precision" in r.output
    r = CliRunner().invoke(main, ["compare", QRELS, RUN, RUN, "--score-precision", "x"])
    assert r.exit_code == 2 and "--score-precision" in r.output
    r = CliRunner().invoke(main, ["trec_eval", "--score-precision", "x", QRELS, RUN])
    assert r.exit_code != 0 and "--score-precision" in r.output


def test_decimals_0_on_the_example_ties_as_predicted():
    """Topic 1 (9.8, 9.3 x3, 8.4 x2, 8.2, 8.0 x3) prints as 10, 9 x3, 8 x6; topic 8 (0.9,
    0.7 x3, 0.6) as 1 x5: tied groups {H,A,C}, {M,S,W,B,E,J} and all of topic 8, 14
    documents; topic 8 merged into one score."""
    run = tb.read_run(RUN)
    got, w = round_scores(run.score, "decimals:0", run.topic)
    assert got.tolist() == [10, 9, 9, 9, 8, 8, 8, 8, 8, 8, 1, 1, 1, 1, 1]
    assert w == {WARN_MERGED: 1}
    res = tb.evaluate(tb.read_qrels(QRELS), [run], ["AP", "P@1"], "all",
                      score_precision="decimals:0")
    warn = res.warnings["ymt-fig1"]
    assert warn[WARN_TIED] == 14 and warn[WARN_MERGED] == 1
    full = tb.evaluate(tb.read_qrels(QRELS), [run], ["AP", "P@1"], "all")
    assert full.warnings["ymt-fig1"][WARN_TIED] == 3 + 2 + 3 + 3  # the file's own ties
    # topic 1's first document (D, alone at 10) stays first: P@1 has no tie range there
    reg = res.regimes
    t1 = res.topics.index("1")
    p1 = res.per_topic[0, 1, :, t1]
    assert np.all(p1 == p1[reg.index("trec_eval")])
    # topic 8: five documents in one group, so its P@1 ranges over the group's relevance
    t8 = res.topics.index("8")
    lo, hi = res.per_topic[0, 1, reg.index("lower"), t8], res.per_topic[0, 1, reg.index(
        "upper"), t8]
    assert (lo, hi) == (0.0, 1.0)


def test_cli_and_trec_eval_agree_with_the_api():
    res = tb.evaluate(tb.read_qrels(QRELS), [tb.read_run(RUN)], ["AP"], ["trec_eval"],
                      score_precision="decimals:0")
    r = CliRunner().invoke(main, ["trec_eval", "-m", "map", "--score-precision", "decimals:0",
                                  QRELS, RUN])
    assert r.exit_code == 0, r.output
    assert r.stdout.split() == ["map", "all", f"{res.mean[0, 0, 0]:.4f}"]
    assert "merges into one: 1" in r.stderr
    r = CliRunner().invoke(main, ["eval", QRELS, RUN, "-m", "AP", "--regime", "trec_eval",
                                  "--format", "tsv", "--score-precision", "decimals:0"])
    assert r.exit_code == 0
    assert float(r.stdout.split()[-1]) == res.mean[0, 0, 0]


@pytest.mark.slow
def test_search_score_precision(tmp_path):
    """The engine's final scores in a format: the same documents as the exact run, scores
    rounded, the new ties in trec_eval order (score descending, docno descending)."""
    import json

    docs = [(f"d{i}", " ".join(["x"] * (i % 4 + 1) + ["y"] * (i % 3) + ["z"] * i))
            for i in range(12)]
    src = tmp_path / "c.jsonl"
    src.write_text("".join(json.dumps({"docno": d, "text": t}) + "\n" for d, t in docs))
    (tmp_path / "topics.tsv").write_text("q1\tx y\nq2\tz x\n")
    r = CliRunner().invoke(main, ["index", str(src), "-o", str(tmp_path / "idx"),
                                  "--stemmer", "none", "--stopwords", "none", "-q"])
    assert r.exit_code == 0, r.output

    def search(*extra):
        r = CliRunner().invoke(main, ["search", str(tmp_path / "idx"), "--topics",
                                      str(tmp_path / "topics.tsv"), "--tag", "T", "-q", *extra])
        assert r.exit_code == 0, r.output
        return [x.split() for x in r.stdout.splitlines()], r.stderr

    exact, _ = search()
    for spec in ("decimals:0", "float16", "int8"):
        got, err = search("--score-precision", spec)
        want = []
        for q in ("q1", "q2"):
            rows = [x for x in exact if x[0] == q]
            s, _ = round_scores(np.array([float(x[4]) for x in rows]), spec)
            rows = sorted(zip(s, [x[2] for x in rows]), key=lambda p: (p[0], p[1].encode()),
                          reverse=True)
            want += [[q, "Q0", d, str(i), repr(float(v)), "T"] for i, (v, d) in
                     enumerate(rows, 1)]
        assert got == want, spec
    got, err = search("--score-precision", "decimals:0")
    assert len({x[4] for x in got}) < len({x[4] for x in exact})  # the rounding made ties
    r = CliRunner().invoke(main, ["search", str(tmp_path / "idx"), "--topics",
                                  str(tmp_path / "topics.tsv"), "--score-precision", "int4"])
    assert r.exit_code == 2 and "--score-precision" in r.output
