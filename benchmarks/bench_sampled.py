"""Estimates from sampled judgments (xinfAP, statAP, infNDCG): simulation and sample_eval.

1. Simulation: one topic of 80 fully judged documents (grades 0-2, relevance falling with the
   rank), a run of its first 60; the pool split in three strata judged at 100 %, 50 % and 20 %
   (stratified sampling without replacement), sampled ``--samples`` times with a fixed seed.
   Printed per estimate: the true value (AP, nDCG from the full judgments), the mean estimate,
   its Monte Carlo standard error, the variance of the estimates over samples and the mean of
   the per-sample variance estimates (``*_var``), and their ratio.
2. With ``--sample-eval PATH`` (NIST's sample_eval.pl, run by perl): ``--collections`` random
   sampled collections of 4 topics (three strata, grades 0-2, tied scores) evaluated by both
   (tiebreak with ``--convention sample_eval``): every per-topic infAP and infNDCG and every
   summary line compared as printed (4 decimals); then as many small collections (pools of 10,
   short runs: several recall levels met at one rank).

Run: ``python benchmarks/bench_sampled.py [--samples 2000] [--sample-eval sample_eval.pl]``.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import subprocess
import tempfile
import time

import numpy as np

import tiebreak as tb
from tiebreak.evaluation import Evaluator
from tiebreak.io.sampled import read_sampled_qrels

SE_INFAP = "xinfAP(eps=0.00001,prior=0.3333333333333333)"


def simulate(S: int, seed: int = 7) -> None:
    rng = np.random.default_rng(seed)
    D = 80
    grade = np.where(rng.random(D) < np.linspace(0.7, 0.1, D), rng.choice([1, 2], D), 0)
    lab = np.where(np.arange(D) < 20, "top", np.where(np.arange(D) < 50, "mid", "low"))
    take = {"top": 20, "mid": 15, "low": 6}
    run = tb.read_run(io.BytesIO("".join(f"1 Q0 d{i} {i + 1} {D - i} r\n"
                                         for i in range(60)).encode()))
    full = tb.read_qrels(io.BytesIO("".join(f"1 0 d{i} {g}\n"
                                            for i, g in enumerate(grade)).encode()))
    truth = Evaluator(full, ["AP", "nDCG"], ["trec_eval"]).evaluate([run]).per_topic[0, :, 0, 0]
    ms = ["xinfAP", "statAP", "infNDCG", "xinfAP_var", "statAP_var", "infNDCG_var"]
    idx = {s: np.flatnonzero(lab == s) for s in take}
    est = np.zeros((S, len(ms)))
    t0 = time.process_time()
    for it in range(S):
        pick = np.zeros(D, bool)
        for s, ix in idx.items():
            pick[rng.choice(ix, take[s], replace=False)] = True
        q = read_sampled_qrels(io.BytesIO("".join(
            f"1 0 d{i} {lab[i]} {grade[i] if pick[i] else -1}\n" for i in range(D)).encode()))
        est[it] = Evaluator(q, ms, ["trec_eval"]).evaluate([run]).per_topic[0, :, 0, 0]
    cpu = time.process_time() - t0
    print(f"simulation: {S} stratified samples (20/20, 15/30, 6/30 judged), seed {seed}, "
          f"{cpu:.1f} s CPU, load {os.getloadavg()[0]:.2f}")
    print(f"{'estimate':<9} {'truth':>7} {'mean':>7} {'MC SE':>7} {'bias/SE':>8} "
          f"{'var':>9} {'mean var est':>12} {'ratio':>6}")
    for j, tv in ((0, truth[0]), (1, truth[0]), (2, truth[1])):
        x = est[:, j]
        se = x.std(ddof=1) / math.sqrt(S)
        var = x.var(ddof=1)
        ve = est[:, j + 3].mean()
        print(f"{ms[j]:<9} {tv:7.4f} {x.mean():7.4f} {se:7.4f} {(x.mean() - tv) / se:8.2f} "
              f"{var:9.6f} {ve:12.6f} {ve / var:6.2f}")


def _collection(rng, path_q, path_r, T=4, D=60):
    ql, rl = [], []
    rate = {"1": 1.0, "2": 0.5, "3": 0.2}
    for t in range(1, T + 1):
        grade = rng.choice([0, 0, 0, 1, 2], D)
        strata = rng.choice(["1", "2", "3"], D, p=[.2, .3, .5])
        for i in range(45):
            judged = rng.random() < rate[strata[i]]
            ql.append(f"{t} 0 D{t}-{i:03d} {strata[i]} {grade[i] if judged else -1}")
        for r, i in enumerate(rng.permutation(D)[:40]):
            rl.append(f"{t} Q0 D{t}-{i:03d} {r + 1} {rng.integers(0, 25)} run")
    with open(path_q, "w") as f:
        f.write("\n".join(ql) + "\n")
    with open(path_r, "w") as f:
        f.write("\n".join(rl) + "\n")


def _small(rng, path_q, path_r, T=4, D=14):
    """Small pools (10 documents, two strata) and short runs: few relevant documents, so that
    several recall levels fall on one rank."""
    ql, rl = [], []
    for t in range(1, T + 1):
        grade = rng.choice([0, 0, 1, 2], D)
        strata = rng.choice(["1", "2"], D)
        for i in range(10):
            judged = rng.random() < (0.9 if strata[i] == "1" else 0.4)
            ql.append(f"{t} 0 D{t}-{i:03d} {strata[i]} {grade[i] if judged else -1}")
        for r, i in enumerate(rng.permutation(D)[:rng.integers(1, 12)]):
            rl.append(f"{t} Q0 D{t}-{i:03d} {r + 1} {rng.integers(0, 5)} run")
    with open(path_q, "w") as f:
        f.write("\n".join(ql) + "\n")
    with open(path_r, "w") as f:
        f.write("\n".join(rl) + "\n")


SE_NAMES = ["infAP", "infNDCG", "iP10", "iP50", "iP1000", "inum_rel_ret", "inum_rel",
            "num_ret"] + [f"iprec@rec{x / 10:4.2f}" for x in range(11)]


def against_sample_eval(script: str, n: int, seed: int = 1, small: bool = False) -> None:
    """Every summary line sample_eval prints, and its per-topic infAP and infNDCG, against
    ``--convention sample_eval`` (trec_eval order, the run's topics, the top 1000)."""
    rng = np.random.default_rng(seed)
    agree = differ = 0
    with tempfile.TemporaryDirectory() as d:
        q, r = os.path.join(d, "q"), os.path.join(d, "r")
        for _ in range(n):
            while True:  # sample_eval cannot estimate a topic without a sampled document
                (_small if small else _collection)(rng, q, r)
                try:
                    ev = Evaluator(q, SE_NAMES, ["trec_eval"], convention="sample_eval",
                                   average="run-topics", max_docs=1000)
                    break
                except tb.io.InputError:
                    continue
            out = subprocess.run(["perl", script, "-q", q, r], capture_output=True, text=True,
                                 check=True).stdout
            printed = {}
            for line in out.splitlines():
                f = line.split()
                printed[(f[0], f[1])] = f[2]
            res = ev.evaluate([r])
            got = {}
            for j, name in enumerate(SE_NAMES):
                got[(name, "all")] = res.mean[0, j, 0]
                if name in ("infAP", "infNDCG"):
                    for ti, t in enumerate(ev.qrels.topics):
                        got[(name, t)] = res.per_topic[0, j, 0, ti]
            for key, v in got.items():
                mine = f"{v:.0f}" if key[0] == "num_ret" else f"{v:.4f}"
                if mine == printed[key]:
                    agree += 1
                else:
                    differ += 1
                    print(f"  differ: {key}: tiebreak {v!r}, sample_eval {printed[key]}")
    kind = "small" if small else "random"
    print(f"sample_eval.pl: {n} {kind} collections of 4 topics: {agree} printed values agree "
          f"to the printed digit, {differ} differ (per topic: infAP, infNDCG; summary: "
          f"{len(SE_NAMES)} lines)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--sample-eval", metavar="PATH", help="NIST's sample_eval.pl")
    ap.add_argument("--collections", type=int, default=30)
    a = ap.parse_args()
    simulate(a.samples)
    if a.sample_eval:
        against_sample_eval(a.sample_eval, a.collections)
        against_sample_eval(a.sample_eval, a.collections, seed=5, small=True)


if __name__ == "__main__":
    main()
