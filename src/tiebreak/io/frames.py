"""Runs and qrels from the ecosystem's in-memory forms: pandas DataFrames and nested dicts.

Accepted forms
--------------
* **runs**: a DataFrame with ir_measures columns ``query_id, doc_id, score`` or PyTerrier
  columns ``qid, docno, score`` (an optional ``rank`` column is kept for diagnostics, other
  columns are ignored), or a dict ``{qid: {docno: score}}`` (pytrec_eval / ir_measures / ranx).
* **qrels**: a DataFrame with ``query_id, doc_id, relevance`` (ir_measures) or ``qid, docno,
  label`` (PyTerrier), optional ``iteration``; or a dict ``{qid: {docno: relevance}}``.
* :func:`as_run` / :func:`as_qrels` also take a :class:`~tiebreak.io.Run` /
  :class:`~tiebreak.io.Qrels`, a path, and for qrels an ``irds:DATASET_ID`` string
  (:func:`tiebreak.io.irds.read_irds_qrels`).

Rows are taken in the order given, which is the run's "file order" (the ``file`` regime); qids
and docnos are converted with ``str``. The rows are written as TREC text and read by
:func:`tiebreak.io.read_run` / :func:`tiebreak.io.read_qrels`, so an in-memory input gives
exactly the same object as the same rows in a file (scores are written with ``repr``, which
round-trips every float64). Problems raise :class:`~tiebreak.io.InputError` naming the row and
column: missing columns, empty or whitespace-containing ids, scores that are not finite
numbers, relevance values that are not integers, the same docno twice for one topic.
"""

from __future__ import annotations

import io
import math
import re

import numpy as np

from . import InputError, Qrels, Run, read_qrels, read_run

__all__ = ["run_from_frame", "run_from_dict", "qrels_from_frame", "qrels_from_dict", "RUN_COLUMNS",
           "QRELS_COLUMNS"]

RUN_COLUMNS = {"ir_measures": ("query_id", "doc_id", "score"),
               "PyTerrier": ("qid", "docno", "score")}
QRELS_COLUMNS = {"ir_measures": ("query_id", "doc_id", "relevance"),
                 "PyTerrier": ("qid", "docno", "label")}


class Source(str):
    """The name of an in-memory input in messages (``<DataFrame run>``, or a JSON/Parquet
    file's path), with ``where(i)`` naming its row ``i`` (``row 3``; for JSON ``topic '1',
    docno 'd7'``; for Parquet ``row group 0, row 3``)."""

    where = None

    def __new__(cls, name: str, where=None):
        s = super().__new__(cls, name)
        s.where = where
        return s


def _loc(name, i) -> str:
    """``name: row i``, or ``name: <where(i)>`` for a :class:`Source` that knows better."""
    w = getattr(name, "where", None)
    return f"{name}: {w(int(i))}" if w is not None else f"{name}: row {int(i)}"


def _columns(df, schemas: dict, what: str, name: str) -> tuple[str, str, str]:
    cols = set(map(str, df.columns))
    for cs in schemas.values():
        if set(cs) <= cols:
            return cs
    want = " or ".join(f"{k} ({', '.join(v)})" for k, v in schemas.items())
    raise InputError(f"{name}: a {what} DataFrame needs the columns of {want}; found "
                     f"{', '.join(map(str, df.columns)) or 'none'}")


def _missing(v) -> bool:
    """None, NaN (float or numpy), ``pd.NA`` or ``pd.NaT``: a missing value, never a topic or a
    document named ``<NA>`` / ``nan``."""
    if v is None:
        return True
    if isinstance(v, float | np.floating):
        return math.isnan(v)
    t = type(v).__name__
    return t in ("NAType", "NaTType") or (t == "datetime64" and np.isnat(v))


def _ids(values, col: str, name: str) -> list[str]:
    out = [str(v) for v in values]
    for i, (v, s) in enumerate(zip(values, out)):
        if _missing(v):
            raise InputError(f"{_loc(name, i)}: {col} is missing ({s}); drop or fill the "
                             "row")
        if not s or any(ch.isspace() for ch in s):
            raise InputError(f"{_loc(name, i)}: {col} {s!r} is empty or contains whitespace")
    if out and col in ("qid", "query_id", "q_id") and any(s.startswith("#") for s in out):
        i = next(i for i, s in enumerate(out) if s.startswith("#"))
        raise InputError(f"{_loc(name, i)}: {col} {out[i]!r} starts with '#', which TREC "
                         "files read as a comment line")
    return out


def _duplicates(q: list[str], d: list[str], name: str, what: str) -> None:
    seen: dict[tuple[str, str], int] = {}
    for i, key in enumerate(zip(q, d)):
        j = seen.setdefault(key, i)
        if j != i:
            w = getattr(name, "where", None)
            at = f"{name}: rows {j} and {i}" if w is None else f"{name}: {w(j)} and {w(i)}"
            raise InputError(f"{at}: docno {key[1]!r} {what} twice for topic {key[0]!r}")


def _no_missing(values, col: str, name: str) -> None:
    for i, v in enumerate(values):
        if _missing(v):
            raise InputError(f"{_loc(name, i)}: {col} is missing ({v}); drop or fill the row")


def _booleans(values, col: str, name: str, what: str) -> None:
    """A boolean is no score or grade (``true`` in a TREC file is an error, so here too)."""
    kind = getattr(getattr(values, "dtype", None), "kind", "O")
    if kind == "b" or kind == "O":
        for i, v in enumerate(values):
            if isinstance(v, bool | np.bool_):
                raise InputError(f"{_loc(name, i)}: {col} {v!r} is a boolean, not {what}")


def _scores(values, col: str, name: str) -> np.ndarray:
    _booleans(values, col, name, "a number")
    if getattr(values, "dtype", None) is None or values.dtype.kind not in "fiub":
        _no_missing(values, col, name)  # (a float NaN score is "not a finite number" below)
    try:
        s = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        for i, v in enumerate(values):
            try:
                float(v)
            except (TypeError, ValueError):
                raise InputError(f"{_loc(name, i)}: {col} {v!r} is not a number") from None
        raise
    bad = np.flatnonzero(~np.isfinite(s))
    if len(bad):
        raise InputError(f"{_loc(name, bad[0])}: {col} {float(s[bad[0]])!r} is not a finite "
                         "number")
    return s


def _run_bytes(q: list[str], d: list[str], s: np.ndarray, rank, tag: str) -> bytes:
    if rank is None:
        rank = np.ones(len(q), np.int64)
        if len(q):
            qa = np.asarray(q, dtype=object)
            start = np.r_[True, qa[1:] != qa[:-1]]
            idx = np.arange(len(q))
            rank = idx - np.maximum.accumulate(np.where(start, idx, 0)) + 1
    lines = [f"{a} Q0 {b} {r} {x!r} {tag}" for a, b, r, x in zip(q, d, rank, s.tolist())]
    return ("\n".join(lines) + ("\n" if lines else "")).encode("utf-8")


def _tag(name: str) -> str:
    t = "".join("_" if ch.isspace() else ch for ch in name) or "run"
    return t


def run_from_frame(df, name: str | None = None) -> Run:
    """A :class:`~tiebreak.io.Run` from a DataFrame of ir_measures or PyTerrier columns.

    Parameters
    ----------
    df : pandas.DataFrame
        Columns ``query_id, doc_id, score`` or ``qid, docno, score``; an integer ``rank``
        column is kept for diagnostics (else ranks count 1, 2, ... inside each block of rows of
        one topic). Rows in the given order are the run's file order.
    name : str, optional
        Run name; default ``df.attrs["name"]`` or ``"run"``.

    Raises
    ------
    InputError
        Missing columns, bad ids or scores, a duplicate (topic, docno); the message names the row
        (0-based position) and column.
    """
    name = name or str(getattr(df, "attrs", {}).get("name", "run"))
    src = f"<DataFrame {name}>"
    qc, dc, sc = _columns(df, RUN_COLUMNS, "run", src)
    q = _ids(df[qc].tolist(), qc, src)
    d = _ids(df[dc].tolist(), dc, src)
    s = _scores(df[sc].to_numpy(), sc, src)
    _duplicates(q, d, src, "listed")
    rank = None
    if "rank" in df.columns:
        r = df["rank"].to_numpy()
        if np.issubdtype(r.dtype, np.integer):
            rank = r.tolist()
    return _finish_run(_run_bytes(q, d, s, rank, _tag(name)), name, src)


def _rows(read, data: bytes, src: str, **kw):
    """``read`` (read_run / read_qrels) over the rows written as TREC lines; an error at line
    N is reported at row N - 1 of ``src`` (one row is one line)."""
    fh = io.BytesIO(data)
    fh.name = str(src)
    try:
        return read(fh, **kw)
    except InputError as e:
        m = re.match(rf"{re.escape(src)}:(\d+):", str(e))
        if m is None:
            raise
        raise InputError(f"{_loc(src, int(m.group(1)) - 1)}:{str(e)[m.end():]}") from None


def _finish_run(data: bytes, name: str, src: str) -> Run:
    run = _rows(read_run, data, src, name=name)
    run.source = str(src)
    return run


def run_from_dict(d: dict, name: str = "run", source: str | None = None) -> Run:
    """A :class:`~tiebreak.io.Run` from ``{qid: {docno: score}}`` (pytrec_eval, ir_measures and
    ranx use this form). Topics and documents keep the dict's order as file order.

    Raises
    ------
    InputError
        Not a dict of dicts, bad ids, scores that are not finite numbers or booleans; the
        message names ``source`` (default ``<dict NAME>``), the topic and the docno.
    """
    src = source if source is not None else f"<dict {name}>"
    if not isinstance(d, dict):
        raise InputError(f"{src}: expected {{qid: {{docno: score}}}}, got {type(d).__name__}")
    q: list[str] = []
    docs: list[str] = []
    sc: list = []
    for qid, inner in d.items():
        if not isinstance(inner, dict):
            raise InputError(f"{src}: topic {qid!r}: expected a dict {{docno: score}}, got "
                             f"{type(inner).__name__}")
        for docno, score in inner.items():
            q.append(qid)
            docs.append(docno)
            sc.append(score)
    src = Source(src, lambda i: f"topic {q[i]!r}, docno {docs[i]!r}")
    qs = _ids(q, "qid", src)
    ds = _ids(docs, "docno", src)
    s = _scores(sc, "score", src)
    _duplicates(qs, ds, src, "listed")  # two keys equal after str()
    return _finish_run(_run_bytes(qs, ds, s, None, _tag(name)), name, src)


def _rels(values, col: str, name: str) -> list[int]:
    _booleans(values, col, name, "an integer")
    _no_missing(values, col, name)
    out = []
    for i, v in enumerate(values):
        try:
            f = float(v)
            if not math.isfinite(f) or f != int(f):
                raise ValueError
            out.append(int(f))
        except (TypeError, ValueError):
            raise InputError(f"{_loc(name, i)}: {col} {v!r} is not an integer") from None
    return out


def _qrels_bytes(q: list[str], d: list[str], r: list[int], it=None) -> bytes:
    it = it if it is not None else ["0"] * len(q)
    lines = [f"{a} {i} {b} {x}" for a, i, b, x in zip(q, it, d, r)]
    return ("\n".join(lines) + ("\n" if lines else "")).encode("utf-8")


def _finish_qrels(data: bytes, src: str) -> Qrels:
    qr = _rows(read_qrels, data, src)
    qr.name = str(src)
    return qr


def qrels_from_frame(df, name: str = "qrels") -> Qrels:
    """A :class:`~tiebreak.io.Qrels` from a DataFrame with ``query_id, doc_id, relevance``
    (ir_measures) or ``qid, docno, label`` (PyTerrier) columns; an ``iteration`` column is
    accepted and ignored like trec_eval ignores it.

    Raises
    ------
    InputError
        Missing columns, bad ids, a relevance that is not an integer, a (topic, docno) judged
        twice; the message names the row (0-based) and column.
    """
    src = f"<DataFrame {name}>"
    qc, dc, rc = _columns(df, QRELS_COLUMNS, "qrels", src)
    q = _ids(df[qc].tolist(), qc, src)
    d = _ids(df[dc].tolist(), dc, src)
    r = _rels(df[rc].tolist(), rc, src)
    _duplicates(q, d, src, "judged")
    return _finish_qrels(_qrels_bytes(q, d, r), src)


def qrels_from_dict(d: dict, name: str = "qrels", source: str | None = None) -> Qrels:
    """A :class:`~tiebreak.io.Qrels` from ``{qid: {docno: relevance}}``.

    Raises
    ------
    InputError
        Not a dict of dicts, bad ids, relevance values that are not integers (booleans
        included); the message names ``source`` (default ``<dict NAME>``), topic and docno.
    """
    src = source if source is not None else f"<dict {name}>"
    if not isinstance(d, dict):
        raise InputError(f"{src}: expected {{qid: {{docno: relevance}}}}, got "
                         f"{type(d).__name__}")
    q: list = []
    docs: list = []
    rel: list = []
    for qid, inner in d.items():
        if not isinstance(inner, dict):
            raise InputError(f"{src}: topic {qid!r}: expected a dict {{docno: relevance}}, "
                             f"got {type(inner).__name__}")
        for docno, v in inner.items():
            q.append(qid)
            docs.append(docno)
            rel.append(v)
    src = Source(src, lambda i: f"topic {q[i]!r}, docno {docs[i]!r}")
    qs = _ids(q, "qid", src)
    ds = _ids(docs, "docno", src)
    r = _rels(rel, "relevance", src)
    _duplicates(qs, ds, src, "judged")
    return _finish_qrels(_qrels_bytes(qs, ds, r), src)


def _is_frame(x) -> bool:
    return type(x).__name__ == "DataFrame" and hasattr(x, "columns")
