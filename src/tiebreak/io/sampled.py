"""Sampled judgments with strata: the qrels of NIST's ``sample_eval`` (TREC Terabyte 2006,
Million Query, Web 2009-2014, TRECVID, Clinical Decision Support).

Format: five whitespace-separated fields per line, ``qid iter docno stratum rel``:

``qid``
    Topic id (text).
``iter``
    Ignored, as in qrels.
``docno``
    Document id (exact bytes).
``stratum``
    Label (text) of the stratum the document belongs to; strata are per topic (the same label
    in two topics names two strata).
``rel``
    The judgment: an integer >= 0 for a sampled (judged) document; a negative value for a
    document of the stratum that was not sampled (sample_eval writes -1).

Every line is one document of the judged universe (the pool): a stratum's size ``N_s`` is the
number of its lines, its sample size ``n_s`` the number with ``rel >= 0``. Under stratified
sampling without replacement a document of stratum ``s`` was judged with probability
``pi_s = n_s / N_s`` (the inclusion probability the estimators of
:mod:`tiebreak.measures.builtin.sampled` use).

Reference: E. Yilmaz, E. Kanoulas and J. A. Aslam. A simple and efficient sampling method for
estimating AP and NDCG. SIGIR 2008 (the estimators ``sample_eval`` implements).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np

from .qrels import Qrels, parse_rels, read_qrels
from .source import (
    InputError,
    LineCounts,
    count_lines,
    natural_key,
    open_bytes,
    show,
    split_lines,
    text_lines,
)

LAYOUT = "qid iter docno stratum rel"

__all__ = ["SampledQrels", "read_sampled_qrels", "is_sampled_qrels", "LAYOUT"]


@dataclass
class SampledQrels(Qrels):
    """:class:`~tiebreak.io.Qrels` whose judgments carry the stratum they were sampled from.

    The ad hoc view (``topic``, ``docid``, ``value``, ``keys``) is that of the five-column file
    without its stratum column: ``value`` < 0 marks a document of the pool that was not
    sampled. Any measure reads it as ordinary qrels.

    Attributes
    ----------
    stratum : ndarray int64 (m,)
        Stratum index of each judgment (row of ``keys``), into ``strata``.
    strata : list of (str, str)
        (topic id, stratum label) of each stratum index, grouped by topic in topic order, the
        labels of one topic in natural order.
    stratum_topic : ndarray int64 (S,)
        Topic index (into ``topics``) of each stratum.
    size : ndarray int64 (S,)
        ``N_s``: documents of each stratum (its lines).
    sampled : ndarray int64 (S,)
        ``n_s``: judged documents of each stratum (``rel >= 0``).
    """

    stratum: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    strata: list = field(default_factory=list)
    stratum_topic: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    size: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    sampled: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @property
    def inclusion(self) -> np.ndarray:
        """``pi_s = n_s / N_s`` per stratum, float64 (S,)."""
        return self.sampled / np.maximum(self.size, 1)


def _fields(data: bytes, name: str):
    q, d, s, r, lno = [], [], [], [], []
    blank = comment = 0
    for i, line in enumerate(split_lines(data), 1):
        f = line.split()
        if not f:
            blank += 1
        elif f[0][:1] == b"#":
            comment += 1
        elif len(f) == 5:
            q.append(f[0])
            d.append(f[2])
            s.append(f[3])
            r.append(f[4])
            lno.append(i)
        else:
            st = line.strip()
            shown = show(st[:160]) + ("..." if len(st) > 160 else "")
            hint = " (ordinary qrels? use them without the stratum column)" if len(f) == 4 \
                else ""
            raise InputError(f"{name}:{i}: expected 5 fields '{LAYOUT}', found {len(f)}"
                             f"{hint}: {shown!r}")
    return q, d, s, r, lno, blank, comment


def read_sampled_qrels(source) -> SampledQrels:
    """Read sampled judgments with strata (``qid iter docno stratum rel``, sample_eval's qrels).

    Parameters
    ----------
    source : path, ``"-"`` or binary file object
        Plain or gzip-compressed (see :func:`tiebreak.io.open_bytes`).

    Returns
    -------
    SampledQrels

    Raises
    ------
    InputError
        ``file:line: ...``: a line without exactly 5 fields, a ``rel`` that is not a 64-bit
        integer, the same (qid, docno) on two lines (naming both), UTF-16 text or a NUL byte;
        ``file: ...``: no judgment at all, a topic whose strata hold no sampled document.
    """
    raw, name = open_bytes(source)
    warnings: dict[str, int] = {}
    data = text_lines(raw, name, warnings)
    del raw
    nl = count_lines(data)
    q, d, s, r, lno, blank, comment = _fields(data, name)
    if not q:
        raise InputError(f"{name}: no judgments ({nl} lines: {blank} blank, {comment} comment); "
                         f"sampled qrels need lines '{LAYOUT}'")
    value = parse_rels(r, lno, name)
    # the ad hoc view through the one qrels reader (topic order, docno table, checks)
    body = b"".join(b"%s 0 %s %d\n" % (a, b, v) for a, b, v in zip(q, d, value.tolist()))
    try:
        base = read_qrels(io.BytesIO(body))
    except InputError as e:  # the same (qid, docno) twice: report the file's own lines
        seen: dict[tuple[bytes, bytes], int] = {}
        for a, b, i in zip(q, d, lno):
            j = seen.setdefault((a, b), i)
            if j != i:
                raise InputError(f"{name}:{i}: docno {show(b[:80])!r} of topic {show(a)!r} "
                                 f"already on line {j} (a document is in one stratum once)"
                                 ) from None
        raise InputError(f"{name}: {e}") from None
    tindex = base.topic_index
    names = [t.decode("utf-8", "surrogateescape") for t in q]
    labels = [t.decode("utf-8", "surrogateescape") for t in s]
    pairs = sorted({(tindex[t], lab) for t, lab in zip(names, labels)},
                   key=lambda p: (p[0], natural_key(p[1])))
    sindex = {p: k for k, p in enumerate(pairs)}
    line_stratum = np.fromiter((sindex[(tindex[t], lab)] for t, lab in zip(names, labels)),
                               np.int64, len(q))
    # rows of base.keys: look each line's (topic, docno) up
    docid = np.searchsorted(base.docnos, np.array([b.decode("latin-1") for b in d],
                                                  dtype=base.docnos.dtype))
    tcol = np.fromiter((tindex[t] for t in names), np.int64, len(q))
    row = np.searchsorted(base.keys, (tcol << 32) | docid)
    stratum = np.empty(len(base.keys), np.int64)
    stratum[row] = line_stratum
    S = len(pairs)
    size = np.bincount(stratum, minlength=S)
    sampled = np.bincount(stratum[base.value >= 0], minlength=S)
    stopic = np.array([t for t, _ in pairs], np.int64)
    per_topic = np.bincount(stopic, weights=sampled, minlength=len(base.topics))
    empty = np.flatnonzero(per_topic == 0)
    if len(empty):
        t = base.topics[empty[0]]
        raise InputError(f"{name}: topic {t} has no sampled document (every rel < 0): nothing "
                         f"can be estimated for it ({len(empty)} such topic(s))")
    warnings.update(base.warnings)
    return SampledQrels(name, base.topics, base.topic, base.docid, base.value, base.keys,
                        base.docnos, warnings, LineCounts(nl, comment, blank, len(q)), None,
                        stratum=stratum, strata=[(base.topics[t], lab) for t, lab in pairs],
                        stratum_topic=stopic, size=size, sampled=sampled)


def is_sampled_qrels(path) -> bool:
    """Whether the first judgment line of the file at ``path`` (plain or gzip) has five fields,
    as sample_eval's ``qid iter docno stratum rel``. Reads at most 64 KiB; False for ``-``, a
    file object or anything unreadable."""
    import gzip
    import os

    if not isinstance(path, (str, os.PathLike)) or path == "-":
        return False
    try:
        with open(path, "rb") as fh:
            head = fh.read(2)
        opener = gzip.open if head == b"\x1f\x8b" else open
        with opener(path, "rb") as fh:
            block = fh.read(1 << 16)
    except (OSError, EOFError):
        return False
    lines = block.splitlines()
    if len(block) == 1 << 16 and lines:
        lines.pop()  # maybe cut short
    for line in lines:
        f = line.split()
        if f and f[0][:1] != b"#":
            return len(f) == 5
    return False
