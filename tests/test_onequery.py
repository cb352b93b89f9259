"""A handful of bm25/ql topics scored in numpy (tiebreak.retrieval.onequery): the compiled
models' documents, scores and tie order bit for bit, the query terms' blocks decoded in numpy
as the numba codec decodes them, and no numba import in a one-query search process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tiebreak.index import Analyzer, build_index, open_index
from tiebreak.index.build import build_index_from_tokens
from tiebreak.index.readers import read_topics
from tiebreak.index.testcollections import COLLECTIONS
from tiebreak.retrieval import onequery
from tiebreak.retrieval.search import format_run, search

SRC = str(Path(__file__).resolve().parents[1] / "src")


@pytest.fixture(scope="module")
def cacm(shared_data, tmp_path_factory):
    c = COLLECTIONS["cacm"]
    path = tmp_path_factory.mktemp("oq") / "cacm"
    build_index(c.docs_source(shared_data), path, fields=c.fields, progress=False)
    return path, read_topics(c.topics_source(shared_data))


@pytest.fixture(scope="module")
def tied(tmp_path_factory):
    """Short documents over 8 terms (most scores tied), docnos shuffled against docids."""
    rng = np.random.default_rng(7)
    n, v = 700, 8
    lens = rng.integers(1, 4, n)
    flat = rng.integers(0, v, int(lens.sum())).astype(np.int32)
    ptr = np.concatenate([[0], np.cumsum(lens)])
    path = tmp_path_factory.mktemp("oq") / "tied"
    build_index_from_tokens(path, [f"D{x}" for x in rng.permutation(n)], flat, ptr,
                            [f"t{i}" for i in range(v)], Analyzer("none", "none"))
    return path


MODELS = [("bm25", {}), ("bm25", {"k1": 1.2, "b": 0.75, "idf": "rsj"}),
          ("bm25", {"idf": "rw", "doclen": "lucene"}), ("ql", {}), ("ql", {"mu": 100.0})]


def _compiled(idx, terms, k, model, params):
    from tiebreak.retrieval.models import bm25, ql

    return (bm25 if model == "bm25" else ql)(idx, terms, k, **params)


@pytest.mark.parametrize("model,params", MODELS)
def test_scores_and_order_are_the_compiled_models(cacm, model, params):
    path, topics = cacm
    idx, ref = open_index(path), open_index(path)
    queries = [idx.analyzer.analyze(t) for _, t in topics[:25]]
    queries += [["comput", "comput", "algorithm"], ["zzzunknown"], [], ["zzzunknown", "languag"]]
    ties = 0
    for q in queries:
        for k in (1, 7, 100, 1000, 10**6):
            d, s = onequery.score(idx, q, k, model, **params)
            rd, rs = _compiled(ref, q, k, model, params)
            assert d.dtype == np.int32 and s.dtype == np.float64
            assert np.array_equal(d, rd), (q, k)
            assert np.array_equal(s, rs), (q, k)       # bit for bit
            ties += int(np.sum(rs[1:] == rs[:-1]))
    assert ties > 100      # the order among equal scores was exercised


@pytest.mark.parametrize("model,params", MODELS)
def test_ties_at_the_cut(tied, model, params):
    idx, ref = open_index(tied), open_index(tied)
    for q in (["t0"], ["t1", "t2"], ["t3", "t3", "t5"], ["t0", "t1", "t2", "t3"]):
        for k in (1, 2, 5, 50, 333, 699, 700, 5000):
            got = onequery.score(idx, q, k, model, **params)
            want = _compiled(ref, q, k, model, params)
            assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
            if k < len(want[1]):     # the cut falls inside a group of equal scores
                assert want[1][k - 1] == onequery.score(idx, q, k + 1, model, **params)[1][k]


def test_search_routes_few_topics_and_writes_the_same_run(cacm):
    path, topics = cacm
    idx = open_index(path)
    few = topics[:3] + [("x1", "zzzunknown"), ("x2", "the of and")]
    analyze = idx.analyzer.analyze
    assert onequery.worth_it(idx, "bm25", {}, few, analyze)
    assert onequery.worth_it(idx, "ql", {"smoothing": "dirichlet"}, few, analyze)
    assert not onequery.worth_it(idx, "ql", {"smoothing": "jm"}, few, analyze)
    assert not onequery.worth_it(idx, "bm25", {"algorithm": "maxscore"}, few, analyze)
    assert not onequery.worth_it(idx, "vsm", {}, few, analyze)
    assert not onequery.worth_it(idx, "bm25", {}, topics[:65], analyze)
    common = [("c", " ".join(idx.terms[np.argsort(-np.asarray(idx.df))[:60]].tolist()))]
    assert not onequery.worth_it(idx, "bm25", {}, common, analyze)
    for model in ("bm25", "ql", "lmds"):
        got = search(idx, few, model, 50)
        assert not [c for c in idx._cache if isinstance(c, tuple) and c[0] == "flat"] \
            and "flat" not in idx._cache          # nothing decoded the whole index
        ref = open_index(path)
        name = "ql" if model == "lmds" else model
        want = [(_compiled(ref, analyze(t), 50, name, {})) for _, t in few]
        assert format_run(idx, got, "t") == format_run(
            ref, [type(r)(r.qid, d, s, r.note) for r, (d, s) in zip(got, want)], "t")
        assert [r.note != "" for r in got] == [False, False, False, True, True]


@pytest.mark.slow
def test_term_decode_equals_the_numba_codec(cacm):
    from tiebreak.index import codec, unpack

    idx = open_index(cacm[0])
    pp = np.asarray(idx.post_ptr)
    blk, off, data = (np.asarray(idx.blk_last), np.asarray(idx.post_off),
                      np.asarray(idx.post_bytes))
    tb = unpack.term_blocks(pp, idx.block_size)
    assert np.array_equal(tb, codec.term_blocks(pp, idx.block_size))
    for t in range(idx.vocab_size):
        d, f, bad, code = unpack.decode_term(pp, blk, off, data, idx.block_size, idx.num_docs,
                                             t, int(tb[t]))
        assert (bad, code) == (-1, 0)
        a, b = pp[t], pp[t + 1]
        assert np.array_equal(d, idx.post_docid[a:b]) and np.array_equal(f, idx.post_tf[a:b])
    # corrupted bytes and skip data: the same first bad block and code as the numba decoder
    rng = np.random.default_rng(3)
    big = np.argsort(-np.diff(pp))[:40]
    seen = set()
    for trial in range(300):
        t = int(big[trial % big.size])
        bd, bb, bo = blk.copy(), data.copy(), off.copy()
        lo, hi = int(off[tb[t]]), int(off[tb[t + 1]])
        if trial % 5 == 3:
            bo[int(rng.integers(tb[t], tb[t + 1] + 1))] += int(rng.integers(-2, 3))
        elif trial % 5 == 4:
            g = int(rng.integers(tb[t], tb[t + 1]))
            bd[g] += int(rng.integers(-3, 4))
        else:
            for _ in range(int(rng.integers(1, 3))):
                bb[int(rng.integers(lo, hi))] = int(rng.integers(0, 256))
        n = int(pp[t + 1] - pp[t])
        od, of = np.empty(n, np.int32), np.empty(n, np.int32)
        want = codec.decode_terms(pp, bd, bo, bb, idx.block_size, idx.num_docs, t, t + 1,
                                  int(tb[t]), od, of, 0)
        d, f, bad, code = unpack.decode_term(pp, bd, bo, bb, idx.block_size, idx.num_docs,
                                             t, int(tb[t]))
        if want[0] < 0:
            assert bad == -1 and np.array_equal(d, od) and np.array_equal(f, of)
        else:
            assert (bad, code) == tuple(want)
            seen.add(code)
    assert {2, 3, 5} <= seen


def test_invariant_checks_in_numpy():
    from tiebreak.index.invariants import check_perm, check_ptr, min_sum

    assert check_ptr(np.array([0, 2, 2, 5]), 5) == -1
    assert check_ptr(np.array([1, 2]), 2) == 0
    assert check_ptr(np.array([0, 3, 2, 5]), 5) == 2
    assert check_ptr(np.array([0, 3, 4]), 5) == 2
    assert check_ptr(np.array([], np.int64), 0) == 0
    assert check_perm(np.array([2, 0, 1])) == -1
    assert check_perm(np.array([2, 0, 2, 1])) == 2
    assert check_perm(np.array([1, 1, 7, 0])) == 1
    assert check_perm(np.array([0, 7, 1, 1])) == 1
    assert check_perm(np.array([0, 2, 1, 2, -1])) == 3
    assert min_sum(np.array([3, -1, 4], np.int32)) == (-1, 6)
    assert min_sum(np.array([], np.int32)) == (0, 0)


def test_one_query_search_process_imports_no_numba(cacm, tmp_path):
    path, _ = cacm
    q = tmp_path / "q.tsv"
    q.write_text("7\tcomputer algorithms for sorting\n")
    code = ("import sys\nfrom tiebreak.cli import main\n"
            f"main.main(['search', {str(path)!r}, '--topics', {str(q)!r}, '-q'], "
            "standalone_mode=False)\n"
            "sys.stdout.flush()\nsys.stderr.write('numba=%s' % ('numba' in sys.modules))\n")
    env = dict(os.environ, PYTHONPATH=SRC)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip().endswith("numba=False"), p.stderr
    idx = open_index(path)
    d, s = _compiled(idx, idx.analyzer.analyze("computer algorithms for sorting"), 1000,
                     "bm25", {})
    lines = p.stdout.splitlines()
    assert len(lines) == len(d) > 100
    assert lines[0] == f"7 Q0 {idx.docnos[d[0]]} 1 {float(s[0])!r} bm25"


def test_a_long_running_process_goes_over_to_the_compiled_path(cacm, monkeypatch):
    idx = open_index(cacm[0])
    monkeypatch.setattr(onequery, "BUDGET", 5)
    tops = [("1", "sorting algorithms")]
    analyze = idx.analyzer.analyze
    seen = []
    for _ in range(7):
        seen.append(onequery.worth_it(idx, "bm25", {}, tops, analyze))
        search(idx, tops, "bm25", 10)
    assert seen == [True] * 5 + [False] * 2
    assert "flat" in idx._cache          # the compiled path decoded the index


def test_term_ids_by_binary_search_equal_the_vocabulary_dict(cacm):
    idx, ref = open_index(cacm[0]), open_index(cacm[0])
    ref._vocab()
    words = idx.terms.tolist()[::7] + ["", "zzzz", "a" * 40, idx.terms[0] + "x",
                                       idx.terms[-1] + "z", "\u00e9t\u00e9"]
    for w in words[:200]:
        assert idx.term_id(w) == ref.term_id(w)
    assert "vocab" not in idx._cache            # 200 lookups: no dict built
    assert [idx.term_id(w) for w in words] == [ref.term_id(w) for w in words]
    assert "vocab" in idx._cache


@pytest.mark.parametrize("model,params", MODELS)
def test_a_shard_with_the_collection_statistics(tmp_path, model, params):
    """A shard scores with the whole collection's statistics and holds vocabulary terms
    without postings: the same documents and scores as the compiled models there too."""
    import json

    from tiebreak.index.shards import build_sharded_index

    rng = np.random.default_rng(11)
    words = [f"w{i}" for i in range(30)]
    docs = [{"docno": f"d{i:03d}", "text": " ".join(rng.choice(words[:10] if i < 40 else words, 5))}
            for i in range(120)]
    src = tmp_path / "c.jsonl"
    src.write_text("".join(json.dumps(d) + "\n" for d in docs))
    sidx = build_sharded_index(src, tmp_path / "sh", 3, progress=False)
    for sh in sidx.shards:
        for q in (["w1", "w25"], ["w29"], ["w3", "w3", "w28", "nope"], ["w20", "w20"]):
            got = onequery.score(sh, q, 20, model, **params)
            want = _compiled(sh, q, 20, model, params)
            assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    assert sidx.shards[0].df[sidx.shards[0].term_id("w29")] == 0
