"""tiebreak.evaluate_scores on a top-k score matrix against the same evaluation of an in-memory Run.

    python benchmarks/bench_evaluate_scores.py [--queries 10000] [-k 1000] [--docs 200000]

Input: a top-k pair as a dense retriever returns it (scores float32 (queries, k), indices int64
(queries, k) into ``docs`` doc ids), with synthetic qrels (50 judgments per query, grades 0-2).
Baseline: the same lines as a :class:`tiebreak.Run` already in memory, evaluated by
``Evaluator.evaluate`` (default measures and regimes). Printed: the time of each (best of
``--repeat``) and their ratio (target <= 1.5), and the peak memory ``evaluate_scores`` allocates
beyond its inputs (tracemalloc, which numpy reports to) against the size of the input arrays
(target <= 2).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np


def problem(nq: int, k: int, nd: int, seed: int = 0):
    import tiebreak as tb

    rng = np.random.default_rng(seed)
    qids = [f"q{i}" for i in range(nq)]
    docs = [f"doc{j:07d}" for j in range(nd)]
    ix = np.argsort(rng.random((nq, nd // 50)), axis=1)[:, :k] * 50 + rng.integers(0, 50, (nq, 1))
    ix = ix.astype(np.int64)
    sc = -np.sort(-rng.gamma(2.0, 3.0, (nq, k)).astype(np.float32), axis=1)
    jq = np.repeat(np.arange(nq), 50)
    jd = np.concatenate([rng.choice(ix[i], 50, replace=False) for i in range(nq)])
    qrels = {}
    for q, d, g in zip(jq, jd, rng.integers(0, 3, len(jq))):
        qrels.setdefault(qids[q], {})[docs[d]] = int(g)
    return tb.Evaluator(qrels).qrels, (sc, ix), qids, docs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("-k", type=int, default=1000)
    ap.add_argument("--docs", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    import tiebreak as tb
    from tiebreak.evaluation.scores import score_blocks

    qrels, pair, qids, docs = problem(a.queries, a.k, a.docs)
    run = next(score_blocks(pair, qids, docs, block_lines=1 << 62))[0]  # one in-memory Run
    ev = tb.Evaluator(qrels)

    def best(f):
        t = []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            r = f()
            t.append(time.perf_counter() - t0)
        return min(t), r

    t_run, want = best(lambda: ev.evaluate([run]))
    t_sc, got = best(lambda: tb.evaluate_scores(qrels, pair, qids, docs))
    assert np.array_equal(got.per_topic, want.per_topic, equal_nan=True)
    inputs = pair[0].nbytes + pair[1].nbytes
    tracemalloc.start()
    tb.evaluate_scores(qrels, pair, qids, docs)
    _, peak_sc = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    tracemalloc.start()
    ev.evaluate([run])
    _, peak_run = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"{a.queries} queries x {a.k} candidates (top-k form), {len(run)} lines, "
          f"inputs {inputs / 2**20:.0f} MiB (scores float32 + indices int64)")
    held = sum(x.nbytes for x in (run.topic, run.docid, run.score, run.rank, run.lineno))
    print(f"in-memory Run:    {t_run:7.2f} s   peak beyond inputs {peak_run / 2**20:7.0f} MiB "
          f"(and the Run itself holds {held / 2**20:.0f} MiB)")
    print(f"evaluate_scores:  {t_sc:7.2f} s   peak beyond inputs {peak_sc / 2**20:7.0f} MiB")
    print(f"time ratio {t_sc / t_run:.2f}x (target <= 1.5x); memory {peak_sc / inputs:.2f}x the "
          "input arrays (target <= 2x)")


if __name__ == "__main__":
    main()
