"""Equal-budget reusability of pooling methods (leave one run out; tiebreak.studies.reusability)
on Robust 2003 (17 runs): per pool depth and method, the judgments per topic, the left-out run's
AP loss (participant - outsider score, mean and largest), its mean rank change and Kendall's tau
of the outsider scores against the full qrels.

    python benchmarks/reusability.py [--depths 10,20] [--markdown FILE]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import tiebreak as tb
from tiebreak.io import read_run, run_paths
from tiebreak.studies.reusability import leave_one_out, reusability_rows

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--depths", default="10,20")
    ap.add_argument("--markdown")
    ap.add_argument("--data", default=str(SHARED))
    a = ap.parse_args()
    d = Path(a.data) / "robust03_trectools"
    q = tb.read_qrels(str(d / "qrels" / "robust03_qrels.txt.gz"))
    runs = [read_run(p) for p in run_paths([str(d / "runs")])]
    out = ["| depth | method | judgments / topic | AP loss mean | AP loss max | rank change | "
           "tau vs full qrels |", "|---:|---|---:|---:|---:|---:|---:|"]
    for depth in (int(x) for x in a.depths.split(",")):
        t = time.perf_counter()
        res = leave_one_out(q, runs, depth=depth)
        for m, n, loss, worst, change, tau in reusability_rows(res):
            out.append(f"| {depth} | {m} | {n:.1f} | {loss:.4f} | {worst:.4f} | {change:.2f} | "
                       f"{tau:.3f} |")
        print(f"depth {depth}: {time.perf_counter() - t:.0f}s", file=sys.stderr)
    text = "\n".join(out) + "\n"
    if a.markdown:
        Path(a.markdown).write_text(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
