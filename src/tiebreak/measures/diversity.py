"""Intent-aware and novelty-biased diversity measures, as NIST's ndeval 4.5 (and its Python
binding pyndeval, ir_measures' provider) computes them.

Input (flat, all topics): ``topic`` int64 (n,) and ``rank`` int64 (n,) 1-based, positions sorted
by (topic, rank); the relevant (position, subtopic) pairs ``pos``/``sub`` int64 (p,) from
:func:`ranking_pairs` (binary: ``rel >= level``); ``n_sub`` float
(T,) the number of subtopics of each topic with at least one relevant document (ndeval's
"actual subtopics"; others are ignored). Every kernel returns float64 (T,), 0 for a topic
without relevant subtopics or with nothing retrieved.

With c_s(i) the number of documents above rank i relevant to subtopic s, the novelty-discounted
gain of rank i is ``g_i = sum_{s: d_i relevant to s} (1 - alpha)^{c_s(i)}`` (Clarke et al. 2008).

ndeval conventions reproduced here: alpha-DCG@k and ERR-IA@k are divided by the "ideal ideal"
value ``sum_{i<=k} S (1 - alpha)^(i-1) w(i)`` (collection-independent normalisation) except at
k = 1, which ndeval leaves undivided; alpha-nDCG@k, nERR-IA@k and nNRBP divide by the value of
a greedy ideal ranking of the judged documents (ties broken towards the larger docno); ndeval
caps cutoffs at 20, these kernels do not. Without a cutoff the whole list is evaluated (the
ideal-ideal value and P-IA's k then use the topic's number of retrieved documents).

The measures are registered in :mod:`tiebreak.measures.builtin.adhoc` under ir_measures' names
(``alpha_nDCG(alpha=,rel=,judged_only=)@k``, ``ERR_IA``, ``NRBP(alpha=,beta=)``, ...), read the
qrels' second column as the subtopic (``read_qrels(..., subtopics=True)``) and run under every
tie regime; ``expected`` is sampled, and ``lower``/``upper`` are the realistic/optimistic
orderings of the ad hoc value (not bounds: the best order of a tied group depends on which
subtopics its documents cover).
"""

from __future__ import annotations

import numpy as np

from ..ranking._flat import div, starts_of, tsum, within

CITATIONS = {
    "alpha-nDCG": "C. L. A. Clarke, M. Kolla, G. V. Cormack, O. Vechtomova, A. Ashkan, "
                  "S. Buttcher, I. MacKinnon. Novelty and diversity in information retrieval "
                  "evaluation. SIGIR 2008.",
    "ERR-IA": "O. Chapelle, D. Metzler, Y. Zhang, P. Grinspan. Expected reciprocal rank for "
              "graded relevance. CIKM 2009; R. Agrawal, S. Gollapudi, A. Halverson, S. Ieong. "
              "Diversifying search results. WSDM 2009.",
    "NRBP": "C. L. A. Clarke, M. Kolla, O. Vechtomova. An effectiveness measure for ambiguous "
            "and underspecified queries. ICTIR 2009.",
    "IA": "R. Agrawal, S. Gollapudi, A. Halverson, S. Ieong. Diversifying search results. "
          "WSDM 2009 (intent-aware P and AP); C. X. Zhai, W. W. Cohen, J. Lafferty. Beyond "
          "independent relevance. SIGIR 2003 (subtopic recall).",
    "ndeval": "NIST ndeval 4.5 (TREC Web track diversity task evaluation).",
}


def _novelty_gain(topic, pos, sub, n_pos, alpha):
    """g_i (n,) and, per pair, how many earlier pairs share its subtopic."""
    o = np.lexsort((pos, sub))
    s = sub[o]
    new = np.r_[True, s[1:] != s[:-1]] if len(s) else np.zeros(0, bool)
    start = np.flatnonzero(new)
    c_sorted = np.arange(len(s)) - start[np.cumsum(new) - 1] if len(s) else np.zeros(0, int)
    c = np.empty(len(s), np.int64)
    c[o] = c_sorted
    g = np.bincount(pos, weights=(1.0 - alpha) ** c, minlength=n_pos)
    return g, c


def _norm_ideal_ideal(n_sub, k, alpha, weight, topic=None):
    """sum_{i<=k} S (1 - alpha)^(i-1) w(i), w = 1/log2(1+i) or 1/i; 1 at k = 1 (ndeval).
    ``k`` None: each topic's own list length (from ``topic``, the positions' topics)."""
    n_sub = np.asarray(n_sub, np.float64)
    if k is None:
        kk = np.maximum(np.bincount(topic, minlength=len(n_sub)), 1)
    else:
        kk = np.full(len(n_sub), int(k))
    i = np.arange(1, int(kk.max(initial=1)) + 1, dtype=np.float64)
    z = np.cumsum((1.0 - alpha) ** (i - 1.0) * weight(i))
    return np.where(kk == 1, 1.0, n_sub * z[kk - 1])


def _dcg_w(i):
    return 1.0 / np.log2(i + 1.0)


def _err_w(i):
    return 1.0 / i


def _raw(topic, rank, pos, sub, n_topics, alpha, k, weight):
    g, _ = _novelty_gain(topic, pos, sub, len(topic), alpha)
    return tsum(topic, g * weight(rank.astype(np.float64)), n_topics, within(rank, k))


def alpha_dcg(topic, rank, pos, sub, n_topics, n_sub, k, alpha=0.5) -> np.ndarray:
    """alpha-DCG@k (ndeval: divided by the ideal-ideal gain, see the module docstring)."""
    raw = _raw(topic, rank, pos, sub, n_topics, alpha, k, _dcg_w)
    return div(raw, _norm_ideal_ideal(n_sub, k, alpha, _dcg_w, topic)) * (np.asarray(n_sub) > 0)


def err_ia(topic, rank, pos, sub, n_topics, n_sub, k, alpha=0.5) -> np.ndarray:
    """ERR-IA@k as ndeval computes it: ``sum_{i<=k} g_i / i`` over the ideal-ideal value."""
    raw = _raw(topic, rank, pos, sub, n_topics, alpha, k, _err_w)
    return div(raw, _norm_ideal_ideal(n_sub, k, alpha, _err_w, topic)) * (np.asarray(n_sub) > 0)


def _ideal_raw(ideal, n_topics, k, weight):
    it, ir, ig = ideal
    return tsum(it, ig * weight(ir.astype(np.float64)), n_topics, within(ir, k))


def alpha_ndcg(topic, rank, pos, sub, n_topics, ideal, k, alpha=0.5) -> np.ndarray:
    """alpha-nDCG@k = alpha-DCG@k of the run / of the greedy ideal ranking (``ideal`` from
    :func:`greedy_ideal` with the same alpha)."""
    raw = _raw(topic, rank, pos, sub, n_topics, alpha, k, _dcg_w)
    return div(raw, _ideal_raw(ideal, n_topics, k, _dcg_w))


def nerr_ia(topic, rank, pos, sub, n_topics, ideal, k, alpha=0.5) -> np.ndarray:
    """nERR-IA@k = ERR-IA@k of the run / of the greedy ideal ranking."""
    raw = _raw(topic, rank, pos, sub, n_topics, alpha, k, _err_w)
    return div(raw, _ideal_raw(ideal, n_topics, k, _err_w))


def nrbp(topic, rank, pos, sub, n_topics, n_sub, alpha=0.5, beta=0.5) -> np.ndarray:
    """NRBP (Clarke, Kolla & Vechtomova 2009):
    ``(1 - (1 - alpha) beta) / S * sum_i g_i beta^(i-1)`` over the whole list."""
    g, _ = _novelty_gain(topic, pos, sub, len(topic), alpha)
    raw = tsum(topic, g * beta ** (rank - 1.0), n_topics)
    return div(raw * (1.0 - (1.0 - alpha) * beta), n_sub)


def nnrbp(topic, rank, pos, sub, n_topics, ideal, alpha=0.5, beta=0.5) -> np.ndarray:
    """nNRBP = NRBP of the run / NRBP of the greedy ideal ranking."""
    g, _ = _novelty_gain(topic, pos, sub, len(topic), alpha)
    raw = tsum(topic, g * beta ** (rank - 1.0), n_topics)
    it, ir, ig = ideal
    return div(raw, tsum(it, ig * beta ** (ir - 1.0), n_topics))


def p_ia(topic, rank, pos, sub, n_topics, n_sub, k) -> np.ndarray:
    """P-IA@k: relevant (document, subtopic) pairs in the top k / (k S); ``k`` None: the whole
    list, over the number of retrieved documents."""
    m = within(rank[pos], k)
    kk = np.bincount(topic, minlength=n_topics) if k is None else k
    return div(np.bincount(topic[pos[m]], minlength=n_topics), kk * np.asarray(n_sub, float))


def st_recall(topic, rank, pos, sub, n_topics, n_sub, k=None) -> np.ndarray:
    """Subtopic recall@k (Zhai et al. 2003): subtopics covered by the top k / S."""
    m = within(rank[pos], k)
    _, idx = np.unique(sub[m], return_index=True)
    st = topic[pos[m][idx]]
    return div(np.bincount(st, minlength=n_topics), n_sub)


def ap_ia(topic, rank, pos, sub, n_topics, n_sub, sub_nrel) -> np.ndarray:
    """AP-IA (ndeval MAP-IA per topic): the mean over the S subtopics of each subtopic's AP,
    ``(1 / R_s) sum_{i: d_i relevant to s} (c_s(i) + 1) / i``. ``sub_nrel`` (n_subtopics,) is
    R_s for each subtopic index."""
    _, c = _novelty_gain(topic, pos, sub, len(topic), 0.0)
    term = (c + 1.0) / rank[pos] / np.asarray(sub_nrel, np.float64)[sub]
    return div(np.bincount(topic[pos], weights=term, minlength=n_topics), n_sub)


def greedy_ideal(sq, topics: list[str], level: int = 1, alpha: float = 0.5
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ndeval's greedy ideal ranking of every topic's judged documents: at each rank the
    document with the largest novelty-discounted gain (ties: the larger docno), until no
    document adds gain.

    Parameters
    ----------
    sq : SubtopicQrels
        (:mod:`tiebreak.io.subtopics`).
    topics : list[str]
        Topic ids the kernels' topic index refers to.

    Returns
    -------
    (ideal_topic, ideal_rank, ideal_gain) : flat arrays, the gain g_i at each ideal rank.
    """
    out_t: list[np.ndarray] = []
    out_r: list[np.ndarray] = []
    out_g: list[np.ndarray] = []
    tidx = {t: i for i, t in enumerate(sq.topics)}
    s_topic, s_doc, s_sub, s_val = sq.topic, sq.docid, sq.subtopic, sq.value
    starts = starts_of(s_topic, len(sq.topics))
    ends = np.r_[starts[1:], len(s_topic)]
    for ti, t in enumerate(topics):
        j = tidx.get(t)
        if j is None:
            continue
        sl = slice(starts[j], ends[j])
        # docids follow the docnos' byte order, so the largest docid is the largest docno
        docs, dinv = np.unique(s_doc[sl], return_inverse=True)
        subs, sinv = np.unique(s_sub[sl], return_inverse=True)
        J = np.zeros((len(docs), len(subs)))
        rel = s_val[sl] >= level
        J[dinv[rel], sinv[rel]] = 1.0
        w = np.ones(len(subs))
        free = np.ones(len(docs), bool)
        gains = []
        while True:
            sc = np.where(free, J @ w, -1.0)
            best = sc.max() if len(sc) else 0.0
            if best <= 0:
                break
            d = np.flatnonzero(sc == best)[-1]  # docnos sorted ascending: the larger wins
            gains.append(best)
            free[d] = False
            w = w * np.where(J[d] > 0, 1.0 - alpha, 1.0)
        n = len(gains)
        out_t.append(np.full(n, ti, np.int64))
        out_r.append(np.arange(1, n + 1))
        out_g.append(np.array(gains, np.float64))
    if not out_t:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return np.concatenate(out_t), np.concatenate(out_r), np.concatenate(out_g)


def subtopic_counts(sq, topics: list[str], level: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(n_sub (T,), sub_nrel (n_subtopics,)): subtopics with a relevant document per topic of
    ``topics``, and relevant documents per subtopic index."""
    rel = sq.value >= level
    sub_nrel = np.bincount(sq.subtopic[rel], minlength=len(sq.subtopics)).astype(np.float64)
    tidx = {t: i for i, t in enumerate(topics)}
    n_sub = np.zeros(len(topics))
    for s, (t, _) in enumerate(sq.subtopics):
        if sub_nrel[s] > 0 and t in tidx:
            n_sub[tidx[t]] += 1
    return n_sub, sub_nrel


# ---------------------------------------------------------------------------------------------
# the evaluation path: a Ranking of a prepared run whose qrels hold subtopic lines
# ---------------------------------------------------------------------------------------------


class SubtopicContext:
    """Qrels-side arrays of one relevance level, for the evaluated topics of a prepared run.

    Attributes
    ----------
    lo, hi : ndarray int64 (m,)
        For each ad hoc judgment of the qrels (row of ``Qrels.keys``), its relevant subtopic
        lines are ``sub[lo:hi]``.
    sub : ndarray int64 (l',)
        Subtopic index of every line with ``value >= level``, grouped by judgment.
    n_subtopics : int
        Subtopics of the qrels (``len(SubtopicLines.labels)``).
    n_sub : ndarray float64 (T,)
        Subtopics with a relevant document, per evaluated topic (ndeval's S).
    sub_nrel : ndarray float64 (n_subtopics,)
        Relevant documents of each subtopic (R_s).
    """

    def __init__(self, P, level: int):
        q = P.qrels
        L = q.subtopic_lines
        rel = L.value >= level
        rk = L.keys[rel]
        self.sub = L.subtopic[rel]
        self.lo = np.searchsorted(rk, q.keys, "left")
        self.hi = np.searchsorted(rk, q.keys, "right")
        self.n_subtopics = len(L.labels)
        self.sub_nrel = np.bincount(self.sub, minlength=self.n_subtopics).astype(np.float64)
        tidx = q.topic_index
        sub_topic = np.array([tidx[t] for t, _ in L.labels], np.int64)
        n_sub = np.bincount(sub_topic[self.sub_nrel > 0], minlength=len(q.topics))
        self.n_sub = n_sub[P.topic_ids].astype(np.float64)


def _context(P, level: int) -> SubtopicContext:
    key = ("subtopics", level)
    c = P.shared.get(key)
    if c is None:
        c = P.shared[key] = SubtopicContext(P, level)
    return c


def ranking_pairs(R, level: int):
    """The relevant (position, subtopic) pairs of a :class:`~tiebreak.ranking.Ranking`.

    Returns
    -------
    pos, sub : ndarray int64 (p,)
        Position index and subtopic index of every subtopic a position's document is relevant
        to (``value >= level``), sorted by position. In a sampled ranking (replica ``r`` of
        evaluated topic ``t`` is topic ``r T + t``) the subtopic index is offset by
        ``r * n_subtopics`` so that replicas never share a subtopic.
    ctx : SubtopicContext
    """
    from .errors import MeasureError

    P = R.prepared
    if R.line is None or P is None or P.qrels is None or P.qrels.subtopic_lines is None:
        raise MeasureError("diversity measures need subtopic qrels (qid subtopic docno rel): "
                           "read them with tiebreak.read_qrels(path, subtopics=True)")
    ctx = _context(P, level)
    line = R.line
    qrow = np.full(len(line), -1, np.int64)
    ok = line >= 0
    qrow[ok] = P.J.qrow[line[ok]]
    has = qrow >= 0
    lo = np.zeros(len(line), np.int64)
    cnt = np.zeros(len(line), np.int64)
    lo[has] = ctx.lo[qrow[has]]
    cnt[has] = ctx.hi[qrow[has]] - lo[has]
    pos = np.repeat(np.arange(len(line), dtype=np.int64), cnt)
    if len(pos):
        before = np.cumsum(cnt) - cnt
        idx = np.arange(len(pos)) - np.repeat(before, cnt) + np.repeat(lo, cnt)
        sub = ctx.sub[idx]
    else:
        sub = np.zeros(0, np.int64)
    T0 = max(len(P.topic_ids), 1)
    sub = sub + (R.topic[pos] // T0) * ctx.n_subtopics
    return pos, sub, ctx


def _tile(x: np.ndarray, reps: int) -> np.ndarray:
    return np.tile(x, reps) if reps > 1 else x


def _ideal(P, level: int, alpha: float):
    """Greedy ideal ranking of every evaluated topic (cached per level and alpha)."""
    key = ("subtopics_ideal", level, alpha)
    v = P.shared.get(key)
    if v is None:
        from ..io.subtopics import SubtopicQrels

        sq = SubtopicQrels(P.qrels)
        topics = [P.qrels.topics[i] for i in P.topic_ids]
        v = P.shared[key] = greedy_ideal(sq, topics, level, alpha)
    return v


def evaluate_ranking(R, m) -> np.ndarray:
    """Per-topic values (float64 (R.n_topics,)) of the diversity measure ``m`` (a registered
    diversity :class:`~tiebreak.measures.Measure`) on the ranking ``R``."""
    name = m.family.name
    level = m["rel"]
    alpha = m["alpha"] if "alpha" in dict(m.values) else 0.5
    pos, sub, ctx = ranking_pairs(R, level)
    P = R.prepared
    T0 = len(P.topic_ids)
    reps = R.n_topics // T0 if T0 else 1
    n_sub = _tile(ctx.n_sub, reps)
    t, r, T, k = R.topic, R.rank, R.n_topics, m.cutoff

    def ideal():
        it, ir, ig = _ideal(P, level, alpha)
        if reps > 1:
            it = (it[None, :] + T0 * np.arange(reps)[:, None]).ravel()
            ir, ig = np.tile(ir, reps), np.tile(ig, reps)
        return it, ir, ig

    if name == "alpha_DCG":
        return alpha_dcg(t, r, pos, sub, T, n_sub, k, alpha)
    if name == "alpha_nDCG":
        return alpha_ndcg(t, r, pos, sub, T, ideal(), k, alpha)
    if name == "ERR_IA":
        return err_ia(t, r, pos, sub, T, n_sub, k, alpha)
    if name == "nERR_IA":
        return nerr_ia(t, r, pos, sub, T, ideal(), k, alpha)
    if name == "NRBP":
        return nrbp(t, r, pos, sub, T, n_sub, alpha, m["beta"])
    if name == "nNRBP":
        return nnrbp(t, r, pos, sub, T, ideal(), alpha, m["beta"])
    if name == "P_IA":
        return p_ia(t, r, pos, sub, T, n_sub, k)
    if name == "StRecall":
        return st_recall(t, r, pos, sub, T, n_sub, k)
    if name == "AP_IA":
        return ap_ia(t, r, pos, sub, T, n_sub, _tile(ctx.sub_nrel, reps))
    raise KeyError(name)


IR_MEASURES_NAMES = (
    "alpha_nDCG@10", "alpha_nDCG(alpha=0.8)@20", "alpha_DCG@5", "ERR_IA@20", "nERR_IA@10",
    "NRBP", "NRBP(alpha=0.3,beta=0.8)", "nNRBP", "P_IA@10", "StRecall@20", "AP_IA",
    "alpha_nDCG(rel=2)@10",
)
