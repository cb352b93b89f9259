"""The per-query proximity choice (``tiebreak study proximity --select``) on the nine classic
collections: never / always / oracle / cross-validated predictor, MAP and nDCG@10 with paired
t-tests, one TSV row per collection, pair and strategy.

    python benchmarks/proximity_select.py [-o select9.tsv] [--markdown select9.md]
        [--collections adi,cacm] [--pairs BM25:Lkp,BOW:SDM] [--folds 5] [--seed 0]

``--markdown`` also writes the table of docs/proximity.md (MAP and nDCG@10 of the four
strategies, the predictor's two-sided paired t-test p against never / always; + / − after p:
p < 0.05 and the predictor is better / worse).

Collections come from ../shared/data (see tiebreak.index.testcollections); Cranfield and Vaswani
are read through ir_datasets from a temporary copy of data/ir_datasets_home. Default analyser,
default model parameters, top 1000, trec_eval regime. NPL is Vaswani (the same documents and
topics), so it is not repeated.
"""

from __future__ import annotations

import argparse
import io
import shutil
import sys
import time
from pathlib import Path

from effectiveness import writable_irds_home

import tiebreak as tb
from tiebreak.index import build_index
from tiebreak.index.readers import read_topics
from tiebreak.index.testcollections import COLLECTIONS
from tiebreak.studies.proximity_select import rule_text, run_select, select_header, select_rows
from tiebreak.studies.study_proximity import MODELS

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
DEFAULT = "adi,cacm,cisi,cranfield,lisa,medline,time,vaswani"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", help="TSV here (default: stdout)")
    ap.add_argument("--markdown", help="also write the docs' markdown table here")
    ap.add_argument("--collections", default=DEFAULT)
    ap.add_argument("--pairs", default="BM25:Lkp,BOW:SDM")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", default=str(SHARED))
    a = ap.parse_args()
    data = Path(a.data)
    tmp = writable_irds_home(data, "tb-sel-")
    out = open(a.output, "w") if a.output else sys.stdout
    out.write("\t".join(["collection", "never", "always", "topics", *select_header(), "rules"])
              + "\n")
    md = []
    try:
        for name in a.collections.split(","):
            c = COLLECTIONS[name]
            idx = build_index(c.docs_source(data), tmp / name, fields=c.fields, progress=False)
            topics = read_topics(c.topics_source(data))
            qrels = tb.read_qrels(io.BytesIO(c.qrels(data)))
            judged = set(qrels.topics)
            topics = [(t, x) for t, x in topics if t in judged]
            for pair in a.pairs.split(","):
                nv, al = pair.split(":")
                t0 = time.perf_counter()
                sel = run_select(idx, topics, qrels, MODELS[nv], MODELS[al], 1000, a.folds,
                                 a.seed)
                rules = "; ".join(rule_text(r) for r, _ in sel["rules"])
                for r in select_rows(sel):
                    cells = [f"{x:.4f}" if isinstance(x, float) else str(x) for x in r]
                    out.write("\t".join([name, nv, al, str(len(sel["topics"])), *cells,
                                         rules]) + "\n")
                out.flush()
                md.append(_md_row(name, nv, al, len(sel["topics"]), select_rows(sel)))
                print(f"{name} {pair}: {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if a.markdown:
        with open(a.markdown, "w") as fh:
            fh.write("| collection | never → always | topics | MAP never / always / oracle / "
                     "predictor | p pred. vs never / always | nDCG@10 never / always / oracle / "
                     "predictor | p pred. vs never / always |\n|---|---|---:|---|---|---|---|\n")
            fh.write("".join(md))


def _p(x, diff) -> str:
    return f"{x:.3g}{('+' if diff > 0 else '−') if x < 0.05 else ''}"


def _md_row(name, nv, al, n, rows) -> str:
    """One markdown row: rows are select_rows' never, always, oracle, predictor."""
    by = {r[0]: r for r in rows}
    cells = [name, f"{nv} → {al}", str(n)]
    for m in (2, 5):  # MAP, nDCG@10 columns of select_rows
        cells.append(" / ".join(f"{by[s][m]:.4f}" for s in ("never", "always", "oracle",
                                                            "predictor")))
        pr = by["predictor"]
        cells.append(f"{_p(pr[m + 1], pr[m] - by['never'][m])} / "
                     f"{_p(pr[m + 2], pr[m] - by['always'][m])}")
    return "| " + " | ".join(cells) + " |\n"


if __name__ == "__main__":
    main()
