"""Accuracy of score estimates against the deep range, and agreement of system orderings
(Lu 2018, Section 6.1.3).

The error of an estimate against the deep range [LB, UB] is 0 inside it and the distance to it
outside (:func:`epsilon`, Eq. 6.2); :func:`accuracy` gives ``RMSE``, the per-topic root mean
square over systems averaged over topics (Eq. 6.3, primary), ``RMSE_sys`` the per-system one
over topics averaged over systems (Section 6.3.1), ``MAE`` and ``Acc%`` the share of zero
errors; the system orderings are compared by the normalised Kendall tau distance
(:func:`tau_distance`) and the significance-weighted distance (:func:`weighted_distance`,
Eq. 6.4, alpha = 1, one-tailed p from the paired t-test) against the deep LB ordering.

X. Lu, *Efficient and Effective Retrieval Using Higher-Order Proximity Models*, PhD thesis,
RMIT University, 2018, ch. 6; Lu, Moffat & Culpepper, "Can deep effectiveness metrics be
evaluated using shallow judgment pools?", SIGIR 2017, pp. 35-44.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "epsilon",
    "accuracy",
    "tau_distance",
    "weighted_distance",
]

def epsilon(est, lb, ub) -> np.ndarray:
    """Eq. 6.2: 0 inside [lb, ub], else the distance to the nearer end (arrays broadcast)."""
    est, lb, ub = (np.asarray(x, dtype=np.float64) for x in (est, lb, ub))
    return np.where(est > ub, est - ub, np.where(est < lb, lb - est, 0.0))


def accuracy(est: np.ndarray, lb: np.ndarray, ub: np.ndarray) -> dict:
    """RMSE of epsilon (per topic over systems, averaged over topics: Eq. 6.3), RMSE_sys (per
    system over topics, averaged over systems), MAE and Acc% (share of zero errors, %).
    Arrays of shape (n_systems, n_topics)."""
    e = epsilon(est, lb, ub)
    return {"RMSE": float(np.mean(np.sqrt(np.mean(e ** 2, axis=0)))),
            "RMSE_sys": float(np.mean(np.sqrt(np.mean(e ** 2, axis=1)))),
            "MAE": float(np.mean(e)), "Acc": 100.0 * float(np.mean(e == 0))}


def tau_distance(ref_means, new_means) -> float:
    """Section 6.1.3: share of system pairs ordered in opposite directions by the two mean
    vectors (ties never count); in [0, 1]."""
    a, b = np.asarray(ref_means, float), np.asarray(new_means, float)
    iu, ju = np.triu_indices(len(a), 1)
    s = np.sign(a[iu] - a[ju]) * np.sign(b[iu] - b[ju])
    return float(np.mean(s < 0)) if len(s) else 0.0


def _sigma(scores: np.ndarray) -> np.ndarray:
    from ..stats import all_pairs

    P = all_pairs(scores)[0]
    m = scores.mean(axis=1)
    iu, ju = np.triu_indices(len(m), 1)
    d = np.sign(m[iu] - m[ju])
    return d * (0.5 - P[iu, ju] / 2)


def weighted_distance(ref: np.ndarray, new: np.ndarray) -> float:
    """Eq. 6.4 with alpha = 1: ``sum_{i<j} |sigma'_ij - sigma_ij|`` with ``sigma = +-(0.5 -
    p_one-tailed)`` in the direction of the mean difference (0 for equal means), p from the
    paired t-test over topics. ``ref``, ``new``: (n_systems, n_topics)."""
    return float(np.sum(np.abs(_sigma(new) - _sigma(ref))))
