"""Search over a sharded index (tiebreak.retrieval.sharded) equals search over one index of the
same source bit for bit -- documents, scores and order -- for every model `tiebreak search`
offers: on Vaswani, on random small collections (hypothesis), and through the CLI."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tiebreak.cli import main
from tiebreak.cli.search import MODEL_NAMES
from tiebreak.index import Analyzer, build_index
from tiebreak.index.readers import read_topics
from tiebreak.index.shards import build_sharded_index
from tiebreak.retrieval.search import format_run, search
from tiebreak.retrieval.sharded import merge_topk, search_sharded

VASWANI = "vaswani/doc-text.trec.gz"
VASWANI_TOPICS = "vaswani/query-text.trec"


def assert_same(single, sharded):
    assert [r.qid for r in single] == [r.qid for r in sharded]
    for a, b in zip(single, sharded):
        assert a.docids.dtype == b.docids.dtype == np.int32
        np.testing.assert_array_equal(a.docids, b.docids, err_msg=f"topic {a.qid}")
        # bit for bit: compare the float64 bit patterns, not values within a tolerance
        np.testing.assert_array_equal(a.scores.view(np.int64), b.scores.view(np.int64),
                                      err_msg=f"topic {a.qid}")
        assert a.note == b.note


# models without defaults for some parameters: weights that use the collection features (cf, df),
# so that a shard scored with its own counts would differ
REQUIRED = {m: {"uni": (0.8, 0.02, 0.01), "bi": (0.1, 0.01, 0.005)} for m in ("wsdm", "wfdm")}
# models whose collection-wide window or pair counts the sharded search does not gather (yet)
NOT_SHARDED = {"wsdm", "wfdm", "sdm-seg", "fdm-seg", "bm25p", "he-window", "fagan"}


@pytest.fixture(scope="module")
def vaswani(shared_data, tmp_path_factory):
    d = tmp_path_factory.mktemp("vaswani")
    src = shared_data / VASWANI
    single = build_index(src, d / "one", progress=False)
    sharded = build_sharded_index(src, d / "sh", 3, jobs=2, progress=False)
    topics = read_topics(shared_data / VASWANI_TOPICS)
    return single, sharded, topics, d


@pytest.mark.slow
@pytest.mark.parametrize("model", MODEL_NAMES)
def test_vaswani_every_model_bit_identical(vaswani, model):
    single, sharded, topics, _ = vaswani
    # long topics: the proximity models' default term caps apply alike; 40 topics keep it fast
    tops = topics if model in ("bm25", "ql") else topics[:25]
    k = 1000 if model in ("bm25", "ql") else 100
    jobs = 2 if model in ("bm25", "sdm") else 1     # shards searched in 2 processes, or here
    params = REQUIRED.get(model, {})
    if model in NOT_SHARDED:    # refused with an error that says to search the unsharded index
        with pytest.raises(ValueError, match="search the unsharded index"):
            search_sharded(sharded, tops, model, k, jobs=jobs, **params)
        return
    assert_same(search(single, tops, model, k, **params),
                search_sharded(sharded, tops, model, k, jobs=jobs, **params))


def test_local_statistics_would_differ(vaswani):
    """The check has teeth: a shard scored with its own statistics (opened as a plain index)
    gives other scores than the same documents in one index."""
    from tiebreak.index import open_index

    single, sharded, topics, _ = vaswani
    plain = open_index(sharded.shards[1].path)
    assert getattr(plain, "global_stats", None) is None
    off = int(sharded.offsets[1])
    for model in ("bm25", "ql", "sdm", "lkp"):
        a = search(single, topics[:5], model, 20000)
        b = search(plain, topics[:5], model, 20000)
        one = {int(d): s for r in a for d, s in zip(r.docids, r.scores) if r.qid == a[0].qid}
        loc = {int(d) + off: s for d, s in zip(b[0].docids, b[0].scores)}
        assert loc and all(one[d] != s for d, s in loc.items()), model


@pytest.mark.parametrize("params", [
    {"idf": "rsj"}, {"idf": "rw", "k1": 1.2, "b": 0.75}, {"doclen": "lucene"},
    {"algorithm": "maxscore"}, {"algorithm": "bmw", "idf": "rsj"},
])
def test_vaswani_bm25_variants(vaswani, params):
    single, sharded, topics, _ = vaswani
    assert_same(search(single, topics, "bm25", 100, **params),
                search_sharded(sharded, topics, "bm25", 100, **params))


def test_vaswani_ql_bmw_and_params(vaswani):
    single, sharded, topics, _ = vaswani
    for params in ({"mu": 500.0}, {"algorithm": "bmw"}):
        assert_same(search(single, topics, "ql", 100, **params),
                    search_sharded(sharded, topics, "ql", 100, **params))
    for model, params in (("sdm", {"weights": (0.7, 0.2, 0.1), "window": 4}),
                          ("lkp", {"lam": 0.2, "max_prox_terms": 4})):
        assert_same(search(single, topics[:20], model, 50, **params),
                    search_sharded(sharded, topics[:20], model, 50, **params))


def test_refuses_options_fitted_to_one_index(vaswani):
    _, sharded, topics, _ = vaswani
    for params in ({"quantize": 8}, {"rho": "1.4"}, {"budget": 100}):
        with pytest.raises(ValueError, match="not available on a sharded index"):
            search_sharded(sharded, topics[:1], "bm25", 10, **params)


def test_cli_search_sharded_equals_single(vaswani, shared_data):
    _, _, _, d = vaswani
    runs = []
    for idx in ("one", "sh"):
        r = CliRunner().invoke(main, ["search", str(d / idx), "--topics",
                                      str(shared_data / VASWANI_TOPICS), "--model", "ql",
                                      "-k", "50", "-q"])
        assert r.exit_code == 0, r.output
        runs.append(r.stdout)
    assert runs[0] == runs[1] and runs[0].count("\n") == 93 * 50
    r = CliRunner().invoke(main, ["search", str(d / "sh"), "--topics",
                                  str(shared_data / VASWANI_TOPICS), "--rerank", "lkp"])
    assert r.exit_code == 2 and "not available on a sharded index" in r.output


def test_merge_rule_ties_across_shards(tmp_path):
    """Equal scores in different shards fall in docno-descending order, and a cut inside the
    tie group keeps the docnos that one index keeps."""
    docs = [("b", "x y"), ("e", "x y"), ("a", "x y"), ("d", "x y"), ("c", "x y"), ("f", "x z")]
    src = tmp_path / "c.jsonl"
    src.write_text("".join(json.dumps({"docno": n, "text": t}) + "\n" for n, t in docs))
    an = Analyzer(stemmer="none", stopwords="none")
    one = build_index(src, tmp_path / "one", analyzer=an, progress=False)
    sh = build_sharded_index(src, tmp_path / "sh", 3, analyzer=an, progress=False)
    for k in (1, 2, 3, 4, 6):
        a = search(one, [("q", "x y")], "bm25", k)
        b = search_sharded(sh, [("q", "x y")], "bm25", k)
        assert_same(a, b)
    names = sh.docnos[b[0].docids].tolist()
    assert names == ["e", "d", "c", "b", "a", "f"]     # 5 tied, docno descending, then f
    # merge_topk on its own: score descending, then docno descending
    d, s = merge_topk([(np.array([1, 0]), np.array([2.0, 1.0]), np.array([2, 0])),
                       (np.array([5]), np.array([1.0]), np.array([1]))], 2)
    assert d.tolist() == [1, 5] and s.tolist() == [2.0, 1.0]


@given(st.lists(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 10**6)), max_size=8),
                min_size=1, max_size=4), st.integers(1, 12))
def test_merge_topk_equals_a_sort_of_the_union(lists, k):
    """The merge = the first k of the union sorted by (score desc, docno rank desc)."""
    seen, parts, allp = set(), [], []
    for lst in lists:
        items = [(float(sc), r) for sc, r in lst if r not in seen and not seen.add(r)]
        items.sort(key=lambda x: (-x[0], -x[1]))
        parts.append((np.array([r + 7 for _, r in items], np.int64),
                      np.array([x for x, _ in items], np.float64),
                      np.array([r for _, r in items], np.int64)))
        allp += items
    allp.sort(key=lambda x: (-x[0], -x[1]))
    d, s = merge_topk(parts, k)
    assert d.tolist() == [r + 7 for _, r in allp[:k]]
    assert s.tolist() == [x for x, _ in allp[:k]]


WORDS = ["ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen", "ibis", "jay"]


@st.composite
def collections(draw):
    n = draw(st.integers(2, 14))
    docs = [(f"D{draw(st.integers(0, 10**6))}-{i}",
             " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=0, max_size=12))))
            for i in range(n)]
    shards = draw(st.integers(1, n))
    queries = [(str(i), " ".join(draw(st.lists(st.sampled_from(WORDS + ["zebra"]), min_size=1,
                                               max_size=5))))
               for i in range(draw(st.integers(1, 4)))]
    return docs, shards, queries


@pytest.mark.slow
@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(collections(), st.integers(1, 8), st.floats(0.1, 3.0), st.floats(0.0, 1.0),
       st.floats(1.0, 5000.0))
def test_random_collections_every_model(coll, k, k1, b, mu):
    docs, shards, queries = coll
    an = Analyzer(stemmer="none", stopwords="none")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "c.jsonl"
        src.write_text("".join(json.dumps({"docno": d, "text": t}) + "\n" for d, t in docs))
        one = build_index(src, Path(tmp) / "one", analyzer=an, progress=False)
        sh = build_sharded_index(src, Path(tmp) / "sh", shards, analyzer=an, progress=False)
        for model in [m for m in MODEL_NAMES if m not in NOT_SHARDED]:
            params = {"bm25": {"k1": k1, "b": b}, "ql": {"mu": mu}, **REQUIRED}.get(model, {})
            a = search(one, queries, model, k, **params)
            s = search_sharded(sh, queries, model, k, **params)
            assert_same(a, s)
            assert format_run(one, a, model) == format_run(sh, s, model)
