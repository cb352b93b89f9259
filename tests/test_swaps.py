"""``tiebreak swaps``: a hand-computed reversal on tiny runs, p-values equal to the paired test
with Holm over all pairs, every format, and on the 143 TREC-COVID round 1 runs the AP reversal
of RMITBFuseM2 and ixa-ir-filter-query (about 10 s)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import tiebreak as tb
from tiebreak import stats
from tiebreak.cli import main
from tiebreak.stats.swaps import NEEDED_REGIMES, TSV_COLUMNS, swaps


@pytest.fixture
def tiny(tmp_path):
    """A ties its relevant document with two others on q1 (trec_eval puts it third, the file
    first); B and C are the same untied run."""
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 0\nq2 0 d1 1\nq2 0 d2 0\n")
    (tmp_path / "a").write_text("q1 Q0 d1 1 5 A\nq1 Q0 d2 2 5 A\nq1 Q0 d3 3 5 A\n"
                                "q2 Q0 d1 1 9 A\nq2 Q0 d2 2 8 A\n")
    for tag in "BC":
        (tmp_path / tag.lower()).write_text(f"q1 Q0 d1 1 9 {tag}\nq1 Q0 d2 2 8 {tag}\n"
                                            f"q2 Q0 d2 1 9 {tag}\nq2 Q0 d1 2 8 {tag}\n")
    return str(tmp_path / "qrels"), [str(tmp_path / x) for x in "abc"]


def test_hand_computed_reversal(tiny):
    qrels, paths = tiny
    res = tb.Evaluator(tb.read_qrels(qrels), ["RR"], list(NEEDED_REGIMES)).evaluate(paths)
    s = swaps(res)
    # RR of A: q1 1/3 (trec_eval), 1 (file), (1 + 1/2 + 1/3)/3 (expected); q2 1. B, C: 1, 1/2
    a = {"trec_eval": (1 / 3 + 1) / 2, "file": 1.0, "expected": (11 / 18 + 1) / 2}
    rows = {(r["system_a"], r["system_b"]): r for r in s.rows(everything=True)}
    ab = rows[("A", "B")]
    for g, v in a.items():
        assert ab[f"delta_{g}"] == pytest.approx(v - 0.75, abs=1e-15)
    assert ab["delta_low"] == pytest.approx(a["trec_eval"] - 0.75, abs=1e-15)
    assert ab["delta_high"] == pytest.approx(0.25, abs=1e-15)
    assert ab["swap"] and ab["ties_decide"]
    bc = rows[("B", "C")]
    assert not bc["swap"] and not bc["ties_decide"] and bc["delta_low"] == bc["delta_high"] == 0
    listed = {(r["system_a"], r["system_b"]) for r in s.rows()}
    assert listed == {("A", "B"), ("A", "C")}
    sm = s.summary()[0]
    assert (sm["swap_file"], sm["swap_expected"], sm["swap"], sm["ties_decide"]) == (2, 2, 2, 2)


@pytest.fixture(scope="module")
def covid5(shared_data):
    d = shared_data / "trec_covid" / "round1"
    names = ["BBGhelani1", "BERT", "BITEM_BL", "CSIROmedNIR", "BM25R2"]
    paths = [str(d / "runs" / f"{s}.gz") for s in names]
    qrels = str(d / "qrels-rnd1.txt")
    return qrels, paths, tb.Evaluator(tb.read_qrels(qrels), ["AP", "RR"],
                                      list(NEEDED_REGIMES)).evaluate(paths)


def test_pvalues_are_the_paired_test_with_holm(covid5):
    _, _, res = covid5
    s = swaps(res, test="t", correction="holm")
    for k, m in enumerate(s.measures):
        for g in ("trec_eval", "file", "expected"):
            X = res.per_topic[:, res.measures.index(m), res.regimes.index(g)]
            want = stats.adjust(stats.paired_pvalues_rows(X[s.ii] - X[s.jj], "t"), "holm")
            np.testing.assert_array_equal(s.p[g][k], want)
            assert ((s.sig[g][k] != 0) == (want < 0.05)).all()
    # Tukey verdicts from the critical value agree with the p-values of the listed pairs
    t = swaps(res, test="tukey")
    from tiebreak.stats.significance import family_pvalues
    for k, m in enumerate(t.measures):
        X = res.per_topic[:, res.measures.index(m), res.regimes.index("trec_eval")]
        p = family_pvalues(X, t.ii, t.jj, "tukey")
        assert ((t.sig["trec_eval"][k] != 0) == (p < 0.05)).all()


def test_cli_formats(tiny):
    qrels, paths = tiny
    run = CliRunner().invoke
    r = run(main, ["swaps", qrels, *paths, "-m", "RR", "--format", "tsv", "--all", "-j", "1"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].split("\t") == list(TSV_COLUMNS) and len(lines) == 4
    ab = [dict(zip(TSV_COLUMNS, x.split("\t"))) for x in lines[1:]]
    ab = next(x for x in ab if (x["system_a"], x["system_b"]) == ("A", "B"))
    assert float(ab["delta_trec_eval"]) == (1 / 3 + 1) / 2 - 0.75  # repr: full precision
    r = run(main, ["swaps", qrels, *paths, "-m", "RR", "--format", "json", "-j", "1"])
    doc = json.loads(r.stdout)
    assert doc["summary"][0]["swap"] == 2 and len(doc["pairs"]) == 2
    r = run(main, ["swaps", qrels, *paths, "-m", "RR", "--format", "latex", "-j", "1"])
    assert r.exit_code == 0 and r"\toprule" in r.output and r"\checkmark" in r.output
    r = run(main, ["swaps", qrels, *paths, "-m", "RR", "-j", "1"])
    assert r.exit_code == 0 and "swap vs expected" in r.output and "-0.0833333" in r.output
    r = run(main, ["swaps", qrels, *paths, "-m", "nope", "-j", "1"])
    assert r.exit_code == 2 and "tiebreak: error:" in r.output


def test_round1_lists_the_ap_reversal(shared_data):
    d = shared_data / "trec_covid" / "round1"
    r = CliRunner().invoke(main, ["swaps", str(d / "qrels-rnd1.txt"), str(d / "runs"), "-m",
                                  "AP", "--format", "tsv", "--quiet"])
    assert r.exit_code == 0, r.output
    rows = [dict(zip(TSV_COLUMNS, x.split("\t"))) for x in r.stdout.splitlines()[1:]]
    hit = [x for x in rows if {x["system_a"], x["system_b"]}
           == {"RMITBFuseM2", "ixa-ir-filter-query"}]
    assert len(hit) == 1 and hit[0]["swap"] == "yes" and hit[0]["ties_decide"] == "yes"
    sign = 1 if hit[0]["system_a"] == "RMITBFuseM2" else -1
    assert sign * float(hit[0]["delta_trec_eval"]) == pytest.approx(0.000256389, abs=1e-9)
    assert sign * float(hit[0]["delta_expected"]) == pytest.approx(-0.0000655704, abs=1e-10)


def test_score_precision_rounds_before_the_regimes(tmp_path):
    """--score-precision decimals:0 merges 0.9 and 0.7 of run a into one tied group, so the
    pair's AP difference under trec_eval differs from full precision; a bad format names the
    option."""
    from click.testing import CliRunner

    from tiebreak.cli import main

    q = tmp_path / "q"
    q.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n2 0 d2 0\n")
    a = tmp_path / "a"
    a.write_text("1 Q0 d2 1 0.9 a\n1 Q0 d1 2 0.7 a\n2 Q0 d1 1 0.9 a\n2 Q0 d2 2 0.2 a\n")
    b = tmp_path / "b"
    b.write_text("1 Q0 d1 1 0.9 b\n1 Q0 d2 2 0.2 b\n2 Q0 d2 1 0.9 b\n2 Q0 d1 2 0.2 b\n")
    args = ["swaps", str(q), str(a), str(b), "-m", "AP", "--format", "tsv", "--all"]
    full = CliRunner().invoke(main, args)
    rounded = CliRunner().invoke(main, args + ["--score-precision", "decimals:0"])
    assert full.exit_code == 0 and rounded.exit_code == 0, full.output + rounded.output
    assert full.output != rounded.output
    bad = CliRunner().invoke(main, args + ["--score-precision", "float8"])
    assert bad.exit_code == 2 and "--score-precision" in bad.output
