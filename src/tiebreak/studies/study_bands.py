"""``tiebreak study bands``: how much does score precision matter? (YMT 2016, Section 4).

Yang, Moffat & Turpin, "How Precise Does Document Scoring Need to Be?", AIRS 2016; see
``../shared/spec/tie-aware-metrics.md`` §3 for the bands and the Table 2 bounds.

Protocol
--------
For every ``rho`` each run is *banded* (:func:`tiebreak.ranking.bands.band_run`): in the reference
order
(the file's line order by default) rank ``r`` in band ``g`` gets score ``1/g``, so the tied groups
are exactly the geometric bands. The banded runs are scored under the ``expected`` regime (the
exact mean over all orderings inside the bands), the originals under the ``file`` regime (the
order the bands were cut from); unjudged documents count as non-relevant. The per system-topic
difference is ``expected(banded) - file(original)``.

Outputs (in ``--out``):

* Fig. 3 (``fig3_differences.png`` / ``.svg``): box plots of those differences, one panel per
  metric, one box per rho; ``fig3_summary.tsv`` has their quantiles.
* Table 3 (``table3.tsv``, also printed): per metric and rho, how many systems have a one-tailed
  paired t-test over topics with ``p <= alpha`` for H1: banded > ratio * original, for ratio
  0.99 and 0.97 (:func:`tiebreak.stats.paired_t` with ``alternative="greater"``).
* Fig. 4 (``fig4_pvalues.png`` / ``.svg``): for one rho, every pair of systems' two-sided paired
  t-test p-value on the original scores (x) against that on the banded scores (y), log axes,
  lines at alpha; ``fig4_quadrants.tsv`` has the discrimination ratios before and after, the
  share of pairs significant after but not before (false positives) and before but not after
  (false negatives).

The work per rho is one :class:`tiebreak.Evaluator` call over all banded runs; rhos are spread
over ``-j`` worker processes (fork), which also read the run files.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..evaluation.compute import WARN_CONTRADICTIONS, WARN_INCREASING
from ..stats import paired_t_rows
from . import pyplot

__all__ = ["BandStudy", "fig3", "fig4", "fig4_quadrants", "run_study", "table3"]

DEFAULT_STUDY_RHOS = ("1.0", "1.1", "1.2", "1.4", "1.7", "2.0")
DEFAULT_STUDY_METRICS = ("RR", "RBP(p=0.5)", "RBP(p=0.85)", "AP")
RATIOS = (0.99, 0.97)
#: Reference orders the bands can be cut from (each is also the regime of the originals).
ORDERS = ("file", "trec_eval", "score-rank")
RANK_MEASURE = "AP"  # systems are ranked by its mean (MAP) for --top


@dataclass
class BandStudy:
    """Scores of original and banded runs.

    Attributes
    ----------
    systems : list[str]
        Run names kept (after --drop-contradictions and --top), shape (n_sys,).
    metrics : list[str]
        Metric names, shape (n_met,).
    topics : list[str]
        Qrels topics, shape (n_top,).
    rhos : list[str]
        Band growth factors as given, shape (n_rho,).
    original : ndarray (n_sys, n_met, n_top)
        ``file`` regime scores of the original runs.
    banded : ndarray (n_rho, n_sys, n_met, n_top)
        ``expected`` regime scores of the banded runs.
    dropped : dict[str, str]
        Run name -> why it was left out.
    """

    systems: list[str]
    metrics: list[str]
    topics: list[str]
    rhos: list[str]
    original: np.ndarray
    banded: np.ndarray
    dropped: dict

    @property
    def differences(self) -> np.ndarray:
        """``banded - original``, shape (n_rho, n_sys, n_met, n_top)."""
        return self.banded - self.original[None]


# ----------------------------------------------------------------------------- computation

def _read(_shared, path):
    from ..io import read_run

    return read_run(path)


def _evaluate(state, task):
    """Task ``None``: originals in the reference order (``file`` or ``trec_eval`` regime),
    returning their names and warnings too; else a rho: banded runs under ``expected``."""
    from ..evaluation import Evaluator
    from ..ranking.bands import band_run

    runs, measures, qrels, order = state
    if task is None:
        ev = Evaluator(qrels, measures, [order])
        res = ev.evaluate(runs)
        return task, res.per_topic[:, :, 0, :], (res.runs, res.warnings)
    ev = Evaluator(qrels, measures, ["expected"])
    res = ev.evaluate([band_run(r, task, order=order) for r in runs])
    return task, res.per_topic[:, :, 0, :], None


CONTRADICTION_WARNINGS = (WARN_CONTRADICTIONS, WARN_INCREASING)


def run_study(qrels, runs, rhos=DEFAULT_STUDY_RHOS, metrics=DEFAULT_STUDY_METRICS,
              order: str = "file", top: int | None = None, drop_contradictions: bool = False,
              jobs: int = 1, progress: bool = False, client=None) -> BandStudy:
    """Evaluate original and banded runs for every rho.

    Parameters
    ----------
    qrels : Qrels
    runs : list of Run or paths
    rhos : list of str / number (>= 1; decimal strings are exact)
    metrics : list of measure names (e.g. ``RR``, ``RBP(p=0.5)``, ``AP``)
    order : {"file", "trec_eval", "score-rank"}
        Reference order the bands are cut from; the originals are scored in the same order
        (the regime of the same name). ``score-rank`` is Yang et al.'s re-sorted file order
        (score descending, then rank ascending; AIRS 2016, Sect. 3).
    top : int, optional
        Keep the ``top`` systems with the highest MAP (original scores).
    drop_contradictions : bool
        Leave out runs whose file order disagrees with their scores or ranks inside a topic.
    jobs : int
        Worker processes (fork); 1 = in this process.
    client : dask.distributed.Client, optional
        Read, band and evaluate on this Dask cluster instead (``jobs`` is then ignored).
    progress : bool
        Show progress bars on stderr.
    """
    from .._native.parallel import cpus, imap
    from ..io import Run
    from ..measures import parse_measure
    from ..ranking.bands import band_starts

    for r in rhos:
        band_starts(r, 0)  # validate early
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}, got {order!r}")
    measures = [parse_measure(m) for m in metrics] + [parse_measure(RANK_MEASURE)]
    jobs = jobs if jobs > 0 else cpus()
    run_objs = list(runs)
    todo = [i for i, r in enumerate(runs) if not isinstance(r, Run)]
    read = imap(_read, [runs[i] for i in todo], jobs,
                progress="reading runs" if progress else None, client=client)
    for i, run in zip(todo, read):
        run_objs[i] = run
    if not run_objs:
        raise ValueError("no runs")
    tasks = [None, *rhos]
    out = {}
    for task, vals, warn in imap(_evaluate, tasks, jobs, (run_objs, measures, qrels, order),
                                 progress="banding and evaluating" if progress else None,
                                 client=client):
        out[task if task is None else str(task)] = (vals, warn)
    original, (names, warnings) = out[None]
    banded = np.stack([out[str(r)][0] for r in rhos])
    keep = np.ones(len(names), dtype=bool)
    dropped: dict[str, str] = {}
    if drop_contradictions:
        for i, n in enumerate(names):
            w = warnings.get(n, {})
            bad = [k for k in CONTRADICTION_WARNINGS if w.get(k)]
            if bad:
                keep[i] = False
                dropped[n] = "; ".join(f"{k}: {w[k]}" for k in bad)
    if top is not None and top < keep.sum():
        mean_ap = original[:, -1, :].mean(axis=1)
        cand = np.flatnonzero(keep)
        best = cand[np.argsort(-mean_ap[cand], kind="stable")[:top]]
        for i in cand:
            if i not in best:
                keep[i] = False
                dropped[names[i]] = f"not in the top {top} by MAP"
    idx = np.flatnonzero(keep)
    return BandStudy([names[i] for i in idx], [str(m) for m in measures[:-1]],
                     list(qrels.topics), [str(r) for r in rhos], original[idx, :-1],
                     banded[:, idx, :-1], dropped)


# ----------------------------------------------------------------------------- analyses


def table3(study: BandStudy, ratios=RATIOS, alpha: float = 0.05):
    """Table 3: per metric and rho, the number of systems with p <= alpha for H1: banded >
    ratio * original (one-tailed paired t over topics). Returns a pandas DataFrame with columns
    metric, rho, systems and one ``>=<ratio>`` column per ratio (integer counts)."""
    import pandas as pd

    rows = []
    for j, m in enumerate(study.metrics):
        for k, rho in enumerate(study.rhos):
            row = {"metric": m, "rho": rho, "systems": len(study.systems)}
            for ratio in ratios:
                d = study.banded[k, :, j, :] - ratio * study.original[:, j, :]
                row[f">={ratio:.0%}"] = int(np.sum(paired_t_rows(d, np.zeros(d.shape[1])) <= alpha))
            rows.append(row)
    return pd.DataFrame(rows)


def fig4_pvalues(study: BandStudy, rho) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per metric: (p-values on original scores, p-values on banded scores) for every pair of
    systems (two-sided paired t, :func:`tiebreak.stats.all_pairs`), upper-triangle order."""
    from ..stats import all_pairs

    k = study.rhos.index(str(rho))
    iu = np.triu_indices(len(study.systems), 1)
    out = {}
    for j, m in enumerate(study.metrics):
        before = all_pairs(study.original[:, j, :])[0][iu]
        after = all_pairs(study.banded[k, :, j, :])[0][iu]
        out[m] = (before, after)
    return out


def fig4_quadrants(pvalues: dict, alpha: float = 0.05):
    """Quadrant shares of :func:`fig4_pvalues` (percent of pairs). DataFrame columns: metric,
    pairs, disc_before, disc_after (discrimination ratios, %), both, false_pos (significant
    after, not before), false_neg (before, not after), neither."""
    import pandas as pd

    from ..stats import discrimination_ratio

    rows = []
    for m, (b, a) in pvalues.items():
        sb, sa = b < alpha, a < alpha
        rows.append({
            "metric": m, "pairs": int(b.size),
            "disc_before": 100 * discrimination_ratio(b, alpha),
            "disc_after": 100 * discrimination_ratio(a, alpha),
            "both": 100 * float(np.mean(sb & sa)),
            "false_pos": 100 * float(np.mean(sa & ~sb)),
            "false_neg": 100 * float(np.mean(sb & ~sa)),
            "neither": 100 * float(np.mean(~sb & ~sa)),
        })
    return pd.DataFrame(rows)


def _save(fig, stem: str) -> list[str]:
    paths = [f"{stem}.png", f"{stem}.svg"]
    for p in paths:
        fig.savefig(p, dpi=150 if p.endswith(".png") else None, bbox_inches="tight")
    return paths


def fig3(study: BandStudy, stem: str) -> list[str]:
    """Fig. 3: box plots of banded - original per metric, one box per rho. Writes
    ``<stem>.png`` and ``<stem>.svg``; returns their paths."""
    plt = pyplot()
    d = study.differences
    n = len(study.metrics)
    fig, axes = plt.subplots(1, n, figsize=(3.2 * n, 3.6), squeeze=False, sharey=False)
    for j, (ax, m) in enumerate(zip(axes[0], study.metrics)):
        data = [d[k, :, j, :].ravel() for k in range(len(study.rhos))]
        ax.boxplot(data, showfliers=True, flierprops={"markersize": 2, "alpha": 0.3})
        ax.set_xticks(range(1, len(study.rhos) + 1), study.rhos, rotation=45)
        ax.axhline(0, color="grey", lw=0.6)
        ax.set_title(m)
        ax.set_xlabel("rho")
        if j == 0:
            ax.set_ylabel("banded (expected) - original")
    fig.suptitle(f"Score change from banding ({len(study.systems)} systems x "
                 f"{len(study.topics)} topics)")
    fig.tight_layout()
    try:
        return _save(fig, stem)
    finally:
        plt.close(fig)


def fig4(pvalues: dict, rho, stem: str, alpha: float = 0.05) -> list[str]:
    """Fig. 4: scatter of pairwise p-values, original (x) vs banded (y), log axes, lines at
    alpha, one panel per metric. Writes ``<stem>.png`` / ``.svg``; returns their paths."""
    plt = pyplot()
    n = len(pvalues)
    fig, axes = plt.subplots(1, n, figsize=(3.4 * n, 3.6), squeeze=False)
    floor = 1e-16  # p = 0 (zero-variance differences) drawn at the floor
    for ax, (m, (b, a)) in zip(axes[0], pvalues.items()):
        ax.scatter(np.maximum(b, floor), np.maximum(a, floor), s=3, alpha=0.4, lw=0)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.axvline(alpha, color="red", lw=0.7)
        ax.axhline(alpha, color="red", lw=0.7)
        ax.set_title(m)
        ax.set_xlabel("p (original)")
        ax.set_ylabel(f"p (banded, rho={rho})")
    fig.tight_layout()
    try:
        return _save(fig, stem)
    finally:
        plt.close(fig)


def fig3_summary(study: BandStudy):
    """Quantiles of the differences per metric and rho (DataFrame)."""
    import pandas as pd

    d = study.differences
    rows = []
    for j, m in enumerate(study.metrics):
        for k, rho in enumerate(study.rhos):
            x = d[k, :, j, :].ravel()
            q = np.quantile(x, [0, 0.25, 0.5, 0.75, 1])
            rows.append({"metric": m, "rho": rho, "mean": x.mean(), "min": q[0], "q1": q[1],
                         "median": q[2], "q3": q[3], "max": q[4]})
    return pd.DataFrame(rows)
