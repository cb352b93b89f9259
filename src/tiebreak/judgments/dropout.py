"""Run drop-out inside the two-stage estimator (Lu 2018, Section 7.2.2).

The thesis closes ch. 7 with a proposal for its estimator: "add randomization and apply
drop-out techniques to reduce variance, which may help when estimating new systems that do not
contribute to the pooling process". :func:`estimate_with_dropout` implements it: each of B
draws leaves out ``round(F * n)`` of the n contributing runs (at least 1, at most n - 1) at
random and refits the gain models and the two-stage weights
(:func:`tiebreak.judgments.estimate.estimate_scores`) on the others, with the same judgments;
the estimators ``L_a|dropout=F`` / ``L_b|dropout=F`` are the means of the draws' ``L_a`` /
``L_b`` (each draw gated by its own Chao-Lee gamma). Runs rather than judgments are dropped
because the variance the thesis targets is that of scoring a run the fit has not seen: the
stage-1 weights are one per contributing run, and a draw fits them as if some contributing runs
were new systems. Dropping judgments instead changes LB itself (``tiebreak study dropout``).

X. Lu, *Efficient and Effective Retrieval Using Higher-Order Proximity Models*, PhD thesis,
RMIT University, 2018, Sections 6.2 and 7.2.2.
"""

from __future__ import annotations

import numpy as np

from ..io import Qrels
from .estimate import Estimates, estimate_scores
from .pool import RunLists

__all__ = ["estimate_with_dropout"]


def estimate_with_dropout(L: RunLists, shallow: Qrels, contributing: list[str],
                          dprime: int | None, dropout: float = 0.0, resamples: int = 10,
                          seed: int = 0, **kw) -> Estimates:
    """:func:`~tiebreak.judgments.estimate.estimate_scores` (``kw``: its other arguments)
    with, when ``dropout`` > 0, the run drop-out estimators ``L_x|dropout=F`` appended (one per
    loss of ``kw["losses"]``, default ``("b",)``): the mean over ``resamples`` draws
    (``numpy.random.default_rng(seed)``) of the two-stage estimate refitted without a random
    ``round(dropout * n)`` of the n contributing runs. ``clip`` clips them too.

    Raises
    ------
    ValueError
        ``dropout`` outside [0, 1), ``resamples`` < 1, ``dropout`` > 0 with fewer than 2
        contributing runs (nothing could be dropped), and whatever ``estimate_scores`` raises.
    """
    if not 0 <= dropout < 1:
        raise ValueError(f"dropout must be in [0, 1), got {dropout}")
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    if dropout and len(contributing) < 2:
        raise ValueError(f"dropout {dropout:g} leaves out some of the contributing runs and "
                         f"keeps at least one: it needs 2 or more, got {len(contributing)}")
    E = estimate_scores(L, shallow, contributing, dprime, **kw)
    losses = tuple(kw.get("losses", ("b",)))
    if not dropout or not losses:
        return E
    sub = {k: v for k, v in kw.items() if k in ("p", "depth", "models", "theta")}
    n = len(contributing)
    k = min(n - 1, max(1, int(round(dropout * n))))
    rng = np.random.default_rng(seed)
    names = [f"L_{x}" for x in losses]
    total = np.zeros((len(names), *E.lower.shape))
    for _ in range(resamples):
        keep = np.sort(rng.choice(n, n - k, replace=False)) if k > 0 else np.arange(n)
        D = estimate_scores(L, shallow, [contributing[i] for i in keep], dprime, losses=losses,
                            score_runs=E.runs, rank_level=(), **sub)
        total += np.stack([D.get(e) for e in names])
    S = total / resamples
    if kw.get("clip"):
        S = np.clip(S, E.lower[None], E.upper[None])
    E.scores = np.concatenate([E.scores, S])
    E.estimators = [*E.estimators, *(f"{e}|dropout={dropout:g}" for e in names)]
    return E
