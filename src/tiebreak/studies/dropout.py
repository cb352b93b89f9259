"""Judgment drop-out (``tiebreak study dropout``): how stable is a system's score when a random
share of the pool had not been judged?

Lu (2018, Section 7.2.2) proposes randomisation and drop-out to measure, and reduce, the
variance of the score a new system gets from a fixed pool. This study measures it: for each
share s and repeat b, a uniform random share s of every topic's judgments (``floor(s n_t)`` of
its n_t judged documents, without replacement, seeded) is removed, the runs are scored on what
is left (unjudged = non-relevant, as trec_eval), and the spread of each run's mean score over
the repeats is reported. With ``leave_one_out`` each contributing run is scored as a new system:
the base judgments are those of the depth-d pool of the other contributing runs (Zobel 1998),
and the drop-out is applied to them.

X. Lu, *Efficient and Effective Retrieval Using Higher-Order Proximity Models*, PhD thesis,
RMIT University, 2018, Section 7.2.2; J. Zobel, "How reliable are the results of large-scale
information retrieval experiments?", SIGIR 1998.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..io import Qrels

__all__ = ["DropoutStudy", "drop_judgments", "run_dropout_study", "dropout_table"]


def drop_judgments(qrels: Qrels, share: float, rng: np.random.Generator) -> Qrels:
    """The qrels without a uniform random ``floor(share * n_t)`` of each topic's ``n_t``
    judgments (value >= 0; "pooled but unjudged" lines are kept as they are). Topics keep their
    place. Raises ValueError for a share outside [0, 1)."""
    if not 0 <= share < 1:
        raise ValueError(f"drop-out share must be in [0, 1), got {share}")
    keep = np.ones(len(qrels.topic), bool)
    judged = qrels.value >= 0
    for t in range(len(qrels.topics)):
        idx = np.flatnonzero((qrels.topic == t) & judged)
        k = int(np.floor(share * len(idx)))
        if k:
            keep[rng.choice(idx, size=k, replace=False)] = False
    return Qrels(qrels.name, list(qrels.topics), qrels.topic[keep], qrels.docid[keep],
                 qrels.value[keep], qrels.keys[keep], qrels.docnos)


@dataclass
class DropoutStudy:
    """Everything ``tiebreak study dropout`` computes.

    Attributes
    ----------
    runs, metrics : list[str]
    shares : list[float]
    full : ndarray float64 (n_runs, n_metrics)
        Mean score over topics with every base judgment.
    scores : ndarray float64 (n_shares, n_repeats, n_runs, n_metrics)
        Mean score over topics after each drop-out.
    leave_one_out : bool
    """

    runs: list[str]
    metrics: list[str]
    shares: list[float]
    full: np.ndarray
    scores: np.ndarray
    leave_one_out: bool


def run_dropout_study(qrels: Qrels, runs, shares=(0.1, 0.2, 0.3, 0.5), repeats: int = 20,
                      metrics=("AP@100", "nDCG@100", "RBP(p=0.8)@100", "P@10"), seed: int = 0,
                      leave_one_out: bool = False, contributing: list[str] | None = None,
                      pool_depth: int = 100, regime: str = "trec_eval",
                      progress=None) -> DropoutStudy:
    """Score ``runs`` on ``repeats`` random drop-outs of each share of the judgments.

    Parameters
    ----------
    qrels : Qrels
        The pool's judgments.
    runs : list of Run
    shares : list of float
        Shares of the judgments dropped, each in [0, 1).
    repeats : int
        Random drop-outs per share (``numpy.random.default_rng(seed)``; the same drop-outs for
        every run unless ``leave_one_out``).
    metrics : list of str
        Measure names with their cutoff (``AP@100``); scored by
        :func:`tiebreak.judgments.scoring.score_runs`.
    leave_one_out : bool
        Score each contributing run on the depth-``pool_depth`` pool of the others (a new
        system), drop-outs applied to that pool.
    contributing : list of str, optional
        Runs forming the pool for ``leave_one_out`` (default all); only they are scored then.

    Raises
    ------
    ValueError
        Bad shares, repeats < 1, an unknown run, or a metric without a cutoff.
    """
    from ..judgments.pool import pool_depth as make_depth_pool
    from ..judgments.pool import restrict_qrels, run_lists
    from ..judgments.scoring import score_runs

    say = progress or (lambda m: None)
    shares = [float(s) for s in shares]
    if not shares or any(not 0 <= s < 1 for s in shares):
        raise ValueError("drop-out shares must lie in [0, 1)")
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    bad = [m for m in metrics if "@" not in m]
    if bad:
        raise ValueError(f"give every metric its cutoff, e.g. {bad[0]}@100")
    metrics = list(metrics)
    names = [r.name for r in runs]

    def score(q, rs):
        s = score_runs(q, rs, metrics, [1000], [regime])["scores"]  # cutoffs are in the names
        return s[:, :, 0, 0].mean(axis=2)

    if leave_one_out:
        contributing = list(names) if contributing is None else list(contributing)
        miss = [c for c in contributing if c not in names]
        if miss:
            raise ValueError(f"contributing runs not among the runs: {', '.join(miss[:5])}")
        L = run_lists(runs, qrels, "file" if regime == "file" else "trec_eval")
        scored = [runs[names.index(c)] for c in contributing]
        bases = [restrict_qrels(qrels, make_depth_pool(L, pool_depth,
                                                       [c for c in contributing if c != r.name]))
                 for r in scored]
        full = np.concatenate([score(b, [r]) for b, r in zip(bases, scored)])
    else:
        scored = list(runs)
        full = score(qrels, scored)
    rng = np.random.default_rng(seed)
    out = np.zeros((len(shares), repeats, len(scored), len(metrics)))
    for a, s in enumerate(shares):
        say(f"share {s:g}: {repeats} drop-outs")
        for b in range(repeats):
            if leave_one_out:
                out[a, b] = np.concatenate([score(drop_judgments(q, s, rng), [r])
                                            for q, r in zip(bases, scored)])
            else:
                out[a, b] = score(drop_judgments(qrels, s, rng), scored)
    return DropoutStudy([r.name for r in scored], metrics, shares, full, out, leave_one_out)


def dropout_table(st: DropoutStudy):
    """Per share and metric: ``sd_mean`` / ``sd_max`` (the mean and largest, over runs, of the
    standard deviation (ddof 1) of a run's mean score over the repeats), ``cv`` (mean over runs
    of that SD divided by the run's full score, %), ``bias`` (mean over runs of mean drop-out
    score minus full score), ``tau`` (mean Kendall tau-b between the full ordering and each
    drop-out's) and ``swaps`` (mean share of run pairs whose order flips, %). DataFrame."""
    import pandas as pd

    from ..stats import kendall_tau

    rows = []
    R = st.scores.shape[1]
    iu, ju = np.triu_indices(len(st.runs), 1)
    for a, s in enumerate(st.shares):
        for m, name in enumerate(st.metrics):
            x = st.scores[a, :, :, m]  # (repeats, runs)
            f = st.full[:, m]
            sd = x.std(axis=0, ddof=1) if R > 1 else np.zeros(x.shape[1])
            with np.errstate(invalid="ignore", divide="ignore"):
                cv = np.where(f > 0, 100 * sd / f, np.nan)
            taus = [kendall_tau(f, xb) for xb in x] if len(f) > 1 else [np.nan]
            fs = np.sign(f[iu] - f[ju])
            flips = [100 * float(np.mean(np.sign(xb[iu] - xb[ju]) * fs < 0)) for xb in x] \
                if len(iu) else [np.nan]
            rows.append({"share": s, "metric": name, "sd_mean": float(sd.mean()),
                         "sd_max": float(sd.max()), "cv": float(np.nanmean(cv)),
                         "bias": float((x.mean(axis=0) - f).mean()),
                         "tau": float(np.mean(taus)), "swaps": float(np.mean(flips))})
    return pd.DataFrame(rows)
