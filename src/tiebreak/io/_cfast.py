"""The reader kernels in C (:mod:`tiebreak._native._ext`), used by the run and qrels readers
whenever the extension is built: fields, correctly rounded decimal numbers (Eisel-Lemire), and
distinct strings numbered in order of first appearance. They decline (None) on any input the
strict reader (the definition) might read differently, and the strict reader then runs."""

from __future__ import annotations

import numpy as np

from .._native import _ext as _c


def _i64(b) -> np.ndarray:
    return np.frombuffer(b, np.int64)


def _spans(b) -> np.ndarray:
    return np.frombuffer(b, np.int64).reshape(-1, 2)


def read_run6(data: bytes, nl: int):
    """A run text of ``nl`` six-field lines, read as the strict reader reads
    it: None when it declines, else (topic, docid, rank, score, exponent, qid spans, docno
    spans, tag spans, lines whose tag differs from the first line's); every number already
    parsed exactly and finite (None otherwise)."""
    got = _c.read_run6(data, nl)
    if got is None:
        return None
    topic, did, rank, score, expo, qs, ds, ts, ndiff = got
    return (_i64(topic), _i64(did), np.frombuffer(rank, np.float64),
            np.frombuffer(score, np.float64), np.frombuffer(expo, np.bool_), _spans(qs),
            _spans(ds), _spans(ts), ndiff)


def read_fields4(data: bytes, nl: int, with_iter: bool):
    """Qrels of ``nl`` four-field lines with integer values: None when the numba path would
    decline, else (value, qid codes, qid spans, docno codes, docno spans, iter codes or None,
    iter spans or None)."""
    got = _c.read_fields4(data, nl, with_iter)
    if got is None:
        return None
    value, qc, qs, dc, ds, ic, its = got
    return (_i64(value), _i64(qc), _spans(qs), _i64(dc), _spans(ds),
            None if ic is None else _i64(ic), None if its is None else _spans(its))


def gather_fixed(data, st, en, width: int) -> np.ndarray:
    """The tokens ``data[st[j]:en[j]]`` as zero-padded uint8 rows (len(st), width)."""
    st = np.ascontiguousarray(st, np.int64)
    out = _c.gather_fixed(data, st, np.ascontiguousarray(en, np.int64), int(width))
    return np.frombuffer(out, np.uint8).reshape(len(st), width)


def no_repeats(topic, docid, n_topics: int, n_docnos: int) -> int:
    """1 when every (topic, docid) pair occurs once and every topic's lines are contiguous, so
    the caller may skip its sort; 0 when there is a repeat or a topic comes back after another
    (the caller's sort then finds and names the repeats)."""
    return _c.no_repeats(np.ascontiguousarray(topic, np.int64),
                         np.ascontiguousarray(docid, np.int64), int(n_topics), int(n_docnos))
