"""Effectiveness table: every collection x every model in MODELS -> MAP, nDCG@10, P@10 (markdown).

    python benchmarks/effectiveness.py [-o table.md] [--collections cacm,cisi] [--models bm25,ql]
        (a model with parameters: tpspan:lam=0.55:gamma=0.25)

Collections come from ../shared/data (see tiebreak.index.testcollections); Cranfield and Vaswani
are read through ir_datasets from a temporary copy of data/ir_datasets_home. Default analyser
(Porter, Lucene stopwords), default model parameters, top 1000, trec_eval tie order. Models that
are not available yet (NotImplementedError) or refuse a topic set (ValueError, e.g. too many
query terms) show as "—".
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import tiebreak as tb
from tiebreak.index import build_index
from tiebreak.index.readers import read_topics
from tiebreak.index.testcollections import COLLECTIONS
from tiebreak.retrieval.models import MODELS
from tiebreak.retrieval.search import format_run, search

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
MEASURES = ["AP", "nDCG@10", "P@10"]


def writable_irds_home(data: Path, prefix: str) -> Path:
    """A temporary directory holding a writable copy of ``data/ir_datasets_home`` (ir_datasets
    writes beside its files), set as ``IR_DATASETS_HOME``; the caller removes the directory."""
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    shutil.copytree(data / "ir_datasets_home", tmp / "irds")
    for p in [tmp / "irds", *(tmp / "irds").rglob("*")]:
        p.chmod(p.stat().st_mode | 0o200)
    os.environ["IR_DATASETS_HOME"] = str(tmp / "irds")
    return tmp


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", help="write the markdown table here (default: stdout)")
    ap.add_argument("--collections", default=",".join(COLLECTIONS))
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--data", default=str(SHARED))
    a = ap.parse_args()
    data = Path(a.data)
    tmp = writable_irds_home(data, "tb-eff-")
    models = a.models.split(",")
    rows = []
    try:
        for name in a.collections.split(","):
            c = COLLECTIONS[name]
            idx = build_index(c.docs_source(data), tmp / name, fields=c.fields, progress=False)
            topics = read_topics(c.topics_source(data))
            qrels = tb.read_qrels(io.BytesIO(c.qrels(data)))
            for m in models:
                t = time.perf_counter()
                try:
                    # BM25 as in the docs' table: Lu (2018)'s BM25^(1), RSJ idf; "model:k=v:k=v"
                    # sets parameters (numbers as floats, integers as ints)
                    model, *kv = m.split(":")
                    params = {"idf": "rsj"} if m == "bm25" else {}
                    for x in kv:
                        key, v = x.split("=", 1)
                        params[key] = _number(v)
                    res = search(idx, topics, model, 1000, **params)
                except (NotImplementedError, ValueError) as e:
                    # not available yet, or a limit of the model (e.g. too many query terms)
                    print(f"{name} {m}: {e}", file=sys.stderr)
                    rows.append((name, m, None, None))
                    continue
                secs = time.perf_counter() - t
                run = tb.read_run(io.BytesIO(format_run(idx, res, m).encode()))
                r = tb.evaluate(qrels, [run], MEASURES, ["trec_eval"])
                vals = [float(x) for x in r.mean[0, :, 0]]
                rows.append((name, m, vals, secs))
                print(f"{name} {m}: " + " ".join(f"{v:.4f}" for v in vals), file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out = ["| collection | model | MAP | nDCG@10 | P@10 | search s |",
           "|---|---|---:|---:|---:|---:|"]
    for name, m, vals, secs in rows:
        if vals is None:
            out.append(f"| {name} | {m} | — | — | — | — |")
        else:
            out.append(f"| {name} | {m} | " + " | ".join(f"{v:.4f}" for v in vals)
                       + f" | {secs:.2f} |")
    text = "\n".join(out) + "\n"
    if a.output:
        Path(a.output).write_text(text)
    else:
        sys.stdout.write(text)


def _number(v: str):
    try:
        return int(v)
    except ValueError:
        try:
            return float(v)
        except ValueError:
            return v


if __name__ == "__main__":
    main()
