"""TREC qrels: ``qid iter docno rel``.

``iter`` may be any token (TREC-COVID uses the judging round, e.g. ``0.5``); ``rel`` is a decimal
integer in the int64 range and may be negative (trec_eval reads -1 as "in the pool but not
judged"). Lines whose first field starts with ``#`` are comments; blank lines are skipped and
counted (trec_eval rejects them). A file without a single judgment is an error: evaluating against
it would print 0 for every measure.

Subtopic (diversity) qrels, as the TREC Web track's ``ndeval`` and ir_measures' diversity measures
read them, use the ``iter`` column as the subtopic id: ``qid subtopic docno rel``. Read them with
``read_qrels(source, subtopics=True)``: the reader then keeps the column
(:class:`SubtopicLines`), a document may be judged once per subtopic, and the ad hoc view (the
``topic``/``docid``/``value`` arrays every other measure reads) holds each document once with its
largest value over the subtopics.

Size: one module because the strict reader (the definition), the compiled reader and the piecewise
reader must agree line for line; they are kept side by side so a rule is changed in all three at
once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from .._native import ext
from ._arrays import _fits, latin1_array, sorted_codes, split_columns, text
from .runs import _sorted_distinct
from .source import (
    BOM_WARNING,
    INTEGER,
    InputError,
    LineCounts,
    count_lines,
    iter_blocks,
    natural_key,
    open_bytes,
    show,
    split_lines,
    text_lines,
)

__all__ = ["Qrels", "SubtopicLines", "read_qrels", "parse_rels"]

LAYOUT = "qid iter docno rel"
WARN_BLANK = "blank lines skipped"
WARN_ADHOC = ("ad hoc qrels read as subtopic qrels: the second column is 0 on every line, so "
              "each topic has one subtopic and a diversity measure (alpha-nDCG, ERR-IA ...) "
              "rewards no diversity; topics")
_I64 = (-(1 << 63), (1 << 63) - 1)


@dataclass
class SubtopicLines:
    """Every judgment line of subtopic qrels, with its ``iter`` (subtopic) column.

    Attributes
    ----------
    labels : list[tuple[str, str]]
        (topic id, subtopic label) of each subtopic index, grouped by topic (topics in the
        qrels' order, labels in natural order within a topic). Index ``s`` is unique across
        topics.
    topic : ndarray, int64, shape (l,)
        Index into ``Qrels.topics`` of each line.
    docid : ndarray, int64, shape (l,)
        Index into ``Qrels.docnos`` of each line.
    subtopic : ndarray, int64, shape (l,)
        Index into ``labels`` of each line.
    value : ndarray, int64, shape (l,)
        Relevance value as written.
    keys : ndarray, int64, shape (l,)
        ``topic << 32 | docid``; lines are sorted by (keys, subtopic), so the lines of the ad
        hoc judgment ``j`` of the :class:`Qrels` are ``searchsorted(keys, Qrels.keys[j])``
        (left to right).
    """

    labels: list[tuple[str, str]]
    topic: np.ndarray
    docid: np.ndarray
    subtopic: np.ndarray
    value: np.ndarray
    keys: np.ndarray

    def __len__(self) -> int:
        return len(self.value)


@dataclass
class Qrels:
    """Relevance judgments.

    Attributes
    ----------
    name : str
        Source file name.
    topics : list[str]
        Topic ids, in natural order (numeric ids numerically).
    topic : ndarray, int64, shape (m,)
        Index into ``topics`` of each judgment, sorted by (topic, docno id).
    docid : ndarray, int64, shape (m,)
        Index of the docno in ``docnos``.
    value : ndarray, int64, shape (m,)
        Relevance value as written; negative means "pooled but not judged" (treated as unjudged).
    keys : ndarray, int64, shape (m,)
        ``topic << 32 | docid``, sorted; used for look-ups.
    docnos : ndarray, str (``U``; ``object`` for pathologically long docnos), shape (d,)
        Distinct judged docnos (latin-1 text of the bytes) in byte order.
    warnings : dict[str, int]
        Counted input warnings.
    line_counts : LineCounts or None
        What became of every line of the file (None for qrels built in memory).
    subtopic_lines : SubtopicLines or None
        The judgment lines with their subtopic column, for qrels read with ``subtopics=True``
        (the diversity measures read them); None otherwise.
    """

    name: str
    topics: list[str]
    topic: np.ndarray
    docid: np.ndarray
    value: np.ndarray
    keys: np.ndarray
    docnos: np.ndarray
    warnings: dict[str, int] = field(default_factory=dict)
    line_counts: LineCounts | None = None
    subtopic_lines: SubtopicLines | None = None

    def __len__(self) -> int:
        return len(self.value)

    @property
    def topic_index(self) -> dict[str, int]:
        d = self.__dict__.get("_tindex")
        if d is None:
            d = {q: i for i, q in enumerate(self.topics)}
            self.__dict__["_tindex"] = d
        return d

    def num_rel(self, level: int = 1) -> np.ndarray:
        """Relevant documents (value >= level) per topic, int64 shape (n_topics,)."""
        return np.bincount(self.topic[self.value >= level], minlength=len(self.topics))

    def num_nonrel(self, level: int = 1) -> np.ndarray:
        """Judged non-relevant documents (0 <= value < level) per topic."""
        m = (self.value >= 0) & (self.value < level)
        return np.bincount(self.topic[m], minlength=len(self.topics))

    def max_grade(self) -> np.ndarray:
        """Largest relevance value per topic (0 when none is positive), float64 (n_topics,)."""
        out = np.zeros(len(self.topics))
        np.maximum.at(out, self.topic, np.maximum(self.value, 0).astype(float))
        return out

    def grades(self) -> np.ndarray:
        """Distinct judged relevance values (>= 0), sorted."""
        return np.unique(self.value[self.value >= 0])


def _rel_ok(tok: bytes) -> bool:
    return INTEGER.fullmatch(tok) is not None and _I64[0] <= int(tok) <= _I64[1]


def _short_integers(tokens: list[bytes], total: int) -> np.ndarray | None:
    """Tokens of at most 18 bytes that are all ``[+-]?[0-9]+`` -> int64 (n,), parsed as
    columns of digits (no Python int per token: relevance values are a digit or two); None
    when any token is longer or not such an integer (the caller's parser decides then)."""
    n = len(tokens)
    if not n or total > 18 * n:
        return None
    w = max(map(len, tokens))
    if w > 18:
        return None
    grid = np.array(tokens, dtype=f"S{w}").view(np.uint8).reshape(n, w)
    sign = (grid[:, 0] == 45) | (grid[:, 0] == 43)
    used = grid != 0  # zero padding after a token (no NUL in a token)
    used[:, 0] &= ~sign
    digit = grid - np.uint8(48)
    if ((digit > 9) & used).any() or not used.any(axis=1).all():
        return None
    v = np.zeros(n, np.int64)
    for j in range(w):
        v = np.where(used[:, j], v * 10 + digit[:, j], v)
    return np.where(grid[:, 0] == 45, -v, v)


def parse_rels(tokens: list[bytes], lno, name: str, label: str = "rel") -> np.ndarray:
    """Relevance tokens -> int64 (n,).

    Raises
    ------
    InputError
        ``file:line: rel 'x' is not an integer`` (also for Python-only forms such as ``1_0``), or
        ``... is out of range`` beyond int64.
    """
    joined = b"".join(tokens)
    small = _short_integers(tokens, len(joined))
    if small is not None:
        return small
    if b"_" not in joined:  # Python's int() reads '1_0'; C's atol does not
        try:
            return np.array(list(map(int, tokens)), dtype=np.int64)
        except (ValueError, OverflowError):
            pass
    for tok, i in zip(tokens, lno):
        if not _rel_ok(tok):
            if INTEGER.fullmatch(tok):
                raise InputError(f"{name}:{i}: {label} {show(tok[:40])!r} is out of range "
                                 "(relevance values are 64-bit integers)")
            raise InputError(f"{name}:{i}: {label} {show(tok[:40])!r} is not an integer")
    raise AssertionError("no bad token")  # pragma: no cover


def read_qrels(source, subtopics: bool = False, allow_empty: bool = False) -> Qrels:
    """Read TREC qrels (``qid iter docno rel``).

    Parameters
    ----------
    source : path, ``"-"`` or binary file object
        Plain or gzip-compressed (see :func:`tiebreak.io.open_bytes`).
    subtopics : bool
        Read the ``iter`` column as a subtopic id (diversity qrels ``qid subtopic docno rel``):
        keep every line in :attr:`Qrels.subtopic_lines`, accept a docno judged once per
        subtopic, and give the ad hoc view each document's largest value.
    allow_empty : bool
        A file without any judgment (empty, ``/dev/null``, blank or comment lines only) gives
        qrels with no topics instead of an error: ``tiebreak pool`` builds a fresh pool so.

    Returns
    -------
    Qrels

    Raises
    ------
    InputError
        ``file:line: ...``: wrong number of fields, a ``rel`` that is not a 64-bit integer, the
        same (qid, docno) judged twice (trec_eval stops on that too; with ``subtopics``, the
        same (qid, subtopic, docno)), UTF-16 text, a NUL byte; ``file: ...``: no judgment at
        all (empty, blank or comment-only file), corrupt gzip.
    """
    cols = None if subtopics else _read_pieces(source)
    if cols is None:
        cols = _read_whole(source, subtopics, allow_empty)
    name, warnings, nl, blank, comment, qids, qcode, udocs, docid, value, lno, iters = cols
    del cols
    names = [t.decode("utf-8", "surrogateescape") for t in qids]
    topics = sorted(names, key=natural_key)
    tindex = {t: j for j, t in enumerate(topics)}
    qid_of = [b""] * len(topics)  # each topic's qid as written, for messages
    for t, b in zip(names, qids):
        qid_of[tindex[t]] = b
    topic = _remap(np.array([tindex[t] for t in names], np.int64), qcode)  # in place
    del qids, names, qcode
    lines = None
    if subtopics:
        keys = (topic << 32) | docid
        if lno is None:
            lno = np.arange(1, len(value) + 1, dtype=np.int64)
        lines, keep = _subtopic_lines(name, topics, topic, docid, value, keys, lno, iters,
                                      qid_of, udocs)
        keys, value, lno = keys[keep], value[keep], lno[keep]
    else:  # topic << 32 | docid, in topic's memory
        keys = topic
        np.left_shift(keys, 32, out=keys)
        np.bitwise_or(keys, docid, out=keys)
    del topic, docid
    order = np.argsort(keys, kind="stable")
    value = value[order]
    keys.sort()  # = keys[order], without a second array
    dup = np.flatnonzero(keys[1:] == keys[:-1])
    if len(dup):
        at = order + 1 if lno is None else lno[order]  # line numbers in key order
        shown = []
        for j in dup[:5]:
            k = int(keys[j])
            shown.append(f"{show(qid_of[k >> 32])} {text(udocs[k & _LOW])[:80]} "
                         f"(lines {at[j]} and {at[j + 1]})")
        raise InputError(
            f"{name}:{at[dup[0] + 1]}: docno judged twice for the same topic; "
            f"{len(dup)} duplicate judgment(s): " + "; ".join(shown)
            + ("" if subtopics else " (subtopic qrels? tiebreak reads the second column as "
               "the subtopic when a diversity measure is asked for)")
        )
    del order, dup
    if blank:
        warnings[WARN_BLANK] = blank
    if lines is not None and lines.labels and all(lab == "0" for _, lab in lines.labels):
        warnings[WARN_ADHOC] = len(lines.labels)
    return Qrels(name, topics, keys >> 32, keys & _LOW, value, keys, udocs, warnings,
                 LineCounts(nl, comment, blank, len(value if lines is None else lines.value)),
                 lines)


_LOW = (1 << 32) - 1
#: elements remapped at a time by :func:`_remap`
_REMAP_BLOCK = 1 << 16


def _remap(table: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``codes[:] = table[codes]``, a block at a time (no second array of ``len(codes)``);
    returns ``codes``."""
    for a in range(0, len(codes), _REMAP_BLOCK):
        c = codes[a:a + _REMAP_BLOCK]
        c[:] = table[c]
    return codes


def _read_whole(source, subtopics: bool, allow_empty: bool):
    """The columns of a qrels source read whole: (name, warnings, lines, blank, comment, qids
    in order of first appearance, each judgment's qid code, distinct docnos in byte order,
    each judgment's docno code, values, line numbers (None: judgment ``j`` is line ``j + 1``),
    iter codes and tokens or None)."""
    raw, name = open_bytes(source)
    warnings: dict[str, int] = {}
    data = text_lines(raw, name, warnings)
    del raw
    nl = count_lines(data)
    fast = _read_qrels_fast(data, nl, subtopics) if len(data) >= _FAST_MIN_BYTES else None
    if fast is not None:
        del data
        qids, qcode, udocs, docid, value, iters = fast
        lno = None
        blank = comment = 0
    else:
        qids, qcode, udocs, docid, value, lno, blank, comment, iters = _read_strict(
            data, name, nl, subtopics, allow_empty)
    return name, warnings, nl, blank, comment, qids, qcode, udocs, docid, value, lno, iters


def _subtopic_lines(name, topics, topic, docid, value, keys, lno, iters, qid_of, udocs):
    """The :class:`SubtopicLines` of every judgment line, and which lines make the ad hoc view
    (per (topic, docno) the line with the largest value, the first such line on a tie)."""
    icode, itok = iters
    labels_raw = [t.decode("utf-8", "surrogateescape") for t in itok]
    pair = np.unique(np.c_[topic, icode], axis=0) if len(topic) else np.zeros((0, 2), np.int64)
    order = sorted(range(len(pair)), key=lambda j: (pair[j, 0],
                                                    natural_key(labels_raw[pair[j, 1]])))
    pair = pair[order]
    labels = [(topics[int(t)], labels_raw[int(i)]) for t, i in pair]
    # subtopic index of each line: position of (topic, icode) in ``pair``
    code = topic * (len(itok) + 1) + icode
    pcode = pair[:, 0] * (len(itok) + 1) + pair[:, 1]
    po = np.argsort(pcode)
    sub = po[np.searchsorted(pcode[po], code)]
    o = np.lexsort((sub, keys))
    k, s = keys[o], sub[o]
    dup = np.flatnonzero((k[1:] == k[:-1]) & (s[1:] == s[:-1]))
    if len(dup):
        a, b = lno[o[dup[0]]], lno[o[dup[0] + 1]]
        t, d = qid_of[topic[o[dup[0]]]], udocs[docid[o[dup[0]]]]
        raise InputError(f"{name}:{max(a, b)}: subtopic {labels[s[dup[0]]][1]} of topic "
                         f"{show(t)} judges docno {text(d)[:80]} twice (lines {min(a, b)} and "
                         f"{max(a, b)}); {len(dup)} duplicate judgment(s)")
    lines = SubtopicLines(labels, topic[o], docid[o], s, value[o], k)
    # ad hoc view: largest value per key (first line on a tie)
    ob = np.lexsort((lno, -value, keys))
    first = np.r_[True, keys[ob][1:] != keys[ob][:-1]] if len(ob) else np.zeros(0, bool)
    keep = np.sort(ob[first])
    return lines, keep


_FAST_MIN_BYTES = 1 << 17
#: a qrels file of at least this many bytes (on disk) is read a piece at a time
PIECE_MIN_BYTES = 4 << 20
#: decompressed bytes read at a time (at least: see :data:`MAX_PIECES`)
PIECE_BYTES = 1 << 20
#: a file is read in about this many pieces at most (pieces of its size on disk over this):
#: merging a piece's docnos into the sorted table costs time proportional to the table
MAX_PIECES = 32


class _Whole(Exception):
    """The file cannot be read piece by piece: read it whole (which names any problem)."""


def _read_pieces(source, block: int | None = None):
    """The columns :func:`_read_whole` gives, read from the file ``source`` a piece of
    ``block`` decompressed bytes (default: :data:`PIECE_BYTES`, or the file's size over
    :data:`MAX_PIECES` when that is more) at a time, so that the file's text is never whole in
    memory and no Python object is made per judgment or per docno: each piece is tokenised by
    :func:`_tokens4`, its distinct docnos merged into one sorted table (:func:`_comparable`),
    its codes kept as int32.

    None (read the file whole) for anything but a path of at least :data:`PIECE_MIN_BYTES`
    read by the compiled tokeniser, and whenever a piece is not plain four-field judgment
    lines (comment or blank lines, another field count, a ``rel`` the tokeniser declines, a CR
    or NUL byte, a UTF-16 mark, an unreadable or corrupt file, pathologically long docnos): the
    whole read then gives the same result or names the problem by file, line and field."""
    if not isinstance(source, (str, os.PathLike)) or (isinstance(source, str) and source == "-"):
        return None
    name = os.fspath(source)
    if not isinstance(name, str):
        return None
    if ext() is None:
        return None  # without the C extension the whole read decides
    try:
        size = os.path.getsize(name)
        if size < max(PIECE_MIN_BYTES, _FAST_MIN_BYTES):
            return None
        return _pieces(name, block or max(PIECE_BYTES, size // MAX_PIECES))
    except (OSError, _Whole):
        return None


def _lines_of(name: str, block: int):
    """The decompressed text of ``name`` cut after a line end, about ``block`` bytes a piece
    (the last piece may lack a final line end)."""
    carry = b""
    for piece in iter_blocks(name, block):
        buf = carry + piece if carry else piece
        del piece
        end = buf.rfind(b"\n") + 1
        if end == 0:
            carry = buf
            continue
        if end == len(buf):
            carry = b""
        else:
            carry = buf[end:]
            buf = buf[:end]
        yield buf
        del buf
    if carry:
        yield carry


def _pieces(name: str, block: int):
    warnings: dict[str, int] = {}
    qmap: dict[bytes, int] = {}
    words = np.zeros(0, np.uint64)  # distinct docnos so far, sorted (see _comparable)
    wcode = np.zeros(0, np.int64)  # each one's number, in order of first appearance
    parts = []
    nl = 0
    for j, piece in enumerate(_lines_of(name, block)):
        if j == 0:
            if piece[:2] in (b"\xff\xfe", b"\xfe\xff"):
                raise _Whole
            if piece[:3] == b"\xef\xbb\xbf":
                piece = piece[3:]
                warnings[BOM_WARNING] = 1
        if b"\r" in piece or b"\x00" in piece:
            raise _Whole
        n = count_lines(piece)
        got = _tokens4(piece, n)
        if got is None:
            raise _Whole
        value, qcode, qs, did, ds, _, _, a = got
        qtab = np.fromiter((qmap.setdefault(piece[s:e], len(qmap)) for s, e in qs.tolist()),
                           np.int64, len(qs))
        lens = ds[:, 1] - ds[:, 0]
        w8 = max(-(-int(lens.max()) // 8) * 8, 8)
        grid = _gather(a, piece, ds[:, 0], ds[:, 1], w8)
        del piece, a, got
        words, rows = _comparable(words, grid)
        # each distinct docno of the piece: its number; new ones numbered and merged in
        pos = np.searchsorted(words, rows)
        found = words[np.minimum(pos, len(words) - 1)] == rows if len(words) else \
            np.zeros(len(rows), bool)
        code = np.empty(len(rows), np.int64)
        code[found] = wcode[pos[found]]
        new = np.flatnonzero(~found)
        code[new] = np.arange(len(wcode), len(wcode) + len(new))
        o = new[np.argsort(rows[new], kind="stable")]
        words = np.insert(words, pos[o], rows[o])
        wcode = np.insert(wcode, pos[o], code[o])
        if len(qmap) > np.iinfo(np.int32).max or len(wcode) > np.iinfo(np.int32).max:
            raise _Whole
        parts.append((_remap(qtab, qcode).astype(np.int32), _remap(code, did).astype(np.int32),
                      value))
        del qcode, did, value, rows, code, pos, found
        nl += n
    if not nl:
        raise _Whole
    # the docnos in byte order, as the whole read holds them
    if words.dtype == np.uint64:
        words = words.astype(">u8").view("S8")
    lens = np.char.str_len(words)
    w = int(lens.max())
    if not _fits(w, len(words), int(lens.sum()), 4):
        raise _Whole
    docnos = latin1_array(words.astype(f"S{w}"))
    rank = np.empty(len(wcode), np.int64)
    rank[wcode] = np.arange(len(wcode))
    del words, wcode, lens
    qcode, docid, value = (np.empty(nl, np.int64) for _ in range(3))
    at = 0
    for j, (q, d, v) in enumerate(parts):
        parts[j] = None  # each piece freed once copied
        b = at + len(v)
        qcode[at:b], value[at:b] = q, v
        docid[at:b] = rank[d]
        at = b
        del q, d, v
    return name, warnings, nl, 0, 0, list(qmap), qcode, docnos, docid, value, None, None


def _comparable(words: np.ndarray, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct docnos so far (``words``) and the zero-padded rows ``grid`` (k, w8)
    of a piece's distinct docnos as arrays of one type whose order is byte order: uint64 (the
    big-endian word of 8 bytes: integer compares) while no docno is longer than 8 bytes, else
    ``S`` of the larger width (numpy compares ``S`` values as unsigned bytes, and a docno holds
    no NUL)."""
    k, w8 = grid.shape
    if w8 == 8 and words.dtype == np.uint64:
        return words, grid.view(">u8").reshape(k).astype(np.uint64)
    if words.dtype == np.uint64:
        words = words.astype(">u8").view("S8")
    rows = grid.view(f"S{w8}").reshape(k)
    if w8 > words.dtype.itemsize:
        words = words.astype(rows.dtype)
    elif w8 < words.dtype.itemsize:
        rows = rows.astype(words.dtype)
    return words, rows


def _gather(a: np.ndarray, data: bytes, st: np.ndarray, en: np.ndarray, width: int):
    """The tokens ``data[st[j]:en[j]]`` as zero-padded uint8 rows (len(st), width)."""
    from ._cfast import gather_fixed  # the compiled reader runs only with the extension
    return gather_fixed(data, st, en, width)




def _read_qrels_fast(data: bytes, nl: int, with_iter: bool = False):
    """Compiled reading of qrels whose every line holds exactly four fields and an integer of at
    most 18 digits (:func:`_tokens4`); None for anything else. Returns (qids in order of first
    appearance, qid codes, distinct docnos in byte order, docno codes, values, iter codes and
    tokens or None)."""
    got = _tokens4(data, nl, with_iter)
    if got is None:
        return None
    value, qcode, qs, did, ds, icode, its, a = got
    docnos, rank_of = _sorted_distinct(a, ds[:, 0], ds[:, 1], data)  # no object per docno
    iters = None if icode is None else (icode, [data[i:j] for i, j in its.tolist()])
    return ([data[i:j] for i, j in qs.tolist()], qcode, docnos, _remap(rank_of, did), value,
            iters)


def _tokens4(data: bytes, nl: int, with_iter: bool = False):
    """The tokeniser of the compiled reading: the C extension's
    :func:`tiebreak.io._cfast.read_fields4`. None when a line does not hold exactly four fields
    with an integer of at most 18 digits, or without the extension; else (values, qid codes,
    qid spans, docno codes, docno spans, iter codes or None, iter spans or None, the text as
    uint8): codes int64 (nl,) numbering distinct tokens in order of first appearance, spans
    int64 (d, 2) (start, end) of each distinct token's first occurrence."""
    if ext() is not None:
        from ._cfast import read_fields4

        got4 = read_fields4(data, nl, with_iter)
        if got4 is None:
            return None
        return (*got4, np.frombuffer(data, np.uint8))
    return None


def _read_strict(data: bytes, name: str, nl: int, with_iter: bool = False,
                 allow_empty: bool = False):
    """The definition: every line read in turn (:func:`_read_lines`), or, when every line
    holds exactly four fields and none is a comment, the same columns taken from one split of
    the whole text (:func:`split_columns`), then the same parsing and checks."""
    f = split_columns(data, nl, 4)
    if f is not None:
        q, it, d, r = f[0::4], f[1::4], f[2::4], f[3::4]
        lno = range(1, nl + 1)
        blank = comment = 0
        del f
    else:
        q, it, d, r, lno, blank, comment = _read_lines(data, name, with_iter)
    if not q and not allow_empty:
        raise InputError(
            f"{name}: no judgments ({nl} lines: {blank} blank, {comment} comment); qrels need "
            f"lines '{LAYOUT}'"
        )
    value = parse_rels(r, lno, name)
    tmap = {t: i for i, t in enumerate(dict.fromkeys(q))}
    qcode = np.fromiter(map(tmap.__getitem__, q), np.int64, len(q))
    udocs, docid = sorted_codes(d)
    iters = None
    if with_iter:
        imap: dict[bytes, int] = {}
        icode = np.fromiter((imap.setdefault(t, len(imap)) for t in it), np.int64, len(it))
        iters = (icode, list(imap))
    lno = None if isinstance(lno, range) else np.array(lno, np.int64)
    return (list(tmap), qcode, udocs, docid, value, lno, blank, comment, iters)


def _read_lines(data: bytes, name: str, with_iter: bool):
    """Columns of qrels read line by line, every line checked (field count)."""
    q: list[bytes] = []
    it: list[bytes] = []
    d: list[bytes] = []
    r: list[bytes] = []
    lno: list[int] = []
    blank = comment = 0
    for i, line in enumerate(split_lines(data), 1):
        f = line.split()
        if len(f) == 4 and f[0][:1] != b"#":
            q.append(f[0])
            if with_iter:
                it.append(f[1])
            d.append(f[2])
            r.append(f[3])
            lno.append(i)
        elif not f:
            blank += 1
        elif f[0][:1] == b"#":
            comment += 1
        else:
            s = line.strip()
            shown = show(s[:160]) + ("..." if len(s) > 160 else "")
            hint = " (two judgments on one line?)" if len(f) == 8 else ""
            raise InputError(
                f"{name}:{i}: expected 4 fields '{LAYOUT}', found {len(f)}{hint}: {shown!r}"
            )
    return q, it, d, r, lno, blank, comment
