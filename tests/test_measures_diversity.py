"""Diversity measures (alpha-nDCG, ERR-IA, NRBP, P-IA, StRecall, AP-IA) through the evaluation
path (``tiebreak eval``, the API) on subtopic qrels (``qid subtopic docno rel``, the second column
read as the subtopic, as ndeval and ir_measures read it):

* against pyndeval (NIST ndeval 4.5) through ir_measures' pyndeval provider, on ir_measures' own
  diversity example and on a real run (TREC DL 2020, BIT.UA-run1) with generated subtopic qrels;
* against a brute force written here from the definitions, on generated runs with ties: every
  deterministic regime equals the measure on its explicit ordering, ``expected`` lies within 5
  standard errors of the exact mean over every ordering of the tied groups;
* the one qrels reader with its subtopic column, and its errors.
"""

from __future__ import annotations

import io
import itertools
import math
import subprocess
import sys

import flat_runs as fr
import numpy as np
import pytest

import tiebreak as tb
from tiebreak.io import InputError, read_qrels
from tiebreak.io.subtopics import read_subtopic_qrels
from tiebreak.measures import MeasureError, parse_measure
from tiebreak.measures import diversity as dv

NAMES = list(dv.IR_MEASURES_NAMES) + [
    "nNRBP(alpha=0.3,beta=0.8)", "ERR_IA@1", "alpha_DCG@1", "ERR_IA(rel=2)@10",
    "alpha_nDCG(judged_only=True)@10", "P_IA(judged_only=True)@5", "AP_IA(judged_only=True)",
    "nERR_IA(judged_only=True)@20", "StRecall(rel=2)@10"]


def _pyndeval(names, qrel_lines, run_lines):
    """{name: {qid: value}} from ir_measures' pyndeval provider, one measure per call: the
    provider hands one run iterator to all of its invocations (one per rel/alpha/beta), so
    every invocation after the first sees an empty run and reports 0 (ir_measures 0.4.3).
    A topic the run lacks is not reported."""
    irm = pytest.importorskip("ir_measures", reason="ir_measures (test extra) not installed")
    pytest.importorskip("pyndeval", reason="pyndeval (test extra) is not installed")
    qrels = [irm.Qrel(q, d, int(v), s) for q, s, d, v in qrel_lines]
    run = [irm.ScoredDoc(q, d, float(sc)) for q, d, sc in run_lines]
    # judged_only=True fails inside the provider (TypeError: it indexes the run generator as a
    # dict, ir_measures 0.4.3): give pyndeval the run with its unjudged documents dropped,
    # which is what the parameter means
    judged = {(q, d) for q, _, d, _ in qrel_lines}
    run_j = [x for x in run if (x.query_id, x.doc_id) in judged]
    out = {}
    for n in names:
        m = irm.parse_measure(n)
        jo = "judged_only" in m.params and m.params["judged_only"]
        if jo:
            m = m(judged_only=False)
        out[n] = {r.query_id: r.value for r in irm.pyndeval.iter_calc([m], qrels,
                                                                       run_j if jo else run)}
    return out


def _write(tmp_path, name, lines):
    p = tmp_path / name
    p.write_text("".join(" ".join(map(str, x)) + "\n" for x in lines))
    return p


# ir_measures' own diversity example (its test suite's qrels and run, as data): two topics,
# subtopics in the iteration column, scores out of rank order.
IRM_QRELS = [("0", "0", "D0", 0), ("0", "0", "D1", 1), ("0", "0", "D2", 1), ("0", "1", "D2", 1),
             ("0", "1", "D3", 2), ("0", "0", "D4", 0), ("1", "0", "D0", 1), ("1", "0", "D3", 2),
             ("1", "1", "D5", 2)]
IRM_RUN = [("0", "D0", 0.8), ("0", "D2", 0.7), ("0", "D1", 0.3), ("0", "D3", 0.4),
           ("0", "D4", 0.1), ("1", "D1", 0.8), ("1", "D3", 0.7), ("1", "D4", 0.3),
           ("1", "D2", 0.4)]


def test_ir_measures_example(tmp_path):
    """ir_measures' diversity example: ERR_IA@20 is 0.4659 / 0.1803 per topic (the values its
    own test asserts), and every name agrees with pyndeval to 1e-9."""
    q = _write(tmp_path, "q", [(a, b, c, d) for a, b, c, d in IRM_QRELS])
    r = _write(tmp_path, "r", [(a, "Q0", d, i, s, "run") for i, (a, d, s) in enumerate(IRM_RUN)])
    names = NAMES + ["ERR_IA@20", "nERR_IA(rel=2)@10", "P_IA(rel=2)@10", "NRBP(rel=2)",
                     "AP_IA(rel=2)", "StRecall@5"]
    res = tb.evaluate(str(q), [str(r)], names, regimes=["trec_eval"])
    run = res.runs[0]
    assert res.value(run, "ERR_IA@20", "trec_eval", "0") == pytest.approx(0.4659, abs=5e-5)
    assert res.value(run, "ERR_IA@20", "trec_eval", "1") == pytest.approx(0.1803, abs=5e-5)
    ref = _pyndeval(names, IRM_QRELS, IRM_RUN)
    n = 0
    for name in names:
        for qid, v in ref[name].items():
            assert res.value(run, name, "trec_eval", qid) == pytest.approx(v, abs=1e-9), (
                name, qid)
            n += 1
    assert n == 2 * len(names)


def _gen_subtopics(f, seed=7):
    """Subtopic qrels for every topic of a run: 2-5 subtopics, judgments of 40 documents from
    the run's top 60 and 5 it never retrieved, values 0, 1, 2."""
    rng = np.random.default_rng(seed)
    out = []
    for qid, docs in f.lists().items():
        ns = int(rng.integers(2, 6))
        pick = rng.choice(docs[:60], size=min(40, len(docs[:60])), replace=False)
        extra = [f"unret-{qid}-{j}" for j in range(5)]
        for s in range(ns):
            for d in list(pick) + extra:
                if rng.random() < 0.35:
                    out.append((qid, str(s + 1), str(d), int(rng.choice([0, 1, 1, 2]))))
    return out


def test_against_pyndeval_on_a_real_run(shared_data, tmp_path):
    """TREC DL 2020 BIT.UA-run1 (top 100, trec_eval order) with generated subtopic qrels:
    every name, per topic, equals pyndeval's value to 1e-9 (ndeval prints 6 decimals). Through
    the CLI's evaluation path: the qrels file read with its subtopic column."""
    f = fr.load(shared_data / fr.DL20[0], shared_data / fr.DL20[1]).head(100)
    qlines = _gen_subtopics(f)
    qpath = _write(tmp_path, "div.qrels", qlines)
    rlines = [(f.topics[t], d, 100000.0 - float(r)) for t, r, d in zip(f.topic, f.rank,
                                                                       f.docnos)]
    rpath = _write(tmp_path, "run", [(q, "Q0", d, i, s, "r") for i, (q, d, s) in
                                     enumerate(rlines)])
    res = tb.evaluate(str(qpath), [str(rpath)], NAMES, regimes=["trec_eval"])
    ref = _pyndeval(NAMES, qlines, rlines)
    n = 0
    for name in NAMES:
        assert len(ref[name]) >= 40, name
        for qid, v in ref[name].items():
            got = res.value(res.runs[0], name, "trec_eval", qid)
            assert got == pytest.approx(v, abs=1e-9), (name, qid, got, v)
            n += 1
    assert n >= 40 * len(NAMES)


# ---------------------------------------------------------------------------------------------
# brute force from the definitions, on generated runs with ties
# ---------------------------------------------------------------------------------------------


def _subs(qrels, level):
    """{subtopic: set of relevant docnos} (value >= level), subtopics with one at least."""
    out: dict[str, set] = {}
    for s, d, v in qrels:
        if v >= level:
            out.setdefault(s, set()).add(d)
    return out


def _gains(order, subs, alpha):
    seen = {s: 0 for s in subs}
    g = []
    for d in order:
        x = 0.0
        for s, docs in subs.items():
            if d in docs:
                x += (1 - alpha) ** seen[s]
                seen[s] += 1
        g.append(x)
    return g


def _greedy(subs, alpha):
    docs = sorted({d for ds in subs.values() for d in ds}, key=lambda d: d.encode())
    order: list[str] = []
    while True:
        best, pick = 0.0, None
        for d in docs:  # ascending docno: ">=" lets the larger docno win a tie
            if d in order:
                continue
            g = _gains(order + [d], subs, alpha)[-1]
            if g > 0 and g >= best:
                best, pick = g, d
        if pick is None:
            return order
        order.append(pick)


def brute(name: str, order: list[str], qrels) -> float:
    """The measure ``name`` on one ranked list of docnos; ``qrels`` = [(subtopic, docno,
    value)] of the topic. Written from ndeval's definitions (see the module docstring)."""
    m = parse_measure(name)
    fam, k = m.family.name, m.cutoff
    P = dict(m.values)
    alpha = P.get("alpha", 0.5)
    subs = _subs(qrels, P["rel"])
    S = len(subs)
    if P.get("judged_only"):
        judged = {d for _, d, v in qrels if v >= 0}
        order = [d for d in order if d in judged]
    if not S or not order:
        return 0.0
    kk = len(order) if k is None else k
    top = order[:kk]
    g = _gains(top if fam not in ("NRBP", "nNRBP") else order, subs, alpha)

    def w_dcg(i):
        return 1 / math.log2(i + 1)

    def w_err(i):
        return 1 / i

    if fam in ("alpha_DCG", "ERR_IA"):
        w = w_dcg if fam == "alpha_DCG" else w_err
        raw = sum(x * w(i) for i, x in enumerate(g, 1))
        if kk == 1:
            return raw
        return raw / (S * sum((1 - alpha) ** (i - 1) * w(i) for i in range(1, kk + 1)))
    if fam in ("alpha_nDCG", "nERR_IA"):
        w = w_dcg if fam == "alpha_nDCG" else w_err
        ideal = _gains(_greedy(subs, alpha), subs, alpha)[:k]  # no cutoff: the whole ideal
        z = sum(x * w(i) for i, x in enumerate(ideal, 1))
        return sum(x * w(i) for i, x in enumerate(g, 1)) / z if z else 0.0
    if fam in ("NRBP", "nNRBP"):
        beta = P["beta"]
        raw = sum(x * beta ** (i - 1) for i, x in enumerate(g, 1))
        if fam == "NRBP":
            return (1 - (1 - alpha) * beta) * raw / S
        ideal = _gains(_greedy(subs, alpha), subs, alpha)
        return raw / sum(x * beta ** (i - 1) for i, x in enumerate(ideal, 1))
    if fam == "P_IA":
        return sum(d in ds for d in top for ds in subs.values()) / (kk * S)
    if fam == "StRecall":
        return sum(any(d in ds for d in top) for ds in subs.values()) / S
    if fam == "AP_IA":
        tot = 0.0
        for ds in subs.values():
            found, ap = 0, 0.0
            for i, d in enumerate(order, 1):
                if d in ds:
                    found += 1
                    ap += found / i
            tot += ap / len(ds)
        return tot / S
    raise AssertionError(fam)


SMALL = ["alpha_DCG@3", "alpha_nDCG@3", "alpha_nDCG(alpha=0.8)", "ERR_IA@2", "nERR_IA@4",
         "NRBP", "nNRBP(alpha=0.3,beta=0.8)", "P_IA@3", "P_IA", "StRecall@2", "AP_IA",
         "alpha_nDCG(rel=2)@5", "ERR_IA@1", "alpha_nDCG(judged_only=True)@3"]
DOCS = ["d1", "d2", "d10", "D3", "x", "y9", "z"]


def _case(rng):
    """One topic: 3-7 retrieved documents in tied groups, 2-3 subtopics, values 0-2, some
    documents unjudged, one judged but not retrieved."""
    n = int(rng.integers(3, 8))
    docs = list(rng.permutation(DOCS)[:n])
    scores = sorted(rng.choice([3.0, 2.0, 1.0], size=n), reverse=True)
    qrels = []
    for s in ("a", "b", "c")[:int(rng.integers(2, 4))]:
        for d in docs + ["u"]:
            if rng.random() < 0.5:
                qrels.append((s, d, int(rng.choice([0, 1, 1, 2]))))
    if not qrels:
        qrels.append(("a", docs[0], 1))
    return list(zip(docs, scores)), qrels


def _orders(lines, regime, qrels):
    """Docnos in the order of a deterministic regime, or every within-group permutation."""
    value = {}
    for _, d, v in qrels:
        value[d] = max(value.get(d, v), v)
    groups: dict[float, list[str]] = {}
    for d, s in lines:
        groups.setdefault(s, []).append(d)
    gs = [groups[s] for s in sorted(groups, reverse=True)]
    if regime == "all":
        return [[d for g in p for d in g] for p in itertools.product(
            *[list(itertools.permutations(g)) for g in gs])]
    key = {"trec_eval": lambda d: 0, "realistic": lambda d: value.get(d, -1),
           "optimistic": lambda d: -value.get(d, -1)}[regime]
    out = []
    for g in gs:
        g = sorted(g, key=lambda d: d.encode(), reverse=True)
        out += sorted(g, key=key)
    return out


@pytest.mark.slow
def test_regimes_against_brute_force(tmp_path):
    """12 generated two-topic runs with ties: trec_eval, realistic, optimistic and file equal
    the brute force on their explicit orderings; ``expected`` (4000 seeded orderings) lies
    within 5 standard errors of the exact mean over every ordering of the tied groups."""
    rng = np.random.default_rng(3)
    S = 4000
    checked = 0
    for case in range(12):
        topics = {q: _case(rng) for q in ("1", "2")}
        qlines = [(q, s, d, v) for q, (_, qr) in topics.items() for s, d, v in qr]
        rlines = [(q, "Q0", d, i + 1, s, "r") for q, (ls, _) in topics.items()
                  for i, (d, s) in enumerate(ls)]
        qp = _write(tmp_path, f"q{case}", qlines)
        rp = _write(tmp_path, f"r{case}", rlines)
        res = tb.evaluate(str(qp), [str(rp)], SMALL, regimes="all", samples=S, seed=case)
        run = res.runs[0]
        for q, (ls, qr) in topics.items():
            qrels = [(s, d, v) for s, d, v in qr]
            for name in SMALL:
                for regime in ("trec_eval", "realistic", "optimistic"):
                    want = brute(name, _orders(ls, regime, qrels), qrels)
                    got = res.value(run, name, regime, q)
                    assert got == pytest.approx(want, abs=1e-12), (name, regime, q, ls, qr)
                got = res.value(run, name, "file", q)
                assert got == pytest.approx(brute(name, [d for d, _ in ls], qrels), abs=1e-12)
                vals = [brute(name, o, qrels) for o in _orders(ls, "all", qrels)]
                mean, se = np.mean(vals), np.std(vals) / math.sqrt(S)
                got = res.value(run, name, "expected", q)
                assert abs(got - mean) <= 5 * se + 1e-12, (name, q, got, mean, se)
                checked += 1
    assert checked == 12 * 2 * len(SMALL)


# ---------------------------------------------------------------------------------------------
# the reader, the API and the CLI
# ---------------------------------------------------------------------------------------------


def test_reader_keeps_the_subtopic_column(tmp_path):
    """One reader: with ``subtopics=True`` a docno may be judged once per subtopic; the ad hoc
    view holds its largest value; without, the same file is an error naming both lines."""
    p = _write(tmp_path, "q", [("7", "1", "a", 1), ("7", "1", "b", 1), ("7", "2", "b", 2),
                               ("7", "2", "z", 0), ("5", "x", "b", 1)])
    q = read_qrels(p, subtopics=True)
    adhoc = {(q.topics[t], str(q.docnos[d])): int(v) for t, d, v in zip(q.topic, q.docid,
                                                                        q.value)}
    assert adhoc == {("7", "a"): 1, ("7", "b"): 2, ("7", "z"): 0, ("5", "b"): 1}
    assert q.line_counts.evaluated == 5
    sq = read_subtopic_qrels(p)
    assert sq.subtopics == [("5", "x"), ("7", "1"), ("7", "2")]
    got = sorted(zip((sq.subtopics[s][1] for s in sq.subtopic), sq.docno.tolist(),
                     sq.value.tolist()))
    assert got == [("1", "a", 1), ("1", "b", 1), ("2", "b", 2), ("2", "z", 0), ("x", "b", 1)]
    with pytest.raises(InputError, match=r"q:3: docno judged twice .*lines 2 and 3.*subtopic"):
        read_qrels(p)


def test_reader_errors(tmp_path):
    p = tmp_path / "bad"
    p.write_text("1 1 d1 1\n1 1 d1\n")
    with pytest.raises(InputError, match=r"bad:2: expected 4 fields"):
        read_subtopic_qrels(p)
    p.write_text("1 1 d1 x\n")
    with pytest.raises(InputError, match=r"bad:1: rel 'x'"):
        read_subtopic_qrels(p)
    p.write_text("1 1 d1 1\n# note\n\n1 1 d1 0\n")
    with pytest.raises(InputError, match=r"bad:4: subtopic 1 of topic 1 judges docno d1 twice "
                                         r"\(lines 1 and 4\)"):
        read_subtopic_qrels(p)


def test_large_file_takes_the_compiled_path(tmp_path):
    """A qrels file large enough for the compiled reader gives the same subtopic lines."""
    rng = np.random.default_rng(0)
    lines = [(str(t), str(s), f"doc{d:05d}", int(rng.integers(0, 3)))
             for t in range(40) for s in range(4) for d in rng.choice(3000, 300, replace=False)]
    p = _write(tmp_path, "big", lines)
    q = read_qrels(p, subtopics=True)
    q2 = read_qrels(io.BytesIO(p.read_bytes()[:100_000].rsplit(b"\n", 1)[0] + b"\n"),
                    subtopics=True)
    assert len(q.subtopic_lines) == len(lines)
    n2 = len(q2.subtopic_lines)
    assert np.array_equal(q.subtopic_lines.value[:n2][np.argsort(
        q.subtopic_lines.keys[:n2], kind="stable")].shape, q2.subtopic_lines.value.shape)
    want = sorted(lines)
    got = sorted((q.topics[t], q.subtopic_lines.labels[s][1], str(q.docnos[d]), int(v))
                 for t, s, d, v in zip(q.subtopic_lines.topic, q.subtopic_lines.subtopic,
                                       q.subtopic_lines.docid, q.subtopic_lines.value))
    assert got == want


def test_names_parse_verbatim():
    for s in NAMES:
        assert str(parse_measure(s)) == s
    assert parse_measure("MAP_IA").family.name == "AP_IA"
    with pytest.raises(MeasureError, match="StRecall takes: rel"):
        parse_measure("StRecall(judged_only=True)@10")  # as ir_measures: no judged_only


def test_api_needs_subtopic_qrels(tmp_path):
    p = _write(tmp_path, "q", [("7", "1", "a", 1)])
    r = _write(tmp_path, "r", [("7", "Q0", "a", 1, 1.0, "r")])
    with pytest.raises(MeasureError, match="subtopic qrels"):
        tb.Evaluator(tb.read_qrels(str(p)), ["alpha_nDCG@10"])
    res = tb.evaluate(tb.read_qrels(str(p), subtopics=True), [str(r)], ["alpha_nDCG@10"])
    assert res.mean[0, 0, 0] == 1.0


def test_cli_diversity_qrels(tmp_path):
    """``tiebreak eval -m alpha_nDCG@20 -m ERR_IA@20 QRELS RUN`` on Web-track style qrels."""
    q = _write(tmp_path, "q", [(a, b, c, d) for a, b, c, d in IRM_QRELS])
    r = _write(tmp_path, "r", [(a, "Q0", d, i, s, "run") for i, (a, d, s) in enumerate(IRM_RUN)])
    out = subprocess.run([sys.executable, "-m", "tiebreak.cli", "eval", "-m", "alpha_nDCG@20",
                          "-m", "ERR_IA@20", "--regime", "trec_eval", "--format", "tsv", "-q",
                          str(q), str(r)], capture_output=True, text=True, check=True)
    rows = {(x[1], x[3]): float(x[4]) for x in (ln.split("\t") for ln in
                                                 out.stdout.splitlines())}
    assert rows[("ERR_IA@20", "0")] == pytest.approx(0.4659, abs=5e-5)
    assert rows[("ERR_IA@20", "all")] == pytest.approx(0.3231, abs=5e-5)
    bad = subprocess.run([sys.executable, "-m", "tiebreak.cli", "eval", "-m", "nDCG@20",
                          str(q), str(r)], capture_output=True, text=True)
    assert bad.returncode == 2 and "q:4: docno judged twice" in bad.stderr


def test_every_regime_on_a_real_run(shared_data, tmp_path):
    """All nine families under all seven regimes on BIT.UA-run1 (ties, unjudged documents, a
    qrels topic the run lacks, -M 50): values finite and in [0, 1] (alpha-DCG and NRBP are
    normalised by the ideal-ideal value, so they stay below 1 too)."""
    f = fr.load(shared_data / fr.DL20[0], shared_data / fr.DL20[1])
    qlines = _gen_subtopics(f.head(100)) + [("no-such-topic", "1", "d", 1)]
    qp = _write(tmp_path, "div.qrels", qlines)
    names = ["alpha_DCG@20", "alpha_nDCG@20", "ERR_IA@20", "nERR_IA@20", "NRBP", "nNRBP",
             "P_IA@20", "StRecall@20", "AP_IA", "alpha_nDCG(judged_only=True)@20", "nDCG@10"]
    run = str(shared_data / fr.DL20[1])
    res = tb.evaluate(str(qp), [run], names, regimes="all", samples=20, max_docs=50)
    assert "no-such-topic" in res.topics
    for name in names:
        v = res.per_topic[0, res.measures.index(name)]
        assert np.isfinite(v).all() and (v >= -1e-12).all() and (v <= 1 + 1e-12).all(), name
        assert (v[:, res.topics.index("no-such-topic")] == 0).all()
