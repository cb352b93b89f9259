"""Ranked relevance lists of every evaluated topic: trec_eval's ``res_rels``, for any tie regime.

A :class:`Ranked` holds one ranking per topic as flat arrays sorted by (topic, rank), the input
of the measure kernels in :mod:`tiebreak.trec_eval.measures`. Relevance codes follow trec_eval
10.0 (``form_res_rels.c``): the qrels value (>= 0) for judged documents, -1 for documents not in
the qrels (not pooled) and -2 for qrels entries with a negative value (pooled but unjudged).

The deterministic regimes fill ``code``; the ``expected`` regime builds a *fractional* ranking
(:func:`expected_ranked`) in which every per-position indicator (relevant, judged non-relevant,
unjudged, gain) is replaced by its mean over the position's tied group. A measure that is linear
in those indicators (precision, recall, DCG, RBP, utility, ...) then evaluates to its exact
expectation over all within-group orderings (McSherry & Najork 2008); measures that are not
linear are computed by the closed forms of :mod:`tiebreak.measures.kernels` or by seeded sampling
(:func:`sampled_ranked`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..ranking import Groups, Judged, Orderings

NONPOOL = -1
UNJUDGED = -2


@dataclass
class Ranked:
    """Rankings of T topics (one deterministic ordering each, or the fractional expectation).

    Attributes
    ----------
    n_topics : int
        T, the number of evaluated topics (output order is decided by the caller).
    t : ndarray int64 (n,)
        Topic index of each position; non-decreasing.
    i : ndarray int64 (n,)
        0-based rank of each position inside its topic.
    num_ret : ndarray int64 (T,)
        Retrieved documents per topic (after -J and -M).
    rel_levels : ndarray int64 (T, L)
        Number of qrels documents of each topic at relevance value 0..L-1.
    level : int
        trec_eval's relevance level (-l): relevant means value >= level.
    code : ndarray int64 (n,) or None
        Relevance code per position (None for a fractional ranking).
    rel, nonrel, unj : ndarray float64 (n,)
        Indicators: relevant; judged non-relevant (0 <= value < level); unjudged (code < 0).
        Fractional in an expected ranking.
    """

    n_topics: int
    t: np.ndarray
    i: np.ndarray
    num_ret: np.ndarray
    rel_levels: np.ndarray
    level: int
    code: np.ndarray | None
    rel: np.ndarray
    nonrel: np.ndarray
    unj: np.ndarray
    _gain_cache: dict = field(default_factory=dict)
    _full: tuple | None = None  # expected: (codes, topics before -M, kept positions, group mean)

    # -- per-topic qrels statistics --------------------------------------------------------
    @property
    def num_rel(self) -> np.ndarray:
        return self.rel_levels[:, self.level:].sum(axis=1) if self.level >= 0 else \
            self.rel_levels.sum(axis=1)

    @property
    def num_judged_nonrel(self) -> np.ndarray:
        """Qrels documents judged non-relevant (0 <= value < level)."""
        return self.rel_levels[:, :max(self.level, 0)].sum(axis=1)

    @property
    def num_rel_levels(self) -> np.ndarray:
        """trec_eval's num_rel_levels: 1 + the largest value with a qrels document (0 if none)."""
        L = self.rel_levels.shape[1]
        nz = self.rel_levels > 0
        last = L - np.argmax(nz[:, ::-1], axis=1)
        return np.where(nz.any(axis=1), last, 0)

    # -- helpers -------------------------------------------------------------------------------
    def cumsum(self, x: np.ndarray) -> np.ndarray:
        """Inclusive cumulative sum of x restarted at each topic."""
        c = np.cumsum(x)
        if not len(x):
            return c
        starts = self.starts
        before = np.r_[0.0, c][starts[:-1]]
        return c - before[self.t]

    @property
    def starts(self) -> np.ndarray:
        s = getattr(self, "_starts", None)
        if s is None:
            s = np.searchsorted(self.t, np.arange(self.n_topics + 1))
            self._starts = s
        return s

    def at(self, cum: np.ndarray, k) -> np.ndarray:
        """Per-topic value of an inclusive per-topic cumulative sum ``cum`` (n,) after the
        first ``k`` ranks (k scalar or (T,)); 0 for topics with no position inside."""
        m = np.minimum(k, self.num_ret)
        idx = self.starts[:-1] + m - 1
        ok = m > 0
        out = np.zeros(self.n_topics)
        out[ok] = cum[idx[ok]]
        return out

    def cached(self, key, fn):
        """Memoise a derived per-ranking array (cumulative sums, gains, ideal lists)."""
        v = self._gain_cache.get(key)
        if v is None:
            v = self._gain_cache[key] = fn()
        return v

    @property
    def cum_rel(self) -> np.ndarray:
        return self.cached("cum_rel", lambda: self.cumsum(self.rel))

    @property
    def disc(self) -> np.ndarray:
        """1 / log2(rank + 1) per position (Jarvelin & Kekalainen's discount)."""
        return self.cached("disc", lambda: 1.0 / np.log2(self.i + 2.0))

    def tsum(self, x: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
        """Per-topic sum of a per-position array, float64 (T,)."""
        if where is not None:
            x = np.where(where, x, 0.0)
        out = np.zeros(self.n_topics)
        if not len(x):
            return out
        st = self.starts[:-1]
        ok = self.num_ret > 0
        out[ok] = np.add.reduceat(np.asarray(x, np.float64), st[ok])
        return out

    def gain(self, key, table) -> np.ndarray:
        """Per-position gain under a gain table.

        ``table(codes, topics) -> gains`` maps relevance codes to gains; for a fractional ranking
        the gain is averaged over the tied group (exact for measures linear in gain)."""
        g = self._gain_cache.get(key)
        if g is None:
            if self._full is None:
                g = table(self.code, self.t)
            else:
                code_full, t_full, keep, mean_of = self._full
                g = mean_of(table(code_full, t_full))[keep]
            self._gain_cache[key] = g
        return g


def _indicators(code: np.ndarray, level: int):
    rel = (code >= level) & (code >= 0)
    nonrel = (code >= 0) & (code < level)
    unj = code < 0
    return rel.astype(np.float64), nonrel.astype(np.float64), unj.astype(np.float64)


def qrels_levels(qrels, topic_ids: np.ndarray) -> np.ndarray:
    """Counts of qrels documents per (topic, value >= 0) for the given qrels topic indices."""
    v = qrels.value
    ok = v >= 0
    L = int(v[ok].max()) + 1 if ok.any() else 1
    full = np.zeros((len(qrels.topics), L), np.int64)
    np.add.at(full, (qrels.topic[ok], v[ok]), 1)
    return full[topic_ids]


@dataclass
class Prepared:
    """A judged run restricted to the evaluated topics, before choosing an order."""

    J: Judged
    O: Orderings
    topic_ids: np.ndarray      # qrels topic index of each evaluated topic (T,)
    bogus: np.ndarray          # bool (T,): -c topic missing from the run
    rel_levels: np.ndarray
    level: int
    max_docs: int | None
    judged_only: bool


def _select(P: Prepared, order: np.ndarray):
    """Positions (in ``order`` of the judged lines) mapped to evaluated topics, with -J/-M."""
    J = P.J
    T = len(P.topic_ids)
    tmap = np.full(J.n_topics, -1, np.int64)
    tmap[P.topic_ids] = np.arange(T)
    t = tmap[J.qtopic[order]]
    keep = t >= 0
    code = J.relkey[order]
    if P.judged_only:
        keep &= code >= 0
    order, t, code = order[keep], t[keep], code[keep]
    # topics are contiguous in ``order`` (sorted by qrels topic); re-sort by evaluated index
    s = np.argsort(t, kind="stable")
    order, t, code = order[s], t[s], code[s]
    starts = np.searchsorted(t, np.arange(T))
    i = np.arange(len(t)) - starts[t] if len(t) else np.zeros(0, np.int64)
    if P.max_docs is not None:
        k = i < P.max_docs
        order, t, code, i = order[k], t[k], code[k], i[k]
    # bogus topics (-c, missing from the run): one non-pooled document, as trec_eval does
    if P.bogus.any():
        bt = np.flatnonzero(P.bogus)
        t = np.r_[t, bt]
        i = np.r_[i, np.zeros(len(bt), np.int64)]
        code = np.r_[code, np.full(len(bt), NONPOOL)]
        order = np.r_[order, np.full(len(bt), -1)]
        s = np.lexsort((i, t))
        order, t, code, i = order[s], t[s], code[s], i[s]
    return order, t, i, code


def deterministic_ranked(P: Prepared, regime: str) -> Ranked:
    """The ranking of every evaluated topic under a deterministic regime (file, trec_eval,
    realistic, optimistic)."""
    order, t, i, code = _select(P, P.O.order(regime))
    T = len(P.topic_ids)
    num_ret = np.bincount(t, minlength=T)
    rel, nonrel, unj = _indicators(code, P.level)
    return Ranked(T, t, i, num_ret, P.rel_levels, P.level, code, rel, nonrel, unj)


def _score_positions(P: Prepared):
    """Evaluated positions in score order (-J applied, -M not) and a tied-group label per
    position (a bogus -c position is a group of its own): (t, i, code, gid)."""
    O = P.O
    order, t, i, code = _select(
        Prepared(P.J, O, P.topic_ids, P.bogus, P.rel_levels, P.level, None, P.judged_only),
        O.score_order)
    lab = np.full(len(P.J.qtopic), -1, np.int64)
    lab[O.score_order] = O.group
    gid = np.where(order >= 0, lab[np.maximum(order, 0)], -2 - np.arange(len(order)))
    return t, i, code, gid


def expected_ranked(P: Prepared) -> Ranked:
    """The fractional ranking of the ``expected`` regime.

    Indicators are averaged over each tied group *before* -M truncation, so that a group cut by
    -M still contributes its exact expected share to the ranks inside the cut."""
    t_full, i_full, code_full, gid = _score_positions(P)
    _, ginv = np.unique(gid, return_inverse=True)
    gsize = np.bincount(ginv).astype(np.float64)

    def mean_of(x):
        return (np.bincount(ginv, weights=x, minlength=len(gsize)) / gsize)[ginv]

    rel, nonrel, unj = (mean_of(a) for a in _indicators(code_full, P.level))
    keep = slice(None) if P.max_docs is None else np.flatnonzero(i_full < P.max_docs)
    t, i = t_full[keep], i_full[keep]
    T = len(P.topic_ids)
    R = Ranked(T, t, i, np.bincount(t, minlength=T), P.rel_levels, P.level, None,
               rel[keep], nonrel[keep], unj[keep])
    R._full = (code_full, t_full, keep, mean_of)
    return R


def groups_for_core(P: Prepared) -> Groups:
    """:class:`tiebreak.ranking.Groups` over the evaluated topics (score order, -J applied,
    -M not applied), for the closed-form expectations of the eval core."""
    t, i, code, gid = _score_positions(P)
    new = np.ones(len(gid), bool)
    if len(gid) > 1:
        new[1:] = (gid[1:] != gid[:-1]) | (t[1:] != t[:-1])
    g = np.cumsum(new) - 1
    G_n = int(g[-1]) + 1 if len(g) else 0
    first = np.flatnonzero(new)
    g_size = np.bincount(g, minlength=G_n)
    rank = i + 1
    g_first = rank[first]
    T = len(P.topic_ids)
    judged = code >= 0
    grade = np.where(judged, code, 0).astype(np.float64)
    return Groups(T, t, rank, np.bincount(t, minlength=T), g, grade, judged, t[first], g_first,
                  g_size, g_first[g], g_size[g], np.zeros(T))


def sampled_ranked(P: Prepared, n_samples: int, seed: int) -> Ranked:
    """``n_samples`` random within-group orderings of every topic, stacked as
    ``n_samples * T`` topics (replica s of topic t is topic ``s * T + t``)."""
    rng = np.random.default_rng(seed)
    t0, i0, code0, gid = _score_positions(P)
    T = len(P.topic_ids)
    n = len(t0)
    ts, is_, cs = [], [], []
    for s in range(n_samples):
        key = rng.random(n)
        perm = np.lexsort((key, gid, t0))  # positions inside a group shuffled
        # gid is increasing along score order inside a topic, so (t, gid) keeps group order
        c = code0[perm]
        t = t0 + s * T
        i = i0
        if P.max_docs is not None:
            k = i < P.max_docs
            c, t, i = c[k], t[k], i[k]
        ts.append(t)
        is_.append(i)
        cs.append(c)
    t = np.concatenate(ts)
    i = np.concatenate(is_)
    code = np.concatenate(cs)
    TT = T * n_samples
    rel, nonrel, unj = _indicators(code, P.level)
    return Ranked(TT, t, i, np.bincount(t, minlength=TT), np.tile(P.rel_levels, (n_samples, 1)),
                  P.level, code, rel, nonrel, unj)
