"""The prediction study (``tiebreak study predict``): how well the relevance predictors of
:mod:`tiebreak.judgments.predict` (rank features, document text, both) predict a pool's
judgments, by k-fold cross-validation over each topic's judged documents.

S. Büttcher, C. L. A. Clarke, P. C. K. Yeung and I. Soboroff, "Reliable information retrieval
evaluation with incomplete and biased judgements", SIGIR 2007, pp. 63-70; T. Jayasinghe,
W. Webber, M. Sanderson and J. S. Culpepper, "Extending test collection pools without manual
runs", SIGIR 2014, pp. 915-918; X. Lu, *Efficient and Effective Retrieval Using Higher-Order
Proximity Models*, PhD thesis, RMIT University, 2018, Section 6.1.2.
"""

from __future__ import annotations

import numpy as np

from ..io import Qrels
from ..judgments.predict import PREDICTORS, cross_validate, document_text

__all__ = ["pool_judgments", "run_predict_study", "predict_summary"]


def pool_judgments(qrels: Qrels, L, dprime: int | None, contributing: list[str],
                   unlisted_nonrelevant: bool = False) -> Qrels:
    """The judgments a predictor learns from: the qrels restricted to the depth-``dprime``
    pool of the contributing runs (all of the qrels without ``dprime``). With
    ``unlisted_nonrelevant`` every pooled document the qrels do not list is judged
    non-relevant (value 0), for collections whose qrels list only the relevant documents (the
    classic ones); without ``dprime`` the pool is then everything the contributing runs
    retrieve."""
    from ..judgments.estimate import KMAX
    from ..judgments.pool import pool_depth, restrict_qrels

    if dprime is None and not unlisted_nonrelevant:
        return qrels
    J = restrict_qrels(qrels, pool_depth(L, dprime or KMAX, contributing),
                       with_unjudged=unlisted_nonrelevant)
    if unlisted_nonrelevant:
        J = Qrels(J.name, J.topics, J.topic, J.docid, np.where(J.value < 0, 0, J.value),
                  J.keys, J.docnos)
    return J


def run_predict_study(qrels: Qrels, runs, index=None, dprime: int | None = None,
                      contributing: list[str] | None = None, predictors=PREDICTORS,
                      folds: int = 5, seed: int = 0, p: float = 0.95, lam: float = 1.0,
                      order: str = "trec_eval", unlisted_nonrelevant: bool = False):
    """Cross-validate each predictor on the judgments of the contributing runs' pool
    (:func:`pool_judgments`, :func:`tiebreak.judgments.predict.cross_validate`; the same
    folds for every predictor: one ``seed``).

    Returns a DataFrame, one row per predictor and topic: predictor, qid, judged, relevant,
    accuracy, auc; ``attrs["text_note"]``: :attr:`~tiebreak.judgments.predict.DocumentText.note`
    (documents the index misses) or None.

    Raises
    ------
    ValueError
        No predictor, unknown predictor or run names, content / hybrid without ``index``, an
        index holding none of the runs' documents, fewer than 2 folds.
    """
    import pandas as pd

    from ..judgments.pool import contributing_runs, run_lists

    if not len(predictors):
        raise ValueError(f"no predictor given; choose from {', '.join(PREDICTORS)}")
    bad = [x for x in predictors if x not in PREDICTORS]
    if bad:
        raise ValueError(f"unknown predictor {bad[0]!r}; choose from {', '.join(PREDICTORS)}")
    L = run_lists(runs, qrels, order)
    contributing = contributing_runs(list(L.names), contributing)
    J = pool_judgments(qrels, L, dprime, contributing, unlisted_nonrelevant)
    L = run_lists(runs, J, order)
    text = None
    if any(x != "rank" for x in predictors):
        if index is None:
            raise ValueError("the content and hybrid predictors need the collection's index")
        text = document_text(index, L.docnos)
    rows = []
    for x in predictors:
        for r in cross_validate(L, J, contributing, x, text, folds, p, lam, seed):
            rows.append({"predictor": x, **{k: r[k] for k in
                                            ("qid", "judged", "relevant", "accuracy", "auc")}})
    df = pd.DataFrame(rows)
    df.attrs["text_note"] = None if text is None else text.note
    return df


def predict_summary(df):
    """Per predictor: the topics cross-validated (at least as many relevant and as many
    non-relevant documents as folds), their mean judged and relevant documents, the mean share
    of the majority class (the accuracy of always answering it), and the mean accuracy and
    AUC. DataFrame."""
    ok = df[np.isfinite(df["auc"])].copy()
    ok["majority"] = np.maximum(ok["relevant"], ok["judged"] - ok["relevant"]) / ok["judged"]
    g = ok.groupby("predictor", sort=False)
    return (g.agg(topics=("qid", "size"), judged=("judged", "mean"),
                  relevant=("relevant", "mean"), majority=("majority", "mean"),
                  accuracy=("accuracy", "mean"), auc=("auc", "mean")).reset_index())
