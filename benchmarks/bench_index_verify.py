"""Cost of index verification: open, first BM25 query and full verify under each mode.

    python benchmarks/bench_index_verify.py                      # Vaswani + 1M-doc Zipf
    python benchmarks/bench_index_verify.py --zipf-docs 200000   # smaller synthetic index

Each measurement runs in a fresh subprocess (the per-process "already verified" memory would
otherwise hide the cost) that first loads every numba kernel on a tiny index, so that numba's
start-up (about a second, paid by any search anyway) is not counted. Reported: ``open_index``
time, the first BM25 query (which verifies the arrays it reads: crc32 + invariants in ``lazy``
mode, invariants only in ``structure`` mode), the second query, and ``Index.verify()``
(everything). Needs ../shared/data for Vaswani.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"

PROBE = r"""
import json, sys, time
from tiebreak.index import open_index
from tiebreak.retrieval.models import bm25
path, mode, warm = sys.argv[1], sys.argv[2], sys.argv[3]
w = open_index(warm)                  # load every numba kernel first (LLVM start-up, cache)
bm25(w, ["alpha", "beta"], 10)
w.verify()
t = time.perf_counter(); idx = open_index(path, verify=mode); t_open = time.perf_counter() - t
q = [str(idx.terms[idx.vocab_size // 3]), str(idx.terms[idx.vocab_size // 2])]
t = time.perf_counter(); bm25(idx, q, 1000); t1 = time.perf_counter() - t
t = time.perf_counter(); bm25(idx, q, 1000); t2 = time.perf_counter() - t
t = time.perf_counter(); idx.verify(); tv = time.perf_counter() - t
mb = sum(m["file_bytes"] for m in idx.manifest["arrays"].values()) / 1e6
print(json.dumps({"open": t_open, "q1": t1, "q2": t2, "verify": tv, "mb": mb}))
"""


def probe(path: Path, mode: str, warm: Path) -> dict:
    env = dict(os.environ)
    p = subprocess.run([sys.executable, "-c", PROBE, str(path), mode, str(warm)],
                       capture_output=True, text=True, env=env, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def build_zipf(path: Path, n_docs: int, avg_len: int, vocab_size: int = 200_000, seed: int = 0):
    from tiebreak.index import Analyzer
    from tiebreak.index.build import build_index_from_tokens

    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, vocab_size + 1) ** 1.07
    p /= p.sum()
    lens = rng.poisson(avg_len, n_docs).astype(np.int64)
    flat = rng.choice(vocab_size, size=int(lens.sum()), p=p).astype(np.int32)
    ptr = np.concatenate([[0], np.cumsum(lens)])
    build_index_from_tokens(path, [f"D{i}" for i in range(n_docs)], flat, ptr,
                            [f"t{i}" for i in range(vocab_size)], Analyzer("none", "none"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--zipf-docs", type=int, default=1_000_000)
    ap.add_argument("--zipf-len", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="tb-verify-"))
    try:
        from tiebreak.index import build_index

        indexes = []
        src = SHARED / "vaswani" / "doc-text.trec.gz"
        if src.is_file():
            build_index(src, tmp / "vaswani", progress=False)
            indexes.append(("Vaswani", tmp / "vaswani"))
        t = time.perf_counter()
        build_zipf(tmp / "zipf", a.zipf_docs, a.zipf_len)
        print(f"(zipf index built in {time.perf_counter() - t:.1f} s)")
        indexes.append((f"Zipf {a.zipf_docs:,} docs", tmp / "zipf"))
        from tiebreak.index.build import build_index_from_tokens

        warm = tmp / "warm"
        build_index_from_tokens(warm, ["a", "b"], np.array([0, 1, 1]), np.array([0, 2, 3]),
                                ["alpha", "beta"])
        probe(indexes[0][1], "lazy", warm)   # compiles the kernels once (cached on disk)
        print(f"{'index':22s} {'MB':>7s} {'mode':9s} {'open ms':>8s} {'1st q ms':>9s} "
              f"{'2nd q ms':>9s} {'verify s':>9s}   (best of {a.repeat})")
        for name, path in indexes:
            for mode in ("lazy", "structure"):
                runs = [probe(path, mode, warm) for _ in range(a.repeat)]
                best = {k: min(r[k] for r in runs) for k in ("open", "q1", "q2", "verify")}
                print(f"{name:22s} {runs[0]['mb']:7.1f} {mode:9s} {1e3 * best['open']:8.2f} "
                      f"{1e3 * best['q1']:9.1f} {1e3 * best['q2']:9.2f} {best['verify']:9.3f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
