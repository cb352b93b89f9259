"""Per-topic loops of the ranking layer in C (:mod:`tiebreak._native._ext`), with the same results
as the numpy code beside each call (the definition and the fallback): used by
:func:`tiebreak.ranking.judged._compiled` whenever the extension is built. Arrays go in as
buffers (made contiguous in the dtype the C code reads) and come back as numpy arrays over
the bytearrays the C code fills."""

from __future__ import annotations

import numpy as np

from .._native import _ext as _c


def _i64(x) -> np.ndarray:
    return np.ascontiguousarray(x, np.int64)


def _f64(x) -> np.ndarray:
    return np.ascontiguousarray(x, np.float64)


def _arr(b) -> np.ndarray:
    return np.frombuffer(b, np.int64)


def seg_cumsum(x, topic) -> np.ndarray:
    """Inclusive cumulative sum of ``x`` (float64 (n,)) restarted where ``topic`` (int64 (n,),
    non-decreasing) changes, added left to right from 0 as a sequential loop adds it."""
    x = _f64(x)
    out = np.empty(len(x))
    _c.seg_cumsum(x, _i64(topic), out)
    return out


def hygiene(t, s, rk, nt):
    """:func:`tiebreak.ranking.run_hygiene`'s three counts (int64 (nt,) each): each topic's
    lines are put in rank-column order by a stable sort (file order for equal ranks) only when
    they are not in it already. (False, ...) when a rank is NaN or a topic's lines are not
    contiguous (the numpy code then handles the run)."""
    contra, ties, inc = (np.zeros(nt, np.int64) for _ in range(3))
    ok = _c.hygiene(_i64(t), _f64(s), _f64(rk), int(nt), contra, ties, inc)
    return ok, contra, ties, inc


def select(order, qtopic, relkey, tmap, n_eval, judged_only, max_docs, promote, promoted):
    """The positions of :func:`tiebreak.ranking._select` before its -c bogus documents:
    ``order`` (int64 (n,), lines) mapped to evaluated topics 0..n_eval-1 by ``tmap`` (-1: not
    evaluated), unjudged lines dropped when ``judged_only``, grouped by evaluated topic with
    the order kept inside each (a stable counting sort), 1-based ranks, ranks past
    ``max_docs`` (when >= 0) cut, unjudged codes set to ``promoted`` when ``promote``.
    Returns (lines, topic, rank, code), int64 (m,) each."""
    o, t, rank, code = _c.select(_i64(order), _i64(qtopic), _i64(relkey), _i64(tmap),
                                 int(n_eval), bool(judged_only), int(max_docs), bool(promote),
                                 int(promoted))
    return _arr(o), _arr(t), _arr(rank), _arr(code)


def match_sorted(a, b) -> np.ndarray:
    """For each row of ``a`` (uint32 (n, wa): text sorted ascending, one code point per column,
    zero-padded) the index of the equal row of ``b`` (uint32 (m, wb), sorted ascending,
    distinct), or -1: int64 (n,). A merge of the two sorted lists, so n + m comparisons."""
    a = np.ascontiguousarray(a, np.uint32)
    b = np.ascontiguousarray(b, np.uint32)
    out = np.full(a.shape[0], -1, np.int64)
    if a.shape[0] and b.shape[0] and a.shape[1] and b.shape[1]:
        _c.match_sorted(a, a.shape[1], b, b.shape[1], out)
    return out


def score_order(t0, s0, n_topics):
    """:func:`tiebreak.ranking.orderings`' sort and tied groups: lines (topic ``t0`` int64
    (n,), score ``s0`` float64 (n,)) sorted by topic, then score descending, file order inside
    equal scores (a counting sort by topic, then a stable merge sort of a topic's lines only
    when they are not in score order already). Returns (order, group, tied, starts, n_ret,
    rank): group ids (n,) increasing along the order, positions in groups of 2 or more,
    each topic's first position (n_topics,), its number of lines, 1-based ranks (n,)."""
    return tuple(map(_arr, _c.score_order(_i64(t0), _f64(s0), int(n_topics))))


def judge_dense(qt, docrank, doc_map, table, value):
    """The lookup of :func:`tiebreak.ranking.judged.judge` through the dense table of qrels
    rows (:func:`tiebreak.ranking.judged._dense_rows`), in C: (relkey int64, grade float64,
    judged bool, qrow int64), each (n,), as the numpy lookup computes them."""
    qt = _i64(qt)
    n = len(qt)
    table = np.ascontiguousarray(table)
    relkey, qrow = np.empty(n, np.int64), np.empty(n, np.int64)
    grade, judged = np.empty(n), np.empty(n, np.bool_)
    _c.judge_dense(qt, _i64(docrank), _i64(doc_map), table, table.dtype.itemsize,
                   table.shape[1] if table.ndim == 2 else 0, _i64(value), relkey, grade,
                   judged.view(np.uint8), qrow)
    return relkey, grade, judged, qrow
