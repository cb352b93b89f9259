"""Tie groups and the orderings of every tie regime.

A run's lines for the topics of the qrels are judged once (:func:`judge`) and then put in the
order each regime asks for. Every ordering is topic-major (qrels topic index ascending) so that all
rankings of one run share the same ``topic`` and ``rank`` arrays; only the per-position gains
differ.

Regimes (see ``../shared/spec/tie-aware-metrics.md`` §1):

===============  ==========================================================================
``file``         order of lines in the file, scores ignored
``trec_eval``    score descending, then docno descending by byte comparison (trec_eval's
                 ``comp_sim_docno``); rank column ignored
``realistic``    Cabanac et al. (2010): inside a tied group relevance ascending, then docno
                 descending (unjudged = -1, pooled-but-unjudged = -2, as trec_eval codes them)
``optimistic``   the same with relevance descending
``lower``        Yang, Moffat & Turpin (2016) pessimistic bound: gains ascending in each group
``upper``        optimistic bound: gains descending; for measures that only grow with a gain,
                 unjudged documents count as maximally relevant
``expected``     exact mean over all permutations inside tied groups (McSherry & Najork 2008)
===============  ==========================================================================
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .io import Qrels, Run

REGIMES = ("file", "trec_eval", "realistic", "optimistic", "lower", "upper", "expected")
DEFAULT_REGIMES = ("trec_eval", "expected", "lower", "upper")

NOT_IN_QRELS = -1  # trec_eval RELVALUE_NONPOOL
POOLED_UNJUDGED = -2  # trec_eval RELVALUE_UNJUDGED (negative value in the qrels)


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
    ok = np.flatnonzero(~np.isnan(rk))
    o = ok[np.lexsort((ok, rk[ok], t[ok]))]
    tr, rr, sr = t[o], rk[o], s[o]
    same = np.r_[False, tr[1:] == tr[:-1]]
    file_same = np.r_[False, t[1:] == t[:-1]]
    return {
        "contradictions": np.bincount(tr[same & np.r_[False, sr[1:] > sr[:-1]]], minlength=nt),
        "rank_ties": np.bincount(tr[same & np.r_[False, rr[1:] == rr[:-1]]], minlength=nt),
        "increasing": np.bincount(t[file_same & np.r_[False, s[1:] > s[:-1]]], minlength=nt),
    }


@dataclass
class Judged:
    """A run's lines for qrels topics, judged. All arrays have shape (n,) in file order.

    ``qtopic`` indexes the qrels topics; ``relkey`` is the qrels value for judged documents and
    -1 / -2 for unjudged ones (trec_eval's codes); ``grade`` is max(value, 0) for judged documents
    and 0 otherwise; ``judged`` marks documents with a qrels value >= 0.
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


def judge(run: Run, qrels: Qrels, score_precision: str = "float64") -> Judged:
    """Look up every run line in the qrels.

    Parameters
    ----------
    score_precision : {"float64", "float32"}
        ``float32`` rounds scores to single precision first, as trec_eval <= 9.0.8 and
        pytrec_eval do, so that more scores tie.
    """
    tindex = qrels.topic_index
    tmap = np.array([tindex.get(t, -1) for t in run.topics], dtype=np.int64)
    qt = tmap[run.topic] if len(run.topic) else np.zeros(0, np.int64)
    keep = qt >= 0
    missing = [t for t, j in zip(run.topics, tmap) if j < 0]
    sel = slice(None) if keep.all() else np.flatnonzero(keep)
    qt = qt[sel]
    docrank = run.docid[sel]
    # run docnos -> qrels docno ids (both arrays are sorted bytes)
    if len(qrels.docnos) and len(run.docnos):
        p = np.searchsorted(qrels.docnos, run.docnos)
        p[p == len(qrels.docnos)] = 0
        qd = np.where(qrels.docnos[p] == run.docnos, p, -1)[docrank]
    else:
        qd = np.full(len(docrank), -1)
    keys = np.where(qd >= 0, (qt << 32) | np.maximum(qd, 0), -1)
    pos = np.searchsorted(qrels.keys, keys)
    pos[pos == len(qrels.keys)] = 0
    found = (qrels.keys[pos] == keys) & (qd >= 0) if len(qrels.keys) else np.zeros(
        len(keys), bool)
    val = np.where(found, qrels.value[pos] if len(qrels.keys) else 0, NOT_IN_QRELS)
    judged = found & (val >= 0)
    relkey = np.where(found & (val < 0), POOLED_UNJUDGED, val)
    grade = np.where(judged, val, 0).astype(np.float64)
    score = run.score[sel]
    if score_precision == "float32":
        score = score.astype(np.float32).astype(np.float64)
    elif score_precision != "float64":
        raise ValueError("score_precision must be 'float64' or 'float32'")
    return Judged(
        len(qrels.topics), qt, score, relkey, grade, judged, docrank, run.lineno[sel],
        missing, int((~keep).sum()),
    )


@dataclass
class Orderings:
    """Permutations of a :class:`Judged` run's lines for each deterministic regime.

    Attributes
    ----------
    topic : ndarray int64 (n,)
        Qrels topic index of each position (non-decreasing).
    rank : ndarray int64 (n,)
        1-based rank of each position inside its topic.
    n_ret : ndarray int64 (n_topics,)
        Number of retrieved documents per topic.
    score_order : ndarray int64 (n,)
        Lines sorted by topic, then score descending (file order inside ties).
    group : ndarray int64 (n,)
        Tied-group id of each position of ``score_order`` (0..G-1, increasing).
    tied : ndarray int64
        Positions (in ``score_order``) that belong to a group of two or more documents.
    """

    J: Judged
    topic: np.ndarray
    rank: np.ndarray
    n_ret: np.ndarray
    starts: np.ndarray
    score_order: np.ndarray
    group: np.ndarray
    tied: np.ndarray
    _docrank: np.ndarray | None = None
    _cache: dict | None = None

    def _tied_docrank(self) -> np.ndarray:
        """Byte-order rank of the docnos at the tied positions (only those need it)."""
        if self._docrank is None:
            self._docrank = self.J.docrank[self.score_order[self.tied]]
        return self._docrank

    def _within_ties(self, *keys: np.ndarray) -> np.ndarray:
        """score_order with tied groups re-sorted by ``keys`` (last key primary), docno desc."""
        order = self.score_order.copy()
        if len(self.tied):
            perm = np.lexsort((-self._tied_docrank(), *keys, self.group[self.tied]))
            order[self.tied] = order[self.tied][perm]
        return order

    def order(self, regime: str) -> np.ndarray:
        """Permutation of the judged lines for ``file``, ``trec_eval``, ``realistic``,
        ``optimistic`` or ``upper_mono`` (optimistic with unjudged documents first)."""
        if self._cache is None:
            self._cache = {}
        o = self._cache.get(regime)
        if o is not None:
            return o
        J = self.J
        if regime == "file":
            o = np.argsort(J.qtopic, kind="stable")
        elif regime == "trec_eval":
            o = self._within_ties()
        else:
            rk = J.relkey[self.score_order[self.tied]]
            if regime == "realistic":
                o = self._within_ties(rk)
            elif regime == "optimistic":
                o = self._within_ties(-rk)
            elif regime == "upper_mono":
                o = self._within_ties(-np.where(rk < 0, np.iinfo(np.int64).max // 2, rk))
            else:
                raise ValueError(f"unknown ordering {regime!r}")
        self._cache[regime] = o
        return o


def orderings(J: Judged) -> Orderings:
    """Sort a judged run by topic and score and find its tied groups."""
    n = len(J.qtopic)
    so = np.lexsort((-J.score, J.qtopic))
    t = J.qtopic[so]
    s = J.score[so]
    new = np.ones(n, bool)
    if n > 1:
        new[1:] = (t[1:] != t[:-1]) | (s[1:] != s[:-1])
    group = np.cumsum(new) - 1
    size = np.bincount(group)
    tied = np.flatnonzero(size[group] > 1)
    starts = np.searchsorted(t, np.arange(J.n_topics))
    n_ret = np.bincount(t, minlength=J.n_topics)
    rank = np.arange(n) - starts[t] + 1 if n else np.zeros(0, np.int64)
    return Orderings(J, t, rank, n_ret, starts, so, group, tied)


@dataclass
class Ranking:
    """One ranking of every topic (a deterministic regime), the input of measure kernels.

    All per-position arrays have shape (n,) and are sorted by (topic, rank).

    ``grade`` is the qrels grade (0 for unjudged); ``judged`` marks judged documents;
    ``promoted`` marks unjudged documents that count as maximally relevant (only in the upper
    bound of monotone measures); ``gmax`` (n_topics,) is the largest grade of each topic.
    """

    n_topics: int
    topic: np.ndarray
    rank: np.ndarray
    n_ret: np.ndarray
    grade: np.ndarray
    judged: np.ndarray
    promoted: np.ndarray | None
    gmax: np.ndarray


def ranking(O: Orderings, regime: str, gmax: np.ndarray) -> Ranking:
    o = O.order(regime)
    J = O.J
    judged = J.judged[o]
    promoted = ~judged if regime == "upper_mono" else None
    return Ranking(J.n_topics, O.topic, O.rank, O.n_ret, J.grade[o], judged, promoted, gmax)


@dataclass
class Groups:
    """Tied groups of every topic, the input of the expected-value kernels.

    Per-position arrays (n,) follow ``score_order``: ``topic``, ``rank``, ``gid`` (group id),
    ``grade``, ``judged``. Per-group arrays (G,): ``g_topic``, ``g_first`` (first rank b_g),
    ``g_size`` (s_g). ``b`` and ``s`` repeat b_g and s_g per position.
    """

    n_topics: int
    topic: np.ndarray
    rank: np.ndarray
    n_ret: np.ndarray
    gid: np.ndarray
    grade: np.ndarray
    judged: np.ndarray
    g_topic: np.ndarray
    g_first: np.ndarray
    g_size: np.ndarray
    b: np.ndarray
    s: np.ndarray
    gmax: np.ndarray

    def gsum(self, x: np.ndarray) -> np.ndarray:
        """Sum of a per-position quantity over each group, float64 (G,)."""
        return np.bincount(self.gid, weights=x, minlength=len(self.g_size))

    def tsum(self, x: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
        """Sum of a per-position quantity over each topic, float64 (n_topics,)."""
        if where is None:
            return np.bincount(self.topic, weights=x, minlength=self.n_topics)
        return np.bincount(self.topic[where], weights=x[where], minlength=self.n_topics)

    def g_exclusive_cumsum(self, x: np.ndarray) -> np.ndarray:
        """For each group, the sum of ``x`` (G,) over the earlier groups of its topic."""
        c = np.cumsum(x) - x
        if not len(x):
            return c
        first = np.ones(len(x), bool)
        first[1:] = self.g_topic[1:] != self.g_topic[:-1]
        base = c[first]
        return c - base[np.cumsum(first) - 1]


def groups(O: Orderings, gmax: np.ndarray) -> Groups:
    J = O.J
    so = O.score_order
    gid = O.group
    G = int(gid[-1]) + 1 if len(gid) else 0
    first = np.flatnonzero(np.r_[True, gid[1:] != gid[:-1]]) if len(gid) else np.zeros(0, int)
    g_size = np.bincount(gid, minlength=G)
    g_first = O.rank[first]
    return Groups(
        J.n_topics, O.topic, O.rank, O.n_ret, gid, J.grade[so], J.judged[so],
        O.topic[first], g_first, g_size, g_first[gid], g_size[gid], gmax,
    )
