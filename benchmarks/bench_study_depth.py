"""Benchmark: ``tiebreak study depth`` on Robust 2003 and TREC-COVID round 1 (Lu 2018, ch. 5).

Two full studies in one process, each timed end to end (reading the qrels and runs, the study
with all evaluation depths 1, 4, 10, 40, 100, 400, 1000, the seven default metrics, the 1..50
volatility grid, leave-one-run-out, the tables and every figure):

* Robust 2003, topics 601-650 (17 runs): a depth-10 pool simulated from the deep qrels.
* TREC-COVID round 1 (143 runs, 30 topics): the genuine shallow pool (reference depth 7), the
  contributing runs inferred as those whose top 7 is fully judged, ``qrels.covid-complete`` as
  the deep judgments, plus leave-group-out with groups taken from the run-name prefixes.

Target: under 2 minutes each on 2 cores. Usage::

    python benchmarks/bench_study_depth.py [--data DIR] [--jobs 2] [--out DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
TARGET = 120.0


def study(name, qrels, runs, out, jobs, *extra):
    from click.testing import CliRunner

    from tiebreak.cli import main

    t = time.perf_counter()
    r = CliRunner().invoke(main, ["study", "depth", "--qrels", str(qrels), "--out", str(out),
                                  "-j", str(jobs), *extra, str(runs)])
    dt = time.perf_counter() - t
    if r.exit_code != 0:
        print(r.output, r.stderr, file=sys.stderr)
        raise SystemExit(f"{name}: exit {r.exit_code}")
    print(f"{name}: {dt:.1f} s (target < {TARGET:.0f} s) {'OK' if dt < TARGET else 'SLOW'}")
    return dt


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None, help="keep the outputs here")
    a = ap.parse_args()
    rob = a.data / "robust03_trectools"
    cov = a.data / "trec_covid"
    if not rob.is_dir() or not cov.is_dir():
        print(f"data not found under {a.data}", file=sys.stderr)
        return 2
    out = a.out or Path(tempfile.mkdtemp(prefix="bench_depth_"))
    study("Robust 2003 601-650, simulated d=10", rob / "qrels" / "robust03_qrels.txt.gz",
          rob / "runs", out / "robust03_d10", a.jobs, "--topics", "601-650",
          "--pool-depth", "10")
    study("TREC-COVID round 1, genuine pool d=7", cov / "round1" / "qrels-rnd1.txt",
          cov / "round1" / "runs", out / "covid_r1", a.jobs, "--reference-depth", "7",
          "--contributing", "judged@7", "--deep-qrels", str(cov / "qrels.covid-complete.txt.gz"),
          "--groups", "prefix")
    print(f"outputs in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
