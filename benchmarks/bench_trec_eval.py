"""Benchmark: ``tiebreak trec_eval -m all_trec`` vs pytrec-eval-terrier on its full measure set.

Workload: the 143 TREC-COVID round-1 runs (gzipped) against the round-1 qrels, from files to
numbers, in one process:

* pytrec-eval-terrier: ``parse_qrel`` / ``parse_run`` on the text, one ``RelevanceEvaluator``
  over ``pytrec_eval.supported_measures`` built once, ``evaluate(run)`` per run;
* tiebreak: ``tiebreak.trec_eval.main(["-q", "-m", "all_trec", "--jobs", J, qrels, run1, ...,
  run143])`` (trec_eval's exact per-topic text for every run, written to a buffer), with one
  process and with two (``--jobs 2``, the default on this 2-core machine).

The ratio tiebreak / pytrec_eval is printed; the target is <= 0.5.

Usage::

    python benchmarks/bench_trec_eval.py [--data DIR] [--repeat N]
"""

from __future__ import annotations

import argparse
import gzip
import io
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
TARGET = 0.5


def _text(path: Path) -> str:
    with open(path, "rb") as fh:
        data = fh.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8", "replace")


def pytrec(qrels_path: Path, runs: list[Path]) -> int:
    import pytrec_eval

    qrels = pytrec_eval.parse_qrel(io.StringIO(_text(qrels_path)))
    ev = pytrec_eval.RelevanceEvaluator(qrels, pytrec_eval.supported_measures)
    n = 0
    for p in runs:
        run = pytrec_eval.parse_run(io.StringIO(_text(p)))
        res = ev.evaluate(run)
        n += sum(len(v) for v in res.values())
    return n


def tiebreak(qrels_path: Path, runs: list[Path], jobs: int) -> int:
    """One ``tiebreak trec_eval`` invocation over every run (``--jobs``: worker processes)."""
    from tiebreak.trec_eval import main

    out, err = io.StringIO(), io.StringIO()
    rc = main(["-q", "-m", "all_trec", "--jobs", str(jobs), str(qrels_path),
               *map(str, runs)], out, err)
    if rc:
        raise SystemExit(err.getvalue())
    return out.getvalue().count("\n")


def best(fn, repeat: int):
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    d = a.data / "trec_covid" / "round1"
    qrels = d / "qrels-rnd1.txt"
    runs = sorted((d / "runs").iterdir())
    print(f"{len(runs)} runs, python {sys.version.split()[0]}")
    bp, mp, n_pt = best(lambda: pytrec(qrels, runs), a.repeat)
    print(f"pytrec-eval-terrier, {n_pt} values (all supported measures): "
          f"best {bp:.2f} s, median {mp:.2f} s")
    for jobs in (1, 2):
        bt, mt, n_tb = best(lambda j=jobs: tiebreak(qrels, runs, j), a.repeat)
        ratio = bt / bp
        ok = "met" if ratio <= TARGET else "not met"
        print(f"tiebreak trec_eval -q -m all_trec, {jobs} process(es), {n_tb} output lines: "
              f"best {bt:.2f} s, median {mt:.2f} s -> ratio {ratio:.2f}x "
              f"(target <= {TARGET}x: {ok})")


if __name__ == "__main__":
    main()
