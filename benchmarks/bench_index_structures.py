"""Index structures of Lu (2018) Table 2.2 on a classic collection: the positional inverted
index, the stored direct file and the term-pair (nextword) index of the collection's topics --
size on disk and speed.

Sizes (bytes on disk, ``.npy`` files as written): the positional index without the direct file
(its positions part, ``pos_off`` + ``pos_bytes``, on its own too), the direct file
(``direct.npy``) and the pair index of the topics' SDM pairs (all its files).

Speed:

* pair lookups per second, over every pair of the topics in one compiled loop (best of
  ``--repeat`` passes; the three are checked to find the same phrase occurrences):
  ``positional`` -- the per-document #1 (phrase) and #uw8 counts of the pair by one merge of
  the two terms' positional postings (the computation the pair index stores,
  :func:`tiebreak.retrieval.pairindex._pair_postings`); ``direct file`` -- the documents
  holding both terms from the postings (no positions), then each one's phrase count read from
  its direct file (#1 only); ``pair index`` -- one lookup (:meth:`PairIndex.postings`);
* rerank time per query: the two-stage Lkp (:func:`tiebreak.retrieval.rerank.rerank`, BM25
  top ``--first-k`` rescored, top ``--depth`` returned) with candidates' CDFs merged from the
  positional postings against read from the direct file (the same results, checked here);
  the pair index has no role in Lkp (n/a). The first use of the positions of a compressed
  (version 2) index decodes them all once; that one-off cost is printed apart.

Usage::

    python benchmarks/bench_index_structures.py [--collection cacm] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared" / "data"
SOURCES = {
    "cacm": ("cacm/anserini_cacm_html.tar.gz", "cacm/anserini_topics.cacm.txt"),
}


def _dir_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


def _kernels():
    """Compiled loops over all pairs (so that a lookup is timed, not a Python call)."""
    from tiebreak._native.jit import njit
    from tiebreak.retrieval.pairindex import _pair_postings
    from tiebreak.retrieval.proxprune import next_common

    @njit(cache=True, nogil=True)
    def phrase_direct(pp, pd, ta, tb, direct, start):
        # documents holding both terms (postings only), then their phrase count "ta tb" read
        # from the direct file; returns (documents with the phrase, phrase occurrences)
        ie, je = pp[ta + 1], pp[tb + 1]
        nd = 0
        tot = 0
        i, j = next_common(pd, pp[ta], ie, pp[tb], je)
        while i < ie:
            d = pd[i]
            c = 0
            for p in range(start[d], start[d + 1] - 1):
                if direct[p] == ta and direct[p + 1] == tb:
                    c += 1
            if c > 0:
                nd += 1
                tot += c
            i, j = next_common(pd, i + 1, ie, j + 1, je)
        return nd, tot

    @njit(cache=True, nogil=True)
    def all_positional(pa, pb, pp, pd, qp, pos, w, dd, od, uw):
        tot = 0
        for x in range(pa.size):
            n = _pair_postings(pp, pd, qp, pos, np.int64(pa[x]), np.int64(pb[x]), w, dd, od, uw)
            for i in range(n):
                tot += od[i]
        return tot

    @njit(cache=True, nogil=True)
    def all_direct(pa, pb, pp, pd, direct, start):
        tot = 0
        for x in range(pa.size):
            tot += phrase_direct(pp, pd, np.int64(pa[x]), np.int64(pb[x]), direct, start)[1]
        return tot

    @njit(cache=True, nogil=True)
    def all_pairs(key, qa, qb, ptr, od):
        # a lookup: binary search of the pair's key, then its slice of #1 counts
        tot = 0
        for x in range(qa.size):
            k = (np.int64(qa[x]) << 32) | np.int64(qb[x])
            i = np.searchsorted(key, k)
            for j in range(ptr[i], ptr[i + 1]):
                tot += od[j]
        return tot

    return all_positional, all_direct, all_pairs


def _best(fn, repeat: int) -> float:
    fn()    # warm-up (compilation, first use)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run(collection: str, repeat: int, first_k: int, depth: int, workdir: Path) -> dict:
    from tiebreak.index import build_index
    from tiebreak.index.readers import read_topics
    from tiebreak.index.store import open_index
    from tiebreak.retrieval.dependency.plan import _arrays
    from tiebreak.retrieval.pairindex import build_pair_index
    from tiebreak.retrieval.rerank import rerank

    src, top = SOURCES[collection]
    idx = build_index(SHARED / src, workdir / "index", progress=False, direct=True)
    # first use of the positions of a freshly opened version-2 index: decoded once
    fresh = open_index(workdir / "index")
    t0 = time.perf_counter()
    _arrays(fresh)
    t_decode = time.perf_counter() - t0
    del fresh
    topics = read_topics(str(SHARED / top))
    queries = [idx.analyzer.analyze(text) for _, text in topics]
    t0 = time.perf_counter()
    pi = build_pair_index(idx, queries, workdir / "pairs")
    t_build_pairs = time.perf_counter() - t0
    arrays = idx.manifest["arrays"]
    sizes = {
        "positional index": sum(m["file_bytes"] for k, m in arrays.items() if k != "direct"),
        "  of which positions": sum(arrays[k]["file_bytes"] for k in ("pos_off", "pos_bytes")),
        "direct file": arrays["direct"]["file_bytes"],
        "pair index": _dir_bytes(workdir / "pairs"),
    }
    pp, pd, _, qp, pos = _arrays(idx)[:5]
    pairs = pi.pairs()
    cap = int(max((min(np.diff(pp)[a], np.diff(pp)[b]) for a, b in pairs), default=0))
    od = np.empty(cap, np.int32)
    uw = np.empty(cap, np.int32)
    dd = np.empty(cap, np.int32)
    w = np.int64(8)

    all_positional, all_direct, all_pairs = _kernels()
    direct = np.asarray(idx.direct, np.int32)
    start = idx.doc_start()
    pa, pb = pi.pair_a, pi.pair_b
    # the three agree on the phrase occurrences of every pair (summed)
    n_phr = all_positional(pa, pb, pp, pd, qp, pos, w, dd, od, uw)
    assert n_phr == all_direct(pa, pb, pp, pd, direct, start)
    assert n_phr == all_pairs(pi._key, pa, pb, pi.pair_ptr, pi.n_od) == int(pi.n_od.sum())
    t_pos = _best(lambda: all_positional(pa, pb, pp, pd, qp, pos, w, dd, od, uw), repeat)
    t_dir = _best(lambda: all_direct(pa, pb, pp, pd, direct, start), repeat)
    t_pair = _best(lambda: all_pairs(pi._key, pa, pb, pi.pair_ptr, pi.n_od), repeat)

    qs = [q for q in queries if q]

    def rr(use):
        def f():
            for q in qs:
                rerank(idx, q, depth, first_k=first_k, direct=use)
        return f

    for q in qs:     # the same docids and bit-identical scores
        d0, s0 = rerank(idx, q, depth, first_k=first_k, direct=False)
        d1, s1 = rerank(idx, q, depth, first_k=first_k, direct=True)
        assert d0.tolist() == d1.tolist() and s0.tobytes() == s1.tobytes()
    r_pos = _best(rr(False), repeat)
    r_dir = _best(rr(True), repeat)
    return {"collection": collection, "docs": idx.num_docs, "tokens": idx.collection_length,
            "pairs": len(pairs), "pair_postings": pi.num_postings, "queries": len(qs),
            "sizes": sizes, "t_decode": t_decode, "t_build_pairs": t_build_pairs,
            "lookups": {"positional": len(pairs) / t_pos, "direct file": len(pairs) / t_dir,
                        "pair index": len(pairs) / t_pair},
            "rerank_ms": {"positional": 1e3 * r_pos / len(qs),
                          "direct file": 1e3 * r_dir / len(qs)},
            "first_k": first_k, "depth": depth}


def report(r: dict) -> str:
    from tabulate import tabulate

    s = r["sizes"]
    base = s["positional index"]
    lk = r["lookups"]
    rk = r["rerank_ms"]
    rows = [
        ["positional index", base, "1.00", f"{lk['positional']:,.0f}", "1.00",
         f"{rk['positional']:.3f}", "1.00"],
        ["direct file", s["direct file"], f"{s['direct file'] / base:.2f}",
         f"{lk['direct file']:,.0f}", f"{lk['direct file'] / lk['positional']:.2f}",
         f"{rk['direct file']:.3f}", f"{rk['positional'] / rk['direct file']:.2f}"],
        ["pair index", s["pair index"], f"{s['pair index'] / base:.2f}",
         f"{lk['pair index']:,.0f}", f"{lk['pair index'] / lk['positional']:.2f}", "n/a", ""],
    ]
    head = (f"{r['collection']}: {r['docs']} documents, {r['tokens']} tokens; "
            f"{r['pairs']} SDM pairs of {r['queries']} topics ({r['pair_postings']} pair "
            f"postings, built in {r['t_build_pairs']:.3f} s); positions of the version-2 "
            f"index: {s['  of which positions']} bytes, decoded at first use in "
            f"{r['t_decode']:.3f} s (postings too; the direct-file rerank needs the postings "
            f"only); rerank: Lkp over the BM25 top {r['first_k']}, depth "
            f"{r['depth']}")
    table = tabulate(rows, headers=["structure", "bytes", "size ratio", "pair lookups/s",
                                    "speed-up", "rerank ms/query", "speed-up"],
                     tablefmt="github", disable_numparse=True)
    return head + "\n\n" + table


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--collection", default="cacm", choices=sorted(SOURCES))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--first-k", type=int, default=1000)
    ap.add_argument("--depth", type=int, default=1000)
    a = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-structures-"))
    try:
        print(report(run(a.collection, a.repeat, a.first_k, a.depth, work)))
        print(f"(load average {os.getloadavg()[0]:.1f})")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
