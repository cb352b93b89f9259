"""Differential run against the real trec_eval 10.0 over every real run in ../shared/data.

Builds trec_eval from ../shared/tools/trec_eval-10.0 in a temporary directory, then for every
run of TREC DL 2020, TREC-COVID rounds 1 and 5 and Robust 2003 compares every output line of
``-q -m all_trec`` with and without ``-c``, ``-l2``, ``-c -l2``, ``-M 100`` and ``-J``
(``tiebreak trec_eval --strict``: a qrels topic without results is an error, as in trec_eval 10).
Prints the number of lines compared and the differing lines.

Usage::

    python benchmarks/trec_eval_diff.py [--data DIR] [--limit N]
"""

from __future__ import annotations

import argparse
import gzip
import io
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETS = [
    ("trec_dl2020_bitua/qrels.dl20-doc.txt", "trec_dl2020_bitua/runs"),
    ("trec_covid/round1/qrels-rnd1.txt", "trec_covid/round1/runs"),
    ("trec_covid/round5/qrels.covid-round5.txt", "trec_covid/round5/runs"),
    ("robust03_trectools/qrels/robust03_qrels.txt.gz", "robust03_trectools/runs"),
]
OPTIONS = [[], ["-c"], ["-l2"], ["-c", "-l2"], ["-M", "100"], ["-J"]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--limit", type=int, default=0, help="runs per set (0 = all)")
    a = ap.parse_args()
    from tiebreak.trec_eval import main as te_main

    tmp = Path(tempfile.mkdtemp())
    src = a.data.parent / "tools" / "trec_eval-10.0"
    shutil.copytree(src, tmp / "te")
    subprocess.run(["make", "-s"], cwd=tmp / "te", check=True, capture_output=True)
    binary = tmp / "te" / "trec_eval"

    def plain(p: Path) -> Path:
        if p.suffix != ".gz":
            return p
        out = tmp / p.name[:-3]
        out.write_bytes(gzip.decompress(p.read_bytes()))
        return out

    total = 0
    bad: list[str] = []
    t0 = time.time()
    for qrels, rdir in SETS:
        q = plain(a.data / qrels)
        runs = sorted(p for p in (a.data / rdir).iterdir() if not p.name.startswith("."))
        if a.limit:
            runs = runs[:a.limit]
        n_set = 0
        for r in runs:
            rp = plain(r)
            for opts in OPTIONS:
                args = ["-q", "-m", "all_trec", *opts, str(q), str(rp)]
                ref = subprocess.run([str(binary), *args], capture_output=True, text=True)
                out, err = io.StringIO(), io.StringIO()
                rc = te_main(["--strict", *args], out, err)
                x, y = ref.stdout.splitlines(), out.getvalue().splitlines()
                n_set += len(x)
                if rc != ref.returncode:
                    bad.append(f"{r.name} {' '.join(opts)}: exit {rc} vs {ref.returncode}")
                bad += [f"{r.name} {' '.join(opts)}: {u!r} != {v!r}"
                        for u, v in zip(x, y) if u != v]
                if len(x) != len(y):
                    bad.append(f"{r.name} {' '.join(opts)}: {len(x)} vs {len(y)} lines")
            if rp != r:
                rp.unlink()
        total += n_set
        print(f"{rdir}: {len(runs)} runs, {n_set} lines", flush=True)
    print(f"{total} lines compared in {time.time() - t0:.0f} s; {len(bad)} differ")
    for b in bad[:50]:
        print("  " + b)
    shutil.rmtree(tmp, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
