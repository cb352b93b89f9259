"""Run drop-out inside the two-stage estimator (Lu 2018 Section 7.2.2) for runs that did not
contribute: leave one run out on Robust 2003 (601-650, 17 runs), RBP(0.95)@100 from a depth-d'
pool of the other runs, L_b with and without drop-out, against the deep qrels' [LB, UB].

Per estimator: RMSE (Eq. 6.3) and Acc% of the left-out runs' estimates, MAE, the mean signed
error of a run's mean score (estimate minus the nearer end of its deep range), its spread (the
standard deviation over the left-out runs), and for drop-out the Monte Carlo spread (the
standard deviation over the draws of a run's mean score, averaged over runs).

    python benchmarks/estimate_dropout.py [--dprime 10] [--dropout 0.3,0.5] [--resamples 5]
        [--markdown FILE]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import tiebreak as tb
from tiebreak.io import read_run, run_paths
from tiebreak.judgments.accuracy import accuracy, epsilon
from tiebreak.judgments.dropout import estimate_with_dropout
from tiebreak.judgments.estimate import estimate_scores
from tiebreak.judgments.pool import pool_depth, restrict_qrels, run_lists, subset_topics
from tiebreak.judgments.scoring import score_runs

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dprime", type=int, default=10)
    ap.add_argument("--dropout", default="0.3,0.5")
    ap.add_argument("--resamples", type=int, default=5)
    ap.add_argument("--loss", default="b")
    ap.add_argument("--markdown")
    ap.add_argument("--data", default=str(SHARED))
    a = ap.parse_args()
    d = Path(a.data) / "robust03_trectools"
    q = tb.read_qrels(str(d / "qrels" / "robust03_qrels.txt.gz"))
    q = subset_topics(q, [t for t in q.topics if 601 <= int(t) <= 650])
    runs = [read_run(p) for p in run_paths([str(d / "runs")])]
    L = run_lists(runs, q)
    names = list(L.names)
    tr = score_runs(q, [runs[[r.name for r in runs].index(n)] for n in names],
                    ["RBP(p=0.95)"], [100])
    lb = tr["scores"][:, 0, 0, 0]
    ub = lb + tr["residual"][:, 0, 0, 0]
    fracs = [float(x) for x in a.dropout.split(",") if x]
    est = {"LB": [], f"L_{a.loss}": []}
    draws = {f: [] for f in fracs}
    kw = dict(p=0.95, depth=100, losses=(a.loss,), theta=0.0, rank_level=())
    t0 = time.perf_counter()
    for i, r in enumerate(names):
        others = [c for c in names if c != r]
        sh = restrict_qrels(q, pool_depth(L, a.dprime, others))
        E = estimate_scores(L, sh, others, a.dprime, score_runs=[r], **kw)
        est["LB"].append(E.get("LB")[0])
        est[f"L_{a.loss}"].append(E.get(f"L_{a.loss}")[0])
        for f in fracs:
            draws[f].append([estimate_with_dropout(L, sh, others, a.dprime, f, 1, s,
                                                   score_runs=[r], **kw)
                             .get(f"L_{a.loss}|dropout={f:g}")[0]
                             for s in range(a.resamples)])
        print(f"{i + 1}/{len(names)} {r}: {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    rows = []
    for name, S in est.items():
        rows.append((name, np.array(S), None))
    for f in fracs:
        D = np.array(draws[f])   # (runs, resamples, topics)
        mc = float(np.mean(np.std(D.mean(axis=2), axis=1, ddof=1)))
        rows.append((f"L_{a.loss}|dropout={f:g} (B={a.resamples})", D.mean(axis=1), mc))
    out = [f"| estimator (d' = {a.dprime}) | RMSE | Acc % | MAE | mean signed error | "
           "spread over runs | Monte Carlo spread |", "|---|---:|---:|---:|---:|---:|---:|"]
    for name, S, mc in rows:
        acc = accuracy(S, lb, ub)
        m, lo, hi = S.mean(1), lb.mean(1), ub.mean(1)
        signed = np.where(m > hi, m - hi, np.where(m < lo, m - lo, 0.0))
        assert np.allclose(np.abs(signed), epsilon(m, lo, hi))
        cell = name.replace("|", "\\|")   # a bar inside a Markdown cell
        out.append(f"| {cell} | {acc['RMSE']:.4f} | {acc['Acc']:.1f} | {acc['MAE']:.4f} | "
                   f"{signed.mean():+.4f} | {signed.std(ddof=1):.4f} | "
                   + ("-" if mc is None else f"{mc:.4f}") + " |")
    text = "\n".join(out) + "\n"
    if a.markdown:
        Path(a.markdown).write_text(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
