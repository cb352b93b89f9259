"""Run fusion: score-based (CombSUM, CombMNZ, CombANZ, CombMAX, CombMIN, CombMED, weighted
sum), rank-based (RRF, ISR, log_ISR, BordaFuse, Condorcet), with per-topic score normalisation
(min-max, z-score, max, sum, rank, borda).

Definitions, per topic, over the union of the documents the runs retrieved (the candidates);
``s_i(d)`` is document ``d``'s normalised score in run ``i`` and ``r_i(d)`` its 1-based rank,
the runs listed in the order given:

* CombSUM ``sum_i s_i(d)`` (absent: 0); CombMNZ ``CombSUM x n(d)`` with ``n(d)`` the runs that
  retrieved ``d``; CombANZ ``CombSUM / n(d)``; CombMAX / CombMIN / CombMED the maximum, minimum,
  median over the runs that retrieved ``d`` (Fox & Shaw, "Combination of multiple searches",
  TREC-2, 1993);
* weighted sum ``sum_i w_i s_i(d)``;
* RRF ``sum_i 1 / (k + r_i(d))``, k = 60 (Cormack, Clarke & Buettcher, "Reciprocal rank fusion
  outperforms Condorcet and individual rank learning methods", SIGIR 2009);
* ISR ``n(d) x sum_i 1 / r_i(d)^2`` and log_ISR ``ln n(d) x sum_i 1 / r_i(d)^2`` (Mourao,
  Martins & Magalhaes, "Multimodal medical information retrieval with unsupervised rank
  fusion", Comput. Med. Imaging Graph. 39, 2015);
* BordaFuse: in a topic with ``C`` candidates, run ``i`` gives ``C - r_i(d) + 1`` points to a
  document it ranks and ``(C - n_i + 1) / 2`` to each of the others (``n_i`` documents ranked);
  the points are summed (Aslam & Montague, "Models for metasearch", SIGIR 2001);
* Condorcet: the candidates (in docno byte order) are sorted by the majority comparator, ``d``
  before ``e`` when at least half the runs rank ``d`` strictly above ``e`` (a document a run
  does not retrieve ranks below all it does), and get scores ``C, C-1, ..., 1`` (Montague &
  Aslam, "Condorcet fusion for improved retrieval", CIKM 2002).

Tied scores in an input. A rank-based method (and the ``rank`` and ``borda`` normalisations)
needs each input's ranks, so the documents of a tied group need an order; ``regime`` decides it:

* ``trec_eval`` (default): score descending, ties by docno descending (trec_eval's order);
* ``file``: score descending, ties in the order of the lines in the file;
* ``ranx``: score descending, ties where ranx leaves them: ranx sorts each topic with numba's
  ``np.argsort``, an unstable quicksort (median-of-three pivot, parts under 16 keys finished by
  insertion sort), so its tie order is neither the file's nor the docnos'; reproduced here
  exactly (:func:`quicksort_order`), so ``ranx`` gives ranx's fused scores on runs with ties;
* ``expected``: the exact expectation over every order of the tied groups of every input.
  A document of a tied group that occupies positions ``p..q`` gets the mean of the rank
  function over those positions (e.g. ``E[1 / (k + rank)]`` for RRF), which is exact because
  rank fusion sums per-run terms (McSherry & Najork, "Computing information retrieval
  performance measures efficiently in the presence of tied scores", ECIR 2008, take the same
  mean for evaluation). Refused for ``condorcet`` and for ``max``/``min``/``med`` with the
  ``rank``/``borda`` normalisations, whose value is not a sum of per-run terms.

Whatever the regime, :attr:`FusedRun.movable` counts per topic the fused documents whose rank
some order of the inputs' tied groups could change: the fused score of each document is
bounded by placing it last and first in each of its tied groups (every method but Condorcet
is monotone in the ranks), and a document counts when its bounds overlap another document's
and not both are points. Normalisations (per run and topic, ``s`` the scores, ``n``
their number): ``min-max`` ``(s - min) / max(max - min, 1e-9)``; ``max`` ``s / max(max,
1e-9)``; ``sum`` ``(s - min) / max(sum(s) - n min, 1e-9)``; ``zmuv`` (z-score) ``(s - mean) /
max(std, 1e-9)``, population standard deviation; ``rank`` ``1 - (r - 1) / n``; ``borda``
``1 - (r - 1) / C`` for ranked documents and ``1/2 - (n - 1) / (2C)`` for the other candidates.
These are the definitions, names and guards of ranx (Bassani & Romelli, "ranx.fuse: a Python
library for metasearch", CIKM 2022), whose ``fuse`` gives the same numbers (tests/test_fusion.py).
Rank-based methods use the ranks and ignore the normalisation.

Fusion makes ties: two documents each at rank 1 of one run get the same RRF score, Borda points
coincide. :class:`FusedRun` counts the tied groups it made (:func:`tie_counts`).

Size: one module because every method shares the candidate table, the normalisations and the tie
regimes of the inputs; splitting by method would scatter the one fusion loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cmp_to_key

import numpy as np

from ..io import Run
from ..io.inputs import as_run
from ..io.params import FINITE, Range, check_finite_scores
from ..io.runs import refuse_empty

__all__ = ["FUSION_METHODS", "NORMALISATIONS", "RANK_METHODS", "FUSION_REGIMES", "FusedRun",
           "fuse", "normalise_scores", "quicksort_order", "tie_counts"]

#: How the tied documents of each input are ranked (module docstring).
FUSION_REGIMES = ("trec_eval", "file", "ranx", "expected")

#: Method names (ranx's spelling) and their aliases.
FUSION_METHODS: dict[str, str] = {
    "sum": "CombSUM", "mnz": "CombMNZ", "anz": "CombANZ", "max": "CombMAX", "min": "CombMIN",
    "med": "CombMED", "wsum": "weighted sum", "rrf": "reciprocal rank fusion",
    "isr": "inverse square rank", "log_isr": "log inverse square rank",
    "bordafuse": "BordaFuse", "condorcet": "Condorcet fusion",
}
_ALIASES = {"combsum": "sum", "combmnz": "mnz", "combanz": "anz", "combmax": "max",
            "combmin": "min", "combmed": "med", "weighted_sum": "wsum", "borda": "bordafuse",
            "logisr": "log_isr", "log-isr": "log_isr"}
#: RRF's constant: ``1 / (k + rank)`` must be finite and positive at every rank >= 1
RRF_K = Range(-1.0, np.inf, lo_open=True, why="k + rank must stay above 0 at every rank >= 1")
#: a weight of ``wsum``: any finite number
WEIGHT = FINITE

RANK_METHODS = frozenset({"rrf", "isr", "log_isr", "bordafuse", "condorcet"})

#: Normalisation names (ranx's spelling) -> description; ``none`` keeps the scores.
NORMALISATIONS: dict[str, str] = {
    "min-max": "(s - min) / (max - min)", "zmuv": "z-score (s - mean) / std",
    "max": "s / max", "sum": "(s - min) / (sum - n min)", "rank": "1 - (rank - 1) / n",
    "borda": "1 - (rank - 1) / candidates", "none": "scores as they are",
}
_NORM_ALIASES = {"min_max": "min-max", "minmax": "min-max", "z-score": "zmuv", "zscore": "zmuv",
                 "z": "zmuv", None: "none"}


@dataclass
class FusedRun(Run):
    """A fused :class:`~tiebreak.io.Run` (lines per topic in trec_eval order, ranks 1..n) with
    what the fusion did.

    Attributes (beyond :class:`~tiebreak.io.Run`)
    ---------------------------------------------
    method, norm : str
    inputs : list[str]
        Names of the fused runs, in order.
    tied_groups, tied_docs, tied_topics : int
        Tied groups (two or more equal scores in one topic) of the result, the documents in
        them, the topics that have one.
    input_tied_groups : int
        The same count summed over the inputs, for comparison.
    regime : str
        How the inputs' tied documents were ranked (:data:`FUSION_REGIMES`).
    movable : dict[str, int]
        Per topic (all topics), the fused documents whose rank some order of the inputs' tied
        groups could change; empty for ``condorcet`` (not computed).
    """

    method: str = ""
    norm: str = ""
    inputs: list[str] = field(default_factory=list)
    tied_groups: int = 0
    tied_docs: int = 0
    tied_topics: int = 0
    input_tied_groups: int = 0
    regime: str = "trec_eval"
    movable: dict = field(default_factory=dict)

    def movable_summary(self) -> str:
        """One sentence: how many fused ranks the inputs' ties could move, in how many
        topics."""
        if not self.movable:
            return f"{self.method}: the effect of the inputs' ties is not computed"
        tot = sum(self.movable.values())
        nt = sum(v > 0 for v in self.movable.values())
        worst = max(self.movable, key=self.movable.get)
        return (f"the inputs' tied groups could move the fused rank of {tot} documents in {nt} "
                f"of {len(self.movable)} topics (most: {self.movable[worst]} in topic {worst}); "
                f"inputs' ties ranked by {self.regime}")

    def ties_summary(self) -> str:
        """One sentence: ``fusion made 12 tied groups (27 documents) in 9 of 30 topics (the
        inputs had 40)``."""
        return (f"{self.method} fusion of {len(self.inputs)} runs made {self.tied_groups} tied "
                f"groups ({self.tied_docs} documents) in {self.tied_topics} of "
                f"{len(self.topics)} topics (the inputs had {self.input_tied_groups})")


def _method(name: str) -> str:
    m = str(name).lower()
    m = _ALIASES.get(m, m)
    if m not in FUSION_METHODS:
        raise ValueError(f"unknown fusion method {name!r}; choose from "
                         f"{', '.join(FUSION_METHODS)}")
    return m


def _norm(name) -> str:
    n = _NORM_ALIASES.get(name.lower() if isinstance(name, str) else name, name)
    if n not in NORMALISATIONS:
        raise ValueError(f"unknown normalisation {name!r}; choose from "
                         f"{', '.join(NORMALISATIONS)}")
    return n


def tie_counts(topic: np.ndarray, score: np.ndarray) -> tuple[int, int, int]:
    """(tied groups, documents in them, topics with one) of lines sorted by topic then score.

    ``topic`` int (n,), ``score`` float64 (n,), equal scores of a topic adjacent.
    """
    if len(score) < 2:
        return 0, 0, 0
    same = (topic[1:] == topic[:-1]) & (score[1:] == score[:-1])
    starts = same & ~np.r_[False, same[:-1]]
    groups = int(starts.sum())
    return groups, int(same.sum()) + groups, len(np.unique(topic[1:][starts]))


def _segments(topic: np.ndarray) -> np.ndarray:
    """Start index of each run of equal values in a grouped array, int64."""
    return np.flatnonzero(np.r_[True, topic[1:] != topic[:-1]]) if len(topic) else \
        np.zeros(0, np.int64)


def normalise_scores(score: np.ndarray, topic: np.ndarray, norm: str) -> np.ndarray:
    """Per-topic normalisation of one run's scores (not ``borda``, which needs every run).

    ``score`` float64 (n,), lines grouped by topic and in rank order inside a topic (so the
    position in the group is the rank); ``topic`` any int (n,). Returns float64 (n,).
    Raises ValueError for an unknown ``norm``.
    """
    norm = _norm(norm)
    if norm == "none" or not len(score):
        return score.astype(np.float64, copy=True)
    if norm == "borda":
        raise ValueError("borda normalisation needs all the runs: use fuse(..., norm='borda')")
    st = _segments(topic)
    n = np.diff(np.r_[st, len(score)])
    rep = np.repeat(np.arange(len(st)), n)
    if norm == "rank":
        pos = np.arange(len(score)) - st[rep]
        return 1 - pos / n[rep]
    # each topic's scores scaled by a power of two first (exact), so differences, sums and
    # squares of scores near +-1e308 stay finite; the 1e-9 guards are applied to the unscaled
    # denominators, so every finite result is the unscaled formula's, bit for bit
    e = np.frexp(np.maximum.reduceat(np.abs(score), st))[1]
    x = np.ldexp(score, -e[rep])

    def ratio(num, den):
        with np.errstate(over="ignore"):   # the branch np.where does not take
            small = np.ldexp(den, e) < 1e-9
            safe = np.where(small, 1.0, den)[rep]
            return np.where(small[rep], np.ldexp(num, e[rep]) / 1e-9, num / safe)

    mn = np.minimum.reduceat(x, st)
    mx = np.maximum.reduceat(x, st)
    if norm == "min-max":
        return ratio(x - mn[rep], mx - mn)
    if norm == "max":
        return ratio(x, mx)
    sm = np.add.reduceat(x, st)
    if norm == "sum":
        return ratio(x - mn[rep], sm - mn * n)
    mean = sm / n
    var = np.add.reduceat((x - mean[rep]) ** 2, st) / n
    return ratio(x - mean[rep], np.sqrt(var))


@dataclass
class _Flat:
    """One input run in the candidates' index space, lines per topic in rank order."""

    cand: np.ndarray    # int64 (n,): candidate index
    gtopic: np.ndarray  # int64 (n,): global topic index
    pos: np.ndarray     # int64 (n,): 0-based rank inside the topic
    score: np.ndarray   # float64 (n,)
    gs: np.ndarray      # int64 (n,): first position of the line's tied group
    ge: np.ndarray      # int64 (n,): last position of the line's tied group
    gid: np.ndarray     # int64 (n,): tied group (or single line) index, increasing


def quicksort_order(keys) -> list[int]:
    """Indices that sort ``keys`` (a sequence of floats) ascending, equal keys left where this
    in-place quicksort leaves them: the median of the first, middle and last keys is the pivot,
    parked at the end; two scans move inward and stop at keys not strictly on their side; the
    larger part waits on a stack; parts of fewer than 16 keys are finished by insertion sort.
    This is the order numba's ``np.argsort`` gives (so ranx's, which sorts ``-score``). Pure
    Python, O(n log n) comparisons."""
    a = [float(x) for x in keys]
    r = list(range(len(a)))
    todo = [(0, len(a) - 1)] if len(a) > 1 else []
    while todo:
        lo, hi = todo.pop()
        while hi - lo >= 15:
            mid = (lo + hi) >> 1
            if a[r[mid]] < a[r[lo]]:
                r[lo], r[mid] = r[mid], r[lo]
            if a[r[hi]] < a[r[mid]]:
                r[hi], r[mid] = r[mid], r[hi]
            if a[r[mid]] < a[r[lo]]:
                r[lo], r[mid] = r[mid], r[lo]
            piv = a[r[mid]]
            r[hi], r[mid] = r[mid], r[hi]
            i, j = lo, hi - 1
            while True:
                while i < hi and a[r[i]] < piv:
                    i += 1
                while j >= lo and piv < a[r[j]]:
                    j -= 1
                if i >= j:
                    break
                r[i], r[j] = r[j], r[i]
                i, j = i + 1, j - 1
            r[i], r[hi] = r[hi], r[i]
            if hi - i > i - lo:
                if hi > i:
                    todo.append((i + 1, hi))
                hi = i - 1
            else:
                if i > lo:
                    todo.append((lo, i - 1))
                lo = i + 1
        for k in range(lo + 1, hi + 1):
            x, m = r[k], k
            while m > lo and a[x] < a[r[m - 1]]:
                r[m] = r[m - 1]
                m -= 1
            r[m] = x
    return r


def _order(r: Run, regime: str) -> np.ndarray:
    """The lines of ``r`` by topic, then score descending, ties ranked by ``regime``."""
    if regime == "file":
        return np.lexsort((r.lineno, -r.score, r.topic))
    if regime != "ranx":  # trec_eval; expected only needs the groups
        return np.lexsort((-r.docid, -r.score, r.topic))
    by_line = np.lexsort((r.lineno, r.topic))
    t = r.topic[by_line]
    out = []
    for a, b in zip(_segments(t), np.r_[_segments(t)[1:], len(t)]):
        idx = by_line[a:b]
        out.append(idx[quicksort_order(-r.score[idx])])
    return np.concatenate(out) if out else by_line


def _prepare(runs: list[Run], regime: str = "trec_eval"):
    topics: list[str] = []
    tindex: dict[str, int] = {}
    for r in runs:
        for t in r.topics:
            if t not in tindex:
                tindex[t] = len(topics)
                topics.append(t)
    parts = []
    for r in runs:
        ref = _order(r, regime)
        t = r.topic[ref]
        st = _segments(t)
        n = np.diff(np.r_[st, len(t)])
        pos = np.arange(len(t)) - np.repeat(st, n)
        sc = r.score[ref]
        new_group = np.r_[True, (t[1:] != t[:-1]) | (sc[1:] != sc[:-1])] if len(t) else \
            np.zeros(0, bool)
        gid = np.cumsum(new_group) - 1
        gstart = np.flatnonzero(new_group)
        gsize = np.diff(np.r_[gstart, len(t)])
        gs = pos[gstart][gid] if len(t) else pos
        ge = gs + gsize[gid] - 1 if len(t) else pos
        tmap = np.array([tindex[x] for x in r.topics], dtype=np.int64)
        parts.append((tmap[t] if len(t) else np.zeros(0, np.int64), r.docnos[r.docid[ref]],
                      pos, sc, gs, ge, gid))
    docs = [p[1] for p in parts]
    kinds = {d.dtype.kind for d in docs}
    alld = np.concatenate([d.astype(object) for d in docs]) if "O" in kinds else \
        np.concatenate(docs)
    udocs, dcode = np.unique(alld, return_inverse=True)
    dcode = dcode.reshape(-1).astype(np.int64)
    gt = np.concatenate([p[0] for p in parts]).astype(np.int64)
    key = gt * max(len(udocs), 1) + dcode
    ukey, cand = np.unique(key, return_inverse=True)
    cand = cand.reshape(-1).astype(np.int64)
    flats, o = [], 0
    for p in parts:
        k = len(p[2])
        flats.append(_Flat(cand[o:o + k], p[0], p[2], p[3].astype(np.float64), p[4], p[5],
                           p[6]))
        o += k
    nd = max(len(udocs), 1)
    return topics, udocs, ukey // nd, ukey % nd, flats


def _borda_values(f: _Flat, ctopic: np.ndarray, n_cand_topic: np.ndarray, n_topics: int,
                  as_norm: bool, rv) -> np.ndarray:
    """Every candidate's value from one run: BordaFuse points, or the borda normalisation;
    ``rv(f, g)`` evaluates a rank function ``g`` of the 0-based positions for the regime."""
    C = n_cand_topic[ctopic].astype(np.float64)
    n_run = np.bincount(f.gtopic, minlength=n_topics)[ctopic].astype(np.float64)
    c = n_cand_topic[f.gtopic]
    if as_norm:
        v = 0.5 - (n_run - 1) / (2 * C)
        v[f.cand] = rv(f, lambda p: 1 - p / c)
    else:
        v = (C - n_run + 1) / 2
        v[f.cand] = rv(f, lambda p: c - p)
    return v


def _rank_values(mode: str):
    """``rv(f, g)``: the per-line value of a rank function ``g`` (decreasing in the 0-based
    position) for one input: at the line's position (``point``), the mean over its tied
    group's positions (``expected``), or at the group's last / first position (``lo`` /
    ``hi``, the bounds over tie orders)."""
    def rv(f: _Flat, g) -> np.ndarray:
        if mode == "point":
            return g(f.pos)
        if mode == "lo":
            return g(f.ge)
        if mode == "hi":
            return g(f.gs)
        v = g(f.pos).astype(np.float64)
        size = np.bincount(f.gid)
        return (np.bincount(f.gid, weights=v) / np.maximum(size, 1))[f.gid]
    return rv


def _movable(ctopic: np.ndarray, lo: np.ndarray, hi: np.ndarray, nt: int) -> np.ndarray:
    """Per topic (int64 (nt,)), the candidates whose bounds ``[lo, hi]`` overlap another
    candidate's, not both being points (two documents fused to the same fixed score are a tie
    of the fusion, not of the inputs)."""
    out = np.zeros(nt, dtype=np.int64)
    st = _segments(ctopic)
    for a, b in zip(st, np.r_[st[1:], len(ctopic)]):
        L, H = lo[a:b], hi[a:b]
        wide = H > L
        if not wide.any():
            continue
        hit = np.zeros(b - a, bool)
        for w in np.flatnonzero(wide):  # only a wide interval makes an overlap
            ov = (L <= H[w]) & (L[w] <= H)
            ov[w] = False
            if ov.any():
                hit[w] = True
                hit |= ov
        out[ctopic[a]] = int(hit.sum())
    return out


def _median(cands: list[np.ndarray], vals: list[np.ndarray], nc: int) -> np.ndarray:
    c = np.concatenate(cands)
    v = np.concatenate(vals)
    o = np.lexsort((v, c))
    c, v = c[o], v[o]
    st = _segments(c)
    n = np.diff(np.r_[st, len(c)])
    lo = v[st + (n - 1) // 2]
    hi = v[st + n // 2]
    out = np.zeros(nc)
    out[c[st]] = np.where(n % 2 == 1, lo, (lo + hi) / 2)
    return out


def _condorcet(flats: list[_Flat], ctopic: np.ndarray, nc: int) -> np.ndarray:
    out = np.zeros(nc)
    big = 1_000_000
    P = np.full((len(flats), nc), big, dtype=np.int64)
    for i, f in enumerate(flats):
        P[i, f.cand] = f.pos
    half = len(flats)
    st = _segments(ctopic)
    for a, b in zip(st, np.r_[st[1:], nc]):
        cols = [tuple(x) for x in P[:, a:b].T.tolist()]

        def cmp(x, y, cols=cols):
            xv = sum(p < q for p, q in zip(cols[x], cols[y]))
            return -1 if 2 * xv >= half else 1

        order = sorted(range(b - a), key=cmp_to_key(cmp))
        out[a + np.asarray(order, dtype=np.int64)] = np.arange(b - a, 0, -1, dtype=np.float64)
    return out


def fuse(runs, method: str = "wsum", norm: str | None = "min-max", weights=None, k: float = 60,
         name: str | None = None, depth: int | None = None,
         regime: str = "trec_eval", allow_empty: bool = False) -> FusedRun:
    """Fuse runs into one (definitions in the module docstring).

    Parameters
    ----------
    runs : sequence of Run, path, DataFrame or ``{qid: {docno: score}}``
        Two or more runs (:func:`tiebreak.io.inputs.as_run` reads each). Topics may differ: a
        run without a topic contributes nothing to it.
    method : str
        One of :data:`FUSION_METHODS` (``sum mnz anz max min med wsum rrf isr log_isr
        bordafuse condorcet``; ``combsum``... and ``borda`` are aliases).
    norm : str or None
        One of :data:`NORMALISATIONS` (``min-max zmuv max sum rank borda none``; ``z-score``
        is ``zmuv``); ranx's default ``min-max``. Ignored by the rank-based methods.
    weights : sequence of float, optional
        ``wsum`` only: one weight per run (default 1 each).
    k : float
        RRF's constant: finite and > -1 (:data:`RRF_K`), so ``k + rank > 0`` at every rank.
    name : str, optional
        Name and run tag of the result; default ``<method>`` of the inputs.
    depth : int, optional
        Keep the first ``depth`` documents of each topic (default all).
    regime : str
        How each input's tied documents are ranked: ``trec_eval``, ``file``, ``ranx`` or
        ``expected`` (module docstring).
    allow_empty : bool
        Fuse a run without result lines as one that retrieved nothing; by default it is
        refused (InputError naming the file, :func:`tiebreak.io.runs.refuse_empty`).

    Returns
    -------
    FusedRun
        Lines grouped by topic (topics in order of first appearance over the runs), inside a
        topic by fused score descending, ties by docno descending; ranks 1..n; tie counts.

    Raises
    ------
    ValueError
        Fewer than two runs, unknown method, normalisation or regime, weights of the wrong
        length or not finite, ``k`` not finite or <= -1, ``expected`` with a fusion that is
        not a sum of per-run terms.
    tiebreak.io.InputError
        An input that cannot be read, or a fused score that is not finite (weights so large
        that a weighted sum overflows), naming the topic and docno.
    """
    method = _method(method)
    norm = _norm(norm)
    runs = [as_run(r, name=None) for r in runs]
    for r in runs:
        if not len(r) and not allow_empty:
            refuse_empty(r)
    if len(runs) < 2:
        raise ValueError(f"fusion needs at least two runs, got {len(runs)}")
    k = RRF_K("k", k)
    if method == "wsum":
        weights = [1.0] * len(runs) if weights is None else \
            [WEIGHT(f"weight {i + 1}", w) for i, w in enumerate(weights)]
        if len(weights) != len(runs):
            raise ValueError(f"{len(weights)} weights for {len(runs)} runs")
    elif weights is not None:
        raise ValueError(f"weights are for method 'wsum', not {method!r}")
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")

    if regime not in FUSION_REGIMES:
        raise ValueError(f"unknown regime {regime!r}; choose from {', '.join(FUSION_REGIMES)}")
    ranked_norm = norm in ("rank", "borda")
    if regime == "expected" and (method == "condorcet" or (method in ("max", "min", "med")
                                                            and ranked_norm)):
        raise ValueError(f"regime 'expected' needs a fusion that sums per-run terms; "
                         f"{method!r}{' with norm ' + repr(norm) if ranked_norm else ''} does "
                         "not (use trec_eval, file or ranx)")
    topics, udocs, ctopic, cdoc, flats = _prepare(runs, regime)
    nc, nt = len(ctopic), len(topics)
    n_cand_topic = np.bincount(ctopic, minlength=nt)

    def fused(mode: str) -> np.ndarray:
        rv = _rank_values(mode)
        flip = _rank_values({"lo": "hi", "hi": "lo"}.get(mode, mode))

        def values(f: _Flat, rv=rv) -> tuple[np.ndarray, np.ndarray]:
            """(candidates, value) of one run, after the normalisation."""
            if norm == "borda":
                return np.arange(nc), _borda_values(f, ctopic, n_cand_topic, nt, True, rv)
            if norm == "rank":
                n_line = np.bincount(f.gtopic, minlength=nt)[f.gtopic]
                return f.cand, rv(f, lambda p: 1 - p / n_line)
            return f.cand, normalise_scores(f.score, f.gtopic, norm)

        total = np.zeros(nc)
        count = np.zeros(nc, dtype=np.int64)
        if method in ("sum", "mnz", "anz", "wsum"):
            for i, f in enumerate(flats):
                w = weights[i] if method == "wsum" else 1.0
                c, v = values(f, rv if w >= 0 else flip)  # a negative weight swaps the bounds
                total[c] += w * v if method == "wsum" else v
                count[c] += 1
            return total * count if method == "mnz" else \
                np.divide(total, count, out=np.zeros(nc), where=count > 0) \
                if method == "anz" else total
        if method in ("max", "min"):
            op = np.maximum if method == "max" else np.minimum
            score = np.full(nc, -np.inf if method == "max" else np.inf)
            for f in flats:
                c, v = values(f)
                score[c] = op(score[c], v)
            return score
        if method == "med":
            cv = [values(f) for f in flats]
            return _median([c for c, _ in cv], [v for _, v in cv], nc)
        if method == "rrf":
            for f in flats:
                total[f.cand] += rv(f, lambda p: 1 / (k + p + 1))
            return total
        if method in ("isr", "log_isr"):
            for f in flats:
                total[f.cand] += rv(f, lambda p: 1 / (p + 1) ** 2)
                count[f.cand] += 1
            return total * count if method == "isr" else total * np.log(count)
        if method == "bordafuse":
            for f in flats:
                total += _borda_values(f, ctopic, n_cand_topic, nt, False, rv)
            return total
        return _condorcet(flats, ctopic, nc)

    with np.errstate(over="ignore", invalid="ignore"):  # checked below: no non-finite score
        score = fused("expected" if regime == "expected" else "point")
        movable = {}
        if method != "condorcet":
            movable = dict(zip(topics, _movable(ctopic, fused("lo"), fused("hi"), nt).tolist()))

    order = np.lexsort((-cdoc, -score, ctopic))
    t, d, s = ctopic[order], cdoc[order], score[order]
    st = _segments(t)
    n = np.diff(np.r_[st, len(t)])
    rank = np.arange(len(t)) - np.repeat(st, n) + 1
    if depth is not None:
        keep = rank <= depth
        t, d, s, rank = t[keep], d[keep], s[keep], rank[keep]
    name = name or method
    groups, docs, ttopics = tie_counts(t, s)
    in_groups = 0
    for f in flats:
        in_groups += tie_counts(f.gtopic, f.score)[0]
    out = FusedRun(name, f"<{method} fusion>", topics, t, udocs, d, s, rank.astype(np.float64),
                   np.arange(1, len(t) + 1, dtype=np.int64), [name], {}, None, None,
                   method=method, norm="none" if method in RANK_METHODS else norm,
                   inputs=[r.name for r in runs], tied_groups=groups, tied_docs=docs,
                   tied_topics=ttopics, input_tied_groups=in_groups, regime=regime,
                   movable=movable)
    check_finite_scores(out, f"{method} fusion")
    return out
