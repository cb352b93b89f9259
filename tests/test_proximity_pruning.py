"""Rank-safe pruning of SDM by upper bounds of its window potentials
(:mod:`tiebreak.retrieval.proxprune`): the per-document counts against the reference window
counters, the term-pair statistics against SDM's own pass 1, and the pruned rankings against
exhaustive SDM on the classic collections (same documents and order)."""

from __future__ import annotations

import numpy as np
import pytest

from tiebreak.index.build import build_index_from_tokens
from tiebreak.retrieval import registry
from tiebreak.retrieval.dependency import build_pair_statistics, sdm, sdm_bounds, window_counts
from tiebreak.retrieval.dependency.plan import _arrays
from tiebreak.retrieval.proximity import count_ordered, count_unordered
from tiebreak.retrieval.proxprune import pair_counts_in, pair_statistics


def test_pair_counts_against_the_window_counters():
    rng = np.random.default_rng(5)
    for _ in range(400):
        L = int(rng.integers(2, 40))
        toks = rng.integers(0, 3, L)          # terms 0 (A), 1 (B), 2 (other)
        a = np.flatnonzero(toks == 0)
        b = np.flatnonzero(toks == 1)
        for w in (2, 3, 5, 8, 50):
            o, u = pair_counts_in(a, b, w)
            want_u = count_unordered([a, b], w) if len(a) and len(b) else 0
            assert (o, u) == (count_ordered([a, b], 1) if len(a) and len(b) else 0, want_u)


def _random_index(path, seed, n_docs=60, vocab=6):
    rng = np.random.default_rng(seed)
    lens = rng.integers(1, 30, n_docs)
    toks = rng.integers(0, vocab, int(lens.sum()))
    ptr = np.concatenate([[0], np.cumsum(lens)])
    terms = [f"t{i}" for i in range(vocab)]
    from tiebreak.index import Analyzer

    return build_index_from_tokens(path, [f"d{i:03d}" for i in range(n_docs)], toks, ptr, terms,
                                   Analyzer("none", "none")), terms


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pair_statistics_and_rankings_on_random_collections(tmp_path, seed):
    idx, terms = _random_index(tmp_path / f"r{seed}", seed)
    rng = np.random.default_rng(100 + seed)
    for _ in range(8):
        q = [terms[i] for i in rng.choice(len(terms), int(rng.integers(2, 5)), replace=False)]
        tids = [idx.term_id(t) for t in q]
        # SDM's pass 1 (slots: unigrams, ordered pairs, unordered pairs) = the pair index
        wc = window_counts("sdm", idx, q)
        ps = pair_statistics(idx, list(zip(tids, tids[1:])), 8, _arrays(idx))
        no = len(q) - 1
        assert [ps[p][0] for p in zip(tids, tids[1:])] == list(wc[len(q):len(q) + no])
        assert [ps[p][1] for p in zip(tids, tids[1:])] == list(wc[len(q) + no:])
        for k in (1, 3, 10, 100):
            a, b = sdm(idx, q, k), sdm_bounds(idx, q, k)
            assert np.array_equal(a[0], b[0]), (q, k)
            np.testing.assert_allclose(b[1], a[1], rtol=1e-13, atol=0)


def test_three_documents_by_hand_and_the_skip(tmp_path):
    # d1 "a b c a", d2 "b x x a c", d3 "c c x": query "a b" has candidates d1, d2.
    # d1 holds the phrase "a b" (#1 1, #uw8 1); d2's b0 .. a3 is one #uw8 window, no phrase.
    terms = ["a", "b", "c", "x"]
    docs = ["a b c a", "b x x a c", "c c x"]
    toks, ptr = [], [0]
    for text in docs:
        toks += [terms.index(t) for t in text.split()]
        ptr.append(len(toks))
    from tiebreak.index import Analyzer

    idx = build_index_from_tokens(tmp_path / "i", ["d1", "d2", "d3"], np.array(toks),
                                  np.array(ptr), terms, Analyzer("none", "none"))
    assert pair_statistics(idx, [(0, 1)], 8, _arrays(idx)) == {(0, 1): (1.0, 2.0)}
    for q in (["a", "b"], ["c", "a", "b"], ["x", "c"]):
        for k in (1, 2, 3):
            got = registry.run(idx, q, k, "sdm", mu=5.0, algorithm="bounds")
            want = registry.run(idx, q, k, "sdm", mu=5.0)
            assert np.array_equal(got[0], want[0]) and np.allclose(got[1], want[1], rtol=1e-14)
    # "x c" at k 1: d3 (c c x) leads on its unigrams; d2's bound (x1 x2 .. c4) is below it,
    # so d2's positions are never read
    st = {}
    sdm_bounds(idx, ["x", "c"], 1, mu=5.0, stats=st)
    assert st == {"candidates": 3, "scored": 1}
    with pytest.raises(ValueError, match="algorithm"):
        registry.run(idx, ["a"], 1, "sdm", algorithm="maxscore")


@pytest.mark.parametrize("name", ["cacm", "adi", "medline", "cisi", "lisa", "time", "npl",
                                  pytest.param("cranfield", marks=pytest.mark.slow)])
def test_identical_to_exhaustive_on_the_classic_collections(shared_data, tmp_path, name):
    from tiebreak.index import build_index
    from tiebreak.index.readers import read_topics
    from tiebreak.index.testcollections import COLLECTIONS

    c = COLLECTIONS[name]
    idx = build_index(c.docs_source(shared_data), tmp_path / name, fields=c.fields,
                      progress=False)
    qs = [idx.analyzer.analyze(t) for _, t in read_topics(c.topics_source(shared_data))]
    build_pair_statistics(idx, qs)
    read = cand = 0
    for q in qs:
        for k in (10, 1000):
            st = {}
            a, b = sdm(idx, q, k), sdm_bounds(idx, q, k, stats=st)
            assert np.array_equal(a[0], b[0]), (name, q, k)
            np.testing.assert_allclose(b[1], a[1], rtol=1e-12, atol=0)
            read += st.get("scored", 0)
            cand += st.get("candidates", 0)
    assert read < cand          # positions were skipped
