"""The C/W/L family of user-model measures (Moffat, Bailey, Scholer & Thomas 2017;
Azzopardi, Thomas & Moffat 2019), computed as cwl_eval 1.0.12 computes them.

A C/W/L measure is given by its continuation probability C(i): the chance that a user who has
looked at rank i goes on to rank i+1. The weight of rank i is
``W(i) = prod_{j<i} C(j) / sum_{m=1..D} prod_{j<m} C(j)`` and the measure's value is the
expected utility per item ``EU = sum_i W(i) g_i``. cwl_eval evaluates every ranking at a fixed
depth ``D`` (``max_n`` = 1000): ranks after the retrieved list are padded with the minimum gain
(0) and unit cost, and lists longer than ``D`` are cut. The kernels here do the same, so a topic
with nothing retrieved scores 0 (and its residual is the value of an all-relevant list).

Gains are per position in [0, 1] (:func:`cwl_gain` maps grades the way ir_measures does:
``(clip(grade, min_rel, max_rel) - min_rel) / (max_rel - min_rel)``, unjudged = 0). Costs are per
position (default 1 per document, cwl_eval's default when no cost file is given).

**Residual** (cwl_eval ``-r``): EU of the best case (every unjudged document and every padded
rank up to ``D`` gets gain 1) minus EU of the worst case (they get 0, the reported value).

Regime treatment of each kernel (for the ``expected`` tie regime):

* ``linear``: W does not depend on the gains (INSQ, SDCG, TBG, U-measure, RBP, P): the exact
  expectation is the kernel on group-mean gains; the residual is linear in (1 - judged) too, so
  the residual kernels accept a fractional ``judged``.
* ``sampled``: C depends on the gains seen so far (INST, BPM, NERR8-11, IFT, RR): nonlinear,
  expectation by sampling orderings.

All kernels: positions of all topics sorted by (topic, rank); ``topic`` int64 (n,), ``rank``
int64 (n,) 1-based, ``gain`` float64 (n,), ``judged`` bool or float (n,) for residuals,
``n_topics`` T; they return float64 (T,).
"""

from __future__ import annotations

import numpy as np

from ..ranking._flat import dense

DEPTH = 1000  # cwl_eval's max_n



def cwl_gain(grade: np.ndarray, judged: np.ndarray, max_rel: float, min_rel: float = 0.0
             ) -> np.ndarray:
    """Gains in [0, 1] from qrels grades, as ir_measures' cwl_eval provider maps them.

    ``g = (clip(max(grade, 0), min_rel, max_rel) - min_rel) / (max_rel - min_rel)``; unjudged
    documents get 0. Raises ValueError when ``max_rel <= min_rel``.
    """
    if not max_rel > min_rel:
        raise ValueError(f"max_rel ({max_rel}) must be greater than min_rel ({min_rel})")
    g = np.clip(np.maximum(np.asarray(grade, np.float64), 0.0), min_rel, max_rel)
    return np.where(np.asarray(judged, bool), (g - min_rel) / (max_rel - min_rel), 0.0)


# ---------------------------------------------------------------------------------------------
# the engine
# ---------------------------------------------------------------------------------------------


def _ranks(depth: int) -> np.ndarray:
    return np.arange(1, depth + 1, dtype=np.float64)[None, :]


def _eu_from_c(C: np.ndarray, G: np.ndarray) -> np.ndarray:
    """EU = sum_i W(i) g_i with W(i) proportional to prod_{j<i} C(j) (cwl_eval's w_vector)."""
    cp = np.ones_like(C)
    if C.shape[1] > 1:
        cp[:, 1:] = np.cumprod(C[:, :-1], axis=1)
    return (cp * G).sum(axis=1) / cp.sum(axis=1)


def _eu_from_w(W: np.ndarray, G: np.ndarray) -> np.ndarray:
    s = W.sum(axis=1)
    return (W * G).sum(axis=1) / np.where(s > 0, s, 1.0)


def _matrices(topic, rank, gain, judged, cost, n_topics, depth, best):
    G = dense(topic, rank, gain, n_topics, depth, fill=1.0 if best else 0.0)
    if best:
        u = 1.0 - np.asarray(judged, np.float64)
        G = G + dense(topic, rank, u, n_topics, depth, fill=0.0)
        G = np.minimum(G, 1.0)
    K = np.ones((n_topics, depth)) if cost is None else dense(topic, rank, cost, n_topics,
                                                             depth, fill=1.0)
    return G, K


BLOCK = 512  # topics per dense block (bounds memory at BLOCK x depth per matrix)


def _run(model, topic, rank, gain, n_topics, depth, judged=None, cost=None, residual=False):
    if residual and judged is None:
        raise ValueError("a residual needs the judged array")
    topic = np.asarray(topic, np.int64)
    rank = np.asarray(rank, np.int64)
    gain = np.asarray(gain, np.float64)
    out = np.zeros(n_topics)
    bounds = np.searchsorted(topic, np.arange(0, n_topics + BLOCK, BLOCK))
    for b, t0 in enumerate(range(0, n_topics, BLOCK)):
        nt = min(BLOCK, n_topics - t0)
        sl = slice(bounds[b], bounds[b + 1])
        tp, rk, g = topic[sl] - t0, rank[sl], gain[sl]
        c = None if cost is None else np.asarray(cost)[sl]
        G, K = _matrices(tp, rk, g, None, c, nt, depth, False)
        lo = model(G, K)
        if residual:
            Gb, _ = _matrices(tp, rk, g, np.asarray(judged)[sl], c, nt, depth, True)
            lo = model(Gb, K) - lo
        out[t0:t0 + nt] = lo
    return out


# continuation vectors ------------------------------------------------------------------------


def _c_inst(T: float):
    def model(G, K):
        i = _ranks(G.shape[1])
        Ti = T - np.cumsum(G, axis=1)
        C = ((i + T + Ti - 1.0) / (i + T + Ti)) ** 2
        return _eu_from_c(C, G)
    return model


def _c_insq(T: float):
    def model(G, K):
        i = _ranks(G.shape[1])
        C = np.broadcast_to(((i + 2.0 * T - 1.0) / (i + 2.0 * T)) ** 2, G.shape)
        return _eu_from_c(C, G)
    return model


def _c_sdcg(k: int):
    def model(G, K):
        i = _ranks(G.shape[1])
        C = np.where(i < k, np.log(i + 1.0) / np.log(i + 2.0), 0.0)
        return _eu_from_c(np.broadcast_to(C, G.shape), G)
    return model


def _c_rbp(p: float):
    def model(G, K):
        return _eu_from_c(np.full(G.shape, float(p)), G)
    return model


def _c_precision(k: int):
    def model(G, K):
        i = _ranks(G.shape[1])
        return _eu_from_c(np.broadcast_to(np.where(i < k, 1.0, 0.0), G.shape), G)
    return model


def _c_rr():
    def model(G, K):
        seen = np.cumsum(G > 0, axis=1) > 0
        return _eu_from_c(np.where(seen, 0.0, 1.0), G)
    return model


def _c_nerr(eq: int, k: int | None = None, p: float = 0.9, T: float = 1.0):
    def model(G, K):
        i = _ranks(G.shape[1])
        if eq == 8:
            C = np.where(i < k, 1.0 - G, 0.0)
        elif eq == 9:
            C = np.where(i < k, i / (i + 1.0) * (1.0 - G), 0.0)
        elif eq == 10:
            C = p * (1.0 - G)
        else:
            C = ((i + 2.0 * T - 1.0) / (i + 2.0 * T)) ** 2 * (1.0 - G)
        return _eu_from_c(C, G)
    return model


def _c_bpm(T: float, K_: float, dynamic: bool, hb: float, gain_med: float):
    def model(G, K):
        cg = np.cumsum(G, axis=1)
        cc = np.cumsum(K, axis=1)
        if dynamic:
            # threshold before rank i: T + hb * sum_{j<i} (g_j - gain_med)
            prev = np.zeros_like(cg)
            prev[:, 1:] = cg[:, :-1] - gain_med * np.arange(1, G.shape[1])[None, :]
            Ti = T + hb * prev
        else:
            Ti = T
        ok = np.logical_and.accumulate(cg < Ti, axis=1) & np.logical_and.accumulate(
            cc < K_, axis=1)
        return _eu_from_c(ok.astype(np.float64), G)
    return model


def _c_ift(T=None, b1=None, R1=None, A=None, b2=None, R2=None):
    def model(G, K):
        cg = np.cumsum(G, axis=1)
        C = np.ones_like(G)
        with np.errstate(over="ignore"):
            if T is not None:
                C = C * (1.0 - 1.0 / (1.0 + b1 * np.exp((T - cg) * R1)))
            if A is not None:
                cc = np.cumsum(K, axis=1)
                C = C * (1.0 / (1.0 + b2 * np.exp((A - cg / cc) * R2)))
        return _eu_from_c(C, G)
    return model


def _w_tbg(halflife: float):
    def model(G, K):
        before = np.zeros_like(K)
        before[:, 1:] = np.cumsum(K, axis=1)[:, :-1]
        return _eu_from_w(2.0 ** (-before / halflife), G)
    return model


def _w_umeasure(L: float):
    def model(G, K):
        before = np.zeros_like(K)
        before[:, 1:] = np.cumsum(K, axis=1)[:, :-1]
        W = np.maximum(0.0, 1.0 - before / L)
        W[:, -1] = 0.0  # cwl_eval gives the last of its D ranks no weight
        return _eu_from_w(W, G)
    return model


# ---------------------------------------------------------------------------------------------
# public kernels
# ---------------------------------------------------------------------------------------------


def inst(topic, rank, gain, n_topics, T=1.0, depth=DEPTH, judged=None, cost=None,
         residual=False) -> np.ndarray:
    """INST (Moffat et al. 2015): ``C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2`` with
    ``T_i = T - sum_{j<=i} g_j``. ``T`` is the expected total gain. Regime: sampled.
    ``residual=True`` returns cwl_eval's residual instead of the value (needs ``judged``)."""
    return _run(_c_inst(T), topic, rank, gain, n_topics, depth, judged, cost, residual)


def insq(topic, rank, gain, n_topics, T=1.0, depth=DEPTH, judged=None, cost=None,
         residual=False) -> np.ndarray:
    """INSQ (Moffat, Scholer & Thomas 2012): ``C(i) = ((i + 2T - 1) / (i + 2T))^2``.
    Regime: linear."""
    return _run(_c_insq(T), topic, rank, gain, n_topics, depth, judged, cost, residual)


def sdcg(topic, rank, gain, n_topics, k, depth=DEPTH, judged=None, cost=None,
         residual=False) -> np.ndarray:
    """Scaled DCG@k (cwl_eval ``NDCG-k``, ir_measures ``SDCG@k``):
    ``sum_{i<=k} g_i / log2(1+i)  /  sum_{i<=k} 1 / log2(1+i)``. Regime: linear."""
    return _run(_c_sdcg(int(k)), topic, rank, gain, n_topics, depth, judged, cost, residual)


def rbp(topic, rank, gain, n_topics, p=0.8, depth=DEPTH, judged=None, cost=None,
        residual=False) -> np.ndarray:
    """RBP (Moffat & Zobel 2008) as a C/W/L measure with ``C(i) = p`` over ``depth`` ranks:
    ``(1 - p) / (1 - p^D) * sum_{i<=D} p^(i-1) g_i`` (cwl_eval normalises the weights over its D
    ranks, so it differs from the infinite-depth form by the factor 1/(1 - p^D)).
    Regime: linear."""
    return _run(_c_rbp(p), topic, rank, gain, n_topics, depth, judged, cost, residual)


def precision(topic, rank, gain, n_topics, k, depth=DEPTH, judged=None, cost=None,
              residual=False) -> np.ndarray:
    """Graded P@k as a C/W/L measure (``C(i) = 1`` for i < k); mainly for its residual.
    Regime: linear."""
    return _run(_c_precision(int(k)), topic, rank, gain, n_topics, depth, judged, cost,
                residual)


def rr(topic, rank, gain, n_topics, depth=DEPTH, judged=None, cost=None,
       residual=False) -> np.ndarray:
    """RR as a C/W/L measure (cwl_eval): stop at the first positive gain; EU = that gain / its
    rank. Regime: sampled."""
    return _run(_c_rr(), topic, rank, gain, n_topics, depth, judged, cost, residual)


def nerr8(topic, rank, gain, n_topics, k, depth=DEPTH, judged=None, cost=None,
          residual=False) -> np.ndarray:
    """NERR Eq. 8 (Azzopardi, Mackenzie & Moffat 2021): ``C(i) = 1 - g_i`` for i < k, else 0.
    Regime: sampled."""
    return _run(_c_nerr(8, k=int(k)), topic, rank, gain, n_topics, depth, judged, cost,
                residual)


def nerr9(topic, rank, gain, n_topics, k, depth=DEPTH, judged=None, cost=None,
          residual=False) -> np.ndarray:
    """NERR Eq. 9: ``C(i) = i / (i + 1) * (1 - g_i)`` for i < k, else 0. Regime: sampled."""
    return _run(_c_nerr(9, k=int(k)), topic, rank, gain, n_topics, depth, judged, cost,
                residual)


def nerr10(topic, rank, gain, n_topics, p=0.9, depth=DEPTH, judged=None, cost=None,
           residual=False) -> np.ndarray:
    """NERR Eq. 10: ``C(i) = p (1 - g_i)``. Regime: sampled."""
    return _run(_c_nerr(10, p=p), topic, rank, gain, n_topics, depth, judged, cost, residual)


def nerr11(topic, rank, gain, n_topics, T=1.0, depth=DEPTH, judged=None, cost=None,
           residual=False) -> np.ndarray:
    """NERR Eq. 11: ``C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i)``. Regime: sampled."""
    return _run(_c_nerr(11, T=T), topic, rank, gain, n_topics, depth, judged, cost, residual)


def bpm(topic, rank, gain, n_topics, T=1.0, K=10.0, depth=DEPTH, judged=None, cost=None,
        residual=False, dynamic=False, hb=1.0, gain_med=0.5) -> np.ndarray:
    """Bejeweled Player Model (Zhang et al. 2017) as in cwl_eval: ``C(i) = 1`` while the gain
    so far is below ``T`` and the cost so far below ``K`` (ir_measures ``BPM(T=..)@K``), else 0.

    ``dynamic=True`` is cwl_eval's BPM-Dynamic: the gain target moves by
    ``hb * (g_i - gain_med)`` after each rank. cwl_eval 1.0.12 applies its ``hc`` update to the
    gain target after the gain loop has finished, so ``hc`` has no effect and the cost budget
    stays ``K``; this kernel reproduces that (there is no ``hc`` parameter). Regime: sampled.
    """
    return _run(_c_bpm(T, K, dynamic, hb, gain_med), topic, rank, gain, n_topics, depth,
                judged, cost, residual)


def tbg(topic, rank, gain, n_topics, halflife=224.0, depth=DEPTH, judged=None, cost=None,
        residual=False) -> np.ndarray:
    """Time-biased gain (Smucker & Clarke 2012) as a C/W/L measure: ``W(i)`` proportional to
    ``2^(-t_i / h)``, t_i the cost (time) spent before rank i, h the half-life, normalised over
    the D ranks. With unit costs this is RBP with p = 2^(-1/h). Regime: linear."""
    return _run(_w_tbg(halflife), topic, rank, gain, n_topics, depth, judged, cost, residual)


def umeasure(topic, rank, gain, n_topics, L=1000.0, depth=DEPTH, judged=None, cost=None,
             residual=False) -> np.ndarray:
    """U-measure (Sakai & Dou 2013) as a C/W/L measure: ``W(i)`` proportional to
    ``max(0, 1 - t_i / L)``, t_i the cost (text read) before rank i; cwl_eval gives the D-th
    rank no weight. Regime: linear."""
    return _run(_w_umeasure(L), topic, rank, gain, n_topics, depth, judged, cost, residual)


def ift(topic, rank, gain, n_topics, T=None, b1=None, R1=None, A=None, b2=None, R2=None,
        depth=DEPTH, judged=None, cost=None, residual=False) -> np.ndarray:
    """Information-foraging measure (Azzopardi, Thomas & Craswell 2018).

    Goal part (``T, b1, R1``): ``C1(i) = 1 - 1 / (1 + b1 exp((T - y_i) R1))``, y_i the gain so
    far; rate part (``A, b2, R2``): ``C2(i) = 1 / (1 + b2 exp((A - y_i / k_i) R2))``, k_i the
    cost so far. Give the goal part, the rate part or both (then ``C = C1 C2``; cwl_eval's
    IFT-C1, IFT-C2, IFT-C1-C2). Regime: sampled. Raises ValueError when neither part is given.
    """
    if T is None and A is None:
        raise ValueError("IFT needs the goal parameters (T, b1, R1), the rate parameters "
                         "(A, b2, R2), or both")
    return _run(_c_ift(T, b1, R1, A, b2, R2), topic, rank, gain, n_topics, depth, judged, cost,
                residual)


#: Name strings ir_measures parses for these families, accepted verbatim (examples of each
#: parameter form; any value is allowed where ir_measures allows one).
IR_MEASURES_NAMES = (
    "INST(max_rel=3)", "INST(T=3.0,max_rel=3)", "INST(T=1.0,min_rel=0,max_rel=2)",
    "INSQ(max_rel=3)", "INSQ(T=2.0,max_rel=3)",
    "SDCG(max_rel=3)@10", "SDCG(dcg='log2',max_rel=3)@5", "SDCG(min_rel=0,max_rel=2)@20",
    "BPM(max_rel=3)@10", "BPM(T=2.0,max_rel=3)@20",
    "NERR8(max_rel=3)@10", "NERR9(max_rel=3)@10", "NERR10(max_rel=3)", "NERR10(p=0.8,max_rel=3)",
    "NERR11(max_rel=3)", "NERR11(T=2.0,max_rel=3)",
)
