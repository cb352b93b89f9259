"""Scoring runs at many evaluation depths against one set of judgments: the measures named as in
:class:`tiebreak.evaluation.Evaluator` with ``@k`` appended for each depth k (``AP`` -> ``AP@10``),
plus ``AP_b`` (AP normalised by ``min(R, k)``, Lu 2018 Section 2.4.3). Shared by ``tiebreak
estimate`` and the depth and estimate studies.

X. Lu, *Efficient and Effective Retrieval Using Higher-Order Proximity Models*, PhD thesis,
RMIT University, 2018.
"""

from __future__ import annotations

import numpy as np

from ..io import Qrels, Run


def _measure_name(metric: str, k: int) -> str:
    return metric if "@" in metric else f"{metric}@{k}"


def _plan(metric: str, k: int) -> tuple[str, bool]:
    """Evaluator name for ``metric`` at depth k, and whether AP_b must be derived from AP."""
    from ..measures import MeasureError, parse_measure

    name = _measure_name(metric, k)
    try:
        parse_measure(name)
        return name, False
    except MeasureError:
        base = metric.split("@")[0]
        if base in DERIVED:
            return _measure_name(DERIVED[base], k), True
        raise


def score_runs(qrels: Qrels, runs: list[Run], metrics, depths,
               regimes=("trec_eval",)) -> dict:
    """Per-topic scores of every run for every metric at every evaluation depth.

    Parameters
    ----------
    qrels : Qrels
    runs : list of Run
    metrics : list of str
        Base metric names (``AP``, ``AP_b``, ``nDCG``, ``RBP(p=0.8)``, ``ERR``, ``RR``, ``P``,
        ...); ``@k`` is appended per depth.
    depths : list of int
    regimes : list of str
        Tie regimes (:mod:`tiebreak.ranking`).

    Returns
    -------
    dict
        ``scores``: ndarray (n_runs, n_metrics, n_depths, n_regimes, n_topics);
        ``residual``: same shape, the RBP residual for RBP metrics and NaN otherwise;
        ``judged``: ndarray (n_runs, n_depths, n_regimes, n_topics), the share of the top k that
        is judged (``Judged@k``); ``names``: the run names.

    Raises
    ------
    tiebreak.measures.MeasureError
        An unknown metric name.
    """
    from ..evaluation import Evaluator
    from ..measures import parse_measure
    from ..measures.parse import residual_of

    plan = [[_plan(m, k) for k in depths] for m in metrics]
    names: list[str] = []
    for row in plan:
        for n, _ in row:
            if n not in names:
                names.append(n)
    judged_names = [f"Judged@{k}" for k in depths]
    ev = Evaluator(qrels, names + judged_names, list(regimes))
    res = ev.evaluate(runs)
    idx = {m: i for i, m in enumerate(res.measures)}
    nr, nq = len(res.runs), len(res.topics)
    out = np.zeros((nr, len(metrics), len(depths), len(regimes), nq))
    resid = np.full_like(out, np.nan)
    R = qrels.num_rel().astype(np.float64)
    for a, row in enumerate(plan):
        for b, (n, derive) in enumerate(row):
            m = parse_measure(n)
            v = res.per_topic[:, idx[str(m)]]
            if derive:
                k = depths[b]
                with np.errstate(invalid="ignore", divide="ignore"):
                    f = np.where(R > 0, R / np.minimum(R, k), 0.0)
                v = v * f
            out[:, a, b] = v
            if m.family.name == "RBP":
                resid[:, a, b] = res.per_topic[:, idx[str(residual_of(m))]]
    judged = np.stack([res.per_topic[:, idx[j]] for j in judged_names], axis=1)
    return {"scores": out, "residual": resid, "judged": judged, "names": list(res.runs)}


def _score_chunk(shared, chunk):
    qrels, runs, metrics, depths, regimes = shared
    return score_runs(qrels, [runs[i] for i in chunk], metrics, depths, regimes)


def score_runs_parallel(qrels: Qrels, runs: list[Run], metrics, depths, regimes=("trec_eval",),
                        jobs: int = 1, client=None) -> dict:
    """:func:`score_runs` with the runs split over ``jobs`` forked worker processes, or over the
    workers of a Dask ``client`` (:func:`tiebreak._native.parallel.imap`). Results are identical
    and in
    run order."""
    from .._native.parallel import imap

    n_parts = len(runs) if client is not None else min(jobs, len(runs))
    if client is None and (jobs <= 1 or len(runs) < 2):
        return score_runs(qrels, runs, metrics, depths, regimes)
    chunks = [c for c in np.array_split(np.arange(len(runs)), max(n_parts, 1)) if len(c)]
    parts = list(imap(_score_chunk, chunks, len(chunks), (qrels, runs, metrics, depths,
                                                          tuple(regimes)), client=client))
    out = {k: np.concatenate([p[k] for p in parts]) for k in ("scores", "residual", "judged")}
    out["names"] = [n for p in parts for n in p["names"]]
    return out


DERIVED = {"AP_b": "AP"}
