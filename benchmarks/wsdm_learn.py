"""Learned WSDM and WFDM (``tiebreak study proximity --learn``) on the eight distinct classic
collections: the cross-validated WSDM and WFDM beside BOW, SDM, FDM and the PMI-segmented SDM
and FDM, MAP / nDCG@10 / P@10 and the two-sided paired t-test p of AP against SDM, one row per
collection and model.

    python benchmarks/wsdm_learn.py [-o learn.tsv] [--markdown learn.md]
        [--collections adi,cacm] [--folds 5] [--seed 0] [--models wsdm,wfdm]

Collections come from ../shared/data (tiebreak.index.testcollections); Cranfield and Vaswani
are read through ir_datasets from a temporary copy of data/ir_datasets_home. Default analyser,
top 1000, trec_eval regime. NPL is Vaswani, so it is not repeated.
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
from tiebreak.studies.wsdm_learn import LEARNED, learn_table

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
DEFAULT = "cranfield,vaswani,cacm,cisi,medline,adi,lisa,time"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", help="TSV here (default: stdout)")
    ap.add_argument("--markdown", help="also write the docs' markdown table here")
    ap.add_argument("--collections", default=DEFAULT)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", default=str(SHARED))
    ap.add_argument("--models", default="wsdm,wfdm", help="learned models")
    a = ap.parse_args()
    data = Path(a.data)
    tmp = writable_irds_home(data, "tb-wsdm-")
    out = open(a.output, "w") if a.output else sys.stdout
    out.write("collection\ttopics\tmodel\tMAP\tnDCG@10\tP@10\tp_AP_vs_SDM\tweights_all\n")
    md = {}
    try:
        for name in a.collections.split(","):
            c = COLLECTIONS[name]
            idx = build_index(c.docs_source(data), tmp / name, fields=c.fields, progress=False)
            topics = read_topics(c.topics_source(data))
            qrels = tb.read_qrels(io.BytesIO(c.qrels(data)))
            judged = set(qrels.topics)
            topics = [(t, x) for t, x in topics if t in judged]
            t0 = time.perf_counter()
            t = learn_table(idx, topics, qrels, a.folds, a.seed,
                            models=tuple(a.models.split(",")))
            w = {LEARNED[m]: " ".join(f"{x:.4g}" for x in L["all"])
                 for m, L in t["learned"].items()}
            for n, m, nd, p10, p in t["rows"]:
                ps = f"{p:.3g}" if isinstance(p, float) else ""
                out.write(f"{name}\t{len(topics)}\t{n}\t{m:.4f}\t{nd:.4f}\t{p10:.4f}\t{ps}\t"
                          f"{w.get(n, '')}\n")
                md.setdefault(n, {})[name] = (m, nd, p)
            out.flush()
            print(f"{name}: {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if a.markdown:
        cols = a.collections.split(",")
        with open(a.markdown, "w") as fh:
            fh.write("| model | " + " | ".join(cols) + " |\n|---|" + "---:|" * len(cols) + "\n")
            for n, by in md.items():
                cells = []
                for c in cols:
                    m, nd, p = by[c]
                    star = ("+" if m > md["SDM"][c][0] else "−") if isinstance(p, float) \
                        and p < 0.05 else ""
                    cells.append(f"{m:.4f}{star} / {nd:.4f}")
                fh.write(f"| {n} | " + " | ".join(cells) + " |\n")


if __name__ == "__main__":
    main()
