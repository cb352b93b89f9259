"""Readers for documents and topics.

Documents (:func:`iter_documents`) yield ``(docno, text)``; topics (:func:`read_topics`) return
``[(qid, text), ...]``. The format of a file is detected from its content (gzip is undone first):

* **TREC SGML** -- ``<DOC> <DOCNO>id</DOCNO> ... </DOC>``. Everything inside ``<DOC>`` except the
  ``<DOCNO>`` and ``<DOCHDR>`` elements is text; tags are dropped.
* **SMART** -- records starting ``.I id``, fields ``.T .A .W ...`` (Cranfield, CACM, CISI, MED,
  ADI). Documents index the fields in :data:`SMART_DOC_FIELDS` (title, authors, abstract,
  keywords) unless ``fields`` says otherwise (``"all"`` = every field, including ``.B`` dates,
  ``.N`` entry lines and ``.X`` citation triples). Queries use :data:`SMART_QUERY_FIELDS`.
* **tar archive** (``.tar``, ``.tar.gz``, ``.tgz``) -- one document per file, docno = file name
  without extension, markup tags dropped (Anserini's HTML CACM).
* **JSONL** -- one object per line with ``docno`` (or ``doc_id``/``id``) and ``text`` (or
  ``contents``/``body``), plus ``title`` if present.
* topics only: TREC topics (``<top><num>..<title>..``; ``field`` picks title/desc/narr), a TREC
  ``<DOC>`` file of queries (as Anserini ships for CACM), or TSV ``qid<TAB>text``.

Anything that is not an existing path is taken as an ``ir_datasets`` id (``cranfield``,
``vaswani``; an ``irds:`` prefix forces this). ``ir_datasets`` is imported only then.
"""

from __future__ import annotations

import gzip
import html
import json
import os
import re
from collections.abc import Iterator

__all__ = ["iter_documents", "read_topics", "detect_format", "count_documents",
           "SMART_DOC_FIELDS", "SMART_QUERY_FIELDS"]

SMART_DOC_FIELDS = ("T", "A", "W", "K")
SMART_QUERY_FIELDS = ("T", "A", "W")

_DOC_RE = re.compile(r"<DOC>(.*?)</DOC>", re.S | re.I)
_DOCNO_RE = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.S | re.I)
_DOCHDR_RE = re.compile(r"<DOCHDR>.*?</DOCHDR>", re.S | re.I)
_TAG_RE = re.compile(r"<[^>]*>")
_SMART_FIELD = re.compile(r"^\.([A-Z])(?:\s+(.*))?$")


def _read_text(path: str) -> str:
    with open(path, "rb") as fh:
        data = fh.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8", errors="replace")


def detect_format(text: str) -> str:
    """``trec``, ``trec-topics``, ``smart``, ``jsonl`` or ``tsv`` from the first non-blank line."""
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        up = s.upper()
        if up.startswith("<DOC>"):
            return "trec"
        if up.startswith("<TOP>"):
            return "trec-topics"
        if _SMART_FIELD.match(s) and s.startswith(".I"):
            return "smart"
        if s.startswith("{"):
            return "jsonl"
        if "\t" in line:
            return "tsv"
        break
    raise ValueError("cannot tell the format (expected TREC <DOC>/<top>, SMART .I, JSONL or TSV)")


def _is_irds(source: str) -> bool:
    return source.startswith("irds:") or not os.path.exists(source)


def _irds(source: str):
    import ir_datasets

    name = source[5:] if source.startswith("irds:") else source
    try:
        return ir_datasets.load(name)
    except KeyError:
        raise ValueError(f"{source!r} is neither a file nor an ir_datasets id") from None


def _irds_text(obj) -> str:
    if hasattr(obj, "default_text"):
        return obj.default_text()
    return " ".join(v for k, v in obj._asdict().items()
                    if isinstance(v, str) and k not in ("doc_id", "query_id"))


# ---------------------------------------------------------------- documents
def _trec_docs(text: str) -> Iterator[tuple[str, str]]:
    for m in _DOC_RE.finditer(text):
        body = m.group(1)
        dm = _DOCNO_RE.search(body)
        if dm is None:
            raise ValueError(f"<DOC> without <DOCNO> at character {m.start()}")
        rest = body[: dm.start()] + " " + body[dm.end():]
        rest = _TAG_RE.sub(" ", _DOCHDR_RE.sub(" ", rest))
        yield dm.group(1), html.unescape(rest)


def _smart_records(text: str) -> Iterator[tuple[str, dict[str, list[str]]]]:
    """(id, {field letter: lines}) per ``.I`` record."""
    rid, fields, cur = None, {}, None
    for raw in text.splitlines():
        line = raw.rstrip("\r\n")
        m = _SMART_FIELD.match(line.rstrip())
        if m:
            letter, rest = m.group(1), m.group(2)
            if letter == "I":
                if rid is not None:
                    yield rid, fields
                rid, fields, cur = (rest or "").strip(), {}, None
                continue
            cur = letter
            fields.setdefault(cur, [])
            if rest:
                fields[cur].append(rest)
            continue
        if cur is not None:
            fields[cur].append(line)
    if rid is not None:
        yield rid, fields


def _smart_text(fields: dict[str, list[str]], wanted) -> str:
    # fields in file order (dicts keep insertion order)
    keys = list(fields) if wanted == "all" else [f for f in fields if f in wanted]
    return "\n".join("\n".join(fields[k]) for k in keys)


def _jsonl_docs(text: str) -> Iterator[tuple[str, str]]:
    for lno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            o = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"line {lno}: bad JSON: {e}") from None
        docno = next((o[k] for k in ("docno", "doc_id", "id", "_id") if k in o), None)
        if docno is None:
            raise ValueError(f"line {lno}: no docno/doc_id/id field")
        body = next((o[k] for k in ("text", "contents", "body") if k in o), "")
        title = o.get("title") or ""
        yield str(docno), (title + "\n" + body) if title else body


def _tar_docs(path: str) -> Iterator[tuple[str, str]]:
    """One document per regular file of a tar archive, in name order; docno = file name without
    its extension; markup tags are dropped (an HTML collection such as Anserini's CACM)."""
    import tarfile

    with tarfile.open(path) as tf:
        members = sorted((m for m in tf.getmembers() if m.isfile()), key=lambda m: m.name)
        for m in members:
            raw = tf.extractfile(m).read().decode("utf-8", errors="replace")
            docno = os.path.basename(m.name).split(".")[0]
            yield docno, html.unescape(_TAG_RE.sub(" ", raw))


def iter_documents(source: str, fields=None) -> Iterator[tuple[str, str]]:
    """Yield ``(docno, text)`` from a file (TREC, SMART, JSONL; plain or gz) or ir_datasets id.

    ``fields``: SMART field letters to index (default :data:`SMART_DOC_FIELDS`) or ``"all"``.
    """
    source = os.fspath(source)
    if _is_irds(source):
        ds = _irds(source)
        if not ds.has_docs():
            raise ValueError(f"ir_datasets {source!r} has no documents")
        for d in ds.docs_iter():
            yield d.doc_id, _irds_text(d)
        return
    if source.endswith((".tar", ".tar.gz", ".tgz")):
        yield from _tar_docs(source)
        return
    text = _read_text(source)
    fmt = detect_format(text)
    if fmt == "trec":
        yield from _trec_docs(text)
    elif fmt == "smart":
        wanted = fields or SMART_DOC_FIELDS
        for rid, f in _smart_records(text):
            yield rid, _smart_text(f, wanted)
    elif fmt == "jsonl":
        yield from _jsonl_docs(text)
    else:
        raise ValueError(f"{source}: {fmt} is not a document format")


def count_documents(source: str) -> int | None:
    """Number of documents when cheaply known (ir_datasets), else None (for progress bars)."""
    source = os.fspath(source)
    if _is_irds(source):
        try:
            return _irds(source).docs_count()
        except Exception:  # noqa: BLE001 - only a progress-bar hint
            return None
    return None


# ---------------------------------------------------------------- topics
def _trec_topics(text: str, field: str) -> list[tuple[str, str]]:
    out = []
    wanted = [f.strip().lower() for f in field.split(",")]
    for m in re.finditer(r"<top>(.*?)</top>", text, re.S | re.I):
        body = m.group(1)
        nm = re.search(r"<num>\s*(?:Number:)?\s*([^\s<]+)", body, re.I)
        if nm is None:
            raise ValueError(f"<top> without <num> at character {m.start()}")
        parts = []
        for f in wanted:
            fm = re.search(rf"<{f}>\s*(?:(?:Description|Narrative|Topic):)?(.*?)(?=<|\Z)",
                           body, re.S | re.I)
            if fm:
                parts.append(fm.group(1).strip())
        out.append((nm.group(1), " ".join(" ".join(parts).split())))
    return out


def read_topics(source: str, field: str = "title", fields=None,
                numbering: str = "id") -> list[tuple[str, str]]:
    """Topics as ``[(qid, text)]``, in file order.

    Parameters
    ----------
    source : path (TREC topics, TREC <DOC> queries, SMART queries, TSV) or ir_datasets id
    field : for TREC ``<top>`` files: ``title``, ``desc``, ``narr`` or a comma list
    fields : SMART query fields (default :data:`SMART_QUERY_FIELDS`) or ``"all"``
    numbering : ``id`` keeps the ids in the file; ``sequential`` numbers topics 1, 2, ... in file
        order (Cranfield's ``cran.qry``, whose ``.I`` numbers are not the qrels' topic ids).
    """
    source = os.fspath(source)
    if _is_irds(source):
        ds = _irds(source)
        if not ds.has_queries():
            raise ValueError(f"ir_datasets {source!r} has no queries")
        topics = [(q.query_id, _irds_text(q)) for q in ds.queries_iter()]
    else:
        text = _read_text(source)
        fmt = detect_format(text)
        if fmt == "trec-topics":
            topics = _trec_topics(text, field)
        elif fmt == "trec":
            topics = [(d, " ".join(t.split())) for d, t in _trec_docs(text)]
        elif fmt == "smart":
            wanted = fields or SMART_QUERY_FIELDS
            topics = [(rid, " ".join(_smart_text(f, wanted).split()))
                      for rid, f in _smart_records(text)]
            # a trailing empty record (CACM's query.text ends with ".I 0") is not a topic
            topics = [t for t in topics if t[1]]
        elif fmt == "tsv":
            topics = []
            for line in text.splitlines():
                if line.strip():
                    qid, _, q = line.partition("\t")
                    topics.append((qid.strip(), q.strip()))
        else:
            topics = [(d, " ".join(t.split())) for d, t in _jsonl_docs(text)]
    if numbering == "sequential":
        topics = [(str(i), t) for i, (_, t) in enumerate(topics, 1)]
    elif numbering != "id":
        raise ValueError(f"numbering: expected id or sequential, got {numbering!r}")
    return topics
