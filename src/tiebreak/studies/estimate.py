"""The estimation study (``tiebreak study estimate``): simulate shallow pools from deep
judgments, estimate deep RBP with every estimator and compare with the truth (Lu 2018, Tables
6.4-6.9).

X. Lu, *Efficient and Effective Retrieval Using Higher-Order Proximity Models*, PhD thesis,
RMIT University, 2018; Lu, Moffat & Culpepper, "Can deep effectiveness metrics be evaluated using
shallow judgment pools?", SIGIR 2017.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..io import Qrels
from ..judgments.accuracy import accuracy, tau_distance, weighted_distance
from ..judgments.adjust import ADJUSTMENTS, TEXT_ADJUSTMENTS, adjusted_scores
from ..judgments.dropout import estimate_with_dropout
from ..judgments.estimate import (
    MODELS,
    TWO_STAGE_MODELS,
    empirical_gains,
    estimate_scores,
    infrbp_scores,
    topic_lists,
)


@dataclass
class EstimateStudy:
    """Everything ``tiebreak study estimate`` computes.

    Attributes
    ----------
    runs : list[str]
        Contributing runs scored, shape (n_runs,).
    topics : list[str]
    dprimes : list[int]
        Simulated pool depths d'.
    depth : int
        Reference (scoring) depth d.
    p : float
    truth_lb, truth_ub : ndarray (n_runs, n_topics)
        RBP(p)@d on the deep qrels and that plus its residual (the final range).
    estimates : dict[int, Estimates]
        Per d'.
    fit_rmse : dict[int, dict[str, float]]
        Per d' and model: RMSE between the fitted G(k) and the empirical gain of the deep
        judgments on the test ranks d' <= k <= d, averaged over topics (Table 6.4).
    deep_gains : list[ndarray]
        Per topic, the empirical gain of the deep judgments at ranks 1..d.
    loo : dict[int, ndarray] or None
        Per d': leave-one-run-out scores (n_estimators, n_runs, n_topics).
    """

    runs: list[str]
    topics: list[str]
    dprimes: list[int]
    depth: int
    p: float
    truth_lb: np.ndarray
    truth_ub: np.ndarray
    estimates: dict
    fit_rmse: dict
    deep_gains: list
    loo: dict | None = None


BASELINES = ("lb", "ub", "mid", "rm", "infrbp", *ADJUSTMENTS)
#: the baselines reported by default (content and hybrid need the documents' text)
DEFAULT_BASELINES = tuple(b for b in BASELINES if b not in TEXT_ADJUSTMENTS)
_BASE_NAME = {"lb": "LB", "ub": "UB", "mid": "mid", "rm": "RM", "infrbp": "InfRBP"}


def _extras(L, qrels, shallow, contributing, dp, kw, strata, adjust, E, runs, text):
    """InfRBP and the adjustments for unjudged documents, stacked (n_extra, n_runs, n_topics)."""
    rate, seed = strata
    names, parts = [], []
    if rate:
        parts.append(infrbp_scores(L, qrels, contributing, dp, rate, kw["depth"], kw["p"],
                                   kw["depth"], seed, runs))
        names.append("InfRBP")
    if adjust:
        lb, ub = E.get("LB"), E.get("UB")
        adj = adjusted_scores(L, shallow, contributing, dp, lb, ub, kw["p"], kw["depth"],
                              adjust, runs, text)
        for m in adjust:
            names.append(m)
            parts.append(adj[m])
    return names, parts


def _study_one(shared, dp):
    from ..judgments.pool import pool_depth, restrict_qrels

    L, qrels, contributing, kw, leave_one_out, strata, adjust, drop, text = shared
    shallow = restrict_qrels(qrels, pool_depth(L, dp, contributing))
    E = estimate_with_dropout(L, shallow, contributing, dp, score_runs=contributing, **kw)
    names, parts = _extras(L, qrels, shallow, contributing, dp, kw, strata, adjust, E,
                           contributing, text)
    E.scores = np.concatenate([E.scores, *[x[None] for x in parts]])
    E.estimators = [*E.estimators, *names]
    loo = None
    if leave_one_out:
        pieces = []
        for r in contributing:
            others = [c for c in contributing if c != r]
            sh = restrict_qrels(qrels, pool_depth(L, dp, others))
            Er = estimate_with_dropout(L, sh, others, dp, score_runs=[r], **kw)
            _, px = _extras(L, qrels, sh, others, dp, kw, strata, adjust, Er, [r], text)
            pieces.append(np.concatenate([Er.scores, *[x[None] for x in px]]))
        loo = np.concatenate(pieces, axis=1)
    keep = [i for i, e in enumerate(E.estimators) if e not in drop]
    E.scores = E.scores[keep]
    E.estimators = [E.estimators[i] for i in keep]
    if loo is not None:
        loo = loo[keep]
    return dp, E, loo


def run_estimate_study(qrels: Qrels, runs, dprimes=(10, 20, 30, 50), depth: int = 100,
                       p: float = 0.95, contributing: list[str] | None = None,
                       models=TWO_STAGE_MODELS, losses=("a", "b"), thetas=(0.018,),
                       order: str = "trec_eval", leave_one_out: bool = False, jobs: int = 1,
                       two_strata: float = 0.0, seed: int = 0, baselines=None,
                       progress=None, client=None, index=None, dropout: float = 0.0,
                       resamples: int = 10) -> EstimateStudy:
    """Simulate depth-d' pools from deep ``qrels``, estimate RBP(p)@depth of the contributing
    runs, and keep everything needed to compare with the deep judgments (Lu 2018 Tables
    6.4-6.9).

    Parameters
    ----------
    qrels : Qrels
        Deep judgments (the ground truth).
    runs : list of Run
    dprimes : list of int
        Shallow pool depths d' (< depth).
    depth : int
        Reference depth d: scores are RBP(p)@d.
    contributing : list of str, optional
        Runs forming the pools (default all); they are the systems scored.
    models, losses, thetas : see :func:`estimate_scores` (the two-stage estimators use theta 0;
        ``thetas`` add gated variants).
    leave_one_out : bool
        Also estimate each contributing run from a pool without it (system bias, Table 6.8).
    jobs : int
        Worker processes (fork), one d' each.
    client : dask.distributed.Client, optional
        Estimate each d' as a task on this Dask cluster instead (``jobs`` is then ignored).
    two_strata : float
        When > 0, also the InfRBP estimator (:func:`infrbp_scores`) on a two-strata sample at
        this rate to ``depth`` (stratum 1 = the depth-d' pool), drawn with ``seed``.
    baselines : list of str, optional
        Which of :data:`BASELINES` to report (default :data:`DEFAULT_BASELINES`, and content
        and hybrid too when ``index`` is given; ``infrbp`` also needs ``two_strata`` > 0):
        LB, UB, the midpoint, RM, InfRBP, and the adjustments for unjudged documents of
        :data:`tiebreak.judgments.adjust.ADJUSTMENTS` (Webber & Park 2009; anti-precision
        after Lipani, Lupu & Hanbury 2015; relevance prediction from ranks after Buttcher et
        al. 2007 / Carterette & Allan 2007, from text and from both after Jayasinghe et al.
        2014), each computed from the shallow pool only. The gain-model estimators are always
        reported.
    index : tiebreak.index.Index, optional
        The collection's index, for the text features of ``content`` and ``hybrid``.
    dropout, resamples : float, int
        When ``dropout`` > 0, also the two-stage estimators with run drop-out
        (:func:`tiebreak.judgments.dropout.estimate_with_dropout`), ``resamples`` draws from
        ``seed``.

    Raises
    ------
    ValueError
        d' >= depth, fewer than 2 contributing runs, unknown run names or baselines, content
        or hybrid without an index.
    """
    from ..judgments.pool import contributing_runs, run_lists
    from ..judgments.scoring import score_runs

    say = progress or (lambda m: None)
    names = [r.name for r in runs]
    contributing = contributing_runs(names, contributing)
    dprimes = sorted(set(int(x) for x in dprimes))
    if not dprimes or dprimes[-1] >= depth or dprimes[0] < 1:
        raise ValueError(f"shallow depths must lie in 1..{depth - 1}")
    say("ranking runs")
    L = run_lists(runs, qrels, order)
    regime = "file" if order == "file" else "trec_eval"
    crun = [runs[names.index(c)] for c in contributing]
    tr = score_runs(qrels, crun, [f"RBP(p={p})"], [depth], [regime])
    lb = tr["scores"][:, 0, 0, 0]
    ub = lb + tr["residual"][:, 0, 0, 0]
    kw = {"p": p, "depth": depth, "models": tuple(models), "losses": tuple(losses),
          "theta": 0.0, "thetas": tuple(thetas), "dropout": dropout, "resamples": resamples,
          "seed": seed}
    from .._native.parallel import imap

    if baselines is None:
        baselines = BASELINES if index is not None else DEFAULT_BASELINES
    baselines = tuple(baselines)
    bad = [b for b in baselines if b not in BASELINES]
    if bad:
        raise ValueError(f"unknown baseline {bad[0]!r}; choose from {', '.join(BASELINES)}")
    text = None
    if any(b in TEXT_ADJUSTMENTS for b in baselines):
        if index is None:
            raise ValueError("the content and hybrid baselines need the collection's index")
        from ..judgments.predict import document_text

        text = document_text(index, L.docnos)
        if text.note:
            say(f"warning: {text.note}")
    adjust = tuple(b for b in baselines if b in ADJUSTMENTS)
    drop = {_BASE_NAME[b] for b in _BASE_NAME if b not in baselines}
    rate = two_strata if "infrbp" in baselines else 0.0
    shared = (L, qrels, contributing, kw, leave_one_out, (rate, seed), adjust, drop, text)
    out, loo = {}, {}
    procs = min(jobs, len(dprimes))
    if client is not None:
        say(f"estimating at d' = {dprimes} on the Dask cluster")
    elif procs > 1:
        say(f"estimating at d' = {dprimes} ({procs} processes)")
    res = []
    for dp, r in zip(dprimes, imap(_study_one, dprimes, procs, shared, client=client)):
        if client is None and procs <= 1:
            say(f"estimating at d' = {dp}")
        res.append(r)
    for dp, E, lo in res:
        out[dp] = E
        loo[dp] = lo
    cidx = [L.names.index(c) for c in contributing]
    deep_g = [empirical_gains(tl, depth) for tl in topic_lists(L, qrels, cidx, depth)]
    fit = {}
    for dp, E in out.items():
        fit[dp] = {}
        for m in MODELS:
            errs = [np.sqrt(np.mean((E.models[t][m].curve[dp - 1:depth] - g[dp - 1:]) ** 2))
                    for t, g in enumerate(deep_g) if m in E.models[t]]
            if errs:
                fit[dp][m] = float(np.mean(errs))
    return EstimateStudy(contributing, list(L.topics), dprimes, depth, p, lb, ub, out, fit,
                         deep_g, loo if leave_one_out else None)


def accuracy_table(st: EstimateStudy, loo: bool = False):
    """Per d' and estimator: RMSE (Eq. 6.3), Acc%, RMSE_sys, MAE, normalised tau distance and
    weighted distance against the deep LB ordering (Tables 6.5-6.9). With ``loo`` the
    leave-one-run-out estimates are scored instead (Table 6.8). DataFrame."""
    import pandas as pd

    rows = []
    for dp in st.dprimes:
        E = st.estimates[dp]
        S = st.loo[dp] if loo else E.scores
        for e, name in enumerate(E.estimators):
            est = S[e]
            a = accuracy(est, st.truth_lb, st.truth_ub)
            rows.append({"dprime": dp, "estimator": name, **a,
                         "tau_dist": tau_distance(st.truth_lb.mean(1), est.mean(1)),
                         "wdist": weighted_distance(st.truth_lb, est),
                         "adjusted": int(E.adjusted.sum())})
    return pd.DataFrame(rows)


def fit_table(st: EstimateStudy):
    """Table 6.4 analogue: goodness-of-fit RMSE per d' (rows) and model (columns)."""
    import pandas as pd

    return pd.DataFrame([{"dprime": dp, **st.fit_rmse[dp]} for dp in st.dprimes])


def sampled_orderings(qrels: Qrels, runs, dprime: int, rate: float = 0.1, depth: int = 100,
                      p: float = 0.95, contributing: list[str] | None = None, seeds=range(3),
                      losses=("a", "b"), order: str = "trec_eval"):
    """Lu (2018) Fig. 6.11: system orderings from two-strata samples against the deep ones.

    For each seed, the two-strata pool (stratum 1 the depth-``dprime`` pool, stratum 2 a
    ``rate`` sample of the rest to ``depth``; :func:`tiebreak.judgments.pool.pool_two_strata`)
    takes its judgments from the deep ``qrels``. On it are computed InfRBP (Eq. 6.1), the
    two-stage estimators ``L_a`` / ``L_b`` fitted on ranks 1..d' with the sampled judgments
    counted as judged, and infAP@depth (Yilmaz & Aslam 2006; unsampled candidates are -1,
    pooled but unjudged; whole runs, as trec_eval). Each ordering of the contributing runs by mean
    score is compared with the deep one (RBP(p)@depth for the RBP estimators, AP for infAP) by
    the normalised tau
    distance and the weighted distance (Eq. 6.4).

    Returns a DataFrame: seed, estimator, tau_dist, wdist.
    """
    import pandas as pd

    from ..judgments.pool import pool_two_strata, restrict_qrels, run_lists
    from ..judgments.scoring import score_runs

    names = [r.name for r in runs]
    contributing = list(names) if contributing is None else list(contributing)
    crun = [runs[names.index(c)] for c in contributing]
    L = run_lists(runs, qrels, order)
    from ..evaluation import Evaluator

    deep = score_runs(qrels, crun, [f"RBP(p={p})"], [depth])["scores"][:, :, 0, 0]
    ap = Evaluator(qrels, ["AP"], ["trec_eval"]).evaluate(crun).per_topic[:, 0, 0]
    deep = np.stack([deep[:, 0], ap], axis=1)
    rows = []
    for s in seeds:
        P = pool_two_strata(L, dprime, rate, depth, contributing, seed=s)
        J = restrict_qrels(qrels, P)
        E = estimate_scores(L, J, contributing, dprime, p, depth, TWO_STAGE_MODELS, losses,
                            0.0, contributing, rank_level=())
        inf = infrbp_scores(L, qrels, contributing, dprime, rate, depth, p, depth, s,
                            contributing)
        Ju = restrict_qrels(qrels, P, with_unjudged=True)
        infap = Evaluator(Ju, ["infAP"], ["trec_eval"]).evaluate(crun).per_topic[:, 0, 0]
        cands = [("InfRBP", inf, 0)] + [(f"L_{x}", E.get(f"L_{x}"), 0) for x in losses] + [
            ("LB", E.get("LB"), 0), ("infAP", infap, 1)]
        for name, S, ref in cands:
            rows.append({"seed": s, "estimator": name,
                         "tau_dist": tau_distance(deep[:, ref].mean(1), S.mean(1)),
                         "wdist": weighted_distance(deep[:, ref], S)})
    return pd.DataFrame(rows)
