"""Memory and time against input size: one run of T topics x 1000 documents (up to 10k topics,
10 M lines), evaluated by ``tiebreak eval`` in a child process; prints wall time, peak resident
memory (the child's ``ru_maxrss``) and both per million lines, so that linear time and memory
proportional to the input show as flat per-line columns. pytrec-eval-terrier (its own parsers,
the same measures) is run on the same files in a child process of its own for comparison.

The run has ties (scores rounded to 3 digits, ~1 in 4 documents shares its score) and the qrels
judge 100 documents per topic (25 relevant at grades 1-2), half of them retrieved.

A run file of :data:`tiebreak.evaluation.chunks.STREAM_BYTES` or more is read and evaluated piece
by piece
(topic-chunked evaluation), so tiebreak's peak memory should not grow with the run. Targets
(issue 29), printed with met / NOT met: peak RSS at the largest size (10 M lines) <= 1.2x
pytrec_eval's; and flat in the number of topics once chunked: the peak at the largest size at
most 1.25x the peak at the smallest chunked size (the qrels grow with the topics: every tool
holds them whole once read; tiebreak reads a large qrels file in pieces).

Usage::

    python benchmarks/bench_memory.py [--topics 1000,2500,5000,10000] [--tmp DIR] [--no-pytrec]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

DOCS = 1000
MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@1000", "bpref"]
PYTREC = {"map", "ndcg_cut_10", "P_10", "recip_rank", "recall_1000", "bpref"}


def write_inputs(n_topics: int, tmp: Path, seed: int = 0) -> tuple[Path, Path]:
    """Synthetic qrels and run of ``n_topics`` x :data:`DOCS` lines (gen. in numpy, written
    topic by topic)."""
    rng = np.random.default_rng(seed)
    run, qrels = tmp / f"run.{n_topics}", tmp / f"qrels.{n_topics}"
    ranks = np.arange(1, DOCS + 1)
    with open(run, "w") as fr, open(qrels, "w") as fq:
        for t in range(n_topics):
            docs = rng.choice(100_000, size=DOCS, replace=False)
            score = np.round(np.sort(rng.gamma(2.0, 2.0, DOCS))[::-1], 3)
            fr.write("".join(f"{t} Q0 d{d} {r} {s:.3f} synth\n"
                             for d, r, s in zip(docs.tolist(), ranks.tolist(), score.tolist())))
            judged = np.concatenate([rng.choice(docs, 50, replace=False),
                                     100_000 + rng.choice(100_000, 50, replace=False)])
            grade = np.zeros(100, int)
            grade[rng.choice(100, 25, replace=False)] = rng.integers(1, 3, 25)
            fq.write("".join(f"{t} 0 d{d} {g}\n" for d, g in zip(judged.tolist(),
                                                                  grade.tolist())))
    return qrels, run


def child(argv: list[str]) -> tuple[float, float, float]:
    """Wall seconds, peak RSS (MiB) and CPU seconds of one child process (its own rusage, from
    ``wait4``)."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        raise SystemExit(f"{argv[:4]} failed with status {p.returncode}")
    return dt, ru.ru_maxrss / 1024, ru.ru_utime + ru.ru_stime


PYTREC_SCRIPT = """
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
ev = pytrec_eval.RelevanceEvaluator(qrels, set(sys.argv[3].split(',')))
res = ev.evaluate(run)
print(len(res))
"""


QRELS_ONLY = """
import sys
import tiebreak as tb
tb.Evaluator(sys.argv[1], sys.argv[2:], "all")  # the qrels read from the path, as eval does
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topics", default="1000,2500,5000,10000")
    ap.add_argument("--tmp", type=Path, default=None)
    ap.add_argument("--no-pytrec", action="store_true")
    a = ap.parse_args()
    sizes = sorted(int(x) for x in a.topics.split(","))
    tools = ["tiebreak trec_eval regime", "tiebreak all regimes", "tiebreak qrels only"]
    if not a.no_pytrec:
        try:
            import pytrec_eval  # noqa: F401
            tools.append("pytrec-eval-terrier")
        except ImportError:
            print("pytrec-eval-terrier not installed: skipped", file=sys.stderr)
    with tempfile.TemporaryDirectory(dir=a.tmp) as d:
        tmp = Path(d)
        rows = []
        for tool in tools:
            for n in sizes:
                qrels, run = write_inputs(n, tmp) if tool == tools[0] else (
                    tmp / f"qrels.{n}", tmp / f"run.{n}")
                if tool == "tiebreak qrels only":  # the evaluator built, no run read
                    argv = [sys.executable, "-c", QRELS_ONLY, str(qrels), *MEASURES]
                elif tool.startswith("tiebreak"):
                    regime = "trec_eval" if "trec_eval" in tool else "all"
                    argv = [sys.executable, "-m", "tiebreak", "eval", str(qrels), str(run),
                            "-j", "1", "--quiet", "--regime", regime, "--format", "tsv"]
                    for m in MEASURES:
                        argv += ["-m", m]
                else:
                    argv = [sys.executable, "-c", PYTREC_SCRIPT, str(qrels), str(run),
                            ",".join(sorted(PYTREC))]
                dt, rss, cpu = child(argv)
                lines = n * DOCS / 1e6
                rows.append((tool, n, lines, dt, rss))
                print(f"{tool:>26}  {n:>6} topics  {lines:5.1f} M lines  {dt:7.2f} s  "
                      f"(cpu {cpu:6.2f} s)  {dt / lines:5.2f} s/M  peak {rss:7.0f} MiB  "
                      f"{rss / lines:6.0f} MiB/M  load {os.getloadavg()[0]:.2f}", flush=True)
        print(f"\npeak RSS at the largest size ({sizes[-1]} topics, "
              f"{sizes[-1] * DOCS / 1e6:.1f} M lines); load average {os.getloadavg()[0]:.2f}:")
        big = {t: r for t, n, _, _, r in rows if n == sizes[-1]}
        for t, r in big.items():
            print(f"  {t:>26}: peak {r:.0f} MiB")
        report(rows, sizes, tmp)


def report(rows, sizes, tmp: Path) -> None:
    """The issue's two memory targets, each with met / NOT met."""
    from tiebreak.evaluation.chunks import STREAM_BYTES

    peak = {(t, n): r for t, n, _, _, r in rows}
    pt = peak.get(("pytrec-eval-terrier", sizes[-1]))
    print("\ntargets:")
    q_only = {n: peak.get(("tiebreak qrels only", n)) for n in sizes}
    for t in ("tiebreak trec_eval regime", "tiebreak all regimes"):
        if pt:
            r = peak[(t, sizes[-1])] / pt
            print(f"  {t:>26} / pytrec_eval peak RSS at {sizes[-1]} topics: {r:5.2f}x  "
                  f"target <= 1.2x: {'met' if r <= 1.2 else 'NOT met'}")
        chunked = [n for n in sizes if (tmp / f"run.{n}").stat().st_size >= STREAM_BYTES]
        if len(chunked) >= 2:
            r = peak[(t, chunked[-1])] / peak[(t, chunked[0])]
            print(f"  {t:>26} peak RSS {chunked[-1]} / {chunked[0]} topics (chunked): "
                  f"{r:5.2f}x  flat (<= 1.25x): {'met' if r <= 1.25 else 'NOT met'}")
            a, b = q_only[chunked[0]], q_only[chunked[-1]]
            if a and b:  # the same without the qrels, which every tool holds whole
                r = (peak[(t, chunked[-1])] - b) / (peak[(t, chunked[0])] - a)
                print(f"  {t:>26} the same, minus the peak of reading the qrels alone "
                      f"({a:.0f} / {b:.0f} MiB): {r:5.2f}x  flat (<= 1.25x): "
                      f"{'met' if r <= 1.25 else 'NOT met'}")
        else:
            print(f"  {t:>26}: fewer than two sizes are chunked (run files of "
                  f"{STREAM_BYTES >> 20} MiB or more); flatness not measured")


if __name__ == "__main__":
    main()
