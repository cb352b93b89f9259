"""NTCIREVAL's ad hoc measures (Sakai), computed as NTCIREVAL / pyNTCIREVAL 0.0.3 compute them.

Conventions (NTCIREVAL's):

* ``gain`` (n,) is the gain of each position's relevance level, set per level by the user
  (``-g 1:2:3`` gives level L1 gain 1, ..., the usual choice; level 0 and unjudged documents 0).
  A document is relevant when its gain is positive (``rel`` overrides this).
* The ideal list (``ideal_topic``, ``ideal_gain``, flat, gain descending within each topic) holds
  the gains of every judged relevant document of the qrels; ``nrel`` (T,) counts them (R).
* ``gmax`` is the gain of the HIGHEST LEVEL OF THE GAIN TABLE (``-g``'s last value), not the
  largest gain observed in a topic; ERR's stop probability is ``gain / (gmax + 1)`` (NTCIREVAL's
  "linear-gain ERR"; the classic exponential form of Chapelle et al. is
  :func:`tiebreak.measures.kernels.err`).
* The ranked list is the run in the order given; cutoffs ``k`` include rank k.
* Where NTCIREVAL would divide by zero (no relevant document in the qrels), these kernels give 0.

BR(r) below is Sakai's blended ratio at rank r:
``BR(r) = (C(r) + beta * cg(r)) / (r + beta * cig(r))`` with C(r) the relevant documents in the
top r, cg(r) the cumulative gain and cig(r) the cumulative ideal gain.

Regime treatment: every measure here except :func:`rbp` is ``sampled`` (nonlinear in the gains);
:func:`rbp` is ``linear``.
"""

from __future__ import annotations

import numpy as np

from ..ranking._flat import (
    div,
    first_per_topic,
    ideal_cum_at,
    ideal_ranks,
    seg_cumsum,
    tcount,
    tsum,
    within,
)


def _rel(gain, rel):
    return np.asarray(gain) > 0 if rel is None else np.asarray(rel, bool)


def _blended(topic, rank, gain, n_topics, ideal_topic, ideal_gain, beta, rel):
    """BR(r) at every position, float64 (n,)."""
    r = _rel(gain, rel)
    C = seg_cumsum(r.astype(np.float64), topic, n_topics)
    cg = seg_cumsum(gain, topic, n_topics)
    cig = ideal_cum_at(ideal_topic, ideal_gain, n_topics, topic, rank)
    return (C + beta * cg) / (rank + beta * cig), r


def q_measure(topic, rank, gain, n_topics, ideal_topic, ideal_gain, nrel, beta=1.0, k=None,
              rel=None) -> np.ndarray:
    """Q-measure (Sakai 2004), NTCIREVAL ``Q-measure`` and ``Q@k``:
    ``Q@k = sum_{r<=k, r relevant} BR(r) / min(R, k)`` (``/ R`` without a cutoff).

    ``beta = 0`` gives NTCIREVAL's AP@k (= AP_b@k of Lu 2018). Shapes as in the module
    docstring; returns float64 (T,). Regime: sampled."""
    br, r = _blended(topic, rank, gain, n_topics, ideal_topic, ideal_gain, beta, rel)
    m = r & within(rank, k)
    R = np.asarray(nrel, np.float64)
    norm = R if k is None else np.minimum(R, k)
    return div(tsum(topic, br, n_topics, m), norm)


def ap(topic, rank, gain, n_topics, nrel, k=None, rel=None) -> np.ndarray:
    """NTCIREVAL's AP / AP@k: ``sum_{r<=k, relevant} C(r)/r / min(R, k)``. Regime: sampled
    (closed form: :func:`tiebreak.measures.depth.e_ap_sum`)."""
    r = _rel(gain, rel)
    C = seg_cumsum(r.astype(np.float64), topic, n_topics)
    m = r & within(rank, k)
    R = np.asarray(nrel, np.float64)
    norm = R if k is None else np.minimum(R, k)
    return div(tsum(topic, C / rank, n_topics, m), norm)


def o_measure(topic, rank, gain, n_topics, ideal_topic, ideal_gain, beta=1.0,
              rel=None) -> np.ndarray:
    """O-measure (Sakai 2004): at the first relevant rank r,
    ``(1 + beta * g(r)) / (r + beta * cig(r))``; 0 without a relevant document. Regime:
    sampled."""
    r = _rel(gain, rel)
    first = first_per_topic(topic, r, n_topics)
    out = np.zeros(n_topics)
    ok = first >= 0
    f = first[ok]
    cig = ideal_cum_at(ideal_topic, ideal_gain, n_topics, topic[f], rank[f])
    out[ok] = (1.0 + beta * gain[f]) / (rank[f] + beta * cig)
    return out


def _first_max(topic, gain, n_topics):
    """Index of the first position holding the largest gain of its topic's list (-1 when the
    list has no positive gain): NTCIREVAL's preferred rank."""
    gmax = np.full(n_topics, -np.inf)
    np.maximum.at(gmax, topic, gain)
    return first_per_topic(topic, (gain == gmax[topic]) & (gain > 0), n_topics)


def p_measure(topic, rank, gain, n_topics, ideal_topic, ideal_gain, beta=1.0,
              rel=None) -> np.ndarray:
    """P-measure (Sakai 2006): BR at the preferred rank, the first rank holding the highest
    gain present in the list. Regime: sampled."""
    br, _ = _blended(topic, rank, gain, n_topics, ideal_topic, ideal_gain, beta, rel)
    fm = _first_max(topic, gain, n_topics)
    out = np.zeros(n_topics)
    out[fm >= 0] = br[fm[fm >= 0]]
    return out


def p_plus(topic, rank, gain, n_topics, ideal_topic, ideal_gain, beta=1.0,
           rel=None) -> np.ndarray:
    """P+-measure (Sakai 2007): mean of BR(r) over the relevant ranks r up to the preferred
    rank (see :func:`p_measure`). Regime: sampled."""
    br, r = _blended(topic, rank, gain, n_topics, ideal_topic, ideal_gain, beta, rel)
    fm = _first_max(topic, gain, n_topics)
    lim = np.where(fm >= 0, rank[np.maximum(fm, 0)] if len(rank) else 0, 0)
    m = r & (rank <= lim[topic])
    return div(tsum(topic, br, n_topics, m), tcount(topic, m, n_topics))


def _discount(rank, logb):
    """Jarvelin & Kekalainen's original discount: 1 for rank < b (and rank 1), log_b(rank)
    otherwise (NTCIREVAL ``nDCG``, ``-logb``)."""
    rank = np.asarray(rank, np.float64)
    d = np.ones(len(rank))
    m = (rank >= logb) & (rank > 1)
    d[m] = np.log(rank[m]) / np.log(logb)
    return 1.0 / d


def ndcg(topic, rank, gain, n_topics, ideal_topic, ideal_gain, k=None, logb=2.0,
         microsoft=False) -> np.ndarray:
    """nDCG@k with the original Jarvelin-Kekalainen discount (NTCIREVAL ``nDCG@k``; ``logb``
    is its ``-logb``, 2 by default), or with ``microsoft=True`` the 1/log(r+1) discount
    (NTCIREVAL ``MSnDCG@k``). Ideal DCG from the ideal list cut at k. Regime: sampled (linear
    in the run's gains for a fixed ideal list)."""
    def disc(r):
        return 1.0 / np.log2(r + 1.0) if microsoft else _discount(r, logb)
    m = within(rank, k)
    num = tsum(topic, gain * disc(rank), n_topics, m)
    ir = ideal_ranks(ideal_topic, n_topics)
    im = within(ir, k)
    den = tsum(ideal_topic, ideal_gain * disc(ir), n_topics, im)
    return div(num, den)


def _err(topic, rank, stop, n_topics, k):
    from .depth import err as err_kernel
    return err_kernel(topic, rank, stop, n_topics, k)


def err(topic, rank, gain, n_topics, gmax, k=None) -> np.ndarray:
    """NTCIREVAL's ERR (linear-gain stop probability ``gain / (gmax + 1)``):
    ``sum_{r<=k} (p_r / r) prod_{j<r} (1 - p_j)``. ``gmax`` scalar or (T,). Regime: sampled."""
    g = np.broadcast_to(np.asarray(gmax, np.float64), (n_topics,))
    return _err(topic, rank, gain / (g[topic] + 1.0), n_topics, k)


def nerr(topic, rank, gain, n_topics, ideal_topic, ideal_gain, gmax, k=None) -> np.ndarray:
    """nERR@k: ERR@k / ERR@k of the ideal list (NTCIREVAL ``nERR@k``). Regime: sampled."""
    g = np.broadcast_to(np.asarray(gmax, np.float64), (n_topics,))
    num = _err(topic, rank, gain / (g[topic] + 1.0), n_topics, k)
    ir = ideal_ranks(ideal_topic, n_topics)
    den = _err(ideal_topic, ir, ideal_gain / (g[ideal_topic] + 1.0), n_topics, k)
    return div(num, den)


def rbp(topic, rank, gain, n_topics, gmax, p=0.95, k=None) -> np.ndarray:
    """NTCIREVAL's RBP: ``(1 - p) sum_r p^(r-1) gain_r / gmax``. Regime: linear."""
    g = np.broadcast_to(np.asarray(gmax, np.float64), (n_topics,))
    w = (1.0 - p) * p ** (rank - 1.0) * gain / np.where(g > 0, g, 1.0)[topic]
    return tsum(topic, w, n_topics, within(rank, k))


def ncu(topic, rank, gain, stop, n_topics, ideal_topic, ideal_gain, nrel, stop_total,
        beta=0.0, gamma=None, rel=None) -> np.ndarray:
    """Normalised cumulative utility (Sakai & Robertson 2008), NTCIREVAL ``NCUgu,P``,
    ``NCUgu,BR``, ``NCUrb,P`` and ``NCUrb,BR``:
    ``NCU = sum_{r relevant} Pr(r) NU(r)``, the expected utility of a population of users who
    stop at a relevant rank r with probability Pr(r).

    * NU(r), the utility at the stopping rank, is the blended ratio ``BR(r)`` (``beta > 0``,
      the ``BR`` forms) or precision at r (``beta = 0``, the ``P`` forms).
    * Pr(r): graded-uniform (``gamma=None``, the ``gu`` forms)
      ``stop[r] / stop_total`` with ``stop`` (n,) the stop value of each position's level
      (NTCIREVAL ``-s``, by default the gain) and ``stop_total`` (T,) the sum of the stop
      values of every judged relevant document of the qrels; rank-biased (``gamma`` in (0, 1],
      the ``rb`` forms) ``gamma^(C(r) - 1) / sum_{i<R} gamma^i`` with C(r) the relevant
      documents in the top r (NTCIREVAL ``--gamma``, 0.95 by default).

    Shapes as in the module docstring; returns float64 (T,), 0 for a topic without a relevant
    document. Regime: sampled.

    T. Sakai, S. Robertson. Modelling a user population for designing information retrieval
    metrics. EVIA 2008.
    """
    br, r = _blended(topic, rank, gain, n_topics, ideal_topic, ideal_gain, beta, rel)
    if gamma is None:
        pr = np.where(r, np.asarray(stop, np.float64), 0.0)
        w = pr / np.where(np.asarray(stop_total) > 0, stop_total, 1.0)[topic]
    else:
        C = seg_cumsum(r.astype(np.float64), topic, n_topics)
        R = np.asarray(nrel, np.float64)
        norm = R if gamma == 1.0 else (1.0 - gamma ** R) / (1.0 - gamma)
        w = np.where(r, gamma ** np.maximum(C - 1.0, 0.0), 0.0) / np.where(norm > 0, norm,
                                                                            1.0)[topic]
    return tsum(topic, w * br, n_topics, r)
