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
* **LISA** (Sheffield) -- records ``Document N`` + title + abstract, each ended by a line of
  asterisks; a ``.tar.gz`` of the ``LISA*.nnn`` part files is read in name order. The
  distributed files carry a transmission fault (see :func:`_lisa_docs`), handled explicitly.
* **TIME** (Cornell/Glasgow) -- ``*TEXT nnn date PAGE ppp`` starts a document (docno ``nnn``),
  ``*STOP`` ends the file.
* **NPL** (Glasgow) -- an id line, text lines, a line holding only ``/``.
* **JSONL** -- one object per line with ``docno`` (or ``doc_id``/``id``) and ``text`` (or
  ``contents``/``body``), plus ``title`` if present.
* topics only: LISA queries (an id line, text ended by ``#``), TIME queries (``*FIND n``), NPL
  queries (as NPL documents), TREC topics (``<top><num>..<title>..``; ``field`` picks
  title/desc/narr), a TREC ``<DOC>`` file of queries (as Anserini ships for CACM), or TSV
  ``qid<TAB>text``.

Anything that is not an existing path is taken as an ``ir_datasets`` id (``cranfield``,
``vaswani``; an ``irds:`` prefix forces this). ``ir_datasets`` is imported only then.

Size: one module because every collection format (TREC SGML, classic collections, ir_datasets,
JSONL) yields the same document and topic records; each reader is a small function.
"""

from __future__ import annotations

import html
import json
import os
import re
import warnings
import zlib
from collections.abc import Iterator

__all__ = ["iter_documents", "read_topics", "detect_format", "count_documents",
           "check_docno", "find_bad_docno", "SMART_DOC_FIELDS", "SMART_QUERY_FIELDS",
           "CollectionQuirkWarning"]

SMART_DOC_FIELDS = ("T", "A", "W", "K")
SMART_QUERY_FIELDS = ("T", "A", "W")

_DOC_OPEN = re.compile(r"<DOC>", re.I)
_DOC_CLOSE = re.compile(r"</DOC>", re.I)
_DOCNO_RE = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.S | re.I)
_DOCHDR_RE = re.compile(r"<DOCHDR>.*?</DOCHDR>", re.S | re.I)
_TAG_RE = re.compile(r"<[^>]*>")
_SMART_FIELD = re.compile(r"^\.([A-Z])(?:\s+(.*))?$")
# what str.split() splits on: a docno or topic id containing one of these breaks a run line
_SPACE = re.compile(r"\s")


def _id_problem(s: str) -> str | None:
    if not s:
        return "empty"
    m = _SPACE.search(s)
    if m:
        return f"contains whitespace ({m.group()!r})"
    return None


def check_docno(docno: str, where: str, what: str = "docno") -> str:
    """``docno`` if it can be written into a TREC run (non-empty, no whitespace), else
    ``ValueError("{where}: {what} ...")`` -- a run line is split on whitespace, so such an id
    would be misread by ``tiebreak eval`` and trec_eval."""
    if not isinstance(docno, str):
        raise ValueError(f"{where}: {what} must be a string, got {type(docno).__name__} "
                         f"{docno!r}")
    p = _id_problem(docno)
    if p:
        raise ValueError(f"{where}: {what} {docno!r} is {p}" if p == "empty" else
                         f"{where}: {what} {docno!r} {p}; a run line would split it")
    return docno


def find_bad_docno(docnos: list[str]) -> tuple[int, str] | None:
    """(position, problem) of the first docno that is empty or contains whitespace, or None.
    One regex pass over the joined ids (fast for millions of docnos)."""
    if not docnos:
        return None
    joined = "\x00".join(docnos)
    if "\x00\x00" not in f"\x00{joined}\x00" and not _SPACE.search(joined):
        return None
    for i, d in enumerate(docnos):
        p = _id_problem(d)
        if p:
            return i, f"docno {d!r} is {p}" if p == "empty" else f"docno {d!r} {p}"
    return None


def _line_counter(text: str):
    """Line number (1-based) of character offsets, for offsets given in increasing order."""
    state = [0, 1]

    def line(pos: int) -> int:
        state[1] += text.count("\n", state[0], pos)
        state[0] = pos
        return state[1]

    return line


def _read_text(path: str, what: str = "collection") -> str:
    """The text of a collection or topics file, through :mod:`tiebreak.io.source` like every
    reader: gzip recognised by content (a corrupt or truncated stream is an
    :class:`~tiebreak.io.InputError` naming the file), a UTF-8 byte-order mark removed (it would
    otherwise glue itself to the first id), line ends normalised.

    ``what="topics"`` is strict: a NUL byte, UTF-16 text or invalid UTF-8 is an error naming the
    line (a query is short; a silently replaced byte changes it). A collection keeps its bytes
    that are not UTF-8 as U+FFFD (real collections hold stray Latin-1 bytes).
    """
    from ..io.source import decode_utf8, open_bytes, text_lines

    data, name = open_bytes(path)
    if what == "topics":
        return decode_utf8(text_lines(data, name, {}), name, "topics")
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    return data.decode("utf-8", errors="replace")


_LISA_HEAD = re.compile(r"^Document\s+(\S+)\s*$")
_LISA_END = re.compile(r"^\*{10,}\s*$")
_TIME_TEXT = re.compile(r"^\*TEXT\b")
_TIME_FIND = re.compile(r"^\*FIND\s+(\S+)\s*$")
_INT_LINE = re.compile(r"^\s*\d+\s*$")


class CollectionQuirkWarning(UserWarning):
    """A known fault of a distributed test collection was handled (what and where is in the
    message); nothing is dropped without one."""


def _numbered_kind(text: str) -> str | None:
    """``npl`` or ``lisa-queries`` for files of records that start with a bare number line:
    NPL ends a record with a line holding only ``/``, LISA's queries end theirs with ``#``."""
    lines = text.splitlines()
    first = next((i for i, x in enumerate(lines) if x.strip()), None)
    if first is None or not _INT_LINE.match(lines[first]):
        return None
    for x in lines[first + 1:]:
        s = x.strip()
        if s == "/":
            return "npl"
        if s.endswith("#"):
            return "lisa-queries"
    return None


def detect_format(text: str) -> str:
    """``trec``, ``trec-topics``, ``smart``, ``lisa``, ``lisa-queries``, ``time``,
    ``time-queries``, ``npl``, ``jsonl`` or ``tsv`` from the first non-blank line(s)."""
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if _LISA_HEAD.match(s):
            return "lisa"
        if _TIME_TEXT.match(s):
            return "time"
        if _TIME_FIND.match(s):
            return "time-queries"
        if _INT_LINE.match(s):
            kind = _numbered_kind(text)
            if kind:
                return kind
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
    raise ValueError("cannot tell the format (expected TREC <DOC>/<top>, SMART .I, LISA, TIME, "
                     "NPL, JSONL or TSV)")


def _detect(text: str, source: str) -> str:
    try:
        return detect_format(text)
    except ValueError as e:
        raise ValueError(f"{source}: {e}") from None


def _is_irds(source: str) -> bool:
    return source.startswith("irds:") or not os.path.exists(source)


def _irds(source: str):
    import ir_datasets

    name = source[5:] if source.startswith("irds:") else source
    try:
        return ir_datasets.load(name)
    except KeyError:
        raise ValueError(f"{source!r} is neither a file nor an ir_datasets id") from None


def _damaged_archive(e: BaseException) -> bool:
    """An error of reading a damaged compressed file or archive (not of fetching one)."""
    import gzip
    import lzma
    import tarfile
    import zipfile

    kinds = (EOFError, zlib.error, gzip.BadGzipFile, tarfile.TarError, zipfile.BadZipFile,
             lzma.LZMAError)
    return isinstance(e, kinds) or type(e).__name__ == "IsalError"


def _irds_iter(source: str, it_fn, what: str):
    """Iterate an ir_datasets iterator; a failure to fetch the data (no local copy and no
    network, a broken download) becomes a ValueError that says what to do."""
    it = None
    try:
        it = iter(it_fn())
        yield from it
    except (ValueError, KeyboardInterrupt):
        raise
    except Exception as e:  # noqa: BLE001 - ir_datasets raises many kinds (RuntimeError, ...)
        home = os.environ.get("IR_DATASETS_HOME", "~/.ir_datasets")
        why = str(e) if len(str(e)) <= 160 else str(e)[:157] + "..."
        if _damaged_archive(e):
            raise ValueError(
                f"ir_datasets {source!r}: its local copy under IR_DATASETS_HOME={home} is "
                f"truncated or corrupt ({type(e).__name__}: {why}); delete that copy and let "
                "ir_datasets download it again, or put a good copy there") from None
        raise ValueError(
            f"ir_datasets {source!r}: cannot read its {what}: no usable local copy under "
            f"IR_DATASETS_HOME={home} and the download failed ({type(e).__name__}: {why}). "
            "Put a copy there (or point IR_DATASETS_HOME at one), allow the download, or pass "
            "the collection as a file") from None


def _irds_text(obj) -> str:
    if hasattr(obj, "default_text"):
        return obj.default_text()
    return " ".join(v for k, v in obj._asdict().items()
                    if isinstance(v, str) and k not in ("doc_id", "query_id"))


# ---------------------------------------------------------------- documents
def _trec_docs(text: str, source: str = "") -> Iterator[tuple[str, str]]:
    """``<DOC>`` elements in file order. An unclosed ``<DOC>`` (a truncated file) and text
    outside the elements are errors, not silently dropped."""
    where = f"{source}:" if source else "line "
    line = _line_counter(text)
    pos = 0
    while True:
        m = _DOC_OPEN.search(text, pos)
        stray = text[pos: m.start() if m else len(text)]
        if stray.strip():
            off = pos + len(stray) - len(stray.lstrip())
            raise ValueError(f"{where}{line(off)}: text outside <DOC>...</DOC>: "
                             f"{stray.strip()[:40]!r}")
        if m is None:
            return
        end = _DOC_CLOSE.search(text, m.end())
        nxt = _DOC_OPEN.search(text, m.end())
        if end is None:
            raise ValueError(f"{where}{line(m.start())}: <DOC> without </DOC> (truncated "
                             "file?)")
        if nxt is not None and nxt.start() < end.start():
            raise ValueError(f"{where}{line(m.start())}: <DOC> not closed before the next "
                             f"<DOC> (line {line(nxt.start())})")
        body = text[m.end(): end.start()]
        dm = _DOCNO_RE.search(body)
        lno = line(m.start())
        if dm is None:
            raise ValueError(f"{where}{lno}: <DOC> without <DOCNO>")
        check_docno(dm.group(1), f"{where}{lno}")
        rest = body[: dm.start()] + " " + body[dm.end():]
        rest = _TAG_RE.sub(" ", _DOCHDR_RE.sub(" ", rest))
        yield dm.group(1), html.unescape(rest)
        pos = end.end()


def _smart_records(text: str, source: str = "") -> Iterator[tuple[str, dict[str, list[str]]]]:
    """(id, {field letter: lines}) per ``.I`` record; a ``.I`` without an id is an error."""
    where = f"{source}:" if source else "line "
    rid, fields, cur = None, {}, None
    for lno, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r\n")
        m = _SMART_FIELD.match(line.rstrip())
        if m:
            letter, rest = m.group(1), m.group(2)
            if letter == "I":
                if rid is not None:
                    yield rid, fields
                rid, fields, cur = (rest or "").strip(), {}, None
                if not rid:
                    raise ValueError(f"{where}{lno}: .I record without an id")
                check_docno(rid, f"{where}{lno}", "record id")
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


def _lisa_docs(text: str, source: str = "",
               seen: dict[str, tuple[str, str]] | None = None) -> Iterator[tuple[str, str]]:
    """LISA records: ``Document N``, title line(s), a blank line, the abstract, then a line of
    asterisks. ``seen`` (docno -> (text, where)) carries repeats across the part files.

    The Sheffield distribution (Fox's Virginia Disc copy, the one every mirror has) carries a
    transmission fault in part ``LISA1.501``: document 1992's abstract runs into the tail of
    document 1997, documents 1993-1997 are missing, documents 1998-2001 are sent twice (the
    same text both times) and between the two copies stands the tail of document 1997 with no
    ``Document`` line. This reader handles each case explicitly and generally:

    * a docno sent again with the *same* text is read once; a :class:`CollectionQuirkWarning`
      names both places;
    * a docno sent again with *different* text is a ``ValueError`` (``file:line``);
    * a record without a ``Document N`` line cannot be named by any run or judgment: it is
      skipped with a :class:`CollectionQuirkWarning` naming its line and first words;
    * text after the last line of asterisks (a truncated file) is a ``ValueError``.

    So the 6004 records of LISA give 5999 documents (1-1992 and 1998-6004).
    """
    where = f"{source}:" if source else "line "
    seen = {} if seen is None else seen
    rec: list[str] = []
    start = 1
    lines = text.splitlines()
    for lno, line in enumerate(lines, 1):
        if not _LISA_END.match(line):
            if not rec:
                start = lno
            rec.append(line)
            continue
        body = [x.rstrip() for x in rec]
        rec = []
        while body and not body[0].strip():
            body.pop(0)
            start += 1
        if not body:
            raise ValueError(f"{where}{lno}: empty LISA record (two lines of asterisks)")
        m = _LISA_HEAD.match(body[0].strip())
        txt = "\n".join(body[1:] if m else body).strip()
        if m is None:
            words = " ".join(txt.split()[:8])
            warnings.warn(f"{where}{start}: LISA record without a 'Document N' line skipped "
                          f"(no docno, so no run or judgment can refer to it): {words!r}...",
                          CollectionQuirkWarning, stacklevel=2)
            continue
        docno = check_docno(m.group(1), f"{where}{start}")
        if docno in seen:
            first_txt, first_at = seen[docno]
            if " ".join(first_txt.split()) != " ".join(txt.split()):
                raise ValueError(f"{where}{start}: docno {docno!r} repeats {first_at} with "
                                 "different text")
            warnings.warn(f"{where}{start}: LISA document {docno} sent again with the same "
                          f"text as at {first_at}; read once", CollectionQuirkWarning,
                          stacklevel=2)
            continue
        seen[docno] = (txt, f"{where}{start}")
        yield docno, txt
    if any(x.strip() for x in rec):
        raise ValueError(f"{where}{start}: LISA record not ended by a line of asterisks "
                         "(truncated file?)")


def _time_records(text: str, source: str, head: re.Pattern,
                  what: str) -> Iterator[tuple[int, re.Match, str]]:
    """(line, header match, text) of each ``*TEXT``/``*FIND`` record; ``*STOP`` ends the file
    (optional); anything before the first header or after ``*STOP`` is an error."""
    where = f"{source}:" if source else "line "
    cur: tuple[int, re.Match] | None = None
    body: list[str] = []
    stopped = None
    for lno, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if stopped is not None:
            if s:
                raise ValueError(f"{where}{lno}: text after *STOP (line {stopped})")
            continue
        if s == "*STOP":
            stopped = lno
            continue
        m = head.match(s)
        if m:
            if cur is not None:
                yield cur[0], cur[1], "\n".join(body).strip()
            cur, body = (lno, m), []
            continue
        if cur is None:
            if s:
                raise ValueError(f"{where}{lno}: text before the first {what} line")
            continue
        body.append(line)
    if cur is not None:
        yield cur[0], cur[1], "\n".join(body).strip()


def _time_docs(text: str, source: str = "") -> Iterator[tuple[str, str]]:
    """TIME documents; the docno is the article's ``*TEXT`` number as written (``017`` ...),
    an id of the article itself. (``TIME.REL`` numbers documents by position in the original
    425-document file, which the distributed 423-document copies no longer match; see
    :mod:`tiebreak.index.testcollections`.) A repeated or missing number is a ValueError."""
    where = f"{source}:" if source else "line "
    seen: dict[str, int] = {}
    for lno, m, txt in _time_records(text, source, _TIME_TEXT, "*TEXT"):
        f = m.string.split()
        if len(f) < 2:
            raise ValueError(f"{where}{lno}: *TEXT line without a number")
        docno = check_docno(f[1], f"{where}{lno}")
        if docno in seen:
            raise ValueError(f"{where}{lno}: *TEXT {docno} repeats line {seen[docno]}")
        seen[docno] = lno
        yield docno, txt


def _numbered_records(text: str, source: str, end, what: str) -> Iterator[tuple[str, str]]:
    """Records ``id line / text lines / terminator`` (NPL: a line ``/``; LISA queries: a line
    ending with ``#``). ``end(line)`` returns the text left on a terminator line or None."""
    where = f"{source}:" if source else "line "
    rid: str | None = None
    body: list[str] = []
    at = 0
    for lno, line in enumerate(text.splitlines(), 1):
        if rid is None:
            if not line.strip():
                continue
            if not _INT_LINE.match(line):
                raise ValueError(f"{where}{lno}: expected a {what} id line (a number), got "
                                 f"{line.strip()[:40]!r}")
            rid, body, at = str(int(line)), [], lno
            continue
        rest = end(line)
        if rest is None:
            body.append(line)
            continue
        body.append(rest)
        yield check_docno(rid, f"{where}{at}", f"{what} id"), "\n".join(body).strip()
        rid = None
    if rid is not None:
        raise ValueError(f"{where}{at}: {what} {rid} is not terminated (truncated file?)")


def _npl_end(line: str) -> str | None:
    return "" if line.strip() == "/" else None


def _lisa_query_end(line: str) -> str | None:
    s = line.rstrip()
    return s[:-1] if s.endswith("#") else None


_JSONL_ID = ("docno", "doc_id", "id", "_id")
_JSONL_TEXT = ("text", "contents", "body")


def _jsonl_docs(text: str, source: str = "", what: str = "docno") -> Iterator[tuple[str, str]]:
    """One JSON object per line: id from the first of :data:`_JSONL_ID` present, text from
    ``title`` and the first of :data:`_JSONL_TEXT` present; all must be strings."""
    where = f"{source}:" if source else "line "
    for lno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        at = f"{where}{lno}"
        try:
            o = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as e:
            raise ValueError(f"{at}: bad JSON: {e}") from None
        if not isinstance(o, dict):
            raise ValueError(f"{at}: expected a JSON object, got {type(o).__name__}")
        key = next((k for k in _JSONL_ID if k in o), None)
        if key is None:
            raise ValueError(f"{at}: no {'/'.join(_JSONL_ID)} field")
        docno = check_docno(o[key], at, f"{what} ({key!r})")
        tkey = next((k for k in _JSONL_TEXT if k in o), None)
        if tkey is None and "title" not in o:
            raise ValueError(f"{at}: no {'/'.join(_JSONL_TEXT)} or title field")
        parts = []
        for k in ("title", tkey):
            if k is not None and k in o:
                v = o[k]
                if not isinstance(v, str):
                    raise ValueError(f"{at}: field {k!r} must be a string, got "
                                     f"{'null' if v is None else type(v).__name__}")
                parts.append(v)
        title = o.get("title") or ""
        body = o[tkey] if tkey else ""
        yield docno, (title + "\n" + body) if title else body


def _tar_docs(path: str) -> Iterator[tuple[str, str]]:
    """One document per regular file of a tar archive, in name order; docno = file name without
    its extension; markup tags are dropped (an HTML collection such as Anserini's CACM). An
    archive whose first member is a LISA part file is instead a collection split into parts:
    the members are read as LISA files in name order (see :func:`_lisa_docs`)."""
    import tarfile

    try:
        with tarfile.open(path) as tf:
            members = sorted((m for m in tf.getmembers() if m.isfile()), key=lambda m: m.name)
            seen: dict[str, tuple[str, str]] = {}
            parts = False
            for i, m in enumerate(members):
                raw = tf.extractfile(m).read().decode("utf-8", errors="replace")
                if i == 0:
                    try:
                        parts = detect_format(raw) == "lisa"
                    except ValueError:
                        parts = False
                if parts:   # a collection split into part files (LISA0.001 ... LISA5.850)
                    yield from _lisa_docs(raw, f"{path}[{m.name}]", seen)
                    continue
                docno = check_docno(os.path.basename(m.name).split(".")[0],
                                    f"{path}: member {m.name!r}")
                yield docno, html.unescape(_TAG_RE.sub(" ", raw))
    except (tarfile.TarError, EOFError, zlib.error) as e:
        raise ValueError(f"{path}: truncated or corrupt tar archive ({e})") from None
    except OSError as e:
        if isinstance(e, FileNotFoundError | PermissionError | IsADirectoryError):
            raise
        raise ValueError(f"{path}: truncated or corrupt tar archive ({e})") from None


def iter_documents(source: str, fields=None) -> Iterator[tuple[str, str]]:
    """Yield ``(docno, text)`` from a file (TREC, SMART, JSONL; plain or gz) or ir_datasets id.

    ``fields``: SMART field letters to index (default :data:`SMART_DOC_FIELDS`) or ``"all"``.
    """
    source = os.fspath(source)
    if _is_irds(source):
        ds = _irds(source)
        if not ds.has_docs():
            raise ValueError(f"ir_datasets {source!r} has no documents")
        for i, d in enumerate(_irds_iter(source, ds.docs_iter, "documents")):
            yield check_docno(d.doc_id, f"ir_datasets {source!r}, document {i + 1}"), \
                _irds_text(d)
        return
    if source.endswith((".tar", ".tar.gz", ".tgz")):
        yield from _tar_docs(source)
        return
    text = _read_text(source)
    fmt = _detect(text, source)
    if fmt == "trec":
        yield from _trec_docs(text, source)
    elif fmt == "lisa":
        yield from _lisa_docs(text, source)
    elif fmt == "time":
        yield from _time_docs(text, source)
    elif fmt == "npl":
        yield from _numbered_records(text, source, _npl_end, "document")
    elif fmt == "smart":
        wanted = fields or SMART_DOC_FIELDS
        for rid, f in _smart_records(text, source):
            yield rid, _smart_text(f, wanted)
    elif fmt == "jsonl":
        yield from _jsonl_docs(text, source)
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
def _trec_topics(text: str, field: str, source: str = "") -> list[tuple[str, str]]:
    where = f"{source}:" if source else "line "
    line = _line_counter(text)
    out = []
    wanted = [f.strip().lower() for f in field.split(",")]
    ms = list(re.finditer(r"<top>(.*?)</top>", text, re.S | re.I))
    opened = [m.start() for m in re.finditer(r"<top>", text, re.I)]
    if len(opened) != len(ms):
        first = next((o for o, m in zip(opened, ms + [None]) if m is None or o != m.start()),
                     opened[-1])
        raise ValueError(f"{where}{line(first)}: <top> without </top> before the next <top> "
                         "or the end of the file (truncated file?)")
    for m in ms:
        body = m.group(1)
        lno = line(m.start())
        nm = re.search(r"<num>[ \t]*(?:Number:)?[ \t]*([^<\n]*)", body, re.I)
        if nm is None:
            raise ValueError(f"{where}{lno}: <top> without <num>")
        qid = check_docno(nm.group(1).strip(), f"{where}{lno}", "topic id")
        parts = []
        for f in wanted:
            fm = re.search(rf"<{f}>\s*(?:(?:Description|Narrative|Topic):)?(.*?)(?=<|\Z)",
                           body, re.S | re.I)
            if fm:
                parts.append(fm.group(1).strip())
        out.append((qid, " ".join(" ".join(parts).split())))
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
    if numbering not in ("id", "sequential"):
        raise ValueError(f"numbering: expected id or sequential, got {numbering!r}")
    where = []      # where each topic came from, for error messages
    if _is_irds(source):
        ds = _irds(source)
        if not ds.has_queries():
            raise ValueError(f"ir_datasets {source!r} has no queries")
        topics = [(q.query_id, _irds_text(q))
                  for q in _irds_iter(source, ds.queries_iter, "queries")]
        where = [f"ir_datasets {source!r}, query {i}" for i in range(1, len(topics) + 1)]
    else:
        text = _read_text(source, "topics")
        fmt = _detect(text, source)
        if fmt == "trec-topics":
            topics = _trec_topics(text, field, source)
        elif fmt == "trec":
            topics = [(d, " ".join(t.split())) for d, t in _trec_docs(text, source)]
        elif fmt in ("npl", "lisa-queries"):
            end = _npl_end if fmt == "npl" else _lisa_query_end
            topics = [(q, " ".join(t.split()))
                      for q, t in _numbered_records(text, source, end, "query")]
        elif fmt == "time-queries":
            topics = [(check_docno(m.group(1), f"{source}:{lno}", "topic id"), " ".join(t.split()))
                      for lno, m, t in _time_records(text, source, _TIME_FIND, "*FIND")]
        elif fmt == "smart":
            wanted = fields or SMART_QUERY_FIELDS
            topics = [(rid, " ".join(_smart_text(f, wanted).split()))
                      for rid, f in _smart_records(text, source)]
            # a trailing empty record (CACM's query.text ends with ".I 0") is not a topic
            if topics and not topics[-1][1]:
                topics.pop()
        elif fmt == "tsv":
            topics = []
            for lno, line in enumerate(text.splitlines(), 1):
                if line.strip():
                    qid, _, q = line.partition("\t")
                    topics.append((qid.strip(), q.strip()))
                    where.append(f"{source}:{lno}")
        else:
            topics = [(d, " ".join(t.split())) for d, t in _jsonl_docs(text, source, "topic id")]
    if numbering == "sequential":
        return [(str(i), t) for i, (_, t) in enumerate(topics, 1)]
    seen: dict[str, int] = {}
    for i, (qid, _) in enumerate(topics):
        at = where[i] if where else f"{source}: topic {i + 1}"
        check_docno(qid, at, "topic id")
        if qid in seen:
            raise ValueError(f"{at}: topic id {qid!r} repeats topic {seen[qid] + 1}; a run "
                             "would list its documents twice")
        seen[qid] = i
    return topics
