"""Measures estimated from sampled judgments: xinfAP, infNDCG and statAP, with the sampling
variance of each estimate (``xinfAP_var``, ``infNDCG_var``, ``statAP_var``).

The judgments are a stratified sample of a pool: :func:`tiebreak.io.sampled.read_sampled_qrels`
reads them (``qid iter docno stratum rel``, NIST sample_eval's qrels; ``rel < 0`` = in the
stratum, not sampled). Stratum ``s`` holds ``N_s`` pooled documents of which ``n_s`` were
judged, each with inclusion probability ``pi_s = n_s / N_s``. Ordinary qrels are one stratum
per topic: every qrels line is pooled, the lines with a value >= 0 are its sample (so with
every document judged, ``pi = 1``). Retrieved documents outside the pool are non-relevant.

For a ranking, with ``k`` the rank of a document and counts "above" taken over ranks < k:

xinfAP (Yilmaz, Kanoulas & Aslam 2008)
    The precision above a relevant sampled document is estimated stratum by stratum:
    ``c_k = (1 + sum_s P_s(k) r_s(k) / j_s(k)) / k`` with ``P_s`` the pooled documents of stratum
    ``s`` above ``k``, ``j_s`` the sampled ones, ``r_s`` the relevant sampled ones (``r/j``
    smoothed as ``(r + eps) / (j + eps / prior)``; with the default ``eps = 0``: ``r/j``, and
    ``prior`` = 1/2 where ``j = 0``; trec_eval's infAP smooths with ``eps = 0.00001, prior =
    1/2``, sample_eval's infAP with ``eps = 0.00001, prior = 1/3``). Then
    ``xinfAP = sum_{sampled relevant retrieved} c_k / pi_s(k) / R_hat``,
    ``R_hat = sum_s r_s N_s / n_s`` the estimated number of relevant documents. With one stratum
    and ``eps = 0.00001`` this is trec_eval's infAP (Yilmaz & Aslam 2006).
infNDCG (Yilmaz, Kanoulas & Aslam 2008)
    ``DCG_hat@k = sum_s M_s / m_s sum_{sampled d of s in the top k} gain(d) / log2(rank + 1)``,
    ``M_s`` and ``m_s`` the pooled and the sampled documents of stratum ``s`` in the top k; the
    ideal DCG is that of ``round(N_hat_g)`` documents of each grade ``g``,
    ``N_hat_g = sum_s (sampled documents of grade g in s) N_s / n_s``, cut at k or at
    ``ideal_depth``. ``infNDCG = DCG_hat / ideal`` (gains as trec_eval's nDCG: the grade, or
    ``gains=``).
statAP (Aslam, Pavlu & Yilmaz 2006)
    AP written over pairs, ``(1/R) sum_{j <= k} x_j x_k / k``, each pair weighted by the inverse
    of its joint inclusion probability (Horvitz-Thompson): for stratified sampling without
    replacement ``pi_jk = pi_j pi_k`` across strata and ``n(n-1) / (N(N-1))`` inside one.
    ``statAP = sum_{sampled relevant retrieved k} (1/pi_k)(1/k)(1 + sum_{sampled relevant j
    above k} pi_k / pi_jk) / R_hat``.

infP@k, infNumRelRet, infNumRel
    The estimated relevant documents in the top k (``sum_s M_s(k) r_s(k) / m_s(k)``) / k, among
    all retrieved, and ``R_hat`` (sample_eval's iP<k>, inum_rel_ret, inum_rel).

With every pooled document judged each estimate equals its measure exactly (AP, nDCG, P@k,
NumRelRet, NumRel; tests).

Variances (``*_var``, per topic; the summary is their mean, so the variance of the mean over
``T`` topics is that summary / T and a 95 % interval of the mean is ``mean +- 1.96 sqrt(var /
T)``): the stratified-sampling variance without replacement of the Horvitz-Thompson totals,
``sum_s N_s^2 (1 - n_s / N_s) S_s^2 / n_s`` with ``S_s^2`` the sample variance inside stratum
``s`` (0 where ``n_s < 2``). For xinfAP and statAP, ratios of two estimated totals, the
linearised (delta-method) residual ``y_d - theta x_d`` is used, with ``x_d`` = 1 for a relevant
document and ``y_d`` its influence on the numerator, a sum over pairs: ``c_d`` plus ``sum_{j
below d} x_j / (pi_j k_j)`` over the sampled relevant retrieved documents below it (0 for one
not retrieved); for infNDCG the ideal DCG is held fixed.
They are the variance over the sampling of the judgments, not over topics.

References
----------
E. Yilmaz, E. Kanoulas and J. A. Aslam. A simple and efficient sampling method for estimating
AP and NDCG. SIGIR 2008.
J. A. Aslam, V. Pavlu and E. Yilmaz. A statistical method for system evaluation using
incomplete judgments. SIGIR 2006.
E. Yilmaz and J. A. Aslam. Estimating average precision with incomplete and imperfect
judgments. CIKM 2006.

Size: one module because xinfAP, infNDCG and statAP share the sampling-stratum estimators and their
variance; it is declarations plus those estimators.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..registry import Family, Param, register

YKA = ("E. Yilmaz, E. Kanoulas and J. A. Aslam. A simple and efficient sampling method for "
       "estimating AP and NDCG. SIGIR 2008.")
APY = ("J. A. Aslam, V. Pavlu and E. Yilmaz. A statistical method for system evaluation using "
       "incomplete judgments. SIGIR 2006.")


# ---------------------------------------------------------------------------------------------
# the strata of the qrels (qrels side, cached per prepared run)
# ---------------------------------------------------------------------------------------------


class Strata:
    """The strata of the qrels of a prepared run.

    Attributes
    ----------
    row : ndarray int64 (m,)
        Stratum of each qrels row.
    N, n : ndarray float64 (S,)
        Pooled and sampled documents of each stratum.
    topic : ndarray int64 (S,)
        Qrels topic of each stratum.
    local : ndarray int64 (S,)
        Index of the stratum among its topic's strata; ``width`` is the largest count + 1.
    table : ndarray int64 (n_qrels_topics, width)
        Stratum of (topic, local index), -1 where the topic has fewer strata.
    value : ndarray int64 (m,)
        The qrels values.
    """

    def __init__(self, q):
        strat = getattr(q, "stratum", None)
        if strat is not None and len(getattr(q, "size", ())):
            self.row = np.asarray(strat, np.int64)
            self.topic = np.asarray(q.stratum_topic, np.int64)
        else:  # ordinary qrels: one stratum per topic
            self.row = np.asarray(q.topic, np.int64)
            self.topic = np.arange(len(q.topics), dtype=np.int64)
        S = len(self.topic)
        self.value = np.asarray(q.value, np.int64)
        self.N = np.bincount(self.row, minlength=S).astype(np.float64)
        self.n = np.bincount(self.row[self.value >= 0], minlength=S).astype(np.float64)
        first = np.r_[0, np.flatnonzero(np.diff(self.topic)) + 1] if S else np.zeros(0, int)
        start = np.zeros(S, np.int64)
        if S:
            start[first] = first
            start = np.maximum.accumulate(start)
        self.local = np.arange(S) - start
        self.width = int(self.local.max(initial=-1)) + 1
        self.table = np.full((len(q.topics), max(self.width, 1)), -1, np.int64)
        self.table[self.topic, self.local] = np.arange(S)
        self.n_topics = len(q.topics)

    @property
    def weight(self) -> np.ndarray:
        """``N_s / n_s`` (1 / inclusion probability), 0 for a stratum without a sample."""
        return np.divide(self.N, self.n, out=np.zeros_like(self.N), where=self.n > 0)

    def count(self, mask: np.ndarray) -> np.ndarray:
        """Qrels rows with ``mask`` per stratum, float64 (S,)."""
        return np.bincount(self.row[mask], minlength=len(self.topic)).astype(np.float64)

    def per_topic(self, x: np.ndarray) -> np.ndarray:
        """Sum of a per-stratum quantity over each qrels topic's strata, float64 (n_topics,)."""
        return np.bincount(self.topic, weights=x, minlength=self.n_topics)


def _strata(R) -> Strata:
    P = R.prepared
    if P is None or P.qrels is None or R.line is None:
        from ..errors import MeasureError

        regime = "expected" if getattr(R, "fractional", False) else "this"
        raise MeasureError(f"the sampled-judgment measures (xinfAP, infNDCG, statAP, infP, "
                           f"infNumRel...) are not defined under the {regime} regime here: they "
                           "need a ranking of whole documents of a prepared run")
    key = ("sampled_strata",)
    s = P.shared.get(key)
    if s is None:
        s = P.shared[key] = Strata(P.qrels)
    return s


def _positions(R):
    """Per position: stratum (-1 outside the pool), pooled and sampled indicators, qrels value
    (-1 outside the pool), evaluated and qrels topic, replica; memoised on the ranking."""
    def make():
        st = _strata(R)
        P = R.prepared
        p = SimpleNamespace()
        p.st = st
        line = R.line
        qrow = np.full(len(line), -1, np.int64)
        ok = line >= 0
        qrow[ok] = P.J.qrow[line[ok]]
        pooled = qrow >= 0
        p.s = np.where(pooled, st.row[np.maximum(qrow, 0)], -1) if len(st.row) else \
            np.full(len(line), -1, np.int64)
        p.value = np.where(pooled, st.value[np.maximum(qrow, 0)], -1) if len(st.value) else \
            np.full(len(line), -1, np.int64)
        p.pooled = pooled
        p.sampled = pooled & (p.value >= 0)
        T0 = max(len(P.topic_ids), 1)
        p.T0 = T0
        p.reps = max(R.n_topics // T0, 1)
        p.qtopic_of = np.asarray(P.topic_ids, np.int64)          # evaluated -> qrels topic
        p.qt = p.qtopic_of[R.topic % T0] if len(R.topic) else np.zeros(0, np.int64)
        p.rep = R.topic // T0
        p.local = np.where(pooled, st.local[np.maximum(p.s, 0)], -1) if len(st.local) else \
            np.full(len(line), -1, np.int64)
        return p
    return R.cached(("sampled_pos",), make)


def _above(R, p, flag: np.ndarray, name: str) -> np.ndarray:
    """(width, n): for local stratum j, positions of stratum j with ``flag`` above each
    position (per topic, ranks before it)."""
    def make():
        out = np.zeros((p.st.width, len(flag)))
        for j in range(p.st.width):
            x = (flag & (p.local == j)).astype(np.float64)
            out[j] = R.cumsum(x) - x
        return out
    return R.cached(("sampled_above", name), make)


def _keyed(p, x: np.ndarray, where: np.ndarray) -> np.ndarray:
    """Sum of ``x`` over positions ``where`` per (replica, stratum), float64 (reps * S,)."""
    S = len(p.st.topic)
    key = p.rep[where] * S + p.s[where]
    return np.bincount(key, weights=x[where], minlength=p.reps * S)


def _topic_of_keys(p) -> np.ndarray:
    """Ranking topic of each (replica, stratum) key, -1 for strata of unevaluated topics."""
    inv = np.full(p.st.n_topics, -1, np.int64)
    inv[p.qtopic_of] = np.arange(len(p.qtopic_of))
    ev = inv[p.st.topic]
    S = len(ev)
    reps = np.repeat(np.arange(p.reps), S)
    e = np.tile(ev, p.reps)
    return np.where(e >= 0, reps * p.T0 + e, -1)


def _stratified_var(p, n_topics, tsum_z, tsum_z2, scale=None) -> np.ndarray:
    """sum_s N^2 (1 - n/N) S^2 / n per ranking topic, from the per-key sums of the residual
    and of its square over the stratum's sample (S^2 = 0 where n < 2)."""
    st = p.st
    N = np.tile(st.N, p.reps)
    n = np.tile(st.n, p.reps)
    with np.errstate(divide="ignore", invalid="ignore"):
        s2 = np.where(n >= 2, (tsum_z2 - tsum_z * tsum_z / n) / (n - 1), 0.0)
        c = np.where(n > 0, N * N * (1.0 - n / N) * np.maximum(s2, 0.0) / n, 0.0)
    t = _topic_of_keys(p)
    ok = t >= 0
    return np.bincount(t[ok], weights=c[ok], minlength=n_topics)


# ---------------------------------------------------------------------------------------------
# xinfAP and statAP: sum over sampled relevant retrieved documents of c_k / pi, over R_hat
# ---------------------------------------------------------------------------------------------


def _precisions(R, m, how: str):
    """(p, rel mask, c per position): the precision estimate at every position (used at the
    sampled relevant ones)."""
    p = _positions(R)
    st = p.st
    L = max(int(m["rel"]), 1)
    rel = p.sampled & (p.value >= L)
    relA = _above(R, p, rel, ("rel", L))
    rank = R.rank.astype(np.float64)
    acc = np.zeros(len(rank))
    if how == "xinf":
        pooledA = _above(R, p, p.pooled, "pooled")
        sampA = _above(R, p, p.sampled, "sampled")
        for j in range(st.width):
            acc += _scaled(pooledA[j], relA[j], sampA[j], m)
    else:  # statAP: pi_k / pi_jk per stratum of j
        w = st.weight
        with np.errstate(divide="ignore", invalid="ignore"):
            w_own = np.where(st.n >= 2, (st.N - 1) / (st.n - 1), 0.0)
        for j in range(st.width):
            sj = st.table[p.qt, j] if len(p.qt) else np.zeros(0, np.int64)
            has = sj >= 0
            wj = np.where(has, w[np.maximum(sj, 0)], 0.0)
            own = has & (p.local == j)
            wj = np.where(own, w_own[np.maximum(sj, 0)], wj)
            acc += relA[j] * wj
    c = (1.0 + acc) / rank
    return p, rel, c, L


def _ratio(R, m, how: str, var: bool):
    p, rel, c, L = _precisions(R, m, how)
    st = p.st
    T = R.n_topics
    w = st.weight
    wpos = np.where(rel, w[np.maximum(p.s, 0)], 0.0)
    num = R.tsum(c * wpos, rel)
    a = st.count(st.value >= L)                           # sampled relevant per stratum
    rhat_q = _rhat(st, L)
    rhat = rhat_q[p.qtopic_of][np.arange(T) % p.T0] if T else np.zeros(0)
    theta = np.divide(num, rhat, out=np.zeros(T), where=rhat > 0)
    if not var:
        return theta
    th = theta[R.topic]
    # influence of each sampled relevant document on the numerator (the derivative of the sum
    # over pairs): its own precision term plus its share of the terms of the relevant below it
    share = np.where(rel, wpos / R.rank, 0.0)
    below = R.tsum(share)[R.topic] - R.cumsum(share)
    y = c + below
    A = _keyed(p, y, rel)
    B = _keyed(p, (y - th) ** 2, rel)
    b = _keyed(p, np.ones(len(c)), rel)
    ak = np.tile(a, p.reps)
    thk = np.zeros(len(ak))
    t = _topic_of_keys(p)
    thk[t >= 0] = theta[t[t >= 0]]
    sz = A - ak * thk
    sz2 = B + (ak - b) * thk * thk
    v = _stratified_var(p, T, sz, sz2)
    return np.divide(v, rhat * rhat, out=np.zeros(T), where=rhat > 0)


def xinf_ap(R, m):
    """xinfAP per topic, float64 (T,) (module docstring)."""
    return _ratio(R, m, "xinf", False)


def xinf_ap_var(R, m):
    """Sampling variance of xinfAP per topic, float64 (T,) (module docstring)."""
    return _ratio(R, m, "xinf", True)


def stat_ap(R, m):
    """statAP per topic, float64 (T,) (module docstring)."""
    return _ratio(R, m, "stat", False)


def stat_ap_var(R, m):
    """Sampling variance of statAP per topic, float64 (T,) (module docstring)."""
    return _ratio(R, m, "stat", True)


# ---------------------------------------------------------------------------------------------
# inferred counts and precision
# ---------------------------------------------------------------------------------------------


def _scaled(count, r, j, m):
    """``count x`` the fraction of relevant documents among the ``j`` sampled of a stratum,
    smoothed as the ``eps`` and ``prior`` parameters say: ``count (r + eps) / (j + eps /
    prior)``, the denominator's ``eps / prior`` rounded to 15 significant digits (so that
    ``prior=1/3`` adds sample_eval's 0.00003 exactly), computed in sample_eval's order."""
    eps, prior = float(m["eps"]), float(m["prior"])
    with np.errstate(divide="ignore", invalid="ignore"):
        if eps > 0:
            den = float(f"{eps / prior:.15g}")
            return count * (r + eps) / (j + den)
        return np.where(j > 0, count * r / j, count * prior)


def _rhat(st, level: int) -> np.ndarray:
    """``R_hat`` per qrels topic: ``sum_s (r_s N_s) / n_s`` over its strata (sample_eval's
    order of operations)."""
    a = st.count(st.value >= max(int(level), 1))
    terms = np.divide(a * st.N, st.n, out=np.zeros_like(st.N), where=st.n > 0)
    return st.per_topic(terms)


def _inf_rel_ret(R, m, k):
    """Estimated relevant documents in the top k (None: all retrieved), float64 (T,):
    ``sum_s M_s(k) r_s(k) / m_s(k)`` over the strata of the pool."""
    p = _positions(R)
    L = max(int(m["rel"]), 1)
    inside = np.ones(len(R.rank), bool) if k is None else R.rank <= k
    one = np.ones(len(R.rank))
    M = _keyed(p, one, p.pooled & inside)
    j = _keyed(p, one, p.sampled & inside)
    r = _keyed(p, one, p.sampled & inside & (p.value >= L))
    est = _scaled(M, r, j, m)
    t = _topic_of_keys(p)
    ok = (t >= 0) & (M > 0)
    return np.bincount(t[ok], weights=est[ok], minlength=R.n_topics)


def inf_precision(R, m):
    """Inferred precision at k per topic (sample_eval's iP<k>), float64 (T,)."""
    return _inf_rel_ret(R, m, m.cutoff) / m.cutoff


def inf_num_rel_ret(R, m):
    """Estimated relevant documents retrieved per topic (sample_eval's inum_rel_ret)."""
    return _inf_rel_ret(R, m, None)


def inf_num_rel(R, m):
    """Estimated relevant documents of each topic, ``R_hat = sum_s r_s N_s / n_s``
    (sample_eval's inum_rel), float64 (T,)."""
    p = _positions(R)
    st = p.st
    rq = _rhat(st, m["rel"])
    return rq[p.qtopic_of][np.arange(R.n_topics) % p.T0] if R.n_topics else np.zeros(0)


def _est_cum(R, m):
    """Estimated relevant documents at ranks <= each position (per topic), float64 (n,)."""
    p = _positions(R)
    L = max(int(m["rel"]), 1)
    rel = p.sampled & (p.value >= L)
    pooledA = _above(R, p, p.pooled, "pooled")
    sampA = _above(R, p, p.sampled, "sampled")
    relA = _above(R, p, rel, ("rel", L))
    est = np.zeros(len(R.rank))
    for j in range(p.st.width):
        own = p.local == j
        est += _scaled(pooledA[j] + (p.pooled & own), relA[j] + (rel & own),
                       sampA[j] + (p.sampled & own), m)
    return est


def _suffix_max(x: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """max of x[start[t]:end[t]] per topic (0 where empty), exactly (``maximum.reduceat``)."""
    out = np.zeros(len(start))
    ok = start < end
    if ok.any():
        idx = np.ravel(np.c_[start[ok], end[ok]])
        red = np.maximum.reduceat(np.r_[x, 0.0], idx)   # x padded: an index may equal len(x)
        out[ok] = red[0::2]
    return out


def inf_iprec(R, m):
    """sample_eval's inferred interpolated precision at a recall level (``iprec@rec0.10``),
    float64 (T,).

    As sample_eval.pl computes it: with the estimated relevant documents ``e(r)`` at rank r and
    the levels ``c R_hat`` (c = 0, 0.1, ..., 1), levels above ``e(n)`` score 0; the others are
    met reading the ranks from the bottom up, at most one per rank: the highest level not yet
    met takes the largest precision ``e(r') / r'`` at ranks r' >= r at the first rank r (from the
    bottom) with ``e(r)`` below the level; the levels left when rank 1 is passed take the
    largest precision of the ranking."""
    x = float(m["recall"])
    T = R.n_topics
    est = _est_cum(R, m)
    rank = R.rank.astype(np.float64)
    prec = np.divide(est, rank, out=np.zeros(len(est)), where=rank > 0)
    st_ = R.starts
    first, end = st_[:-1], st_[1:]
    rhat = inf_num_rel(R, m)
    final = np.zeros(T)
    has = end > first
    final[has] = est[end[has] - 1]
    top = _suffix_max(prec, first, end)
    want = int(round(x * 10))
    pos = end.copy()                      # positions below ``pos`` are read already
    failed = np.zeros(T, bool)
    out = np.zeros(T)
    for c in range(10, want - 1, -1):
        cut = (c / 10) * rhat
        active = (cut <= final) & ~failed
        mask = (est < cut[R.topic]) & (np.arange(len(est)) < pos[R.topic]) & active[R.topic]
        last = np.full(T, -1, np.int64)
        idx = np.flatnonzero(mask)
        np.maximum.at(last, R.topic[idx], idx)
        found = active & (last >= 0)
        newly = active & (last < 0)
        failed |= newly
        val = np.where(failed, top, 0.0)
        if found.any():
            val[found] = _suffix_max(prec, np.where(found, last, end), end)[found]
        pos = np.where(found, last, pos)
        if c == want:
            out = np.where(cut <= final, val, 0.0)
    return out


# ---------------------------------------------------------------------------------------------
# infNDCG
# ---------------------------------------------------------------------------------------------


def _gain_of(values: np.ndarray, gains) -> np.ndarray:
    """Gain of qrels values (>= 0): the ``gains`` map's, else the value itself."""
    pm = dict(gains or ())
    v = np.asarray(values, np.int64)
    out = v.astype(np.float64)
    for g, x in pm.items():
        out[v == g] = x
    return out


def _ideal(R, p, gains, k) -> np.ndarray:
    """Estimated ideal DCG@k per qrels topic (n_qrels_topics,); ``k`` None: every estimated
    relevant document."""
    st = p.st

    def make():
        val = st.value
        judged = val >= 0
        grades = np.unique(val[judged])
        gg = _gain_of(grades, gains)
        keep = gg > 0
        grades, gg = grades[keep], gg[keep]
        order = np.argsort(-gg, kind="stable")
        grades, gg = grades[order], gg[order]
        w = st.weight
        counts = np.zeros((st.n_topics, len(grades)))
        for i, g in enumerate(grades):
            counts[:, i] = st.per_topic(st.count(val == g) * w)
        counts = np.floor(counts + 0.5).astype(np.int64)
        tot = counts.sum(axis=1)
        L = int(tot.max(initial=0)) if k is None else min(int(tot.max(initial=0)), k)
        disc = np.r_[0.0, np.cumsum(1.0 / np.log2(np.arange(2, L + 2)))]   # disc[r] = sum_1^r
        out = np.zeros(st.n_topics)
        for t in range(st.n_topics):
            start = 0
            s = 0.0
            for i in range(len(grades)):
                a, b = min(start, L), min(start + counts[t, i], L)
                s += gg[i] * (disc[b] - disc[a])
                start += counts[t, i]
            out[t] = s
        return out
    P = R.prepared
    key = ("sampled_ideal", gains, k)
    v = P.shared.get(key)
    if v is None:
        v = P.shared[key] = make()
    return v


def _inf_ndcg(R, m, var: bool):
    p = _positions(R)
    k = m.cutoff
    T = R.n_topics
    inside = np.ones(len(R.rank), bool) if k is None else R.rank <= k
    pooled = p.pooled & inside
    samp = p.sampled & inside
    gain = np.where(samp, _gain_of(np.maximum(p.value, 0), m["gains"]), 0.0)
    v = gain / np.log2(R.rank.astype(np.float64) + 1.0)
    M = _keyed(p, np.ones(len(v)), pooled)
    mm = _keyed(p, np.ones(len(v)), samp)
    G = _keyed(p, v, samp)
    t = _topic_of_keys(p)
    ok = (t >= 0) & (mm > 0)
    depth = m["ideal_depth"]
    ideal_q = _ideal(R, p, m["gains"], k if depth is None else min(depth, k or depth))
    ideal = ideal_q[p.qtopic_of][np.arange(T) % p.T0] if T else np.zeros(0)
    if not var:
        est = np.bincount(t[ok], weights=(M * G)[ok] / mm[ok], minlength=T)
        return np.divide(est, ideal, out=np.zeros(T), where=ideal > 0)
    Q = _keyed(p, v * v, samp)
    # the sample of stratum s inside the top k: m_s of M_s pooled documents
    N, n = M, mm
    with np.errstate(divide="ignore", invalid="ignore"):
        s2 = np.where(n >= 2, (Q - G * G / n) / (n - 1), 0.0)
        c = np.where(n > 0, N * N * (1.0 - n / N) * np.maximum(s2, 0.0) / n, 0.0)
    vv = np.bincount(t[t >= 0], weights=c[t >= 0], minlength=T)
    return np.divide(vv, ideal * ideal, out=np.zeros(T), where=ideal > 0)


def inf_ndcg(R, m):
    """infNDCG@k per topic, float64 (T,) (module docstring)."""
    return _inf_ndcg(R, m, False)


def inf_ndcg_var(R, m):
    """Sampling variance of infNDCG@k per topic, float64 (T,) (module docstring)."""
    return _inf_ndcg(R, m, True)


# ---------------------------------------------------------------------------------------------
# registration
# ---------------------------------------------------------------------------------------------

REL = Param("rel", "int", 1, "relevance level: a sampled document is relevant when its value "
            ">= rel", lambda v: None if v >= 1 else "must be >= 1")
EPS = Param("eps", "float", 0.0, "smoothing of the per-stratum precision (r + eps) / (j + eps / "
            "prior); 0: r / j, and prior where nothing of the stratum above is sampled (the "
            "limit); 0.00001 as trec_eval's infAP and sample_eval",
            lambda v: None if v >= 0 else "must be >= 0")
PRIOR = Param("prior", "float", 0.5, "precision assumed in a stratum with pooled but no sampled "
              "documents above: 1/2 as trec_eval's infAP (the limit of its smoothing), 1/3 as "
              "sample_eval (eps=0.00001, prior=0.3333333333333333 reproduces its infAP)",
              lambda v: None if 0 < v <= 1 else "must lie in (0, 1]")
GAINS = Param("gains", "gains", None, "gain of each relevance grade; unmapped grades keep their "
              "own value (sample_eval -G, trec_eval ndcg gains)")
IDEAL_DEPTH = Param("ideal_depth", "int", None, "the ideal DCG stops at this rank (sample_eval: "
                    "1000, its largest run); default: at k, or at the estimated number of "
                    "relevant documents", lambda v: None if v >= 1 else "must be >= 1")
QRELS = ("sampled judgments with strata (qid iter docno stratum rel, "
         "tiebreak.io.sampled.read_sampled_qrels) or ordinary qrels (one stratum per topic)")

register(Family("xinfAP", "extended inferred AP over stratified sampled judgments (sample_eval's "
                "infAP); " + QRELS, "normalised", xinf_ap, (REL, EPS, PRIOR), "none", "sampled",
                source=YKA))
register(Family("xinfAP_var", "sampling variance of xinfAP (per topic; the mean / T is the "
                "variance of the mean)", "other", xinf_ap_var, (REL, EPS, PRIOR), "none", "sampled",
                source=YKA))
register(Family("infNDCG", "inferred nDCG@k over stratified sampled judgments (sample_eval's "
                "infNDCG); " + QRELS, "normalised", inf_ndcg, (GAINS, IDEAL_DEPTH), "optional",
                "sampled", source=YKA))
register(Family("infNDCG_var", "sampling variance of infNDCG@k (per topic; the mean / T is the "
                "variance of the mean)", "other", inf_ndcg_var, (GAINS, IDEAL_DEPTH), "optional",
                "sampled", source=YKA))
register(Family("statAP", "statistical AP: Horvitz-Thompson estimate of AP from the inclusion "
                "probabilities of the sample; " + QRELS, "normalised", stat_ap, (REL,), "none",
                "sampled", source=APY))
register(Family("statAP_var", "sampling variance of statAP (per topic; the mean / T is the "
                "variance of the mean)", "other", stat_ap_var, (REL,), "none", "sampled",
                source=APY))
register(Family("infP", "inferred precision at k: estimated relevant documents in the top k / k "
                "(sample_eval's iP10, iP50, iP1000); " + QRELS, "normalised", inf_precision,
                (REL, EPS, PRIOR), "required", "sampled", source=YKA))
register(Family("infIPrec", "sample_eval's inferred interpolated precision at recall level "
                "0, 0.1, ..., 1 (iprec@rec0.10), over the estimated relevant documents; " +
                QRELS, "normalised", inf_iprec,
                (REL, EPS, PRIOR, Param("recall", "float", 0.0, "recall level, a multiple of "
                                        "0.1 in [0, 1] as sample_eval's",
                                        lambda v: None if 0 <= v <= 1 and
                                        abs(v * 10 - round(v * 10)) < 1e-9 else
                                        "must be one of 0, 0.1, ..., 1")),
                "none", "sampled", source=YKA + " NIST sample_eval.pl (2011)."))
register(Family("infNumRelRet", "estimated relevant documents retrieved (sample_eval's "
                "inum_rel_ret)", "other", inf_num_rel_ret, (REL, EPS, PRIOR), "none",
                "sampled", summary="sum", source=YKA))
register(Family("infNumRel", "estimated relevant documents of the topic, sum over strata of "
                "relevant sampled x N / n (sample_eval's inum_rel)", "count", inf_num_rel,
                (REL,), "none", "trec_order", summary="sum", source=YKA))


def interval(values, variances, level: float = 0.95) -> tuple[float, float, float]:
    """Mean over topics of an estimate and its confidence interval from per-topic sampling
    variances (topics sampled independently): ``mean +- z sqrt(sum var) / T``.

    Parameters
    ----------
    values, variances : array-like float (T,)
        Per-topic estimates (``xinfAP``) and their variances (``xinfAP_var``); NaN topics are
        left out.
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    (mean, low, high) : floats
    """
    from statistics import NormalDist

    v = np.asarray(values, np.float64)
    s = np.asarray(variances, np.float64)
    ok = ~(np.isnan(v) | np.isnan(s))
    T = int(ok.sum())
    if not 0 < level < 1:
        raise ValueError("level must lie in (0, 1)")
    if T == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(v[ok].mean())
    half = NormalDist().inv_cdf(0.5 + level / 2) * float(np.sqrt(s[ok].sum())) / T
    return mean, mean - half, mean + half
