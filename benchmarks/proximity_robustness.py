"""Per-query robustness of the window features (Lu 2018 Fig. 3.3 / 3.4, Table 3.3) on the eight
distinct classic collections: per collection, the topics of two or more terms, how many of them
each of BOW+OW, BOW+UW, SDM and FDM loses by more than 25 % of BOW's AP, McNemar's exact p of
"BOW+OW loses more topics than BOW+UW", and the topic BOW+OW hurts most while BOW+UW does not.

    python benchmarks/proximity_robustness.py [--markdown robust.md] [--collections adi,cacm]

The models are the study's (tiebreak.studies.study_proximity.MODELS, this project's Table 3.1
reading); default analyser, top 1000, trec_eval regime. NPL is Vaswani, so it is not repeated.
"""

from __future__ import annotations

import argparse
import io
import shutil
import sys
from pathlib import Path

import numpy as np
from effectiveness import writable_irds_home

import tiebreak as tb
from tiebreak.index import build_index
from tiebreak.index.readers import read_topics
from tiebreak.index.testcollections import COLLECTIONS
from tiebreak.retrieval.search import search
from tiebreak.studies import proximity_robustness as pr
from tiebreak.studies.study_proximity import MODELS, _evaluate

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
DEFAULT = "cranfield,vaswani,cacm,cisi,medline,adi,lisa,time"


def main():
    ap_ = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap_.add_argument("--markdown", help="write the docs' markdown tables here (default stdout)")
    ap_.add_argument("--collections", default=DEFAULT)
    ap_.add_argument("--data", default=str(SHARED))
    a = ap_.parse_args()
    data = Path(a.data)
    tmp = writable_irds_home(data, "tb-rob-")
    t1 = ["| collection | topics (≥ 2 terms) | losses > 25 %: BOW+OW / BOW+UW / SDM / FDM | "
          "OW only / UW only | McNemar p |", "|---|---:|---|---|---:|"]
    t2 = ["| collection | topic | terms | AP BOW | Δ BOW+OW | Δ BOW+UW | Δ SDM | Δ FDM | "
          "query |", "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    try:
        for name in a.collections.split(","):
            c = COLLECTIONS[name]
            idx = build_index(c.docs_source(data), tmp / name, fields=c.fields, progress=False)
            topics = read_topics(c.topics_source(data))
            qrels = tb.read_qrels(io.BytesIO(c.qrels(data)))
            judged = set(qrels.topics)
            topics = [(t, x) for t, x in topics if t in judged]
            names = (pr.BASE, *pr.MODELS)
            runs = {n: (idx, search(idx, topics, *MODELS[n][:1], 1000, **MODELS[n][1]))
                    for n in names}
            res = _evaluate(qrels, runs)
            api = res.measures.index("AP")
            ap = {n: res.per_topic[i, api, 0, :] for i, n in enumerate(res.runs)}
            text = dict(topics)
            an = idx.analyzer.analyze
            lengths = np.array([len({t for t in an(text.get(q, "")) if idx.term_id(t) >= 0})
                                for q in res.topics])
            rows = {r[0]: r for r in pr.robustness_rows(ap, lengths)}
            test = pr.order_test(ap, lengths)
            t1.append(f"| {name} | {rows['SDM'][1]} | "
                      + " / ".join(str(rows[m][-1]) for m in pr.MODELS)
                      + f" | {test['ow_only']} / {test['uw_only']} | {test['p']:.3g} |")
            for r in pr.ow_outliers(ap, lengths, list(res.topics), top=1):
                q = " ".join(text.get(r[0], "").split()[:12])
                t2.append(f"| {name} | {r[0]} | {r[1]} | {r[2]:.4f} | "
                          + " | ".join(f"{x:+.4f}" for x in r[3:]) + f" | {q} |")
            print(name, file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    text = "\n".join(t1) + "\n\n" + "\n".join(t2) + "\n"
    if a.markdown:
        Path(a.markdown).write_text(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
