"""Timing study of interval extraction, after Lu (2018) §3.3-3.4 (Tables 3.6-3.7, Figs 3.10,
3.11, 3.15), and the check of the measured thresholds of ``choose_method`` on real documents.

Sections of the output:

1. the thresholds measured on this machine (:func:`tiebreak.retrieval.interval_calibration.
   calibrate`, synthetic documents; what ``tiebreak index --calibrate-intervals`` stores) beside
   the thesis's (alpha = 0.15; k >= 7);
2. Table 3.6: the optimal |Q|-intervals (one subquery, the whole query) per document, median and
   maximum ms per method and k: LPS-DF-S (LPS over the document's direct file; here the file
   holds local query-term ids, -1 for every other token, so the thesis's per-token term-map
   lookup is not timed), LPS-DF-S+TF (with the TF counters of §3.3.2), EPS-IF-S and LPS-IF-S
   (CDF merged from the position lists, then LPS);
3. Fig. 3.11's data: the same per-document times binned by the document's term density
   alpha = T_{Q,D} / |D| (``--tsv DIR`` writes every document's row);
4. the rules on real documents: how often the thesis's and the measured thresholds pick the
   faster method, and the total time under each rule against always-the-faster (oracle);
5. Table 3.7 (all subqueries), as below.

Table 3.7 methods (tiebreak.retrieval.intervals, all numba; every call yields the optimal
intervals of every subquery of >= 2 terms of one document; the multi-pass baselines include
their own CDF merge where they use one, the single-pass EPS-CDF-A includes its CDF build):

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
    python benchmarks/bench_intervals.py --quick          # two collections, ten topics: ~1 min

Table 3.7: each document is timed as the best of 3 calls after a warm-up, so a maximum is a
document's cost rather than a scheduler hiccup (the machine is shared). Table 3.6 and Fig. 3.11:
each document is run ``--copies`` times in one compiled call (no Python dispatch per run: the
medians are microseconds), best of 3.
"""

from __future__ import annotations

import argparse
import json
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
            fn(*docs[0][:3], bufs[name])
        ts = np.empty(len(docs))
        for i, d in enumerate(docs):
            best = float("inf")
            for _ in range(repeat):
                t = time.perf_counter()
                fn(*d[:3], bufs[name])
                best = min(best, time.perf_counter() - t)
            ts[i] = best
        out[name] = ts
    return out


def collection_docs(name, workdir, max_queries, natural_max):
    """{k label: [(flat, starts, ends, doclen) per (query, top-100 document)]} for one
    collection."""
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
                dl = int(idx.doclen[d])
                pl = []
                for j in range(len(tids)):
                    dd, offs, pos = post[j]
                    i = np.searchsorted(dd, d)
                    if i < len(dd) and dd[i] == d:
                        pl.append(pos[offs[i]:offs[i + 1]])
                    else:
                        pl.append(np.zeros(0, np.int32))
                out.setdefault(label, []).append(flat_lists(pl) + (dl,))
    return out


def synthetic(k, alpha, length, rng):
    toks = np.where(rng.random(length) < alpha, rng.integers(0, k, length), -1)
    return flat_lists([np.flatnonzero(toks == j).astype(np.int32) for j in range(k)])


#: Table 3.6's methods (codes of tiebreak.retrieval.interval_calibration.METHODS)
SINGLE = {"LPS-DF-S": 4, "LPS-DF-S+TF": 5, "EPS-IF-S": 0, "LPS-IF-S": 1}
#: Fig. 3.11's density bins
ALPHA_BINS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.25, 0.4, 1.0001)


def direct_file(flat, starts, ends, doclen):
    """The document's direct file over local query-term ids (-1 for any other token)."""
    toks = np.full(max(doclen, 1), -1, np.int32)
    for j in range(len(starts)):
        toks[flat[starts[j]:ends[j]]] = j
    return toks


def batched_times(docs, copies: int, methods=SINGLE, repeat: int = 3):
    """{method: (n,) seconds per document} of ``methods`` ({name: code of
    interval_calibration.METHODS}) and (n,) alpha: each document run ``copies`` times in one
    compiled call (no Python dispatch per run), best of ``repeat``."""
    from tiebreak.retrieval import interval_calibration as ic

    bufs = ic.buffers(1 << 12)
    out = {m: np.empty(len(docs)) for m in methods}
    alpha = np.empty(len(docs))
    for i, (flat, starts, ends, doclen) in enumerate(docs):
        alpha[i] = len(flat) / max(doclen, 1)
        one = (flat, starts[None, :], ends[None, :])
        need = max(len(flat), ic.run_batch(3, one, bufs) if 3 in methods.values() else 0)
        if need > len(bufs[1]):
            bufs = ic.buffers(2 * need)
        batch = (flat, np.tile(starts, (copies, 1)), np.tile(ends, (copies, 1)))
        dfile = direct_file(flat, starts, ends, doclen)
        df = (np.tile(dfile, copies), np.arange(copies + 1, dtype=np.int64) * len(dfile))
        ts = ic.time_cell(tuple(methods.values()), batch, bufs, repeat, df)
        for m, t in zip(methods, ts):
            out[m][i] = t                        # time_cell: per row of the batch
    return out, alpha


def synthetic_docs(k, alpha, length, n, rng):
    """``n`` synthetic documents in the (flat, starts, ends, doclen) form of the real ones."""
    from tiebreak.retrieval.interval_calibration import synthetic_document

    return [flat_lists(synthetic_document(k, alpha, length, rng)) + (length,)
            for _ in range(n)]


def rule_check(name, alpha, k, t_old, t_new, rules):
    """One line per rule: how often it picks the faster of two methods and its total time
    against the oracle's (always the faster)."""
    oracle = np.minimum(t_old, t_new).sum()
    print(f"  {name}: {len(alpha)} documents; oracle total {oracle * 1e3:.1f} ms; always old "
          f"{t_old.sum() / oracle:.3f}x, always new {t_new.sum() / oracle:.3f}x")
    for label, pick_new in rules:
        new = pick_new(alpha, k)
        t = np.where(new, t_new, t_old)
        right = np.mean(np.where(new, t_new <= t_old, t_old <= t_new))
        print(f"    {label:<44} faster pick {right:6.1%}  total {t.sum() / oracle:.3f}x oracle "
              f"({new.mean():.1%} of documents to the new method)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--collections",
                    default="adi,medline,cisi,cacm,time,lisa,npl")
    ap.add_argument("--max-queries", type=int, default=25)
    ap.add_argument("--natural-max", type=int, default=10)
    ap.add_argument("--synthetic-len", type=int, default=20000)
    ap.add_argument("--copies", type=int, default=10,
                    help="runs of one document per timed call (Table 3.6 / Fig. 3.11)")
    ap.add_argument("--quick", action="store_true",
                    help="cacm and cisi, 10 topics, no Table 3.7 multi-pass beyond k = 7, "
                         "shorter synthetic documents")
    ap.add_argument("--tsv", metavar="DIR",
                    help="write table3.6.tsv, fig3.11.tsv (one row per document) and "
                         "thresholds.json there")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if args.quick:
        args.collections, args.max_queries, args.natural_max = "cacm,cisi", 10, 7
        args.synthetic_len, args.copies = 5000, 5

    from scipy.stats import wilcoxon

    from tiebreak.retrieval import intervals as iv
    from tiebreak.retrieval.interval_calibration import calibrate

    t0 = time.perf_counter()
    print("1. thresholds of choose_method measured on this machine (synthetic documents)")
    cal = calibrate(seed=args.seed)
    print(cal.table())
    print(f"(measured in {cal.seconds:.1f} s)\n")
    th, thesis = cal.thresholds, iv.THESIS_THRESHOLDS

    fns = kernels()
    bufs = {m: new_bufs(m) for m in METHODS}
    pool: dict[str, list] = {}
    t1 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "irds"
        shutil.copytree(SHARED / "ir_datasets_home", home)
        os.environ["IR_DATASETS_HOME"] = str(home)
        for name in args.collections.split(","):
            for label, docs in collection_docs(name, Path(tmp), args.max_queries,
                                               args.natural_max).items():
                pool.setdefault(label, []).extend(docs)
    print(f"documents gathered in {time.perf_counter() - t1:.0f} s "
          f"(collections: {args.collections}; first {args.max_queries} topics each)\n")

    print("2. Table 3.6: optimal |Q|-intervals (one subquery), real documents (top-100 BM25 per "
          "query): ms per document")
    head = " ".join(f"{m + ' med':>16} {'max':>7}" for m in SINGLE)
    print(f"{'k':>3} {'docs':>6} {'occ':>5} {'alpha':>6} {head}")
    fig: list = []
    for k in KS:
        docs = pool.get(str(k), [])
        if not docs:
            continue
        ts, alpha = batched_times(docs, args.copies)
        row = " ".join(f"{np.median(ts[m]) * 1e3:16.4f} {ts[m].max() * 1e3:7.4f}"
                       for m in SINGLE)
        print(f"{k:3d} {len(docs):6d} {np.median([len(d[0]) for d in docs]):5.0f} "
              f"{np.median(alpha):6.3f} {row}")
        fig += [(k, alpha[i], *(ts[m][i] for m in SINGLE)) for i in range(len(docs))]
    figa = np.array(fig)

    print("\n3. Fig. 3.11: ms per document against the term density alpha (all k; median)")
    print(f"{'alpha':>13} {'docs':>6} " + " ".join(f"{m:>12}" for m in SINGLE))
    for lo, hi in zip(ALPHA_BINS[:-1], ALPHA_BINS[1:]):
        sel = (figa[:, 1] >= lo) & (figa[:, 1] < hi)
        if not sel.any():
            continue
        cells = " ".join(f"{np.median(figa[sel, 2 + j]) * 1e3:12.4f}" for j in range(len(SINGLE)))
        print(f"[{lo:.2f},{min(hi, 1):.2f}) {int(sel.sum()):6d} {cells}")

    rng = np.random.default_rng(args.seed)
    print(f"\n3b. the same on synthetic documents of {args.synthetic_len} tokens (web-page "
          "length; 5 per cell): median ms per document")
    print(f"{'k':>3} {'alpha':>6} {'occ':>6} " + " ".join(f"{m:>12}" for m in SINGLE))
    from tiebreak.retrieval.interval_calibration import crossing

    cross: dict = {}
    for k in (3, 5, 8, 10):
        for a in (0.01, 0.05, 0.15, 0.3, 0.6):
            docs = synthetic_docs(k, a, args.synthetic_len, 5, rng)
            ts, alpha = batched_times(docs, 2)
            print(f"{k:3d} {a:6.2f} {np.median([len(d[0]) for d in docs]):6.0f} "
                  + " ".join(f"{np.median(ts[m]) * 1e3:12.4f}" for m in SINGLE))
            for m in ("LPS-DF-S+TF", "LPS-IF-S"):
                cross.setdefault(m, ([], []))
                cross[m][0].append(float(np.mean(alpha)))
                cross[m][1].append(float(np.median(ts[m]) / np.median(ts["EPS-IF-S"])))
    for m, (al, ra) in cross.items():
        c = crossing(al, ra)
        print(f"  {m} faster than EPS-IF-S from alpha >= "
              f"{'never' if c is None else f'{c:.3f}'} (all k; the thesis's Fig. 3.10 "
              f"choice: 0.15)")

    print("\n4. the rules on these documents")
    col = {m: 2 + j for j, m in enumerate(SINGLE)}

    def single_rule(t):
        return lambda a, k: (np.zeros(len(a), bool) if t.alpha_single is None
                             else a >= t.alpha_single)

    rule_check("one subquery, EPS-IF-S (old) vs LPS-IF-S (new)", figa[:, 1], figa[:, 0],
               figa[:, col["EPS-IF-S"]], figa[:, col["LPS-IF-S"]],
               [(f"thesis: LPS from alpha >= {thesis.alpha_single}", single_rule(thesis)),
                (f"measured: LPS from alpha >= {th.alpha_single}", single_rule(th))])
    rule_check("one subquery, EPS-IF-S (old) vs LPS-DF-S+TF (new, Fig. 3.10's choice)",
               figa[:, 1], figa[:, 0], figa[:, col["EPS-IF-S"]], figa[:, col["LPS-DF-S+TF"]],
               [(f"thesis: DF from alpha >= {thesis.alpha_single}", single_rule(thesis))])
    all_rows = []

    print("\n5. Table 3.7: all subqueries, real documents: ms per document")
    head = " ".join(f"{m + ' med':>15} {'max':>8}" for m in METHODS)
    print(f"{'k':>8} {'docs':>6} {'occ':>5} {head} {'multi/single':>13} {'Wilcoxon p':>11}")
    for label in [str(k) for k in KS] + ["natural"]:
        docs = pool.get(label, [])
        if not docs:
            continue
        skip = args.quick and label not in ("3", "5", "7")
        use = {m: f for m, f in fns.items() if not (skip and m.endswith("*"))}
        ts = time_docs(docs, use, bufs)
        occ = np.median([len(d[0]) for d in docs])
        row = " ".join(f"{np.median(ts[m]) * 1e3:15.4f} {ts[m].max() * 1e3:8.3f}"
                       if m in ts else f"{'-':>15} {'-':>8}" for m in METHODS)
        best_single = min(np.median(ts["LPS-IF-A"]), np.median(ts["EPS-CDF-A"]))
        ratio = (min(np.median(ts["EPS-IF-S*"]), np.median(ts["LPS-CDF-S*"])) / best_single
                 if "EPS-IF-S*" in ts else float("nan"))
        diff = ts["LPS-IF-A"] - ts["EPS-CDF-A"]
        p = wilcoxon(diff).pvalue if np.any(diff != 0) else 1.0
        print(f"{label:>8} {len(docs):6d} {occ:5.0f} {row} {ratio:13.1f} {p:11.2g}")
        if label != "natural":      # the rule check times them batched (no dispatch)
            bt, alpha = batched_times(docs, args.copies, {"LPS-IF-A": 2, "EPS-CDF-A": 3})
            all_rows += [(len(d[1]), alpha[i], bt["LPS-IF-A"][i], bt["EPS-CDF-A"][i])
                         for i, d in enumerate(docs)]
    alla = np.array(all_rows)

    def all_rule(t):
        def pick(a, k):
            new = np.zeros(len(a), bool)
            if t.alpha_all is not None:
                new |= a >= t.alpha_all
            if t.k_all is not None:
                new |= k >= t.k_all
            return new
        return pick

    print()
    rule_check("all subqueries (batched timing), LPS-IF-A (old) vs EPS-CDF-A (new)",
               alla[:, 1], alla[:, 0],
               alla[:, 2], alla[:, 3],
               [(f"thesis: alpha >= {thesis.alpha_all} or k >= {thesis.k_all}",
                 all_rule(thesis)),
                (f"measured: alpha >= {th.alpha_all} or k >= {th.k_all}", all_rule(th))])

    print(f"\nsynthetic documents ({args.synthetic_len} tokens): ms per document (median of 5)")
    print(f"{'k':>3} {'alpha':>6} {'occ':>6} {'CDF build':>10} "
          + " ".join(f"{m:>11}" for m in METHODS))
    for k in (3, 5, 8, 10):
        for alpha in (0.01, 0.05, 0.15, 0.3, 0.6):
            docs = [synthetic(k, alpha, args.synthetic_len, rng) for _ in range(5)]
            skip = k * alpha >= 2.4 or (args.quick and k >= 8)      # multi-pass: minutes
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
    if args.tsv:
        out = Path(args.tsv)
        out.mkdir(parents=True, exist_ok=True)
        with open(out / "fig3.11.tsv", "w") as fh:
            fh.write("k\talpha\t" + "\t".join(f"{m}_ms" for m in SINGLE) + "\n")
            for r in fig:
                fh.write(f"{r[0]}\t{r[1]:.6f}\t" + "\t".join(f"{x * 1e3:.6f}" for x in r[2:])
                         + "\n")
        with open(out / "table3.6.tsv", "w") as fh:
            fh.write("k\tdocs\t" + "\t".join(f"{m}_med_ms\t{m}_max_ms" for m in SINGLE) + "\n")
            for k in KS:
                sel = figa[:, 0] == k
                if sel.any():
                    fh.write(f"{k}\t{int(sel.sum())}\t" + "\t".join(
                        f"{np.median(figa[sel, 2 + j]) * 1e3:.6f}\t"
                        f"{figa[sel, 2 + j].max() * 1e3:.6f}" for j in range(len(SINGLE)))
                        + "\n")
        (out / "thresholds.json").write_text(json.dumps(
            {"measured": th.to_json(), "thesis": thesis.to_json()}, indent=1) + "\n")
        print(f"\nwrote {out}/table3.6.tsv, fig3.11.tsv, thresholds.json")
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
