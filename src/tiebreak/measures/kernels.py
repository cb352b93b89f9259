"""Measure kernels: pure functions over one :class:`~tiebreak.ranking.Ranking` of every topic.

A kernel ``kernel(R, m)`` returns float64 (T,), one value per evaluated topic, for the
:class:`~tiebreak.measures.registry.Measure` ``m`` (its ``rel`` parameter is the relevance
level: a judged document is relevant when its qrels value >= rel; ``m.cutoff`` the evaluation
depth). Sums run per topic in rank order, term by term, as trec_eval 10.0 adds them
(``m_*.c``), so that printed values agree to the last digit.

A closed form ``closed(G, m, k) -> (T,)`` gives the exact expectation over all orderings inside
tied groups (:class:`~tiebreak.ranking.Groups`) at effective cutoff ``k`` (None: the whole
ranking) for measures that are not linear in per-position quantities (McSherry & Najork 2008,
"Computing information retrieval performance measures efficiently in the presence of tied
scores", ECIR).

Conventions (trec_eval's): unjudged documents are non-relevant; R counts every relevant
document of the qrels, retrieved or not; a topic with nothing retrieved scores 0.

Size: one module because every measure kernel is a pure function over the same
:class:`~tiebreak.ranking.Ranking`, and the closed forms of the expectation share their helpers.
"""

from __future__ import annotations

import numpy as np

from ..ranking import PROMOTED, Groups, Ranking

#: The depth of the warning "unjudged documents in the top k" (the evaluator and the compiled
#: fast path count them under the ``trec_eval`` ranking).
UNJUDGED_TOP_K = 10
MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001

# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def _div(a, b) -> np.ndarray:
    """a / b elementwise, 0 where b == 0."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    out = np.zeros(np.broadcast(a, b).shape)
    np.divide(a, b, out=out, where=b != 0)
    return out


def _k(m, default=None):
    return m.cutoff if m.cutoff is not None else default


def cum_rel(R: Ranking, level: int) -> np.ndarray:
    """Relevant documents at ranks <= each position (per topic), float64 (n,)."""
    return R.cached(("cum_rel", level), lambda: R.cumsum(R.rel(level)))


def hits(R: Ranking, k, level: int) -> np.ndarray:
    """Relevant documents in the top k (k scalar, per-topic (T,) or None), float64 (T,)."""
    return R.at(cum_rel(R, level), R.n_ret if k is None else k)


def powers(R: Ranking, p: float) -> np.ndarray:
    """p^(rank-1) per position, by repeated multiplication as trec_eval computes it."""
    def make():
        L = int(R.rank.max(initial=0))
        pw = np.cumprod(np.r_[1.0, np.full(max(L - 1, 0), p)])
        return pw[R.rank - 1] if len(R.rank) else np.zeros(0)
    return R.cached(("pow", p), make)


def _within(R, k) -> np.ndarray | None:
    return None if k is None else (R.rank <= k)


# ---------------------------------------------------------------------------------------------
# counts and set measures
# ---------------------------------------------------------------------------------------------


def num_ret(R, m):
    """Retrieved documents; with ``rel`` set, those with qrels value >= rel (ir_measures)."""
    if m["rel"] is not None:
        return hits(R, None, m["rel"])
    return R.n_ret.astype(np.float64)


def num_rel(R, m):
    """Relevant documents in the qrels (value >= rel)."""
    return R.num_rel(m["rel"]).astype(np.float64)


def num_q(R, m):
    """1 for every evaluated topic (ir_measures NumQ; summed over topics)."""
    return np.ones(R.n_topics)


def hits_at(R, m):
    """Hits@k: relevant documents (value >= rel) in the top k (ranx ``hits@k``)."""
    return hits(R, m.cutoff, m["rel"])


def num_rel_ret(R, m):
    """Relevant documents retrieved."""
    return hits(R, None, m["rel"])


def num_nonrel_judged_ret(R, m):
    """Judged non-relevant documents retrieved."""
    return R.tsum(R.nonrel(m["rel"]))


def set_P(R, m):
    return _div(num_rel_ret(R, m), R.n_ret)


def set_relative_P(R, m):
    return _div(num_rel_ret(R, m), np.minimum(R.n_ret, R.num_rel(m["rel"])))


def set_recall(R, m):
    return _div(num_rel_ret(R, m), R.num_rel(m["rel"]))


def set_map(R, m):
    """set_P x set_recall, as trec_eval computes it: rel_ret^2 / (ret R)."""
    rr = num_rel_ret(R, m)
    return _div(rr * rr, R.n_ret.astype(np.float64) * R.num_rel(m["rel"]))


def set_F(R, m):
    x = m["beta"]
    rr = num_rel_ret(R, m)
    P = _div(rr, R.n_ret)
    Rc = _div(rr, R.num_rel(m["rel"]))
    return np.where(rr > 0, _div((x + 1.0) * P * Rc, x * P + Rc), 0.0)


def utility(R, m):
    a, b, c, d = m["coef"]
    rr = num_rel_ret(R, m)
    nr = R.n_ret.astype(np.float64)
    nrel = R.num_rel(m["rel"]).astype(np.float64)
    return a * rr + b * (nr - rr) + c * (nrel - rr) + d * (m["num_docs"] + rr - nr - nrel)


# ---------------------------------------------------------------------------------------------
# precision-oriented
# ---------------------------------------------------------------------------------------------


def precision(R, m):
    """P@k = relevant in the top k / k (short lists padded with non-relevant)."""
    return hits(R, m.cutoff, m["rel"]) / m.cutoff


def recall(R, m):
    """R@k = relevant in the top k / R."""
    return _div(hits(R, m.cutoff, m["rel"]), R.num_rel(m["rel"]))


def relative_precision(R, m):
    """P@k / its maximum: relevant in the top k / min(k, R)."""
    L = m["rel"]
    return _div(hits(R, m.cutoff, L), np.minimum(m.cutoff, R.num_rel(L)))


def rprec(R, m):
    """R-precision: relevant in the first R ranks / R."""
    nrel = R.num_rel(m["rel"])
    return _div(hits(R, nrel, m["rel"]), nrel)


def rprec_mult(R, m):
    """Precision at int(mult R + 0.9) documents (trec_eval Rprec_mult)."""
    nrel = R.num_rel(m["rel"])
    k = np.floor(m["mult"] * nrel + 0.9).astype(np.int64)
    return _div(hits(R, k, m["rel"]), k)


def success(R, m):
    """Success@k: 1 if a relevant document is in the top k."""
    return (hits(R, m.cutoff, m["rel"]) > 0).astype(np.float64)


def judged(R, m):
    """Judged@k: judged documents in the top k / min(k, retrieved) (ir_measures, trectools)."""
    c = R.cached("cum_judged", lambda: R.cumsum(R.judged))
    k = R.n_ret if m.cutoff is None else np.minimum(m.cutoff, R.n_ret)
    return _div(R.at(c, k), k)


def unjudged(R, m):
    """trec_eval unj@k: unjudged documents in the top k / k."""
    c = R.cached("cum_unj", lambda: R.cumsum(R.unjudged))
    return R.at(c, m.cutoff) / m.cutoff


def reciprocal_rank(R, m):
    """RR@k: 1 / rank of the first relevant document in the top k (0 if none)."""
    rel = R.rel(m["rel"]) > 0
    if m.cutoff is not None:
        rel &= R.rank <= m.cutoff
    out = np.zeros(R.n_topics)
    if rel.any():
        t, r = R.topic[rel], R.rank[rel]
        u = np.r_[True, t[1:] != t[:-1]]
        out[t[u]] = 1.0 / r[u]
    return out


def _cum_ap(R, level):
    def make():
        rel = R.rel(level)
        return R.cumsum(rel * (cum_rel(R, level) / R.rank))
    return R.cached(("cum_ap", level), make)


def average_precision(R, m):
    """AP@k = (1/R) sum over relevant ranks j <= k of (relevant at ranks <= j) / j (trec_eval
    map and map_cut)."""
    L = m["rel"]
    return _div(R.at(_cum_ap(R, L), R.n_ret if m.cutoff is None else m.cutoff), R.num_rel(L))


def bpref(R, m):
    """bpref (Buckley & Voorhees 2004) as trec_eval computes it: (1/R) sum over retrieved
    relevant d of 1 - min(n_d, R) / min(N, R), n_d = judged non-relevant documents above d;
    the term is 1 when n_d = 0."""
    L = m["rel"]
    at = np.flatnonzero(R.rel(L) > 0)  # the terms: retrieved relevant positions only
    nb = R.cumsum(R.nonrel(L))[at]
    t = R.topic[at]
    nrel = R.num_rel(L).astype(np.float64)
    den = np.minimum(R.num_nonrel(L), R.num_rel(L)).astype(np.float64)[t]
    term = np.ones(len(at))
    ok = (nb > 0) & (den > 0)
    term[ok] = 1.0 - np.minimum(nb[ok], nrel[t][ok]) / den[ok]
    return _div(np.bincount(t, weights=term, minlength=R.n_topics), nrel)


def _interp_prec(R, level):
    """Interpolated precision max_{i >= rank} P(i) at each relevant position, its topic and
    its index j (1-based) among the topic's retrieved relevant documents."""
    c = cum_rel(R, level)
    prec = c / R.rank
    if not len(prec):
        return np.zeros(0), np.zeros(0, np.int64), np.zeros(0, np.int64)
    sm = R.suffix_max(prec)
    isr = R.rel(level) > 0
    return sm[isr], R.topic[isr], c[isr].astype(np.int64)


def _lround(x: np.ndarray) -> np.ndarray:
    """C lround for x >= 0 (half away from zero): floor plus (fraction >= 1/2)."""
    r = np.floor(x)
    return (r + (x - r >= 0.5)).astype(np.int64)


def _iprec_base(R, level):
    """What every recall point of :func:`_iprec` shares: interpolated precision at the
    relevant positions, R, retrieved relevant count, first relevant position, its value."""
    def make():
        ip, t, _ = R.cached(("iprec", level), lambda: _interp_prec(R, level))
        nrr = np.bincount(t, minlength=R.n_topics)
        base = np.searchsorted(t, np.arange(R.n_topics))
        has = nrr > 0
        first = np.zeros(R.n_topics)
        first[has] = ip[base[has]]
        return ip, R.num_rel(level).astype(np.float64), nrr, base, has, first
    return R.cached(("iprec_base", level), make)


def _iprec(R, level, pt):
    ip, nrel, nrr, base, has, first = _iprec_base(R, level)
    cut = _lround(pt * nrel)
    v = np.zeros(R.n_topics)
    ok = (cut >= 1) & (cut <= nrr)
    v[ok] = ip[base[ok] + cut[ok] - 1]
    zero = (cut == 0) & has
    v[zero] = first[zero]
    return v


def iprec_at_recall(R, m):
    """Interpolated precision at a recall level (trec_eval 10: the lround(level R)-th relevant
    retrieved document)."""
    return _iprec(R, m["rel"], m["recall"])


def eleven_pt_avg(R, m):
    """Interpolated precision averaged over recall levels (default 0.0, 0.1, ..., 1.0)."""
    pts = m["levels"]
    s = np.zeros(R.n_topics)
    for pt in pts:
        s = s + _iprec(R, m["rel"], pt)
    return s / len(pts)


def inf_ap(R, m):
    """Inferred AP (Yilmaz & Aslam 2006) with trec_eval's epsilon smoothing; qrels value -1
    means pooled but unjudged."""
    L = m["rel"]
    code = R.code
    rel = R.rel(L)
    nonrel = R.nonrel(L)
    nonrel_b = R.cumsum(nonrel) - nonrel
    unj_pool = (code == -2).astype(np.float64)
    unj_b = R.cumsum(unj_pool) - unj_pool
    rel_b = R.cumsum(rel) - rel
    j = (R.rank - 1).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rel_b + nonrel_b + unj_b) / j) * (
            (rel_b + INFAP_EPSILON) / (rel_b + nonrel_b + 2 * INFAP_EPSILON))
    term = np.where(R.rank == 1, 1.0, term)
    return _div(R.tsum(term, rel > 0), R.num_rel(L))


def bin_g(R, m):
    """binG: mean over relevant retrieved documents of 1 / log2(2 + non-relevant above)."""
    L = m["rel"]
    rel = R.rel(L)
    c = cum_rel(R, L)
    isr = rel > 0
    term = np.zeros(len(c))
    term[isr] = 1.0 / np.log2(2.0 + R.rank[isr] - c[isr])
    s = R.tsum(term, isr)
    return np.where(R.tsum(rel) > 0, _div(s, R.num_rel(L)), 0.0)


def relstring(R, m):
    """The relevance codes of the top N documents as characters (per topic only)."""
    n = int(m["length"])
    out = []
    code = R.code
    st = R.starts
    for t in range(R.n_topics):
        a, b = st[t], st[t + 1]
        out.append("".join(_relchar(int(c)) for c in code[a:min(b, a + max(n, 0))]))
    return out


def _relchar(c: int) -> str:
    if c > 9:
        return ">"
    if c >= 0:
        return chr(48 + c)
    return {-1: "-", -2: "."}.get(c, "<")


# ---------------------------------------------------------------------------------------------
# gains: nDCG, DCG, G, trec_eval's rbp
# ---------------------------------------------------------------------------------------------


def gain_table(R, gains):
    """trec_eval's setup_gains for every topic, with ``gains`` ((grade, gain), ...) overriding.

    Returns ``(table, gsorted, csorted, in_table)``: ``table(code, topic) -> gain`` per position
    (a grade's parameter gain, else the grade itself when 0 <= grade < the topic's number of
    relevance levels, else 0; a promoted document gets the topic's largest gain); the gain
    table sorted by decreasing gain (K,), and its qrels counts and membership per topic (T, K).
    """
    def make():
        nlev = R.num_rel_levels
        L = R.rel_levels.shape[1]
        pmap = dict(gains or ())
        levels = sorted(set(range(L)) | set(pmap))
        lv = np.array(levels, np.int64)
        gain = np.array([pmap.get(x, float(x)) for x in levels])
        in_table = (lv[None, :] >= 0) & (lv[None, :] < nlev[:, None])
        in_table |= np.isin(lv, list(pmap))[None, :]
        counts = np.zeros((R.n_topics, len(lv)), np.int64)
        ok = (lv >= 0) & (lv < L)
        counts[:, ok] = R.rel_levels[:, lv[ok]]
        counts = np.where(in_table, counts, 0)
        top = np.where(in_table, gain[None, :], -np.inf).max(axis=1, initial=-np.inf)
        top = np.where(np.isfinite(top), np.maximum(top, 0.0), 0.0)

        def table(code, t):
            g = np.zeros(len(code))
            inside = (code >= 0) & (code < nlev[t])
            g[inside] = code[inside]
            for lvl, val in pmap.items():
                g[code == lvl] = val
            pr = code == PROMOTED
            g[pr] = top[t[pr]]
            return g

        order = np.argsort(-gain, kind="stable")
        return table, gain[order], counts[:, order], in_table[:, order]
    return R.qrels_cached(("gain_table", gains), make)


def gains_at(R, gains, unjudged=None) -> np.ndarray:
    """Per-position gain under ``gains`` (group-mean in a fractional ranking); ``unjudged``,
    a grade, gives unjudged documents that grade's gain (Elasticsearch's
    ``unknown_doc_rating``) instead of 0. Raises MeasureError for a grade the qrels lack."""
    table = gain_table(R, gains)[0]
    if unjudged is None:
        return R.per_position(("gain", gains), table)
    if not 0 <= unjudged < R.rel_levels.shape[1]:
        from .errors import MeasureError

        raise MeasureError(f"unjudged={unjudged}: the qrels have grades 0 to "
                           f"{R.rel_levels.shape[1] - 1}")

    def fn(code, t):
        return np.where(code < 0, table(np.full_like(code, unjudged), t), table(code, t))
    return R.per_position(("gain", gains, "unjudged", unjudged), fn)


def _ideal(gsorted, csorted, T: int, length: int) -> np.ndarray:
    """Ideal gain at ranks 1..length of every topic, (T, length), 0 past the end."""
    out = np.zeros((T, length))
    tot = csorted.sum(axis=1)
    flat = np.repeat(np.tile(gsorted, T), csorted.ravel())
    rows = np.repeat(np.arange(T), tot)
    off = np.r_[0, np.cumsum(tot)[:-1]]
    cols = np.arange(len(flat)) - np.repeat(off, tot)
    keep = cols < length
    out[rows[keep], cols[keep]] = flat[keep]
    return out


def ideal(R, gains):
    """The ideal lists (T, Lx) and the ideal DCG through each rank (T, Lx) of every topic,
    positive gains only (trec_eval stops at gain <= 0); Lx exceeds every qrels list."""
    def make():
        _, gs, cs, _ = gain_table(R, gains)
        tot = cs.sum(axis=1)
        Lx = int(tot.max(initial=0)) + 1
        I = _ideal(gs, cs, R.n_topics, Lx)
        terms = np.where(I > 0, I, 0.0) / np.log2(np.arange(Lx) + 2.0)
        return I, np.cumsum(terms, axis=1)
    return R.qrels_cached(("ideal", gains), make)


def ideal_at_positions(R, gains) -> np.ndarray:
    """The ideal gain at each position's rank, float64 (n,) (0 past the ideal list)."""
    I, _ = ideal(R, gains)
    r = np.minimum(R.rank - 1, I.shape[1] - 1)
    return np.where(R.rank - 1 < I.shape[1], I[R.topic, r], 0.0)


def _cum_dcg(R, gains, unjudged=None):
    def make():
        g = gains_at(R, gains, unjudged)
        return R.cumsum(np.where(g != 0, g / np.log2(R.rank + 1.0), 0.0))
    return R.cached(("cum_dcg", gains, unjudged), make)


def _ndcg_gains(m):
    """The gain parameters of an nDCG-family measure, as trec_eval (grade, gain) pairs."""
    if m["dcg"] == "exp-log2":
        if m["gains"] is not None:
            return tuple((g, 2.0 ** v - 1) for g, v in m["gains"])
        return ("exp",)
    return m["gains"]


def _exp_pairs(R, scale: bool = False):
    """Gains 2^g - 1 of every grade; with ``scale`` divided by 2^(largest grade) so that
    grades of 1024 and more stay finite (nDCG, a ratio, does not change)."""
    L = R.rel_levels.shape[1]
    top = float(L - 1) if scale else 0.0
    return tuple((g, 2.0 ** (g - top) - 2.0 ** -top) for g in range(L))


def _resolve_gains(R, m, scale: bool = False):
    g = _ndcg_gains(m)
    if m["dcg"] == "exp-log2" and m["gains"] is not None:
        # a gains map names each grade's value before 2^v - 1: unmapped grades are their own
        # value, so 2^grade - 1 as without a map (ranx ndcg_burges@k-lN)
        mapped = dict(m["gains"])
        g = tuple(sorted({**{v: 2.0 ** v - 1 for v in range(R.rel_levels.shape[1])},
                          **{k: 2.0 ** v - 1 for k, v in mapped.items()}}.items()))
    if g == ("exp",):
        big = R.rel_levels.shape[1] - 1 >= 1000
        if big and not scale:
            from .errors import MeasureError

            raise MeasureError(f"{m}: exp-log2 gains 2^grade overflow for grade "
                               f"{R.rel_levels.shape[1] - 1}; use nDCG (scale-free) or gains=")
        return _exp_pairs(R, big)
    return g


def dcg(R, m, scale: bool = False):
    """DCG@k = sum over ranks j <= k of gain_j / log2(j + 1) (Jarvelin & Kekalainen 2002)."""
    gains = _resolve_gains(R, m, scale)
    unj = dict(m.values).get("unjudged")
    return R.at(_cum_dcg(R, gains, unj), R.n_ret if m.cutoff is None else m.cutoff)


def ideal_dcg(R, m, scale: bool = False):
    """DCG of the ideal ranking of the topic's qrels (to depth k)."""
    gains = _resolve_gains(R, m, scale)
    I, Ic = ideal(R, gains)  # past its end the ideal list holds no positive gain
    if m.cutoff is None:
        return Ic[:, -1]
    return Ic[:, min(m.cutoff, I.shape[1]) - 1]


def ndcg(R, m):
    """nDCG@k = DCG@k / ideal DCG@k; the ideal list comes from every judged document of the
    qrels (Jarvelin & Kekalainen 2002; trec_eval ndcg and ndcg_cut)."""
    return _div(dcg(R, m, True), ideal_dcg(R, m, True))


def ndcg_rel(R, m):
    """trec_eval ndcg_rel: nDCG averaged over the relevant documents."""
    gains = _resolve_gains(R, m)
    g = gains_at(R, gains)
    I, Ic = ideal(R, gains)
    rc = _cum_dcg(R, gains)
    icum = Ic[R.topic, np.minimum(R.rank - 1, Ic.shape[1] - 1)]
    pos = g > 0
    s = R.tsum(_div(rc, icum), pos)
    n_rel = (I > 0).sum(axis=1)
    n_rel_ret = np.bincount(R.topic[pos], minlength=R.n_topics)
    rtot = R.at(rc, R.n_ret)
    s = s + (n_rel - n_rel_ret) * _div(rtot, Ic[:, -1])
    return np.where(s > 0, _div(s, n_rel), 0.0)


def rndcg(R, m):
    """trec_eval Rndcg: nDCG averaged at the R levels of the ideal ranking."""
    gains = _resolve_gains(R, m)
    I, Ic = ideal(R, gains)
    extra = int(R.n_ret.max(initial=0)) + 1 - I.shape[1]
    if extra > 0:  # as wide as the longest ranking: the ideal list is 0 past its end
        I = np.pad(I, ((0, 0), (0, extra)))
        Ic = np.pad(Ic, ((0, 0), (0, extra)), mode="edge")
    T, Lx = I.shape
    rc = _cum_dcg(R, gains)
    Rc = np.zeros((T, Lx))
    Rc[R.topic, R.rank - 1] = rc
    n = R.n_ret
    last = np.where(n > 0, Rc[np.arange(T), np.maximum(n - 1, 0)], 0.0)
    col = np.arange(Lx)[None, :]
    Rc = np.where(col >= n[:, None], last[:, None], Rc)
    istar = np.argmax(I <= 0, axis=1)
    prev = np.concatenate([I[:, :1], I[:, :-1]], axis=1)
    change = (I != prev) & (col >= 1) & (col <= istar[:, None])
    Rprev = np.concatenate([np.zeros((T, 1)), Rc[:, :-1]], axis=1)
    Iprev = np.concatenate([np.zeros((T, 1)), Ic[:, :-1]], axis=1)
    ok = change & (Iprev > 0)
    ssum = np.where(ok, _div(Rprev, Iprev), 0.0).sum(axis=1)
    cnt = ok.sum(axis=1).astype(np.float64)
    itot = Ic[:, -1]
    add = (n > istar + 1) & (itot > 0)
    ssum = ssum + np.where(add, _div(last, itot), 0.0)
    cnt = cnt + add
    return np.where(R.num_rel(m["rel"]) > 0, _div(ssum, cnt), 0.0)


def g_measure(R, m):
    """trec_eval G: gain / log2(2 + ideal cost - gain so far), normalised (Buckley 2008)."""
    gains = _resolve_gains(R, m)
    g = gains_at(R, gains)
    I, _ = ideal(R, gains)
    Ipos = ideal_at_positions(R, gains)
    sc = R.cumsum(np.maximum(Ipos, 1.0))
    sr = R.cumsum(g)
    nz = g != 0
    term = np.zeros(len(g))
    term[nz] = g[nz] / np.log2(2.0 + sc[nz] - sr[nz])
    return _div(R.tsum(term, nz), np.where(I > 0, I, 0).sum(axis=1))


def trec_rbp(R, m):
    """trec_eval 10.0's rbp: (1 - p) sum_j p^(j-1) gain_j, with the topic's gains rescaled to
    [0, 1] by (g - min) / (max - min) when any gain lies outside (trec_eval reads
    uninitialised min/max there; the defined per-topic min/max are used)."""
    p = m["p"]
    gains = m["gains"]
    table0, gs, _, in_table = gain_table(R, gains)
    T = R.n_topics
    full = np.broadcast_to(gs, (T, len(gs)))
    gmin = np.where(in_table, full, np.inf).min(axis=1, initial=np.inf)
    gmax = np.where(in_table, full, -np.inf).max(axis=1, initial=-np.inf)
    none = ~in_table.any(axis=1)
    gmin[none] = 0.0
    gmax[none] = 0.0

    def table(code, t):
        g = table0(code, t)
        lo, hi = gmin[t], gmax[t]
        sc = (lo < 0) | (hi > 1)
        span = np.where(hi > lo, hi - lo, 1.0)
        return np.where(sc & (code != PROMOTED), (g - lo) / span,
                        np.where(code == PROMOTED, np.where(sc, 1.0, g), g))

    g = R.per_position(("rbpgain", gains), table)
    return (1.0 - p) * R.tsum(np.where(g != 0, g * powers(R, p), 0.0))


def trec_rbp_resid(R, m):
    """trec_eval 10.0's rbp_resid: p^n + (1 - p) sum of p^(j-1) over unjudged ranks j, n the
    documents retrieved; 0 when no retrieved document is unjudged."""
    p = m["p"]
    unj = R.unjudged
    s = R.tsum(unj * powers(R, p))
    L = int(R.n_ret.max(initial=0))
    pw = np.cumprod(np.r_[1.0, np.full(L, p)])
    tail = pw[R.n_ret]
    return np.where(R.tsum(unj) > 0, tail + (1 - p) * s, 0.0)


# ---------------------------------------------------------------------------------------------
# user models: RBP (binary or mapped gains), its residual, ERR
# ---------------------------------------------------------------------------------------------


def graded_gain(R, level: int) -> np.ndarray:
    """Per-position gain = the grade when >= level (and >= 1), else 0; a promoted document gets
    its topic's largest grade (at least 1), float64 (n,)."""
    lv = max(int(level), 1)
    top = _gmax(R.rel_levels)
    return R.per_position(("graded_gain", lv), lambda c, t: np.where(
        c == PROMOTED, top[t] if len(top) else 0.0,
        np.where(c >= lv, c, 0).astype(np.float64)))


def _rbp_gain(R, m):
    gains = m["gains"]
    if m["graded"]:
        if gains is not None:
            from .errors import MeasureError
            raise MeasureError(f"{m}: graded=True uses the grades as gains; drop gains=")
        return graded_gain(R, m["rel"])
    if gains is None:
        return R.rel(m["rel"])
    keys = np.array([g for g, _ in gains], np.int64)
    vals = np.array([v for _, v in gains])
    top = float(vals.max())

    def table(code, t):
        idx = np.searchsorted(keys, code)
        idx[idx == len(keys)] = 0
        ok = (keys[idx] == code) & (code >= 0)
        return np.where(code == PROMOTED, top, np.where(ok, vals[idx], 0.0))
    return R.per_position(("rbpmap", gains), table)


def rbp(R, m):
    """RBP = (1 - p) sum over ranks j <= d of p^(j-1) gain_j, gains in [0, 1]: binary
    (value >= rel) or a ``gains`` map (unmapped grades gain 0); with ``graded`` the grade
    itself (value >= rel, unscaled, as ranx's ``rbp`` and trectools' ``get_rbp(binary_topical_
    relevance=False)``) (Moffat & Zobel 2008, "Rank-biased precision for measurement of
    retrieval effectiveness", ACM TOIS 27(1))."""
    p = m["p"]
    g = _rbp_gain(R, m)
    w = np.where(g != 0, g * (1 - p) * powers(R, p), 0.0)
    return R.at(R.cumsum(w), R.n_ret if m.cutoff is None else m.cutoff)


def rbp_residual(R, m):
    """RBP residual = p^d + (1 - p) sum over unjudged ranks j <= d of p^(j-1), d = min(depth,
    retrieved): the weight whose gain is unknown (Moffat & Zobel 2008)."""
    p = m["p"]
    d = R.n_ret if m.cutoff is None else np.minimum(R.n_ret, m.cutoff)
    w = R.unjudged * (1 - p) * powers(R, p)
    return p ** d.astype(np.float64) + R.at(R.cumsum(w), d)


def _err_gmax(rel_levels, gmax: int) -> np.ndarray:
    """Per-topic largest grade of ERR's stop probability: ``gmax`` (gdeval and ir_measures
    fix it at 4), or each topic's largest grade (at least 1) when ``gmax`` is 0."""
    if gmax > 0:
        return np.full(len(rel_levels), float(gmax))
    return _gmax(rel_levels)


def _gmax(rel_levels) -> np.ndarray:
    L = rel_levels.shape[1]
    nz = rel_levels > 0
    mx = np.where(nz.any(axis=1), L - 1 - np.argmax(nz[:, ::-1], axis=1), 0)
    return np.maximum(mx, 1).astype(np.float64)


def _err_rho(code, t, gmax):
    g = np.where(code >= 0, code, 0).astype(np.float64)
    gm = gmax[t]
    g = np.where(code == PROMOTED, gm, g)
    # (2^g - 1) / 2^gmax, written so that grades of 1024 and more do not overflow
    return np.exp2(np.minimum(g, gm) - gm) - np.exp2(-gm)


def err(R, m):
    """ERR@k = sum over ranks j <= k of (1/j) rho_j prod_{i<j} (1 - rho_i), rho = (2^g - 1) /
    2^gmax, grades above gmax counted as gmax; gmax = 4 as gdeval and ir_measures, 0 for each
    topic's largest grade (Chapelle, Metzler, Zhang & Grinspan 2009,
    "Expected reciprocal rank for graded relevance", CIKM)."""
    gmax = _err_gmax(R.rel_levels, m["gmax"])
    rho = R.per_position(("err_rho", m["gmax"]), lambda c, t: _err_rho(c, t, gmax))
    stop = rho >= 1.0  # a certain stop: nothing below it is reached
    logc = np.log1p(-np.where(stop, 0.0, rho))
    before = R.cumsum(stop.astype(np.float64)) - stop
    surv = np.where(before > 0, 0.0, np.exp(R.cumsum(logc) - logc))
    w = np.where(rho > 0, rho * surv / R.rank, 0.0)
    return R.at(R.cumsum(w), R.n_ret if m.cutoff is None else m.cutoff)


# ---------------------------------------------------------------------------------------------
# closed-form expectations over tied groups (McSherry & Najork 2008)
# ---------------------------------------------------------------------------------------------


def _in(G: Groups, k):
    return np.ones(len(G.rank), bool) if k is None else G.rank <= k


def e_average_precision(G: Groups, m, k) -> np.ndarray:
    """E[AP@k]: slot j = b_g + i of a group with s documents, r relevant and A relevant
    documents in earlier groups adds (r/s)(A + 1 + i (r-1)/(s-1)) / j."""
    L = m["rel"]
    rel = G.rel(L).astype(np.float64)
    r = G.gsum(rel)
    A = G.g_exclusive_cumsum(r)
    s = G.g_size.astype(np.float64)
    c = np.zeros(len(s))
    np.divide(r - 1, s - 1, out=c, where=s > 1)
    rg, Ag, cg = r[G.gid], A[G.gid], c[G.gid]
    val = (rg / G.s) * (Ag + 1 + (G.rank - G.b) * cg) / G.rank
    nrel = G.rel_levels[:, max(L, 0):].sum(axis=1)
    return _div(G.tsum(val, _in(G, k) & (rg > 0)), nrel)


def e_reciprocal_rank(G: Groups, m, k) -> np.ndarray:
    """E[RR@k]: only the first group holding a relevant document matters; its first relevant
    document sits at offset i with probability C(s-i, r-1) / C(s, r)."""
    r = G.gsum(G.rel(m["rel"]).astype(np.float64))
    out = np.zeros(G.n_topics)
    idx = np.flatnonzero(r > 0)
    if not len(idx):
        return out
    t = G.g_topic[idx]
    first = np.r_[True, t[1:] != t[:-1]]
    idx, t = idx[first], t[first]
    b = G.g_first[idx]
    s = G.g_size[idx]
    kk = np.full(len(idx), np.iinfo(np.int64).max if k is None else k)
    single = (s == 1) & (b <= kk)
    out[t[single]] = 1.0 / b[single]
    for j in np.flatnonzero((s > 1) & (b <= kk)):
        sj, rj, bj = int(s[j]), int(r[idx[j]]), int(b[j])
        n = min(sj - rj + 1, int(kk[j]) - bj + 1)
        i = np.arange(1, n + 1)
        ratio = (sj - i[:-1] - rj + 1) / (sj - i[:-1])
        prob = (rj / sj) * np.cumprod(np.r_[1.0, ratio])
        out[t[j]] = float(np.sum(prob / (bj + i - 1)))
    return out


def e_success(G: Groups, m, k) -> np.ndarray:
    """E[Success@k] = 1 - P(no relevant document in the top k): a straddling group of s
    documents, r relevant and m slots inside leaves none inside with probability
    C(s-r, m) / C(s, m)."""
    r = G.gsum(G.rel(m["rel"]).astype(np.float64))
    b, s = G.g_first, G.g_size
    kk = np.iinfo(np.int64).max if k is None else k
    inside = (b + s - 1 <= kk) & (r > 0)
    out = (np.bincount(G.g_topic[inside], minlength=G.n_topics) > 0).astype(np.float64)
    for g in np.flatnonzero((b <= kk) & (b + s - 1 > kk) & (r > 0)):
        t = G.g_topic[g]
        if out[t]:
            continue
        sg, rg, mm = int(s[g]), int(r[g]), int(kk - b[g] + 1)
        if sg - rg < mm:
            out[t] = 1.0
        else:
            i = np.arange(mm)
            out[t] = 1.0 - float(np.prod((sg - rg - i) / (sg - i)))
    return out


def e_err(G: Groups, m, k) -> np.ndarray:
    """E[ERR@k]. With c = 1 - rho, the first j slots of a group hold a uniformly random
    j-subset, so Q_j = E[prod of c over j slots] = e_j(c) / C(s, j) (the stable convex
    recurrence); slot j adds S (Q_{j-1} - Q_j) / (b + j - 1), S = prod of c over the earlier
    groups of the topic. O(s min(s, k)) per tied group."""
    gmax = _err_gmax(G.rel_levels, m["gmax"])
    rho = _err_rho(G.code, G.topic, gmax)
    stop = rho >= 1.0
    lp = G.gsum(np.where(stop, 0.0, np.log1p(-np.where(stop, 0.0, rho))))
    S = np.exp(G.g_exclusive_cumsum(lp))
    S[G.g_exclusive_cumsum(G.gsum(stop.astype(np.float64))) > 0] = 0.0
    kk = np.iinfo(np.int64).max if k is None else k
    b, s = G.g_first, G.g_size
    out = np.zeros(G.n_topics)
    contrib = np.zeros(len(s))
    rho_g = G.gsum(rho)
    single = (s == 1) & (b <= kk)
    contrib[single] = S[single] * rho_g[single] / b[single]
    tied = np.flatnonzero((s > 1) & (b <= kk) & (rho_g > 0))
    if len(tied):
        starts = np.searchsorted(G.gid, tied)
        for g, st in zip(tied, starts):
            sg = int(s[g])
            mm = int(min(sg, kk - b[g] + 1))
            cs = 1.0 - rho[st:st + sg]
            q = _subset_products(cs, mm)
            j = np.arange(1, mm + 1, dtype=np.float64)
            contrib[g] = S[g] * float(np.sum((q[:-1] - q[1:]) / (b[g] + j - 1)))
    np.add.at(out, G.g_topic, contrib)
    return out


def _mean_subset_products(c: np.ndarray, m: int) -> np.ndarray:
    """Q_j = mean over the j-subsets of ``c`` of their product, j = 0..m (the stable convex
    recurrence, O(len(c) m))."""
    q = np.zeros(m + 1)
    q[0] = 1.0
    j = np.arange(1, m + 1, dtype=np.float64)
    for t, cv in enumerate(c, 1):
        lim = min(t, m)
        q[1:lim + 1] = ((t - j[:lim]) / t) * q[1:lim + 1] + (j[:lim] / t) * cv * q[:lim]
    return q


def _subset_products(c: np.ndarray, m: int) -> np.ndarray:
    """Q_j, j = 0..m, for a tied group whose ``c`` are mostly 1 (documents with no gain): only
    the r documents with c < 1 enter the recurrence, and Q_j mixes their subset means E_k by
    the hypergeometric law of how many of them a random j-subset holds, so the cost is
    O(r^2 + m r) instead of O(s m)."""
    s = len(c)
    special = c[c != 1.0]
    r = len(special)
    if s <= 64 or r == s:
        return _mean_subset_products(c, m)
    E = _mean_subset_products(special, r)            # E_k, k = 0..r
    lf = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, s + 1, dtype=np.float64)))])

    def lC(a, b):
        return lf[a] - lf[b] - lf[a - b]

    q = np.empty(m + 1)
    q[0] = 1.0
    k = np.arange(r + 1)
    step = max(1, 4_000_000 // (r + 1))
    for j0 in range(1, m + 1, step):
        jj = np.arange(j0, min(m, j0 + step - 1) + 1)[:, None]
        ok = (k[None, :] <= jj) & (jj - k[None, :] <= s - r)
        kk = np.where(ok, k[None, :], 0)
        lh = lC(r, kk) + lC(s - r, np.where(ok, jj - kk, 0)) - lC(s, jj)
        q[jj[:, 0]] = np.where(ok, np.exp(lh) * E[kk], 0.0).sum(axis=1)
    return q


def _sum_min(a, mm, R):
    """sum_{y=0}^{mm} min(a + y, R), elementwise, closed form."""
    t = np.minimum(mm, np.maximum(R - a, 0))
    below = (t + 1) * a + t * (t + 1) / 2 + (mm - t) * R
    return np.where(a >= R, (mm + 1) * R, below)


def e_bpref(G: Groups, m, k) -> np.ndarray:
    """E[bpref]: for a relevant document in a group with M judged non-relevant companions, the
    number of them above it is uniform on {0..M}."""
    L = m["rel"]
    rel = G.rel(L)
    r = G.gsum(rel.astype(np.float64))
    M = G.gsum((G.judged & ~rel).astype(np.float64))
    a = G.g_exclusive_cumsum(M)
    nrel = G.rel_levels[:, max(L, 0):].sum(axis=1)
    nnon = G.rel_levels[:, :max(L, 0)].sum(axis=1)
    Rg = nrel[G.g_topic].astype(np.float64)
    den = np.minimum(nnon, nrel)[G.g_topic].astype(np.float64)
    term = r.copy()
    ok = (den > 0) & (r > 0)
    term[ok] = r[ok] * (1 - _sum_min(a[ok], M[ok], Rg[ok]) / ((M[ok] + 1) * den[ok]))
    return _div(np.bincount(G.g_topic, weights=term, minlength=G.n_topics), nrel)


# ---------------------------------------------------------------------------------------------
# kernels that read nothing from the documents absent from the qrels
# ---------------------------------------------------------------------------------------------

#: Kernels whose value does not change when the positions of documents absent from the qrels
#: (relevance code -1) are left out of a ranking, ranks and ``n_ret`` kept
#: (:func:`tiebreak.ranking.ranking` with ``sparse=True``): every per-position quantity they
#: sum is 0 there (relevance, gain, judged), and they read sums only at kept positions or
#: through :meth:`~tiebreak.ranking.Ranking.at`. Not here: what counts unjudged documents
#: (unj, residuals), spends reading time on every rank (G, INST and the C/W/L family) or
#: fills a rank grid (Rndcg), relstring, and what tests have not held equal.
SPARSE_SAFE = frozenset({
    num_ret, num_rel, num_q, hits_at, num_rel_ret, num_nonrel_judged_ret, set_P,
    set_relative_P, set_recall, set_map, set_F, utility, precision, recall, relative_precision,
    rprec, rprec_mult, success, judged, reciprocal_rank, average_precision, bpref,
    iprec_at_recall, eleven_pt_avg, inf_ap, bin_g, ndcg, dcg, ideal_dcg, ndcg_rel, rbp, err,
})


def sparse_safe(m) -> bool:
    """Whether measure ``m`` may be computed on the ranking without the documents absent from
    the qrels (:data:`SPARSE_SAFE`): not when it gives unjudged documents a grade
    (``unjudged=``) or a gains map names a negative grade (code -1 would take its gain)."""
    if m.family.kernel not in SPARSE_SAFE:
        return False
    for k, v in m.values:
        if k == "unjudged" and v is not None:
            return False
        if k == "gains" and v is not None and any(g < 0 for g, _ in v):
            return False
    return True


#: Kernels that, for a measure with a cutoff k, read positions at ranks <= k only (directly or
#: through :meth:`~tiebreak.ranking.Ranking.at` at depths <= k): they may be computed on the
#: ranking's top k (:func:`tiebreak.ranking.ranking` with ``depth``).
DEPTH_SAFE = frozenset({
    precision, recall, relative_precision, success, hits_at, judged, unjudged, reciprocal_rank,
    average_precision, ndcg, dcg, ideal_dcg, rbp, rbp_residual, err,
})


def depth_safe(m) -> int | None:
    """The cutoff of ``m`` when its kernel reads no deeper (:data:`DEPTH_SAFE`), else None."""
    if m.cutoff is None or m.family.kernel not in DEPTH_SAFE:
        return None
    return m.cutoff


#: Closed forms of the ``expected`` regime that read nothing from the tied groups made only of
#: documents absent from the qrels (no relevant or judged document: every term they add is 0
#: and every count they carry over is unchanged), so :func:`tiebreak.ranking.groups` may
#: leave those groups out (``sparse=True``).
CLOSED_SPARSE_SAFE = frozenset({e_average_precision, e_reciprocal_rank, e_success, e_bpref})
