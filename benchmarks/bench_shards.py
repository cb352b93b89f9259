"""Sharded index: build time and search speed against one index of the same collection.

    python benchmarks/bench_shards.py                        # 200k-document Zipf, 4 shards
    python benchmarks/bench_shards.py --docs 50000 --shards 2 --rounds 3
    python benchmarks/bench_shards.py --vaswani             # the real Vaswani collection instead

Collection: a synthetic one with the generator of ``bench_retrieval.py`` / ``bench_pruning.py``
(term ranks drawn from a Zipf law with exponent 1.07, Poisson document lengths, queries of 2-5
terms skipping the 20 most frequent ranks; same seed, same tokens), written as a JSONL source of
``t<rank>`` words so that every build reads, analyses (no stemming, no stopwords) and inverts it,
as ``tiebreak index`` does.

Build, each in this process, after one warm-up round, the rounds interleaved and the median
reported:

* one index (``build_index``),
* ``--shards`` shards in one process (``jobs=1``),
* the same with ``tiebreak._native.parallel.imap`` and 2 processes (``jobs=2``),
* the same on a Dask LocalCluster of 2 single-threaded worker processes (started once,
  outside the timing; its start-up is printed separately).

Before and after the builds, a pure-Python loop run in 1 and in 2 processes measures the
speed-up the machine offers at the moment (the "parallel headroom"; on a shared machine other
jobs may take the second core), the ceiling of every two-process figure.

Search: queries/s of BM25 (top 10 and top 1000), QL (top 1000) and SDM (top 100, a subset of
the queries) on the one index and on the sharded one (shards searched in this process, and two
at a time with ``jobs=2``), text analysed per query as ``tiebreak search`` does; the results
are checked to be bit-identical before timing. Ratios are
sharded / single (build: time; search: queries/s), robust to the load of a shared machine.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from tiebreak.index import Analyzer, build_index
from tiebreak.index.shards import build_sharded_index
from tiebreak.retrieval.search import search
from tiebreak.retrieval.sharded import search_sharded

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def zipf_collection(path: Path, n_docs: int, avg_len: int, vocab_size: int, n_queries: int,
                    seed: int = 0) -> list[tuple[str, str]]:
    """Write the Zipf collection as JSONL to ``path``; return ``(qid, text)`` queries."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, vocab_size + 1) ** 1.07
    p /= p.sum()
    lens = rng.poisson(avg_len, n_docs).astype(np.int64)
    flat = rng.choice(vocab_size, size=int(lens.sum()), p=p).astype(np.int32)
    ptr = np.concatenate([[0], np.cumsum(lens)])
    words = np.array([f"t{i}" for i in range(vocab_size)])
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n_docs):
            text = " ".join(words[flat[ptr[i]:ptr[i + 1]]].tolist())
            fh.write(json.dumps({"docno": f"D{i}", "text": text}) + "\n")
    queries = []
    for i in range(n_queries):
        m = int(rng.integers(2, 6))
        q = rng.choice(vocab_size - 20, size=m, replace=False, p=p[20:] / p[20:].sum()) + 20
        queries.append((str(i + 1), " ".join(words[q].tolist())))
    return queries


def median_times(configs: dict, rounds: int) -> dict[str, float]:
    """Each configuration once per round, rounds interleaved, after one untimed warm-up round
    (numba compilation, lazily built caches); median seconds."""
    times: dict[str, list[float]] = {n: [] for n in configs}
    for fn in configs.values():
        fn()
    for _ in range(rounds):
        for name, fn in configs.items():
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    return {n: statistics.median(v) for n, v in times.items()}


def _burn(_, n: int) -> int:
    s = 0
    for i in range(n):
        s += i * i
    return s


def parallel_headroom(rounds: int) -> float:
    """Speed-up two processes of pure-Python work get over one right now (2.0 on two idle
    cores; about 1.0 when other jobs take the second core): the ceiling of every two-process
    row below."""
    from tiebreak._native.parallel import imap

    t = median_times({j: lambda j=j: list(imap(_burn, [3_000_000] * 4, j)) for j in (1, 2)},
                     rounds)
    return t[1] / t[2]


def same(a, b) -> bool:
    return all(np.array_equal(x.docids, y.docids)
               and np.array_equal(x.scores.view(np.int64), y.scores.view(np.int64))
               for x, y in zip(a, b))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=200_000)
    ap.add_argument("--len", type=int, default=40)
    ap.add_argument("--vocab", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--vaswani", action="store_true",
                    help="Vaswani (11,429 abstracts, its 93 topics) instead of the Zipf data.")
    ap.add_argument("--no-dask", action="store_true")
    a = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-shards-"))
    try:
        if a.vaswani:
            from tiebreak.index.readers import read_topics

            src = SHARED / "vaswani" / "doc-text.trec.gz"
            an = Analyzer()
            topics = read_topics(SHARED / "vaswani" / "query-text.trec")
            print(f"collection: Vaswani ({src})")
        else:
            src = tmp / "zipf.jsonl"
            t = time.perf_counter()
            topics = zipf_collection(src, a.docs, a.len, a.vocab, a.queries)
            an = Analyzer("none", "none")
            print(f"collection: Zipf, {a.docs:,} documents, avg length {a.len}, V {a.vocab:,} "
                  f"({src.stat().st_size / 1e6:.0f} MB JSONL, written in "
                  f"{time.perf_counter() - t:.1f} s)")

        client = cluster = None
        if not a.no_dask:
            try:
                from distributed import Client, LocalCluster  # noqa: F401
            except ImportError:
                print("(Dask not installed: its row is skipped)")
            else:
                import tiebreak._native.parallel
                from tiebreak.evaluation import dask_client

                tiebreak._native.parallel.cpus = lambda: 2     # dask_client("local"): 2 workers
                t = time.perf_counter()
                client = dask_client("local")
                client.run(lambda: __import__("tiebreak.index.build") and None)    # warm up
                cluster = client.cluster
                print(f"Dask LocalCluster of {len(client.scheduler_info()['workers'])} workers "
                      f"started in {time.perf_counter() - t:.1f} s (not timed below)")

        S = a.shards
        out = {"single": tmp / "single", "1 proc": tmp / "s1", "imap -j2": tmp / "s2",
               "dask 2 workers": tmp / "s3"}

        def fresh(p):
            shutil.rmtree(p, ignore_errors=True)

        builds = {
            "single": lambda: (fresh(out["single"]),
                               build_index(src, out["single"], analyzer=an, progress=False)),
            f"{S} shards, 1 proc": lambda: (fresh(out["1 proc"]), build_sharded_index(
                src, out["1 proc"], S, analyzer=an, jobs=1, progress=False)),
            f"{S} shards, imap -j2": lambda: (fresh(out["imap -j2"]), build_sharded_index(
                src, out["imap -j2"], S, analyzer=an, jobs=2, progress=False)),
        }
        if client is not None:
            builds[f"{S} shards, dask 2 workers"] = lambda: (
                fresh(out["dask 2 workers"]),
                build_sharded_index(src, out["dask 2 workers"], S, analyzer=an, client=client,
                                    progress=False))
        head = parallel_headroom(a.rounds)
        bt = median_times(builds, a.rounds)
        head = (head + parallel_headroom(a.rounds)) / 2
        print(f"\nparallel headroom now: 2 processes run pure-Python work {head:.2f}x as fast "
              "as 1 (2.0 = two idle cores)")
        print(f"\nbuild (median of {a.rounds}, s)     seconds   x single")
        for n, v in bt.items():
            print(f"  {n:<28} {v:8.2f}   {v / bt['single']:6.2f}")
        if client is not None:
            client.close()
            cluster.close()

        from tiebreak.index import open_index
        from tiebreak.index.shards import open_sharded

        one = open_index(out["single"])
        sh = open_sharded(out["imap -j2"])
        print(f"\nsearch: {len(topics)} queries, one index vs {S} shards (queries/s, median "
              f"of {a.rounds})")
        print("  model  k      single  sharded -j1  sharded -j2   x single (-j1, -j2)")
        for model, k, tops in (("bm25", 10, topics), ("bm25", 1000, topics),
                               ("ql", 1000, topics), ("sdm", 100, topics[:100])):
            r1 = search(one, tops, model, k)
            for jobs in (1, 2):
                if not same(r1, search_sharded(sh, tops, model, k, jobs=jobs)):
                    raise SystemExit(f"{model} k={k}: sharded results differ from one index")
            st = median_times({
                "single": lambda tops=tops, model=model, k=k: search(one, tops, model, k),
                "j1": lambda tops=tops, model=model, k=k: search_sharded(sh, tops, model, k),
                "j2": lambda tops=tops, model=model, k=k: search_sharded(sh, tops, model, k,
                                                                         jobs=2),
            }, a.rounds)
            q = {n: len(tops) / v for n, v in st.items()}
            print(f"  {model:<6} {k:<5} {q['single']:8.0f}  {q['j1']:10.0f}  {q['j2']:10.0f}"
                  f"     {q['j1'] / q['single']:5.2f} {q['j2'] / q['single']:5.2f}"
                  "   (bit-identical)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
