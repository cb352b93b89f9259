"""Evaluation depth against pooling depth: coverage, inversion, volatility, leave-out.

Implements the meta-evaluation of Lu (2018), ch. 5 (Lu, Moffat & Culpepper, "The effect of
pooling and evaluation depth on IR metrics", Information Retrieval Journal 19(4), 2016):

* Discrimination ratio (Sakai 2006): share of system pairs a paired two-tailed t-test over
  topics separates at ``alpha``.
* Coverage ratio (Lu 2018, Eqs. 5.1-5.3): with ``C_ref`` the ordered pairs ``(i, j)`` the
  reference metric separates (``p < alpha`` and mean i > mean j) and ``C_new`` the same for the
  candidate metric, ``covrat = |C_ref & C_new| / |C_ref|``. A pair significant in opposite
  directions does not count.
* Inversion ratio (Eq. 5.4, corrected to divide by ``|C_ref|`` as the thesis's own worked
  example does): ``invrat = |{(i, j) in C_ref : mean_new(j) > mean_new(i)}| / |C_ref|``; no
  significance is needed on the candidate side.
* Volatility matrix (Eq. 5.5): ``T[k1, k2] = tau(sigma_k1, sigma_k2)`` over the system
  orderings by mean score at evaluation depths k1, k2 (Kendall's tau-b); the cross-metric matrix
  pairs metric 1 at k1 with metric 2 at k2.
* Leave-one-run-out (Zobel 1998) and leave-group-out (Voorhees 2001): the pool is rebuilt
  without the run (group), the left-out run is re-scored, and ``Delta% = 100 (reduced - full) /
  full`` of its mean score and ``Delta rank = |rank_reduced - rank_full|`` among the
  contributing runs (the others keep their full-pool scores) are averaged over the runs
  (groups) left out.

Metric names are passed to :class:`tiebreak.evaluation.Evaluator` with ``@k`` appended for each
evaluation depth k (``AP`` -> ``AP@10``, ``RBP(p=0.8)`` -> ``RBP(p=0.8)@10`` with its residual).
``AP_b`` is AP normalised by ``min(R, k)`` instead of R (the NTCIR truncation, Lu 2018
Section 2.4.3, the thesis's default AP in ch. 5); while the measure registry lacks it, it is
computed from trec_eval's ``AP@k`` (which divides by R) as ``AP@k * R / min(R, k)``, with R the
topic's relevant count in the qrels used.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..io import Qrels, Run
from ..judgments.pool import RunLists, pool_depth, restrict_qrels
from ..judgments.scoring import score_runs, score_runs_parallel

__all__ = [
    "DEFAULT_EVAL_DEPTHS",
    "DEFAULT_METRICS",
    "DepthStudy",
    "significant_pairs",
    "coverage_inversion",
    "tau_matrix",
    "leave_out",
    "pool_counts",
    "run_depth_study",
    "depth_table",
    "volatility",
    "VOLATILITY_STATS",
    "leave_out_table",
    "counts_table",
    "new_systems_table",
]

DEFAULT_EVAL_DEPTHS = (1, 4, 10, 40, 100, 400, 1000)
DEFAULT_METRICS = ("AP_b", "AP", "nDCG", "RBP(p=0.95)", "RBP(p=0.8)", "ERR", "RR")


# ------------------------------------------------------------------------ pairwise statistics


def significant_pairs(scores: np.ndarray, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Ordered significant pairs of systems.

    Parameters
    ----------
    scores : ndarray float64, shape (n_systems, n_topics)
    alpha : float

    Returns
    -------
    S : ndarray bool, shape (n_systems, n_systems)
        ``S[i, j]``: the paired two-tailed t-test over topics (:func:`tiebreak.stats.all_pairs`)
        gives ``p < alpha`` and the mean of i exceeds the mean of j.
    P : ndarray float64, shape (n_systems, n_systems)
        The p-values (1 on the diagonal).
    """
    from ..stats import all_pairs

    P = all_pairs(scores)[0]
    m = scores.mean(axis=1)
    S = (P < alpha) & (m[:, None] > m[None, :])
    return S, P


def coverage_inversion(ref: np.ndarray, new: np.ndarray, alpha: float = 0.05,
                       ref_pairs: np.ndarray | None = None) -> dict:
    """Coverage and inversion ratio of ``new`` against ``ref`` (Lu 2018, Eqs. 5.1-5.4).

    Parameters
    ----------
    ref, new : ndarray float64, shape (n_systems, n_topics)
        Per-topic scores of the same systems under the reference and the candidate metric.
    alpha : float
        Significance level of the paired two-tailed t-tests.
    ref_pairs : ndarray bool (n_systems, n_systems), optional
        ``significant_pairs(ref, alpha)[0]`` when already known (``ref`` is then not read).

    Returns
    -------
    dict
        ``coverage``, ``inversion`` (NaN when the reference separates no pair), ``n_ref``
        (|C_ref|), ``n_new`` (|C_new|), ``discrimination`` (of ``new``, in [0, 1]) and
        ``median_p`` (median two-tailed p-value of ``new`` over all pairs).
    """
    from ..stats import discrimination_ratio

    Sr = significant_pairs(ref, alpha)[0] if ref_pairs is None else ref_pairs
    Sn, Pn = significant_pairs(new, alpha)
    m = new.mean(axis=1)
    n_ref = int(Sr.sum())
    inv = int((Sr & (m[None, :] > m[:, None])).sum())
    cov = int((Sr & Sn).sum())
    iu = np.triu_indices(len(m), 1)
    return {
        "coverage": cov / n_ref if n_ref else float("nan"),
        "inversion": inv / n_ref if n_ref else float("nan"),
        "n_ref": n_ref,
        "n_new": int(Sn.sum()),
        "discrimination": discrimination_ratio(Pn, alpha),
        "median_p": float(np.median(Pn[iu])),
    }


def tau_matrix(A: np.ndarray, B: np.ndarray | None = None) -> np.ndarray:
    """Kendall's tau-b between every row of A and every row of B (default B = A).

    Parameters
    ----------
    A : ndarray float64, shape (n_a, n_systems)
        Each row scores the same systems (e.g. mean scores at one evaluation depth).
    B : ndarray float64, shape (n_b, n_systems), optional

    Returns
    -------
    ndarray float64, shape (n_a, n_b)
        ``tau_b = sum_{i<j} s_A s_B / sqrt(#untied_A #untied_B)`` with ``s`` the sign of the
        score difference of a pair: the same value as :func:`tiebreak.stats.kendall_tau`,
        computed for all row pairs by one matrix product. NaN where a row is constant.
    """
    A = np.atleast_2d(np.asarray(A, dtype=np.float64))
    B = A if B is None else np.atleast_2d(np.asarray(B, dtype=np.float64))
    iu, ju = np.triu_indices(A.shape[1], 1)
    SA = np.sign(A[:, iu] - A[:, ju])
    SB = SA if B is A else np.sign(B[:, iu] - B[:, ju])
    num = SA @ SB.T
    den = np.sqrt(np.outer(np.count_nonzero(SA, axis=1), np.count_nonzero(SB, axis=1)))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


# ------------------------------------------------------------------------------- scoring


# ----------------------------------------------------------------------------- leave-out


def _ranks_desc(x: np.ndarray) -> np.ndarray:
    """1-based competition-free ranks (ties by index) of x, descending."""
    o = np.argsort(-x, kind="stable")
    r = np.empty(len(x), np.int64)
    r[o] = np.arange(1, len(x) + 1)
    return r


def leave_out(L: RunLists, qrels_pool: Qrels, runs: list[Run], depth: int, metrics,
              eval_depth: int, contributing: list[str], groups: dict[str, str] | None = None,
              regime: str = "trec_eval") -> dict:
    """Leave-one-run-out (or leave-group-out when ``groups`` is given) on a depth-``depth``
    pool.

    Parameters
    ----------
    L : RunLists
        Ranked lists of (at least) the contributing runs, built against ``qrels_pool``.
    qrels_pool : Qrels
        The judgments of the full depth-``depth`` pool of the contributing runs.
    runs : list of Run
        Run objects, aligned with ``L.names``.
    metrics : list of str
        Base metric names; each is scored at ``eval_depth``.
    contributing : list of str
        The runs that form the pool (and among which ranks are counted).
    groups : dict run name -> group name, optional
        Leave out all contributing runs of a group together; runs missing from the mapping form
        their own group.

    Returns
    -------
    dict
        ``units``: list of the left-out units (run or group names); ``runs``: the contributing
        run names scored; ``full``, ``reduced``: ndarray (n_runs, n_metrics) mean scores with the
        full and the reduced pool (reduced: the unit that left out this run);
        ``delta_pct``, ``delta_rank``: ndarray (n_runs, n_metrics).
    """
    cidx = [L.names.index(c) for c in contributing]
    crun = [runs[i] for i in cidx]
    full = score_runs(qrels_pool, crun, metrics, [eval_depth], [regime])["scores"]
    full = full[:, :, 0, 0].mean(axis=2)  # (n_c, n_metrics)
    unit_of = {c: (groups or {}).get(c, c) for c in contributing}
    units = list(dict.fromkeys(unit_of[c] for c in contributing))
    reduced = np.zeros_like(full)
    for u in units:
        members = [c for c in contributing if unit_of[c] == u]
        others = [c for c in contributing if unit_of[c] != u]
        q = restrict_qrels(qrels_pool, pool_depth(L, depth, others))
        mi = [contributing.index(c) for c in members]
        s = score_runs(q, [crun[i] for i in mi], metrics, [eval_depth], [regime])["scores"]
        reduced[mi] = s[:, :, 0, 0].mean(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        dpct = np.where(full != 0, 100.0 * (reduced - full) / full, np.nan)
    drank = np.zeros_like(full)
    for j in range(full.shape[1]):
        base = _ranks_desc(full[:, j])
        for i in range(full.shape[0]):
            x = full[:, j].copy()
            x[i] = reduced[i, j]
            drank[i, j] = abs(_ranks_desc(x)[i] - base[i])
    return {"units": units, "runs": list(contributing), "full": full, "reduced": reduced,
            "delta_pct": dpct, "delta_rank": drank}


# --------------------------------------------------------------------------- pool counts


def _lookup(keys_sorted: np.ndarray, values: np.ndarray, keys: np.ndarray,
            default: int) -> np.ndarray:
    pos = np.searchsorted(keys_sorted, keys)
    pos[pos == len(keys_sorted)] = 0
    hit = (keys_sorted[pos] == keys) if len(keys_sorted) else np.zeros(len(keys), bool)
    return np.where(hit, values[pos] if len(values) else default, default)


def _pool_keys(qrels: Qrels, docnos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from ..judgments.pool import _qrels_keys_in

    k, ok = _qrels_keys_in(qrels, docnos)
    k, v = k[ok], qrels.value[ok]
    o = np.argsort(k)
    return k[o], v[o]


def pool_counts(L: RunLists, shallow: Qrels, depth: int, deep: Qrels | None = None) -> dict:
    """Lu (2018) Table 5.2 per run and topic.

    Returns
    -------
    dict of ndarray (n_runs, n_topics)
        ``rel_in_pool``: documents judged relevant in ``shallow`` among the run's top ``depth``;
        ``rank_unjudged``: rank of the run's first document ``shallow`` does not judge (its
        length + 1 when every document is judged); ``num_rel_past``: documents at ranks >
        ``depth`` judged relevant in ``deep`` (or in ``shallow`` when no deep qrels are given).
    """
    ks, vs = _pool_keys(shallow, L.docnos)
    key = L.key()
    v = _lookup(ks, vs, key, -1)
    nR, nT = L.n_runs, len(L.topics)
    cell = L.run * nT + L.topic
    top = L.rank <= depth
    rel_in = np.bincount(cell[top & (v >= 1)], minlength=nR * nT).reshape(nR, nT)
    first = np.full(nR * nT, np.iinfo(np.int64).max)
    unj = v < 0
    np.minimum.at(first, cell[unj], L.rank[unj])
    length = np.bincount(cell, minlength=nR * nT)
    first = np.where(first == np.iinfo(np.int64).max, length + 1, first).reshape(nR, nT)
    if deep is not None:
        kd, vd = _pool_keys(deep, L.docnos)
        vdeep = _lookup(kd, vd, key, -1)
    else:
        vdeep = v
    past = np.bincount(cell[~top & (vdeep >= 1)], minlength=nR * nT).reshape(nR, nT)
    return {"rel_in_pool": rel_in, "rank_unjudged": first, "num_rel_past": past}


# --------------------------------------------------------------------------------- study


@dataclass
class DepthStudy:
    """Everything ``tiebreak study depth`` computes.

    Attributes
    ----------
    systems : list[str]
        Runs, shape (n_sys,). ``contributing`` marks those that formed the pool.
    metrics, depths, regimes, topics : list
        Axes of :attr:`scores`.
    pool_depth, reference_depth : int
    scores, residual : ndarray (n_sys, n_metrics, n_depths, n_regimes, n_topics)
        On the (simulated) shallow judgments; residual NaN for non-RBP metrics.
    judged : ndarray (n_sys, n_depths, n_regimes, n_topics)
        Judged share of the top k.
    reference : ndarray (n_sys, n_metrics, n_regimes, n_topics)
        The metric at the reference depth on the shallow judgments.
    deep : ndarray or None
        ``scores`` computed with the deep qrels (when known).
    deep_reference : ndarray or None
        ``reference`` computed with the deep qrels, shape (n_sys, n_metrics, n_regimes, n_top).
    vol_depths : list[int]; vol_means : ndarray (n_sys, n_metrics, n_vol, n_regimes)
        Mean scores over the volatility grid.
    loo, logo : dict or None
        :func:`leave_out` results (leave-one-run-out, leave-group-out).
    counts : dict
        :func:`pool_counts`.
    pool_info : dict
        Pool size, judgments kept, boundary ties.
    """

    systems: list[str]
    contributing: np.ndarray
    metrics: list[str]
    depths: list[int]
    regimes: list[str]
    topics: list[str]
    pool_depth: int
    reference_depth: int
    scores: np.ndarray
    residual: np.ndarray
    judged: np.ndarray
    reference: np.ndarray
    deep: np.ndarray | None
    vol_depths: list[int]
    vol_means: np.ndarray
    loo: dict | None
    logo: dict | None
    counts: dict
    pool_info: dict = field(default_factory=dict)
    alpha: float = 0.05
    deep_reference: np.ndarray | None = None


def run_depth_study(qrels: Qrels, runs: list[Run], pool_depth_: int | None = None,
                    eval_depths=DEFAULT_EVAL_DEPTHS, metrics=DEFAULT_METRICS,
                    regimes=("trec_eval",), contributing: list[str] | None = None,
                    reference_depth: int | None = None, deep_qrels: Qrels | None = None,
                    vol_depths=tuple(range(1, 51)), order: str = "trec_eval",
                    leave_one_out: bool = True, groups: dict[str, str] | None = None,
                    alpha: float = 0.05, jobs: int = 1, condensed: bool = False,
                    progress=None, client=None) -> DepthStudy:
    """Run the evaluation-depth study of Lu (2018) ch. 5.

    Parameters
    ----------
    qrels : Qrels
        Judgments. With ``pool_depth_`` they are the deep qrels, and the shallow pool is
        simulated from the contributing runs; without it they are the (genuine) shallow pool
        and ``reference_depth`` is required.
    runs : list of Run
    pool_depth_ : int, optional
        Depth d of the simulated pool.
    eval_depths : list of int
        Evaluation depths k.
    metrics : list of str
        Base metric names (see :func:`score_runs`).
    regimes : list of str
        Tie regimes for scoring.
    contributing : list of str, optional
        Runs that form the pool (default all); the meta-evaluation uses them.
    reference_depth : int, optional
        k of the reference metric M@k (default d).
    deep_qrels : Qrels, optional
        Deeper judgments of the same topics (default: ``qrels`` when the pool is simulated).
    vol_depths : list of int
        Grid of the volatility matrices.
    order : {"trec_eval", "file", "include"}
        Tie order at the pool boundary.
    leave_one_out : bool
        Run leave-one-run-out (and leave-group-out with ``groups``) at k = d.
    groups : dict run name -> group name, optional
        Participating groups for leave-group-out.
    alpha : float
        Significance level of the paired t-tests.
    jobs : int
        Worker processes for scoring (:func:`score_runs_parallel`).
    client : dask.distributed.Client, optional
        Score the runs on this Dask cluster instead (``jobs`` is then ignored).
    condensed : bool
        Score condensed runs (:func:`tiebreak.judgments.pool.condense_run`: unjudged documents
        removed against the shallow judgments) for the study's metrics and volatility; the deep
        scores, pool counts and leave-out use the runs as they are.
    progress : callable(str), optional
        Called with a message before each stage.

    Raises
    ------
    ValueError
        Neither a pool depth nor a reference depth, unknown run names, or fewer than 2
        contributing systems.
    """
    from ..judgments.pool import contributing_runs, run_lists

    say = progress or (lambda msg: None)
    names = [r.name for r in runs]
    contributing = contributing_runs(names, contributing)
    if pool_depth_ is None and reference_depth is None:
        raise ValueError("give a pool depth (to simulate) or a reference depth")
    say("ranking runs")
    L = run_lists(runs, qrels, order)
    info: dict = {"judgments_given": len(qrels), "relevant_given": int(qrels.num_rel().sum())}
    if pool_depth_ is not None:
        pool = pool_depth(L, pool_depth_, contributing)
        shallow = restrict_qrels(qrels, pool)
        deep = deep_qrels if deep_qrels is not None else qrels
        d = pool_depth_
        info.update({"pool_docs": len(pool), "boundary_ties": pool.boundary_ties})
    else:
        shallow, deep, d = qrels, deep_qrels, int(reference_depth)
        info["boundary_ties"] = pool_depth(L, d, contributing).boundary_ties
    info.update({"judgments_kept": len(shallow), "relevant_kept": int(shallow.num_rel().sum())})
    kref = int(reference_depth or d)
    depths = sorted(set(int(k) for k in eval_depths))
    scored = runs
    if condensed:
        from ..judgments.pool import condense_run

        scored = [condense_run(r, shallow) for r in runs]
        info["condensed_mean_length"] = float(np.mean(
            [len(r) / max(len(shallow.topics), 1) for r in scored]))
    say(f"scoring {len(runs)} runs at {len(depths)} depths")
    sc = score_runs_parallel(shallow, scored, metrics, depths + [kref], regimes, jobs, client)
    ref = sc["scores"][:, :, -1]
    dp = None
    if deep is not None:
        say("scoring with the deep qrels")
        dp = score_runs_parallel(deep, runs, metrics, depths + [kref], regimes, jobs,
                                 client)["scores"]
    vol = sorted(set(int(k) for k in vol_depths))
    say(f"volatility grid ({len(vol)} depths)")
    vm = score_runs_parallel(shallow, scored, metrics, vol, regimes, jobs,
                             client)["scores"].mean(axis=4)
    loo = logo = None
    if leave_one_out:
        say("leave one run out")
        loo = leave_out(L, shallow, runs, d, metrics, d, contributing, None, regimes[0])
        if groups:
            say("leave one group out")
            logo = leave_out(L, shallow, runs, d, metrics, d, contributing, groups, regimes[0])
    counts = pool_counts(L, shallow, d, deep)
    cmask = np.array([n in set(contributing) for n in names])
    return DepthStudy(names, cmask, list(metrics), depths, list(regimes), list(qrels.topics), d,
                      kref, sc["scores"][:, :, :-1], sc["residual"][:, :, :-1],
                      sc["judged"][:, :-1], ref, None if dp is None else dp[:, :, :-1], vol, vm,
                      loo, logo, counts, info, alpha,
                      None if dp is None else dp[:, :, -1])


# ------------------------------------------------------------------------------- tables


def _rbo_of_means(a: np.ndarray, b: np.ndarray, p: float = 0.9) -> float:
    """RBO (extrapolated) between the system orderings by mean score ``a`` and ``b`` (n,),
    systems with equal means tied."""
    from ..stats import rbo

    def ranking(x):
        order = np.argsort(-x, kind="stable")
        groups = np.unique(-x[order], return_inverse=True)[1]
        return [int(i) for i in order], [int(g) for g in groups]

    (S, gs), (T, gt) = ranking(a), ranking(b)
    return float(rbo(S, T, p=p, S_groups=gs, T_groups=gt).ext)


def depth_table(st: DepthStudy, systems: str = "contributing"):
    """Per metric, regime and evaluation depth: discrimination, coverage, inversion (%, against
    the metric at the reference depth), median p, Kendall tau, tau_AP and rank-biased overlap
    (extrapolated, p = 0.9, tie-aware; Webber, Moffat & Zobel 2010) of the system ordering
    against the reference ordering (and, with deep qrels, against the same metric at the same
    depth on the deep qrels), mean score, mean RBP residual and mean unjudged share of the
    top k. ``systems``: ``contributing`` or ``all``. Returns a pandas DataFrame."""
    import pandas as pd

    from ..stats import tau_ap

    sel = st.contributing if systems == "contributing" else np.ones(len(st.systems), bool)
    rows = []
    for a, m in enumerate(st.metrics):
        for g, reg in enumerate(st.regimes):
            ref = st.reference[sel, a, g]
            rm = ref.mean(axis=1)
            Sr = significant_pairs(ref, st.alpha)[0]
            for b, k in enumerate(st.depths):
                new = st.scores[sel, a, b, g]
                ci = coverage_inversion(ref, new, st.alpha, Sr)
                nm = new.mean(axis=1)
                row = {
                    "metric": m, "regime": reg, "k": k,
                    "disc": 100 * ci["discrimination"], "cov": 100 * ci["coverage"],
                    "inv": 100 * ci["inversion"], "median_p": ci["median_p"],
                    "tau_ref": float(tau_matrix(rm[None], nm[None])[0, 0]),
                    "tauap_ref": tau_ap(rm, nm),
                    "rbo_ref": _rbo_of_means(rm, nm),
                }
                if st.deep is not None:
                    dm = st.deep[sel, a, b, g].mean(axis=1)
                    row["tau_deep"] = float(tau_matrix(dm[None], nm[None])[0, 0])
                    row["tauap_deep"] = tau_ap(dm, nm)
                row["mean"] = float(nm.mean())
                res = st.residual[sel, a, b, g]
                row["residual"] = float(np.nanmean(res)) if np.isfinite(res).any() else np.nan
                row["unjudged"] = 100 * float(1 - st.judged[sel, b, g].mean())
                rows.append(row)
    return pd.DataFrame(rows)


VOLATILITY_STATS = ("tau", "tau_ap", "rbo")


def volatility(st: DepthStudy, metric: str, other: str | None = None, regime: int = 0,
               systems: str = "contributing", stat: str = "tau") -> np.ndarray:
    """Volatility matrix (Lu 2018 Eq. 5.5) of ``metric`` over :attr:`DepthStudy.vol_depths`;
    with ``other`` the cross-metric matrix ``T[k1, k2] = stat(metric@k1, other@k2)``.

    ``stat``: ``tau`` (Kendall's tau-b, the thesis's), ``tau_ap`` (Yilmaz, Aslam & Robertson
    2008, top-weighted and asymmetric: the row ordering is the reference) or ``rbo`` (rank-biased
    overlap, extrapolated, p = 0.9, tie-aware; Webber, Moffat & Zobel 2010) of the system
    orderings by mean score. Returns ndarray (n_vol, n_vol). Raises ValueError for an unknown
    stat."""
    if stat not in VOLATILITY_STATS:
        raise ValueError(f"stat must be one of {', '.join(VOLATILITY_STATS)}, got {stat!r}")
    sel = st.contributing if systems == "contributing" else np.ones(len(st.systems), bool)
    a = st.metrics.index(metric)
    A = st.vol_means[sel, a, :, regime].T
    B = A if other is None else st.vol_means[sel, st.metrics.index(other), :, regime].T
    if stat == "tau":
        return tau_matrix(A) if other is None else tau_matrix(A, B)
    from ..stats import tau_ap

    f = tau_ap if stat == "tau_ap" else _rbo_of_means
    return np.array([[f(x, y) for y in B] for x in A], dtype=np.float64)


def leave_out_table(res: dict, metrics: list[str]):
    """Mean Delta% and Delta rank per metric (Lu 2018 Table 5.3). DataFrame columns metric,
    units, delta_pct, delta_rank."""
    import pandas as pd

    return pd.DataFrame([
        {"metric": m, "units": len(res["units"]),
         "delta_pct": float(np.nanmean(res["delta_pct"][:, j])),
         "delta_rank": float(np.mean(res["delta_rank"][:, j]))}
        for j, m in enumerate(metrics)
    ])


def counts_table(st: DepthStudy):
    """Lu (2018) Table 5.2: mean and sd over (run, topic) of RelInPool, RankUnj and NumRelPast,
    for contributing and other runs. DataFrame."""
    import pandas as pd

    rows = []
    for label, sel in (("contributing", st.contributing), ("other", ~st.contributing)):
        if not sel.any():
            continue
        row = {"runs": label, "n": int(sel.sum())}
        for k, v in st.counts.items():
            x = v[sel].astype(float)
            row[k] = float(x.mean())
            row[f"{k}_sd"] = float(x.std())
        rows.append(row)
    return pd.DataFrame(rows)


def new_systems_table(st: DepthStudy, regime: int = 0):
    """System bias with deep qrels: per metric at the reference depth, the mean Delta% of the
    score on the shallow judgments against the deep ones and the mean |Delta rank| among all
    systems, for contributing and non-contributing ("new") runs, with Kendall's tau of the two
    orderings of all systems. DataFrame, or None without deep qrels."""
    import pandas as pd

    if st.deep_reference is None:
        return None
    rows = []
    for a, m in enumerate(st.metrics):
        sh = st.reference[:, a, regime].mean(axis=1)
        dp = st.deep_reference[:, a, regime].mean(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            pct = np.where(dp != 0, 100 * (sh - dp) / dp, np.nan)
        dr = np.abs(_ranks_desc(sh) - _ranks_desc(dp))
        for label, sel in (("contributing", st.contributing), ("new", ~st.contributing)):
            if sel.any():
                rows.append({"metric": m, "k": st.reference_depth, "runs": label,
                             "n": int(sel.sum()), "delta_pct": float(np.nanmean(pct[sel])),
                             "delta_rank": float(dr[sel].mean()),
                             "tau": float(tau_matrix(dp[None], sh[None])[0, 0])})
    return pd.DataFrame(rows)
