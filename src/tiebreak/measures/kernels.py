"""Metric kernels: pure functions over the arrays of a :class:`~tiebreak.ranking.Ranking`
(one fixed order per topic) or of :class:`~tiebreak.ranking.Groups` (tied groups, for the exact
expectation over all within-group permutations).

Every kernel returns a float64 array of shape (n_topics,): one value per qrels topic, 0 for a
topic with no retrieved documents (RBP residual: 1). Formulas and their derivations are in
``../shared/spec/tie-aware-metrics.md`` §2; equation numbers below refer to that note.

Conventions (trec_eval's unless stated): relevant means judged with grade >= ``level``; unjudged
documents are non-relevant; ``nrel`` (R) counts every relevant document of the qrels, retrieved
or not; ranks are 1-based.
"""

from __future__ import annotations

import numpy as np

from ..ranking import Groups, Ranking

# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def _count(topic: np.ndarray, mask: np.ndarray, n: int, w: np.ndarray | None = None):
    if w is None:
        return np.bincount(topic[mask], minlength=n).astype(np.float64)
    return np.bincount(topic[mask], weights=w[mask], minlength=n)


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a / b with 0 where b == 0."""
    b = np.asarray(b, dtype=np.float64)
    out = np.zeros(np.broadcast(a, b).shape)
    np.divide(a, b, out=out, where=b != 0)
    return out


def _seg_cumsum(x: np.ndarray, topic: np.ndarray, n_topics: int) -> np.ndarray:
    """Inclusive cumulative sum of x restarted at each topic (positions sorted by topic)."""
    c = np.cumsum(x)
    if not len(x):
        return c
    starts = np.searchsorted(topic, np.arange(n_topics))
    before = np.r_[0, c][starts]
    return c - before[topic]


def _rel(R: Ranking | Groups, level: int) -> np.ndarray:
    rel = R.judged & (R.grade >= level)
    promoted = getattr(R, "promoted", None)
    if promoted is not None:
        rel = rel | promoted
    return rel


def _within(rank: np.ndarray, k) -> np.ndarray:
    if k is None:
        return np.ones(len(rank), bool)
    return rank <= k


def discount(rank: np.ndarray) -> np.ndarray:
    """DCG discount 1 / log2(rank + 1) (Jarvelin & Kekalainen 2002; trec_eval's ndcg)."""
    return 1.0 / np.log2(rank + 1.0)


# ---------------------------------------------------------------------------------------------
# deterministic rankings
# ---------------------------------------------------------------------------------------------


def hits(R: Ranking, k, level: int) -> np.ndarray:
    """Relevant documents in the top k of each topic."""
    return _count(R.topic, _rel(R, level) & _within(R.rank, k), R.n_topics)


def precision(R: Ranking, k: int, level: int) -> np.ndarray:
    """P@k = hits_k / k; lists shorter than k are padded with non-relevant documents."""
    return hits(R, k, level) / k


def recall(R: Ranking, k, level: int, nrel: np.ndarray) -> np.ndarray:
    """R@k = hits_k / R (0 when R = 0)."""
    return _div(hits(R, k, level), nrel)


def rprec(R: Ranking, level: int, nrel: np.ndarray) -> np.ndarray:
    """R-precision = P@R = hits in the first R ranks / R (trec_eval ``Rprec``)."""
    m = _rel(R, level) & (R.rank <= nrel[R.topic])
    return _div(_count(R.topic, m, R.n_topics), nrel)


def success(R: Ranking, k, level: int) -> np.ndarray:
    """Success@k: 1 if a relevant document is in the top k."""
    return (hits(R, k, level) > 0).astype(np.float64)


def judged_at(R: Ranking, k: int) -> np.ndarray:
    """Judged@k: share of the top k with a judgment, divided by k (as ir_measures)."""
    return _count(R.topic, R.judged & _within(R.rank, k), R.n_topics) / k


def reciprocal_rank(R: Ranking, k, level: int) -> np.ndarray:
    """RR@k: 1 / rank of the first relevant document within the top k (0 if none)."""
    m = _rel(R, level) & _within(R.rank, k)
    t, r = R.topic[m], R.rank[m]
    out = np.zeros(R.n_topics)
    if len(t):
        first = np.r_[True, t[1:] != t[:-1]]
        out[t[first]] = 1.0 / r[first]
    return out


def average_precision(R: Ranking, k, level: int, nrel: np.ndarray) -> np.ndarray:
    """AP@k = (1/R) sum_{j<=k, rel_j} C_j / j, C_j = relevant docs at ranks <= j (trec_eval
    ``map`` for k = None and ``map_cut`` otherwise; both divide by R)."""
    rel = _rel(R, level)
    c = _seg_cumsum(rel.astype(np.float64), R.topic, R.n_topics)
    m = rel & _within(R.rank, k)
    return _div(_count(R.topic, m, R.n_topics, c / R.rank), nrel)


def dcg(R: Ranking, k, gain: np.ndarray) -> np.ndarray:
    """DCG@k = sum_{j<=k} gain_j / log2(j + 1)."""
    m = _within(R.rank, k) & (gain != 0)
    return _count(R.topic, m, R.n_topics, gain * discount(R.rank))


def rbp(R: Ranking, p: float, depth, gain: np.ndarray) -> np.ndarray:
    """RBP base = (1 - p) sum_{j<=d} p^(j-1) gain_j, gains in [0, 1] (Moffat & Zobel 2008)."""
    m = _within(R.rank, depth) & (gain != 0)
    return _count(R.topic, m, R.n_topics, gain * (1 - p) * p ** (R.rank - 1.0))


def rbp_residual(R: Ranking, p: float, depth) -> np.ndarray:
    """RBP residual = p^d + (1 - p) sum over unjudged ranks j <= d of p^(j-1), d = min(depth,
    n_ret): the weight whose gain is unknown (Moffat & Zobel 2008)."""
    d = R.n_ret if depth is None else np.minimum(R.n_ret, depth)
    m = _within(R.rank, depth) & ~R.judged
    return p ** d.astype(np.float64) + _count(
        R.topic, m, R.n_topics, (1 - p) * p ** (R.rank - 1.0)
    )


def err(R: Ranking, k, rho: np.ndarray) -> np.ndarray:
    """ERR@k = sum_{j<=k} (1/j) rho_j prod_{i<j} (1 - rho_i) (Chapelle et al. 2009)."""
    logc = np.log1p(-rho)
    surv = np.exp(_seg_cumsum(logc, R.topic, R.n_topics) - logc)
    m = _within(R.rank, k) & (rho > 0)
    return _count(R.topic, m, R.n_topics, rho * surv / R.rank)


def bpref(R: Ranking, level: int, nrel: np.ndarray, nnonrel: np.ndarray) -> np.ndarray:
    """bpref (Buckley & Voorhees 2004) as trec_eval computes it: (1/R) sum over retrieved relevant
    d of 1 - min(n_d, R) / min(N, R), n_d = judged non-relevant documents above d; unjudged
    documents are skipped; the term is 1 when n_d = 0."""
    rel = _rel(R, level)
    nonrel = R.judged & ~rel
    nb = _seg_cumsum(nonrel.astype(np.float64), R.topic, R.n_topics)
    Rt = nrel[R.topic].astype(np.float64)
    den = np.minimum(nnonrel, nrel)[R.topic].astype(np.float64)
    term = np.ones(len(nb))
    ok = (nb > 0) & (den > 0)
    term[ok] = 1.0 - np.minimum(nb[ok], Rt[ok]) / den[ok]
    return _div(_count(R.topic, rel, R.n_topics, term), nrel)


# ---------------------------------------------------------------------------------------------
# expected values over all permutations inside tied groups (McSherry & Najork 2008)
# ---------------------------------------------------------------------------------------------


def _gmean(G: Groups, x: np.ndarray) -> np.ndarray:
    """Group mean of x, repeated per position."""
    return (G.gsum(x) / G.g_size)[G.gid]


def e_hits(G: Groups, k, level: int) -> np.ndarray:
    """E[hits_k] = sum over in-cutoff slots of the group's share of relevant documents (§2.0):
    a straddling group contributes only its m_g slots inside the cutoff."""
    mu = _gmean(G, _rel(G, level).astype(np.float64))
    return G.tsum(mu, _within(G.rank, k))


def e_precision(G: Groups, k: int, level: int) -> np.ndarray:
    """E[P@k] (§2.1)."""
    return e_hits(G, k, level) / k


def e_recall(G: Groups, k, level: int, nrel: np.ndarray) -> np.ndarray:
    """E[R@k] = E[hits_k] / R (§2.2)."""
    return _div(e_hits(G, k, level), nrel)


def e_rprec(G: Groups, level: int, nrel: np.ndarray) -> np.ndarray:
    """E[R-prec] = E[P@R] (§2.3)."""
    mu = _gmean(G, _rel(G, level).astype(np.float64))
    return _div(G.tsum(mu, G.rank <= nrel[G.topic]), nrel)


def e_judged_at(G: Groups, k: int) -> np.ndarray:
    """E[Judged@k], linear in the judged indicator (§2.0)."""
    mu = _gmean(G, G.judged.astype(np.float64))
    return G.tsum(mu, _within(G.rank, k)) / k


def e_dcg(G: Groups, k, gain: np.ndarray) -> np.ndarray:
    """E[DCG@k] = sum_g mean gain_g * (sum of the discounts of its in-cutoff slots) (§2.6)."""
    mu = _gmean(G, gain)
    return G.tsum(mu * discount(G.rank), _within(G.rank, k) & (mu != 0))


def e_rbp(G: Groups, p: float, depth, gain: np.ndarray) -> np.ndarray:
    """E[RBP base] (§2.7)."""
    mu = _gmean(G, gain)
    return G.tsum(mu * (1 - p) * p ** (G.rank - 1.0), _within(G.rank, depth) & (mu != 0))


def e_rbp_residual(G: Groups, p: float, depth) -> np.ndarray:
    """E[RBP residual] = p^d + sum_g (u_g / s_g) * in-cutoff weight of g (§2.7)."""
    d = G.n_ret if depth is None else np.minimum(G.n_ret, depth)
    mu = _gmean(G, (~G.judged).astype(np.float64))
    return p ** d.astype(np.float64) + G.tsum(
        mu * (1 - p) * p ** (G.rank - 1.0), _within(G.rank, depth) & (mu != 0)
    )


def e_average_precision(G: Groups, k, level: int, nrel: np.ndarray) -> np.ndarray:
    """E[AP@k] (§2.5, the pair term). Slot j = b_g + i of a group with s documents, r relevant
    and A relevant documents in earlier groups adds (r/s)(A + 1 + i (r-1)/(s-1)) / j."""
    rel = _rel(G, level).astype(np.float64)
    r = G.gsum(rel)
    A = G.g_exclusive_cumsum(r)
    s = G.g_size.astype(np.float64)
    c = np.zeros(len(s))
    np.divide(r - 1, s - 1, out=c, where=s > 1)
    rg, Ag, cg = r[G.gid], A[G.gid], c[G.gid]
    val = (rg / G.s) * (Ag + 1 + (G.rank - G.b) * cg) / G.rank
    return _div(G.tsum(val, _within(G.rank, k) & (rg > 0)), nrel)


def e_reciprocal_rank(G: Groups, k, level: int) -> np.ndarray:
    """E[RR@k] (§2.4): only the first group c holding a relevant document matters; the first
    relevant document sits at offset i with probability C(s-i, r-1) / C(s, r)."""
    r = G.gsum(_rel(G, level).astype(np.float64))
    out = np.zeros(G.n_topics)
    idx = np.flatnonzero(r > 0)
    if not len(idx):
        return out
    t = G.g_topic[idx]
    first = np.r_[True, t[1:] != t[:-1]]
    idx, t = idx[first], t[first]
    b = G.g_first[idx]
    s = G.g_size[idx]
    kk = np.full(len(idx), np.iinfo(np.int64).max) if k is None else np.full(len(idx), k)
    single = (s == 1) & (b <= kk)
    out[t[single]] = 1.0 / b[single]
    for j in np.flatnonzero((s > 1) & (b <= kk)):
        sj, rj, bj = int(s[j]), int(r[idx[j]]), int(b[j])
        n = min(sj - rj + 1, int(kk[j]) - bj + 1)
        i = np.arange(1, n + 1)
        # P(I=1) = r/s, P(I=i+1)/P(I=i) = (s-i-r+1)/(s-i)
        ratio = (sj - i[:-1] - rj + 1) / (sj - i[:-1])
        prob = (rj / sj) * np.cumprod(np.r_[1.0, ratio])
        out[t[j]] = float(np.sum(prob / (bj + i - 1)))
    return out


def e_success(G: Groups, k: int, level: int) -> np.ndarray:
    """E[Success@k] = 1 - P(no relevant document in the top k); a straddling group with s
    documents, r relevant and m slots inside leaves none inside with probability
    C(s-r, m) / C(s, m)."""
    r = G.gsum(_rel(G, level).astype(np.float64))
    b, s = G.g_first, G.g_size
    kk = np.iinfo(np.int64).max if k is None else k
    inside = (b + s - 1 <= kk) & (r > 0)
    out = (np.bincount(G.g_topic[inside], minlength=G.n_topics) > 0).astype(np.float64)
    for g in np.flatnonzero((b <= kk) & (b + s - 1 > kk) & (r > 0)):
        t = G.g_topic[g]
        if out[t]:
            continue
        sg, rg, m = int(s[g]), int(r[g]), int(kk - b[g] + 1)
        if sg - rg < m:
            out[t] = 1.0
        else:
            i = np.arange(m)
            out[t] = 1.0 - float(np.prod((sg - rg - i) / (sg - i)))
    return out


def e_err(G: Groups, k, rho: np.ndarray) -> np.ndarray:
    """E[ERR@k] (§2.8). With c = 1 - rho, the first j slots of a group hold a uniformly random
    j-subset, so Q_j = E[prod of c over j slots] = e_j(c) / C(s, j), computed with the stable
    convex recurrence; slot j adds S (Q_{j-1} - Q_j) / (b + j - 1), S = prod of c over the
    earlier groups of the topic."""
    logc = np.log1p(-rho)
    lp = G.gsum(logc)
    S = np.exp(G.g_exclusive_cumsum(lp))
    kk = np.iinfo(np.int64).max if k is None else k
    b, s = G.g_first, G.g_size
    out = np.zeros(G.n_topics)
    single = (s == 1) & (b <= kk)
    contrib = np.zeros(len(s))
    rho_g = G.gsum(rho)
    contrib[single] = S[single] * rho_g[single] / b[single]
    tied = np.flatnonzero((s > 1) & (b <= kk) & (rho_g > 0))
    if len(tied):
        starts = np.searchsorted(G.gid, tied)
        for g, st in zip(tied, starts):
            sg = int(s[g])
            m = int(min(sg, kk - b[g] + 1))
            cs = 1.0 - rho[st:st + sg]
            q = np.zeros(m + 1)
            q[0] = 1.0
            j = np.arange(1, m + 1, dtype=np.float64)
            for t, cv in enumerate(cs, 1):
                q[1:] = ((t - j) / t) * q[1:] + (j / t) * cv * q[:-1]
                q[1:][j > t] = 0.0
            contrib[g] = S[g] * float(np.sum((q[:-1] - q[1:]) / (b[g] + j - 1)))
    np.add.at(out, G.g_topic, contrib)
    return out


def _sum_min(a: np.ndarray, m: np.ndarray, R: np.ndarray) -> np.ndarray:
    """sum_{y=0}^{m} min(a + y, R), elementwise, closed form."""
    t = np.minimum(m, np.maximum(R - a, 0))
    below = (t + 1) * a + t * (t + 1) / 2 + (m - t) * R
    return np.where(a >= R, (m + 1) * R, below)


def e_bpref(G: Groups, level: int, nrel: np.ndarray, nnonrel: np.ndarray) -> np.ndarray:
    """E[bpref] (§2.9): for a relevant document in a group with M judged non-relevant
    companions, the number of them above it is uniform on {0..M}."""
    rel = _rel(G, level)
    r = G.gsum(rel.astype(np.float64))
    M = G.gsum((G.judged & ~rel).astype(np.float64))
    a = G.g_exclusive_cumsum(M)
    Rg = nrel[G.g_topic].astype(np.float64)
    den = np.minimum(nnonrel, nrel)[G.g_topic].astype(np.float64)
    term = r.copy()
    ok = (den > 0) & (r > 0)
    term[ok] = r[ok] * (1 - _sum_min(a[ok], M[ok], Rg[ok]) / ((M[ok] + 1) * den[ok]))
    out = np.bincount(G.g_topic, weights=term, minlength=G.n_topics)
    return _div(out, nrel)
