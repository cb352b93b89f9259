"""Reusability of pools built by different methods at equal judging effort (Lu 2018, ch. 6–7;
the leave-one-run-out test of J. Zobel, "How reliable are the results of large-scale
information retrieval experiments?", SIGIR 1998).

For every pooling method and every run r: the pool is built from the *other* runs only, with
as many judgments per topic as the depth-``depth`` pool of those runs (the budget of every
method of :func:`tiebreak.judgments.pool.make_pool`: ``depth``, ``mtf``, ``isj-sim``, the
targeted ``A``/``B``/``C``); the given (deep) qrels play the assessor and are restricted to the
pool (:func:`~tiebreak.judgments.pool.restrict_qrels`); r -- which contributed nothing to the
pool, like a new system evaluated on an old collection -- is scored with them (unjudged
documents non-relevant). The same method's pool of *all* runs (same budget rule) scores every
run as a participant. Per method the table reports the left-out run's loss, its score as a
participant less its score as an outsider (mean and largest over the runs); its mean absolute
rank change (its outsider score ranked among the others' participant scores, against its
participant rank); and Kendall's tau between the outsider scores and the scores with the full
qrels. (AP's normaliser R is the relevant documents *judged*: a shallow pool with fewer of
them can raise a run's AP above its full-qrels value, so the comparison is between pools of the
same method, not with the full qrels.)
"""

from __future__ import annotations

import numpy as np

__all__ = ["METHODS", "leave_one_out", "reusability_rows"]

#: the equal-budget methods compared
METHODS = ("depth", "mtf", "isj-sim", "A", "B", "C")


def _score(qrels, runs, measure: str) -> np.ndarray:
    from ..evaluation import evaluate

    r = evaluate(qrels, list(runs), [measure], ["trec_eval"])
    return np.asarray(r.mean[:, 0, 0], np.float64)


def leave_one_out(qrels, runs, methods=METHODS, depth: int = 10, measure: str = "AP",
                  dmax: int = 100, progress=None) -> dict:
    """``{"runs": names, "full": (n_runs,) scores with the full qrels, "loo": {method:
    (n_runs,) each run's score from the pool of the other runs}, "pooled": {method: (n_runs,)
    scores from the pool of all runs}, "judgments": {method: mean judgments per topic over the
    left-out pools}}`` (module docstring). ``runs``: Run objects with distinct names;
    ``progress``: optional callable(method, i) after each pool. Raises ValueError for repeated
    run names or an unknown method."""
    from ..judgments.pool import make_pool, restrict_qrels, run_lists

    runs = list(runs)
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        raise ValueError("runs need distinct names")
    L = run_lists(runs, qrels)
    full = _score(qrels, runs, measure)
    loo, judged, pooled = {}, {}, {}
    for m in methods:
        pooled[m] = _score(restrict_qrels(qrels, make_pool(L, m, depth, dmax=dmax,
                                                           qrels=qrels)), runs, measure)
        est = np.empty(len(runs))
        sizes = []
        for i, r in enumerate(runs):
            others = [n for n in names if n != r.name]
            pool = make_pool(L, m, depth, contributing=others, dmax=dmax, qrels=qrels)
            sizes.append(len(pool) / max(len(L.topics), 1))
            est[i] = _score(restrict_qrels(qrels, pool), [r], measure)[0]
            if progress is not None:
                progress(m, i)
        loo[m] = est
        judged[m] = float(np.mean(sizes))
    return {"runs": names, "full": full, "loo": loo, "pooled": pooled, "judgments": judged}


def reusability_rows(res: dict) -> list:
    """One row per method: ``[method, judgments per topic, mean loss (participant -
    outsider score), largest loss, mean |rank change| of the outsider, Kendall tau of the
    outsider scores against the full-qrels scores]``."""
    from scipy.stats import kendalltau

    full = res["full"]
    rows = []
    for m, est in res["loo"].items():
        part = res["pooled"][m]
        loss = part - est
        change = []
        for i in range(len(est)):
            others = np.delete(part, i)
            # ranks 1 = best; ties count in the run's favour in both
            change.append(abs(int((others > est[i]).sum()) - int((others > part[i]).sum())))
        tau = float(kendalltau(full, est).statistic) if len(full) > 1 else 1.0
        rows.append([m, res["judgments"][m], float(loss.mean()), float(loss.max()),
                     float(np.mean(change)), tau])
    return rows
