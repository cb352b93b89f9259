"""TREC runs: ``qid Q0 docno rank score [tag] [extra ...]``.

Two readers give the same result on every input they both accept:

* the **strict reader** goes line by line and is the definition: it names the file, line and
  field of every problem (when numpy proves that every line holds exactly six fields and none
  is a comment, it takes the same columns from one split of the whole text instead of a loop
  over lines: :func:`tiebreak.io._arrays.split_columns`);
* the **fast reader** (files of 128 KiB and more, when the C extension
  :mod:`tiebreak._native._ext` is built and not turned off) runs compiled kernels over the raw
  bytes (:mod:`tiebreak.io._cfast`: fields, decimal numbers, interning of qids, docnos and
  tags, with no Python object per line) and is used only when they prove the input is what
  the strict reader would read the same way: every line holds exactly six fields (C
  ``isspace`` separators), none starts with ``#``, every rank and score is a finite number in
  C ``strtod`` decimal syntax, parsed correctly rounded. On anything else the kernels decline
  and the strict reader runs,
  accepting the input or naming the problem.

Rules (what trec_eval 10.0 does is in ``docs/robustness.md``):

* a line whose first field starts with ``#`` is a comment; blank lines are skipped; both are
  counted in :attr:`Run.line_counts`;
* 6 fields is a result line; 5 fields (no run tag) is read and counted as a warning; more than 6:
  the extra fields are ignored and counted, unless fields 6-10 or 7-11 look like a second record
  (the ``Q0`` column repeated, then two numbers) — two records glued on one line are an error;
  fewer than 5 is an error;
* scores are decimal numbers in C ``strtod`` syntax (``-7.763e-05``, ``1E3``, ``.5``), parsed
  correctly rounded to float64; ``nan``, ``inf``, values beyond float64 and Python-only forms
  such as ``1_000`` are errors;
* docnos and qids are kept as bytes (held as latin-1 text), never parsed as numbers.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from itertools import groupby

import numpy as np

from .._native import ext
from ._arrays import (
    _fits,
    latin1_array,
    sorted_codes,
    split_columns,
    text,
)
from .source import (
    NUMBER,
    InputError,
    LineCounts,
    count_lines,
    open_bytes,
    show,
    split_lines,
    text_lines,
)

__all__ = ["Run", "read_run", "run_paths", "WARN_EMPTY"]

LAYOUT = "qid Q0 docno rank score tag"
WARN_EXTRA = "lines with extra columns (ignored)"
WARN_TAGDIFF = "lines whose run tag differs from the first"
WARN_NO_TAG = "lines without a run tag (5 fields)"
WARN_RANK = "rank column not a number"
WARN_EMPTY = "no result lines: the run retrieved nothing (every topic scores 0)"
WARN_DUPLICATE = "duplicate docno lines dropped (kept the first)"
DROP_DUPLICATE = "duplicate docno (kept the first)"


@dataclass
class Run:
    """One TREC run, lines kept in file order.

    Attributes
    ----------
    name : str
        Run tag (column 6) or, when absent, the file name.
    source : str
        File it came from.
    topics : list[str]
        Topic ids in order of first appearance.
    topic : ndarray, int64, shape (n,)
        Index into ``topics`` for each line.
    docnos : ndarray, str (``U``; ``object`` for pathologically long docnos), shape (d,)
        Distinct docnos of the run (latin-1 text of the bytes) in byte order (trec_eval's
        ``strcmp`` order).
    docid : ndarray, int64, shape (n,)
        Index into ``docnos`` for each line; so it is also the docno's byte-order rank.
    score : ndarray, float64, shape (n,)
        Retrieval scores as parsed (double precision, like trec_eval 10).
    rank : ndarray, float64, shape (n,)
        Rank column (NaN where it is not a number); used only for warnings.
    lineno : ndarray, int64, shape (n,)
        1-based line number of each line in the file.
    tags : list[str]
        Distinct run tags in order of first appearance.
    warnings : dict[str, int]
        Counted input warnings; evaluation adds more (see ``EvalResult.warnings``).
    line_counts : LineCounts or None
        What became of every line of the file (None for a run built in memory).
    exponent : ndarray, bool, shape (n,), or None
        Per line: the score was written with an exponent (``1.5e-05``), a sign of a score
        printed by ``%g``-style formatting (Yang, Moffat & Turpin 2016 count such runs); None for
        a run built in memory.
    """

    name: str
    source: str
    topics: list[str]
    topic: np.ndarray
    docnos: np.ndarray
    docid: np.ndarray
    score: np.ndarray
    rank: np.ndarray
    lineno: np.ndarray
    tags: list[str] = field(default_factory=list)
    warnings: dict[str, int] = field(default_factory=dict)
    line_counts: LineCounts | None = None
    exponent: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.score)

    def docno(self, i: int) -> str:
        """Docno of line i (file order) as text."""
        return text(self.docnos[self.docid[i]])


def _excerpt(line: bytes, limit: int = 160) -> str:
    s = line.strip()
    return repr(show(s[:limit]) + ("..." if len(s) > limit else ""))


def _first_bad(tokens: list[bytes], lno, ok) -> tuple[bytes, int]:
    for tok, i in zip(tokens, lno):
        if not ok(tok):
            return tok, i
    raise AssertionError("no bad token")  # pragma: no cover


def _is_finite_number(tok: bytes) -> bool:
    return NUMBER.fullmatch(tok) is not None and np.isfinite(float(tok))


def parse_scores(tokens: list[bytes], lno, name: str, joined: bytes | None = None) -> np.ndarray:
    """Score tokens -> float64 (n,); InputError ``file:line: score ...`` on the first bad one.
    ``joined``: the tokens joined by any separator, when the caller has it."""
    score = None
    # Python's float() reads '1_0'; C's strtod does not
    if b"_" not in (b"".join(tokens) if joined is None else joined):
        try:
            score = np.fromiter(map(float, tokens), np.float64, len(tokens))
        except ValueError:
            pass
    if score is None or not np.isfinite(score).all():
        tok, i = _first_bad(tokens, lno, _is_finite_number)
        try:
            spelled_inf = b"_" not in tok and not np.isfinite(float(tok))  # nan, inf, 1e400
        except ValueError:
            spelled_inf = False
        if spelled_inf:
            raise InputError(f"{name}:{i}: score {show(tok)!r} is not a finite number")
        raise InputError(f"{name}:{i}: score {show(tok[:80])!r} is not a number")
    return score


_COUNTING: list = [b"", [0]]  # b"1 2 3 ... L" and the end of each prefix of k numbers


def _counting(longest: int) -> tuple[bytes, list[int]]:
    """``b"1 2 ... L"`` (L >= longest) and, for each k, the length of its first k numbers."""
    if len(_COUNTING[1]) <= longest:
        nums = [b"%d" % i for i in range(1, max(longest, 2 * len(_COUNTING[1])) + 1)]
        ends, e = [0], -1
        for t in nums:
            e += len(t) + 1
            ends.append(e)
        _COUNTING[:] = [b" ".join(nums), ends]
    return _COUNTING[0], _COUNTING[1]


def _parse_ranks(tokens: list[bytes], seg_starts: np.ndarray) -> tuple[np.ndarray, int]:
    """Rank column as float64. Fast path: ranks written 1, 2, 3, ... inside each topic block
    (checked on the joined column: tokens hold no blank, so equal joined texts are equal
    token lists)."""
    n = len(tokens)
    jt = b" ".join(tokens)
    if n and len(seg_starts):
        lengths = np.diff(np.r_[seg_starts, n])
        joined, ends = _counting(int(lengths.max()))
        if b" ".join([joined[:ends[ln]] for ln in lengths.tolist()]) == jt:
            return (np.arange(n) - np.repeat(seg_starts, lengths) + 1).astype(np.float64), 0
    if b"_" not in jt:
        try:
            return np.fromiter(map(int, tokens), np.float64, n), 0
        except (ValueError, OverflowError):
            pass
    out = np.empty(n)
    bad = 0
    for j, t in enumerate(tokens):
        if NUMBER.fullmatch(t):
            out[j] = float(t)
        else:
            out[j] = np.nan
            bad += 1
    return out, bad


def _glued_at(f: list[bytes]) -> int | None:
    """Field index where a second record seems to start on this line (5 or 6), else None."""
    for j in (6, 5):
        if (len(f) >= j + 5 and f[j + 1] == f[1] and NUMBER.fullmatch(f[j + 3])
                and NUMBER.fullmatch(f[j + 4])):
            return j
    return None


_FAST_MIN_BYTES = 1 << 17


def _sorted_distinct(a: np.ndarray, ds: np.ndarray, de: np.ndarray, data: bytes):
    """Distinct tokens ``a[ds[d]:de[d]]`` -> (text array in byte order, each one's rank in it),
    as :func:`sorted_codes` gives for them, without a Python object per token when the
    fixed-width array is affordable."""
    lens = de - ds
    k = len(ds)
    w = int(lens.max()) if k else 0
    if not k or not _fits(w, k, int(lens.sum()), 4):
        return sorted_codes([data[i:j] for i, j in zip(ds.tolist(), de.tolist())])
    w8 = -(-w // 8) * 8
    from ._cfast import gather_fixed  # the compiled reader runs only with the extension
    grid = gather_fixed(data, ds, de, w8)
    # byte order = order of the big-endian 64-bit words of the zero-padded bytes (no NUL in a
    # docno): integer sorts instead of a string sort
    words = grid.view(">u8")
    order = (np.argsort(words[:, 0]) if w8 == 8 else
             np.lexsort(words.T[::-1]))
    rank_of = np.empty(k, np.int64)
    rank_of[order] = np.arange(k)
    fixed = np.ascontiguousarray(grid[order, :w]).view(f"S{w}").reshape(k)
    return latin1_array(fixed), rank_of


def _read_run_fast(data: bytes, nl: int):
    """Read a run whose every line holds exactly six fields with one compiled pass (the C
    extension's :func:`tiebreak.io._cfast.read_run6`: no Python object per line); None when the
    extension is not built or turned off, or the input is anything else (the strict reader,
    the definition, handles it)."""
    if ext() is None:
        return None
    from ._cfast import read_run6 as c_read_run6

    got = c_read_run6(data, nl)
    if got is None:
        return None
    topic, did, rank, score, expo, qspan, dspan, tspan, ndiff = got
    a = np.frombuffer(data, np.uint8)
    docnos, rank_of = _sorted_distinct(a, dspan[:, 0], dspan[:, 1], data)  # byte-order rank
    return ([data[i:j].decode("utf-8", "surrogateescape") for i, j in qspan.tolist()], topic,
            docnos, rank_of[did], score, rank,
            [data[i:j].decode("utf-8", "replace") for i, j in tspan.tolist()], ndiff, expo)


def _topics(q: list[bytes]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Topic ids in order of appearance, per-line topic index, and the starts of the blocks of
    consecutive lines with the same qid."""
    heads: list[bytes] = []
    lengths: list[int] = []
    for h, block in groupby(q):  # blocks compared in C: no Python step per line
        heads.append(h)
        lengths.append(len(list(block)))
    tmap: dict[bytes, int] = {}
    for h in heads:
        if h not in tmap:
            tmap[h] = len(tmap)
    seg_topic = np.array([tmap[h] for h in heads], dtype=np.int64)
    lengths_a = np.array(lengths, dtype=np.int64)
    starts = np.zeros(len(heads), np.int64)
    np.cumsum(lengths_a[:-1], out=starts[1:])
    topic = np.repeat(seg_topic, lengths_a)
    topics = [t.decode("utf-8", "surrogateescape") for t in tmap]
    return topics, topic, starts


def _exponents(s: list[bytes], joined: bytes | None = None) -> np.ndarray:
    """Which score tokens are written with an exponent (``e``/``E``): bool (n,)."""
    joined = b" ".join(s) if joined is None else joined
    if b"e" not in joined and b"E" not in joined:
        return np.zeros(len(s), bool)
    return np.fromiter((b"e" in t or b"E" in t for t in s), bool, len(s))


def _read_strict(data: bytes, src: str, warnings: dict[str, int], nl: int):
    """The definition: every line read in turn (:func:`_read_lines`), or, when every line
    holds exactly six fields and none is a comment, the same columns taken from one split of
    the whole text (:func:`split_columns`), then the same parsing and checks."""
    f = split_columns(data, nl, 6)
    if f is not None:
        q, d, r, s, t = f[0::6], f[2::6], f[3::6], f[4::6], f[5::6]
        lno = range(1, nl + 1)
        n_tagdiff = len(t) - t.count(t[0])
        tagset = dict.fromkeys(t) if n_tagdiff else {t[0]: None}
        comment = blank = n_extra = n_notag = 0
        del f, t
    else:
        (q, d, r, s, lno, tagset, comment, blank, n_extra, n_tagdiff,
         n_notag) = _read_lines(data, src)
    joined = b" ".join(s)
    score = parse_scores(s, lno, src, joined)
    if n_extra:
        warnings[WARN_EXTRA] = n_extra
    if n_tagdiff:
        warnings[WARN_TAGDIFF] = n_tagdiff
    if n_notag:
        warnings[WARN_NO_TAG] = n_notag
    topics, topic, seg_starts = _topics(q)
    rank, bad_rank = _parse_ranks(r, seg_starts)
    if bad_rank:
        warnings[WARN_RANK] = bad_rank
    docnos, docid = sorted_codes(d)
    tags = [t.decode("utf-8", "replace") for t in tagset]
    expo = _exponents(s, joined)
    lineno = np.arange(1, nl + 1, dtype=np.int64) if isinstance(lno, range) else \
        np.array(lno, dtype=np.int64)
    return (topics, topic, docnos, docid, score, rank, lineno, tags, comment, blank, expo)


def _read_lines(data: bytes, src: str):
    """Columns of a run read line by line, every line checked (fields, glued records)."""
    q: list[bytes] = []
    d: list[bytes] = []
    r: list[bytes] = []
    s: list[bytes] = []
    lno: list[int] = []
    tagset: dict[bytes, None] = {}
    comment = blank = n_extra = n_tagdiff = n_notag = 0
    first_tag = None
    for i, line in enumerate(split_lines(data), 1):
        f = line.split()
        nf = len(f)
        if nf == 0:
            blank += 1
            continue
        if f[0][:1] == b"#":
            comment += 1
            continue
        if nf >= 6:
            if nf > 6:
                j = _glued_at(f)
                if j is not None:
                    raise InputError(
                        f"{src}:{i}: two records on one line: a second '{LAYOUT}' starts at "
                        f"field {j + 1} ({nf} fields): {_excerpt(line)}"
                    )
                n_extra += 1
            tag = f[5]
            tagset[tag] = None
            if first_tag is None:
                first_tag = tag
            n_tagdiff += tag != first_tag
        elif nf == 5:
            n_notag += 1
        else:
            raise InputError(
                f"{src}:{i}: expected 6 fields '{LAYOUT}', found {nf}: {_excerpt(line)}"
            )
        q.append(f[0])
        d.append(f[2])
        r.append(f[3])
        s.append(f[4])
        lno.append(i)
    return q, d, r, s, lno, tagset, comment, blank, n_extra, n_tagdiff, n_notag


def read_run(source, name: str | None = None, on_duplicate: str = "error") -> Run:
    """Read a TREC run (``qid Q0 docno rank score [tag] [extra...]``).

    Parameters
    ----------
    source : path, ``"-"`` or binary file object
        Plain or gzip-compressed (see :func:`tiebreak.io.open_bytes`).
    name : str, optional
        Run name; default the run tag of the first line, else the file name.
    on_duplicate : {"error", "first"}
        A docno listed twice for one topic stops with an error naming both lines (trec_eval stops
        too); ``"first"`` keeps the first line and counts the dropped ones in ``warnings`` and
        ``line_counts.dropped``.

    Returns
    -------
    Run
        A file without result lines (empty, blank or comments only) gives an empty run with the
        warning :data:`WARN_EMPTY`: evaluated, every topic scores 0.

    Raises
    ------
    InputError
        ``file:line: ...``: fewer than 5 fields, two records on one line, a score that is not a
        finite decimal number, a duplicate docno, UTF-16 text, a NUL byte, corrupt gzip.
    ValueError
        Unknown ``on_duplicate``.
    """
    if on_duplicate not in ("error", "first"):
        raise ValueError("on_duplicate must be 'error' or 'first'")
    raw, src = open_bytes(source)
    warnings: dict[str, int] = {}
    data = text_lines(raw, src, warnings)
    del raw
    nl = count_lines(data)
    parsed = _read_run_fast(data, nl) if len(data) >= _FAST_MIN_BYTES else None
    if parsed is not None:
        topics, topic, docnos, docid, score, rank, tags, ndiff, expo = parsed
        if ndiff:
            warnings[WARN_TAGDIFF] = ndiff
        lineno = np.arange(1, nl + 1, dtype=np.int64)
        comment = blank = 0
    else:
        (topics, topic, docnos, docid, score, rank, lineno, tags, comment,
         blank, expo) = _read_strict(data, src, warnings, nl)
    if not len(score):
        warnings[WARN_EMPTY] = 1
    run = Run(
        name or (tags[0] if tags else os.path.basename(src)),
        src, topics, topic, docnos, docid, score, rank, lineno, tags, warnings, exponent=expo,
    )
    dropped = _check_duplicates(run, on_duplicate)
    run.line_counts = LineCounts(nl, comment, blank, len(run), dropped)
    return run


def _check_duplicates(run: Run, on_duplicate: str) -> dict[str, int]:
    """Stop on a repeated (topic, docno), or drop the later lines; returns ``dropped``."""
    fast = None
    if ext() is not None:
        from . import _cfast as fast
    if fast is not None and len(run.topic) and fast.no_repeats(
            run.topic, run.docid, len(run.topics), len(run.docnos)):
        return {}
    keys = (run.topic << 32) | run.docid
    ks = np.sort(keys)
    if not (ks[1:] == ks[:-1]).any():
        return {}
    order = np.argsort(keys, kind="stable")
    ks = keys[order]
    dup = np.flatnonzero(ks[1:] == ks[:-1])
    if on_duplicate == "error":
        shown = []
        for j in dup[:5]:
            a, b = order[j], order[j + 1]
            shown.append(
                f"topic {run.topics[run.topic[a]]} docno {run.docno(a)} "
                f"(lines {run.lineno[a]} and {run.lineno[b]})"
            )
        raise InputError(
            f"{run.source}:{run.lineno[order[dup[0] + 1]]}: docno listed twice for one topic; "
            f"{len(dup)} duplicate line(s): " + "; ".join(shown)
            + " (use --on-duplicate first to keep the first line of each)"
        )
    drop = np.zeros(len(keys), bool)
    drop[order[dup + 1]] = True  # stable sort: the later line of each pair
    keep = ~drop
    run.topic = run.topic[keep]
    run.docid = run.docid[keep]
    run.score = run.score[keep]
    run.rank = run.rank[keep]
    run.lineno = run.lineno[keep]
    if run.exponent is not None:
        run.exponent = run.exponent[keep]
    n = int(drop.sum())
    run.warnings[WARN_DUPLICATE] = n
    return {DROP_DUPLICATE: n}


def run_paths(args) -> list[str]:
    """Expand run arguments: a directory means every non-hidden file in it, sorted by name.

    Raises
    ------
    InputError
        A directory without files, or ``-`` (standard input) given more than once.
    """
    out: list[str] = []
    for a in args:
        a = os.fspath(a)
        if a != "-" and os.path.isdir(a):
            files = sorted(
                os.path.join(a, f) for f in os.listdir(a)
                if not f.startswith(".") and os.path.isfile(os.path.join(a, f))
            )
            if not files:
                raise InputError(f"{a}: directory holds no run files")
            out.extend(files)
        else:
            if a == "-" and "-" in out:
                raise InputError("-: standard input given more than once (it can be read once)")
            out.append(a)
    return out
