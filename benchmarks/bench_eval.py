"""Benchmark: the 143 TREC-COVID round-1 runs, from gzipped files to numbers, in one process.

Variants (each timed end to end: reading the qrels, reading every run, evaluating):

* pytrec-eval-terrier: ``parse_qrel`` / ``parse_run`` on the gzip text files, one
  ``RelevanceEvaluator(qrels, measures)`` built once and ``evaluate(run)`` per run, on
  map, ndcg_cut_10, P_10, recip_rank, recall_1000, bpref.
* tiebreak: ``read_qrels``, ``read_run`` and ``Evaluator(...).evaluate`` on the equivalent
  AP, nDCG@10, P@10, RR, R@1000, bpref, under the trec_eval regime alone and under all seven
  regimes; then the same with the default measure set (adds RBP(p=0.8) and its residual).
  tiebreak runs with ``score_precision="float32"`` and ``average="run-topics"``, the settings
  that reproduce pytrec_eval; the script checks that the means agree.

Also times ``tiebreak eval qrels.test results.test`` (trec_eval's test data) as a subprocess from
a cold interpreter start, best of 5, next to the bare ``python -c "import numpy"`` start-up.

Usage::

    python benchmarks/bench_eval.py [--data DIR] [--repeat N] [--profile]

``--data`` defaults to ../shared/data beside the project; ``--repeat`` (default 3) gives the
number of timed passes per variant (best and median are shown); ``--profile`` adds a cProfile of
one tiebreak trec_eval-regime pass (top 15 by cumulative and by own time).
Timings swing by +-20% between invocations on a shared machine; the ratios are what count.
"""

from __future__ import annotations

import argparse
import cProfile
import gzip
import hashlib
import io
import os
import platform
import pstats
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"

PT_MEASURES = ["map", "ndcg_cut_10", "P_10", "recip_rank", "recall_1000", "bpref"]
TB_MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@1000", "bpref"]
TB_OPTS = {"score_precision": "float32", "average": "run-topics"}

# targets of the "speed and scale" issue (2-core machine, against pytrec-eval-terrier)
TARGET_ONE = 0.35  # one regime, one process
TARGET_ONE_J2 = 0.2  # one regime, both cores
TARGET_ALL = 0.5  # all seven regimes, one process
TARGET_ALL_J2 = 0.5  # all seven regimes, both cores (no separate target; same bar)
TARGET_ZCAT = 2.0  # one regime, one process, against the zcat floor
TARGET_CLI = 0.15  # seconds, cold start of tiebreak eval


class Timer:
    """Accumulates time spent in read calls while a generator feeds the evaluator."""

    def __init__(self) -> None:
        self.t = 0.0


def run_pytrec(qrels_path: Path, run_paths: list[Path], read: Timer):
    import pytrec_eval

    t0 = time.perf_counter()
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    ev = pytrec_eval.RelevanceEvaluator(qrels, PT_MEASURES)
    read.t += time.perf_counter() - t0
    out = {}
    for p in run_paths:
        t0 = time.perf_counter()
        with gzip.open(p, "rt") as f:
            run = pytrec_eval.parse_run(f)
        read.t += time.perf_counter() - t0
        out[p.name] = ev.evaluate(run)
    return out


def run_tiebreak(qrels_path: Path, run_paths: list[Path], measures, regimes, read: Timer):
    import tiebreak as tb

    t0 = time.perf_counter()
    q = tb.read_qrels(qrels_path)
    read.t += time.perf_counter() - t0

    def runs():
        for p in run_paths:
            t0 = time.perf_counter()
            r = tb.read_run(p)
            read.t += time.perf_counter() - t0
            yield r

    ev = tb.Evaluator(q, measures, regimes=regimes, **TB_OPTS)
    return ev.evaluate(runs())


def run_tiebreak_parallel(qrels_path: Path, run_paths: list[Path], measures, regimes, jobs: int):
    """Paths handed to Evaluator.evaluate(jobs=N): N processes read and evaluate whole runs."""
    import tiebreak as tb

    q = tb.read_qrels(qrels_path)
    ev = tb.Evaluator(q, measures, regimes=regimes, **TB_OPTS)
    return ev.evaluate([str(p) for p in run_paths], jobs=jobs)


def run_zcat(run_paths: list[Path], read: Timer):
    """The floor for reading gzip: ``zcat`` of every run in one process, output discarded."""
    t0 = time.perf_counter()
    subprocess.run(["zcat", *map(str, run_paths)], stdout=subprocess.DEVNULL, check=True)
    read.t += time.perf_counter() - t0


def run_read_only(run_paths: list[Path], read: Timer):
    """tiebreak.read_run of every run: files to arrays, no evaluation."""
    import tiebreak as tb

    t0 = time.perf_counter()
    n = sum(len(tb.read_run(p)) for p in run_paths)
    read.t += time.perf_counter() - t0
    return n


def timed(fn, repeat: int):
    """(best, median, read share of the best pass, last result)."""
    walls, reads, res = [], [], None
    for _ in range(repeat):
        rt = Timer()
        t0 = time.perf_counter()
        res = fn(rt)
        walls.append(time.perf_counter() - t0)
        reads.append(rt.t)
    i = int(np.argmin(walls))
    return walls[i], statistics.median(walls), reads[i], res


def pytrec_means(out: dict) -> dict[tuple[str, str], float]:
    """(run file, measure) -> mean over the run's topics."""
    means = {}
    for name, per in out.items():
        for m in PT_MEASURES:
            means[(name, m)] = float(np.mean([v[m] for v in per.values()]))
    return means


def check_agreement(pt: dict, res, run_paths: list[Path]) -> float:
    """Largest |mean difference| between pytrec_eval and tiebreak's trec_eval regime."""
    k = res.regimes.index("trec_eval")
    worst = 0.0
    for i, p in enumerate(run_paths):
        for j, m in enumerate(PT_MEASURES):
            worst = max(worst, abs(pt[(p.name, m)] - float(res.mean[i, j, k])))
    return worst


def cli_cold_start(data: Path, n: int = 5) -> list[tuple[str, float]]:
    qrels = data / "trec_eval_test" / "qrels.test"
    results = data / "trec_eval_test" / "results.test"
    exe_dir = Path(sys.executable).parent
    script = exe_dir / "tiebreak"
    cmds = []
    if script.exists():
        cmds.append((f"{script} eval qrels.test results.test", [str(script)]))
    on_path = shutil.which("tiebreak")
    if on_path and (not script.exists() or Path(on_path).resolve() != script.resolve()):
        cmds.append((f"tiebreak eval ... (PATH: {on_path})", [on_path]))
    if not cmds:
        cmds.append(("python -m tiebreak eval qrels.test results.test",
                     [sys.executable, "-m", "tiebreak"]))
    # an installed package has its bytecode compiled; a PYTHONDONTWRITEBYTECODE environment would
    # recompile every module of an editable install at each start, so the bench clears it and
    # warms the cache once before timing
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = []
    for label, argv in cmds:
        subprocess.run(argv + ["eval", str(qrels), str(results)], check=True,
                       stdout=subprocess.DEVNULL, env=env)
        best = float("inf")
        for _ in range(n):
            t0 = time.perf_counter()
            subprocess.run(argv + ["eval", str(qrels), str(results)], check=True,
                           stdout=subprocess.DEVNULL, env=env)
            best = min(best, time.perf_counter() - t0)
        out.append((label, best))
    for label, code in (("python -c pass", "pass"), ("python -c 'import numpy'", "import numpy")):
        best = float("inf")
        for _ in range(n):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, env=env)
            best = min(best, time.perf_counter() - t0)
        out.append((f"  baseline: {label}", best))
    return out


def profile_one_regime(qrels_path: Path, run_paths: list[Path], top: int = 15) -> str:
    pr = cProfile.Profile()
    pr.enable()
    run_tiebreak(qrels_path, run_paths, TB_MEASURES, ["trec_eval"], Timer())
    pr.disable()
    buf = io.StringIO()
    st = pstats.Stats(pr, stream=buf).strip_dirs()
    buf.write(f"\n--- cProfile, tiebreak trec_eval regime: top {top} by cumulative time ---\n")
    st.sort_stats("cumulative").print_stats(top)
    buf.write(f"\n--- cProfile, tiebreak trec_eval regime: top {top} by own time ---\n")
    st.sort_stats("tottime").print_stats(top)
    return buf.getvalue()


def source_fingerprint(pkg_dir: Path) -> str:
    """Short hash of tiebreak's source files, to tell which version a timing belongs to."""
    h = hashlib.sha1()
    for f in sorted(pkg_dir.rglob("*.py")):
        h.update(f.read_bytes())
    return h.hexdigest()[:10]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA,
                    help=f"shared data directory (default {DEFAULT_DATA})")
    ap.add_argument("--repeat", type=int, default=3, help="timed passes per variant (default 3)")
    ap.add_argument("--profile", action="store_true",
                    help="also cProfile one tiebreak trec_eval-regime pass")
    a = ap.parse_args(argv)

    import pytrec_eval

    import tiebreak as tb

    r1 = a.data / "trec_covid" / "round1"
    qrels_path = r1 / "qrels-rnd1.txt"
    run_paths = sorted((r1 / "runs").glob("*.gz"))
    if not qrels_path.exists() or not run_paths:
        print(f"no TREC-COVID round-1 data under {r1}", file=sys.stderr)
        return 2
    n_lines = 0
    for p in run_paths:  # warm the page cache (untimed) and count lines
        n_lines += gzip.decompress(p.read_bytes()).count(b"\n")

    print(f"TREC-COVID round 1: {len(run_paths)} runs, {n_lines:,} run lines, 30 topics")
    print(f"python {platform.python_version()}, numpy {np.__version__}, "
          f"pytrec-eval-terrier {pytrec_eval.__version__}, tiebreak {tb.__version__}, "
          f"(source {source_fingerprint(Path(tb.__file__).parent)}), "
          f"{os.cpu_count()} CPUs; best and median of {a.repeat} passes; "
          f"'read' = time in file reading/parsing within the best pass")
    print()

    variants = [
        ("pytrec_eval (6 measures)", lambda t: run_pytrec(qrels_path, run_paths, t)),
        ("tiebreak 6 measures, trec_eval regime",
         lambda t: run_tiebreak(qrels_path, run_paths, TB_MEASURES, ["trec_eval"], t)),
        ("tiebreak 6 measures, all 7 regimes",
         lambda t: run_tiebreak(qrels_path, run_paths, TB_MEASURES, "all", t)),
        ("tiebreak default 8 measures (+RBP), trec_eval",
         lambda t: run_tiebreak(qrels_path, run_paths, None, ["trec_eval"], t)),
        ("tiebreak default 8 measures (+RBP), all 7",
         lambda t: run_tiebreak(qrels_path, run_paths, None, "all", t)),
        ("tiebreak 6 measures, trec_eval, jobs=2",
         lambda t: run_tiebreak_parallel(qrels_path, run_paths, TB_MEASURES, ["trec_eval"], 2)),
        ("tiebreak 6 measures, all 7 regimes, jobs=2",
         lambda t: run_tiebreak_parallel(qrels_path, run_paths, TB_MEASURES, "all", 2)),
        ("zcat of all runs (floor for reading gzip)", lambda t: run_zcat(run_paths, t)),
        ("tiebreak read_run only (files to arrays)", lambda t: run_read_only(run_paths, t)),
    ]
    rows = []
    results = {}
    print(f"{'variant':48s} {'best s':>7s} {'median s':>9s} {'read s':>7s} {'x pytrec':>9s}")
    for label, fn in variants:
        best, med, rd, res = timed(fn, a.repeat)
        results[label] = res
        rows.append((label, best))
        ratio = best / rows[0][1]
        print(f"{label:48s} {best:7.2f} {med:9.2f} {rd:7.2f} {ratio:9.2f}", flush=True)

    pt_best = rows[0][1]
    zcat = rows[7][1]
    one = rows[1][1] / pt_best
    allr = rows[2][1] / pt_best
    one2 = rows[5][1] / pt_best
    all2 = rows[6][1] / pt_best
    print()
    print(f"against the zcat floor: read_run only {rows[8][1] / zcat:.2f}x, one regime "
          f"{rows[1][1] / zcat:.2f}x (target <= {TARGET_ZCAT}: "
          f"{'met' if rows[1][1] / zcat <= TARGET_ZCAT else 'NOT met'}), all regimes "
          f"{rows[2][1] / zcat:.2f}x, pytrec_eval {pt_best / zcat:.2f}x")
    print("single process (pytrec_eval is single-threaded):")
    print(f"ratio tiebreak one regime / pytrec_eval : {one:.2f}  (target <= {TARGET_ONE}: "
          f"{'met' if one <= TARGET_ONE else 'NOT met'})")
    print(f"ratio tiebreak all regimes / pytrec_eval: {allr:.2f}  (target <= {TARGET_ALL}: "
          f"{'met' if allr <= TARGET_ALL else 'NOT met'})")
    print("both cores of the 2-core machine (tiebreak eval's default -j):")
    print(f"ratio tiebreak one regime / pytrec_eval : {one2:.2f}  (target <= {TARGET_ONE_J2}: "
          f"{'met' if one2 <= TARGET_ONE_J2 else 'NOT met'})")
    print(f"ratio tiebreak all regimes / pytrec_eval: {all2:.2f}  (target <= {TARGET_ALL_J2}: "
          f"{'met' if all2 <= TARGET_ALL_J2 else 'NOT met'})")

    pt = pytrec_means(results[variants[0][0]])
    worst = check_agreement(pt, results[variants[1][0]], run_paths)
    print(f"check: largest |mean difference| pytrec_eval vs tiebreak trec_eval regime over "
          f"{len(run_paths)} runs x {len(PT_MEASURES)} measures: {worst:.2e}")

    print()
    print("CLI cold start, tiebreak eval on trec_eval's qrels.test/results.test (best of 5):")
    for label, best in cli_cold_start(a.data):
        flag = ""
        if not label.startswith("  baseline"):
            flag = f"  (target < {TARGET_CLI:g} s: {'met' if best < TARGET_CLI else 'NOT met'})"
        print(f"  {label}: {best:.3f} s{flag}")

    if a.profile:
        print(profile_one_regime(qrels_path, run_paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
