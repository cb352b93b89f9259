"""Evaluated topics and the one ranking structure every measure reads (:class:`Ranking`),
expected and sampled rankings, and tie groups (:class:`Groups`).

Size: one module because the ranking structure, its tie groups and the regime orderings that build
it are read together by every measure.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..io import Qrels, Run
from .judged import NOT_IN_QRELS, Judged, _compiled, judge
from .orderings import Orderings, orderings

# ---------------------------------------------------------------------------------------------
# evaluated topics, and the one ranking structure
# ---------------------------------------------------------------------------------------------

PROMOTED = 1 << 40  # relevance code of an unjudged document promoted to maximally relevant


def qrels_levels(qrels: Qrels, topic_ids: np.ndarray) -> np.ndarray:
    """Counts of qrels documents per (evaluated topic, value >= 0): int64 (T, L) (the counts
    of every qrels topic are computed once per Qrels)."""
    full = qrels.__dict__.get("_levels")
    if full is None:
        full = qrels.__dict__["_levels"] = _qrels_levels(qrels)
    return full[topic_ids]


def _qrels_levels(qrels: Qrels) -> np.ndarray:
    v = qrels.value
    ok = v >= 0
    L = int(v[ok].max()) + 1 if ok.any() else 1
    if L * max(len(qrels.topics), 1) > 1 << 25:   # 256 MB of counts: a grade no scale uses
        from ..io import InputError

        raise InputError(f"{qrels.name}: relevance grade {L - 1} is too large: judgments are "
                         f"counted per grade 0..{L - 1} for each of {len(qrels.topics)} topics; "
                         "use a graded scale (e.g. 0-4) or map the grades first")
    full = np.zeros((len(qrels.topics), L), np.int64)
    np.add.at(full, (qrels.topic[ok], v[ok]), 1)
    return full


@dataclass
class Prepared:
    """A judged run restricted to the evaluated topics, before choosing an order.

    ``topic_ids`` (T,) are the qrels topic indices evaluated, in output order; ``bogus`` (T,)
    marks topics without results that are scored anyway (trec_eval ``-c``: one non-pooled
    document at rank 1); ``max_docs`` is trec_eval's ``-M``; ``judged_only`` its ``-J``.
    """

    J: Judged
    O: Orderings
    topic_ids: np.ndarray
    bogus: np.ndarray
    rel_levels: np.ndarray
    max_docs: int | None = None
    judged_only: bool = False
    shared: dict = field(default_factory=dict)  # qrels-side arrays shared by its rankings
    qrels: Qrels | None = None
    run_docnos: np.ndarray | None = None  # the run's docnos (J.docrank indexes them)


def prepare(run: Run, qrels: Qrels, topics=None, *, complete: bool = True,
            max_docs: int | None = None, judged_only: bool = False,
            score_precision: str = "float64") -> Prepared:
    """Judge ``run`` and choose the evaluated topics.

    Parameters
    ----------
    topics : sequence of str, optional
        Qrels topic ids to evaluate, in output order; default every qrels topic (in qrels
        order) when ``complete``, else those the run has.
    complete : bool
        Score qrels topics without results (trec_eval ``-c``).
    """
    J = judge(run, qrels, score_precision)
    O = orderings(J)
    has = O.n_ret > 0
    if topics is None:
        ids = np.arange(J.n_topics) if complete else np.flatnonzero(has)
    else:
        tindex = qrels.topic_index
        ids = np.array([tindex[q] for q in topics], np.int64)
    ids = np.asarray(ids, np.int64)
    bogus = ~has[ids] if len(ids) else np.zeros(0, bool)
    if not complete:
        ids, bogus = ids[~bogus], bogus[~bogus]
    return Prepared(J, O, ids, bogus, qrels_levels(qrels, ids), max_docs, judged_only,
                    qrels=qrels, run_docnos=run.docnos)


def _seg_positions(t: np.ndarray, T: int):
    starts = np.searchsorted(t, np.arange(T + 1))
    rank = np.arange(len(t)) - starts[t] + 1 if len(t) else np.zeros(0, np.int64)
    return starts, rank


def _positions(P: Prepared, cut: bool, depth: int | None = None):
    """The evaluated positions shared by every topic-major ordering of ``P.O``, or None when
    they depend on the ordering (-J drops unjudged lines) or a topic is evaluated twice:
    (index into the orderings' positions or None for all of them, evaluated topic, 1-based
    rank), with -M applied when ``cut``. Every ordering of
    :class:`~tiebreak.ranking.orderings.Orderings` puts the lines topic by topic, so the
    topic and rank of each position are the same in all of them (``Orderings.topic``,
    ``Orderings.rank``); only the line at each position differs. ``depth``: only the
    positions at ranks <= depth."""
    if P.judged_only:
        return None
    key = ("positions", cut, depth)
    v = P.shared.get(key)
    if v is not None:
        return v
    if depth is not None:
        whole = _positions(P, cut)
        if whole is None:
            return None
        sel, t, rank = whole
        k = np.flatnonzero(rank <= depth)
        v = P.shared[key] = (k if sel is None else sel[k], t[k], rank[k])
        return v
    ids = P.topic_ids
    O, J = P.O, P.J
    T = len(ids)
    if T > 1 and len(np.unique(ids)) < T:  # a topic evaluated twice
        return None
    limit = P.max_docs if cut and P.max_docs is not None else None
    if T == J.n_topics and bool(np.all(ids == np.arange(T))):  # every qrels topic, in order
        t, rank, sel = O.topic, O.rank, None
    else:  # each evaluated topic's positions are one run of the orderings' positions
        cnt = O.n_ret[ids]
        first = O.starts[ids]
        before = np.cumsum(cnt) - cnt
        sel = np.arange(int(cnt.sum())) + np.repeat(first - before, cnt)
        t = np.repeat(np.arange(T), cnt)
        rank = O.rank[sel]
    if limit is not None:
        k = np.flatnonzero(rank <= limit)
        sel = k if sel is None else sel[k]
        t, rank = t[k], rank[k]
    v = P.shared[key] = (sel, t, rank)
    return v


def _select(P: Prepared, order: np.ndarray, promote: bool = False, cut: bool = True,
            depth: int | None = None):
    """Positions of ``order`` (a topic-major ordering of ``P.O``) mapped to evaluated topics
    with -J and (``cut``) -M applied, plus the bogus documents of -c: (source line or -1,
    topic, 1-based rank, relevance code); ``depth``: only ranks <= depth."""
    J = P.J
    T = len(P.topic_ids)
    shared = _positions(P, cut, depth)
    if shared is not None:
        sel, t, rank = shared
        if sel is not None:
            order = order[sel]
        code = J.relkey[order]
        if promote:
            code = np.where(code < 0, PROMOTED, code)
    else:
        tmap = np.full(J.n_topics, -1, np.int64)
        tmap[P.topic_ids] = np.arange(T)
        fast = _compiled()
        limit = P.max_docs if cut and P.max_docs is not None else -1
        if fast is not None:
            order, t, rank, code = fast.select(order, J.qtopic, J.relkey, tmap, T,
                                               P.judged_only, limit, promote, PROMOTED)
        else:
            t = tmap[J.qtopic[order]]
            keep = t >= 0
            code = J.relkey[order]
            if P.judged_only:
                keep &= code >= 0
            order, t, code = order[keep], t[keep], code[keep]
            s = np.argsort(t, kind="stable")
            order, t, code = order[s], t[s], code[s]
            _, rank = _seg_positions(t, T)
            if limit >= 0:
                k = rank <= limit
                order, t, code, rank = order[k], t[k], code[k], rank[k]
            if promote:
                code = np.where(code < 0, PROMOTED, code)
        if depth is not None:
            k = rank <= depth
            order, t, code, rank = order[k], t[k], code[k], rank[k]
    if P.bogus.any():
        bt = np.flatnonzero(P.bogus)
        t = np.r_[t, bt]
        rank = np.r_[rank, np.ones(len(bt), np.int64)]
        code = np.r_[code, np.full(len(bt), NOT_IN_QRELS)]
        order = np.r_[order, np.full(len(bt), -1)]
        s = np.lexsort((rank, t))
        order, t, code, rank = order[s], t[s], code[s], rank[s]
    return order, t, rank, code


def _exact_whole(x: np.ndarray) -> bool:
    """Whole numbers whose every partial sum, in any order, is exact in float64 (the absolute
    values add up to at most 2**53)."""
    return bool(np.array_equal(x, np.rint(x)) and np.abs(x).sum() <= 2.0**53)


def exact_cumsum(x: np.ndarray, t: np.ndarray, rank: np.ndarray, starts: np.ndarray,
                 T: int) -> np.ndarray:
    """Inclusive cumulative sum of ``x`` restarted at each topic, added in rank order from 0
    exactly as a sequential loop would (so sums agree with trec_eval to the last bit)."""
    n = len(x)
    if not n:
        return np.zeros(0)
    L = int(rank.max())
    if T * L <= 4 * n + 4096:
        M = np.zeros((T, L))
        M[t, rank - 1] = x
        return np.cumsum(M, axis=1)[t, rank - 1]
    out = np.empty(n)
    for k in range(T):
        a, b = starts[k], starts[k + 1]
        if b > a:
            np.cumsum(x[a:b], out=out[a:b])
    return out


#: Entries of qrels-side arrays (gain tables, ideal lists per topic set) kept per Qrels.
QRELS_SIDE_KEEP = 256
#: ... and their bytes at most (a run evaluated a chunk of topics at a time leaves one entry
#: per chunk, reused only by a run chunked alike: memory bounded by the chunk, not the qrels)
QRELS_SIDE_BYTES = 4 << 20


@dataclass
class Ranking:
    """One ranking of every evaluated topic: the input of every measure kernel.

    Per-position arrays have shape (n,) and are sorted by (topic, rank); ranks are 1-based.

    Attributes
    ----------
    n_topics : int
        T, the evaluated topics.
    topic, rank : ndarray int64 (n,)
        Topic index (non-decreasing) and 1-based rank of each position.
    n_ret : ndarray int64 (T,)
        Retrieved documents per topic (after -J and -M; a -c bogus topic has 1).
    rel_levels : ndarray int64 (T, L)
        Qrels documents of each topic at relevance value 0..L-1.
    code : ndarray int64 (n,) or None
        Relevance code per position: the qrels value (>= 0) of a judged document, -1 not in the
        qrels, -2 pooled but unjudged (trec_eval's codes), :data:`PROMOTED` an unjudged
        document counted as maximally relevant (``upper`` of monotone measures). None for the
        fractional ranking of the ``expected`` regime, whose per-position quantities are means
        over the position's tied group (:meth:`per_position`).
    line : ndarray int64 (n,) or None
        Index of each position's line in the prepared run (``Prepared.J``; -1 for a -c bogus
        position): what measures that look a document up elsewhere (subtopics, a second
        qrels) use; None in the fractional ranking of ``expected``.
    prepared : Prepared or None
        The prepared run this ranking orders (its topic ``t`` is evaluated topic
        ``t % len(prepared.topic_ids)``: sampled rankings stack replicas).
    sparse : bool
        The positions of documents absent from the qrels (code -1) are left out; ranks keep
        their gaps and :meth:`at` finds the last position at or above a rank.
    depth : int or None
        Only the positions at ranks <= depth are held (:meth:`at` refuses deeper cutoffs).
    """

    n_topics: int
    topic: np.ndarray
    rank: np.ndarray
    n_ret: np.ndarray
    rel_levels: np.ndarray
    code: np.ndarray | None
    _mean: object = None  # expected: (codes, topics in score order, kept positions, group mean)
    _cache: dict = field(default_factory=dict)
    _shared: dict | None = None  # per Prepared: arrays that depend on the qrels side only
    line: np.ndarray | None = None
    prepared: Prepared | None = None
    sparse: bool = False
    depth: int | None = None

    # -- per-position quantities -----------------------------------------------------------
    def per_position(self, key, fn) -> np.ndarray:
        """``fn(code, topic) -> float64 (n,)`` at every position, memoised under ``key``; in a
        fractional ranking the value is averaged over the tied group (exact for measures that
        are linear in it)."""
        v = self._cache.get(key)
        if v is None:
            if self._mean is None:
                v = np.asarray(fn(self.code, self.topic), np.float64)
            else:
                code_full, t_full, keep, mean_of = self._mean
                v = mean_of(np.asarray(fn(code_full, t_full), np.float64))[keep]
            self._cache[key] = v
        return v

    def rel(self, level: int) -> np.ndarray:
        """Relevant indicator (qrels value >= level; promoted documents too), float64 (n,)."""
        lv = max(int(level), 0)
        return self.per_position(("rel", lv), lambda c, t: c >= lv if lv > 0 else c >= 0)

    def nonrel(self, level: int) -> np.ndarray:
        """Judged non-relevant indicator (0 <= value < level), float64 (n,)."""
        return self.per_position(("nonrel", level), lambda c, t: (c >= 0) & (c < level))

    @property
    def unjudged(self) -> np.ndarray:
        """Unjudged indicator (code < 0), float64 (n,)."""
        return self.per_position("unj", lambda c, t: c < 0)

    @property
    def judged(self) -> np.ndarray:
        """Judged indicator (code >= 0, promoted included), float64 (n,)."""
        return self.per_position("judged", lambda c, t: c >= 0)

    # -- per-topic qrels quantities ------------------------------------------------------------
    def num_rel(self, level: int) -> np.ndarray:
        """R: qrels documents with value >= level, int64 (T,)."""
        return self.rel_levels[:, max(int(level), 0):].sum(axis=1)

    def num_nonrel(self, level: int) -> np.ndarray:
        """Qrels documents judged non-relevant (0 <= value < level), int64 (T,)."""
        return self.rel_levels[:, :max(int(level), 0)].sum(axis=1)

    @property
    def num_rel_levels(self) -> np.ndarray:
        """trec_eval's num_rel_levels: 1 + the largest value with a qrels document (0 if none)."""
        L = self.rel_levels.shape[1]
        nz = self.rel_levels > 0
        last = L - np.argmax(nz[:, ::-1], axis=1)
        return np.where(nz.any(axis=1), last, 0)

    # -- sums ----------------------------------------------------------------------------------
    @property
    def starts(self) -> np.ndarray:
        """First position of each topic, int64 (T + 1,)."""
        s = self._cache.get("starts")
        if s is None:
            s = self._cache["starts"] = np.searchsorted(self.topic, np.arange(self.n_topics + 1))
        return s

    def cumsum(self, x: np.ndarray) -> np.ndarray:
        """Per-topic inclusive cumulative sum, added in rank order exactly as a sequential loop
        from 0 would add it (so sums agree with trec_eval to the last bit)."""
        x = np.asarray(x, np.float64)
        n = len(x)
        if not n:
            return np.zeros(0)
        fast = _compiled()
        if fast is not None:
            return fast.seg_cumsum(x, self.topic)
        if _exact_whole(x):
            # whole numbers: a global running sum minus the topic's offset is exact
            c = np.cumsum(x)
            st = self.starts[:-1]
            before = np.zeros(self.n_topics)
            has = st < n
            before[has] = c[st[has]] - x[st[has]]
            return c - before[self.topic]
        flat, shape = self._padded()
        if flat is None:
            out = np.empty(n)
            st = self.starts
            for k in range(self.n_topics):
                a, b = st[k], st[k + 1]
                if b > a:
                    np.cumsum(x[a:b], out=out[a:b])
            return out
        if isinstance(flat, str):  # every topic has the same number of positions: no padding
            return np.cumsum(x.reshape(shape), axis=1).reshape(-1)
        M = np.zeros(shape)
        M.flat[flat] = x
        np.cumsum(M, axis=1, out=M)
        return M.flat[flat]

    def _padded(self):
        """Flat indices of the positions in a (T, L) matrix, row t holding topic t's positions
        in order from column 0 (L the most positions of a topic), or ``("dense", (T, L))``
        when every topic has L positions, or (None, None) when that matrix would be much
        larger than the ranking."""
        v = self._cache.get("_padded")
        if v is None:
            n, T = len(self.rank), self.n_topics
            st = self.starts
            L = int(np.diff(st).max(initial=1)) if T else 1
            if T * L == n:
                v = ("dense", (T, L))
            elif T * L <= 4 * n + 4096:
                v = (np.arange(n) + (self.topic * L - st[self.topic]), (T, L))
            else:
                v = (None, None)
            self._cache["_padded"] = v
        return v

    def suffix_max(self, x: np.ndarray) -> np.ndarray:
        """Per-topic maximum of ``x`` over the positions at or below each rank, float64 (n,)."""
        n, T = len(x), self.n_topics
        if not n:
            return np.zeros(0)
        flat, shape = self._padded()
        if isinstance(flat, str):
            M = np.asarray(x, np.float64).reshape(shape)
            return np.maximum.accumulate(M[:, ::-1], axis=1)[:, ::-1].reshape(-1)
        if flat is not None:
            M = np.full(shape, -np.inf)
            M.flat[flat] = x
            return np.maximum.accumulate(M[:, ::-1], axis=1)[:, ::-1].reshape(-1)[flat]
        out = np.empty(n)
        st = self.starts
        for k in range(T):
            a, b = st[k], st[k + 1]
            if b > a:
                out[a:b] = np.maximum.accumulate(x[a:b][::-1])[::-1]
        return out

    def at(self, cum: np.ndarray, k) -> np.ndarray:
        """A per-topic cumulative sum after the first ``k`` ranks (scalar or (T,)); 0 where a
        topic has no position inside."""
        m = np.minimum(k, self.n_ret)
        if self.depth is not None and np.any(m > self.depth):
            raise ValueError(f"this ranking holds the top {self.depth} ranks only")
        st = self.starts[:-1]
        if self.sparse:  # the last position at rank <= m (documents absent from the qrels
            # have no position: a cumulative sum of what they lack holds there)
            keys, base = self._rank_key()
            idx = np.searchsorted(keys, base + m, side="right") - 1
            ok = (m > 0) & (idx >= st)
        else:
            idx = st + m - 1
            ok = m > 0
        out = np.zeros(self.n_topics)
        out[ok] = cum[idx[ok]]
        return out

    def _rank_key(self):
        """(topic * W + rank of every position, sorted; topic * W of every topic), W above
        every rank."""
        v = self._cache.get("rank_key")
        if v is None:
            W = int(self.n_ret.max(initial=0)) + 1
            v = self._cache["rank_key"] = (self.topic * W + self.rank,
                                           np.arange(self.n_topics) * W)
        return v

    def tsum(self, x: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
        """Per-topic sum of a per-position array in rank order, float64 (T,): added one by one
        from 0.0 in position order, as trec_eval's loops add (numpy's bincount with weights is
        that loop)."""
        from ._flat import tsum

        return tsum(self.topic, np.asarray(x, np.float64), self.n_topics, where)

    def cached(self, key, fn):
        """Memoise a derived array of this ranking (cumulative sums, gains)."""
        v = self._cache.get(key)
        if v is None:
            v = self._cache[key] = fn()
        return v

    def qrels_cached(self, key, fn):
        """Memoise an array that depends on the qrels side only (gain tables, ideal lists):
        shared by every ranking of every run evaluated on the same qrels and topics (kept on
        the Qrels object, at most :data:`QRELS_SIDE_KEEP` entries and
        :data:`QRELS_SIDE_BYTES` bytes, the oldest dropped first; one larger entry is kept
        alone)."""
        P = self.prepared
        if P is not None and P.qrels is not None:
            d = P.qrels.__dict__
            c = d.setdefault("_qrels_side", {})
            key = (key, self.n_topics, P.topic_ids.tobytes())
            v = c.get(key)
            if v is None:
                v = fn()
                sizes = d.setdefault("_qrels_side_bytes", {})
                size = sum(getattr(x, "nbytes", 0) for x in (v if isinstance(v, tuple)
                                                             else (v,)))
                while c and (len(c) >= QRELS_SIDE_KEEP
                             or sum(sizes.values()) + size > QRELS_SIDE_BYTES):
                    old = next(iter(c))  # the oldest entry first
                    del c[old]
                    sizes.pop(old, None)
                c[key] = v
                sizes[key] = size
            return v
        c = self._cache if self._shared is None else self._shared
        key = (key, self.n_topics)
        v = c.get(key)
        if v is None:
            v = c[key] = fn()
        return v

    @property
    def fractional(self) -> bool:
        return self._mean is not None


def ranking(P: Prepared, order: str, sparse: bool = False, depth: int | None = None
            ) -> Ranking:
    """The ranking of every evaluated topic under a deterministic ordering (``file``,
    ``trec_eval``, ``realistic``, ``optimistic`` or ``upper_mono``).

    Two reductions for the kernels that allow them (ranks and ``n_ret`` stay those of the
    whole ranking, so the values do not change): ``sparse`` leaves out the positions of
    documents absent from the qrels (code -1; :data:`tiebreak.measures.kernels.SPARSE_SAFE`):
    a run retrieves far more documents than the qrels judge; ``depth`` keeps only the ranks
    <= depth (:data:`tiebreak.measures.kernels.DEPTH_SAFE`, measures at a cutoff <= depth)."""
    promote = order == "upper_mono"
    o, t, rank, code = _select(P, P.O.order(order), promote=promote, depth=depth)
    T = len(P.topic_ids)
    if depth is not None or _positions(P, True) is not None:
        n_ret = _n_ret(P, order)
    else:
        n_ret = np.bincount(t, minlength=T)
    if sparse:
        out = code == NOT_IN_QRELS
        if out.any():  # (under upper_mono only -c topics' documents are left out)
            keep = np.flatnonzero(~out)
            o, t, rank, code = o[keep], t[keep], rank[keep], code[keep]
    return Ranking(T, t, rank, n_ret, P.rel_levels, code,
                   _shared=P.shared, line=o, prepared=P, sparse=sparse, depth=depth)


def _n_ret(P: Prepared, order: str) -> np.ndarray:
    """Documents retrieved per evaluated topic under ``order`` (-J and -M applied, a -c bogus
    topic 1): the same in every ordering unless -J drops lines."""
    v = P.shared.get(("n_ret", order if P.judged_only else None))
    if v is None:
        T = len(P.topic_ids)
        if P.judged_only:
            t = _select(P, P.O.order(order), promote=order == "upper_mono")[1]
            v = np.bincount(t, minlength=T)
        else:
            v = _positions(P, True)
            if v is None:  # topics not in qrels order
                v = np.bincount(_select(P, P.O.score_order)[1], minlength=T)
            else:
                v = np.bincount(v[1], minlength=T)
                v[P.bogus] = 1
        P.shared[("n_ret", order if P.judged_only else None)] = v
    return v


def _score_positions(P: Prepared):
    """Evaluated positions in score order (-J applied, -M not) and a tied-group label per
    position (a bogus -c position is a group of its own): (t, rank, code, gid)."""
    v = P.shared.get("score_positions")
    if v is not None:
        return v
    O = P.O
    order, t, rank, code = _select(P, O.score_order, cut=False)
    shared = _positions(P, False)
    if shared is not None and not P.bogus.any():
        # the positions are those of the score order itself: their groups are O.group's
        sel = shared[0]
        gid = O.group if sel is None else O.group[sel]
        P.shared["group_labels"] = gid  # non-decreasing, one label per group
    else:
        lab = np.full(len(P.J.qtopic), -1, np.int64)
        lab[O.score_order] = O.group
        gid = np.where(order >= 0, lab[np.maximum(order, 0)], -2 - np.arange(len(order)))
    v = P.shared["score_positions"] = (t, rank, code, gid)
    P.shared["score_lines"] = order
    return v


def _group_labels(P: Prepared) -> np.ndarray:
    """Tied-group labels of the score-order positions (:func:`_score_positions`): integers
    >= 0, equal exactly within a group, at most the number of the run's lines."""
    gid = _score_positions(P)[3]
    v = P.shared.get("group_labels")
    if v is None:
        if len(gid) > 1 and bool(np.all(gid[1:] >= gid[:-1])):
            v = np.cumsum(np.r_[True, gid[1:] != gid[:-1]]) - 1
        else:  # -c bogus positions carry labels of their own, out of order
            v = np.unique(gid, return_inverse=True)[1].reshape(-1)
        P.shared["group_labels"] = v
    return v


def expected_ranking(P: Prepared, sparse: bool = False, depth: int | None = None) -> Ranking:
    """The fractional ranking of the ``expected`` regime: every per-position quantity is its
    mean over the position's tied group, taken *before* -M truncation, so a group cut by -M
    still contributes its exact expected share to the ranks inside the cut.

    ``sparse`` and ``depth`` as in :func:`ranking`: ``sparse`` leaves out the tied groups made
    only of documents absent from the qrels (every quantity a sparse-safe kernel reads is 0
    there), ``depth`` keeps the ranks <= depth (means still over whole groups)."""
    t_full, rank_full, code_full, _ = _score_positions(P)
    ginv = _group_labels(P)
    limit = P.max_docs
    if depth is not None:
        limit = depth if limit is None else min(limit, depth)
    if sparse or depth is not None:  # only the groups that hold a kept position
        G = int(ginv.max(initial=-1)) + 1
        want = np.ones(G, bool)
        if sparse:
            want = np.zeros(G, bool)
            want[ginv[code_full != NOT_IN_QRELS]] = True
        if depth is not None:
            top = np.zeros(G, bool)
            top[ginv[rank_full <= limit]] = True
            want &= top
        sub = np.flatnonzero(want[ginv])
        t_full, rank_full, code_full, ginv = (t_full[sub], rank_full[sub], code_full[sub],
                                              ginv[sub])
    gsize = np.bincount(ginv)
    # only the positions of tied groups change: a group of one is its own mean (0.0 + x, as
    # a sum from 0.0 gives it)
    tpos = np.flatnonzero(gsize[ginv] > 1)
    _, tl = np.unique(ginv[tpos], return_inverse=True)
    tsize = np.bincount(tl).astype(np.float64)

    def mean_of(x):
        v = x + 0.0
        if len(tpos):
            v[tpos] = (np.bincount(tl, weights=x[tpos], minlength=len(tsize)) / tsize)[tl]
        return v

    keep = slice(None) if limit is None else np.flatnonzero(rank_full <= limit)
    t, rank = t_full[keep], rank_full[keep]
    T = len(P.topic_ids)
    return Ranking(T, t, rank, _n_ret(P, "trec_eval"), P.rel_levels, None,
                   (code_full, t_full, keep, mean_of), _shared=P.shared, prepared=P,
                   sparse=sparse, depth=depth)


def topic_generators(P: Prepared, seed: int) -> list:
    """One random generator per evaluated topic that holds a tied group (None for the others):
    numpy's default generator seeded from ``seed`` and the topic id's bytes (BLAKE2b), so a
    topic's random orderings depend on the seed and the topic alone, not on which other topics
    are evaluated with it, in which order or in which chunk.

    Raises ValueError for a negative ``seed`` (as ``numpy.random.default_rng``)."""
    import hashlib

    t0, _, _, gid = _score_positions(P)
    T = len(P.topic_ids)
    o = np.lexsort((gid, t0))
    g = gid[o]
    tied = np.zeros(T, bool)
    tied[t0[o][1:][g[1:] == g[:-1]]] = True
    names = P.qrels.topics if P.qrels is not None else None
    out: list = [None] * T
    for t in np.flatnonzero(tied).tolist():
        q = int(P.topic_ids[t])
        key = (names[q] if names is not None else str(q)).encode("utf-8", "surrogateescape")
        h = int.from_bytes(hashlib.blake2b(key, digest_size=16).digest(), "little")
        out[t] = np.random.default_rng(np.random.SeedSequence([int(seed), h]))
    return out


def _topic_keys(P: Prepared, n_samples: int, gens: list) -> np.ndarray:
    """Random sort keys (n_samples, n) for the score-order positions: row s holds sample s's
    keys; each tied topic's keys are drawn from its own generator, sample after sample, in the
    topic's score order (untied topics' keys are 0: they order nothing)."""
    t0 = _score_positions(P)[0]
    K = np.zeros((n_samples, len(t0)))
    o = np.argsort(t0, kind="stable")
    starts = np.searchsorted(t0[o], np.arange(len(gens) + 1))
    for t, g in enumerate(gens):
        if g is not None:
            pos = o[starts[t]:starts[t + 1]]
            K[:, pos] = g.random((n_samples, len(pos)))
    return K


def sampled_ranking(P: Prepared, n_samples: int, seed) -> Ranking:
    """``n_samples`` seeded random within-group orderings of every topic, stacked as
    ``n_samples * T`` topics (replica s of topic t is topic ``s * T + t``).

    ``seed``: an int (each topic's orderings from its own generator, :func:`topic_generators`),
    the list :func:`topic_generators` returned (to continue those streams over several calls),
    or a numpy Generator (one stream over all topics; the result then depends on which topics
    are evaluated together)."""
    t0, rank0, code0, gid = _score_positions(P)
    lines0 = P.shared["score_lines"]
    T = len(P.topic_ids)
    if isinstance(seed, np.random.Generator):
        keys = (seed.random(len(t0)) for _ in range(n_samples))
    else:
        gens = seed if isinstance(seed, list) else topic_generators(P, seed)
        keys = iter(_topic_keys(P, n_samples, gens))
    ts, rs, cs, ls = [], [], [], []
    for s in range(n_samples):
        perm = np.lexsort((next(keys), gid, t0))
        c, t, r = code0[perm], t0 + s * T, rank0
        ln = lines0[perm]
        if P.max_docs is not None:
            k = r <= P.max_docs
            c, t, r = c[k], t[k], r[k]
            ln = ln[k]
        ts.append(t)
        rs.append(r)
        cs.append(c)
        ls.append(ln)
    t = np.concatenate(ts) if ts else np.zeros(0, np.int64)
    TT = T * n_samples
    line = np.concatenate(ls) if ls else t.copy()
    return Ranking(TT, t, np.concatenate(rs) if rs else t.copy(),
                   np.bincount(t, minlength=TT), np.tile(P.rel_levels, (n_samples, 1)),
                   np.concatenate(cs) if cs else t.copy(), line=line, prepared=P)


@dataclass
class Groups:
    """Tied groups of every evaluated topic: the input of the closed-form expectations.

    Per-position arrays (n,) follow score order (-J applied, -M not): ``topic``, ``rank``,
    ``gid`` (group id, increasing), ``code`` (relevance code). Per-group arrays (G,):
    ``g_topic``, ``g_first`` (first rank b_g), ``g_size`` (s_g). ``b`` and ``s`` repeat b_g and
    s_g per position. ``rel_levels`` (T, L) as in :class:`Ranking`.
    """

    n_topics: int
    topic: np.ndarray
    rank: np.ndarray
    n_ret: np.ndarray
    gid: np.ndarray
    code: np.ndarray
    g_topic: np.ndarray
    g_first: np.ndarray
    g_size: np.ndarray
    b: np.ndarray
    s: np.ndarray
    rel_levels: np.ndarray

    def rel(self, level: int) -> np.ndarray:
        """Relevant indicator, bool (n,)."""
        lv = max(int(level), 0)
        return self.code >= lv if lv > 0 else self.code >= 0

    @property
    def judged(self) -> np.ndarray:
        return self.code >= 0

    def gsum(self, x: np.ndarray) -> np.ndarray:
        """Sum of a per-position quantity over each group, float64 (G,)."""
        return np.bincount(self.gid, weights=x, minlength=len(self.g_size))

    def tsum(self, x: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
        """Sum of a per-position quantity over each topic, float64 (n_topics,)."""
        from ._flat import tsum

        return tsum(self.topic, x, self.n_topics, where)

    def g_exclusive_cumsum(self, x: np.ndarray) -> np.ndarray:
        """For each group, the sum of ``x`` (G,) over the earlier groups of its topic."""
        c = np.cumsum(x) - x
        if not len(x):
            return c
        first = np.ones(len(x), bool)
        first[1:] = self.g_topic[1:] != self.g_topic[:-1]
        base = c[first]
        return c - base[np.cumsum(first) - 1]


def groups(P: Prepared, sparse: bool = False) -> Groups:
    """Tied groups over the evaluated topics (score order, -J applied, -M not applied);
    ``sparse``: without the groups made only of documents absent from the qrels (for the
    closed forms that read nothing from them, :data:`tiebreak.measures.kernels.SPARSE_SAFE`;
    ``n_ret`` stays the whole count)."""
    t, rank, code, gid = _score_positions(P)
    T = len(P.topic_ids)
    n_ret = np.diff(np.searchsorted(t, np.arange(T + 1)))  # t is sorted
    if sparse and len(gid):
        g = _group_labels(P)
        want = np.zeros(int(g.max()) + 1, bool)
        want[g[code != NOT_IN_QRELS]] = True
        k = np.flatnonzero(want[g])
        t, rank, code, gid = t[k], rank[k], code[k], g[k]
    new = np.ones(len(gid), bool)
    if len(gid) > 1:
        new[1:] = (gid[1:] != gid[:-1]) | (t[1:] != t[:-1])
    g = np.cumsum(new) - 1
    G_n = int(g[-1]) + 1 if len(g) else 0
    first = np.flatnonzero(new)
    g_size = np.bincount(g, minlength=G_n)
    g_first = rank[first]
    return Groups(T, t, rank, n_ret, g, code, t[first], g_first,
                  g_size, g_first[g], g_size[g], P.rel_levels)
