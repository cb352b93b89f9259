
"""ranking.orderings: the sort by topic then score (file order inside ties) on inputs that are
already in that order (the usual run file, where the sort is skipped) and on any other order."""

import contextlib
import io
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tiebreak as tb
from tiebreak.ranking import judge, orderings

_line = st.tuples(st.integers(0, 3), st.integers(0, 4))  # topic, score (few values: ties)


@settings(max_examples=120, deadline=None)
@given(st.lists(_line, min_size=1, max_size=40), st.booleans())
def test_score_order_is_the_stable_sort(lines, presorted):
    if presorted:
        lines = sorted(lines, key=lambda x: (x[0], -x[1]))
    text = "".join(f"q{t} Q0 d{i} {i + 1} {s} tag\n" for i, (t, s) in enumerate(lines))
    qrels = tb.Evaluator({f"q{t}": {"d0": 1} for t in range(4)}, ["AP"]).qrels
    run = tb.read_run(io.BytesIO(text.encode()))
    J = judge(run, qrels)
    O = orderings(J)
    expect = np.lexsort((-J.score, J.qtopic))
    assert O.score_order.tolist() == expect.tolist()
    if presorted:
        assert O.score_order.tolist() == list(range(len(lines)))


def _hygiene_brute(lines):
    """contradictions, rank_ties, increasing per topic (order of first appearance)."""
    topics = list(dict.fromkeys(t for t, _, _ in lines))
    out = {k: [0] * len(topics) for k in ("contradictions", "rank_ties", "increasing")}
    for j, q in enumerate(topics):
        mine = [(r, i, s) for i, (t, r, s) in enumerate(lines) if t == q]
        by_rank = sorted(mine)
        for (r0, _, s0), (r1, _, s1) in zip(by_rank, by_rank[1:]):
            out["contradictions"][j] += s1 > s0
            out["rank_ties"][j] += r1 == r0
    for (t0, _, s0), (t1, _, s1) in zip(lines, lines[1:]):
        out["increasing"][topics.index(t1)] += t0 == t1 and s1 > s0
    return out


@settings(max_examples=120, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(1, 6), st.integers(0, 4)),
                min_size=1, max_size=30), st.booleans())
def test_run_hygiene_counts(lines, presorted):
    """run_hygiene against its definition, on files already in rank order and in any order."""
    from tiebreak.ranking import run_hygiene

    if presorted:
        lines = sorted(lines, key=lambda x: (x[0], x[1]))
    text = "".join(f"q{t} Q0 d{i} {r} {s} tag\n" for i, (t, r, s) in enumerate(lines))
    want = _hygiene_brute(lines)
    for path in _both_paths():
        with path:
            got = run_hygiene(tb.read_run(io.BytesIO(text.encode())))
        assert {k: v.tolist() for k, v in got.items()} == want


def _both_paths():
    """Context managers under which the ranking layer runs its numpy code, then (when the C
    extension is built) its compiled loops (:mod:`tiebreak.ranking._cloops`)."""
    import tiebreak.ranking as rk

    @contextlib.contextmanager
    def using(mod):
        old = rk._compiled
        rk._compiled = lambda: mod
        try:
            yield
        finally:
            rk._compiled = old

    yield using(None)
    from tiebreak._native import ext

    if ext() is None:  # no C compiler at install time: the numpy code alone
        return
    from tiebreak.ranking import _cloops

    yield using(_cloops)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=6),
       st.lists(st.one_of(st.integers(-5, 5), st.floats(-1e3, 1e3, allow_nan=False),
                          st.sampled_from([0.1, 1 / 3, 2 / 7, 1e-17, 1e16 + 2])),
                min_size=36, max_size=36), st.booleans())
def test_cumsum_is_sequential_per_topic_on_both_paths(sizes, xs, whole):
    """Ranking.cumsum (numpy: whole-number shortcut, padded matrix; compiled: one loop) equals a
    sequential per-topic loop from 0 bit for bit (a -0.0 may keep its sign), on ragged and
    equal-length topics, and past 2**53 where whole numbers stop adding exactly."""
    from tiebreak.ranking import Ranking

    topic = np.repeat(np.arange(len(sizes)), sizes)
    rank = np.concatenate([np.arange(1, k + 1) for k in sizes])
    x = np.array(xs[:len(topic)], np.float64)
    if whole:
        x = np.rint(x)
    want = np.empty(len(x))
    for t in range(len(sizes)):
        acc = 0.0
        for i in np.flatnonzero(topic == t):
            acc += x[i]
            want[i] = acc
    for path in _both_paths():
        R = Ranking(len(sizes), topic, rank, np.array(sizes), np.zeros((len(sizes), 1)), None)
        with path:
            got = R.cumsum(x)
        assert (got + 0.0).tobytes() == (want + 0.0).tobytes()  # bits, up to the zero's sign


def test_without_the_extension_the_numpy_code_runs_and_numba_is_never_loaded():
    """``TIEBREAK_NO_EXT=1``: no compiled loops (the numpy code, the definition, runs), and
    evaluating a run never imports numba, whatever its size."""
    import subprocess
    import sys

    code = ("import sys, tiebreak as tb, tiebreak.ranking as r\n"
            "from importlib.resources import files\n"
            "d = files('tiebreak') / 'data'\n"
            "tb.evaluate(tb.read_qrels(str(d / 'ymt2016.qrels')), "
            "[tb.read_run(str(d / 'ymt2016.run'))], ['AP'])\n"
            "print(r._compiled() is None, 'numba' in sys.modules)")
    env = {**os.environ, "TIEBREAK_NO_EXT": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env).stdout.split()
    assert out == ["True", "False"]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 9), st.integers(-3, 300)),
                min_size=1, max_size=40, unique_by=lambda x: x[:2]),
       st.lists(st.tuples(st.integers(0, 4), st.integers(0, 12)), min_size=1, max_size=40,
                unique=True))
def test_judge_dense_table_equals_binary_search(judgments, lines):
    """The qrels rows found through the dense (topic, docno) table equal those of the binary
    search over the sorted keys (values of any width, negative ones, absent topics/docnos)."""
    import tiebreak.ranking as rk

    qtext = "".join(f"q{t} 0 d{d} {v}\n" for t, d, v in judgments)
    rtext = "".join(f"q{t} Q0 d{d} {i + 1} {-i} tag\n" for i, (t, d) in enumerate(lines))
    got = []
    for limit in (rk.DENSE_QRELS_MAX, 0):
        qrels = tb.read_qrels(io.BytesIO(qtext.encode()))
        run = tb.read_run(io.BytesIO(rtext.encode()))
        old, rk.judged.DENSE_QRELS_MAX = rk.judged.DENSE_QRELS_MAX, limit
        try:
            J = judge(run, qrels)
        finally:
            rk.judged.DENSE_QRELS_MAX = old
        got.append((J.qtopic.tolist(), J.relkey.tolist(), J.judged.tolist(), J.grade.tolist(),
                    J.qrow.tolist()))
        assert ("_dense" in qrels.__dict__ and len(qrels.__dict__["_dense"]) > 0) == (limit > 0)
    assert got[0] == got[1]


@settings(max_examples=150, deadline=None)
@given(st.sets(st.text("aAd10_\u00e9", min_size=1, max_size=5), min_size=1, max_size=25),
       st.sets(st.text("aAd10_\u00e9", min_size=1, max_size=7), min_size=1, max_size=25))
def test_lookup_merge_equals_binary_search(qdocs, rdocs):
    """The compiled merge of run and qrels docnos (code points, zero-padded to the wider list)
    finds exactly the judgments the numpy binary search finds: prefixes (d1, d10), case,
    non-ASCII, lists of different widths."""
    from tiebreak.ranking import lookup

    qd, rd = sorted(qdocs), sorted(rdocs)
    qtext = "".join(f"q1 0 {d} {i % 3}\n" for i, d in enumerate(qd))
    rtext = "".join(f"q1 Q0 {d} {i + 1} {-i} tag\n" for i, d in enumerate(rd))
    qrels = tb.read_qrels(io.BytesIO(qtext.encode()))
    run = tb.read_run(io.BytesIO(rtext.encode()))
    got = []
    for path in _both_paths():
        with path:
            found, pos = lookup(qrels, np.zeros(len(run), np.int64), run.docnos, run.docid)
        got.append((found.tolist(), np.where(found, pos, -1).tolist()))
    want = [d in qdocs for d in (run.docno(i) for i in range(len(run)))]
    assert got[0][0] == want
    assert all(g == got[0] for g in got)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 9), st.integers(0, 3)),
                min_size=1, max_size=40, unique_by=lambda x: x[:2]),
       st.permutations(range(4)), st.booleans(), st.sampled_from([None, 1, 3]),
       st.booleans(), st.sampled_from(["trec_eval", "file", "realistic", "upper_mono"]))
def test_select_compiled_equals_numpy(lines, topic_order, judged_only, max_docs, complete,
                                      order_name):
    """ranking._select (compiled pass, numpy fallback when the evaluated topics come out of
    order) gives the numpy code's positions for any topic order, -J, -M, -c and ordering."""
    from tiebreak.ranking import _select, prepare

    qtext = "".join(f"q{t} 0 d{d} {v - 1}\n" for t, d, v in lines if d % 3)
    qtext += "q0 0 dx 1\nq1 0 dx 1\nq2 0 dx 1\nq3 0 dx 1\n"
    rtext = "".join(f"q{t} Q0 d{d} {i + 1} {d % 4} tag\n" for i, (t, d, _) in enumerate(lines))
    qrels = tb.read_qrels(io.BytesIO(qtext.encode()))
    run = tb.read_run(io.BytesIO(rtext.encode()))
    topics = [f"q{t}" for t in topic_order] if complete else None
    P = prepare(run, qrels, topics, complete=complete, max_docs=max_docs,
                judged_only=judged_only)
    got = []
    for path in _both_paths():
        with path:
            got.append([x.tolist() for x in _select(P, P.O.order(order_name),
                                                    promote=order_name == "upper_mono")])
    assert all(g == got[0] for g in got)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from([0.0, -0.0, 1.0, 2.5, -3.0])),
                min_size=1, max_size=40), st.booleans())
def test_orderings_compiled_equals_numpy(lines, presorted):
    """orderings (compiled counting sort and per-topic merge sort vs numpy's lexsort): the same
    score order, tied groups, starts, ranks and counts, sorted or not (-0.0 ties with 0.0)."""
    from tiebreak.ranking import Judged

    if presorted:
        lines = sorted(lines, key=lambda x: (x[0], -x[1]))
    n = len(lines)
    t = np.array([a for a, _ in lines], np.int64)
    s = np.array([b for _, b in lines], np.float64)
    z = np.zeros(n, np.int64)
    J = Judged(4, t, s, z, z.astype(float), z.astype(bool), z, z, [], 0)
    got = []
    for path in _both_paths():
        with path:
            O = orderings(J)
        got.append([np.asarray(x).tolist() for x in (O.score_order, O.group, O.tied,
                                                     O.starts, O.n_ret, O.rank, O.topic)])
    assert all(g == got[0] for g in got)
