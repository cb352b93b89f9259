"""Runs and qrels in ranx's JSON (``{qid: {docno: value}}``) and Parquet (``q_id, doc_id,
score|rel`` columns; ir_measures' and PyTerrier's column names are accepted too) formats.

Both go through the validated in-memory readers (:mod:`tiebreak.io.frames`): the rows become
TREC text read by :func:`tiebreak.io.read_run` / :func:`tiebreak.io.read_qrels`, so the same
rules and error messages apply. Parquet needs pyarrow. Writers: :mod:`tiebreak.io.writers`.
"""

from __future__ import annotations

import os

from .source import InputError

__all__ = ["is_table_path", "read_run_table", "read_qrels_table"]

_SUFFIXES = (".json", ".parquet", ".pq")


def is_table_path(path) -> bool:
    """True for a path ending in ``.json``, ``.parquet`` or ``.pq``."""
    return isinstance(path, (str, os.PathLike)) and str(path).lower().endswith(_SUFFIXES)


def _load(path, value_cols: tuple[str, ...], what: str) -> dict:
    p = str(path)
    if p.lower().endswith(".json"):
        import json

        try:
            with open(p, encoding="utf-8") as f:
                d = json.load(f)
        except json.JSONDecodeError as e:
            raise InputError(f"{p}:{e.lineno}: not JSON: {e.msg}") from None
        except OSError as e:
            raise InputError(f"{p}: {e.strerror}") from None
        if not isinstance(d, dict):
            raise InputError(f"{p}: expected a JSON object {{qid: {{docno: {what}}}}}")
        return d
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(f"{p}: reading Parquet needs pyarrow: pip install pyarrow") from None
    try:
        t = pq.read_table(p)
    except (OSError, ValueError) as e:
        raise InputError(f"{p}: not a Parquet file: {e}") from None
    names = t.column_names
    qc = next((c for c in ("q_id", "query_id", "qid") if c in names), None)
    dc = next((c for c in ("doc_id", "docno") if c in names), None)
    vc = next((c for c in value_cols if c in names), None)
    if qc is None or dc is None or vc is None:
        raise InputError(f"{p}: Parquet columns {names}: expected q_id, doc_id and "
                         f"{' or '.join(value_cols)}")
    out: dict = {}
    for q, d, v in zip(t.column(qc).to_pylist(), t.column(dc).to_pylist(),
                       t.column(vc).to_pylist()):
        inner = out.setdefault(q, {})
        if d in inner:
            raise InputError(f"{p}: topic {q!r}: docno {d!r} appears twice")
        inner[d] = v
    return out


def read_run_table(path, name: str | None = None):
    """A :class:`~tiebreak.io.Run` from a ``.json`` or ``.parquet`` file; its name is ``name``
    or the file name without the suffix. Raises :class:`InputError` (naming the file)."""
    from .frames import run_from_dict

    base = os.path.basename(str(path)).rsplit(".", 1)[0] or "run"
    run = run_from_dict(_load(path, ("score",), "score"), name or base)
    run.source = str(path)
    return run


def read_qrels_table(path):
    """A :class:`~tiebreak.io.Qrels` from a ``.json`` or ``.parquet`` file."""
    from .frames import qrels_from_dict

    q = qrels_from_dict(_load(path, ("rel", "relevance", "label"), "relevance"))
    q.name = str(path)
    return q
