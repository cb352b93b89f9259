"""PRECALL: precision at a recall level, and its exact expectation over the orderings of tied
documents (Raghavan, Bollmann & Jung 1989).

A user wants ``NR = ceil(x R)`` relevant documents (recall level ``x``, ``R`` the relevant
documents of the qrels) and reads the ranking until the NR-th relevant one: PRECALL is ``NR /``
its rank, 0 when the ranking (or its top k under ``-M``) holds fewer than NR relevant documents.
Over a weak ordering (tied groups read in random order), the NR-th relevant document falls in
one group: with ``j`` documents before the group that are not relevant, ``i`` relevant documents
still wanted from it and ``r`` relevant and ``s`` other documents in it, the number ``t`` of other
documents read before the i-th relevant one of the group is negative hypergeometric,
``P(t) = C(i - 1 + t, t) C(r - i + s - t, s - t) / C(r + s, s)``, and the expected precision is
``sum_t P(t) NR / (NR + j + t)`` (the ``expected`` regime, in closed form). Raghavan et al.
contrast it with PRR, ``NR / (NR + j + i s / (r + 1))``, the ratio of the expected counts;
tiebreak gives PRECALL, the expectation, as Cabanac et al. (2010) describe it.

Reference: V. Raghavan, P. Bollmann and G. S. Jung. A critical investigation of recall and
precision as measures of retrieval system performance. ACM TOIS 7(3), 1989, 205-229.
"""

from __future__ import annotations

import math

import numpy as np

from ..kernels import cum_rel
from ..registry import Family, Param, register

RBJ = ("V. Raghavan, P. Bollmann and G. S. Jung. A critical investigation of recall and "
       "precision as measures of retrieval system performance. ACM TOIS 7(3), 1989.")


def _wanted(R_rel: np.ndarray, x: float) -> np.ndarray:
    """NR = ceil(x R) per topic (a product within 1e-9 of an integer counts as it), int64."""
    return np.ceil(np.asarray(R_rel, np.float64) * x - 1e-9).astype(np.int64)


def precall(R, m):
    """PRECALL at recall level ``m["recall"]`` on one ordering, float64 (T,)."""
    L = m["rel"]
    NR = _wanted(R.num_rel(L), m["recall"])
    rel = R.rel(L)
    c = cum_rel(R, L)
    hit = (rel > 0) & (c == NR[R.topic]) & (NR[R.topic] > 0)
    val = np.zeros(len(c))
    val[hit] = NR[R.topic[hit]] / R.rank[hit]
    return R.tsum(val, hit)


def _lbinom(n, k):
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def e_precall(G, m, k):
    """E[PRECALL] over the orderings inside tied groups (module docstring), float64 (T,);
    ``k`` the effective cutoff (None: the whole ranking)."""
    from scipy.special import gammaln

    L = m["rel"]
    Rrel = G.rel_levels[:, max(int(L), 0):].sum(axis=1)
    NR = _wanted(Rrel, m["recall"])
    r = G.gsum(G.rel(L).astype(np.float64)).astype(np.int64)
    before = G.g_exclusive_cumsum(r.astype(np.float64)).astype(np.int64)
    need = NR[G.g_topic]
    final = (need > 0) & (before < need) & (before + r >= need)
    out = np.zeros(G.n_topics)
    kk = math.inf if k is None else k
    for g in np.flatnonzero(final):
        t_ = int(G.g_topic[g])
        b, size, rg = int(G.g_first[g]), int(G.g_size[g]), int(r[g])
        i = int(need[g] - before[g])
        s = size - rg
        j = (b - 1) - int(before[g])
        t = np.arange(s + 1, dtype=np.float64)
        logp = (gammaln(i + t) - gammaln(t + 1) - gammaln(i)
                + gammaln(rg - i + s - t + 1) - gammaln(s - t + 1) - gammaln(rg - i + 1)
                - _lbinom(rg + s, s))
        rank = int(need[g]) + j + t
        inside = rank <= kk
        out[t_] = float(np.sum(np.exp(logp[inside]) * need[g] / rank[inside]))
    return out


def _level(v):
    return None if 0 < v <= 1 else "must lie in (0, 1]"


register(Family("PRECALL", "precision when ceil(recall x R) relevant documents have been read "
                "(0 if never); expected over tied groups in closed form", "normalised", precall,
                (Param("rel", "int", 1, "relevance level (qrels value >= rel)"),
                 Param("recall", "float", 0.5, "recall level x in (0, 1]", _level)),
                "none", "closed", e_precall, source=RBJ))
