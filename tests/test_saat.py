"""Impact-ordered score-at-a-time traversal (tiebreak.retrieval.saat): the rank-safe variant
returns the exhaustive top k bit for bit, the band-safe variant puts every document in the band
of its exact rank -- on random small indexes full of ties (hypothesis) and on Vaswani and CACM."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from zipf_index import zipf_index

from tiebreak.index import Analyzer, build_index
from tiebreak.index.build import build_index_from_tokens
from tiebreak.index.readers import read_topics
from tiebreak.retrieval.bandsafe import banded
from tiebreak.retrieval.traversal import ALGORITHMS, retrieve, retrieve_many

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@pytest.fixture(scope="module")
def indexes(tmp_path_factory):
    base = tmp_path_factory.mktemp("saat")
    return [zipf_index(base / f"i{s}", s, n, v, ml, dup)
            for s, (n, v, ml, dup) in enumerate([(400, 12, 6, False), (1500, 60, 25, False),
                                                 (3000, 200, 40, False), (700, 40, 8, True)])]


models = st.sampled_from([("bm25", {}), ("bm25", {"idf": "lucene"}), ("bm25", {"b": 0.75}),
                          ("ql", {}), ("ql", {"mu": 100.0})])


def _same(a, b):
    assert np.array_equal(a[0], b[0])
    assert np.array_equal(a[1], b[1])


def test_registered():
    assert "saat" in ALGORITHMS


@SETTINGS
@given(which=st.integers(0, 3), q=st.lists(st.integers(0, 199), min_size=1, max_size=6),
       model=models, k=st.sampled_from([1, 3, 10, 100, 5000]),
       quant=st.sampled_from([None, 8, 3]), rho=st.sampled_from(["1.4", "2", "1"]))
def test_saat_rank_safe_and_band_safe(indexes, which, q, model, k, quant, rho):
    idx = indexes[which]
    name, kw = model
    terms = [f"t{i % idx.vocab_size}" for i in q]
    ref = retrieve(idx, terms, k, name, "exhaustive", quant, **kw)
    _same(retrieve(idx, terms, k, name, "saat", quant, **kw), ref)
    _same(retrieve(idx, terms, k, name, "saat", quant, rho=rho, **kw), banded(idx, ref[0], rho))


def test_saat_stops_early_and_batch_equals_single(tmp_path):
    # term t0 is rare and decisive, t1 common: after t0's postings no other document can enter
    # the top 3, so most of t1's postings are never read (the certificate fires)
    rng = np.random.default_rng(0)
    docs = [[0, 0, 0] if i < 5 else [1] * int(rng.integers(1, 4)) for i in range(3000)]
    docs = [d + [2] * int(rng.integers(0, 3)) for d in docs]
    flat = np.array([t for d in docs for t in d], np.int32)
    ptr = np.concatenate([[0], np.cumsum([len(d) for d in docs])])
    idx = build_index_from_tokens(tmp_path / "x", [f"D{i:04d}" for i in range(3000)], flat, ptr,
                                  ["t0", "t1", "t2"], Analyzer("none", "none"))
    total = int(idx.df[idx.term_id("t0")] + idx.df[idx.term_id("t1")])
    for quant in (None, 8):
        for rho in (None, "1.4"):
            stats = np.zeros(3, np.int64)
            got = retrieve(idx, ["t0", "t1"], 3, "bm25", "saat", quant, rho=rho, stats=stats)
            ref = retrieve(idx, ["t0", "t1"], 3, "bm25", "exhaustive", quant)
            _same(got, ref if rho is None else banded(idx, ref[0], rho))
            assert 0 < stats[0] < total / 4, stats
    qs = [["t0", "t1"], ["t1", "t2"], ["t2"], ["nope"]]
    for a, b in zip(retrieve_many(idx, qs, 10, "bm25", "saat"),
                    [retrieve(idx, q, 10, "bm25", "exhaustive") for q in qs]):
        _same(a, b)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["vaswani", "cacm"])
def test_saat_on_test_collections(name, shared_data, tmp_path):
    if name == "vaswani":
        d = shared_data / "vaswani"
        idx = build_index(d / "doc-text.trec.gz", tmp_path / name, progress=False)
        topics = read_topics(d / "query-text.trec")
    else:
        d = shared_data / "cacm"
        idx = build_index(d / "anserini_cacm_html.tar.gz", tmp_path / name, progress=False)
        topics = read_topics(d / "anserini_topics.cacm.txt")
    an = idx.analyzer
    queries = [an.analyze(t) for _, t in topics][:40]
    read = {None: 0, "1.4": 0}
    for quant in (None, 8):
        for k in (10, 1000):
            for terms in queries:
                ref = retrieve(idx, terms, k, "bm25", "exhaustive", quant)
                st_r = np.zeros(3, np.int64)
                _same(retrieve(idx, terms, k, "bm25", "saat", quant, stats=st_r), ref)
                st_b = np.zeros(3, np.int64)
                got = retrieve(idx, terms, k, "bm25", "saat", quant, rho="1.4", stats=st_b)
                _same(got, banded(idx, ref[0], "1.4"))
                read[None] += int(st_r[0])
                read["1.4"] += int(st_b[0])
    # band safety never needs more postings than rank safety (the same reading, fewer checks)
    assert read["1.4"] <= read[None]
