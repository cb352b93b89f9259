"""tiebreak qrels robustness: rankings, flips, significance changes and the tie ranges, under
two qrels; hand-made cases and TREC-COVID round 1 (round-1 qrels against the complete qrels)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import kendalltau

from tiebreak.cli.app import main
from tiebreak.evaluation import Evaluator
from tiebreak.io import read_qrels, read_run
from tiebreak.stats.agreement import agreement
from tiebreak.studies.robustness import common_judged, robustness


def _write(p, lines):
    p.write_text("".join(" ".join(map(str, x)) + "\n" for x in lines))
    return str(p)


@pytest.fixture
def hand(tmp_path):
    """Two topics; run X ranks d1 then d2, run Y d2 then d1, run Z ties d1 and d2. Under A d1 is
    the relevant document, under B d2 is: X and Y swap places. d3 is judged by A only."""
    qa = _write(tmp_path / "a", [(1, 0, "d1", 1), (1, 0, "d2", 0), (1, 0, "d3", 0),
                                 (2, 0, "d1", 1), (2, 0, "d2", 0)])
    qb = _write(tmp_path / "b", [(1, 0, "d1", 0), (1, 0, "d2", 1),
                                 (2, 0, "d1", 0), (2, 0, "d2", 1)])
    runs = []
    for name, s1, s2 in (("X", 2, 1), ("Y", 1, 2), ("Z", 1, 1)):
        runs.append(_write(tmp_path / name, [(q, "Q0", d, r, s, name) for q in (1, 2)
                                             for r, (d, s) in enumerate([("d1", s1), ("d2", s2)],
                                                                        1)]))
    return qa, qb, runs


def test_hand_made_flip(hand):
    qa, qb, runs = hand
    res = robustness(read_qrels(qa), read_qrels(qb), [read_run(r) for r in runs], ["RR"],
                     correction=None)
    s = res.summary[0]
    # RR under A: X 1, Y 0.5, Z trec_eval (docno descending: d2 first) 0.5; under B: X 0.5, Y 1,
    # Z 1. Pairs (X,Y) and (X,Z) flip; Y-Z tie under A, so not a flip.
    means = {r["run"]: (r["mean_a"], r["mean_b"]) for r in res.rankings}
    assert means == {"X": (1.0, 0.5), "Y": (0.5, 1.0), "Z": (0.5, 1.0)}
    assert s["flips"] == 2
    flips = {(c["run_i"], c["run_j"]): c for c in res.changes}
    assert set(flips) == {("X", "Y"), ("X", "Z")}
    # Z's tie range is [0.5, 1] under both qrels: its flip with X lies inside a tie range
    assert flips[("X", "Z")]["inside_ties"] and not flips[("X", "Y")]["inside_ties"]
    assert s["flips_outside_ties"] == 1
    # constant differences: the t-test gives p = 0 (X vs Y significant both ways: reversed)
    assert flips[("X", "Y")]["change"] == "flip+reversed"
    assert flips[("X", "Z")]["change"] == "flip+reversed"
    assert s["reversed"] == 2 and s["tau"] == pytest.approx(kendalltau([1, .5, .5],
                                                                        [.5, 1, 1]).statistic)


def test_identical_qrels_change_nothing(hand):
    qa, _, runs = hand
    res = robustness(read_qrels(qa), read_qrels(qa), [read_run(r) for r in runs], ["RR", "AP"])
    for s in res.summary:
        assert s["flips"] == s["lost"] == s["gained"] == s["reversed"] == 0
        assert s["rbo"] == pytest.approx(1.0) and s["tau"] == pytest.approx(1.0)
    assert res.changes == []


def test_rules(hand):
    qa, qb, runs = hand
    a, b = read_qrels(qa), read_qrels(qb)
    ca, cb = common_judged(a, b)
    assert len(ca) == len(cb) == agreement(a, b).rows[-1]["both"] == 4
    rr = [read_run(r) for r in runs]
    # condensed lists through condense_run equal trec_eval -J (judged_only) through the evaluator
    res = robustness(a, b, rr, ["AP"], rule="condensed", correction=None)
    ev = Evaluator(a, ["AP"], ["trec_eval"], judged_only=True).evaluate(rr)
    got = {r["run"]: r["mean_a"] for r in res.rankings}
    assert got == {n: float(ev.mean[i, 0, 0]) for i, n in enumerate(ev.runs)}
    with pytest.raises(ValueError, match="rule"):
        robustness(a, b, rr, rule="drop")


@pytest.fixture(scope="module")
def covid(shared_data):
    d = shared_data / "trec_covid"
    runs = sorted((d / "round1/runs").iterdir())[:40]
    return d / "round1/qrels-rnd1.txt", d / "qrels.covid-complete.txt.gz", runs


def test_covid_round1_against_complete(covid):
    qa, qb, paths = covid
    rr = [read_run(p) for p in paths]
    res = robustness(read_qrels(qa), read_qrels(qb), rr, ["AP"], ["trec_eval"])
    a = Evaluator(read_qrels(qa), ["AP"], ["trec_eval"]).evaluate(rr).mean[:, 0, 0]
    b = Evaluator(read_qrels(qb), ["AP"], ["trec_eval"]).evaluate(rr).mean[:, 0, 0]
    s = res.summary[0]
    assert s["tau"] == pytest.approx(kendalltau(a, b).statistic, rel=1e-12)
    d = np.sign(a[:, None] - a[None, :]) * np.sign(b[:, None] - b[None, :])
    assert s["flips"] == int(np.sum(np.triu(d < 0, 1)))
    assert s["flips"] > 0 and s["pairs"] == 780
    assert res.topics == [str(t) for t in range(1, 31)]


def test_cli(covid):
    qa, qb, paths = covid
    r = CliRunner().invoke(main, ["qrels", "robustness", str(qa), str(qb), *map(str, paths[:5]),
                                  "-m", "P@10", "--rule", "excluded", "--format", "json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["rule"] == "excluded" and len(d["summary"]) == 1 and len(d["rankings"]) == 5
    r = CliRunner().invoke(main, ["qrels", "robustness", str(qa), str(qb), str(paths[0])])
    assert r.exit_code == 2 and "at least two runs" in r.output


def test_pool_subset_as_second_qrels(covid):
    """Lu (2018) ch. 5 style: the second qrels is a depth-5 pool of the first. Under 'excluded'
    the first is cut to the pool, so both are the same and nothing changes; under 'nonrel' the
    shallow pool moves the rankings."""
    from tiebreak.judgments.pool import pool_depth, restrict_qrels, run_lists

    qa_path, _, paths = covid
    qa = read_qrels(qa_path)
    rr = [read_run(p) for p in paths[:15]]
    qb = restrict_qrels(qa, pool_depth(run_lists(rr, qa), 5))
    assert 0 < len(qb) < len(qa)
    ca, cb = common_judged(qa, qb)
    assert len(ca) == len(cb) == int(np.sum(qb.value >= 0))
    ex = robustness(qa, qb, rr, ["AP"], rule="excluded")
    s = ex.summary[0]
    assert s["flips"] == s["lost"] == s["gained"] == 0 and s["tau"] == pytest.approx(1.0)
    nr = robustness(qa, qb, rr, ["AP"], rule="nonrel").summary[0]
    assert nr["tau"] < 1.0 and nr["flips"] > 0
