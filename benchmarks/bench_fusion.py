"""Fusion against ranx's ``fuse`` on TREC-COVID round 1: every method x normalisation both
have, on three full runs (1000 documents per topic, 30 topics); prints the values compared,
those that differ (beyond 1e-12) and the tie counts. Rank-based methods and the rank/borda
normalisations get runs untied in trec_eval order (ranx ranks ties by numba's quicksort).

    python benchmarks/bench_fusion.py [RUN.gz ...]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import ranx

import tiebreak as tb
from tiebreak.runs import fuse

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_fusion import _agree, _as_dict, _untie  # noqa: E402

BASE = Path(__file__).resolve().parents[2] / "shared/data/trec_covid/round1/runs"
METHODS = ["sum", "mnz", "anz", "max", "min", "med", "wsum", "rrf", "isr", "log_isr",
           "bordafuse"]
NORMS = ["min-max", "zmuv", "max", "sum", "rank", "borda", None]


def main(names):
    raw = [_as_dict(tb.read_run(BASE / n)) for n in names]
    untied = [_untie(d) for d in raw]
    total = bad_total = 0
    for norm in NORMS:
        for m in METHODS:
            if m in ("rrf", "isr", "log_isr", "bordafuse") and norm != "min-max":
                continue  # rank-based: the normalisation does not apply
            src = untied if (norm in ("rank", "borda") or m in ("rrf", "isr", "log_isr",
                                                                 "bordafuse")) else raw
            w = [1.0, 2.0, 0.5][:len(src)] if m == "wsum" else None
            t0 = time.perf_counter()
            mine = fuse(src, m, norm, weights=w)
            t1 = time.perf_counter()
            ref = ranx.fuse([ranx.Run.from_dict(d) for d in src], norm=norm, method=m,
                            params={"weights": w} if w else None)
            t2 = time.perf_counter()
            n, bad = _agree(mine, ref)
            total, bad_total = total + n, bad_total + bad
            print(f"{m:10s} {str(norm):8s} values={n} differ={bad} tied_groups="
                  f"{mine.tied_groups} tiebreak {t1 - t0:.2f}s ranx {t2 - t1:.2f}s", flush=True)
    print(f"total: {total} values, {bad_total} differ")


if __name__ == "__main__":
    main(sys.argv[1:] or ["BBGhelani1.gz", "BM25R2.gz", "BITEM_BL.gz"])
