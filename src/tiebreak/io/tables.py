"""Runs and qrels in ranx's JSON (``{qid: {docno: value}}``) and Parquet (``q_id, doc_id,
score|rel`` columns; ir_measures' and PyTerrier's column names are accepted too) formats.

Both go through the validated in-memory readers (:mod:`tiebreak.io.frames`): the rows become
TREC text read by :func:`tiebreak.io.read_run` / :func:`tiebreak.io.read_qrels`, so the same
rules and error messages apply. Parquet needs pyarrow. Writers: :mod:`tiebreak.io.writers`.
"""

from __future__ import annotations

import os

from .source import InputError, byte_place

__all__ = ["is_table_path", "read_run_table", "read_qrels_table"]

_SUFFIXES = (".json", ".parquet", ".pq")


def is_table_path(path) -> bool:
    """True for a path ending in ``.json``, ``.parquet`` or ``.pq``."""
    return isinstance(path, (str, os.PathLike)) and str(path).lower().endswith(_SUFFIXES)


#: largest JSON input read (it is parsed whole, in memory): larger runs belong in TREC text or
#: Parquet, which are read piece by piece / column by column
MAX_JSON_BYTES = 1 << 30

_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe\x00\x00", "utf-32-le"),
         (b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe", "utf-16-le"),
         (b"\xfe\xff", "utf-16-be"))


class _Obj(list):
    """A JSON object as its (key, value) pairs in file order (duplicate keys kept, to be
    refused with their names)."""


def _json_text(p: str, data: bytes) -> str:
    """The text of a JSON file: UTF-8, or UTF-8/16/32 announced by a byte-order mark."""
    for bom, enc in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(enc)
            except UnicodeDecodeError as e:
                raise InputError(f"{p}: invalid {enc.upper()} after its byte-order mark "
                                 f"(byte {e.start + len(bom)})") from None
    if b"\x00" in data[:4]:
        raise InputError(f"{p}: UTF-16 or UTF-32 text without a byte-order mark; save it as "
                         "UTF-8 (JSON's encoding)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, col = byte_place(data, e.start)
        raise InputError(f"{p}:{line}: invalid UTF-8 (byte 0x{data[e.start]:02x} at column "
                         f"{col}); JSON text must be UTF-8") from None


def _load_json(p: str, what: str) -> dict:
    import json

    try:
        size = os.stat(p).st_size
        if size > MAX_JSON_BYTES:
            raise InputError(f"{p}: {size} bytes of JSON; JSON inputs are read whole and "
                             f"limited to {MAX_JSON_BYTES >> 20} MiB: write the run as TREC "
                             "text or Parquet")
        with open(p, "rb") as f:
            data = f.read()
    except OSError as e:
        raise InputError(f"{p}: {e.strerror}") from None
    text = _json_text(p, data)

    def bad_constant(c):
        raise ValueError(f"{c} is not a number JSON allows")

    try:
        d = json.loads(text, object_pairs_hook=_Obj, parse_constant=bad_constant)
    except json.JSONDecodeError as e:
        raise InputError(f"{p}:{e.lineno}: not JSON: {e.msg} (column {e.colno})") from None
    except ValueError as e:
        raise InputError(f"{p}: not JSON: {e}") from None
    except RecursionError:
        kind = "run" if what == "score" else "qrels"
        raise InputError(f"{p}: JSON nested too deeply to read (a {kind} is "
                         f"{{qid: {{docno: {what}}}}}, two levels)") from None
    if not isinstance(d, _Obj):
        raise InputError(f"{p}: expected a JSON object {{qid: {{docno: {what}}}}}, got "
                         f"{'an array' if isinstance(d, list) else type(d).__name__}")
    out: dict = {}
    for qid, inner in d:
        if qid in out:
            raise InputError(f"{p}: topic {qid!r} appears twice (two objects for one qid)")
        if not isinstance(inner, _Obj):
            kind = "an array" if isinstance(inner, list) else \
                "null" if inner is None else json.dumps(inner)[:40]
            raise InputError(f"{p}: topic {qid!r}: expected an object {{docno: {what}}}, "
                             f"got {kind}")
        got: dict = {}
        for docno, v in inner:
            if docno in got:
                raise InputError(f"{p}: topic {qid!r}: docno {docno!r} appears twice (a TREC "
                                 "file is refused for the same)")
            if isinstance(v, list):
                raise InputError(f"{p}: topic {qid!r}, docno {docno!r}: {what} is "
                                 f"{'an object' if isinstance(v, _Obj) else 'an array'}, "
                                 "not a number")
            if isinstance(v, str) and what == "score":
                raise InputError(f"{p}: topic {qid!r}, docno {docno!r}: {what} {v!r} is a "
                                 "string, not a number")
            got[docno] = v
        out[qid] = got
    return out


def _load(path, value_cols: tuple[str, ...], what: str):
    """``(dict, source)``: the ``{qid: {docno: value}}`` of a JSON or Parquet file and the
    name (with row locations) the in-memory readers report errors under."""
    from .frames import Source

    p = str(path)
    if p.lower().endswith(".json"):
        return _load_json(p, what), p
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(f"{p}: reading Parquet needs pyarrow: pip install pyarrow") from None
    try:
        f = pq.ParquetFile(p)
        t = f.read()
    except OSError as e:
        if getattr(e, "strerror", None):
            raise InputError(f"{p}: {e.strerror}") from None
        raise InputError(f"{p}: not a Parquet file: {e}") from None
    except (ValueError, TypeError) as e:
        raise InputError(f"{p}: not a Parquet file: {e}") from None
    names = t.column_names
    qc = next((c for c in ("q_id", "query_id", "qid") if c in names), None)
    dc = next((c for c in ("doc_id", "docno") if c in names), None)
    vc = next((c for c in value_cols if c in names), None)
    if qc is None or dc is None or vc is None:
        raise InputError(f"{p}: Parquet columns {names}: expected q_id, doc_id and "
                         f"{' or '.join(value_cols)}")
    import numpy as np

    sizes = [f.metadata.row_group(g).num_rows for g in range(f.metadata.num_row_groups)]
    starts = np.cumsum([0] + sizes)

    def where(i):
        g = int(np.searchsorted(starts, i, side="right")) - 1
        return f"row group {g}, row {i - starts[g]} (row {i} of the file)"

    src = Source(p, where)
    import pyarrow as pa

    vt = t.schema.field(vc).type
    if pa.types.is_boolean(vt):
        raise InputError(f"{src}: column {vc} holds booleans, not numbers")
    q = t.column(qc).to_pylist()
    d = t.column(dc).to_pylist()
    v = t.column(vc).to_pylist()
    return (q, d, v, (qc, dc, vc)), src


def read_run_table(path, name: str | None = None):
    """A :class:`~tiebreak.io.Run` from a ``.json`` or ``.parquet`` file; its name is ``name``
    or the file name without the suffix. Raises :class:`InputError` (naming the file)."""
    from .frames import run_from_dict

    base = os.path.basename(str(path)).rsplit(".", 1)[0] or "run"
    d, src = _load(path, ("score",), "score")
    if isinstance(d, tuple):
        run = _parquet_run(d, name or base, src)
    else:
        run = run_from_dict(d, name or base, source=src)
    run.source = str(path)
    return run


def read_qrels_table(path):
    """A :class:`~tiebreak.io.Qrels` from a ``.json`` or ``.parquet`` file."""
    from .frames import qrels_from_dict

    d, src = _load(path, ("rel", "relevance", "label"), "relevance")
    if isinstance(d, tuple):
        q = _parquet_qrels(d, src)
    else:
        q = qrels_from_dict(d, source=src)
    q.name = str(path)
    return q


def _by_topic(qs: list[str], src):
    """The rows grouped by topic (topics in order of first appearance, rows in file order
    inside a topic, as the dict form groups them) and the source naming the file's rows."""
    from .frames import Source

    first: dict[str, int] = {}
    for x in qs:
        first.setdefault(x, len(first))
    perm = sorted(range(len(qs)), key=lambda i: first[qs[i]])
    return perm, Source(str(src), lambda i: src.where(perm[i]))


def _parquet_run(cols, name, src):
    from .frames import _duplicates, _finish_run, _ids, _run_bytes, _scores, _tag

    q, d, v, (qc, dc, vc) = cols
    qs, ds = _ids(q, qc, src), _ids(d, dc, src)
    s = _scores(v, vc, src)
    _duplicates(qs, ds, src, "listed")
    perm, src2 = _by_topic(qs, src)
    return _finish_run(_run_bytes([qs[i] for i in perm], [ds[i] for i in perm], s[perm], None,
                                  _tag(name)), name, src2)


def _parquet_qrels(cols, src):
    from .frames import _duplicates, _finish_qrels, _ids, _qrels_bytes, _rels

    q, d, v, (qc, dc, vc) = cols
    qs, ds = _ids(q, qc, src), _ids(d, dc, src)
    r = _rels(v, vc, src)
    _duplicates(qs, ds, src, "judged")
    perm, src2 = _by_topic(qs, src)
    return _finish_qrels(_qrels_bytes([qs[i] for i in perm], [ds[i] for i in perm],
                                      [r[i] for i in perm]), src2)
