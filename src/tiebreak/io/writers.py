"""Writers: TREC runs in full precision (:func:`format_trec_run`), runs and qrels as ranx's JSON
``{qid: {docno: value}}`` and as Parquet tables (:func:`write_run`, :func:`write_qrels`).

Scores are written with ``repr`` (the shortest text that reads back to the same float64), so a
run written and read again is the same run. Parquet needs pyarrow (``pip install pyarrow``);
its columns are ranx's: ``q_id, doc_id, score`` for runs and ``q_id, doc_id, rel`` for qrels.
"""

from __future__ import annotations

import json
import re

import numpy as np

from .params import check_finite_scores
from .qrels import Qrels
from .runs import Run

__all__ = ["format_trec_run", "run_dict", "qrels_dict", "write_run", "write_qrels",
           "FORMATS"]

#: Output formats by name, and the file suffixes that select them.
FORMATS = {"trec": (".txt", ".trec", ".run", ""), "json": (".json",),
           "parquet": (".parquet", ".pq")}


def format_trec_run(run: Run, tag: str | None = None) -> bytes:
    """TREC run text ``qid Q0 docno rank score tag``, one line per entry in array order.

    Docnos and qids are written as the bytes they were read from; scores with ``repr``; ranks
    as integers. ``tag`` defaults to ``run.name`` (whitespace replaced by ``_``).

    Raises
    ------
    ValueError
        An empty tag or one with whitespace, or a rank that is not a whole number.
    InputError
        A score that is not a finite number (naming the run, topic and docno): no run the
        readers would refuse is ever written.
    """
    check_finite_scores(run)
    tag = tag if tag is not None else re.sub(r"\s+", "_", run.name.strip())
    if not tag or re.search(r"\s", tag):
        raise ValueError(f"run tag must be non-empty and without whitespace, got {tag!r}")
    rank = run.rank
    if len(rank) and not (np.isfinite(rank).all() and (rank == np.round(rank)).all()):
        raise ValueError("ranks must be whole numbers to be written")
    qids = [t.encode("utf-8", "surrogateescape") for t in run.topics]
    docnos = [str(d).encode("latin-1") for d in run.docnos.tolist()]
    tb = tag.encode("utf-8")
    lines = [
        b"%s Q0 %s %d %s %s\n" % (qids[t], docnos[d], r, repr(s).encode(), tb)
        for t, d, r, s in zip(run.topic.tolist(), run.docid.tolist(),
                              rank.astype(np.int64).tolist(), run.score.tolist())
    ]
    return b"".join(lines)


def _doc(d) -> str:
    return str(d).encode("latin-1").decode("utf-8", "surrogateescape")


def run_dict(run: Run) -> dict:
    """``{qid: {docno: score}}`` in line order (ranx's and pytrec_eval's form)."""
    out: dict = {}
    docs = [_doc(d) for d in run.docnos.tolist()]
    for t, d, s in zip(run.topic.tolist(), run.docid.tolist(), run.score.tolist()):
        out.setdefault(run.topics[t], {})[docs[d]] = s
    return out


def qrels_dict(qrels: Qrels) -> dict:
    """``{qid: {docno: relevance}}`` in file order."""
    out: dict = {}
    docs = [_doc(d) for d in qrels.docnos.tolist()]
    for t, d, r in zip(qrels.topic.tolist(), qrels.docid.tolist(), qrels.value.tolist()):
        out.setdefault(qrels.topics[t], {})[docs[d]] = int(r)
    return out


def format_of(path: str, fmt: str | None = None) -> str:
    """``fmt``, else the format the file suffix names (``.json``, ``.parquet``), else trec."""
    if fmt:
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
        return fmt
    p = str(path).lower()
    for name in ("json", "parquet"):
        if p.endswith(FORMATS[name]):
            return name
    return "trec"


def _arrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError("Parquet needs pyarrow: pip install pyarrow") from None
    return pa, pq


def _table(d: dict, value: str, cast):
    pa, _ = _arrow()
    q, doc, v = [], [], []
    for qid, inner in d.items():
        for k, x in inner.items():
            q.append(qid)
            doc.append(k)
            v.append(x)
    return pa.table({"q_id": pa.array(q, pa.string()), "doc_id": pa.array(doc, pa.string()),
                     value: pa.array(v, cast)})


def write_run(run: Run, dest, fmt: str | None = None, tag: str | None = None) -> None:
    """Write ``run`` to the path ``dest`` as TREC text, JSON or Parquet (``fmt`` or the
    suffix). Raises ValueError (bad tag, format), ImportError (Parquet without pyarrow) and
    InputError (a score that is not finite: nothing is written)."""
    fmt = format_of(dest, fmt)
    check_finite_scores(run)
    if fmt == "trec":
        data = format_trec_run(run, tag)
        with open(dest, "wb") as f:
            f.write(data)
    elif fmt == "json":
        with open(dest, "w", encoding="utf-8") as f:
            json.dump(run_dict(run), f)
    else:
        pa, pq = _arrow()
        pq.write_table(_table(run_dict(run), "score", pa.float64()), dest)


def write_qrels(qrels: Qrels, dest, fmt: str | None = None) -> None:
    """Write ``qrels`` to the path ``dest`` as TREC qrels text (``qid 0 docno rel``), JSON or
    Parquet."""
    fmt = format_of(dest, fmt)
    d = qrels_dict(qrels)
    if fmt == "trec":
        with open(dest, "w", encoding="utf-8", errors="surrogateescape") as f:
            for q, inner in d.items():
                for k, r in inner.items():
                    f.write(f"{q} 0 {k} {r}\n")
    elif fmt == "json":
        with open(dest, "w", encoding="utf-8") as f:
            json.dump(d, f)
    else:
        pa, pq = _arrow()
        pq.write_table(_table(d, "rel", pa.int64()), dest)
