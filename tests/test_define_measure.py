"""tiebreak.define_measure: a user's per-topic function gets every tie regime, the ``-m``
names, the API and the compat layers; values against hand computation and brute force over
every ordering of the tied groups."""

from __future__ import annotations

import itertools
import subprocess
import sys

import numpy as np
import pytest

import tiebreak
from tiebreak.measures import MeasureError, family
from tiebreak.measures.user import define_measure

# topic 1: a(2) and b(0) tie at 1.0, then c(1) and d (unjudged) tie at 0.5
# topic 2: x(1) and y (unjudged) tie at 0.1
Q = {"1": {"a": 2, "b": 0, "c": 1}, "2": {"x": 1}}
R = {"1": {"a": 1.0, "b": 1.0, "c": 0.5, "d": 0.5}, "2": {"x": 0.1, "y": 0.1}}
GROUPS = {"1": [["a", "b"], ["c", "d"]], "2": [["x", "y"]]}
DETERMINISTIC = {  # the ranking of each deterministic regime, by hand
    "file": {"1": "abcd", "2": "xy"},
    "trec_eval": {"1": "badc", "2": "yx"},       # ties by docno descending
    "realistic": {"1": "badc", "2": "yx"},       # relevant last inside a tied group
    "optimistic": {"1": "abcd", "2": "xy"},      # relevant first
    "lower": {"1": "badc", "2": "yx"},
    "upper": {"1": "abcd", "2": "xy"},
}


def _first_rel_gain(g, j, q):
    """Not linear: the gain of the first judged document over the qrels' top gain."""
    hit = np.flatnonzero(j > 0)
    return float(g[hit[0]] / q[0]) if len(hit) and len(q) and q[0] > 0 else 0.0


def _dcg(g, j, q):
    """Linear: DCG with the grade as gain, over the ideal DCG of the same length."""
    disc = 1 / np.log2(np.arange(2, len(g) + 2))
    ideal = np.zeros(len(g))
    ideal[:min(len(g), len(q))] = q[:len(g)]
    return float((g * disc).sum() / (ideal * disc).sum()) if ideal.any() else 0.0


@pytest.fixture(scope="module", autouse=True)
def measures():
    define_measure("UFirst", _first_rel_gain, replace=True)
    define_measure("UDcg", _dcg, linear=True, replace=True)
    define_measure("UHit", lambda g, j, q, lv=1: float((g >= lv).any()), params={"lv": 1},
                   replace=True)


def _by_hand(fn, order: dict, k=None, **kw) -> float:
    vals = []
    for t, docs in order.items():
        docs = docs[:k] if k else docs
        g = np.array([float(Q[t].get(d, 0)) for d in docs])
        j = np.array([1.0 if d in Q[t] else 0.0 for d in docs])
        q = np.sort(np.array([float(v) for v in Q[t].values()]))[::-1]
        vals.append(fn(g, j, q, **kw))
    return float(np.mean(vals))


def _orderings(t: str):
    """Every ranking of topic t made by ordering its tied groups."""
    for combo in itertools.product(*(itertools.permutations(g) for g in GROUPS[t])):
        yield "".join(d for grp in combo for d in grp)


def test_every_deterministic_regime_equals_the_hand_computation():
    regs = list(DETERMINISTIC)
    res = tiebreak.evaluate(Q, [R], ["UFirst", "UDcg@3", "UHit(lv=2)@1"], regs)
    for i, reg in enumerate(regs):
        o = DETERMINISTIC[reg]
        assert res.mean[0, 0, i] == pytest.approx(_by_hand(_first_rel_gain, o), abs=1e-15)
        assert res.mean[0, 1, i] == pytest.approx(_by_hand(_dcg, o, 3), abs=1e-15)
        assert res.mean[0, 2, i] == _by_hand(lambda g, j, q: float((g >= 2).any()), o, 1)
    # by hand once, in numbers: file puts a (grade 2 of top grade 2) first -> 1; topic 2: x
    assert res.mean[0, 0, regs.index("file")] == 1.0
    # trec_eval: b (judged, grade 0) first -> 0; topic 2: y unjudged, then x (1 of 1) -> 1
    assert res.mean[0, 0, regs.index("trec_eval")] == 0.5


def test_expected_linear_exact_and_sampled_within_three_standard_errors():
    samples = 4000
    sds = []
    res = tiebreak.evaluate(Q, [R], ["UFirst", "UDcg@3"], ["expected"], samples=samples,
                            seed=7)
    for j, (fn, k) in enumerate(((_first_rel_gain, None), (_dcg, 3))):
        for ti, t in enumerate(res.topics):
            vals = [_by_hand(fn, {t: o}, k) for o in _orderings(t)]
            exact, sd = float(np.mean(vals)), float(np.std(vals))
            got = res.per_topic[0, j, 0, ti]
            if fn is _dcg:  # declared linear: exact
                assert got == pytest.approx(exact, abs=1e-12)
            else:
                assert abs(got - exact) <= 3 * sd / np.sqrt(samples) + 1e-12, (t, got, exact)
                sds.append(sd)
    assert max(sds) > 0.4  # topic 1's tie moves UFirst between 0 and 1: not vacuous
    assert any("UFirst" in n and "standard error" in n for n in res.notes)


def test_names_parameters_compat_layers_and_errors():
    from tiebreak.compat import ir_measures as irm
    from tiebreak.compat import ranx

    assert family("UHit").source.startswith("user-defined")
    assert tiebreak.parse_measure("UHit(lv=2)@1")["lv"] == 2
    # ir_measures' averaging (trec_eval order: b then a; y then x): UHit@1 = (0 + 0) / 2
    assert irm.calc_aggregate(["UHit@1"], Q, R) == {irm.parse_measure("UHit@1"): 0.0}
    assert irm.calc_aggregate(["UHit@1"], Q, R, regime="expected")[
        irm.parse_measure("UHit@1")] == pytest.approx(0.5, abs=0.05)
    # ranx's order (as given: a, then x first): 1 each
    assert ranx.evaluate(Q, R, "UHit@1") == 1.0
    with pytest.raises(MeasureError, match="already a measure"):
        define_measure("AP", _dcg)
    with pytest.raises(MeasureError, match="letters, digits"):
        define_measure("my measure", _dcg)
    with pytest.raises(TypeError, match="callable"):
        define_measure("UBad", 3)


def test_cli_define(tmp_path, shared_data):
    src = tmp_path / "defs.py"
    src.write_text("import tiebreak\n"
                   "tiebreak.define_measure('GP', lambda g, j, q: g.sum() / max(len(g), 1),"
                   " linear=True)\n")
    d = shared_data / "trec_dl2020_bitua"
    args = [sys.executable, "-m", "tiebreak", "eval", str(d / "qrels.dl20-doc.txt"),
            str(d / "runs" / "BIT.UA-run1.txt.gz"), "--define", str(src), "-m", "GP@10",
            "-m", "P@10", "--regime", "trec_eval", "--format", "tsv", "--quiet"]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    vals = {ln.split("\t")[1]: float(ln.split("\t")[-1]) for ln in out.splitlines()}
    res = tiebreak.evaluate(str(d / "qrels.dl20-doc.txt"), [str(d / "runs" /
                                                                 "BIT.UA-run1.txt.gz")],
                            ["P@10"], ["trec_eval"])
    assert vals["P@10"] == pytest.approx(res.mean[0, 0, 0], abs=1e-12)
    assert vals["GP@10"] > vals["P@10"]  # grades 2 and 3 count more than 1
    bad = subprocess.run(args[:6] + ["--define", "no_such_module_h37", "-m", "P@10"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--define no_such_module_h37" in bad.stderr
