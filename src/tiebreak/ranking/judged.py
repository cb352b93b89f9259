"""Judging a run against the qrels: run hygiene, relevance lookup by docno, and the judged
lines of a run (:class:`Judged`) that every ordering starts from."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._native import ext
from ..io import Qrels, Run

NOT_IN_QRELS = -1  # trec_eval RELVALUE_NONPOOL
POOLED_UNJUDGED = -2  # trec_eval RELVALUE_UNJUDGED (negative value in the qrels)


def _compiled():
    """The compiled loops (:mod:`tiebreak.ranking._cloops`, in C) when the extension
    :mod:`tiebreak._native._ext` is built and not turned off, else None: the numpy code beside
    each call is the definition and the fallback."""
    if ext() is not None:
        from . import _cloops

        return _cloops
    return None


def run_hygiene(run: Run) -> dict[str, np.ndarray]:
    """Per-topic counts (int64, shape (n_run_topics,)) of three file-hygiene problems.

    * ``contradictions``: lines put in rank-column order within a topic (file order for equal
      ranks, non-numeric ranks left out) where the score goes up from one line to the next
      (the definition of ``../shared/data/tie_stats_per_run.tsv``);
    * ``rank_ties``: in that order, lines whose rank equals the previous line's;
    * ``increasing``: adjacent lines of a topic, in file order, whose score goes up.
    """
    nt = len(run.topics)
    if not len(run):  # a run without result lines
        return {k: np.zeros(nt, np.int64) for k in ("contradictions", "rank_ties", "increasing")}
    t, s, rk = run.topic, run.score, run.rank
    fast = _compiled()
    if fast is not None:
        ok, contra, ties, inc = fast.hygiene(t, s, rk, nt)
        if ok:
            return {"contradictions": contra, "rank_ties": ties, "increasing": inc}
    same_file = t[1:] == t[:-1]
    dt = t[1:] - t[:-1]
    if not np.isnan(rk).any() and bool(np.all((dt > 0) | (same_file & (rk[1:] >= rk[:-1])))):
        tr, rr, sr, same = t, rk, s, same_file  # already in rank-column order per topic
    else:
        ok = np.flatnonzero(~np.isnan(rk))
        o = ok[np.lexsort((ok, rk[ok], t[ok]))]
        tr, rr, sr = t[o], rk[o], s[o]
        same = tr[1:] == tr[:-1]
    nxt = tr[1:]
    return {
        "contradictions": np.bincount(nxt[same & (sr[1:] > sr[:-1])], minlength=nt),
        "rank_ties": np.bincount(nxt[same & (rr[1:] == rr[:-1])], minlength=nt),
        "increasing": np.bincount(t[1:][same_file & (s[1:] > s[:-1])], minlength=nt),
    }


@dataclass
class Judged:
    """A run's lines for qrels topics, judged. All arrays have shape (n,) in file order.

    ``qtopic`` indexes the qrels topics; ``relkey`` is the qrels value for judged documents and
    -1 / -2 for unjudged ones (trec_eval's codes); ``grade`` is max(value, 0) for judged documents
    and 0 otherwise; ``judged`` marks documents with a qrels value >= 0; ``qrow`` is the index of
    the line's judgment in the qrels arrays (-1 when the qrels do not hold the docno).
    """

    n_topics: int
    qtopic: np.ndarray
    score: np.ndarray
    relkey: np.ndarray
    grade: np.ndarray
    judged: np.ndarray
    docrank: np.ndarray
    lineno: np.ndarray
    run_topics_missing_in_qrels: list[str]
    lines_missing_in_qrels: int
    qrow: np.ndarray | None = None
    runrank: np.ndarray | None = None  # the run's rank column (the ``score-rank`` ordering)
    #: what rounding the scores to the score format reported (:func:`.formats.round_scores`)
    format_warnings: dict | None = None


def lookup(qrels: Qrels, qtopic: np.ndarray, docnos: np.ndarray, docrank: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray]:
    """Find run lines in qrels.

    Parameters
    ----------
    qrels : Qrels
    qtopic : ndarray int64 (n,)
        Index into ``qrels.topics`` of each line's topic (-1: a topic the qrels lack).
    docnos : ndarray str (d,)
        The run's distinct docnos in byte order (``Run.docnos``).
    docrank : ndarray int64 (n,)
        Index into ``docnos`` of each line's docno.

    Returns
    -------
    found : ndarray bool (n,)
        The qrels judge the line's (topic, docno).
    pos : ndarray int64 (n,)
        Index of that judgment in the qrels arrays (meaningful where ``found``).
    """
    dm = _doc_map(qrels, docnos)
    qd = dm[docrank] if dm is not None else np.full(len(docrank), -1)
    qd = np.where(qtopic >= 0, qd, -1)
    table = _dense_rows(qrels)
    if table is not None:  # one gather from a (topic, docno) table built once per qrels
        pos = table[np.maximum(qtopic, 0), np.maximum(qd, 0)].astype(np.int64)
        found = (pos >= 0) & (qd >= 0)
        return found, np.maximum(pos, 0)
    keys = np.where(qd >= 0, (qtopic << 32) | np.maximum(qd, 0), -1)
    pos = np.searchsorted(qrels.keys, keys)
    pos[pos == len(qrels.keys)] = 0
    found = (qrels.keys[pos] == keys) & (qd >= 0) if len(qrels.keys) else np.zeros(
        len(keys), bool)
    return found, pos


def _doc_map(qrels: Qrels, docnos: np.ndarray) -> np.ndarray | None:
    """The qrels docno id of each of the run's distinct ``docnos`` (both sorted by bytes), -1
    where the qrels lack it: int64 (d,); None when either list is empty."""
    fast = _compiled()
    if (fast is not None and len(qrels.docnos) and 0 < len(docnos)
            and len(qrels.docnos) <= 16 * len(docnos)
            and docnos.dtype.kind == "U" and qrels.docnos.dtype.kind == "U"):
        # a compiled merge of the two sorted lists instead of a binary search per docno
        return fast.match_sorted(_code_points(docnos), _code_points(qrels.docnos))
    if len(qrels.docnos) and len(docnos):
        p = np.searchsorted(qrels.docnos, docnos)
        p[p == len(qrels.docnos)] = 0
        return np.where(qrels.docnos[p] == docnos, p, -1)
    return None


def _code_points(u: np.ndarray) -> np.ndarray:
    """A ``U`` text array as its code points, uint32 (n, width), zero-padded."""
    w = u.dtype.itemsize // 4
    return np.ascontiguousarray(u).view(np.uint32).reshape(len(u), w)


#: Largest size in bytes of the dense (topic, judged docno) table of qrels rows that
#: :func:`lookup` keeps per qrels; larger qrels use a binary search per line.
DENSE_QRELS_MAX = 1 << 25


def _dense_rows(qrels: Qrels):
    """The index in the qrels arrays of every (topic, docno id) pair, -1 where the qrels do not
    judge it, in the smallest signed integer type that holds the indices: ndarray (T, D); None
    when it would exceed :data:`DENSE_QRELS_MAX` bytes. Built once per Qrels."""
    got = qrels.__dict__.get("_dense")
    if got is not None:
        return got if len(got) else None
    T, D, m = len(qrels.topics), len(qrels.docnos), len(qrels.keys)
    out = np.zeros(0, np.int8)
    dt = next(t for t in (np.int8, np.int16, np.int32, np.int64) if m <= np.iinfo(t).max)
    if 0 < T * D * np.dtype(dt).itemsize <= DENSE_QRELS_MAX:
        out = np.full((T, D), -1, dt)
        out[qrels.topic, qrels.docid] = np.arange(m, dtype=dt)
    qrels.__dict__["_dense"] = out
    return out if len(out) else None


def judge(run: Run, qrels: Qrels, score_precision: str = "float64") -> Judged:
    """Look up every run line in the qrels.

    Parameters
    ----------
    score_precision : str or ScoreFormat
        A score format (:mod:`tiebreak.ranking.formats`: ``float64``, ``float32``, ``float16``,
        ``bfloat16``, ``int8``, ``int8-global``, ``bits:K``, ``decimals:D``): the run's scores
        are rounded as it stores them before anything is ordered, so that more scores tie
        (``float32``: as trec_eval <= 9.0.8 and pytrec_eval read them). The scale of
        ``int8-global`` is that of the whole run. What the rounding reports (overflow, NaN,
        topics merged into one score) is ``Judged.format_warnings``.

    Raises
    ------
    ValueError
        ``score_precision`` names no score format.
    """
    from .formats import parse_format, round_scores

    fmt = parse_format(score_precision)
    tindex = qrels.topic_index
    tmap = np.array([tindex.get(t, -1) for t in run.topics], dtype=np.int64)
    qt = tmap[run.topic] if len(run.topic) else np.zeros(0, np.int64)
    keep = qt >= 0
    missing = [t for t, j in zip(run.topics, tmap) if j < 0]
    sel = slice(None) if keep.all() else np.flatnonzero(keep)
    qt = qt[sel]
    docrank = run.docid[sel]
    fast = _compiled()
    table = _dense_rows(qrels) if hasattr(fast, "judge_dense") and len(qt) else None
    dm = _doc_map(qrels, run.docnos) if table is not None else None
    if dm is not None:  # the lookup below in one compiled pass
        relkey, grade, judged, qrow = fast.judge_dense(qt, docrank, dm, table, qrels.value)
    else:
        found, pos = lookup(qrels, qt, run.docnos, docrank)
        val = np.where(found, qrels.value[pos] if len(qrels.keys) else 0, NOT_IN_QRELS)
        judged = found & (val >= 0)
        relkey = np.where(found & (val < 0), POOLED_UNJUDGED, val)
        grade = np.where(judged, val, 0).astype(np.float64)
        qrow = np.where(found, pos, -1)
    score, fwarn = round_scores(run.score, fmt, run.topic, len(run.topics))
    return Judged(
        len(qrels.topics), qt, score[sel], relkey, grade, judged, docrank, run.lineno[sel],
        missing, int((~keep).sum()), qrow, run.rank[sel], fwarn,
    )
