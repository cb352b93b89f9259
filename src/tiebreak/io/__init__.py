"""Readers for TREC qrels and runs: fast, strict, and loss-free.

Formats
-------
* qrels: ``qid iter docno rel`` (whitespace separated). ``iter`` may be any token (TREC-COVID
  uses the judging round, e.g. ``0.5``); ``rel`` is an integer and may be negative (trec_eval
  reads -1 as "in the pool but not judged"). Lines starting with ``#`` are comments.
* runs: ``qid Q0 docno rank score [tag] [extra ...]``. Scores may use any float syntax
  (``-7.763e-05``, ``1E3``); ``nan`` and ``inf`` are rejected. Extra trailing columns are ignored
  like trec_eval does; the rank column is kept only for diagnostics (trec_eval ignores it).

Every problem names the file, the line number and the field (``run.txt:1043: score 'abc' is not
a number``) and raises :class:`InputError`; nothing is dropped or reordered silently. Docnos are
kept as the exact bytes of the file, held as latin-1 text (one code point per byte, so sorting
them gives trec_eval's ``strcmp`` byte order); they are never parsed as numbers.

Large well-formed run files are tokenised by pandas' C parser (its float parsing agrees with
Python's correctly rounded ``float`` on every score of the TREC runs in ``../shared/data`` and on
hard rounding cases, see the tests); anything unusual (comments, blank lines, missing or extra
columns, non-finite scores) goes through the strict line-by-line reader, which gives the error.

Files may be plain or gzip-compressed (detected from the content, not the name); ``-`` reads
standard input.
"""

from __future__ import annotations

import gzip
import io
import os
import sys
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "InputError",
    "Qrels",
    "Run",
    "read_qrels",
    "read_run",
    "run_paths",
]


class InputError(ValueError):
    """Malformed qrels or run input. The message names file, line number and field."""


def _read_bytes(source) -> tuple[bytes, str]:
    """Read a path, ``-`` (stdin) or a binary file object; gunzip when the content is gzip."""
    if source == "-" or source is None:
        data, name = sys.stdin.buffer.read(), "<stdin>"
    elif hasattr(source, "read"):
        data, name = source.read(), getattr(source, "name", "<stream>")
        if isinstance(data, str):
            data = data.encode()
    else:
        name = os.fspath(source)
        try:
            with open(name, "rb") as fh:
                data = fh.read()
        except OSError as e:
            raise InputError(f"{name}: cannot read: {e.strerror or e}") from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as e:
            raise InputError(f"{name}: corrupt gzip data: {e}") from None
    return data, str(name)


def natural_key(qid: str):
    """Sort key that orders numeric qids numerically and the rest by text after them."""
    return (0, int(qid), "") if qid.isdigit() else (1, 0, qid)


def _show(tok: bytes) -> str:
    return tok.decode("utf-8", "backslashreplace")


# --------------------------------------------------------------------------------------------
# qrels
# --------------------------------------------------------------------------------------------


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
    docnos : ndarray, str (``U``), shape (d,)
        Distinct judged docnos (latin-1 text of the bytes) in byte order.
    """

    name: str
    topics: list[str]
    topic: np.ndarray
    docid: np.ndarray
    value: np.ndarray
    keys: np.ndarray
    docnos: np.ndarray
    warnings: dict[str, int] = field(default_factory=dict)

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


def read_qrels(source) -> Qrels:
    """Read TREC qrels (``qid iter docno rel``).

    Parameters
    ----------
    source : path, ``"-"`` or binary file object
        Plain or gzip-compressed.
    Returns
    -------
    Qrels

    Raises
    ------
    InputError
        Wrong number of fields, a non-integer ``rel``, or the same (qid, docno) judged twice
        (trec_eval stops on that too); the message names file and line.
    """
    data, name = _read_bytes(source)
    lines = data.split(b"\n")
    q: list[bytes] = []
    d: list[bytes] = []
    r: list[bytes] = []
    lno: list[int] = []
    blank = 0
    for i, line in enumerate(lines, 1):
        f = line.split()
        if len(f) == 4:
            if f[0][:1] == b"#":
                continue
            q.append(f[0])
            d.append(f[2])
            r.append(f[3])
            lno.append(i)
        elif not f:
            blank += 1 if i < len(lines) else 0
        elif f[0][:1] == b"#":
            continue
        else:
            raise InputError(
                f"{name}:{i}: expected 4 fields 'qid iter docno rel', found {len(f)}: "
                f"{_show(line.strip())!r}"
            )
    try:
        value = np.array(list(map(int, r)), dtype=np.int64)
    except ValueError:
        for tok, i in zip(r, lno):
            try:
                int(tok)
            except ValueError:
                raise InputError(
                    f"{name}:{i}: rel {_show(tok)!r} is not an integer"
                ) from None
        raise
    qids = [t.decode("utf-8", "surrogateescape") for t in dict.fromkeys(q)]
    topics = sorted(qids, key=natural_key)
    tindex = {t.encode("utf-8", "surrogateescape"): j for j, t in enumerate(topics)}
    topic = np.array(list(map(tindex.__getitem__, q)), dtype=np.int64)
    udocs, docid = np.unique(_bytes_array(d), return_inverse=True) if d else (
        np.zeros(0, "S1"), np.zeros(0, np.int64))
    udocs = _latin1(udocs)
    docid = docid.astype(np.int64).reshape(-1)
    keys = (topic << 32) | docid
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    dup = np.flatnonzero(keys[1:] == keys[:-1])
    if len(dup):
        lno_a = np.asarray(lno)
        shown = []
        for j in dup[:5]:
            a, b = lno_a[order[j]], lno_a[order[j + 1]]
            shown.append(f"{_show(q[order[j]])} {_show(d[order[j]])} (lines {a} and {b})")
        raise InputError(
            f"{name}:{lno_a[order[dup[0] + 1]]}: docno judged twice for the same topic; "
            f"{len(dup)} duplicate judgment(s): " + "; ".join(shown)
        )
    warnings = {"blank lines skipped": blank} if blank else {}
    return Qrels(name, topics, topic[order], docid[order], value[order], keys, udocs, warnings)


# --------------------------------------------------------------------------------------------
# runs
# --------------------------------------------------------------------------------------------


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
    docnos : ndarray, str (``U``), shape (d,)
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
    warnings : dict[str, int]
        Counted input warnings; evaluation adds more (see ``EvalResult.warnings``).
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

    def __len__(self) -> int:
        return len(self.score)

    def docno(self, i: int) -> str:
        """Docno of line i (file order) as text."""
        return _text(self.docnos[self.docid[i]])


def _parse_scores(tokens: list[bytes], lno, name: str) -> np.ndarray:
    try:
        score = np.fromiter(map(float, tokens), np.float64, len(tokens))
    except ValueError:
        score = None
    if score is None or not np.isfinite(score).all():
        for tok, i in zip(tokens, lno):
            try:
                x = float(tok)
            except ValueError:
                raise InputError(f"{name}:{i}: score {_show(tok)!r} is not a number") from None
            if not np.isfinite(x):
                raise InputError(f"{name}:{i}: score {_show(tok)!r} is not a finite number")
    return score


_COUNTING: list[bytes] = []


def _parse_ranks(tokens: list[bytes], seg_starts: np.ndarray) -> tuple[np.ndarray, int]:
    """Rank column as float64. Fast path: ranks written 1, 2, 3, ... inside each topic block."""
    n = len(tokens)
    if n and len(seg_starts):
        lengths = np.diff(np.r_[seg_starts, n])
        longest = int(lengths.max())
        if len(_COUNTING) < longest:
            _COUNTING[:] = [b"%d" % i for i in range(1, max(longest, 2 * len(_COUNTING)) + 1)]
        expect = []
        for ln in lengths.tolist():
            expect += _COUNTING[:ln]
        if expect == tokens:
            return (np.arange(n) - np.repeat(seg_starts, lengths) + 1).astype(np.float64), 0
    try:
        return np.array(list(map(int, tokens)), dtype=np.float64), 0
    except ValueError:
        out = np.empty(n)
        bad = 0
        for j, t in enumerate(tokens):
            try:
                out[j] = float(t)
            except ValueError:
                out[j] = np.nan
                bad += 1
        return out, bad


def _bytes_array(items: list[bytes]) -> np.ndarray:
    """Fixed-width bytes array (numpy ``S``); an explicit width is much faster to build."""
    if not items:
        return np.zeros(0, "S1")
    return np.array(items, dtype=f"S{max(map(len, items))}")


def _latin1(a: np.ndarray) -> np.ndarray:
    """``S`` array -> ``U`` array with one code point per byte (latin-1), order preserved."""
    n, w = len(a), a.dtype.itemsize
    if n == 0:
        return np.zeros(0, "U1")
    u8 = np.frombuffer(np.ascontiguousarray(a).tobytes(), np.uint8).reshape(n, w)
    return u8.astype(np.uint32).view(f"U{w}").reshape(n)


def _text(docno) -> str:
    """A docno held as latin-1 text, shown as UTF-8."""
    return str(docno).encode("latin-1").decode("utf-8", "backslashreplace")


_PANDAS_MIN_BYTES = 1 << 17


def _read_run_pandas(data: bytes, nl: int):
    """Tokenise a well-formed 6-column run with pandas' C parser; None when anything is unusual
    (the strict reader then handles the file and names the problem)."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        return None
    if data.startswith(b"#") or b"\n#" in data:
        return None
    try:
        df = pd.read_csv(
            io.BytesIO(data), sep=r"\s+", header=None, names=range(6), usecols=[0, 2, 3, 4, 5],
            engine="c", dtype={0: object, 2: object, 3: np.float64, 4: np.float64, 5: object},
            na_filter=False, encoding="latin-1", skip_blank_lines=False, quoting=3,
            on_bad_lines="error",
        )
    except Exception:
        return None
    if len(df) != nl or nl == 0:
        return None
    score = df[4].to_numpy()
    rank = df[3].to_numpy()
    tcodes, tuniq = pd.factorize(df[5].to_numpy(), sort=False)
    if not np.isfinite(score).all() or "" in set(tuniq):
        return None
    # topics: category codes; docnos: factorise, then sort the distinct ones in byte order
    qcodes, quniq = pd.factorize(df[0].to_numpy(), sort=False)
    qcodes = qcodes.astype(np.int64)
    dcodes, duniq = pd.factorize(df[2].to_numpy(), sort=False)
    w = max(1, max(map(len, duniq)))
    du = np.array(duniq, dtype=f"U{w}")
    order = np.argsort(du, kind="stable")
    rank_of = np.empty(len(order), np.int64)
    rank_of[order] = np.arange(len(order))
    docnos = du[order]
    dcodes = rank_of[dcodes]
    topics = [q.encode("latin-1").decode("utf-8", "surrogateescape") for q in quniq]
    first = str(tuniq[0])
    ndiff = int((tcodes != 0).sum())
    tags = [first.encode("latin-1").decode("utf-8", "replace")]
    return (topics, qcodes, docnos, dcodes, score,
            rank.astype(np.float64), tags, ndiff)


def _topics(q: list[bytes]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Topic ids in order of appearance, per-line topic index, and the starts of the blocks of
    consecutive lines with the same qid."""
    qa = _bytes_array(q)
    change = np.flatnonzero(qa[1:] != qa[:-1]) + 1 if len(qa) else np.zeros(0, np.int64)
    starts = np.r_[0, change] if len(qa) else np.zeros(0, np.int64)
    heads = [q[i] for i in starts.tolist()]
    tmap: dict[bytes, int] = {}
    for h in heads:
        if h not in tmap:
            tmap[h] = len(tmap)
    seg_topic = np.array([tmap[h] for h in heads], dtype=np.int64)
    lengths = np.diff(np.r_[starts, len(qa)])
    topic = np.repeat(seg_topic, lengths)
    topics = [t.decode("utf-8", "surrogateescape") for t in tmap]
    return topics, topic, starts


def read_run(source, name: str | None = None, on_duplicate: str = "error") -> Run:
    """Read a TREC run (``qid Q0 docno rank score [tag] [extra...]``).

    Parameters
    ----------
    source : path, ``"-"`` or binary file object
        Plain or gzip-compressed.
    name : str, optional
        Run name; default the run tag of the first line, else the file name.
    on_duplicate : {"error", "first"}
        A docno listed twice for one topic stops with an error naming both lines (trec_eval stops
        too); ``"first"`` keeps the first line and counts the dropped ones in ``warnings``.

    Raises
    ------
    InputError
        Fewer than 5 fields, a score that is not a finite number, or a duplicate docno; the message
        names the file, line number and field.
    """
    if on_duplicate not in ("error", "first"):
        raise ValueError("on_duplicate must be 'error' or 'first'")
    data, src = _read_bytes(source)
    warnings: dict[str, int] = {}
    nl = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    parsed = _read_run_pandas(data, nl) if len(data) >= _PANDAS_MIN_BYTES else None
    if parsed is not None:
        topics, topic, docnos, docid, score, rank, tags, ndiff = parsed
        if ndiff:
            warnings["lines whose run tag differs from the first"] = ndiff
        run = Run(
            name or (tags[0] if tags else os.path.basename(src)), src, topics, topic, docnos,
            docid, score, rank, np.arange(1, nl + 1, dtype=np.int64), tags, warnings,
        )
        _check_duplicates(run, on_duplicate)
        return run
    toks = data.split()
    fast = (
        len(toks) == 6 * nl
        and not data.startswith(b"#")
        and b"\n#" not in data
        and (not toks or toks[1::6].count(toks[1]) == nl)
        and (not toks or toks[5::6].count(toks[5]) == nl)
    )
    if fast:
        q, d, r, s = toks[0::6], toks[2::6], toks[3::6], toks[4::6]
        tags = [toks[5].decode("utf-8", "replace")] if toks else []
        lineno = np.arange(1, nl + 1, dtype=np.int64)
        score = _parse_scores(s, range(1, nl + 1), src)
    else:
        q, d, r, s, lno = [], [], [], [], []
        tagset: dict[bytes, None] = {}
        n_extra = 0
        n_tagdiff = 0
        first_tag = None
        for i, line in enumerate(data.split(b"\n"), 1):
            f = line.split()
            nf = len(f)
            if nf >= 6:
                if f[0][:1] == b"#":
                    continue
                tagset[f[5]] = None
                if first_tag is None:
                    first_tag = f[5]
                n_tagdiff += f[5] != first_tag
                n_extra += nf > 6
            elif nf == 0:
                continue
            elif f[0][:1] == b"#":
                continue
            elif nf != 5:
                raise InputError(
                    f"{src}:{i}: expected 6 fields 'qid Q0 docno rank score tag', found {nf}: "
                    f"{_show(line.strip())!r}"
                )
            q.append(f[0])
            d.append(f[2])
            r.append(f[3])
            s.append(f[4])
            lno.append(i)
        lineno = np.array(lno, dtype=np.int64)
        score = _parse_scores(s, lno, src)
        tags = [t.decode("utf-8", "replace") for t in tagset]
        if n_extra:
            warnings["lines with extra columns (ignored)"] = n_extra
        if n_tagdiff:
            warnings["lines whose run tag differs from the first"] = n_tagdiff
    topics, topic, seg_starts = _topics(q)
    rank, bad_rank = _parse_ranks(r, seg_starts)
    if bad_rank:
        warnings["rank column not a number"] = bad_rank
    if d:
        docnos, docid = np.unique(_bytes_array(d), return_inverse=True)
        docnos = _latin1(docnos)
        docid = docid.astype(np.int64).reshape(-1)
    else:
        docnos, docid = np.zeros(0, "U1"), np.zeros(0, np.int64)
    run = Run(
        name or (tags[0] if tags else os.path.basename(src)),
        src, topics, topic, docnos, docid, score, rank, lineno, tags, warnings,
    )
    _check_duplicates(run, on_duplicate)
    return run


def _check_duplicates(run: Run, on_duplicate: str) -> None:
    keys = (run.topic << 32) | run.docid
    ks = np.sort(keys)
    if not (ks[1:] == ks[:-1]).any():
        return
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
    run.warnings["duplicate docno lines dropped (kept the first)"] = int(drop.sum())


def run_paths(args) -> list[str]:
    """Expand run arguments: a directory means every non-hidden file in it, sorted by name."""
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
            out.append(a)
    return out


def __getattr__(name):  # readers of the other TREC formats, imported on first use
    if name == "read_qrels_jg":
        from .jg import read_qrels_jg
        return read_qrels_jg
    if name == "read_zscores":
        from .zscores import read_zscores
        return read_zscores
    if name == "read_prefs":
        from ..trec_eval.prefs import read_prefs
        return read_prefs
    raise AttributeError(name)
