"""Benchmark: ``tiebreak trec_eval -m all_trec`` vs pytrec-eval-terrier on its full measure set.

Workload: the 143 TREC-COVID round-1 runs (gzipped) against the round-1 qrels, from files to
numbers, in one process:

* pytrec-eval-terrier: ``parse_qrel`` / ``parse_run`` on the text, one ``RelevanceEvaluator``
  over ``pytrec_eval.supported_measures`` built once, ``evaluate(run)`` per run;
* tiebreak: ``tiebreak.trec_eval.main(["-q", "-m", "all_trec", "--jobs", J, qrels, run1, ...,
  run143])`` (trec_eval's exact per-topic text for every run, written to a buffer), with one
  process and with two (``--jobs 2``, the default on this 2-core machine).

The ratio tiebreak / pytrec_eval is printed; the target is <= 0.5.

Against the trec_eval 10.0 binary (built from ../shared/tools/trec_eval-10.0 in a temporary
directory unless ``--no-binary``): the binary once per run on the decompressed files (as a
shell loop runs it), and the ``tiebreak trec_eval`` command (a fresh process, one invocation
over all runs) on the same files, both ``-q -m all_trec``; the target is <= 0.4x.

Usage::

    python benchmarks/bench_trec_eval.py [--data DIR] [--repeat N]
"""

from __future__ import annotations

import argparse
import gzip
import io
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
TARGET = 0.5
TARGET_BINARY = 0.4


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


def build_binary(data: Path, tmp: Path) -> Path | None:
    src = data.parent / "tools" / "trec_eval-10.0"
    if not src.is_dir() or shutil.which("make") is None:
        return None
    shutil.copytree(src, tmp / "te")
    r = subprocess.run(["make", "-s"], cwd=tmp / "te", capture_output=True)
    return tmp / "te" / "trec_eval" if r.returncode == 0 else None


def binary_per_run(binary: Path, qrels: Path, runs: list[Path]) -> int:
    n = 0
    for p in runs:
        r = subprocess.run([str(binary), "-q", "-m", "all_trec", str(qrels), str(p)],
                           capture_output=True, check=True)
        n += r.stdout.count(b"\n")
    return n


def tiebreak_cli(qrels: Path, runs: list[Path], jobs: int) -> int:
    r = subprocess.run([sys.executable, "-m", "tiebreak", "trec_eval", "-q", "-m", "all_trec",
                        "--jobs", str(jobs), str(qrels), *map(str, runs)],
                       capture_output=True, check=True)
    return r.stdout.count(b"\n")


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
    ap.add_argument("--no-binary", action="store_true", help="skip the trec_eval binary")
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
    if a.no_binary:
        return
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        binary = build_binary(a.data, tmp)
        if binary is None:
            print("trec_eval binary: not built (no make or no ../shared/tools): skipped")
            return
        plain = []
        for p in runs:
            out = tmp / p.name.removesuffix(".gz")
            out.write_bytes(gzip.decompress(p.read_bytes()) if p.suffix == ".gz"
                            else p.read_bytes())
            plain.append(out)
        bb, mb, n_b = best(lambda: binary_per_run(binary, qrels, plain), a.repeat)
        print(f"trec_eval 10.0 binary, one process per plain run, {n_b} output lines: "
              f"best {bb:.2f} s, median {mb:.2f} s")
        for jobs in (1, 2):
            bt, mt, n_tb = best(lambda j=jobs: tiebreak_cli(qrels, plain, j), a.repeat)
            ratio = bt / bb
            ok = "met" if ratio <= TARGET_BINARY else "not met"
            print(f"tiebreak trec_eval command, --jobs {jobs}, {n_tb} output lines: best "
                  f"{bt:.2f} s, median {mt:.2f} s -> ratio {ratio:.2f}x the binary "
                  f"(target <= {TARGET_BINARY}x: {ok})")


if __name__ == "__main__":
    main()
