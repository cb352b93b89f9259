"""tiebreak.judgments.pool: fixed-depth, sampled and targeted pools; simulated shallow qrels."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tiebreak.io import read_qrels, read_run
from tiebreak.judgments.pool import (
    boundary_ties,
    infer_contributing,
    make_pool,
    parse_topics,
    pool_depth,
    pool_targeted,
    pool_two_strata,
    restrict_qrels,
    run_lists,
    subset_topics,
    topics_only_qrels,
    write_qrels,
)


def _run(text: str, name: str):
    return read_run(io.BytesIO(text.encode()), name=name)


def _qrels(text: str):
    return read_qrels(io.BytesIO(text.encode()))


# Three runs, two topics. Run b ties d3/d4/d5 at score 5 around rank 2..4.
RUN_A = """1 Q0 d1 1 9 a
1 Q0 d2 2 8 a
1 Q0 d3 3 7 a
2 Q0 e1 1 9 a
2 Q0 e2 2 8 a
"""
RUN_B = """1 Q0 d9 1 9 b
1 Q0 d3 2 5 b
1 Q0 d4 3 5 b
1 Q0 d5 4 5 b
2 Q0 e3 1 9 b
2 Q0 e1 2 8 b
"""
RUN_C = """1 Q0 d1 1 3 c
1 Q0 d8 2 2 c
2 Q0 e9 1 3 c
"""
QRELS = """1 0 d1 1
1 0 d2 0
1 0 d3 1
1 0 d4 0
1 0 d5 2
1 0 d8 1
1 0 d9 0
1 0 d7 1
2 0 e1 1
2 0 e2 0
2 0 e3 1
2 0 e9 0
"""


@pytest.fixture()
def toy():
    runs = [_run(RUN_A, "a"), _run(RUN_B, "b"), _run(RUN_C, "c")]
    return runs, _qrels(QRELS)


def _docs(pool, L):
    return {(pool.topics[k >> 32], str(L.docnos[k & 0xFFFFFFFF])) for k in pool.keys}


def test_depth_pool_matches_hand_made_pool(toy):
    runs, q = toy
    L = run_lists(runs, q)
    P = pool_depth(L, 2)
    # trec_eval order of run b, topic 1: d9 (9), then the tie d3,d4,d5 by docno descending
    want = {("1", "d1"), ("1", "d2"), ("1", "d9"), ("1", "d5"), ("1", "d8"),
            ("2", "e1"), ("2", "e2"), ("2", "e3"), ("2", "e9")}
    assert _docs(P, L) == want
    assert P.per_topic().tolist() == [5, 4]
    # the tied group of run b straddles rank 2: 1 inside (d5), 2 outside (d4, d3)
    assert P.boundary_ties == {"groups": 1, "inside": 1, "outside": 2, "added": 0}


def test_tie_rules_at_the_boundary(toy):
    runs, q = toy
    Lf = run_lists(runs, q, "file")
    assert ("1", "d3") in _docs(pool_depth(Lf, 2), Lf)  # file order: d3 is line 2
    assert ("1", "d5") not in _docs(pool_depth(Lf, 2), Lf)
    Li = run_lists(runs, q, "include")
    Pi = pool_depth(Li, 2)
    assert {("1", "d3"), ("1", "d4"), ("1", "d5")} <= _docs(Pi, Li)
    assert Pi.boundary_ties["added"] == 2


def test_contributing_runs_and_restricted_qrels(toy):
    runs, q = toy
    L = run_lists(runs, q)
    P = pool_depth(L, 1, ["a", "c"])
    assert _docs(P, L) == {("1", "d1"), ("2", "e1"), ("2", "e9")}
    J = restrict_qrels(q, P)
    assert J.topics == q.topics
    got = {(J.topics[t], str(J.docnos[d]), int(v)) for t, d, v in zip(J.topic, J.docid, J.value)}
    assert got == {("1", "d1", 1), ("2", "e1", 1), ("2", "e9", 0)}
    buf = io.StringIO()
    assert write_qrels(J, buf) == 3
    assert buf.getvalue().splitlines()[0] == "1 0 d1 1"


def test_restricted_qrels_with_unjudged_documents(toy):
    runs, _ = toy
    q = _qrels("1 0 d1 1\n2 0 e1 0\n")
    L = run_lists(runs, q)
    J = restrict_qrels(q, pool_depth(L, 1), with_unjudged=True)
    got = {(J.topics[t], str(J.docnos[d]), int(v)) for t, d, v in zip(J.topic, J.docid, J.value)}
    assert got == {("1", "d1", 1), ("1", "d9", -1), ("2", "e1", 0), ("2", "e3", -1),
                   ("2", "e9", -1)}


def test_fresh_pool_from_runs_only(toy):
    runs, _ = toy
    q = topics_only_qrels(runs)
    L = run_lists(runs, q)
    J = restrict_qrels(q, pool_depth(L, 1), with_unjudged=True)
    assert len(J) == 5 and set(J.value.tolist()) == {-1}


def test_infer_contributing(toy):
    runs, q = toy
    L = run_lists(runs, q)
    # every top-2 document of a and c is judged; b's top 2 includes d5 (judged) and d9: judged
    assert infer_contributing(L, q, 2) == ["a", "b", "c"]
    q2 = _qrels(QRELS.replace("1 0 d8 1\n", ""))
    assert infer_contributing(run_lists(runs, q2), q2, 2) == ["a", "b"]


def test_targeted_method_a_by_hand(toy):
    runs, q = toy
    L = run_lists(runs, q)
    P = pool_targeted(L, "A", budget=2, p=0.5)
    # topic 1, W(k) = 0.5^k: d1 = W1(a) + W1(c) = 1.0; d9 = 0.5; d2 = 0.25; d8 = 0.25 ...
    # topic 2: e1 = 0.5 (a) + 0.25 (b) = 0.75; e3 = 0.5; e9 = 0.5 -> tie, docno ascending: e3
    assert _docs(P, L) == {("1", "d1"), ("1", "d9"), ("2", "e1"), ("2", "e3")}


def test_targeted_method_b_prefers_uncertain_runs(toy):
    runs, q = toy
    L = run_lists(runs, q)
    # W(k) = 0.5^k. Unjudged weight: a 0.875, b 0.9375, c 0.75. B picks d1 (0.8125), then
    # d9 (0.469); now Delta_b = 0.4375, Delta_a = 0.375, Delta_c = 0.25, so the third pick is
    # d5 (0.25 * 0.4375) over d2 (0.25 * 0.375) and d8; A takes d2 (0.25, docno before d5, d8).
    P = pool_targeted(L, "B", budget=3, p=0.5)
    assert sorted(d for t, d in _docs(P, L) if t == "1") == ["d1", "d5", "d9"]
    PA = pool_targeted(L, "A", budget=3, p=0.5)
    assert sorted(d for t, d in _docs(PA, L) if t == "1") == ["d1", "d2", "d9"]
    PC = pool_targeted(L, "C", budget=3, p=0.5, qrels=q)
    assert len([1 for t, _ in _docs(PC, L) if t == "1"]) == 3
    with pytest.raises(ValueError, match="assessor"):
        pool_targeted(L, "C", budget=3)


def test_two_strata_and_uniform(toy):
    runs, q = toy
    L = run_lists(runs, q)
    P = pool_two_strata(L, 1, rate=0.5, dmax=4, seed=3)
    s1 = pool_depth(L, 1)
    assert set(s1.keys) <= set(P.keys)
    # topic 1 candidates at ranks 2..4 not in stratum 1: d2, d3, d4, d5, d8 -> floor(2.5) = 2
    assert int(np.sum((P.keys >> 32) == 0)) == 2 + 2
    assert int(np.sum((P.pooled_unjudged >> 32) == 0)) == 3
    again = pool_two_strata(L, 1, rate=0.5, dmax=4, seed=3)
    assert np.array_equal(P.keys, again.keys)
    U = make_pool(L, "uniform", rate=0.5, dmax=4, seed=1)
    assert U.per_topic().tolist() == [3, 2]  # floor(0.5 * 7), floor(0.5 * 4)
    with pytest.raises(ValueError):
        make_pool(L, "nope")
    with pytest.raises(ValueError):
        pool_two_strata(L, 5, dmax=4)


def test_topics_helpers(toy):
    _, q = toy
    assert parse_topics("2", q.topics) == ["2"]
    assert parse_topics("1-5", q.topics) == ["1", "2"]
    with pytest.raises(ValueError):
        parse_topics("7-9", q.topics)
    s = subset_topics(q, ["2"])
    assert s.topics == ["2"] and len(s) == 4 and set(s.topic.tolist()) == {0}


# ----------------------------------------------------------------------------- properties


@st.composite
def run_sets(draw):
    n_runs = draw(st.integers(1, 4))
    n_topics = draw(st.integers(1, 3))
    docs = [f"d{i:02d}" for i in range(12)]
    runs = []
    for r in range(n_runs):
        lines = []
        for t in range(n_topics):
            k = draw(st.integers(1, 8))
            chosen = draw(st.permutations(docs))[:k]
            scores = draw(st.lists(st.integers(0, 3), min_size=k, max_size=k))
            lines += [f"{t} Q0 {d} {i + 1} {s} r{r}" for i, (d, s) in enumerate(zip(chosen,
                                                                                   scores))]
        runs.append(_run("\n".join(lines) + "\n", f"r{r}"))
    qlines = []
    for t in range(n_topics):
        for d in docs:
            v = draw(st.integers(-1, 2))
            if v >= 0:
                qlines.append(f"{t} 0 {d} {v}")
    if not qlines:
        qlines = ["0 0 d00 1"]
    return runs, _qrels("\n".join(qlines) + "\n")


@settings(max_examples=40, deadline=None)
@given(run_sets(), st.sampled_from(["trec_eval", "file", "include"]))
def test_pool_properties(data, order):
    runs, q = data
    L = run_lists(runs, q, order)
    prev = np.zeros(0, np.int64)
    for d in range(1, 10):
        P = pool_depth(L, d)
        assert set(prev) <= set(P.keys)  # deeper pools never un-judge a document
        prev = P.keys
        bt = boundary_ties(L, d)
        assert bt["inside"] >= bt["groups"] and bt["outside"] >= bt["groups"]
    # depth >= every run's length: every judged document some run retrieved stays judged
    J = restrict_qrels(q, pool_depth(L, 8))
    retrieved = {(L.topics[t], str(L.docnos[dd])) for t, dd in zip(L.topic, L.doc)}
    want = {(q.topics[t], str(q.docnos[dd]), int(v))
            for t, dd, v in zip(q.topic, q.docid, q.value) if (q.topics[t],
                                                                str(q.docnos[dd])) in retrieved}
    got = {(J.topics[t], str(J.docnos[dd]), int(v)) for t, dd, v in zip(J.topic, J.docid, J.value)}
    assert got == want


def test_condensed_run_keeps_judged_lines_in_file_order(toy):
    from tiebreak.judgments.pool import condense_run

    runs, _ = toy
    q = _qrels("1 0 d9 0\n1 0 d5 1\n1 0 d3 -1\n2 0 e1 1\n")
    c = condense_run(runs[1], q)  # run b: d9 d3 d4 d5 | e3 e1
    assert [c.docno(i) for i in range(len(c))] == ["d9", "d5", "e1"]
    assert c.score.tolist() == [9.0, 5.0, 8.0]
    assert len(runs[1]) == 6  # the original is untouched
    # in file order the condensed run puts the relevant d5 at rank 2: P@2 = 1/2 (it was 0 on
    # the full run, where d3 and d4 come first)
    from tiebreak.judgments.scoring import score_runs

    s = score_runs(q, [runs[1], c], ["P"], [2], ["file"])["scores"][:, 0, 0, 0, 0]
    assert s.tolist() == [0.0, 0.5]


# ------------------------------------------------------------------ mtf, isj-sim, residual


def _brute_mtf(lists, rel, budget):
    """Move-to-front by hand: a queue of runs; the front run is followed while it finds
    relevant documents, a non-relevant one sends it to the back (priority - 1 with ties in run
    order is the same queue)."""
    judged, out = set(), []
    prio = [0] * len(lists)
    pos = [0] * len(lists)
    while len(out) < budget:
        live = [i for i in range(len(lists)) if any(d not in judged for d in lists[i][pos[i]:])]
        if not live:
            break
        i = max(live, key=lambda r: (prio[r], -r))
        while lists[i][pos[i]] in judged:
            pos[i] += 1
        d = lists[i][pos[i]]
        pos[i] += 1
        judged.add(d)
        out.append(d)
        if d not in rel:
            prio[i] -= 1
    return set(out)


def _brute_isj(lists, rel, budget, p, step):
    import math

    docs = sorted({d for lst in lists for d in lst})
    judged: set = set()
    while len(judged) < min(budget, len(docs)):
        q = []
        for lst in lists:
            nj = sum(d in judged for d in lst)
            nr = sum(d in judged and d in rel for d in lst)
            q.append((1 + nr) / (2 + nj))
        score = {d: sum(q[i] * (1 - p) * p ** lst.index(d) for i, lst in enumerate(lists)
                        if d in lst) for d in docs if d not in judged}
        ranked = sorted(score, key=lambda d: (-score[d], d))
        judged |= set(ranked[: min(step, budget - len(judged))])
        assert not math.isnan(len(judged))
    return judged


def _lists_of(runs, topic):
    out = []
    for r in runs:
        rows = [(int(r.rank[i]), str(r.docnos[r.docid[i]])) for i in range(len(r.topic))
                if r.topics[r.topic[i]] == topic]
        out.append([d for _, d in sorted(rows)])
    return out


def test_mtf_and_isj_match_brute_force_on_random_runs():
    from tiebreak.judgments.pool import pool_isj_sim, pool_mtf

    rng = np.random.default_rng(7)
    for trial in range(6):
        runs = []
        for name in "abcd":
            lines = []
            for t in ("1", "2"):
                docs = rng.choice(30, size=12, replace=False)
                lines += [f"{t} Q0 x{d:02d} {i + 1} {100 - i} {name}" for i, d in enumerate(docs)]
            runs.append(_run("\n".join(lines) + "\n", name))
        relset = {t: {f"x{d:02d}" for d in rng.choice(30, size=8, replace=False)} for t in "12"}
        q = _qrels("".join(f"{t} 0 x{d:02d} {int(f'x{d:02d}' in relset[t])}\n"
                           for t in "12" for d in range(30)))
        L = run_lists(runs, q)
        budget = int(rng.integers(3, 25))
        for t in ("1", "2"):
            lists = _lists_of(runs, t)
            got = {d for tt, d in _docs(pool_mtf(L, q, budget), L) if tt == t}
            assert got == _brute_mtf(lists, relset[t], budget), trial
            step = int(rng.integers(1, 5))
            got = {d for tt, d in _docs(pool_isj_sim(L, q, budget, p=0.8, step=step), L)
                   if tt == t}
            assert got == _brute_isj(lists, relset[t], budget, 0.8, step), trial


def test_mtf_follows_a_run_while_it_finds_relevant_documents(toy):
    runs, q = toy
    L = run_lists(runs, q)
    from tiebreak.judgments.pool import pool_mtf

    # topic 1: a = d1(R) d2(N) d3(R); b = d9(N) then the tied d5 d4 d3 (trec_eval order);
    # c = d1 d8(R). Budget 4: a gives d1, d2 (N -> back); b gives d9 (N); c: d1 judged, d8 (R).
    P = pool_mtf(L, q, budget=4)
    assert {d for t, d in _docs(P, L) if t == "1"} == {"d1", "d2", "d9", "d8"}


def test_residual_depth_formula():
    import math

    from tiebreak.judgments.pool import residual_depth

    for p in (0.5, 0.8, 0.9, 0.95, 0.99):
        d = residual_depth(1e-4, p)
        assert p ** d < 1e-4 <= p ** (d - 1)
        # Lu 2018 Section 2.5: d ~ 9.21 / (1 - p), within the first-order error of ln p
        assert d <= math.ceil(9.2104 / (1 - p)) + 1
    assert residual_depth(1e-4, 0.95) == 180
    assert residual_depth(1e-4, 0.8) == 42
    with pytest.raises(ValueError):
        residual_depth(0, 0.8)


def test_pool_cli_residual_and_mtf(toy, tmp_path):
    from click.testing import CliRunner

    from tiebreak.cli import main

    runs, _ = toy
    for n, text in (("a", RUN_A), ("b", RUN_B), ("c", RUN_C)):
        (tmp_path / n).write_text(text)
    (tmp_path / "q").write_text(QRELS)
    r = CliRunner().invoke(main, ["pool", str(tmp_path / "q"), str(tmp_path / "a"),
                                  str(tmp_path / "b"), "--residual", "0.0001", "--p", "0.8"])
    assert r.exit_code == 0, r.output
    assert "depth 42 bounds" in r.stderr
    r = CliRunner().invoke(main, ["pool", str(tmp_path / "q"), str(tmp_path / "a"),
                                  str(tmp_path / "b"), str(tmp_path / "c"), "--method", "mtf",
                                  "--budget", "4"])
    assert r.exit_code == 0, r.output
    assert sorted(ln.split()[2] for ln in r.stdout.splitlines() if ln.startswith("1 ")) == \
        ["d1", "d2", "d8", "d9"]
    r = CliRunner().invoke(main, ["pool", "/dev/null", str(tmp_path / "a"), "--method", "mtf"])
    assert r.exit_code == 2
