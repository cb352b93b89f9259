"""Property tests: every regime of tiebreak against a slow, independent brute force.

For random small runs (several topics, frequent ties, graded and unjudged documents, judged but
unretrieved documents, a qrels topic the run lacks, a run topic the qrels lack) we check:

* ``expected`` is the mean of the measure over *every* ordering that keeps the score order,
  enumerated with itertools (permutations per tied group, product across groups);
* ``lower``/``upper`` are the min/max over those orderings (YMT bounds, spec §1.4), and for the
  monotone measures the upper bound is the max over orderings *and* over 0/max grades of the
  unjudged documents;
* ``file``, ``trec_eval``, ``realistic`` and ``optimistic`` equal the measure on the explicit
  ordering each regime defines;
* with no ties every regime gives the same value.

The per-ordering measures below are written from their definitions (spec §2), in exact
rational arithmetic except the log-discounted nDCG.
"""

from __future__ import annotations

import io
import itertools
import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction as Fr

import pytest
from hyp_budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tiebreak as tb

TOL = 1e-9
MAX_ORDERINGS = 2000
MAX_DOCS = 8

# Docnos chosen to exercise byte-wise, case-sensitive, non-numeric docno comparison.
DOCNOS = ["d1", "d2", "d10", "D3", "AP8", "AP10", "ap9", "Z1", "z", "LA12", "WSJ5", "doc-7",
          "\u00e94", "_x", "0", "00"]
# Several spellings of one number must tie (numeric, not textual, equality).
SCORES = {
    3.0: ["3", "3.0", "3e0"], 2.5: ["2.5", "2.50", "25e-1"], 2.0: ["2", "2.0", "0.2e1"],
    1.0: ["1", "1.000"], 0.5: ["0.5", ".5"], 0.0: ["0", "0.0", "-0.0"], -1.0: ["-1", "-1.0"],
    -1.5: ["-1.5", "-15e-1"],
}
# qrels value of a retrieved document: None = not in the qrels (~20%), -1 = pooled but not
# judged (trec_eval's negative value, ~5%), else a grade 0..3.
VALUES = [None] * 4 + [-1] + [0] * 5 + [1] * 4 + [2] * 3 + [3] * 3

PROMOTED = "max"  # an unjudged document counted as maximally relevant (YMT upper bound)

# Lines of a topic the qrels lack (ignored by the evaluation): appended to some runs so that the
# file is large enough for the reader's bulk (pandas) path, not only its line-by-line path.
PAD = "".join(f"pad Q0 x{i:05d} {i} {i % 7}.25 tag\n" for i in range(6000))


# ---------------------------------------------------------------------------------------------
# random cases
# ---------------------------------------------------------------------------------------------


@dataclass
class Topic:
    qid: str
    lines: list  # run lines in file order: (docno, score as float, score as written)
    qrels: dict  # docno -> qrels value (judged or not, retrieved or not)

    def value(self, docno):
        return self.qrels.get(docno)

    def groups(self):
        """Tied groups in decreasing score order; members in file order."""
        out = {}
        for d, s, _ in self.lines:
            out.setdefault(s, []).append(d)
        return [out[s] for s in sorted(out, reverse=True)]


@dataclass
class Case:
    topics: list  # topics that have run lines (and qrels)
    qrels_only: Topic | None  # qrels topic with no run lines
    run_only: Topic | None  # run topic missing from the qrels (ignored)
    cutoffs: list
    line_topics: list  # qid of each run line in file order (topics may interleave)
    pad: bool  # append PAD to the run file


def _n_orderings(sizes):
    return math.prod(math.factorial(s) for s in sizes)


@st.composite
def topics(draw, qid, ties=True):
    n = draw(st.integers(1, MAX_DOCS))
    sizes = []
    left = n
    while left:
        hi = 1
        if ties:
            hi = max(s for s in range(1, min(left, 6) + 1)
                     if _n_orderings(sizes + [s]) <= MAX_ORDERINGS)
        s = draw(st.integers(1, hi))
        sizes.append(s)
        left -= s
    values = sorted(draw(st.lists(st.sampled_from(sorted(SCORES)), min_size=len(sizes),
                                  max_size=len(sizes), unique=True)), reverse=True)
    docs = draw(st.permutations(DOCNOS))[:n]
    lines = []
    it = iter(docs)
    for size, sc in zip(sizes, values):
        for _ in range(size):
            lines.append((next(it), sc, draw(st.sampled_from(SCORES[sc]))))
    if draw(st.integers(0, 9)) < 3:  # file not in score order
        lines = draw(st.permutations(lines))
    qrels = {}
    for d, _, _ in lines:
        v = draw(st.sampled_from(VALUES))
        if v is not None:
            qrels[d] = v
    for i in range(draw(st.integers(0, 3))):  # judged, not retrieved
        qrels[f"u{i}"] = draw(st.integers(-1, 3))
    if not qrels:
        qrels["u9"] = draw(st.integers(0, 3))
    return Topic(qid, lines, qrels)


@st.composite
def cases(draw, ties=True):
    n_topics = draw(st.integers(1, 3))
    ts = [draw(topics(q, ties)) for q in ["1", "2", "10"][:n_topics]]
    qrels_only = None
    if draw(st.booleans()):
        qrels_only = Topic("5", [], {f"q{i}": draw(st.integers(0, 3))
                                     for i in range(draw(st.integers(1, 3)))})
    run_only = None
    if draw(st.integers(0, 3)) == 0:
        run_only = draw(topics("7", ties))
        run_only.qrels = {}
    # cutoffs: often strictly inside a tied group, so that the group straddles k
    inside = []
    for t in ts:
        b = 1
        for g in t.groups():
            inside += range(b, b + len(g) - 1)
            b += len(g)
    longest = max(len(t.lines) for t in ts)
    cutoffs = []
    for _ in range(2):
        if inside and draw(st.integers(0, 9)) < 6:
            cutoffs.append(draw(st.sampled_from(inside)))
        else:
            cutoffs.append(draw(st.integers(1, longest + 2)))
    rtopics = ts + ([run_only] if run_only else [])
    line_topics = [t.qid for t in rtopics for _ in t.lines]
    if draw(st.booleans()):
        line_topics = draw(st.permutations(line_topics))
    return Case(ts, qrels_only, run_only, cutoffs, line_topics, draw(st.integers(0, 3)) == 0)


# ---------------------------------------------------------------------------------------------
# measures
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    name: str
    family: str
    k: int | None = None
    rel: int = 1
    p: Fr | None = None
    exp_gain: bool = False
    judged_only: bool = False

    @property
    def kind(self):
        if self.family in ("P", "RR", "Success", "RBP", "ERR", "Hits", "RBPg"):
            return "monotone"
        if self.family in ("Judged", "RBP_resid"):
            return self.family
        return "normalised"


def specs_for(cutoffs):
    out = [
        Spec("AP", "AP"), Spec("AP(rel=2)", "AP", rel=2), Spec("RR", "RR"),
        Spec("RR(rel=2)", "RR", rel=2), Spec("Rprec", "Rprec"),
        Spec("Rprec(rel=2)", "Rprec", rel=2), Spec("nDCG", "nDCG"),
        Spec("nDCG(dcg='exp-log2')", "nDCG", exp_gain=True),
        Spec("RBP(p=0.5)", "RBP", p=Fr(1, 2)), Spec("RBP_resid(p=0.5)", "RBP_resid", p=Fr(1, 2)),
        Spec("RBP(p=0.5,rel=2)", "RBP", rel=2, p=Fr(1, 2)),
        Spec("ERR(gmax=0)", "ERR"), Spec("bpref", "bpref"), Spec("bpref(rel=2)", "bpref", rel=2),
        Spec("RBP(p=0.5,graded=True)", "RBPg", p=Fr(1, 2)),
        Spec("RBP(p=0.5,rel=2,graded=True)", "RBPg", rel=2, p=Fr(1, 2)),
        Spec("AP(judged_only=True)", "AP", judged_only=True),
        Spec("RR(judged_only=True)", "RR", judged_only=True),
    ]
    for k in cutoffs:
        out += [
            Spec(f"AP@{k}", "AP", k), Spec(f"AP(rel=2)@{k}", "AP", k, 2),
            Spec(f"P@{k}", "P", k), Spec(f"P(rel=2)@{k}", "P", k, 2),
            Spec(f"R@{k}", "R", k), Spec(f"R(rel=2)@{k}", "R", k, 2),
            Spec(f"RR@{k}", "RR", k), Spec(f"nDCG@{k}", "nDCG", k),
            Spec(f"nDCG(dcg='exp-log2')@{k}", "nDCG", k, exp_gain=True),
            Spec(f"RBP(p=0.8)@{k}", "RBP", k, p=Fr(4, 5)),
            Spec(f"RBP_resid(p=0.8)@{k}", "RBP_resid", k, p=Fr(4, 5)),
            Spec(f"ERR(gmax=0)@{k}", "ERR", k), Spec(f"Success@{k}", "Success", k),
            Spec(f"Success(rel=2)@{k}", "Success", k, 2), Spec(f"Judged@{k}", "Judged", k),
            Spec(f"Hits@{k}", "Hits", k), Spec(f"Hits(rel=2)@{k}", "Hits", k, 2),
            Spec(f"RBP(p=0.8,graded=True)@{k}", "RBPg", k, p=Fr(4, 5)),
            Spec(f"P(judged_only=True)@{k}", "P", k, judged_only=True),
            Spec(f"nDCG(judged_only=True)@{k}", "nDCG", k, judged_only=True),
        ]
    return list({s.name: s for s in out}.values())


class Ctx:
    """Per-topic qrels quantities."""

    def __init__(self, qrels: dict):
        vals = list(qrels.values())
        self.gmax = max([0] + vals)
        self.ideal = sorted((v for v in vals if v >= 0), reverse=True)
        self.R = {L: sum(v >= L for v in vals) for L in (1, 2)}
        self.N = {L: sum(0 <= v < L for v in vals) for L in (1, 2)}


def is_judged(a):
    return isinstance(a, int) and a >= 0


def is_rel(a, L):
    return a == PROMOTED or (is_judged(a) and a >= L)


def measure(spec: Spec, v: tuple, c: Ctx):
    """The measure on one ordering ``v`` (a tuple of qrels values: None for a docno absent
    from the qrels, a negative value for pooled-but-unjudged, PROMOTED for an unjudged
    document counted as maximally relevant)."""
    f, k, L = spec.family, spec.k, spec.rel
    if spec.judged_only:  # trec_eval -J for this measure: unjudged documents dropped first
        v = tuple(a for a in v if is_judged(a))
    top = v if k is None else v[:k]
    if f == "Hits":
        return Fr(sum(is_rel(a, L) for a in top))
    if f == "RBPg":  # ranx rbp: the grade itself (>= rel) as the gain
        def g(a):
            if a == PROMOTED:
                return max(c.gmax, 1)
            return a if is_judged(a) and a >= max(L, 1) else 0
        return sum(((1 - spec.p) * spec.p ** (j - 1) * g(a) for j, a in enumerate(top, 1)),
                   Fr(0))
    if f == "P":
        return Fr(sum(is_rel(a, L) for a in top), k)
    if f == "Success":
        return Fr(int(any(is_rel(a, L) for a in top)))
    if f == "Judged":  # ir_measures/trectools: divided by the documents in the top k
        return Fr(sum(is_judged(a) for a in top), len(top)) if top else Fr(0)
    if f == "R":
        R = c.R[L]
        return Fr(sum(is_rel(a, L) for a in top), R) if R else Fr(0)
    if f == "Rprec":
        R = c.R[L]
        return Fr(sum(is_rel(a, L) for a in v[:R]), R) if R else Fr(0)
    if f == "RR":
        for j, a in enumerate(top, 1):
            if is_rel(a, L):
                return Fr(1, j)
        return Fr(0)
    if f == "AP":
        R = c.R[L]
        if not R:
            return Fr(0)
        tot, found = Fr(0), 0
        for j, a in enumerate(top, 1):
            if is_rel(a, L):
                found += 1
                tot += Fr(found, j)
        return tot / R
    if f == "nDCG":
        def gain(a):
            g = a if is_judged(a) else 0
            return 2 ** g - 1 if spec.exp_gain else g

        def dcg(gs):
            return sum(gain(a) / math.log2(j + 1) for j, a in enumerate(gs, 1))

        ideal = dcg(c.ideal if k is None else c.ideal[:k])
        return dcg(top) / ideal if ideal else 0.0
    if f == "RBP":
        p = spec.p
        return sum(((1 - p) * p ** (j - 1) for j, a in enumerate(top, 1) if is_rel(a, L)),
                   Fr(0))
    if f == "RBP_resid":
        p = spec.p
        unj = sum(((1 - p) * p ** (j - 1) for j, a in enumerate(top, 1) if not is_judged(a)),
                  Fr(0))
        return p ** len(top) + unj
    if f == "ERR":
        gm = max(c.gmax, 1)
        tot, stay = Fr(0), Fr(1)
        for j, a in enumerate(top, 1):
            g = gm if a == PROMOTED else (a if is_judged(a) else 0)
            rho = Fr(2 ** g - 1, 2 ** gm)
            tot += stay * rho / j
            stay *= 1 - rho
        return tot
    if f == "bpref":
        R, N = c.R[L], c.N[L]
        if not R:
            return Fr(0)
        tot, nonrel = Fr(0), 0
        for a in v:
            if not is_judged(a):
                continue
            if a < L:
                nonrel += 1
            elif nonrel == 0 or min(N, R) == 0:
                tot += 1
            else:
                tot += 1 - Fr(min(nonrel, R), min(N, R))
        return tot / R
    raise AssertionError(f)


# ---------------------------------------------------------------------------------------------
# brute force over orderings, explicit regime orderings
# ---------------------------------------------------------------------------------------------


def all_orderings(groups):
    """Counter of value vectors over every ordering that keeps the groups in score order
    (each of the prod_g s_g! orderings counted once)."""
    perms = [list(itertools.permutations(g)) for g in groups]
    return Counter(tuple(x for part in combo for x in part) for combo in itertools.product(*perms))


def stats(spec, orderings, c):
    """(mean, min, max) of the measure over the orderings."""
    total = sum(orderings.values())
    vals = {v: measure(spec, v, c) for v in orderings}
    mean = sum((vals[v] * w for v, w in orderings.items()), Fr(0) if spec.family != "nDCG"
               else 0.0) / total
    return mean, min(vals.values()), max(vals.values())


def relkey(value):
    """trec_eval's relevance code: judged value, -1 not in qrels, -2 pooled but unjudged."""
    if value is None:
        return -1
    return value if value >= 0 else -2


def regime_order(t: Topic, regime: str):
    """Docnos of one topic in the order of a deterministic regime."""
    lines = list(t.lines)
    if regime == "file":
        return [d for d, _, _ in lines]
    lines.sort(key=lambda x: x[0].encode(), reverse=True)  # docno descending, bytes
    if regime == "realistic":
        lines.sort(key=lambda x: relkey(t.value(x[0])))
    elif regime == "optimistic":
        lines.sort(key=lambda x: relkey(t.value(x[0])), reverse=True)
    else:
        assert regime == "trec_eval"
    lines.sort(key=lambda x: x[1], reverse=True)  # score descending (stable)
    return [d for d, _, _ in lines]


def all_topics(case):
    return case.topics + ([case.qrels_only] if case.qrels_only else [])


def run_tiebreak(case: Case, names, regimes="all"):
    qtext = "".join(f"{t.qid} 0 {d} {g}\n" for t in all_topics(case) for d, g in t.qrels.items())
    rtopics = case.topics + ([case.run_only] if case.run_only else [])
    lines = {t.qid: iter(enumerate(t.lines, 1)) for t in rtopics}
    rtext = ""
    for qid in case.line_topics:  # each topic's lines keep their order
        i, (d, _, tok) = next(lines[qid])
        rtext += f"{qid} Q0 {d} {i} {tok} tag\n"
    if case.pad:
        rtext += PAD
    q = tb.read_qrels(io.BytesIO(qtext.encode()))
    r = tb.read_run(io.BytesIO(rtext.encode()))
    res = tb.Evaluator(q, names, regimes=regimes).evaluate([r])
    assert sorted(res.topics) == sorted(t.qid for t in all_topics(case))
    assert set(names) <= set(res.measures), set(names) - set(res.measures)

    def value(name, regime, qid):
        return float(res.per_topic[0, res.measures.index(name), res.regimes.index(regime),
                                   res.topics.index(qid)])
    return value


def close(got: float, want) -> bool:
    return abs(got - float(want)) <= TOL * max(1.0, abs(float(want)))


COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                    HealthCheck.data_too_large])


# ---------------------------------------------------------------------------------------------
# 1. expected = brute-force mean; 2. bounds
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=examples(250), **COMMON)
@given(cases())
def test_expected_is_mean_over_all_orderings(case):
    specs = specs_for(case.cutoffs)
    # with trec_eval evaluated first, as by default: topics without ties reuse its values
    value = run_tiebreak(case, [s.name for s in specs], ["trec_eval", "expected"])
    for t in all_topics(case):
        c = Ctx(t.qrels)
        orders = all_orderings([[t.value(d) for d in g] for g in t.groups()])
        for s in specs:
            mean, _, _ = stats(s, orders, c)
            got = value(s.name, "expected", t.qid)
            assert close(got, mean), (s.name, t.qid, got, mean, float(mean))


def upper_over_assignments(spec, t: Topic, c: Ctx):
    """Max of a monotone measure over every ordering and every 0/max grade of the unjudged
    retrieved documents."""
    groups = [[t.value(d) for d in g] for g in t.groups()]
    unj = [(i, j) for i, g in enumerate(groups) for j, a in enumerate(g) if not is_judged(a)]
    best = None
    for assign in itertools.product([0, PROMOTED], repeat=len(unj)):
        gs = [list(g) for g in groups]
        for (i, j), a in zip(unj, assign):
            gs[i][j] = a
        mx = max(measure(spec, v, c) for v in all_orderings(gs))
        best = mx if best is None else max(best, mx)
    return best


@pytest.mark.slow
@settings(max_examples=examples(150), **COMMON)
@given(cases())
def test_bounds_are_min_and_max_over_orderings(case):
    specs = specs_for(case.cutoffs)
    value = run_tiebreak(case, [s.name for s in specs], ["lower", "expected", "upper",
                                                        "trec_eval"])
    for t in all_topics(case):
        c = Ctx(t.qrels)
        orders = all_orderings([[t.value(d) for d in g] for g in t.groups()])
        n_unjudged = sum(not is_judged(t.value(d)) for d, _, _ in t.lines)
        for s in specs:
            _, mn, mx = stats(s, orders, c)
            lo, ex, hi = (value(s.name, r, t.qid) for r in ("lower", "expected", "upper"))
            where = (s.name, t.qid, lo, ex, hi, mn, mx)
            if s.kind == "RBP_resid":
                # residual rows: lower uses the unjudged-first order (largest residual), upper
                # the unjudged-last order (smallest residual)
                assert close(lo, mx) and close(hi, mn), where
                assert hi <= ex + TOL and ex <= lo + TOL, where
                continue
            assert lo <= ex + TOL and ex <= hi + TOL, where
            assert close(lo, mn), where
            if s.kind == "monotone":
                assert hi >= float(mx) - TOL, where
                if n_unjudged <= 3:  # keeps the 2^u assignments cheap
                    best = upper_over_assignments(s, t, c)
                    assert close(hi, best), where + (best,)
            else:
                assert close(hi, mx), where


# ---------------------------------------------------------------------------------------------
# 3. deterministic regimes = measure on the explicit ordering
# ---------------------------------------------------------------------------------------------

DETERMINISTIC = ("file", "trec_eval", "realistic", "optimistic")


@pytest.mark.slow
@settings(max_examples=examples(250), **COMMON)
@given(cases())
def test_deterministic_regimes_match_explicit_orderings(case):
    specs = specs_for(case.cutoffs)
    value = run_tiebreak(case, [s.name for s in specs], list(DETERMINISTIC))
    for t in all_topics(case):
        c = Ctx(t.qrels)
        for regime in DETERMINISTIC:
            v = tuple(t.value(d) for d in regime_order(t, regime))
            for s in specs:
                want = measure(s, v, c)
                got = value(s.name, regime, t.qid)
                assert close(got, want), (regime, s.name, t.qid, got, want)


@pytest.mark.slow
@settings(max_examples=examples(200), **COMMON)
@given(cases(ties=False))
def test_regimes_agree_without_ties(case):
    specs = specs_for(case.cutoffs)
    value = run_tiebreak(case, [s.name for s in specs])
    for t in all_topics(case):
        c = Ctx(t.qrels)
        in_score_order = [s for _, s, _ in t.lines] == sorted((s for _, s, _ in t.lines),
                                                            reverse=True)
        has_unjudged = any(not is_judged(t.value(d)) for d, _, _ in t.lines)
        v = tuple(t.value(d) for d in regime_order(t, "trec_eval"))
        promoted = tuple(a if is_judged(a) else PROMOTED for a in v)
        for s in specs:
            want = measure(s, v, c)
            same = ["trec_eval", "realistic", "optimistic", "lower", "expected"]
            if in_score_order:
                same.append("file")
            if s.kind != "monotone" or not has_unjudged:
                same.append("upper")
            for regime in same:
                got = value(s.name, regime, t.qid)
                assert close(got, want), (regime, s.name, t.qid, got, want)
            if s.kind == "monotone":  # the only difference: unjudged count as maximal
                got = value(s.name, "upper", t.qid)
                assert close(got, measure(s, promoted, c)), (s.name, t.qid, got)


@pytest.mark.slow
@settings(max_examples=examples(100), **COMMON)
@given(cases())
def test_regimes_alone_equal_regimes_together(case):
    """Each regime evaluated alone equals the same regime evaluated after trec_eval (which
    lets the other regimes take trec_eval's values on the topics they rank alike): bit for bit
    for the deterministic regimes, to rounding for ``expected`` (a closed form alone, the one
    ordering's value together)."""
    import numpy as np

    specs = specs_for(case.cutoffs)
    names = [s.name for s in specs]
    together = tb.REGIMES
    both = {}
    for regs in ([together], [[r] for r in together]):
        vals = []
        for rg in regs:
            value = run_tiebreak(case, names, rg)
            vals += [[value(n, r, t.qid) for n in names for t in all_topics(case)] for r in rg]
        both[len(regs)] = np.array(vals)
    a, b = both[1], both[len(together)]
    k = together.index("expected")
    det = [i for i in range(len(together)) if i != k]
    assert a[det].tobytes() == b[det].tobytes()
    assert np.allclose(a[k], b[k], rtol=1e-12, atol=1e-12)


@pytest.mark.slow
@settings(max_examples=50, **COMMON)
@given(cases(ties=False), cases())
def test_generator_invariants(untied, tied):
    """Guards for the tests above: cases(ties=False) never ties two scores of one topic, and
    no generated topic has more than MAX_ORDERINGS orderings."""
    assert all(len(g) == 1 for t in untied.topics for g in t.groups())
    assert len(PAD) >= getattr(tb.io, "_PANDAS_MIN_BYTES", 0)
    for t in tied.topics:
        assert len(t.lines) <= MAX_DOCS
        assert _n_orderings([len(g) for g in t.groups()]) <= MAX_ORDERINGS
