"""BM25 top-k throughput: tiebreak vs bm25s, same tokens, same k1/b, same (Lucene) idf.

    python benchmarks/bench_retrieval.py                      # Vaswani + 1M-doc Zipf
    python benchmarks/bench_retrieval.py --zipf-docs 200000   # smaller synthetic run

Both engines get identical token lists: Vaswani documents analysed by tiebreak's default
analyser (Porter, Lucene stopwords), and a synthetic collection whose term ids are drawn from a
Zipf distribution. bm25s uses ``method="lucene"`` (idf ``log(1 + (N - df + .5)/(df + .5))``,
no ``k1 + 1`` factor -- rank-equivalent to tiebreak's ``idf="lucene"``), the numba backend, one
thread. Timing: all queries in one process, after one warm-up pass (numba compilation excluded),
best of ``--repeat``. Needs ``pip install tiebreak[bench]`` (bm25s) and ../shared/data for Vaswani.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from tiebreak.index import Analyzer
from tiebreak.index.build import build_index_from_tokens
from tiebreak.index.readers import iter_documents, read_topics
from tiebreak.retrieval.models import bm25

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def run_tiebreak(idx, queries, k, repeat):
    for q in queries:                         # warm-up (and numba compile or cache load)
        bm25(idx, q, k, k1=0.9, b=0.4, idf="lucene")
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        out = [bm25(idx, q, k, k1=0.9, b=0.4, idf="lucene") for q in queries]
        best = min(best, time.perf_counter() - t)
    return best, out


def run_bm25s(ids, vocab, queries, k, repeat):
    import bm25s
    from bm25s.tokenization import Tokenized

    t = time.perf_counter()
    r = bm25s.BM25(k1=0.9, b=0.4, method="lucene", backend="numba")
    r.index(Tokenized(ids=ids, vocab=vocab), show_progress=False)
    t_index = time.perf_counter() - t
    qs = [[w for w in q if w in vocab] for q in queries]
    qs = [q for q in qs if q]
    kk = min(k, len(ids))
    r.retrieve(qs, k=kk, show_progress=False, n_threads=1)      # warm-up / compile
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        docs, scores = r.retrieve(qs, k=kk, show_progress=False, n_threads=1)
        best = min(best, time.perf_counter() - t)
    return best, t_index, len(qs), (docs, scores)


def overlap(ours, theirs_docs, n=10):
    vals = []
    for (d, _), td in zip(ours, theirs_docs):
        a, b = set(d[:n].tolist()), set(td[:n].tolist())
        if a:
            vals.append(len(a & b) / len(a))
    return float(np.mean(vals)) if vals else float("nan")


def report(name, n_docs, nq, k, t_tb, t_bs, ov):
    print(f"{name}: {n_docs:,} docs, {nq} queries, k={k}")
    print(f"  tiebreak bm25 : {nq / t_tb:10.1f} q/s  ({1000 * t_tb / nq:.3f} ms/q)")
    print(f"  bm25s (numba) : {nq / t_bs:10.1f} q/s  ({1000 * t_bs / nq:.3f} ms/q)")
    print(f"  ratio tiebreak/bm25s: {t_bs / t_tb:.2f}x   top-10 overlap: {ov:.3f}")


def bench_vaswani(tmp, k, repeat):
    src = SHARED / "vaswani" / "doc-text.trec.gz"
    if not src.is_file():
        print("Vaswani: ../shared/data not found, skipped")
        return
    an = Analyzer()
    docnos, toks = [], []
    for d, text in iter_documents(src):
        docnos.append(d)
        toks.append(an.analyze(text))
    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(t, len(vocab)) for t in doc] for doc in toks]
    flat = np.fromiter((i for doc in ids for i in doc), np.int32)
    ptr = np.concatenate([[0], np.cumsum([len(x) for x in ids])])
    idx = build_index_from_tokens(tmp / "vas", docnos, flat, ptr, list(vocab), an)
    queries = [an.analyze(t) for _, t in read_topics(SHARED / "vaswani" / "query-text.trec")]
    t_tb, ours = run_tiebreak(idx, queries, k, repeat)
    t_bs, _, nq, (docs, _) = run_bm25s(ids, vocab, queries, k, repeat)
    # our docids are index docids = insertion order = bm25s ids
    report("Vaswani", idx.num_docs, nq, k, t_tb, t_bs, overlap(ours, docs))


def bench_zipf(tmp, n_docs, avg_len, vocab_size, n_queries, k, repeat, seed=0):
    rng = np.random.default_rng(seed)
    t = time.perf_counter()
    p = 1.0 / np.arange(1, vocab_size + 1) ** 1.07
    p /= p.sum()
    lens = rng.poisson(avg_len, n_docs).astype(np.int64)
    flat = rng.choice(vocab_size, size=int(lens.sum()), p=p).astype(np.int32)
    ptr = np.concatenate([[0], np.cumsum(lens)])
    terms = [f"t{i}" for i in range(vocab_size)]
    # queries: 2-5 terms, Zipf-distributed but skipping the 20 most frequent ranks
    queries = []
    for _ in range(n_queries):
        m = int(rng.integers(2, 6))
        q = rng.choice(vocab_size - 20, size=m, p=p[20:] / p[20:].sum()) + 20
        queries.append([terms[i] for i in q])
    t_gen = time.perf_counter() - t
    t = time.perf_counter()
    idx = build_index_from_tokens(tmp / "zipf", [f"D{i}" for i in range(n_docs)], flat, ptr,
                                  terms, Analyzer("none", "none"))
    t_idx = time.perf_counter() - t
    t_tb, ours = run_tiebreak(idx, queries, k, repeat)
    # bm25s ids: term order of `terms` = "t0", "t1", ...; tiebreak sorts its vocabulary, so map
    vocab = {w: i for i, w in enumerate(terms)}
    ids = [flat[ptr[i]:ptr[i + 1]].tolist() for i in range(n_docs)]
    t_bs, t_bs_idx, nq, (docs, _) = run_bm25s(ids, vocab, queries, k, repeat)
    del ids
    print(f"(zipf: generated in {t_gen:.1f} s, {int(lens.sum()):,} tokens; tiebreak index "
          f"{t_idx:.1f} s, bm25s index {t_bs_idx:.1f} s)")
    report(f"Zipf synthetic (V={vocab_size:,}, avg len {avg_len})", n_docs, nq, k, t_tb, t_bs,
           overlap(ours, docs))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-k", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--zipf-docs", type=int, default=1_000_000)
    ap.add_argument("--zipf-len", type=int, default=40)
    ap.add_argument("--zipf-vocab", type=int, default=200_000)
    ap.add_argument("--zipf-queries", type=int, default=1000)
    ap.add_argument("--skip-zipf", action="store_true")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="tb-bench-"))
    try:
        print(f"cpu: {os.cpu_count()} logical cores; single-threaded runs")
        bench_vaswani(tmp, a.k, a.repeat)
        if not a.skip_zipf:
            bench_zipf(tmp, a.zipf_docs, a.zipf_len, a.zipf_vocab, a.zipf_queries, a.k, a.repeat)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
