"""Benchmark: cost per document scored (µs/doc) of the retrieval models, after Lu (2018) Table 4.8.

Method (Table 4.8's): for each query, time the whole model call (top 1,000), divide by the
number of documents scored = the union of the query terms' postings lists (exhaustive OR);
report the median, mean and maximum over queries, and the ratio of medians to BM25^(2)'s.
Models: BM25 with the BM25^(2) settings (idf=rw, k1=0.9, b=0.3; the thesis's baseline, row
"bm25"), LMDS, and every other model of the registry (``tiebreak models``) at its defaults
(``bm25-lucene``: the registered bm25 defaults); then the same per query length 2..5 (Fig.
4.8). Each model is called once on every query before timing (JIT warm-up); each query is
then timed ``--repeat`` times and the best is kept (:mod:`tiebreak.retrieval.cost`). The
machine is shared: report ``uptime``'s load with the numbers.

Query sets (on Vaswani by default; ``--collection cranfield`` also works):

* ``short``: title-like queries -- topic i's first 2 + (i mod 4) distinct analysed terms
  (lengths 2-5, like the thesis's title queries);
* ``long``: the full topics with 6..``--long-max`` distinct terms, for FDM and Lkp (cost grows
  with 2^k), reported per query length.

Two-stage mode (:mod:`tiebreak.retrieval.rerank`): BM25^(2) top max(K, 1000), Lkp on the top
K, the rest with the BM25 part of Eq. 4.3 (``tail=True``). Reported per K (``--rerank-k``) on
the natural-length topics: the query time against BM25^(2)'s, measured two ways --
"interleaved" (per query every function runs ``--repeat`` times in a random order, best kept)
and "passes" (the whole topic set as one pass, best of ``--repeat``) -- and MAP against full
Lkp, with and without the tail. ``--map-sweep`` adds MAP per K on every classic collection;
``--synthetic-docs N`` the timing on a synthetic Zipf collection of N documents (where K is
small against the candidates); ``--skip-models`` skips the Table 4.8 costs and the start-up.
Then the early stop: output depth 10 from K = 100 (proximity in decreasing upper-bound order,
stopped once the 10th score is above the next bound), and at the end every cost target of
issue 25 (SDM <= 1.5x, FDM <= 2x, Lkp <= 1.3x per document, two-stage K = 100 <= 1.3x query
time) with its ratio in this run and met / NOT met.

``--pruning`` instead compares, on the classic collections (and a synthetic one with
``--synthetic-docs``), the rank-safe pruned SDM, FDM and Lkp (``algorithm="bounds"``,
:mod:`tiebreak.retrieval.dependency.pruned`) with exhaustive scoring and with the two-stage
rerank of the first pass's top 1000, at depths 10 and 1000: ms per query, speed-ups, the share
of multi-term candidates skipped and the bit-identity of the rankings.

Also reports numba start-up: a fresh interpreter's import of tiebreak.retrieval.dependency and
its first Lkp call (machine code loaded from the on-disk cache) against a warm call, and the same
with an empty cache directory (full compile).

Usage::

    python benchmarks/bench_models.py [--collection vaswani] [--repeat 3] [--long-max 10]
    python benchmarks/bench_models.py --skip-models --repeat 7 --map-sweep --synthetic-docs 1000000

The ir_datasets files are read from a temporary copy of ../shared/data/ir_datasets_home.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared" / "data"
THESIS = {  # Table 4.8, TB04-06 medians (µs/doc)
    "bm25": 0.44,
    "lmds": 0.85,
    "bctp": 0.60,
    "l2p": 0.47,
    "lkp": 0.80,
    "sdm": 2.37,
    "fdm": 3.76,
}


#: issue 25's cost targets: (what, limit as a ratio to BM25^(2))
LIMITS = {
    "sdm": ("SDM µs/doc (median) / BM25^(2)", 1.5),
    "fdm": ("FDM µs/doc (median) / BM25^(2)", 2.0),
    "lkp": ("Lkp µs/doc (median) / BM25^(2)", 1.3),
    "rerank100": ("two-stage Lkp, K = 100, query time / BM25^(2) (interleaved)", 1.3),
}
#: (target key, where, ratio) measured in this run
MEASURED: list[tuple[str, str, float]] = []


def print_targets():
    """Every target with its ratio and met / not met (the lead re-measures on a quiet machine:
    the ratios move with the load, which is printed beside them)."""
    print(f"\ncost targets (issue 25); load average now: {os.getloadavg()[0]:.2f}")
    print(f"{'target':62} {'where':18} {'ratio':>6} {'limit':>6}  verdict")
    for key, where, r in MEASURED:
        what, lim = LIMITS[key]
        print(f"{what:62} {where:18} {r:6.2f} {lim:6.2f}  {'met' if r <= lim else 'NOT met'}")


def setup(collection: str, workdir: Path):
    home = workdir / "irds"
    shutil.copytree(SHARED / "ir_datasets_home", home)
    os.environ["IR_DATASETS_HOME"] = str(home)
    from tiebreak.index import build_index
    from tiebreak.index.readers import read_topics

    t = time.perf_counter()
    idx = build_index(collection, workdir / "idx", progress=False)
    print(f"{idx}  (built in {time.perf_counter() - t:.1f} s)")
    topics = read_topics(collection)
    return idx, topics


def distinct(terms):
    return list(dict.fromkeys(terms))


def n_scored(idx, q) -> int:
    tids = [idx.term_id(t) for t in q]
    tids = [t for t in tids if t >= 0]
    if not tids:
        return 0
    return len(np.unique(np.concatenate([idx.postings(t)[0] for t in tids])))


def time_model(fn, idx, queries, repeat: int):
    """µs per scored document for every query (best of ``repeat``)."""
    for q in queries:
        fn(idx, q, 1000)  # warm-up (JIT, caches)
    out = []
    for q in queries:
        n = n_scored(idx, q)
        best = float("inf")
        for _ in range(repeat):
            t = time.perf_counter()
            fn(idx, q, 1000)
            best = min(best, time.perf_counter() - t)
        out.append(best * 1e6 / max(n, 1))
    return np.array(out)


def cold_start(index_path: Path, query: list[str]) -> tuple[float, float, float]:
    """(import s, first call s, warm call s) in a fresh interpreter."""
    code = (
        "import time, sys\n"
        "t0 = time.perf_counter()\n"
        "from tiebreak.retrieval import dependency as dep\n"
        "from tiebreak.index import open_index\n"
        "t1 = time.perf_counter()\n"
        f"idx = open_index({str(index_path)!r})\n"
        f"q = {query!r}\n"
        "t2 = time.perf_counter(); dep.lkp(idx, q, 1000); t3 = time.perf_counter()\n"
        "dep.lkp(idx, q, 1000); t4 = time.perf_counter()\n"
        "print(t1 - t0, t3 - t2, t4 - t3)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=os.environ.copy())  # fmt: skip
    return tuple(float(x) for x in out.stdout.split())


def query_times(fn, idx, queries, repeat: int) -> np.ndarray:
    """Seconds per query (best of ``repeat``), after one warm-up call each."""
    for q in queries:
        fn(idx, q, 1000)
    out = []
    for q in queries:
        best = float("inf")
        for _ in range(repeat):
            t = time.perf_counter()
            fn(idx, q, 1000)
            best = min(best, time.perf_counter() - t)
        out.append(best)
    return np.array(out)


def mean_ap(idx, topics, queries, fn, collection):
    """MAP of ``fn`` on the collection's judgments (None if unknown)."""
    import io

    import tiebreak as tb
    from tiebreak.index.testcollections import COLLECTIONS
    from tiebreak.retrieval.search import Result, format_run

    c = COLLECTIONS.get(collection)
    if c is None:
        return None
    res = [Result(qid, *fn(idx, q, 1000)) for (qid, _), q in zip(topics, queries)]
    run = format_run(idx, res, "x")
    r = tb.evaluate(tb.read_qrels(io.BytesIO(c.qrels(SHARED))),
                    [tb.read_run(io.BytesIO(run.encode()))], ["AP"], ["trec_eval"])
    return float(r.mean[0, 0, 0])


def interleaved(fns, queries, repeat: int, per_query: bool = False) -> np.ndarray:
    """Total seconds of each function over ``queries``: per query, the functions take turns
    ``repeat`` times, in a new random order each time (so no function always follows the same
    one, whose memory traffic it would inherit), and each keeps its best (so load changes hit
    all of them alike)."""
    for f in fns:
        for q in queries:
            f(q)
    n = len(fns)
    rng = np.random.default_rng(0)
    tot = np.zeros(n)
    rows = []
    for q in queries:
        best = np.full(n, np.inf)
        for _ in range(repeat):
            for j in rng.permutation(n):
                t = time.perf_counter()
                fns[j](q)
                best[j] = min(best[j], time.perf_counter() - t)
        tot += best
        rows.append(best)
    return np.array(rows) if per_query else tot


def passes(fns, queries, repeat: int) -> np.ndarray:
    """Total seconds of each function over ``queries`` run as a pass (every query once, in
    turn: caches see a stream of different queries), best pass of ``repeat``; the functions'
    passes take turns."""
    for f in fns:
        for q in queries:
            f(q)
    best = np.full(len(fns), np.inf)
    for _ in range(repeat):
        for j, f in enumerate(fns):
            t = time.perf_counter()
            for q in queries:
                f(q)
            best[j] = min(best[j], time.perf_counter() - t)
    return best


def _two_stage_fns(idx, ks, bm25_2):
    from tiebreak.retrieval import dependency as dep
    from tiebreak.retrieval.rerank import rerank

    fns = [lambda q: bm25_2(idx, q, 1000), lambda q: dep.lkp(idx, q, 1000)]
    for K in ks:
        fns.append(lambda q, K=K: rerank(idx, q, 1000, first_k=K, tail=True))
    return fns


def two_stage(idx, topics, full, bm25_2, args, collection):
    """Two-stage Lkp (BM25^(2) top max(K, 1000); Lkp on the top K; the rest with the BM25 part
    of Eq. 4.3, ``tail=True``) against BM25^(2) and full Lkp: query time and MAP per K."""
    from tiebreak.retrieval import dependency as dep
    from tiebreak.retrieval.rerank import rerank

    ks = [int(x) for x in args.rerank_k.split(",")]
    qs = [q for q in full if q]
    fns = _two_stage_fns(idx, ks, bm25_2)
    ti = interleaved(fns, qs, args.repeat)
    tp = passes(fns, qs, args.repeat)
    m_full = mean_ap(idx, topics, full, dep.lkp, collection)
    print(f"\ntwo-stage Lkp on {collection} ({len(qs)} natural-length queries; BM25^(2) "
          f"{ti[0] * 1e6 / len(qs):.0f} µs/query interleaved, {tp[0] * 1e6 / len(qs):.0f} in "
          f"passes; full Lkp {ti[1] / ti[0]:.2f}x / {tp[1] / tp[0]:.2f}x, MAP {m_full:.4f})")
    print(f"{'K':>6} {'x BM25 (interleaved)':>21} {'x BM25 (passes)':>16} {'MAP':>7} "
          f"{'dMAP %':>7} {'MAP no tail':>12} {'dMAP %':>7}")
    for j, K in enumerate(ks):
        m = mean_ap(idx, topics, full,
                    lambda i, q, k, K=K: rerank(i, q, k, first_k=K, tail=True), collection)
        m0 = mean_ap(idx, topics, full,
                     lambda i, q, k, K=K: rerank(i, q, k, first_k=K), collection)
        print(f"{K:6d} {ti[2 + j] / ti[0]:21.2f} {tp[2 + j] / tp[0]:16.2f} {m:7.4f} "
              f"{100 * (m / m_full - 1):7.2f} {m0:12.4f} {100 * (m0 / m_full - 1):7.2f}")
        if K == 100:
            MEASURED.append(("rerank100", collection, ti[2 + j] / ti[0]))
    early_stop(idx, qs, bm25_2, args.repeat)


def early_stop(idx, qs, bm25_2, repeat: int):
    """Output depth k = 10 from K = 100 candidates: the proximity part is computed in decreasing
    upper-bound order and stops once the 10th exact score is above the next bound
    (:mod:`tiebreak.retrieval.rerank`); against k = 100 (every candidate scored) and BM25^(2)'s
    top 10 / top 100 query times."""
    from tiebreak.retrieval.rerank import rerank

    fns = [lambda q: bm25_2(idx, q, 10), lambda q: bm25_2(idx, q, 100),
           lambda q: rerank(idx, q, 10, first_k=100), lambda q: rerank(idx, q, 100, first_k=100)]
    t = interleaved(fns, qs, repeat)
    print(f"early stop, K = 100 (interleaved; BM25^(2) top 10 {t[0] * 1e6 / len(qs):.0f} µs/query, "
          f"top 100 {t[1] * 1e6 / len(qs):.0f}): output k = 10 {t[2] / t[0]:.2f}x BM25 top 10; "
          f"k = 100 (every candidate) {t[3] / t[1]:.2f}x BM25 top 100; k = 10 / k = 100 "
          f"{t[2] / t[3]:.2f}")


def map_sweep(ks):
    """MAP of two-stage Lkp (with and without the tail) against full Lkp on every classic
    collection (default analyser, top 1000)."""
    import io

    import tiebreak as tb
    from tiebreak.index import build_index
    from tiebreak.index.readers import read_topics
    from tiebreak.index.testcollections import COLLECTIONS
    from tiebreak.retrieval.rerank import search_rerank
    from tiebreak.retrieval.search import format_run, search

    def mapof(idx, qrels, res):
        run = tb.read_run(io.BytesIO(format_run(idx, res, "x").encode()))
        return float(tb.evaluate(qrels, [run], ["AP"], ["trec_eval"]).mean[0, 0, 0])

    print("\ntwo-stage Lkp MAP against full Lkp (change in %), K = first-pass depth reranked")
    print(f"{'collection':10} {'full':>7} {'tail':>5} " + " ".join(f"{'K=' + str(K):>7}"
                                                            for K in ks))
    with tempfile.TemporaryDirectory() as tmp:
        for name, c in COLLECTIONS.items():
            if name == "npl":  # = vaswani
                continue
            if c.irds and "IR_DATASETS_HOME" not in os.environ:
                continue
            with warnings.catch_warnings():  # LISA's documented faults (CollectionQuirkWarning)
                warnings.simplefilter("ignore")
                idx = build_index(c.docs_source(SHARED), Path(tmp) / name, fields=c.fields,
                                  progress=False)
            qrels = tb.read_qrels(io.BytesIO(c.qrels(SHARED)))
            judged = set(qrels.topics)
            topics = [(q, t) for q, t in read_topics(c.topics_source(SHARED)) if q in judged]
            full = mapof(idx, qrels, search(idx, topics, "lkp", 1000))
            for tail in (True, False):
                row = [mapof(idx, qrels, search_rerank(idx, topics, 1000, first_k=K, tail=tail))
                       for K in ks]
                print(f"{name:10} {full:7.4f} {'yes' if tail else 'no':>5} "
                      + " ".join(f"{100 * (m / full - 1):+7.2f}" for m in row))


def synthetic_collection(n_docs: int, avg_len: int, n_queries: int, seed: int, workdir: Path):
    """A synthetic index in ``workdir`` and its queries: Zipf(1.07) term ids over a
    200,000-term vocabulary, Poisson(avg_len) document lengths; queries of 2-5 terms drawn from
    the same Zipf law without its 20 most frequent ranks (terms without postings dropped, then
    queries left with fewer than 2 terms)."""
    from tiebreak.index import Analyzer
    from tiebreak.index.build import build_index_from_tokens

    rng = np.random.default_rng(seed)
    vocab = 200_000
    p = 1.0 / np.arange(1, vocab + 1) ** 1.07
    p /= p.sum()
    lens = rng.poisson(avg_len, n_docs).astype(np.int64)
    flat = rng.choice(vocab, size=int(lens.sum()), p=p).astype(np.int32)
    ptr = np.concatenate([[0], np.cumsum(lens)])
    terms = [f"t{i}" for i in range(vocab)]
    q20 = p[20:] / p[20:].sum()
    queries = [[terms[i + 20] for i in rng.choice(vocab - 20, size=int(rng.integers(2, 6)),
                                                  p=q20, replace=False)]
               for _ in range(n_queries)]
    t = time.perf_counter()
    idx = build_index_from_tokens(workdir / "zipf", [f"D{i}" for i in range(n_docs)],
                                  flat, ptr, terms, Analyzer("none", "none"))
    del flat
    queries = [q for q in ([t for t in q if idx.df[idx.term_id(t)] > 0] for q in queries)
               if len(q) >= 2]
    print(f"\nsynthetic: {n_docs:,} documents, {int(lens.sum()):,} tokens, {len(queries)} "
          f"queries (index {time.perf_counter() - t:.0f} s); documents scored per query: "
          f"median {int(np.median([n_scored(idx, q) for q in queries])):,}")
    return idx, queries


def synthetic(n_docs: int, avg_len: int, n_queries: int, ks, repeat: int, bm25_2, seed=0):
    """Two-stage timing on a synthetic collection (:func:`synthetic_collection`). No
    judgments: time only."""
    with tempfile.TemporaryDirectory() as tmp:
        idx, queries = synthetic_collection(n_docs, avg_len, n_queries, seed, Path(tmp))
        n_queries = len(queries)
        fns = _two_stage_fns(idx, ks, bm25_2)
        ti = interleaved(fns, queries, repeat)
        tp = passes(fns, queries, repeat)
        print(f"BM25^(2) {ti[0] * 1e6 / n_queries:.0f} µs/query; full Lkp {ti[1] / ti[0]:.2f}x "
              f"(interleaved) / {tp[1] / tp[0]:.2f}x (passes)")
        print(f"{'K':>6} {'x BM25 (interleaved)':>21} {'x BM25 (passes)':>16}")
        for j, K in enumerate(ks):
            print(f"{K:6d} {ti[2 + j] / ti[0]:21.2f} {tp[2 + j] / tp[0]:16.2f}")
            if K == 100:
                MEASURED.append(("rerank100", f"synthetic {n_docs // 1000}k", ti[2 + j] / ti[0]))


def _pruning_fns(idx, model: str, k: int):
    """(exhaustive, rank-safe pruned, two-stage) of ``model`` at depth ``k``: the two-stage run
    scores the first pass's top 1000 only (Lkp: BM25^(2) then Lkp, :func:`rerank`; SDM/FDM:
    query likelihood then the model, :func:`mrf_rerank`)."""
    from tiebreak.retrieval import dependency as dep
    from tiebreak.retrieval.dependency.bounds import mrf_rerank
    from tiebreak.retrieval.rerank import rerank

    fn = getattr(dep, model)
    if model == "lkp":
        two = lambda q: rerank(idx, q, k, first_k=1000)  # noqa: E731
    else:
        two = lambda q: mrf_rerank(idx, q, k, model == "fdm", first_k=1000)  # noqa: E731
    return [lambda q: fn(idx, q, k), lambda q: fn(idx, q, k, algorithm="bounds"), two]


def pruning(idx, name: str, qs, repeat: int, ks=(10, 1000), models=("sdm", "fdm", "lkp")):
    """Rank-safe pruned proximity scoring (:mod:`tiebreak.retrieval.dependency.pruned`,
    ``algorithm="bounds"``) against exhaustive scoring and the two-stage rerank of the first
    pass's top 1000, per model and depth k: ms per query of each (interleaved per query, best
    of ``repeat``), the speed-ups, the share of multi-term candidates (>= 2 proximity terms)
    whose positions the pruned run skipped, and whether every pruned ranking is the
    exhaustive one bit for bit (documents, scores, order). The window statistics (SDM's
    term-pair index, FDM's subquery statistics) are built first, timed on their own."""
    from tiebreak.retrieval import dependency as dep
    from tiebreak.retrieval.dependency.lkp_family import lkp_bounds
    from tiebreak.retrieval.dependency.mrf import mrf_bounds

    t = time.perf_counter()
    npairs = dep.build_pair_statistics(idx, qs)
    t1 = time.perf_counter()
    nsub = dep.build_subquery_statistics(idx, qs)
    t2 = time.perf_counter()
    print(f"{name}: {len(qs)} queries; statistics: {npairs} pairs (SDM) in {t1 - t:.2f} s, "
          f"{nsub} subquery sets (FDM) in {t2 - t1:.2f} s")
    for model in models:
        for k in ks:
            same = True
            scored = multi = 0
            for q in qs:
                st = {}
                a = getattr(dep, model)(idx, q, k)
                if model == "lkp":
                    b = lkp_bounds(idx, q, k, "lkp", dep.LAMBDA, dep.K1, dep.B, "auto",
                                   dep.MAX_PROX_TERMS, stats=st)
                else:
                    full = model == "fdm"
                    b = mrf_bounds(idx, q, k, full, dep.FDM_WEIGHTS if full else
                                   dep.SDM_WEIGHTS, dep.MU, None if full else dep.SDM_WINDOW,
                                   "auto", dep.MAX_PROX_TERMS if full else None, stats=st)
                same &= bool(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]))
                scored += st.get("scored", 0)
                multi += st.get("multi", 0)
            tt = interleaved(_pruning_fns(idx, model, k), qs, repeat) * 1e3 / len(qs)
            print(f"{name:9} {model:4} {k:5d} {tt[0]:9.3f} {tt[1]:9.3f} {tt[2]:9.3f} "
                  f"{tt[0] / tt[1]:8.2f}x {tt[2] / tt[1]:8.2f}x "
                  f"{100 * (1 - scored / max(multi, 1)):8.1f}% {'yes' if same else 'NO':>9}")
            PRUNED.append((name, model, k, tt[0] / tt[1], tt[2] / tt[1]))


def pruning_classic(args):
    """:func:`pruning` on the classic collections (``--pruning-collections``), their topics at
    natural length, then on a synthetic Zipf collection if ``--synthetic-docs`` is given."""
    from tiebreak.index import build_index
    from tiebreak.index.readers import read_topics
    from tiebreak.index.testcollections import COLLECTIONS

    print(f"{'collection':9} {'model':4} {'k':>5} {'exh ms/q':>9} {'bnd ms/q':>9} "
          f"{'2st ms/q':>9} {'exh/bnd':>9} {'2st/bnd':>9} {'skipped':>9} {'identical':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "irds"
        shutil.copytree(SHARED / "ir_datasets_home", home)
        os.environ["IR_DATASETS_HOME"] = str(home)
        for name in args.pruning_collections.split(","):
            c = COLLECTIONS[name]
            with warnings.catch_warnings():  # LISA's documented faults (CollectionQuirkWarning)
                warnings.simplefilter("ignore")
                idx = build_index(c.docs_source(SHARED), Path(tmp) / name, fields=c.fields,
                                  progress=False)
                qs = [idx.analyzer.analyze(t) for _, t in read_topics(c.topics_source(SHARED))]
            qs = [q for q in qs if len({t for t in q if idx.term_id(t) >= 0}) >= 2]
            pruning(idx, name, qs, args.repeat)
        if args.synthetic_docs:
            sidx, sq = synthetic_collection(args.synthetic_docs, args.synthetic_len,
                                            args.synthetic_queries, 0, Path(tmp))
            pruning(sidx, f"zipf{args.synthetic_docs // 1000}k", sq, args.repeat)
    print("\nspeed-up of the rank-safe pruned run over exhaustive (exh/bnd) and over the "
          "two-stage rerank (2st/bnd), geometric mean over the collections above:")
    for model in ("sdm", "fdm", "lkp"):
        for k in (10, 1000):
            r = [(e, t) for _, m, kk, e, t in PRUNED if m == model and kk == k]
            if r:
                g = np.exp(np.mean(np.log(np.array(r)), axis=0))
                print(f"  {model:4} k={k:5d}: x{g[0]:.2f} over exhaustive, x{g[1]:.2f} over "
                      "two-stage")


PRUNED: list[tuple[str, str, int, float, float]] = []


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--collection", default="vaswani")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--long-max", type=int, default=10)
    ap.add_argument("--rerank-k", default="10,20,50,100,200,1000",
                    help="comma list of first-pass depths K for the two-stage mode")
    ap.add_argument("--map-sweep", action="store_true",
                    help="also: two-stage MAP per K on every classic collection")
    ap.add_argument("--synthetic-docs", type=int, default=0,
                    help="also: two-stage timing on a synthetic Zipf collection of N documents")
    ap.add_argument("--synthetic-len", type=int, default=40)
    ap.add_argument("--synthetic-queries", type=int, default=200)
    ap.add_argument("--pruning", action="store_true",
                    help="only the pruned proximity comparison (SDM, FDM, Lkp: bounds against "
                         "exhaustive and two-stage) on the classic collections")
    ap.add_argument("--pruning-collections",
                    default="adi,cacm,cisi,cranfield,lisa,medline,npl,time",
                    help="comma list of classic collections for --pruning")
    ap.add_argument("--skip-models", action="store_true",
                    help="skip the per-document model costs (Table 4.8) and start-up")
    args = ap.parse_args(argv)
    if args.pruning:
        pruning_classic(args)
        return

    from tiebreak.retrieval import dependency as dep

    try:
        from tiebreak.retrieval.models import MODELS

        bm25 = MODELS["bm25"]

        def bm25_2(idx, q, k):
            return bm25(idx, q, k, idf="rw", k1=0.9, b=0.3)
    except (ImportError, KeyError):
        bm25_2 = None

    with tempfile.TemporaryDirectory() as tmp:
        idx, topics = setup(args.collection, Path(tmp))
        an = idx.analyzer.analyze
        full = [distinct([t for t in an(text) if idx.term_id(t) >= 0]) for _, text in topics]
        short = [q[: 2 + i % 4] for i, q in enumerate(full) if len(q) >= 2]
        long_ = [q for q in full if 6 <= len(q) <= args.long_max]
        lens = np.array([len(q) for q in short])
        scored = np.array([n_scored(idx, q) for q in short])
        print(f"\nshort queries: {len(short)}, {lens.mean():.2f} terms on average, "
              f"{scored.mean():.0f} documents scored per query on average")  # fmt: skip

        if not args.skip_models:
            from tiebreak.retrieval.cost import model_fn
            from tiebreak.retrieval.registry import MODELS as REGISTRY

            # every registered model with its defaults; "bm25" is BM25^(2), the thesis's base
            models = {"bm25": bm25_2, "lmds": model_fn("lmds")}
            # wsdm has no default weights; its cost does not depend on their values
            fixed = {"wsdm": {"uni": (0.8, 0.0, 0.0), "bi": (0.1, 0.0, 0.0)}}
            models.update({n: model_fn(n, **fixed.get(n, {})) for n in REGISTRY
                           if n not in ("bm25", "ql")})
            models["bm25-lucene"] = model_fn("bm25")
            res = {}
            for name, fn in models.items():
                if fn is not None:
                    res[name] = time_model(fn, idx, short, args.repeat)
            base = np.median(res["bm25"]) if "bm25" in res else None
            # the targets: BM25^(2), SDM, FDM, Lkp interleaved per query (the table below times
            # one model after the other, so a load change between them moves its ratios)
            keys = [x for x in ("sdm", "fdm", "lkp") if x in models]
            if bm25_2 is not None and keys:
                fns = [lambda q, f=f: f(idx, q, 1000) for f in [bm25_2] + [models[x]
                                                                        for x in keys]]
                per_doc = interleaved(fns, short, args.repeat, per_query=True) / scored[:, None]
                med = np.median(per_doc, axis=0)
                print("\ninterleaved per query (the targets): µs/doc median " + ", ".join(
                    f"{n} {m * 1e6:.3f} ({m / med[0]:.2f}x)"
                    for n, m in zip(["bm25"] + keys, med)))
                for j, key in enumerate(keys):
                    MEASURED.append((key, args.collection, float(med[j + 1] / med[0])))
            print("\nµs per document scored, short queries (thesis: Table 4.8, TB04-06 median)")
            print(f"{'model':11} {'median':>8} {'mean':>8} {'max':>8} {'x BM25':>8} "
                  f"{'thesis':>8} {'thesis x':>9}")  # fmt: skip
            for name, v in res.items():
                ratio = np.median(v) / base if base else float("nan")
                th = THESIS.get(name, float("nan"))
                print(f"{name:11} {np.median(v):8.3f} {v.mean():8.3f} {v.max():8.3f} "
                      f"{ratio:8.2f} {th:8.2f} {th / THESIS['bm25']:9.2f}")  # fmt: skip

            print("\nµs/doc median by query length (Fig. 4.8), short queries; x BM25^(2)")
            print(f"{'model':11} " + " ".join(f"{'len ' + str(n):>14}" for n in (2, 3, 4, 5)))
            for name, v in res.items():
                cols = []
                for n in (2, 3, 4, 5):
                    m = lens == n
                    r = np.median(v[m]) / np.median(res["bm25"][m]) if m.any() else np.nan
                    cols.append(f"{np.median(v[m]):7.3f} {r:5.2f}x" if m.any() else " " * 14)
                print(f"{name:11} " + " ".join(cols))

            print(f"\nlong queries (6..{args.long_max} distinct terms): µs/doc median by length")
            by_len = {}
            for q in long_:
                by_len.setdefault(len(q), []).append(q)
            print(f"{'terms':>5} {'n':>4} " + " ".join(f"{m:>9}" for m in ("bm25", "lkp", "fdm")))
            for L in sorted(by_len):
                qs = by_len[L]
                row = []
                for fn in (bm25_2, dep.lkp, dep.fdm):
                    row.append(np.median(time_model(fn, idx, qs, 1)) if fn else float("nan"))
                print(f"{L:5d} {len(qs):4d} " + " ".join(f"{x:9.3f}" for x in row))

        if bm25_2 is not None:
            two_stage(idx, topics, full, bm25_2, args, collection=args.collection)
            ks = [int(x) for x in args.rerank_k.split(",")]
            if args.map_sweep:
                map_sweep(ks)
            if args.synthetic_docs:
                synthetic(args.synthetic_docs, args.synthetic_len, args.synthetic_queries, ks,
                          args.repeat, bm25_2)
        if args.skip_models:
            print_targets()
            return

        q0 = short[0]
        imp, first, warm = cold_start(idx.path, q0)
        print(f"\nnumba start-up (fresh interpreter, cache warm): import {imp * 1e3:.0f} ms, "
              f"first lkp call {first * 1e3:.1f} ms, warm call {warm * 1e3:.2f} ms")  # fmt: skip
        cache = Path(tmp) / "numba_cache"
        os.environ["NUMBA_CACHE_DIR"] = str(cache)
        imp, first, warm = cold_start(idx.path, q0)
        print(f"numba start-up (empty cache: full compile): import {imp * 1e3:.0f} ms, "
              f"first lkp call {first * 1e3:.0f} ms, warm call {warm * 1e3:.2f} ms")  # fmt: skip
        del os.environ["NUMBA_CACHE_DIR"]
        print_targets()


if __name__ == "__main__":
    main()
