"""Rank-safe pruning of the dependency models by upper bounds of their proximity part
(:mod:`tiebreak.retrieval.dependency.pruned`, :mod:`tiebreak.retrieval.proxprune`): the
per-document counts against the reference window counters, the term-pair statistics against
SDM's own pass 1, the bounds against the exact scores of every candidate, and the pruned top k
of SDM, FDM, Lkp, Lkpf and L2p against exhaustive scoring (same documents, the same score bits,
trec_eval's tie order) on random and hypothesis-generated indexes and the classic
collections."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as hst

from tiebreak.index.build import build_index_from_tokens
from tiebreak.retrieval import dependency as dep
from tiebreak.retrieval import registry
from tiebreak.retrieval.dependency import (
    build_pair_statistics,
    build_subquery_statistics,
    proximity_bounds,
    sdm_bounds,
    window_counts,
)
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
            _same(idx, q, k, "sdm")


MODELS = ("sdm", "fdm", "lkp", "lkpf", "l2p")


def _same(idx, q, k, model, **params):
    """The pruned top k of ``model`` is the exhaustive one: docids, score bits, order."""
    fn = getattr(dep, model)
    a = fn(idx, q, k, **params)
    b = fn(idx, q, k, algorithm="bounds", **params)
    assert np.array_equal(a[0], b[0]), (model, q, k)
    assert np.array_equal(a[1], b[1]), (model, q, k)    # bit for bit, not to a tolerance
    return a


def _bounds_hold(idx, q, model, **params):
    d, lb, ub, ex = proximity_bounds(model, idx, q, **params)
    assert np.all(lb <= ex) and np.all(ub >= ex), (model, q)
    # every candidate is there, with the exhaustive score (k = all documents)
    a = getattr(dep, model)(idx, q, idx.num_docs, **params)
    assert sorted(a[0].tolist()) == sorted(d.tolist())
    order = np.argsort(d)
    assert np.array_equal(np.sort(a[0]), d[order])
    assert np.array_equal(a[1][np.argsort(a[0])], ex[order])
    return ub - lb, ex - lb


@pytest.mark.parametrize("seed", [3, 4])
def test_all_models_and_bounds_on_random_collections(tmp_path, seed):
    idx, terms = _random_index(tmp_path / f"r{seed}", seed, vocab=7)
    rng = np.random.default_rng(200 + seed)
    for _ in range(6):
        q = [terms[i] for i in rng.choice(len(terms), int(rng.integers(1, 6)), replace=False)]
        for model in MODELS:
            for k in (1, 3, 10, 100):
                _same(idx, q, k, model)
            _bounds_hold(idx, q, model)
    # a parameter set off the defaults (k1 = 0: every Eq. 4.2 term is 1 + k1 or 0)
    q = terms[:4]
    _same(idx, q, 5, "lkp", lam=1.0, k1=0.0, b=1.0)
    _same(idx, q, 5, "fdm", weights=(0.2, 0.3, 0.5), mu=7.0, method="lps_if_all")
    _same(idx, q, 5, "sdm", window=2, mu=3.0, method="eps_cdf_all")
    _bounds_hold(idx, q, "lkpf", lam=0.9, k1=2.0)


_DOCS = hst.lists(hst.lists(hst.integers(0, 4), min_size=1, max_size=14), min_size=1,
                  max_size=12)


@given(docs=_DOCS, q=hst.lists(hst.integers(0, 5), min_size=1, max_size=5),
       k=hst.integers(1, 6), model=hst.sampled_from(MODELS))
def test_identical_to_exhaustive_on_tiny_indexes(tmp_path_factory, docs, q, k, model):
    from tiebreak.index import Analyzer

    terms = [f"t{i}" for i in range(5)]
    toks = np.array([t for doc in docs for t in doc])
    ptr = np.concatenate([[0], np.cumsum([len(doc) for doc in docs])])
    idx = build_index_from_tokens(tmp_path_factory.mktemp("h"), [f"d{i:02d}" for i in
                                                                 range(len(docs))],
                                  toks, ptr, terms, Analyzer("none", "none"))
    query = [f"t{i}" for i in q]           # t5 is outside the vocabulary; repeats allowed
    _same(idx, query, k, model)
    gap, true_gap = _bounds_hold(idx, query, model)
    assert np.all(gap >= true_gap)


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
    assert st == {"candidates": 3, "multi": 2, "scored": 1}
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
    build_subquery_statistics(idx, qs)
    read = {m: 0 for m in MODELS}
    multi = dict(read)
    for q in qs:
        for model in MODELS:
            for k in (10, 1000):
                st = {}
                a = getattr(dep, model)(idx, q, k)
                b = _pruned(model, idx, q, k, st)
                assert np.array_equal(a[0], b[0]), (name, model, q, k)
                assert np.array_equal(a[1], b[1]), (name, model, q, k)
                read[model] += st.get("scored", 0)
                multi[model] += st.get("multi", 0)
    for model in ("sdm", "fdm"):
        assert read[model] < multi[model], model     # positions were skipped at k = 10


def _pruned(model, idx, q, k, st):
    """``model(..., algorithm="bounds")`` with the default parameters, reporting ``st``."""
    from tiebreak.retrieval.dependency.lkp_family import lkp_bounds
    from tiebreak.retrieval.dependency.mrf import mrf_bounds

    if model in ("sdm", "fdm"):
        full = model == "fdm"
        return mrf_bounds(idx, q, k, full, dep.FDM_WEIGHTS if full else dep.SDM_WEIGHTS,
                          dep.MU, None if full else dep.SDM_WINDOW, "auto",
                          dep.MAX_PROX_TERMS if full else None, stats=st)
    return lkp_bounds(idx, q, k, model, dep.LAMBDA, dep.K1, dep.B, "auto",
                      None if model == "l2p" else dep.MAX_PROX_TERMS, stats=st)
