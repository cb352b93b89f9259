"""Dynamic pruning, quantised impacts and band-safe top-k: tiebreak vs bm25s vs PISA, one process.

    python benchmarks/bench_pruning.py                          # Vaswani + 1M-doc Zipf
    python benchmarks/bench_pruning.py --zipf-docs 200000       # smaller synthetic collection
    python benchmarks/bench_pruning.py --skip-zipf --rounds 5
    python benchmarks/bench_pruning.py --skip-vaswani --zipf-docs 300000 --queries 10000 \
        --frequency-drawn --algorithms-only   # the table behind ``search``'s default

Every engine gets the same tokens (Vaswani analysed by tiebreak's default analyser; a synthetic
collection of Zipf-distributed term ids as in ``bench_retrieval.py``) and the same BM25 (k1 0.9,
b 0.4, Lucene idf ``log(1 + (N - df + .5)/(df + .5))``), one thread, queries of 2-5 terms
(Vaswani: the first 2-5 analysed terms of each topic, cycling 2, 3, 4, 5, the 93 topics
repeated 20 times; Zipf: 2-5 random terms skipping the 20 most frequent, or with
``--frequency-drawn`` 2-5 distinct terms drawn with probability proportional to their
collection frequency, as the terms of user queries are). PISA runs through
the ``pyterrier-pisa`` wheel (no Java needed; terms are passed as ASCII ids so its tokenizer
sees the same tokens); it is skipped when the
wheel is missing. Timing: every configuration answers all queries once per round, rounds are
interleaved (robust to the load of a shared machine), the median round is reported, after one
warm-up round (numba compilation and lazily built impact/block arrays excluded). bm25s and
tiebreak are timed the same way: one call on the whole list of queries (bm25s ``retrieve`` on
token lists, tiebreak ``retrieve_many`` on term lists), each including the mapping of terms to
ids and the conversion of its results.

Configurations include the impact-ordered score-at-a-time traversal (``saat``, rank-safe, and
``rho1.4 saat``, band-safe: :mod:`tiebreak.retrieval.saat`); their postings column is "postings
read + documents settled by lookup". The last table lists the targets of issue 29 with the
wall-clock and CPU-time ratios of this run and met / not met.

First table (always): the four rank-safe algorithms of ``tiebreak search --algorithm``
(exhaustive, maxscore, bmw, saat) on the same queries, milliseconds per query (median round,
wall clock and CPU time) and the ratio of each to exhaustive (below 1: faster than
exhaustive), and the share of queries whose top k equals exhaustive's; ``--algorithms-only``
stops there. The ``auto`` rule of :func:`tiebreak.retrieval.traversal.choose_algorithm` was
fitted on this table.

Output: queries/s per engine and configuration for top-10 and top-1000, ratios against
tiebreak exhaustive, bm25s and PISA, top-10 agreement with tiebreak exhaustive, postings scored,
and index sizes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from tiebreak.index import Analyzer, open_index
from tiebreak.index.build import build_index_from_tokens
from tiebreak.index.readers import iter_documents, read_topics
from tiebreak.retrieval.models import bm25
from tiebreak.retrieval.traversal import retrieve, retrieve_many

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
BM = dict(k1=0.9, b=0.4, idf="lucene")


def dir_mib(path: Path, skip=()) -> float:
    return sum(f.stat().st_size for f in Path(path).rglob("*")
               if f.is_file() and f.stem not in skip) / 2**20


# ------------------------------------------------------------------ engines
def tb_config(idx, k, **opt):
    """All queries in one call (as bm25s and PISA are called); ``per-query`` = the loop over
    :func:`tiebreak.retrieval.models.bm25`, as ``tiebreak search`` and bench_retrieval.py do."""
    if opt.pop("per_query", False):
        return lambda qs: [bm25(idx, q, k, **BM) for q in qs]
    return lambda qs: retrieve_many(idx, qs, k, "bm25", **opt, **BM)


def tb_postings(idx, qs, k, **opt):
    """Postings read (scored) over all queries; for saat also the lookups of documents settled
    by binary search (as "postings+lookups")."""
    st = np.zeros(3, np.int64)
    for q in qs:
        retrieve(idx, q, k, "bm25", stats=st, **opt, **BM)
    return int(st[0]) if not st[2] else f"{st[0]:,d}+{st[2]:,d}"


def bm25s_engine(ids, vocab, queries, tmp):
    import bm25s
    from bm25s.tokenization import Tokenized

    r = bm25s.BM25(k1=0.9, b=0.4, method="lucene", backend="numba")
    r.index(Tokenized(ids=ids, vocab=vocab), show_progress=False)
    qs = [[w for w in q if w in vocab] for q in queries]
    r.save(str(tmp / "bm25s"))
    size = dir_mib(tmp / "bm25s")

    def run(k):
        return lambda _qs: r.retrieve(qs, k=k, show_progress=False, n_threads=1)
    return run, size


class _quiet_fd2:
    """Silence PISA's C++ progress output on file descriptor 2."""

    def __enter__(self):
        import sys

        sys.stderr.flush()
        self.saved = os.dup(2)
        self.null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(self.null, 2)

    def __exit__(self, *exc):
        os.dup2(self.saved, 2)
        os.close(self.saved)
        os.close(self.null)


def pisa_engine(doc_tokens, docnos, queries, tmp):
    """(run(k, algorithm, quantised) -> callable, index MiB) or None when PISA is unavailable."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pandas as pd
            from pyterrier_pisa import PisaIndex
    except Exception as e:  # noqa: BLE001 - any import failure means "skip PISA"
        print(f"PISA: skipped ({type(e).__name__}: {e})")
        return None
    path = tmp / "pisa"
    t = time.perf_counter()
    with warnings.catch_warnings(), _quiet_fd2():
        warnings.simplefilter("ignore")
        pi = PisaIndex(str(path), stemmer="none", stops="none", threads=1)
        pi.index({"docno": dn, "text": " ".join(toks)} for dn, toks in zip(docnos, doc_tokens))
    print(f"  (PISA index built in {time.perf_counter() - t:.1f} s)")
    frame = pd.DataFrame({"qid": [str(i) for i in range(len(queries))],
                          "query": [" ".join(q) for q in queries]})
    cache = {}

    def run(k, algorithm, quantised=False):
        key = (k, algorithm, quantised)
        if key not in cache:
            with warnings.catch_warnings(), _quiet_fd2():
                warnings.simplefilter("ignore")
                cache[key] = pi.bm25(k1=0.9, b=0.4, num_results=k, threads=1,
                                     query_algorithm=algorithm, precompute_impact=quantised)
        tr = cache[key]
        return lambda _qs: tr.transform(frame)
    big = sorted(((f.stat().st_size / 2**20, f.name) for f in path.rglob("*") if f.is_file()),
                 reverse=True)
    print("  (PISA files over 1 MiB: " + ", ".join(f"{n} {v:.1f}" for v, n in big if v >= 1)
          + ")")
    return run, dir_mib(path)


# ------------------------------------------------------------------ measurement
CPU: dict[str, float] = {}
#: (collection, k, q/s per configuration) of every table, for the targets of issue 29
TARGETS: list = []
RANK_SAFE = ("tb exhaustive", "tb maxscore", "tb bmw", "tb saat")
PRUNED = ("tb maxscore", "tb bmw", "tb saat")
BAND_SAFE = ("tb rho1.4", "tb rho1.4 maxscore", "tb rho1.4 saat")


def print_targets():
    """One line per target of issue 29: the ratio of wall-clock q/s measured in this run (met /
    not met), and the ratio of CPU-time q/s beside it. Float (unquantised) configurations on
    both sides; "best" = the fastest of the group."""
    def best(q, names):
        n = max(names, key=lambda x: q[x])
        return q[n], n

    rows = []
    for name, k, wall, cpu in TARGETS:
        coll = name.split(" (")[0]
        for q, r in ((wall, rows), (cpu, None)):
            out = []
            if k == 10:
                v, n = best(q, RANK_SAFE)
                out.append((f"{coll}: top-10 best rank-safe / bm25s", v / q["bm25s"], 2.0, n))
                if "Zipf" in name:
                    v, n = best(q, PRUNED)
                    out.append((f"{coll}: top-10 pruned / exhaustive", v / q["tb exhaustive"],
                                3.0, n))
            if k == 1000:
                vb, nb = best(q, BAND_SAFE)
                vr, nr = best(q, RANK_SAFE)
                out.append((f"{coll}: top-1000 rho 1.4 best band-safe / best rank-safe",
                            vb / vr, 1.5, f"{nb} / {nr}"))
                out.append((f"{coll}: top-1000 rho 1.4 saat / saat (same traversal)",
                            q["tb rho1.4 saat"] / q["tb saat"], 1.5,
                            f"q8: {q['tb rho1.4 saat q8'] / q['tb saat q8']:.2f}x"))
            if r is not None:
                rows.extend(out)
            else:
                for i, row in enumerate(out):
                    rows[len(rows) - len(out) + i] += (row[1],)
    if not rows:
        return
    print(f"\n== targets (issue 29), load average {os.getloadavg()[0]:.2f} ==")
    print(f"  {'target':68s} {'ratio':>6s} {'cpu':>6s} {'goal':>5s} {'':8s} configurations")
    for t, r, goal, how, rc in rows:
        print(f"  {t:68s} {r:6.2f} {rc:6.2f} {goal:5.1f} {'met' if r >= goal else 'not met':8s}"
              f" {how}")


def measure(configs: dict, queries, rounds: int, results: dict | None = None
            ) -> dict[str, float]:
    """Median q/s (wall clock) over interleaved rounds after one warm-up round (whose results
    go to ``results`` when given); the median q/s by this process's CPU time goes to
    :data:`CPU` (one thread: CPU time excludes the waits a loaded machine imposes)."""
    times: dict[str, list[float]] = {n: [] for n in configs}
    cpu: dict[str, list[float]] = {n: [] for n in configs}
    for n, fn in configs.items():
        r = fn(queries)
        if results is not None:
            results[n] = r
    for _ in range(rounds):
        for n, fn in configs.items():
            c = time.process_time()
            t = time.perf_counter()
            fn(queries)
            times[n].append(time.perf_counter() - t)
            cpu[n].append(time.process_time() - c)
    CPU.clear()
    CPU.update({n: len(queries) / max(statistics.median(v), 1e-9) for n, v in cpu.items()})
    return {n: len(queries) / statistics.median(v) for n, v in times.items()}


def agreement(a, b, n=10):
    """Fraction of queries whose top-n (docids and scores) are identical."""
    same = [np.array_equal(x[0][:n], y[0][:n]) and np.array_equal(x[1][:n], y[1][:n])
            for x, y in zip(a, b)]
    return float(np.mean(same)) if same else float("nan")


ALGORITHM_TABLE = ("exhaustive", "maxscore", "bmw", "saat")


def algorithm_table(name, idx, queries, rounds, ks):
    """Per-query milliseconds of the rank-safe algorithms (median round, wall clock and this
    process's CPU time) and their ratio to exhaustive, one line per algorithm and k. The
    warm-up round (compilation, lazily built arrays) gives the results every algorithm's top k
    is checked against (exhaustive's: documents and scores)."""
    print(f"\n== {name}: {idx.num_docs:,} docs, {idx.num_postings:,} postings, "
          f"{len(queries):,} queries, search --algorithm, median of {rounds} rounds ==")
    print(f"  {'k':>5s} {'algorithm':11s} {'ms/query':>9s} {'x exh':>6s} {'cpu ms/q':>9s} "
          f"{'x exh':>6s} {'same top k':>10s}", flush=True)
    for k in ks:
        cfg = {a: (lambda qs, a=a, k=k: retrieve_many(idx, qs, k, "bm25", algorithm=a, **BM))
               for a in ALGORITHM_TABLE}
        first: dict = {}                       # the warm-up round's results
        ms = {a: 1e3 / v for a, v in measure(cfg, queries, rounds, first).items()}
        cms = {a: 1e3 / v for a, v in CPU.items()}
        for a in ALGORITHM_TABLE:
            same = agreement(first[a], first["exhaustive"], k)
            print(f"  {k:5d} {a:11s} {ms[a]:9.4f} {ms[a] / ms['exhaustive']:6.2f} "
                  f"{cms[a]:9.4f} {cms[a] / cms['exhaustive']:6.2f} {same:10.3f}", flush=True)
    print(f"  (x exh: time relative to exhaustive, below 1 = faster; load average "
          f"{os.getloadavg()[0]:.2f})")


def bench(name, idx, doc_tokens, docnos, vocab, ids, queries, tmp, rounds, ks,
          algorithms_only=False):
    algorithm_table(name, idx, queries, rounds, ks)
    if algorithms_only:
        return
    tmp = tmp / ("engines-" + name.split()[0].lower())
    tmp.mkdir()
    print(f"\n== {name}: {idx.num_docs:,} docs, {idx.num_postings:,} postings, "
          f"{len(queries)} queries (2-5 terms), one thread, median of {rounds} rounds ==")
    t = time.perf_counter()
    bs_run, bs_mib = bm25s_engine(ids, vocab, queries, tmp)
    print(f"  (bm25s index built in {time.perf_counter() - t:.1f} s)")
    pisa = pisa_engine(doc_tokens, docnos, queries, tmp)
    pos_files = ("pos", "pos_ptr", "pos_bytes", "pos_off")
    sizes = {f"tiebreak v{idx.format_version} (all arrays)": dir_mib(idx.path),
             f"tiebreak v{idx.format_version} (no positions)": dir_mib(idx.path, skip=pos_files),
             "bm25s": bs_mib}
    if idx.format_version == 2:
        # first access of a compressed index decodes its blocks: time it on a fresh open
        t = time.perf_counter()
        fresh = open_index(idx.path)
        len(fresh.post_docid)
        t_post = time.perf_counter() - t
        t = time.perf_counter()
        len(fresh.pos)
        print(f"  (v2 first access: postings decoded and checked in {t_post:.2f} s, positions "
              f"in {time.perf_counter() - t:.2f} s)")
        del fresh
    if pisa:
        sizes["PISA (block_simdbp)"] = pisa[1]
    for k in ks:
        cfg = {"tb exhaustive": tb_config(idx, k),
               "tb exh per-query": tb_config(idx, k, per_query=True),
               "tb maxscore": tb_config(idx, k, algorithm="maxscore"),
               "tb bmw": tb_config(idx, k, algorithm="bmw"),
               "tb maxscore q8": tb_config(idx, k, algorithm="maxscore", quantize=8),
               "tb bmw q8": tb_config(idx, k, algorithm="bmw", quantize=8),
               "tb saat": tb_config(idx, k, algorithm="saat"),
               "tb saat q8": tb_config(idx, k, algorithm="saat", quantize=8),
               "tb rho1.4": tb_config(idx, k, rho="1.4"),
               "tb rho1.4 q8": tb_config(idx, k, rho="1.4", quantize=8),
               "tb rho1.4 maxscore": tb_config(idx, k, rho="1.4", algorithm="maxscore"),
               "tb rho1.4 saat": tb_config(idx, k, rho="1.4", algorithm="saat"),
               "tb rho1.4 saat q8": tb_config(idx, k, rho="1.4", algorithm="saat", quantize=8),
               "bm25s": bs_run(k)}
        if k >= 1000:
            cfg["tb rho1.4 interval"] = tb_config(idx, k, rho="1.4", band_method="interval")
        if pisa:
            run = pisa[0]
            cfg.update({"PISA bmw": run(k, "block_max_wand"),
                        "PISA maxscore": run(k, "maxscore"),
                        "PISA ranked_or": run(k, "ranked_or"),
                        "PISA bmw q8": run(k, "block_max_wand", True)})
        qps = measure(cfg, queries, rounds)
        ex = tb_config(idx, k)(queries)
        agree = {n: agreement(tb_config(idx, k, **o)(queries), ex) for n, o in
                 (("tb maxscore", {"algorithm": "maxscore"}), ("tb bmw", {"algorithm": "bmw"}))}
        post = {n: tb_postings(idx, queries, k, **o) for n, o in
                (("tb exhaustive", {}), ("tb maxscore", {"algorithm": "maxscore"}),
                 ("tb bmw", {"algorithm": "bmw"}), ("tb bmw q8", {"algorithm": "bmw",
                                                                  "quantize": 8}),
                 ("tb rho1.4", {"rho": "1.4"}), ("tb saat", {"algorithm": "saat"}),
                 ("tb saat q8", {"algorithm": "saat", "quantize": 8}),
                 ("tb rho1.4 saat", {"rho": "1.4", "algorithm": "saat"}),
                 ("tb rho1.4 saat q8", {"rho": "1.4", "algorithm": "saat", "quantize": 8}))}
        if k >= 1000:
            post["tb rho1.4 interval"] = tb_postings(idx, queries, k, rho="1.4",
                                                     band_method="interval")
        print(f"\n  top-{k} (load average {os.getloadavg()[0]:.2f} after the rounds)")
        print(f"  {'configuration':18s} {'q/s':>10s} {'cpu q/s':>10s} {'x exh':>7s} "
              f"{'x bm25s':>8s}" + (f" {'x PISA bmw':>10s}" if pisa else "")
              + f" {'postings':>14s}")
        for n, v in qps.items():
            line = (f"  {n:18s} {v:10.0f} {CPU[n]:10.0f} {v / qps['tb exhaustive']:7.2f} "
                    f"{v / qps['bm25s']:8.2f}")
            if pisa:
                line += f" {v / qps['PISA bmw']:10.2f}"
            if n in post:
                line += f" {post[n]:>14,}" if isinstance(post[n], int) else f" {post[n]:>14s}"
            print(line)
        print("  identical top-10 (ids and scores) as tb exhaustive: "
              + ", ".join(f"{n} {v:.3f}" for n, v in agree.items()))
        r = qps
        pruned = max(r["tb maxscore"], r["tb bmw"])
        best = max(pruned, r["tb exhaustive"])
        print("  targets: "
              f"pruning/exhaustive {max(r['tb maxscore'], r['tb bmw']) / r['tb exhaustive']:.2f}x"
              f" | pruning/exh per-query {pruned / r['tb exh per-query']:.2f}x"
              f" | pruning/bm25s {max(r['tb maxscore'], r['tb bmw']) / r['bm25s']:.2f}x"
              + (f" | pruning/PISA bmw {max(r['tb maxscore'], r['tb bmw']) / r['PISA bmw']:.2f}x"
                 f" | q8 pruning/PISA q8 bmw "
                 f"{max(r['tb maxscore q8'], r['tb bmw q8']) / r['PISA bmw q8']:.2f}x"
                 if pisa else "")
              + f" | rho1.4/pruned rank-safe {r['tb rho1.4'] / pruned:.2f}x"
              f" | rho1.4/best rank-safe {r['tb rho1.4'] / best:.2f}x"
              + (f" | rho1.4 interval/best rank-safe {r['tb rho1.4 interval'] / best:.2f}x"
                 if "tb rho1.4 interval" in r else ""))
        TARGETS.append((name, k, qps, dict(CPU)))
    print("\n  index MiB: " + ", ".join(f"{n} {v:.1f}" for n, v in sizes.items()))


def vaswani(tmp, rounds, ks, copies=20, algorithms_only=False):
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
    # ASCII term names (PISA's tokenizer would split "u.s.a" or "don't")
    names = [f"w{i}" for i in range(len(vocab))]
    idx = build_index_from_tokens(tmp / "vas", docnos, flat, ptr, names, an)
    queries = []
    for i, (_, t) in enumerate(read_topics(SHARED / "vaswani" / "query-text.trec")):
        q = [f"w{vocab[w]}" for w in an.analyze(t) if w in vocab]
        q = list(dict.fromkeys(q))[:2 + i % 4]
        if len(q) >= 2:
            queries.append(q)
    # 93 topics take milliseconds: repeat the set so a round lasts long enough to time
    queries = queries * copies
    doc_tokens = [[names[i] for i in doc] for doc in ids]
    bench("Vaswani", idx, doc_tokens, docnos, {n: i for i, n in enumerate(names)}, ids, queries,
          tmp, rounds, ks, algorithms_only)


def zipf(tmp, n_docs, avg_len, vocab_size, n_queries, rounds, ks, seed=0,
         frequency_drawn=False, algorithms_only=False):
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, vocab_size + 1) ** 1.07
    p /= p.sum()
    lens = rng.poisson(avg_len, n_docs).astype(np.int64)
    flat = rng.choice(vocab_size, size=int(lens.sum()), p=p).astype(np.int32)
    ptr = np.concatenate([[0], np.cumsum(lens)])
    terms = [f"t{i}" for i in range(vocab_size)]
    queries = []
    cf = np.bincount(flat, minlength=vocab_size).astype(np.float64)
    for _ in range(n_queries):
        m = int(rng.integers(2, 6))
        if frequency_drawn:     # as user queries: a term's chance follows its frequency
            q = rng.choice(vocab_size, size=m, replace=False, p=cf / cf.sum())
        else:
            q = rng.choice(vocab_size - 20, size=m, replace=False, p=p[20:] / p[20:].sum()) + 20
        queries.append([terms[i] for i in q])
    t = time.perf_counter()
    docnos = [f"D{i}" for i in range(n_docs)]
    idx = build_index_from_tokens(tmp / "zipf", docnos, flat, ptr, terms,
                                  Analyzer("none", "none"))
    print(f"\n(zipf: {int(lens.sum()):,} tokens; tiebreak index {time.perf_counter() - t:.1f} s)")
    ids = [flat[ptr[i]:ptr[i + 1]].tolist() for i in range(n_docs)]
    doc_tokens = ([terms[x] for x in doc] for doc in ids)
    how = "frequency-drawn" if frequency_drawn else "top 20 skipped"
    bench(f"Zipf {n_docs:,} docs (V={vocab_size:,}, avg len {avg_len}, queries {how})", idx,
          doc_tokens, docnos, {w: i for i, w in enumerate(terms)}, ids, queries, tmp, rounds, ks,
          algorithms_only)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--zipf-docs", type=int, default=1_000_000)
    ap.add_argument("--zipf-len", type=int, default=40)
    ap.add_argument("--zipf-vocab", type=int, default=200_000)
    ap.add_argument("--queries", "--zipf-queries", dest="queries", type=int, default=1000,
                    help="synthetic (Zipf) queries")
    ap.add_argument("--frequency-drawn", action="store_true",
                    help="Zipf query terms drawn by collection frequency (default: random "
                         "terms skipping the 20 most frequent)")
    ap.add_argument("--algorithms-only", action="store_true",
                    help="only the table of search --algorithm (no bm25s, PISA, bands)")
    ap.add_argument("--skip-zipf", action="store_true")
    ap.add_argument("--skip-vaswani", action="store_true")
    ap.add_argument("--vaswani-copies", type=int, default=20,
                    help="times the 93 Vaswani queries are repeated per round")
    ap.add_argument("-k", type=int, action="append", help="top-k (repeatable; default 10 1000)")
    a = ap.parse_args()
    ks = a.k or [10, 1000]
    tmp = Path(tempfile.mkdtemp(prefix="tb-prune-"))
    try:
        print(f"cpu: {os.cpu_count()} logical cores; single-threaded runs")
        if not a.skip_vaswani:
            vaswani(tmp, a.rounds, ks, a.vaswani_copies, a.algorithms_only)
        if not a.skip_zipf:
            zipf(tmp, a.zipf_docs, a.zipf_len, a.zipf_vocab, a.queries, a.rounds, ks,
                 frequency_drawn=a.frequency_drawn, algorithms_only=a.algorithms_only)
        print_targets()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
