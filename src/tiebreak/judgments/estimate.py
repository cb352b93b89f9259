"""Estimating deep RBP scores from shallow pools (Lu 2018, ch. 6).

X. Lu, *Efficient and Effective Retrieval Using Higher-Order Proximity Models*, PhD thesis,
RMIT University, 2018, ch. 6; Lu, Moffat & Culpepper, "Can deep effectiveness metrics be
evaluated using shallow judgment pools?", SIGIR 2017, pp. 35-44; and "Modeling relevance as a
function of retrieval rank", AIRS 2016, pp. 3-15.

Pipeline, per topic, from judgments J' of a depth-d' pool of n contributing runs:

1. Empirical gain ``g_j = (1/n) sum_i r_{j,i}``, j = 1..d' (binary gain of the document at rank
   j of run i; Eq. 6.5).
2. Rank-level gain models ``G(k)`` (Table 6.3) fitted to (j, g_j) by bounded least squares
   (``scipy.optimize.least_squares``), predicted for ranks 1..``KMAX`` and clipped to [0, 1]:

   * ``static``: 0.5;
   * ``const``: ``lam`` for k <= m, else 0 (m in 1..d', lam the mean of g_1..g_m rounded to
     0.001: the least-squares optimum of the thesis's grid search);
   * ``lin``: ``max(c - lam k, 0)``, lam, c >= 0;
   * ``zipf``: ``lam / (k^c H_{KMAX,c})``, lam >= 0, 0 <= c <= 10;
   * ``weibull``: ``lam0 ((1 - lam1)^((k-1)^c) - (1 - lam1)^(k^c))`` (a discrete Weibull mass),
     lam0 >= 0, 0 < lam1 < 1, 0.001 <= c <= 10.

   A rank-level estimator gives an unjudged document at rank j of a run the gain ``G(j)``.
3. Two-stage combination (Algorithm 5). With ``k_{D,i}`` the rank of document D in contributing
   run i (``KMAX`` when absent), stage 1 finds, for each model l, weights ``w1`` on the
   n-simplex minimising a loss of ``h1(D) = sum_i w1_i G_l(k_{D,i})`` over the judged documents;
   stage 2 finds weights ``w2`` on the m-simplex for ``h2(D) = sum_l w2_l h1_l(D)``. Solver:
   ``scipy.optimize.minimize(method="SLSQP")`` with bounds [0, 1] and ``sum w = 1`` (the
   thesis's code; the thesis names none). Losses, with ``W(j) = (1-p) p^(j-1)`` (0 beyond the
   scoring depth):

   * ``L_a`` (Eq. 6.7, system level): ``sqrt(sum_i (sum_{j: s_{j,i} in J'} W(j) (h(s_{j,i}) -
     r_{j,i}))^2)``;
   * ``L_b`` (Eq. 6.8, document level): ``sum_{D in J'} sqrt(sum_i (W(k_{D,i}) (h(D) -
     r_D))^2)``, which equals ``sum_D |h(D) - r_D| * ||W(k_{D,.})||_2``.

4. Chao & Lee (1992) coefficient of variation gate (Eq. 6.10): with f_i the number of relevant
   documents that occur exactly i times in the top d' of the n runs, ``R' = sum f_i``,
   ``C = sum i f_i`` and ``Chat = 1 - f_1/C``,
   ``gamma^2 = max(R'/Chat * sum i(i-1) f_i / (C (C-1)) - 1, 0)``. A topic is adjusted only when
   ``gamma / n > theta`` (the thesis's code divides by n; theta = 0.018); otherwise its unjudged
   documents keep gain 0 (LB).

Scores are RBP(p) to the scoring depth d with judged documents at their binary gain and
unjudged ones at their estimate. Baselines (from the shallow judgments, the same depth): ``LB``
(unjudged = 0), ``UB`` (LB + residual, tail included), ``mid`` (the residual midpoint),
``RM`` (Ravana & Moffat 2010 interpolation ``Base / (1 - Delta)``; ``Base + 0.01 Delta`` when
Delta = 1).

Accuracy (Section 6.1.3): the error of an estimate against the deep range [LB, UB] is 0 inside
it and the distance to it outside (Eq. 6.2); ``RMSE`` is the per-topic root mean square over
systems averaged over topics (Eq. 6.3, primary), ``RMSE_sys`` the per-system one over topics
averaged over systems (Section 6.3.1); ``Acc%`` the share of zero errors; the system orderings
are compared by the normalised Kendall tau distance and the significance-weighted distance
(Eq. 6.4, alpha = 1, one-tailed p from the paired t-test) against the deep LB ordering.

Ties in run order follow the :class:`~tiebreak.judgments.pool.RunLists` (trec_eval's order by
default). The scoring here sums ``W(j) * gain`` directly because the gains are per-document
estimates; with every document judged it equals :class:`tiebreak.evaluation.Evaluator`'s
``RBP(p)@d`` (tested).

Size: one module because the estimators of Lu (2018) ch. 6 share the gain models, the fitting and
the residual bookkeeping.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..io import Qrels
from .pool import RunLists

__all__ = [
    "KMAX",
    "MODELS",
    "GainModel",
    "gain_curve",
    "fit_model",
    "empirical_gains",
    "chao_lee_gamma",
    "simplex_minimise",
    "two_stage",
    "Estimates",
    "estimate_scores",
    "epsilon",
    "accuracy",
    "tau_distance",
    "weighted_distance",
    "infrbp_scores",
    "ADJUSTMENTS",
    "leave_one_out_losses",
    "webber_park",
    "anti_precision",
    "predicted_relevance",
    "prediction_scores",
    "adjusted_scores",
    "RECALL_FAMILIES",
    "recall_scores",
    "read_gains",
    "gains_lookup",
]

KMAX = 1000
MODELS = ("static", "const", "lin", "zipf", "weibull")
TWO_STAGE_MODELS = ("lin", "zipf", "weibull")


# --------------------------------------------------------------------------- gain models


def gain_curve(name: str, params, kmax: int = KMAX) -> np.ndarray:
    """``G(k)`` for k = 1..kmax of model ``name`` with ``params`` (unclipped), float64 (kmax,).
    Raises ValueError for an unknown model."""
    k = np.arange(1, kmax + 1, dtype=np.float64)
    if name == "static":
        return np.full(kmax, 0.5)
    if name == "const":
        lam, m = params
        return np.where(k <= m, lam, 0.0)
    if name == "lin":
        lam, c = params
        return np.maximum(c - lam * k, 0.0)
    if name == "zipf":
        lam, c = params
        h = np.sum(np.arange(1, KMAX + 1, dtype=np.float64) ** -c)
        return lam / (k ** c * h)
    if name == "weibull":
        lam0, lam1, c = params
        q = 1.0 - lam1
        with np.errstate(divide="ignore", invalid="ignore"):
            return lam0 * (q ** ((k - 1) ** c) - q ** (k ** c))
    raise ValueError(f"unknown gain model {name!r}; choose from {', '.join(MODELS)}")


@dataclass
class GainModel:
    """A fitted rank-level gain model.

    Attributes
    ----------
    name : str
    params : tuple of float
    curve : ndarray float64, shape (KMAX,)
        ``G(k)`` for k = 1..KMAX, clipped to [0, 1].
    rmse : float
        Root mean square error on the fitted points.
    """

    name: str
    params: tuple
    curve: np.ndarray
    rmse: float = 0.0

    def __call__(self, k) -> np.ndarray:
        """G at ranks k (int array, 1-based; ranks beyond KMAX take G(KMAX))."""
        k = np.minimum(np.asarray(k, dtype=np.int64), len(self.curve))
        return self.curve[k - 1]


def fit_model(name: str, g) -> GainModel:
    """Fit model ``name`` to the empirical gains ``g`` (float array (d',), ranks 1..d').

    Raises
    ------
    ValueError
        Unknown model or empty ``g``.
    """
    from scipy.optimize import least_squares

    g = np.asarray(g, dtype=np.float64)
    if g.ndim != 1 or not len(g):
        raise ValueError("empirical gains must be a non-empty 1-D array")
    k = np.arange(1, len(g) + 1, dtype=np.float64)
    if name == "static":
        params: tuple = ()
    elif name == "const":
        best = None
        for m in range(1, len(g) + 1):
            lam = float(np.clip(np.round(g[:m].mean(), 3), 0, 0.999))
            err = float(np.sum((np.where(k <= m, lam, 0.0) - g) ** 2))
            if best is None or err < best[0] - 1e-15:
                best = (err, (lam, float(m)))
        params = best[1]
    elif name in ("lin", "zipf", "weibull"):
        K = len(g)

        def resid(x):
            return gain_curve(name, x, K) - g

        if name == "lin":
            x0, lo, hi = [0.01, max(g[0], 0.1)], [0, 0], [np.inf, np.inf]
        elif name == "zipf":
            x0, lo, hi = [1.0, 1.0], [0, 0], [np.inf, 10]
        else:
            x0, lo, hi = [1.0, 0.3, 1.0], [0, 1e-9, 1e-3], [np.inf, 1 - 1e-9, 10]
        params = tuple(float(v) for v in least_squares(resid, x0, bounds=(lo, hi),
                                                       method="trf").x)
    else:
        raise ValueError(f"unknown gain model {name!r}; choose from {', '.join(MODELS)}")
    curve = np.clip(np.nan_to_num(gain_curve(name, params)), 0, 1)
    rmse = float(np.sqrt(np.mean((curve[: len(g)] - g) ** 2)))
    return GainModel(name, params, curve, rmse)


# ---------------------------------------------------------------------- per-topic inputs


@dataclass
class TopicLists:
    """The contributing runs' lists of one topic as a document-by-run rank matrix.

    ``docs``: docno ids (into the RunLists vocabulary), shape (n_docs,); ``ranks``: int64
    (n_docs, n_runs), KMAX + 1 when absent; ``judged``: bool (n_docs,); ``gain``: float64
    (n_docs,) binary gain (0 when unjudged).
    """

    docs: np.ndarray
    ranks: np.ndarray
    judged: np.ndarray
    gain: np.ndarray


def _judgment_lookup(qrels: Qrels, L: RunLists) -> tuple[np.ndarray, np.ndarray]:
    from .pool import _qrels_keys_in

    k, ok = _qrels_keys_in(qrels, L.docnos)
    k, v = k[ok], qrels.value[ok]
    o = np.argsort(k)
    return k[o], v[o]


def _values(keys_sorted, vals, keys) -> np.ndarray:
    """qrels value per key, -1 when unjudged."""
    if not len(keys_sorted):
        return np.full(len(keys), -1)
    pos = np.searchsorted(keys_sorted, keys)
    pos[pos == len(keys_sorted)] = 0
    return np.where(keys_sorted[pos] == keys, vals[pos], -1)


def topic_lists(L: RunLists, qrels: Qrels, runs: list[int], depth: int) -> list[TopicLists]:
    """Per topic, the :class:`TopicLists` of ``runs`` (indices into ``L.names``) to ``depth``."""
    ks, vs = _judgment_lookup(qrels, L)
    out = []
    rsel = np.isin(L.run, runs) & (L.rank <= depth)
    col = {r: i for i, r in enumerate(runs)}
    for t in range(len(L.topics)):
        sel = rsel & (L.topic == t)
        docs, row = np.unique(L.doc[sel], return_inverse=True)
        ranks = np.full((len(docs), len(runs)), KMAX + 1, np.int64)
        ranks[row, [col[r] for r in L.run[sel]]] = L.rank[sel]
        v = _values(ks, vs, (t << 32) | docs)
        out.append(TopicLists(docs, ranks, v >= 0, (v >= 1).astype(np.float64)))
    return out


def empirical_gains(tl: TopicLists, dprime: int) -> np.ndarray:
    """Eq. 6.5: ``g_j`` for j = 1..d', float64 (d',): the mean over the runs of the binary gain
    of the document at rank j (unjudged and missing ranks count 0)."""
    n = tl.ranks.shape[1]
    g = np.zeros(dprime)
    r, c = np.nonzero(tl.ranks <= dprime)
    np.add.at(g, tl.ranks[r, c] - 1, tl.gain[r])
    return g / n


def chao_lee_gamma(occurrences) -> float:
    """Chao & Lee (1992) coefficient of variation gamma (Lu 2018 Eq. 6.10).

    ``occurrences``: int array, for each distinct relevant document, how many runs have it in
    their top d'. Returns gamma >= 0 (0 when there is no relevant document, ``C < 2`` or the
    estimated coverage is 0)."""
    occ = np.asarray(occurrences, dtype=np.int64)
    occ = occ[occ > 0]
    if not len(occ):
        return 0.0
    f = np.bincount(occ)
    i = np.arange(len(f))
    Rp, C = int(f.sum()), int(np.sum(i * f))
    chat = 1.0 - f[1] / C if len(f) > 1 else 1.0
    if chat <= 0 or C < 2:
        return 0.0
    g2 = Rp / chat * np.sum(i * (i - 1) * f) / (C * (C - 1)) - 1.0
    return float(np.sqrt(max(g2, 0.0)))


# ------------------------------------------------------------------------ optimisation


def simplex_minimise(fun, jac, dim: int, x0=None) -> np.ndarray:
    """Minimise ``fun`` over the simplex ``{w in [0,1]^dim : sum w = 1}`` with SLSQP from
    uniform weights (or ``x0``). Returns the weights, projected back onto the simplex."""
    from scipy.optimize import minimize

    if dim == 1:
        return np.ones(1)
    x0 = np.full(dim, 1.0 / dim) if x0 is None else np.asarray(x0, dtype=np.float64)
    r = minimize(fun, x0, jac=jac, method="SLSQP", bounds=[(0.0, 1.0)] * dim,
                 constraints=({"type": "eq", "fun": lambda w: 1.0 - w.sum(),
                               "jac": lambda w: -np.ones_like(w)},),
                 options={"maxiter": 100, "ftol": 1e-9})
    w = np.clip(r.x, 0, 1)
    s = w.sum()
    return w / s if s > 0 else np.full(dim, 1.0 / dim)


def _loss(kind: str, V: np.ndarray, r: np.ndarray, Wt: np.ndarray):
    """Loss and gradient of ``h = V @ w`` against binary gains ``r`` on the judged documents.

    ``V``: (n_judged, dim) per-document features; ``Wt``: (n_judged, n_runs) RBP weights of the
    document's rank in each contributing run (0 when absent or too deep)."""
    if kind == "a":
        M = Wt.T  # (n_runs, n_judged)

        def f(w):
            e = M @ (V @ w - r)
            return float(np.sqrt(e @ e))

        def jac(w):
            e = M @ (V @ w - r)
            n = np.sqrt(e @ e)
            return (V.T @ (M.T @ e)) / n if n > 0 else np.zeros_like(w)

        return f, jac
    if kind == "b":
        a = np.sqrt(np.sum(Wt ** 2, axis=1))

        def f(w):
            return float(np.sum(a * np.abs(V @ w - r)))

        def jac(w):
            return V.T @ (a * np.sign(V @ w - r))

        return f, jac
    raise ValueError(f"loss must be 'a' or 'b', got {kind!r}")


def two_stage(tl: TopicLists, models: list[GainModel], loss: str = "b", p: float = 0.95,
              depth: int = 100) -> dict:
    """Algorithm 5 (without the gamma gate) on one topic.

    Returns
    -------
    dict
        ``w1``: ndarray (m, n_runs) stage-1 weights; ``w2``: ndarray (m,); ``gain``: ndarray
        (n_docs,) combined gain of every document of ``tl`` (judged ones included);
        ``absent``: the combined gain of a document no contributing run retrieves.
    """
    n = tl.ranks.shape[1]
    Wfull = np.where(tl.ranks <= depth, (1 - p) * p ** (tl.ranks - 1.0), 0.0)
    J = tl.judged
    r = tl.gain[J]
    Wt = Wfull[J]
    absent_rank = np.full(n, KMAX, np.int64)
    g1, g1_absent, w1s = [], [], []
    for m in models:
        V = m(np.minimum(tl.ranks, KMAX))  # (n_docs, n_runs)
        if J.any():
            f, jac = _loss(loss, V[J], r, Wt)
            w1 = simplex_minimise(f, jac, n)
        else:
            w1 = np.full(n, 1.0 / n)
        w1s.append(w1)
        g1.append(V @ w1)
        g1_absent.append(float(m(absent_rank) @ w1))
    G1 = np.stack(g1, axis=1)  # (n_docs, m)
    if J.any() and len(models) > 1:
        f, jac = _loss(loss, G1[J], r, Wt)
        w2 = simplex_minimise(f, jac, len(models))
    else:
        w2 = np.full(len(models), 1.0 / len(models))
    return {"w1": np.stack(w1s), "w2": w2, "gain": np.clip(G1 @ w2, 0, 1),
            "absent": float(np.clip(np.dot(g1_absent, w2), 0, 1))}


# ---------------------------------------------------------------------------- estimation


@dataclass
class Estimates:
    """Estimated RBP scores of every run and topic.

    Attributes
    ----------
    runs, topics : list[str]
    estimators : list[str]
        E.g. ``LB``, ``UB``, ``mid``, ``RM``, ``lin``, ``zipf``, ``weibull``, ``L_b``.
    scores : ndarray float64, shape (n_estimators, n_runs, n_topics)
    lower, upper : ndarray float64, shape (n_runs, n_topics)
        The range the shallow judgments allow: RBP@d with unjudged = 0, and that plus the
        residual (tail included).
    gamma : ndarray float64 (n_topics,)
        Chao-Lee gamma / n of each topic; ``adjusted`` bool (n_topics,) ``gamma > theta``.
    models : list[dict[str, GainModel]]
        Per topic, the fitted models.
    empirical : list[ndarray]
        Per topic, the empirical gains g_1..g_d'.
    doc_gains : dict
        ``(estimator, topic index) -> (docno ids, gains)`` for the two-stage estimators.
    absent : dict
        ``(estimator, topic index) -> gain`` of a document no contributing run retrieves.
    """

    runs: list[str]
    topics: list[str]
    estimators: list[str]
    scores: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    gamma: np.ndarray
    adjusted: np.ndarray
    models: list
    empirical: list
    doc_gains: dict = field(default_factory=dict)
    absent: dict = field(default_factory=dict)

    def get(self, estimator: str) -> np.ndarray:
        """Scores of one estimator, shape (n_runs, n_topics)."""
        return self.scores[self.estimators.index(estimator)]


def _shallow_depth(tl: TopicLists) -> int:
    """The depth to which every contributing run is judged in this topic (at least 1)."""
    unj = ~tl.judged[:, None] & (tl.ranks <= KMAX)
    first = np.where(unj, tl.ranks, KMAX + 1).min(axis=0)
    return int(max(1, first.min() - 1))


def estimate_scores(L: RunLists, shallow: Qrels, contributing: list[str], dprime: int | None,
                    p: float = 0.95, depth: int = 100, models=("lin", "zipf", "weibull"),
                    losses=("b",), theta: float = 0.018, score_runs: list[str] | None = None,
                    rank_level=MODELS, thetas=(), clip: bool = False,
                    progress=None) -> Estimates:
    """Estimate RBP(p)@depth of runs from shallow judgments.

    Parameters
    ----------
    L : RunLists
        Ranked lists of all runs, built against ``shallow``.
    shallow : Qrels
        Judgments J' of a shallow pool.
    contributing : list of str
        Runs that formed the pool; the models and weights are fitted on them.
    dprime : int, optional
        Pool depth d' (the ranks used to fit); default per topic, the depth to which every
        contributing run is judged.
    p : float
        RBP persistence.
    depth : int
        Scoring depth d.
    models : list of str
        Rank-level models of the two-stage estimators.
    losses : list of {"a", "b"}
        Two-stage estimators ``L_a`` / ``L_b`` to compute.
    theta : float
        Chao-Lee gate on gamma / n for the two-stage estimators (0 adjusts every topic).
    score_runs : list of str, optional
        Runs to score (default all runs of ``L``).
    rank_level : list of str
        Rank-level estimators to report (any of :data:`MODELS`); they adjust every topic.
    thetas : list of float
        Extra gates: for each, the estimators ``lin|theta=x`` and ``L_a|theta=x`` /
        ``L_b|theta=x`` (unadjusted topics keep LB), as in the thesis's Tables 6.7-6.9.
    clip : bool
        Clip every estimate to [lower, upper] (RM can leave the range).

    Raises
    ------
    ValueError
        Unknown run, model or loss; p outside (0, 1).
    """
    if not 0 < p < 1:
        raise ValueError(f"p must be in (0, 1), got {p}")
    for m in (*models, *rank_level):
        if m not in MODELS:
            raise ValueError(f"unknown gain model {m!r}; choose from {', '.join(MODELS)}")
    for x in losses:
        if x not in ("a", "b"):
            raise ValueError(f"loss must be a or b, got {x!r}")
    cidx = [L.names.index(c) for c in contributing]
    sidx = [L.names.index(s) for s in (score_runs or L.names)]
    need = sorted(set(models) | set(rank_level))
    two = [f"L_{x}" for x in losses]
    gated = [(f"{e}|theta={th:g}", e, th) for th in thetas
             for e in (["lin"] if "lin" in rank_level else []) + two]
    est_names = ["LB", "UB", "mid", "RM", *rank_level, *two, *[g[0] for g in gated]]
    min_theta = min([theta, *thetas])
    nT = len(L.topics)
    scores = np.zeros((len(est_names), len(sidx), nT))
    lower = np.zeros((len(sidx), nT))
    upper = np.zeros((len(sidx), nT))
    gam = np.zeros(nT)
    adj = np.zeros(nT, bool)
    fitted, emp, dg, ab = [], [], {}, {}
    ks, vs = _judgment_lookup(shallow, L)
    w = (1 - p) * p ** np.arange(depth)
    tail = p ** depth
    tls = topic_lists(L, shallow, cidx, depth)
    for t in range(nT):
        if progress:
            progress(t)
        tl = tls[t]
        dp = dprime or _shallow_depth(tl)
        g = empirical_gains(tl, dp)
        emp.append(g)
        fm = {m: fit_model(m, g) for m in need}
        fitted.append(fm)
        occ = np.sum(tl.ranks <= dp, axis=1)[tl.gain > 0]
        gam[t] = chao_lee_gamma(occ) / len(cidx)
        adj[t] = gam[t] > theta
        combined = {}
        for x in losses:
            if gam[t] > min_theta:
                res = two_stage(tl, [fm[m] for m in models], x, p, depth)
                combined[f"L_{x}"] = res
                dg[(f"L_{x}", t)] = (tl.docs[~tl.judged], res["gain"][~tl.judged])
                ab[(f"L_{x}", t)] = res["absent"]
            else:
                combined[f"L_{x}"] = None
        for a, s in enumerate(sidx):
            sel = (L.run == s) & (L.topic == t) & (L.rank <= depth)
            rank = L.rank[sel]
            doc = L.doc[sel]
            v = _values(ks, vs, (t << 32) | doc)
            jd = v >= 0
            gain = (v >= 1).astype(np.float64)
            wr = w[rank - 1]
            base = float(np.sum(wr * gain))
            delta = float(np.sum(wr[~jd])) + tail
            lower[a, t], upper[a, t] = base, base + delta
            row = {"LB": base, "UB": base + delta, "mid": base + delta / 2,
                   "RM": base / (1 - delta) if delta < 1 else base + 0.01 * delta}
            for m in rank_level:
                row[m] = base + float(np.sum(wr[~jd] * fm[m](rank[~jd])))
            for name, res in combined.items():
                if res is None:
                    row[name] = base
                    continue
                pos = np.searchsorted(tl.docs, doc[~jd])
                pos[pos == len(tl.docs)] = 0
                found = tl.docs[pos] == doc[~jd]
                est = np.where(found, res["gain"][pos], res["absent"])
                row[name] = base + float(np.sum(wr[~jd] * est))
            for name, e, th in gated:
                row[name] = row[e] if gam[t] > th else base
            for name in two:
                if not adj[t]:
                    row[name] = base
            for e, name in enumerate(est_names):
                scores[e, a, t] = row[name]
    if clip:
        scores = np.clip(scores, lower[None], upper[None])
    return Estimates([L.names[s] for s in sidx], list(L.topics), est_names, scores, lower, upper,
                     gam, adj, fitted, emp, dg, ab)


def infrbp_scores(L: RunLists, deep: Qrels, contributing: list[str], dprime: int,
                  rate: float = 0.1, dmax: int = 100, p: float = 0.95, depth: int = 100,
                  seed: int = 0, score_runs: list[str] | None = None) -> np.ndarray:
    """InfRBP (Lu 2018 Eq. 6.1): RM applied to a two-strata sample.

    Stratum 1 is the depth-``dprime`` pool J' of the contributing runs, stratum 2 J_s a uniform
    sample of ``rate`` of the remaining candidates to depth ``dmax``
    (:func:`tiebreak.judgments.pool.pool_two_strata`, seeded); both take their judgments from
    ``deep``. For a run, with ``W(j) = (1-p) p^(j-1)`` over ranks j <= depth:

        est = sum_{s_j in J'} W(j) r_j + U * (G_s + 1e-5) / (W_s + 3e-5)

    where U is the weight of the ranks not in J', and G_s and W_s are the gain-weighted and
    plain weights of the sampled ranks. The gain rate observed on the sample is scaled up to
    all the weight outside stratum 1. The smoothing constants are those of the thesis's code.

    Returns ndarray float64 (n_runs, n_topics) for ``score_runs`` (default all runs).
    """
    from .pool import pool_depth, pool_two_strata

    s1 = pool_depth(L, dprime, contributing)
    ts = pool_two_strata(L, dprime, rate, dmax, contributing, seed)
    sample = np.setdiff1d(ts.keys, s1.keys)
    ks, vs = _judgment_lookup(deep, L)
    key = L.key()
    gain = (_values(ks, vs, key) >= 1).astype(np.float64)
    within = L.rank <= depth
    w = np.where(within, (1 - p) * p ** (L.rank - 1.0), 0.0)
    in1 = np.isin(key, s1.keys)
    ins = np.isin(key, sample)
    nT = len(L.topics)
    cell = L.run * nT + L.topic
    size = L.n_runs * nT

    def total(x):
        return np.bincount(cell, weights=x, minlength=size).reshape(L.n_runs, nT)

    base = total(w * gain * in1)
    unj = total(w * ~in1)
    est = base + unj * (total(w * gain * ins) + 1e-5) / (total(w * ins) + 3e-5)
    idx = [L.names.index(r) for r in (score_runs or L.names)]
    return est[idx]


# ---------------------------------------------------------- adjustments for unjudged documents

ADJUSTMENTS = ("webber-park", "anti-precision", "prediction")


def _rbp_weights(L: RunLists, p: float, depth: int) -> np.ndarray:
    return np.where(L.rank <= depth, (1 - p) * p ** (L.rank - 1.0), 0.0)


def leave_one_out_losses(L: RunLists, shallow: Qrels, contributing: list[str], dprime: int,
                         p: float = 0.95, depth: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """What each contributing run loses when the depth-``dprime`` pool is built without it.

    For contributing run s and topic t: ``dP[s, t] = RBP_s(J') - RBP_s(J'_{-s})`` (RBP(p)@depth
    with unjudged = 0, binary gain) and ``dA[s, t]`` the same for anti-RBP, the RBP weight of
    the judged non-relevant documents (Lipani, Lupu & Hanbury 2015's anti-precision with RBP
    weights). ``J'_{-s}`` keeps the judgments of ``shallow`` on the documents some other
    contributing run ranks in its top ``dprime``.

    Returns (dP, dA), float64 (n_contributing, n_topics), both >= 0.
    """
    cidx = np.array([L.names.index(c) for c in contributing], np.int64)
    ks, vs = _judgment_lookup(shallow, L)
    key = L.key()
    v = _values(ks, vs, key)
    w = _rbp_weights(L, p, depth)
    contrib = np.isin(L.run, cidx)
    top = contrib & (L.rank <= dprime)
    # how many contributing runs have each key in their top dprime (a run lists a doc once)
    tk, cnt = np.unique(key[top], return_counts=True)
    c = _values(tk, cnt, key)
    c = np.where(c < 0, 0, c)
    others = c - (top.astype(np.int64))  # runs other than this one with the key in their top d'
    lost = (v >= 0) & top & (others <= 0)
    nT = len(L.topics)
    cell = L.run * nT + L.topic
    size = L.n_runs * nT
    dP = np.bincount(cell, weights=w * lost * (v >= 1), minlength=size).reshape(L.n_runs, nT)
    dA = np.bincount(cell, weights=w * lost * (v == 0), minlength=size).reshape(L.n_runs, nT)
    return dP[cidx], dA[cidx]


def webber_park(lower: np.ndarray, dP: np.ndarray) -> np.ndarray:
    """Webber & Park (2009), method 1: a run's score plus the mean, over the contributing runs,
    of what leaving each out of the pool cost it (per topic).

    W. Webber and L. A. F. Park, "Score adjustment for correction of pooling bias", SIGIR 2009,
    pp. 444-451. ``lower``: (n_runs, n_topics) scores with unjudged = 0; ``dP``: (n_contrib,
    n_topics) from :func:`leave_one_out_losses`. Returns (n_runs, n_topics)."""
    return np.asarray(lower, float) + np.asarray(dP, float).mean(axis=0)[None, :]


def anti_precision(lower: np.ndarray, upper: np.ndarray, dP: np.ndarray,
                   dA: np.ndarray) -> np.ndarray:
    """An anti-precision adjustment after Lipani, Lupu & Hanbury (2015): the judged documents a
    leave-one-out removes split into relevant (precision lost, ``dP``) and non-relevant
    (anti-precision lost, ``dA``); their relevant share ``rho_t = sum_s dP / sum_s (dP + dA)``
    is the rate at which a run's unjudged weight is taken to be relevant:
    ``lower + rho_t * (upper - lower)``. With no loss on a topic (``dP + dA = 0``) there is no
    evidence and the score is left at ``lower`` (the paper adjusts only when its indicator
    says so).

    A. Lipani, M. Lupu and A. Hanbury, "Splitting water: precision and anti-precision to reduce
    pool bias", SIGIR 2015, pp. 103-112 (their estimator for P@k merges three indicators; this
    is the simpler ratio form, with RBP weights, described in Lu 2018 Section 2.4.4). Arrays:
    ``lower``, ``upper`` (n_runs, n_topics); ``dP``, ``dA`` (n_contrib, n_topics)."""
    num = np.asarray(dP, float).sum(axis=0)
    den = num + np.asarray(dA, float).sum(axis=0)
    rho = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
    return np.asarray(lower, float) + rho[None, :] * (np.asarray(upper, float) - lower)


def _rank_features(ranks: np.ndarray, p: float) -> np.ndarray:
    """(n_docs, 3) features of documents from their ranks in the contributing runs (n_docs,
    n_runs; > KMAX when absent): mean RBP(p) weight, share of runs retrieving the document,
    and -log of its best rank."""
    present = ranks <= KMAX
    w = np.where(present, (1 - p) * p ** (np.minimum(ranks, KMAX) - 1.0), 0.0)
    best = np.where(present, ranks, KMAX + 1).min(axis=1)
    return np.stack([w.mean(axis=1), present.mean(axis=1), -np.log(best)], axis=1)


def _logistic_fit(X: np.ndarray, y: np.ndarray, lam: float = 1.0) -> np.ndarray:
    """L2-penalised logistic regression (penalty ``lam/2 ||beta||^2`` on the weights, not the
    intercept) by L-BFGS; returns (intercept, weights...)."""
    from scipy.optimize import minimize

    Xa = np.hstack([np.ones((len(X), 1)), X])

    def f(b):
        z = Xa @ b
        nll = np.sum(np.logaddexp(0, z) - y * z)
        return nll + 0.5 * lam * b[1:] @ b[1:]

    def g(b):
        pr = 1 / (1 + np.exp(-(Xa @ b)))
        gr = Xa.T @ (pr - y)
        gr[1:] += lam * b[1:]
        return gr

    return minimize(f, np.zeros(Xa.shape[1]), jac=g, method="L-BFGS-B",
                    options={"gtol": 1e-10, "maxiter": 1000}).x


def predicted_relevance(tl: TopicLists, p: float = 0.95, lam: float = 1.0):
    """Probability of relevance of every document of one topic, predicted from the ranks the
    contributing runs give it (a rank-only variant of Büttcher, Clarke, Yeung & Soboroff,
    "Reliable information retrieval evaluation with incomplete and biased judgements", SIGIR
    2007, and Carterette & Allan, "Semiautomatic evaluation of retrieval systems using document
    similarities", CIKM 2007, who use document text; here there is none).

    An L2-penalised (``lam``) logistic regression on the standardised
    :func:`_rank_features` of the judged documents predicts the unjudged ones. With fewer than
    two classes among the judged documents every document gets the smoothed relevant rate
    ``(rel + 0.5) / (judged + 1)``. Returns (probabilities (n_docs,), probability of a
    document no contributing run retrieves)."""
    X = _rank_features(tl.ranks, p)
    X0 = _rank_features(np.full((1, tl.ranks.shape[1]), KMAX + 1), p)
    J = tl.judged
    y = tl.gain[J]
    if J.sum() == 0 or y.min() == y.max():
        rate = (y.sum() + 0.5) / (J.sum() + 1.0)
        return np.full(len(tl.docs), rate), float(rate)
    mu, sd = X[J].mean(axis=0), X[J].std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    b = _logistic_fit((X[J] - mu) / sd, y, lam)

    def prob(Z):
        return 1 / (1 + np.exp(-(b[0] + ((Z - mu) / sd) @ b[1:])))

    return prob(X), float(prob(X0)[0])


def prediction_scores(L: RunLists, shallow: Qrels, contributing: list[str], p: float = 0.95,
                      depth: int = 100, score_runs: list[str] | None = None) -> np.ndarray:
    """RBP(p)@depth with judged documents at their binary gain and unjudged ones at their
    :func:`predicted_relevance` (tail beyond ``depth`` not counted, as LB). Returns float64
    (n_runs, n_topics) for ``score_runs`` (default all runs of ``L``)."""
    cidx = [L.names.index(c) for c in contributing]
    sidx = [L.names.index(s) for s in (score_runs or L.names)]
    ks, vs = _judgment_lookup(shallow, L)
    tls = topic_lists(L, shallow, cidx, KMAX)
    nT = len(L.topics)
    out = np.zeros((len(sidx), nT))
    w = (1 - p) * p ** np.arange(depth)
    for t in range(nT):
        tl = tls[t]
        prob, absent = predicted_relevance(tl, p)
        for a, s in enumerate(sidx):
            sel = (L.run == s) & (L.topic == t) & (L.rank <= depth)
            doc, wr = L.doc[sel], w[L.rank[sel] - 1]
            v = _values(ks, vs, (t << 32) | doc)
            g = (v >= 1).astype(np.float64)
            if len(tl.docs):
                pos = np.minimum(np.searchsorted(tl.docs, doc), len(tl.docs) - 1)
                est = np.where(tl.docs[pos] == doc, prob[pos], absent)
            else:
                est = np.full(len(doc), absent)
            out[a, t] = float(np.sum(wr * np.where(v >= 0, g, est)))
    return out


def adjusted_scores(L: RunLists, shallow: Qrels, contributing: list[str], dprime: int,
                    lower: np.ndarray, upper: np.ndarray, p: float = 0.95, depth: int = 100,
                    methods=ADJUSTMENTS, score_runs: list[str] | None = None) -> dict:
    """The adjustments for unjudged documents of :data:`ADJUSTMENTS` on a depth-``dprime``
    pool: name -> float64 (n_runs, n_topics) for ``score_runs`` (rows aligned with ``lower`` /
    ``upper``, the LB and UB of those runs). Raises ValueError for an unknown method."""
    bad = [m for m in methods if m not in ADJUSTMENTS]
    if bad:
        raise ValueError(f"unknown adjustment {bad[0]!r}; choose from {', '.join(ADJUSTMENTS)}")
    out = {}
    if "webber-park" in methods or "anti-precision" in methods:
        dP, dA = leave_one_out_losses(L, shallow, contributing, dprime, p, depth)
        if "webber-park" in methods:
            out["webber-park"] = webber_park(lower, dP)
        if "anti-precision" in methods:
            out["anti-precision"] = anti_precision(lower, upper, dP, dA)
    if "prediction" in methods:
        out["prediction"] = prediction_scores(L, shallow, contributing, p, depth, score_runs)
    return out


# ------------------------------------------------------------- recall-based metrics (ch. 7)

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


# ------------------------------------------------------------------------------ accuracy


def epsilon(est, lb, ub) -> np.ndarray:
    """Eq. 6.2: 0 inside [lb, ub], else the distance to the nearer end (arrays broadcast)."""
    est, lb, ub = (np.asarray(x, dtype=np.float64) for x in (est, lb, ub))
    return np.where(est > ub, est - ub, np.where(est < lb, lb - est, 0.0))


def accuracy(est: np.ndarray, lb: np.ndarray, ub: np.ndarray) -> dict:
    """RMSE of epsilon (per topic over systems, averaged over topics: Eq. 6.3), RMSE_sys (per
    system over topics, averaged over systems), MAE and Acc% (share of zero errors, %).
    Arrays of shape (n_systems, n_topics)."""
    e = epsilon(est, lb, ub)
    return {"RMSE": float(np.mean(np.sqrt(np.mean(e ** 2, axis=0)))),
            "RMSE_sys": float(np.mean(np.sqrt(np.mean(e ** 2, axis=1)))),
            "MAE": float(np.mean(e)), "Acc": 100.0 * float(np.mean(e == 0))}


def tau_distance(ref_means, new_means) -> float:
    """Section 6.1.3: share of system pairs ordered in opposite directions by the two mean
    vectors (ties never count); in [0, 1]."""
    a, b = np.asarray(ref_means, float), np.asarray(new_means, float)
    iu, ju = np.triu_indices(len(a), 1)
    s = np.sign(a[iu] - a[ju]) * np.sign(b[iu] - b[ju])
    return float(np.mean(s < 0)) if len(s) else 0.0


def _sigma(scores: np.ndarray) -> np.ndarray:
    from ..stats import all_pairs

    P = all_pairs(scores)[0]
    m = scores.mean(axis=1)
    iu, ju = np.triu_indices(len(m), 1)
    d = np.sign(m[iu] - m[ju])
    return d * (0.5 - P[iu, ju] / 2)


def weighted_distance(ref: np.ndarray, new: np.ndarray) -> float:
    """Eq. 6.4 with alpha = 1: ``sum_{i<j} |sigma'_ij - sigma_ij|`` with ``sigma = +-(0.5 -
    p_one-tailed)`` in the direction of the mean difference (0 for equal means), p from the
    paired t-test over topics. ``ref``, ``new``: (n_systems, n_topics)."""
    return float(np.sum(np.abs(_sigma(new) - _sigma(ref))))


# ---------------------------------------------------------------------------------- study
