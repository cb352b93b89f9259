"""Benchmark: ``tiebreak study bands`` on the 143 TREC-COVID round-1 runs, 11 rho values.

Times the command end to end as a subprocess (interpreter start, reading the qrels and the 143
gzipped runs, banding and evaluating them for rho = 1.0, 1.1, ..., 2.0 under the ``expected``
regime, Table 3, Fig. 3 and Fig. 4 rendered to PNG and SVG) with ``-j 2`` (2 cores).
Target: under 2 minutes.

Usage::

    python benchmarks/bench_study_bands.py [--data DIR] [--jobs N] [--out DIR]

``--data`` defaults to ../shared/data beside the project.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
RHOS = ",".join(f"{1 + k / 10:.1f}" for k in range(11))  # 1.0 .. 2.0
TARGET = 120.0  # seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None, help="keep the outputs here")
    a = ap.parse_args()
    rnd = a.data / "trec_covid" / "round1"
    qrels, runs = rnd / "qrels-rnd1.txt", rnd / "runs"
    if not qrels.exists() or not runs.is_dir():
        print(f"data not found under {rnd}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        out = a.out or Path(tmp)
        cmd = [sys.executable, "-m", "tiebreak", "study", "bands", "--qrels", str(qrels),
               "--rho", RHOS, "--out", str(out), "-j", str(a.jobs), str(runs)]
        t0 = time.perf_counter()
        res = subprocess.run(cmd, capture_output=True, text=True)
        dt = time.perf_counter() - t0
    if res.returncode != 0:
        print(res.stderr, file=sys.stderr)
        return 1
    print(res.stdout)
    print(f"tiebreak study bands, 143 runs x 11 rho, -j {a.jobs}: {dt:.1f} s "
          f"(target < {TARGET:.0f} s: {'OK' if dt < TARGET else 'SLOW'})")
    return 0 if dt < TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
