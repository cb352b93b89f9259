"""Rank correlation of the system orderings of two evaluation results (``tiebreak eval`` TSV or
JSON), per measure and regime, with bootstrap intervals: the engine of ``tiebreak correlate``.

Systems are matched by run name; a (measure, regime) is compared when both results have it.
When both results hold per-topic values (``tiebreak eval -q``) for the same topics, the
intervals resample topics (the means are recomputed from each sample); otherwise they resample
systems. Coefficients: :func:`tiebreak.stats.correlations` (tau-a, tau_AP of B against the
reference A, tau-b, Spearman, RBO with ties).
"""

from __future__ import annotations

import numpy as np

from ..stats.correlation import COEFFICIENTS, bootstrap_correlations, correlations

__all__ = ["correlate"]


def _tables(recs):
    """(measure, regime) -> {"mean": {run: v}, "topics": {run: {qid: v}}}."""
    out: dict = {}
    for run, m, g, q, v in recs:
        t = out.setdefault((m, g), {"mean": {}, "topics": {}})
        if q == "all":
            t["mean"][run] = v
        else:
            t["topics"].setdefault(run, {})[q] = v
    return out


def correlate(recs_a, recs_b, measures=None, regimes=None, *, p: float = 0.9, n: int = 1000,
              seed: int = 0, level: float = 0.95) -> list[dict]:
    """Rows: measure, regime, systems, boot (``topics``, ``systems`` or ``none``), then each
    coefficient and its interval (``<name>_low``, ``<name>_high``). ``recs_a``/``recs_b``: the
    tuples of :func:`tiebreak.evaluation.output.read_records`; ``measures``/``regimes`` choose
    (default: all shared). ``n`` = 0 skips the bootstrap. Raises ValueError when nothing is
    shared or fewer than 2 runs are."""
    ta, tb = _tables(recs_a), _tables(recs_b)
    keys = [k for k in ta if k in tb and (not measures or k[0] in measures)
            and (not regimes or k[1] in regimes)]
    if not keys:
        raise ValueError("the two results share no (measure, regime)"
                         + (" among those asked for" if measures or regimes else ""))
    rows = []
    for m, g in keys:
        a, b = ta[(m, g)], tb[(m, g)]
        runs = [r for r in a["mean"] if r in b["mean"]]
        if len(runs) < 2:
            raise ValueError(f"{m} {g}: fewer than two runs in both results")
        x = np.array([a["mean"][r] for r in runs])
        y = np.array([b["mean"][r] for r in runs])
        row = {"measure": m, "regime": g, "systems": len(runs)}
        topics = None
        if all(r in a["topics"] and r in b["topics"] for r in runs):
            ts = sorted(a["topics"][runs[0]])
            if all(sorted(a["topics"][r]) == ts and sorted(b["topics"][r]) == ts for r in runs):
                topics = ts
        boot = "none" if n == 0 else ("topics" if topics and len(topics) >= 2 else "systems")
        row["boot"] = boot
        c = correlations(x, y, p)
        ci = {}
        if boot == "topics":
            A = np.array([[a["topics"][r][q] for q in topics] for r in runs])
            B = np.array([[b["topics"][r][q] for q in topics] for r in runs])
            ci = bootstrap_correlations(A, B, n, seed, p, level, "topics")
        elif boot == "systems":
            ci = bootstrap_correlations(x, y, n, seed, p, level, "systems")
        for k in COEFFICIENTS:
            row[k] = c[k]
            if ci:
                row[f"{k}_low"], row[f"{k}_high"] = ci[k]
        rows.append(row)
    return rows
