"""Timing study of interval extraction, after Lu (2018) §3.4 (Tables 3.6-3.7, Figs 3.10, 3.11,
3.15): multi-pass baselines against the single-pass all-subquery methods, per document.

Methods (tiebreak.retrieval.intervals, all numba; every call yields the optimal intervals of
every subquery of >= 2 terms of one document; the multi-pass baselines include their own CDF
merge where they use one, the single-pass EPS-CDF-A includes its CDF build):

* ``EPS-IF-S*``  -- Algorithm 1 once per subquery over the position lists;
* ``LPS-CDF-S*`` -- one CDF merge, then Algorithm 2 once per subquery;
* ``LPS-IF-A``   -- Algorithm 3, one pass over the position lists;
* ``EPS-CDF-A``  -- CDF merge + Algorithm 4, one pass.

Documents: for every classic collection of ../shared/data (``--collections``), its topics
(analysed, distinct in-vocabulary terms, in query order) cut to their first k = 3, 5, 7, 8, 10
terms (topics shorter than k are skipped) and at natural length (topics of 2..``--natural-max``
terms: the multi-pass baselines cost 2^k per document), the top-100 BM25 documents of each
(cut) query. Plus synthetic long, dense documents (``--synthetic-len`` tokens, each a query term
with probability alpha).

Reported: median and maximum ms/document per method and k; the ratio of the multi-pass median
to the best single-pass median; a paired Wilcoxon signed-rank test (scipy) of LPS-IF-A against
EPS-CDF-A per k; on the synthetic documents the CDF build time against the term density alpha.

Usage::

    python benchmarks/bench_intervals.py [--collections cacm,cisi,...] [--max-queries 25]

Each document is timed as the best of 3 calls after a warm-up, so a maximum is a document's
cost rather than a scheduler hiccup (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared" / "data"
KS = (3, 5, 7, 8, 10)
METHODS = ("EPS-IF-S*", "LPS-CDF-S*", "LPS-IF-A", "EPS-CDF-A")


def kernels():
    from tiebreak.retrieval import intervals as iv

    def run_multi(kern):
        def f(flat, starts, ends, bufs):
            while True:
                n = kern(flat, starts, ends, False, bufs[0], bufs[1], bufs[2])
                if n <= len(bufs[0]):
                    return n
                bufs[:] = [np.empty(2 * n, b.dtype) for b in bufs]
        return f

    def lps_if_a(flat, starts, ends, bufs):
        while True:
            n = iv.lps_if_all_kernel(flat, starts, ends, False, *bufs)
            if n <= len(bufs[0]):
                return n
            bufs[:] = [np.empty(2 * n, b.dtype) for b in bufs]

    def eps_cdf_a(flat, starts, ends, bufs):
        while True:
            n = iv.eps_cdf_all_if_kernel(flat, starts, ends, False, *bufs)
            if n <= len(bufs[0]):
                return n
            bufs[:] = [np.empty(2 * n, b.dtype) for b in bufs]

    return {"EPS-IF-S*": run_multi(iv.eps_if_multi_kernel),
            "LPS-CDF-S*": run_multi(iv.lps_cdf_multi_kernel),
            "LPS-IF-A": lps_if_a, "EPS-CDF-A": eps_cdf_a}


def new_bufs(kind: str):
    cap = 4096
    if kind in ("EPS-IF-S*", "LPS-CDF-S*"):
        return [np.empty(cap, np.int64), np.empty(cap, np.int32), np.empty(cap, np.int32)]
    return [np.empty(cap, np.int64)] + [np.empty(cap, np.int32) for _ in range(4)]


def flat_lists(pl):
    lens = np.array([len(p) for p in pl], np.int64)
    ends = np.cumsum(lens)
    return np.concatenate(pl).astype(np.int32), ends - lens, ends


def time_docs(docs, fns, bufs, repeat: int = 3):
    """{method: (n_docs,) seconds}: per document the best of ``repeat`` calls (so a maximum is
    the document's cost, not a scheduler hiccup), after a warm-up call on the first doc."""
    out = {}
    for name, fn in fns.items():
        if docs:
            fn(*docs[0], bufs[name])
        ts = np.empty(len(docs))
        for i, d in enumerate(docs):
            best = float("inf")
            for _ in range(repeat):
                t = time.perf_counter()
                fn(*d, bufs[name])
                best = min(best, time.perf_counter() - t)
            ts[i] = best
        out[name] = ts
    return out


def collection_docs(name, workdir, max_queries, natural_max):
    """{k label: [(flat, starts, ends) per (query, top-100 document)]} for one collection."""
    from tiebreak.index import build_index
    from tiebreak.index.readers import read_topics
    from tiebreak.index.testcollections import COLLECTIONS
    from tiebreak.retrieval.models import bm25

    c = COLLECTIONS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        idx = build_index(c.docs_source(SHARED), workdir / f"idx_{name}", fields=c.fields,
                          progress=False)
    topics = read_topics(c.topics_source(SHARED))[:max_queries]
    an = idx.analyzer.analyze
    out: dict[str, list] = {}
    for _, text in topics:
        terms = list(dict.fromkeys(t for t in an(text) if idx.term_id(t) >= 0))
        cuts = [(str(k), terms[:k]) for k in KS if len(terms) >= k]
        if 2 <= len(terms) <= natural_max:
            cuts.append(("natural", terms))
        for label, q in cuts:
            tids = [idx.term_id(t) for t in q]
            docids, _ = bm25(idx, q, 100)
            post = {}
            for j, t in enumerate(tids):
                d, _ = idx.postings(t)
                offs, pos = idx.positions(t)
                post[j] = (np.asarray(d), np.asarray(offs), np.asarray(pos))
            for d in docids.tolist():
                pl = []
                for j in range(len(tids)):
                    dd, offs, pos = post[j]
                    i = np.searchsorted(dd, d)
                    if i < len(dd) and dd[i] == d:
                        pl.append(pos[offs[i]:offs[i + 1]])
                    else:
                        pl.append(np.zeros(0, np.int32))
                out.setdefault(label, []).append(flat_lists(pl))
    return out


def synthetic(k, alpha, length, rng):
    toks = np.where(rng.random(length) < alpha, rng.integers(0, k, length), -1)
    return flat_lists([np.flatnonzero(toks == j).astype(np.int32) for j in range(k)])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--collections",
                    default="adi,medline,cisi,cacm,time,lisa,npl")
    ap.add_argument("--max-queries", type=int, default=25)
    ap.add_argument("--natural-max", type=int, default=10)
    ap.add_argument("--synthetic-len", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    from scipy.stats import wilcoxon

    from tiebreak.retrieval import intervals as iv

    fns = kernels()
    bufs = {m: new_bufs(m) for m in METHODS}
    pool: dict[str, list] = {}
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "irds"
        shutil.copytree(SHARED / "ir_datasets_home", home)
        os.environ["IR_DATASETS_HOME"] = str(home)
        for name in args.collections.split(","):
            for label, docs in collection_docs(name, Path(tmp), args.max_queries,
                                               args.natural_max).items():
                pool.setdefault(label, []).extend(docs)
    print(f"documents gathered in {time.perf_counter() - t0:.0f} s "
          f"(collections: {args.collections}; first {args.max_queries} topics each)\n")

    print("real documents (top-100 BM25 per query): ms per document")
    head = " ".join(f"{m + ' med':>15} {'max':>8}" for m in METHODS)
    print(f"{'k':>8} {'docs':>6} {'occ':>5} {head} {'multi/single':>13} {'Wilcoxon p':>11}")
    for label in [str(k) for k in KS] + ["natural"]:
        docs = pool.get(label, [])
        if not docs:
            continue
        ts = time_docs(docs, fns, bufs)
        occ = np.median([len(d[0]) for d in docs])
        row = " ".join(f"{np.median(ts[m]) * 1e3:15.4f} {ts[m].max() * 1e3:8.3f}"
                       for m in METHODS)
        best_multi = min(np.median(ts["EPS-IF-S*"]), np.median(ts["LPS-CDF-S*"]))
        best_single = min(np.median(ts["LPS-IF-A"]), np.median(ts["EPS-CDF-A"]))
        diff = ts["LPS-IF-A"] - ts["EPS-CDF-A"]
        p = wilcoxon(diff).pvalue if np.any(diff != 0) else 1.0
        print(f"{label:>8} {len(docs):6d} {occ:5.0f} {row} {best_multi / best_single:13.1f} "
              f"{p:11.2g}")

    print(f"\nsynthetic documents ({args.synthetic_len} tokens): ms per document (median of 5)")
    rng = np.random.default_rng(args.seed)
    print(f"{'k':>3} {'alpha':>6} {'occ':>6} {'CDF build':>10} "
          + " ".join(f"{m:>11}" for m in METHODS))
    for k in (3, 5, 8, 10):
        for alpha in (0.01, 0.05, 0.15, 0.3, 0.6):
            docs = [synthetic(k, alpha, args.synthetic_len, rng) for _ in range(5)]
            skip = k * alpha >= 2.4            # multi-pass: minutes
            use = {m: f for m, f in fns.items() if not (skip and m.endswith("*"))}
            ts = time_docs(docs, use, bufs)
            cdf = []
            for flat, starts, ends in docs:
                cp = np.empty(len(flat), np.int32)
                ct = np.empty(len(flat), np.int32)
                cur = np.empty(k, np.int64)
                iv.merge_cdf_kernel(flat, starts, ends, cp, ct, cur)
                t = time.perf_counter()
                iv.merge_cdf_kernel(flat, starts, ends, cp, ct, cur)
                cdf.append(time.perf_counter() - t)
            cells = " ".join(f"{np.median(ts[m]) * 1e3:11.3f}" if m in ts else f"{'-':>11}"
                             for m in METHODS)
            print(f"{k:3d} {alpha:6.2f} {np.median([len(d[0]) for d in docs]):6.0f} "
                  f"{np.median(cdf) * 1e3:10.4f} {cells}")
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
