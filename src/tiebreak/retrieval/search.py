"""Batch search and TREC run output.

>>> from tiebreak.index import open_index
>>> from tiebreak.retrieval.search import search, write_run
>>> idx = open_index("cran.idx")
>>> res = search(idx, [("1", "flow past a cylinder")], "bm25", k=1000, idf="lucene")
>>> write_run(sys.stdout, idx, res, tag="bm25")

Run lines are ``qid Q0 docno rank score tag``. Scores are written with ``repr(float)`` (the
shortest text that reads back as the same float64), so documents with equal scores are written
with equal text and stay tied for trec_eval; the models return them in trec_eval's order (score
descending, then docno descending in byte order), so file order equals trec_eval order.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

__all__ = ["search", "write_run", "format_run", "Result", "get_model"]


@dataclass
class Result:
    qid: str
    docids: np.ndarray   # int32, best first
    scores: np.ndarray   # float64


def get_model(name: str):
    from .models import MODELS

    try:
        return MODELS[name]
    except KeyError:
        raise ValueError(f"unknown model {name!r}; choose from {', '.join(MODELS)}") from None


def search(index, topics, model: str = "bm25", k: int = 1000, progress: bool = False,
           **params) -> list[Result]:
    """Run every ``(qid, text)`` topic; text is analysed with the index's analyser."""
    fn = get_model(model)
    analyze = index.analyzer.analyze
    out = []
    if progress:
        from tqdm import tqdm

        it = tqdm(topics, desc=f"searching ({model})", unit=" q", file=sys.stderr,
                  mininterval=0.5)
    else:
        it = topics
    for qid, text in it:
        d, s = fn(index, analyze(text), k, **params)
        out.append(Result(str(qid), d, s))
    return out


def format_run(index, results, tag: str = "tiebreak") -> str:
    """TREC run text of ``results`` (list of :class:`Result`)."""
    docnos = index.docnos
    lines = []
    for r in results:
        names = docnos[r.docids].tolist() if len(r.docids) else []
        for rank, (dn, sc) in enumerate(zip(names, r.scores.tolist()), 1):
            lines.append(f"{r.qid} Q0 {dn} {rank} {sc!r} {tag}\n")
    return "".join(lines)


def write_run(fh, index, results, tag: str = "tiebreak") -> None:
    """Write a TREC run to the text stream ``fh``."""
    fh.write(format_run(index, results, tag))
