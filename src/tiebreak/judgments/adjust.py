"""Adjustments of shallow-pool scores for unjudged documents.

Holds :data:`ADJUSTMENTS` and the adjustments it names: :func:`leave_one_out_losses` (what each
contributing run loses when the pool is built without it), :func:`webber_park`,
:func:`anti_precision` and :func:`adjusted_scores`, which runs them (with the relevance
predictors of :mod:`tiebreak.judgments.predict`: ``prediction`` from ranks, ``content`` from
the documents' text, ``hybrid`` from both). Scores are
RBP(p) to the scoring depth with binary gain, as in :mod:`tiebreak.judgments.estimate`.

W. Webber and L. A. F. Park, "Score adjustment for correction of pooling bias", SIGIR 2009,
pp. 444-451; A. Lipani, M. Lupu and A. Hanbury, "Splitting water: precision and anti-precision
to reduce pool bias", SIGIR 2015, pp. 103-112; X. Lu, *Efficient and Effective Retrieval Using
Higher-Order Proximity Models*, PhD thesis, RMIT University, 2018, Section 2.4.4 (the ratio form
of anti-precision).
"""

from __future__ import annotations

import numpy as np

from ..io import Qrels
from .estimate import _judgment_lookup, _values
from .pool import RunLists
from .predict import prediction_scores

__all__ = [
    "ADJUSTMENTS",
    "TEXT_ADJUSTMENTS",
    "leave_one_out_losses",
    "webber_park",
    "anti_precision",
    "adjusted_scores",
]

ADJUSTMENTS = ("webber-park", "anti-precision", "prediction", "content", "hybrid")
#: adjustment -> predictor of :mod:`tiebreak.judgments.predict`
PREDICTOR_OF = {"prediction": "rank", "content": "content", "hybrid": "hybrid"}
#: the adjustments that need the documents' text (an index)
TEXT_ADJUSTMENTS = ("content", "hybrid")


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


def adjusted_scores(L: RunLists, shallow: Qrels, contributing: list[str], dprime: int,
                    lower: np.ndarray, upper: np.ndarray, p: float = 0.95, depth: int = 100,
                    methods=("webber-park", "anti-precision", "prediction"),
                    score_runs: list[str] | None = None, text=None) -> dict:
    """The adjustments for unjudged documents of :data:`ADJUSTMENTS` on a depth-``dprime``
    pool: name -> float64 (n_runs, n_topics) for ``score_runs`` (rows aligned with ``lower`` /
    ``upper``, the LB and UB of those runs). ``text``: the
    :class:`~tiebreak.judgments.predict.DocumentText` of ``L.docnos``, needed by ``content``
    and ``hybrid``. Raises ValueError for an unknown method, or content / hybrid without
    ``text``."""
    bad = [m for m in methods if m not in ADJUSTMENTS]
    if bad:
        raise ValueError(f"unknown adjustment {bad[0]!r}; choose from {', '.join(ADJUSTMENTS)}")
    need = [m for m in methods if m in TEXT_ADJUSTMENTS]
    if need and text is None:
        raise ValueError(f"the {need[0]} adjustment needs the documents' text: give an index")
    out = {}
    if "webber-park" in methods or "anti-precision" in methods:
        dP, dA = leave_one_out_losses(L, shallow, contributing, dprime, p, depth)
        if "webber-park" in methods:
            out["webber-park"] = webber_park(lower, dP)
        if "anti-precision" in methods:
            out["anti-precision"] = anti_precision(lower, upper, dP, dA)
    for m in methods:
        if m in PREDICTOR_OF:
            out[m] = prediction_scores(L, shallow, contributing, p, depth, score_runs,
                                       PREDICTOR_OF[m], text)
    return out
