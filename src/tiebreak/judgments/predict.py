"""Predicting the relevance of unjudged documents from their ranks in the contributing runs.

Holds the rank-feature predictor: :func:`_rank_features` (mean RBP weight, share of runs
retrieving the document, -log best rank), an L2-penalised logistic regression
(:func:`_logistic_fit`), :func:`predicted_relevance` per topic and :func:`prediction_scores`,
RBP(p) with unjudged documents at their predicted probability of relevance (the
``prediction`` adjustment of :mod:`tiebreak.judgments.adjust`).

A rank-only variant of S. Büttcher, C. L. A. Clarke, P. C. K. Yeung and I. Soboroff,
"Reliable information retrieval evaluation with incomplete and biased judgements", SIGIR 2007,
and B. Carterette and J. Allan, "Semiautomatic evaluation of retrieval systems using document
similarities", CIKM 2007, who use document text; here there is none.
"""

from __future__ import annotations

import numpy as np

from ..io import Qrels
from .estimate import KMAX, TopicLists, _judgment_lookup, _values, topic_lists
from .pool import RunLists

__all__ = [
    "predicted_relevance",
    "prediction_scores",
]

def _rank_features(ranks: np.ndarray, p: float) -> np.ndarray:
    """(n_docs, 3) features of documents from their ranks in the contributing runs (n_docs,
    n_runs; > KMAX when absent): mean RBP(p) weight, share of runs retrieving the document,
    and -log of its best rank."""
    present = ranks <= KMAX
    w = np.where(present, (1 - p) * p ** (np.minimum(ranks, KMAX) - 1.0), 0.0)
    best = np.where(present, ranks, KMAX + 1).min(axis=1)
    return np.stack([w.mean(axis=1), present.mean(axis=1), -np.log(best)], axis=1)


def _logistic_fit(X: np.ndarray, y: np.ndarray, lam: float = 1.0) -> np.ndarray:
    """L2-penalised logistic regression (penalty ``lam/2 ||beta||^2`` on the weights, not the
    intercept) by L-BFGS; returns (intercept, weights...)."""
    from scipy.optimize import minimize

    Xa = np.hstack([np.ones((len(X), 1)), X])

    def f(b):
        z = Xa @ b
        nll = np.sum(np.logaddexp(0, z) - y * z)
        return nll + 0.5 * lam * b[1:] @ b[1:]

    def g(b):
        pr = 1 / (1 + np.exp(-(Xa @ b)))
        gr = Xa.T @ (pr - y)
        gr[1:] += lam * b[1:]
        return gr

    return minimize(f, np.zeros(Xa.shape[1]), jac=g, method="L-BFGS-B",
                    options={"gtol": 1e-10, "maxiter": 1000}).x


def predicted_relevance(tl: TopicLists, p: float = 0.95, lam: float = 1.0):
    """Probability of relevance of every document of one topic, predicted from the ranks the
    contributing runs give it (a rank-only variant of Büttcher, Clarke, Yeung & Soboroff,
    "Reliable information retrieval evaluation with incomplete and biased judgements", SIGIR
    2007, and Carterette & Allan, "Semiautomatic evaluation of retrieval systems using document
    similarities", CIKM 2007, who use document text; here there is none).

    An L2-penalised (``lam``) logistic regression on the standardised
    :func:`_rank_features` of the judged documents predicts the unjudged ones. With fewer than
    two classes among the judged documents every document gets the smoothed relevant rate
    ``(rel + 0.5) / (judged + 1)``. Returns (probabilities (n_docs,), probability of a
    document no contributing run retrieves)."""
    X = _rank_features(tl.ranks, p)
    X0 = _rank_features(np.full((1, tl.ranks.shape[1]), KMAX + 1), p)
    J = tl.judged
    y = tl.gain[J]
    if J.sum() == 0 or y.min() == y.max():
        rate = (y.sum() + 0.5) / (J.sum() + 1.0)
        return np.full(len(tl.docs), rate), float(rate)
    mu, sd = X[J].mean(axis=0), X[J].std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    b = _logistic_fit((X[J] - mu) / sd, y, lam)

    def prob(Z):
        return 1 / (1 + np.exp(-(b[0] + ((Z - mu) / sd) @ b[1:])))

    return prob(X), float(prob(X0)[0])


def prediction_scores(L: RunLists, shallow: Qrels, contributing: list[str], p: float = 0.95,
                      depth: int = 100, score_runs: list[str] | None = None) -> np.ndarray:
    """RBP(p)@depth with judged documents at their binary gain and unjudged ones at their
    :func:`predicted_relevance` (tail beyond ``depth`` not counted, as LB). Returns float64
    (n_runs, n_topics) for ``score_runs`` (default all runs of ``L``)."""
    cidx = [L.names.index(c) for c in contributing]
    sidx = [L.names.index(s) for s in (score_runs or L.names)]
    ks, vs = _judgment_lookup(shallow, L)
    tls = topic_lists(L, shallow, cidx, KMAX)
    nT = len(L.topics)
    out = np.zeros((len(sidx), nT))
    w = (1 - p) * p ** np.arange(depth)
    for t in range(nT):
        tl = tls[t]
        prob, absent = predicted_relevance(tl, p)
        for a, s in enumerate(sidx):
            sel = (L.run == s) & (L.topic == t) & (L.rank <= depth)
            doc, wr = L.doc[sel], w[L.rank[sel] - 1]
            v = _values(ks, vs, (t << 32) | doc)
            g = (v >= 1).astype(np.float64)
            if len(tl.docs):
                pos = np.minimum(np.searchsorted(tl.docs, doc), len(tl.docs) - 1)
                est = np.where(tl.docs[pos] == doc, prob[pos], absent)
            else:
                est = np.full(len(doc), absent)
            out[a, t] = float(np.sum(wr * np.where(v >= 0, g, est)))
    return out
