"""Traversal layer: rank-safe pruning, quantised impacts, band-safe top-k and anytime retrieval
against exhaustive scoring on random small indexes (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from zipf_index import zipf_index

from tiebreak.ranking.bands import band_starts
from tiebreak.retrieval.models import bm25, ql
from tiebreak.retrieval.quantize import Quantizer
from tiebreak.retrieval.traversal import impacts, retrieve

SETTINGS = settings(max_examples=20, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@pytest.fixture(scope="module")
def indexes(tmp_path_factory):
    base = tmp_path_factory.mktemp("prune")
    # small vocabularies and short documents: many exactly tied scores
    return [zipf_index(base / f"i{s}", s, n, v, ml)
            for s, (n, v, ml) in enumerate([(400, 12, 6), (1500, 60, 25), (3000, 200, 40)])]


queries = st.lists(st.integers(0, 199), min_size=1, max_size=6)
models = st.sampled_from([("bm25", {}), ("bm25", {"idf": "lucene"}), ("bm25", {"b": 0.75}),
                          ("ql", {}), ("ql", {"mu": 100.0})])


def _terms(idx, q):
    return [f"t{i % idx.vocab_size}" for i in q]


def _same(a, b):
    assert np.array_equal(a[0], b[0])
    assert np.array_equal(a[1], b[1])


@SETTINGS
@given(which=st.integers(0, 2), q=queries, model=models, k=st.sampled_from([1, 3, 10, 100]))
def test_pruning_equals_exhaustive(indexes, which, q, model, k):
    idx = indexes[which]
    name, kw = model
    terms = _terms(idx, q)
    ref = (bm25 if name == "bm25" else ql)(idx, terms, k, **kw)
    for alg in ("exhaustive", "maxscore", "bmw"):
        _same(retrieve(idx, terms, k, name, alg, **kw), ref)
    # the tie rule is score desc, then docno desc
    names = idx.docnos[ref[0]]
    for i in range(len(ref[1]) - 1):
        assert ref[1][i] > ref[1][i + 1] or (ref[1][i] == ref[1][i + 1]
                                             and names[i] > names[i + 1])


def _brute_quantised(idx, terms, k, name, bits, kind):
    """Brute force: quantise every exact contribution with an independently fitted quantiser,
    sum per document, rank by (score desc, docno desc)."""
    from collections import Counter

    from tiebreak.retrieval.models import bm25_impacts, idf_weights, ql_impacts

    pp = np.asarray(idx.post_ptr)
    pd = np.asarray(idx.post_docid)
    if name == "bm25":
        imp = bm25_impacts(idx)
        x = imp * np.repeat(idf_weights(idx, np.arange(idx.vocab_size)), np.diff(pp))
        prior = None
    else:
        x, prior = ql_impacts(idx)
    qz = Quantizer.fit(x, bits, kind)
    qx = qz(x).astype(np.int64)
    score: dict[int, int] = {}
    cnt = Counter(terms)
    for t, f in cnt.items():
        tid = idx.term_id(t)
        if tid < 0:
            continue
        for j in range(pp[tid], pp[tid + 1]):
            score[int(pd[j])] = score.get(int(pd[j]), 0) + f * int(qx[j])
    if prior is not None:
        nq = sum(f for t, f in cnt.items() if idx.term_id(t) >= 0)
        qp = qz.additive(prior)
        score = {d: s + nq * int(qp[d]) for d, s in score.items()}
    rank = np.asarray(idx.docno_rank)
    ranked = sorted(score, key=lambda d: (-score[d], -int(rank[d])))
    top = ranked[:k]
    return np.array(top, np.int32), np.array([score[d] for d in top], np.float64)


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.integers(0, 1), q=queries, name=st.sampled_from(["bm25", "ql"]),
       bits=st.sampled_from([2, 4, 8]), kind=st.sampled_from(["linear", "geometric"]))
def test_quantize_equals_quantised_exact_impacts(indexes, which, q, name, bits, kind):
    idx = indexes[which]
    terms = _terms(idx, q)
    want = _brute_quantised(idx, terms, 20, name, bits, kind)
    for alg in ("exhaustive", "maxscore", "bmw"):
        _same(retrieve(idx, terms, 20, name, alg, quantize=bits, quantizer=kind), want)


def test_quantizer_values():
    qz = Quantizer(8, "linear", M=10.0)
    assert qz(np.array([10.0, 5.0, 0.0, 1e-9, -10.0])).tolist() == [255, 128, 0, 1, -255]
    g = Quantizer(2, "geometric", M=8.0, lo=0.5)   # 3 codes: 0.5, 2, 8 -> 2**16 * (1/16, 1/4, 1)
    assert g(np.array([8.0, 2.0, 0.5, 0.6])).tolist() == [65536, 16384, 4096, 4096]
    with pytest.raises(ValueError):
        Quantizer(0)
    with pytest.raises(ValueError):
        Quantizer(8, "log")


@SETTINGS
@given(which=st.integers(0, 2), q=queries, model=models, k=st.sampled_from([5, 30, 200]),
       rho=st.sampled_from(["1.1", "1.4", "2", "3/2"]), quant=st.sampled_from([None, 8]),
       method=st.sampled_from(["exact", "interval"]))
def test_rho_every_document_in_its_exact_band(indexes, which, q, model, k, rho, quant, method):
    idx = indexes[which]
    name, kw = model
    terms = _terms(idx, q)
    ref, _ = retrieve(idx, terms, k, name, quantize=quant, **kw)
    d, s = retrieve(idx, terms, k, name, rho=rho, quantize=quant, band_method=method,
                    algorithm="maxscore", **kw)
    n = len(ref)
    g = np.searchsorted(band_starts(rho, n), np.arange(1, n + 1), side="right")
    assert sorted(d.tolist()) == sorted(ref.tolist())
    exact = dict(zip(ref.tolist(), g.tolist()))
    got = dict(zip(d.tolist(), np.rint(1.0 / s).astype(int).tolist()))
    assert got == exact
    # emitted as tied groups, band by band, docno descending inside a band
    names = idx.docnos[d]
    for i in range(n - 1):
        assert s[i] > s[i + 1] or (s[i] == s[i + 1] and names[i] > names[i + 1])


@SETTINGS
@given(which=st.integers(0, 2), q=queries, model=models, quant=st.sampled_from([None, 6]))
def test_budget_infinite_equals_exhaustive_and_small_budget_reads_less(indexes, which, q, model,
                                                                      quant):
    idx = indexes[which]
    name, kw = model
    terms = _terms(idx, q)
    ref = retrieve(idx, terms, 50, name, quantize=quant, **kw)
    _same(retrieve(idx, terms, 50, name, budget=10**12, quantize=quant, **kw), ref)
    stats = np.zeros(2, np.int64)
    retrieve(idx, terms, 50, name, budget=7, quantize=quant, stats=stats, **kw)
    assert stats[0] <= 7


def test_budget_reads_highest_impacts_first(indexes):
    idx = indexes[2]
    terms = ["t3", "t50"]
    key, imp, _ = impacts(idx, "bm25", 8)
    d, s = retrieve(idx, terms, 5, "bm25", budget=1, quantize=8)
    # one posting read: the largest quantised contribution of either term
    best = max(int(imp[j]) for t in terms
               for j in range(idx.post_ptr[idx.term_id(t)], idx.post_ptr[idx.term_id(t) + 1]))
    assert len(d) == 1 and s[0] == best


def test_bad_options(indexes):
    idx = indexes[0]
    with pytest.raises(ValueError, match="algorithm"):
        retrieve(idx, ["t1"], 10, "bm25", "wand")
    with pytest.raises(ValueError, match="bits"):
        retrieve(idx, ["t1"], 10, "bm25", quantize=0)
    with pytest.raises(ValueError, match="rho"):
        retrieve(idx, ["t1"], 10, "bm25", rho="0.5")
    with pytest.raises(ValueError, match="budget"):
        retrieve(idx, ["t1"], 10, "bm25", budget=0)
    with pytest.raises(ValueError, match="model"):
        retrieve(idx, ["t1"], 10, "sdm")
    with pytest.raises(TypeError):
        bm25(idx, ["t1"], 10, algoritm="bmw")
    d, s = bm25(idx, ["t1", "nope"], 10, algorithm="bmw")
    _same((d, s), bm25(idx, ["t1"], 10))


@pytest.mark.parametrize("name,kw", [("bm25", {}), ("bm25", {"idf": "lucene"}), ("ql", {})])
@pytest.mark.parametrize("quant", [None, 8])
def test_retrieve_many_equals_retrieve(indexes, name, kw, quant):
    from tiebreak.retrieval.traversal import retrieve_many

    idx = indexes[2]
    rng = np.random.default_rng(5)
    qs = [[f"t{i}" for i in rng.integers(0, 200, rng.integers(0, 6))] for _ in range(60)]
    qs.append(["nope"])
    for alg in ("exhaustive", "maxscore", "bmw"):
        got = retrieve_many(idx, qs, 20, name, alg, quantize=quant, **kw)
        assert len(got) == len(qs)
        for q, g in zip(qs, got):
            _same(g, retrieve(idx, q, 20, name, "exhaustive", quantize=quant, **kw))
    for q, g in zip(qs, retrieve_many(idx, qs, 20, name, rho="1.4", quantize=quant, **kw)):
        _same(g, retrieve(idx, q, 20, name, rho="1.4", band_method="interval", quantize=quant,
                          **kw))


def test_float_scoring_compiles_one_signature_per_kernel(indexes):
    """The traversal brings every argument of the compiled kernels to one type (float weights
    for float impacts, whatever a model gives): bm25 and ql, one query and a batch, every
    algorithm, compile one float signature of each kernel (a second is seconds of compilation
    in every fresh process)."""
    from tiebreak.retrieval import kernels as K
    from tiebreak.retrieval.traversal import retrieve_many

    imp_arg = {K.run_batch: 3, K.maxscore: 2, K.bmw: 2, K.taat: 2}
    # other tests in this process may have compiled the kernels: count what these calls add
    before = {kernel: set(kernel.signatures) for kernel in imp_arg}
    idx = indexes[0]
    qs = [["t1", "t2", "t2"], ["t3"]]
    for name in ("bm25", "ql"):
        for alg in ("exhaustive", "maxscore", "bmw"):
            retrieve_many(idx, qs, 5, name, alg)
            retrieve(idx, qs[0], 5, name, alg)
    for kernel, i in imp_arg.items():
        new = [s for s in set(kernel.signatures) - before[kernel]
               if str(s[i].dtype) == "float64"]
        assert len(new) <= 1, (kernel.py_func.__name__, new)
        assert any(str(s[i].dtype) == "float64" for s in kernel.signatures)


def test_search_cli_options(indexes, tmp_path):
    from click.testing import CliRunner

    from tiebreak.cli import main

    idx = indexes[1]
    topics = tmp_path / "t.tsv"
    topics.write_text("1\tt1 t7 t30\n2\tt2 t2 t55\n")
    base = ["search", str(idx.path), "--topics", str(topics), "-q", "-k", "50"]
    out = {}
    for name, extra in [("exh", []), ("bmw", ["--algorithm", "bmw"]),
                        ("ms", ["--algorithm", "maxscore", "--model", "bm25"]),
                        ("q8", ["--quantize", "8"]), ("rho", ["--rho", "1.4"]),
                        ("budget", ["--budget", "1000000"])]:
        r = CliRunner().invoke(main, base + extra)
        assert r.exit_code == 0, r.output
        out[name] = r.output
    assert out["bmw"] == out["exh"] == out["ms"] == out["budget"]
    # quantised scores are integers, band scores are 1/g
    assert all(float(x.split()[4]).is_integer() for x in out["q8"].splitlines())
    assert out["rho"].splitlines()[0].split()[4] == "1.0"
    for extra, msg in [(["--rho", "0.5"], "rho"), (["--model", "sdm", "--algorithm", "bmw"],
                                                   "bm25 or ql"),
                       (["--quantize", "0"], "0")]:
        r = CliRunner().invoke(main, base + extra)
        assert r.exit_code == 2 and msg in r.output, r.output


@SETTINGS
@given(which=st.integers(1, 2), q=queries, model=models, k=st.sampled_from([1, 10, 100]),
       quant=st.sampled_from([None, 8]))
def test_starting_threshold_is_reached_by_k_documents(indexes, which, q, model, k, quant):
    from tiebreak.retrieval.traversal import _bounds, _theta0, plan

    idx = indexes[which]
    name, kw = model
    p = plan(idx, name, _terms(idx, q), quant, **kw)
    _, _, tol, *_ = _bounds(idx, p)
    pmin = float(p.prior.min()) if p.has_prior else 0.0
    th0 = _theta0(idx, p.key, p.imp, p.tids, p.w, np.zeros(p.tids.size, np.int64), 1, k, tol,
                  float(p.pw), pmin)[0]
    d, s = retrieve(idx, _terms(idx, q), k, name, quantize=quant, **kw)
    if np.isfinite(th0):
        assert len(s) == k and s[-1] >= th0


def test_block_maxima_cached_next_to_the_index(tmp_path, monkeypatch):
    """Bounds are computed once per parameter setting and stored in the index's generation
    directory: a fresh Index reads them (no recomputation, same results), a corrupt entry is
    recomputed and replaced, another setting gets its own entry."""
    from tiebreak.index import open_index
    from tiebreak.retrieval import kernels as K

    idx = zipf_index(tmp_path / "i", 7, 800, 50, 20)
    q = ["t3", "t5", "t9"]
    want = retrieve(idx, q, 10, "bm25", "bmw")
    cache = idx.data_dir / "derived"
    entries = list(cache.iterdir())
    assert len(entries) == 1 and (entries[0] / "meta.json").is_file()
    real = K.block_max
    calls = []
    monkeypatch.setattr(K, "block_max", lambda *a: calls.append(1) or real(*a))
    fresh = open_index(idx.path)
    _same(retrieve(fresh, q, 10, "bm25", "bmw"), want)
    _same(retrieve(fresh, q, 10, "bm25", "maxscore"), want)
    assert calls == []
    f = entries[0] / "bmax.npy"
    b = bytearray(f.read_bytes())
    b[-1] ^= 1
    f.write_bytes(bytes(b))
    _same(retrieve(open_index(idx.path), q, 10, "bm25", "bmw"), want)
    assert calls == [1]
    _same(retrieve(open_index(idx.path), q, 10, "bm25", "bmw"), want)
    assert calls == [1]          # the corrupt entry was replaced
    retrieve(fresh, q, 10, "bm25", "bmw", b=0.75)
    assert len(list(cache.iterdir())) == 2


def test_k_beyond_the_collection(indexes):
    """k far above the number of documents returns every candidate, in every algorithm and in
    batches (nothing is allocated per k: a batch holds at most the collection per query)."""
    from tiebreak.retrieval.traversal import retrieve_many

    idx = indexes[0]
    qs = [["t1", "t2"], ["t3"], ["nope"], ["t0", "t5", "t5"]]
    for name in ("bm25", "ql"):
        ref = [(bm25 if name == "bm25" else ql)(idx, q, idx.num_docs) for q in qs]
        assert sum(len(d) for d, _ in ref) > idx.num_docs // 2
        for alg in ("exhaustive", "maxscore", "bmw"):
            for got, want in zip(retrieve_many(idx, qs, 10**12, name, alg), ref):
                _same(got, want)
            for q, want in zip(qs, ref):
                _same(retrieve(idx, q, 10**12, name, alg), want)


def test_search_of_a_few_topics_runs_per_topic_with_the_batched_results(indexes):
    """tiebreak search of a handful of bm25 topics whose terms hold a small part of the index
    takes one model call per topic (no whole-index impacts); the run is the batched one."""
    from tiebreak.index import open_index
    from tiebreak.retrieval import search as S
    from tiebreak.retrieval.traversal import retrieve_many

    idx = open_index(indexes[2].path)
    tops = [("1", "t150 t170 t199"), ("2", "t120 nope")]
    from tiebreak.retrieval.onequery import worth_it as few
    an = idx.analyzer.analyze
    assert few(idx, "bm25", {}, tops, an)
    assert not few(idx, "bm25", {"algorithm": "maxscore"}, tops, an)
    assert not few(idx, "bm25", {}, [("1", " ".join(f"t{i}" for i in range(40)))], an)
    few = S.search(idx, tops, "bm25", 50, idf="lucene")
    assert not [c for c in idx._cache if isinstance(c, tuple) and c[0] == "full-bm25"]
    fresh = open_index(idx.path)
    terms = [idx.analyzer.analyze(t) for _, t in tops]
    for r, (d, s) in zip(few, retrieve_many(fresh, terms, 50, "bm25", idf="lucene")):
        _same((r.docids, r.scores), (d, s))


@pytest.mark.parametrize("kw", [{"idf": "lucene"}, {"idf": "rsj"}, {"b": 0.75}])
@pytest.mark.parametrize("quant", [None, 3])
def test_exhaustive_with_a_starting_threshold(indexes, tmp_path, kw, quant):
    """Exhaustive top-k that takes each document's sum at its first posting and keeps those
    reaching the starting threshold (kernels.taat with theta0 > 0) returns the prefix of the
    full ranking by (score desc, docno desc): negative weights (rsj idf), coarse quantised
    impacts with long runs of ties, every document duplicated (all scores tied in pairs)."""
    from tiebreak.retrieval.traversal import _bounds, _theta0, plan, retrieve_many

    dup = zipf_index(tmp_path / "dup", 11, 600, 40, 12, dup=True)
    rng = np.random.default_rng(3)
    used = 0
    for idx in (indexes[1], indexes[2], dup):
        qs = [[f"t{i}" for i in rng.integers(0, idx.vocab_size, rng.integers(1, 6))]
              for _ in range(25)]
        for k in (1, 10, 64, 100, 1000):
            got = retrieve_many(idx, qs, k, "bm25", quantize=quant, **kw)
            for q, g in zip(qs, got):
                full = retrieve(idx, q, idx.num_docs, "bm25", "maxscore", quantize=quant, **kw)
                _same(g, (full[0][:k], full[1][:k]))
                _same(retrieve(idx, q, k, "bm25", quantize=quant, **kw), g)
                if quant is None:
                    _same(g, bm25(idx, q, k, **kw))
                p = plan(idx, "bm25", q, quant, **kw)
                tol = _bounds(idx, p)[2]
                th0 = _theta0(idx, p.key, p.imp, p.tids, p.w, np.zeros(p.tids.size, np.int64),
                              1, k, tol, 0.0, 0.0)[0]
                used += th0 > 0
    assert used > 50          # the threshold path ran


def test_taat_touched_needs_a_spare_slot(tmp_path):
    """Exhaustive TAAT writes each posting's document to the next slot of ``touched`` before it
    knows the document is new: with every document touched and one of them met again, that is
    slot N. The index's scratch has N + 1 slots; a kernel given only N refuses (an out-of-bounds
    write here once corrupted the heap of the test process)."""
    import json

    from tiebreak.index import build_index
    from tiebreak.index.analysis import Analyzer
    from tiebreak.retrieval import kernels as K
    from tiebreak.retrieval.search import search

    docs = [("b", "x y"), ("e", "x y"), ("a", "x y"), ("d", "x y"), ("c", "x y"), ("f", "x z")]
    src = tmp_path / "c.jsonl"
    src.write_text("".join(json.dumps({"docno": n, "text": t}) + "\n" for n, t in docs))
    idx = build_index(src, tmp_path / "i", analyzer=Analyzer(stemmer="none", stopwords="none"),
                      progress=False)
    for k in (1, 4, 6):     # the 5 tied documents in docno-descending order, then f
        assert idx.docnos[search(idx, [("q", "x y")], "bm25", k)[0].docids].tolist() == \
            ["e", "d", "c", "b", "a", "f"][:k]
    n = 6
    # the argument types of tiebreak.retrieval.topk.run_plan (a read-only memory-mapped
    # post_ptr and docno_rank), so that no second signature of the kernels is compiled
    pp = np.array([0, 6, 11], np.int64)
    rank = np.arange(n, dtype=np.int32)
    pp.flags.writeable = rank.flags.writeable = False
    pd = np.r_[np.arange(6), np.arange(5)].astype(np.int32)
    imp = np.ones(11)
    args = (pp, pd, imp, np.array([0, 1]), np.ones(2), np.zeros(0), 0.0, False, np.zeros(n),
            np.zeros(n, np.bool_))
    with pytest.raises(ValueError, match="one slot more"):
        K.taat(*args, np.empty(n, np.int32), rank, 2, np.zeros(2, np.int64), -np.inf,
               np.empty(n + 1))
    d, s = K.taat(*args, np.empty(n + 1, np.int32), rank, 2, np.zeros(2, np.int64), -np.inf,
                  np.empty(n + 1))
    assert s.tolist() == [2.0, 2.0] and d.tolist() == [4, 3]
    # with a starting threshold the collection is branch-free too: its score scratch needs
    # N + 1 slots as well
    with pytest.raises(ValueError, match="cs needs one slot more"):
        K.taat(*args, np.empty(n + 1, np.int32), rank, 2, np.zeros(2, np.int64), 0.5,
               np.empty(n))
    d, s = K.taat(*args, np.empty(n + 1, np.int32), rank, 2, np.zeros(2, np.int64), 0.5,
                  np.empty(n + 1))
    assert s.tolist() == [2.0, 2.0] and d.tolist() == [4, 3]


def test_distinct_query_terms_of_a_batch():
    """The batch's per-query distinct term ids (first-occurrence order) and query term
    frequencies, unknown terms (-1) dropped, against a dictionary per query -- short queries
    (linear scan) and long ones (> 32 terms, grouped after a sort)."""
    from tiebreak.retrieval import kernels as K

    rng = np.random.default_rng(7)
    for _ in range(200):
        lens = rng.integers(0, 80, rng.integers(1, 6)).astype(np.int64)
        tids = rng.integers(-1, rng.integers(1, 40), int(lens.sum())).astype(np.int64)
        ptr, out, cnt = [0], [], []
        a = 0
        for n in lens:
            seen = {}
            for t in tids[a:a + n].tolist():
                if t >= 0:
                    seen[t] = seen.get(t, 0) + 1
            out += list(seen)
            cnt += list(seen.values())
            ptr.append(len(out))
            a += n
        g = K.distinct_terms(lens, tids)
        assert g[0].tolist() == ptr and g[1].tolist() == out and g[2].tolist() == cnt


def test_two_term_exhaustive_reads_the_longer_list_once(indexes):
    """Of a two-term query the longer list completes the sums (a + b == b + a exactly), in
    either query order: bit-identical to MaxScore and the per-query kernel."""
    from tiebreak.retrieval.traversal import retrieve_many

    idx = indexes[2]
    df = np.diff(idx.post_ptr)
    long_t, short_t = f"t{int(np.argmax(df))}", f"t{int(np.argsort(df)[-5])}"
    qs = [[long_t, short_t], [short_t, long_t]]
    for kw in ({"idf": "lucene"}, {"idf": "rsj"}):
        for k in (1, 10, 100):
            got = retrieve_many(idx, qs, k, "bm25", **kw)
            for q, g in zip(qs, got):
                _same(g, retrieve(idx, q, k, "bm25", "maxscore", **kw))
                _same(g, bm25(idx, q, k, **kw))


def test_auto_algorithm_rule_and_results(indexes):
    """``auto`` (retrieve_many's and ``tiebreak search``'s default) is MaxScore for a float
    bm25/vsm top k up to AUTO_MAXSCORE_K and exhaustive otherwise (the rule fitted in
    benchmarks/bench_pruning.py), and returns exhaustive's documents, scores and order."""
    from tiebreak.retrieval.topk import AUTO_MAXSCORE_K, auto_algorithm
    from tiebreak.retrieval.traversal import retrieve_many

    assert auto_algorithm(1, "bm25") == "maxscore"
    assert auto_algorithm(AUTO_MAXSCORE_K, "vsm") == "maxscore"
    assert auto_algorithm(AUTO_MAXSCORE_K + 1, "bm25") == "exhaustive"
    assert auto_algorithm(10, "ql") == "exhaustive"          # a prior: not measured
    assert auto_algorithm(10, "bm25", quantize=8) == "exhaustive"
    idx = indexes[2]
    rng = np.random.default_rng(11)
    qs = [[f"t{i}" for i in rng.integers(0, 200, rng.integers(1, 6))] for _ in range(40)]
    for k in (1, AUTO_MAXSCORE_K, AUTO_MAXSCORE_K + 1):
        for name in ("bm25", "ql"):
            st_auto, st_exh = np.zeros(2, np.int64), np.zeros(2, np.int64)
            got = retrieve_many(idx, qs, k, name, stats=st_auto)
            ref = retrieve_many(idx, qs, k, name, "exhaustive", stats=st_exh)
            for g, r in zip(got, ref):
                _same(g, r)
            if auto_algorithm(k, name) == "maxscore":
                assert st_auto[0] < st_exh[0]        # pruned: fewer postings scored
            else:
                assert st_auto[0] == st_exh[0]
            _same(retrieve(idx, qs[0], k, name, "auto"), ref[0])
