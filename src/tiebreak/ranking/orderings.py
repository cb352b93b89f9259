"""The orderings of every tie regime over a judged run (:class:`Orderings`), and the regimes
themselves (:class:`Regime`, :data:`REGIMES`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .judged import Judged, _compiled

#: The regimes ``all`` expands to.
ALL_REGIMES = ("file", "trec_eval", "realistic", "optimistic", "lower", "upper", "expected")
#: Every regime name: ``all``'s, and ``score-rank`` (Yang, Moffat & Turpin's re-sort), named
#: explicitly.
REGIMES = (*ALL_REGIMES, "score-rank")
DEFAULT_REGIMES = ("trec_eval", "expected", "realistic", "optimistic", "lower", "upper")

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
            perm = _tie_sort(self.group[self.tied], keys, self._tied_docrank())
            order[self.tied] = order[self.tied][perm]
        return order

    def order(self, regime: str) -> np.ndarray:
        """Permutation of the judged lines for ``file``, ``trec_eval``, ``score-rank`` (score
        descending, then the rank column ascending, then docno descending), ``realistic``,
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
        elif regime == "score-rank":
            if J.runrank is None:
                raise ValueError("the score-rank ordering needs the run's rank column")
            o = self._within_ties(J.runrank[self.score_order[self.tied]])
        else:
            rk = J.relkey[self.score_order[self.tied]]
            if regime == "realistic":
                o = self._within_ties(rk)
            elif regime == "optimistic":
                o = self._within_ties(-rk)
            elif regime == "upper_mono":
                # unjudged documents above every grade (one more than the largest: the same
                # order as any larger value, and a small key to sort)
                top = int(rk.max(initial=-1)) + 1
                o = self._within_ties(-np.where(rk < 0, top, rk))
            else:
                raise ValueError(f"unknown ordering {regime!r}")
        self._cache[regime] = o
        return o


def _tie_sort(group: np.ndarray, keys: tuple, docrank: np.ndarray) -> np.ndarray:
    """The stable sort of the tied positions by group, then ``keys`` (the last most
    significant), then docno descending: ``np.lexsort((-docrank, *keys, group))``, computed as
    one stable argsort of a packed integer key when the integer keys fit in 63 bits (one sort
    instead of one per key)."""
    parts = [(group, False), *((k, False) for k in reversed(keys)), (docrank, True)]
    packed = np.zeros(len(group), np.int64)
    room = 1
    for x, desc in parts:
        if x.dtype.kind not in "iub":
            return np.lexsort((-docrank, *keys, group))
        lo, hi = int(x.min()), int(x.max())
        span = hi - lo + 1
        room *= span
        if room >= 1 << 62:
            return np.lexsort((-docrank, *keys, group))
        packed *= span
        packed += (hi - x) if desc else (x - lo)
    return np.argsort(packed, kind="stable")


def orderings(J: Judged) -> Orderings:
    """Sort a judged run by topic and score and find its tied groups."""
    n = len(J.qtopic)
    t0, s0 = J.qtopic, J.score
    fast = _compiled()
    if fast is not None and n:
        so, group, tied, starts, n_ret, rank = fast.score_order(t0, s0, J.n_topics)
        return Orderings(J, t0[so], rank, n_ret, starts, so, group, tied)
    same_t = t0[1:] == t0[:-1]
    if n > 1 and bool(np.all(same_t | (t0[1:] > t0[:-1]))) and bool(
            np.all(~same_t | (s0[1:] <= s0[:-1]))):
        so = np.arange(n)  # already by topic, scores descending: what the stable sort gives
        t, s = t0, s0
    else:
        so = np.lexsort((-s0, t0))
        t = J.qtopic[so]
        s = J.score[so]
        same_t = t[1:] == t[:-1]
    tie = same_t & (s[1:] == s[:-1])  # position i + 1 ties with position i
    new = np.ones(n, bool)
    new[1:] = ~tie
    group = np.cumsum(new) - 1
    in_tie = np.zeros(n, bool)  # in a group of two or more: tied with a neighbour
    in_tie[1:] = tie
    in_tie[:-1] |= tie
    tied = np.flatnonzero(in_tie)
    starts = np.searchsorted(t, np.arange(J.n_topics))
    n_ret = np.diff(np.r_[starts, n])
    rank = np.arange(1, n + 1) - np.repeat(starts, n_ret) if n else np.zeros(0, np.int64)
    return Orderings(J, t, rank, n_ret, starts, so, group, tied)


# ---------------------------------------------------------------------------------------------
# regimes
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Regime:
    """A treatment of tied scores.

    ``order`` names the deterministic ordering of :meth:`Orderings.order` (None for
    ``expected``). ``lower`` and ``upper`` are bounds: which ordering they use depends on the
    measure's kind (:func:`order_for`).
    """

    name: str
    order: str | None
    description: str


REGIME_TABLE: dict[str, Regime] = {r.name: r for r in (
    Regime("file", "file", "order of lines in the file, scores ignored"),
    Regime("trec_eval", "trec_eval",
           "score descending, then docno descending (byte order), as trec_eval sorts"),
    Regime("score-rank", "score-rank",
           "score descending, then the run's rank column ascending (the re-sort of Yang, "
           "Moffat & Turpin 2016), then docno descending"),
    Regime("realistic", "realistic",
           "inside a tied group relevant documents last (Cabanac et al. 2010)"),
    Regime("optimistic", "optimistic",
           "inside a tied group relevant documents first (Cabanac et al. 2010)"),
    Regime("lower", "realistic",
           "YMT 2016 lower bound: the worst order of every tied group"),
    Regime("upper", "optimistic",
           "YMT 2016 upper bound: the best order of every tied group; for measures that only "
           "grow with a gain, unjudged documents count as maximally relevant"),
    Regime("expected", None,
           "exact mean over all orderings inside tied groups (McSherry & Najork 2008)"),
)}


def order_for(regime: str, kind: str) -> str | None:
    """The ordering a regime uses for a measure of the given kind (the one place that decides
    what ``upper`` means): ``upper`` of a ``monotone`` measure promotes unjudged documents."""
    r = REGIME_TABLE[regime]
    if regime == "upper" and kind == "monotone":
        return "upper_mono"
    return r.order


