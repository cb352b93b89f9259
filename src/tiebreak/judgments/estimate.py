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

Ties in run order follow the :class:`~tiebreak.judgments.pool.RunLists` (trec_eval's order by
default). The scoring here sums ``W(j) * gain`` directly because the gains are per-document
estimates; with every document judged it equals :class:`tiebreak.evaluation.Evaluator`'s
``RBP(p)@d`` (tested).

Beside it: :mod:`tiebreak.judgments.accuracy` (the accuracy of estimates, Section 6.1.3),
:mod:`tiebreak.judgments.adjust` (adjustments for unjudged documents),
:mod:`tiebreak.judgments.predict` (relevance predicted from ranks or text),
:mod:`tiebreak.judgments.dropout` (run drop-out inside this estimator) and
:mod:`tiebreak.judgments.recall` (recall-based metrics, ch. 7).
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
    "infrbp_scores",
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
