"""Estimating recall-based metrics, AP@k and nDCG@k, from shallow pools (Lu 2018, ch. 7).

Holds :data:`RECALL_FAMILIES`, the binary ideal DCG with fractional relevant counts, the exact
bounds of a metric over the 0/1 assignments of the unjudged documents, :func:`read_gains` (the
per-document gains file ``tiebreak estimate --gains`` writes), :func:`gains_lookup` (the
per-document gains of a two-stage estimator of :class:`~tiebreak.judgments.estimate.Estimates`)
and :func:`recall_scores`, the plug-in estimate carrying the ch. 6 gain estimates of
:mod:`tiebreak.judgments.estimate` over to recall-based metrics.

X. Lu, *Efficient and Effective Retrieval Using Higher-Order Proximity Models*, PhD thesis,
RMIT University, 2018, ch. 7; Lu, Moffat & Culpepper, "Can deep effectiveness metrics be
evaluated using shallow judgment pools?", SIGIR 2017, pp. 35-44.
"""

from __future__ import annotations

import numpy as np

from ..io import Qrels
from .estimate import Estimates, _judgment_lookup, _values
from .pool import RunLists

__all__ = [
    "RECALL_FAMILIES",
    "recall_scores",
    "read_gains",
    "gains_lookup",
]

RECALL_FAMILIES = ("AP", "nDCG")


def _ideal_dcg(x: float, k: int) -> float:
    """Binary ideal DCG@k for x (possibly fractional) relevant documents: the first
    ``floor(x)`` ranks at gain 1 and the fraction at the next (log2 discount)."""
    n = int(min(np.floor(x), k))
    v = float(np.sum(1.0 / np.log2(np.arange(2, n + 2)))) if n else 0.0
    if n < k and x > n:
        v += (x - n) / np.log2(n + 2)
    return v


def _recall_metric(family: str, g: np.ndarray, R: float, k: int) -> float:
    """AP@k (trec_eval's map_cut: divided by R) or nDCG@k (log2 discount, binary ideal over R
    relevant) of a list of gains g (ranks 1..len(g) <= k, fractional allowed: the expected
    numerator ``g_i (1 + sum_{j<i} g_j) / i`` under independence) with R relevant in all."""
    if R <= 0:
        return 0.0
    i = np.arange(1, len(g) + 1, dtype=np.float64)
    if family == "AP":
        before = np.concatenate([[0.0], np.cumsum(g)[:-1]])
        return float(np.sum(g * (1.0 + before) / i) / R)
    idcg = _ideal_dcg(R, k)
    return float(np.sum(g / np.log2(i + 1)) / idcg) if idcg > 0 else 0.0


def _recall_bounds(family: str, g: np.ndarray, unj: np.ndarray, R0: float, n_out: int,
                   k: int) -> tuple[float, float]:
    """Exact range of a binary AP@k / nDCG@k when the ``unj`` positions of the list (binary
    ``g`` elsewhere) and ``n_out`` unjudged documents outside it may be relevant or not, with
    R0 judged relevant. Swapping a relevant document above a non-relevant one never lowers
    either metric's numerator and leaves R alone, so the maximum sets a prefix (in rank order)
    of the unjudged positions relevant and nothing outside; the minimum a suffix and every
    outside document."""
    pos = np.flatnonzero(unj)
    base = np.where(unj, 0.0, g)
    lo = hi = None
    for m in range(len(pos) + 1):
        top = base.copy()
        top[pos[:m]] = 1.0
        v = _recall_metric(family, top, R0 + m, k)
        hi = v if hi is None else max(hi, v)
        bot = base.copy()
        if m:
            bot[pos[-m:]] = 1.0
        v = _recall_metric(family, bot, R0 + m + n_out, k)
        lo = v if lo is None else min(lo, v)
    return float(lo), float(hi)


def read_gains(path: str) -> dict:
    """Read a per-document gains file as written by ``tiebreak estimate --gains`` (a header
    ``qid docno gain``, then tab-separated lines). Returns ``{(qid, docno): gain}``. Raises
    ValueError naming the file and line for a malformed line or a gain outside [0, 1]."""
    out = {}
    with open(path, encoding="latin-1") as fh:
        for i, ln in enumerate(fh, 1):
            f = ln.split()
            if not f or (i == 1 and f[:3] == ["qid", "docno", "gain"]):
                continue
            if len(f) != 3:
                raise ValueError(f"{path}:{i}: expected 'qid docno gain', got {ln.strip()!r}")
            try:
                v = float(f[2])
            except ValueError:
                raise ValueError(f"{path}:{i}: gain {f[2]!r} is not a number") from None
            if not 0 <= v <= 1:
                raise ValueError(f"{path}:{i}: gain {v} outside [0, 1]")
            out[(f[0], f[1])] = v
    return out


def gains_lookup(E: Estimates, L: RunLists, estimator: str) -> tuple[dict, np.ndarray]:
    """Per-document gains of a two-stage estimator of ``E`` as ``{(qid, docno): gain}`` and
    the gain of a document no contributing run retrieves, per topic (n_topics,)."""
    out = {}
    for (name, t), (docs, g) in E.doc_gains.items():
        if name == estimator and E.adjusted[t]:
            out.update({(E.topics[t], str(L.docnos[d])): float(v) for d, v in zip(docs, g)})
    absent = np.array([E.absent.get((estimator, t), 0.0) if E.adjusted[t] else 0.0
                       for t in range(len(E.topics))])
    return out, absent


def recall_scores(L: RunLists, shallow: Qrels, family: str, k: int, gains: dict | None = None,
                  absent=None, score_runs: list[str] | None = None) -> dict:
    """Estimate a recall-based metric, AP@k or nDCG@k, from shallow judgments and per-document
    gains of the unjudged documents (Lu 2018 ch. 7 proposes carrying the ch. 6 gain estimates
    over to recall-based metrics; this is that plug-in estimate).

    The universe of unjudged documents of a topic is the top k of every run of ``L``. With R'
    the relevant documents ``shallow`` judges (value >= 1, binary gain) and ``g(D)`` the
    estimated gain of an unjudged document (``gains[(qid, docno)]``, else ``absent[t]``, else
    0), the estimated relevant count is ``R = R' + sum_{D unjudged} g(D)``. A run's estimate is
    AP@k (trec_eval's ``map_cut``, divided by R) or nDCG@k (log2 discount, binary ideal DCG of R
    relevant documents, fractional R interpolated) of its top k with judged documents at their
    binary gain and unjudged ones at g(D), the AP numerator taken in expectation under
    independence. The bounds are the exact minimum and maximum over every 0/1 assignment of
    the universe's unjudged documents (see :func:`_recall_bounds`); with every document of the
    universe judged, estimate = lower = upper = the metric on ``shallow``. The AP estimate lies
    in its range by construction (the numerator is multilinear and the denominator linear in
    the gains, so the ratio is monotone in each gain and its extremes are at 0/1 points); the
    nDCG estimate is clipped to its range because the interpolated ideal DCG is only piecewise
    linear in R.

    Parameters
    ----------
    family : {"AP", "nDCG"}
    k : int
        Cutoff.
    gains : dict, optional
        ``{(qid, docno): gain in [0, 1]}``; default none (every unjudged document at
        ``absent``, i.e. 0: the LB estimate).
    absent : float or ndarray (n_topics,), optional

    Returns
    -------
    dict
        ``estimate``, ``lower``, ``upper``: float64 (n_runs, n_topics) for ``score_runs``
        (default all runs of ``L``); ``R``: float64 (n_topics,), the estimated relevant count.

    Raises
    ------
    ValueError
        Unknown family or k < 1.
    """
    if family not in RECALL_FAMILIES:
        raise ValueError(f"recall-based estimation supports {', '.join(RECALL_FAMILIES)}, "
                         f"not {family!r}")
    if k < 1:
        raise ValueError(f"cutoff must be >= 1, got {k}")
    gains = gains or {}
    nT = len(L.topics)
    absent = np.broadcast_to(np.asarray(0.0 if absent is None else absent, float), (nT,))
    sidx = [L.names.index(s) for s in (score_runs or L.names)]
    ks, vs = _judgment_lookup(shallow, L)
    R0 = np.zeros(nT)
    tix = {q: i for i, q in enumerate(L.topics)}
    for q, v in zip(shallow.topic, shallow.value):
        i = tix.get(shallow.topics[q])
        if i is not None and v >= 1:
            R0[i] += 1
    top = L.rank <= k
    est = np.zeros((len(sidx), nT))
    lower = np.zeros_like(est)
    upper = np.zeros_like(est)
    Rhat = np.zeros(nT)
    for t in range(nT):
        qid = L.topics[t]
        udocs = np.unique(L.doc[top & (L.topic == t)])
        uv = _values(ks, vs, (t << 32) | udocs)
        unj_docs = udocs[uv < 0]
        ug = np.array([gains.get((qid, str(L.docnos[d])), absent[t]) for d in unj_docs])
        Rhat[t] = R0[t] + float(ug.sum())
        for a, s in enumerate(sidx):
            sel = (L.run == s) & (L.topic == t) & top
            doc = L.doc[sel][np.argsort(L.rank[sel])]
            v = _values(ks, vs, (t << 32) | doc)
            unj = v < 0
            g = (v >= 1).astype(np.float64)
            if unj.any():
                pos = np.searchsorted(unj_docs, doc[unj])
                g[unj] = ug[pos]
            est[a, t] = _recall_metric(family, g, Rhat[t], k)
            n_out = len(unj_docs) - int(unj.sum())
            lower[a, t], upper[a, t] = _recall_bounds(family, g, unj, R0[t], n_out, k)
            if family == "nDCG":
                est[a, t] = min(max(est[a, t], lower[a, t]), upper[a, t])
    return {"estimate": est, "lower": lower, "upper": upper, "R": Rhat}
