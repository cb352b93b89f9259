"""Benchmark: ``tiebreak study estimate`` on Robust 2003, topics 601-650 (Lu 2018, ch. 6).

The full study in one process: 17 runs x 50 topics, shallow pools d' = 10, 20, 30, 50
simulated from the deep qrels, RBP(0.95)@100, every rank-level model, both two-stage losses
(L_a, L_b) at theta = 0 and the theta = 0.018 variants, the accuracy and fit tables and both
figures. Reports wall-clock and CPU time (the machine is shared; CPU time is the steadier
number). Target: under 5 minutes on 2 cores.

Usage::

    python benchmarks/bench_estimate.py [--data DIR] [--jobs 2] [--out DIR]
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
TARGET = 300.0


def _cpu() -> float:
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def main() -> int:
    from click.testing import CliRunner

    from tiebreak.cli import main as cli

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None, help="keep the outputs here")
    a = ap.parse_args()
    rob = a.data / "robust03_trectools"
    if not rob.is_dir():
        print(f"data not found under {rob}", file=sys.stderr)
        return 2
    out = a.out or Path(tempfile.mkdtemp(prefix="bench_estimate_"))
    t, c = time.perf_counter(), _cpu()
    r = CliRunner().invoke(cli, ["study", "estimate", "--qrels",
                                 str(rob / "qrels" / "robust03_qrels.txt.gz"), "--topics",
                                 "601-650", "-j", str(a.jobs), "--out", str(out),
                                 str(rob / "runs")])
    dt, dc = time.perf_counter() - t, _cpu() - c
    if r.exit_code != 0:
        print(r.output, file=sys.stderr)
        return 1
    print(f"Robust 2003 study estimate (4 d' x 17 runs x 50 topics, L_a and L_b): "
          f"{dt:.1f} s wall, {dc:.1f} s CPU (target < {TARGET:.0f} s) "
          f"{'OK' if dt < TARGET else 'SLOW'}; outputs in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
