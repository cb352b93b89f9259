"""Scale: evaluate ~2,000 runs (the 143 TREC-COVID round 1 runs, replicated) locally (one
process and ``jobs=2``) and on a Dask LocalCluster of 2 single-threaded workers; prints the time
per run and checks that the three give identical results.

Usage::

    python benchmarks/bench_scale.py [--data DIR] [--copies 14]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--copies", type=int, default=14)
    a = ap.parse_args()
    import tiebreak as tb

    d = a.data / "trec_covid" / "round1"
    runs = sorted((d / "runs").iterdir()) * a.copies
    q = tb.read_qrels(d / "qrels-rnd1.txt")
    measures = ["AP", "nDCG@10", "P@10", "RR", "R@1000", "bpref"]
    out = {}
    for label, kw in [("1 process", {"jobs": 1}), ("jobs=2", {"jobs": 2})]:
        t = time.perf_counter()
        out[label] = tb.Evaluator(q, measures, ["trec_eval"]).evaluate(runs, **kw)
        dt = time.perf_counter() - t
        print(f"{label:>24}: {len(runs)} runs in {dt:6.1f} s = {1e3 * dt / len(runs):5.1f} ms/run",
              flush=True)
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        tb.Evaluator(q, measures, ["trec_eval"]).evaluate(runs[:4], client=client)  # warm-up
        t = time.perf_counter()
        out["dask"] = tb.Evaluator(q, measures, ["trec_eval"]).evaluate(runs, client=client)
        dt = time.perf_counter() - t
        print(f"{'Dask LocalCluster, 2 w.':>24}: {len(runs)} runs in {dt:6.1f} s = "
              f"{1e3 * dt / len(runs):5.1f} ms/run")
    base = out["1 process"].per_topic
    same = all(np.array_equal(base, r.per_topic, equal_nan=True) for r in out.values())
    print(f"identical results: {same}")


if __name__ == "__main__":
    main()
