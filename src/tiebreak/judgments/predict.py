"""Predicting the relevance of unjudged documents: from their ranks in the contributing runs,
from their text, or from both.

Three predictors (:data:`PREDICTORS`), each a per-topic L2-penalised logistic regression
(:func:`_logistic_fit`) trained on the pool's judgments of the topic:

* ``rank``: three features of a document's ranks in the contributing runs
  (:func:`_rank_features`: mean RBP weight, share of runs retrieving it, -log best rank),
  standardised on the training documents. A rank-only variant of S. Büttcher, C. L. A. Clarke,
  P. C. K. Yeung and I. Soboroff, "Reliable information retrieval evaluation with incomplete
  and biased judgements", SIGIR 2007, pp. 63-70, and B. Carterette and J. Allan,
  "Semiautomatic evaluation of retrieval systems using document similarities", CIKM 2007.
* ``content``: the document's text as a sparse tf-idf vector taken from a tiebreak index
  (:func:`document_text`), as Büttcher et al. (2007) classify unjudged documents by their
  terms, and as the classification method of T. Jayasinghe, W. Webber, M. Sanderson and
  J. S. Culpepper, "Extending test collection pools without manual runs", SIGIR 2014,
  pp. 915-918.
* ``hybrid``: both sets of features in one model (the standardised rank features beside the
  tf-idf vector), after Jayasinghe et al. (2014)'s hybrid of rank evidence and text.

:func:`prediction_scores` gives RBP(p) with unjudged documents at their predicted probability
of relevance (the ``prediction``, ``content`` and ``hybrid`` adjustments of
:mod:`tiebreak.judgments.adjust`); :func:`cross_validate` measures a predictor by k-fold
cross-validation over the judged documents of each topic (accuracy at 0.5 and AUC).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..io import Qrels
from .estimate import KMAX, TopicLists, _judgment_lookup, _values, topic_lists
from .pool import RunLists

__all__ = [
    "PREDICTORS",
    "DocumentText",
    "document_text",
    "TopicPredictor",
    "predicted_relevance",
    "prediction_scores",
    "cross_validate",
]

PREDICTORS = ("rank", "content", "hybrid")


def _rank_features(ranks: np.ndarray, p: float) -> np.ndarray:
    """(n_docs, 3) features of documents from their ranks in the contributing runs (n_docs,
    n_runs; > KMAX when absent): mean RBP(p) weight, share of runs retrieving the document,
    and -log of its best rank."""
    present = ranks <= KMAX
    w = np.where(present, (1 - p) * p ** (np.minimum(ranks, KMAX) - 1.0), 0.0)
    best = np.where(present, ranks, KMAX + 1).min(axis=1)
    return np.stack([w.mean(axis=1), present.mean(axis=1), -np.log(best)], axis=1)


def _logistic_fit(X, y: np.ndarray, lam: float = 1.0) -> np.ndarray:
    """L2-penalised logistic regression (penalty ``lam/2 ||beta||^2`` on the weights, not the
    intercept) by L-BFGS; ``X`` dense (n, k) or a scipy sparse matrix. Returns (intercept,
    weights...), float64 (k + 1,)."""
    from scipy.optimize import minimize
    from scipy.special import expit

    y = np.asarray(y, np.float64)

    def f(b):
        z = X @ b[1:] + b[0]
        return np.sum(np.logaddexp(0, z) - y * z) + 0.5 * lam * b[1:] @ b[1:]

    def g(b):
        e = expit(X @ b[1:] + b[0]) - y
        return np.concatenate([[e.sum()], X.T @ e + lam * b[1:]])

    return minimize(f, np.zeros(X.shape[1] + 1), jac=g, method="L-BFGS-B",
                    options={"gtol": 1e-10, "maxiter": 1000}).x


# ------------------------------------------------------------------------- text features


@dataclass
class DocumentText:
    """Text features of the documents a :class:`~tiebreak.judgments.pool.RunLists` names.

    Attributes
    ----------
    matrix : scipy.sparse.csr_matrix, float64, shape (n_docnos, vocabulary size)
        Row i: the tf-idf vector of docno ``i`` of the RunLists vocabulary (``RunLists.docnos``),
        ``(1 + ln tf) * ln(N / df)`` per term, L2-normalised; a zero row for a document the
        index does not hold (or whose terms all occur in every document).
    found : ndarray bool, shape (n_docnos,)
        Whether the index holds the document.
    note : str or None
        When the index misses some of the documents: how many, and the first (a sentence
        for the user; the commands print it as a warning), else None.
    """

    matrix: object
    found: np.ndarray
    note: str | None = None


def document_text(index, docnos) -> DocumentText:
    """The :class:`DocumentText` of ``docnos`` (str array, e.g. ``RunLists.docnos``) from a
    tiebreak :class:`~tiebreak.index.Index`, read through its direct file (the document ->
    term view of the postings, :func:`tiebreak.index.direct.direct_file`); idf from the index's
    document frequencies and size N.

    Raises
    ------
    ValueError
        A sharded index (no single direct file), or an index that holds none of ``docnos``.
    """
    from scipy import sparse

    from ..index.direct import direct_file

    if not hasattr(index, "post_ptr"):
        raise ValueError("content features need a single (unsharded) index; merge the shards "
                         "or index the collection whole")
    q = np.asarray(docnos).astype(str)
    own = np.asarray(index.docnos).astype(str)
    order = np.argsort(own, kind="stable")
    pos = np.minimum(np.searchsorted(own[order], q), len(own) - 1)
    found = own[order][pos] == q
    if len(q) and not found.any():
        raise ValueError(f"the index {getattr(index, 'path', '')} holds none of the "
                         f"{len(q)} documents of the runs (first: {q[0]!r})")
    docid = order[pos]
    ptr, tids, tf = direct_file(index)
    start = np.where(found, ptr[docid], 0)
    lens = np.where(found, ptr[docid + 1] - ptr[docid], 0)
    indptr = np.zeros(len(q) + 1, np.int64)
    np.cumsum(lens, out=indptr[1:])
    at = np.arange(indptr[-1]) + np.repeat(start - indptr[:-1], lens)
    cols = tids[at]
    df = np.asarray(index.df, np.float64)
    w = (1.0 + np.log(tf[at])) * np.log(index.num_docs / df[cols])
    norm = np.sqrt(np.bincount(np.repeat(np.arange(len(q)), lens), w * w, minlength=len(q)))
    w = w / np.repeat(np.where(norm > 0, norm, 1.0), lens)
    M = sparse.csr_matrix((w, cols, indptr), shape=(len(q), index.vocab_size))
    note = None
    if not found.all():
        note = (f"{int((~found).sum())} of the {len(q)} documents of the runs and qrels are not "
                f"in the index {getattr(index, 'path', '')} (first: {q[~found][0]!r}); their "
                "text features are empty")
    return DocumentText(M, found, note)


# ---------------------------------------------------------------------------- predictors


class TopicPredictor:
    """One topic's predictor, trained on judged documents of a :class:`TopicLists`.

    ``predictor``: one of :data:`PREDICTORS`; ``text``: the :class:`DocumentText` (content and
    hybrid); ``train``: bool (n_docs,) the documents to train on (default every judged one);
    ``lam``: the L2 penalty. With fewer than two classes among the training documents every
    document gets the smoothed relevant rate ``(rel + 0.5) / (n + 1)``. Call it with docno ids
    (n,) and their ranks in the contributing runs (n, n_runs; > KMAX when absent) for the
    probabilities of relevance, float64 (n,).

    Raises
    ------
    ValueError
        An unknown predictor, or content / hybrid without ``text``.
    """

    def __init__(self, tl: TopicLists, predictor: str = "rank", p: float = 0.95,
                 lam: float = 1.0, text: DocumentText | None = None, train=None):
        if predictor not in PREDICTORS:
            raise ValueError(f"unknown predictor {predictor!r}; choose from "
                             f"{', '.join(PREDICTORS)}")
        if predictor != "rank" and text is None:
            raise ValueError(f"the {predictor} predictor needs document text (an index)")
        self.predictor, self.p, self.text = predictor, p, text
        J = tl.judged if train is None else np.asarray(train, bool)
        y = tl.gain[J]
        self.rate = None
        self.mu = self.sd = self.b = self.cols = None
        if J.sum() == 0 or y.min() == y.max():
            self.rate = float((y.sum() + 0.5) / (J.sum() + 1.0))
            return
        self.cols = None
        R, S = self._features(tl.docs[J], tl.ranks[J])
        if S is not None:
            # a term no training document holds has weight 0 at the optimum (the L2 penalty
            # alone acts on it): fit on the training documents' terms only
            self.cols = np.unique(S.indices)
            S = S[:, self.cols]
        if R is not None:
            self.mu, sd = R.mean(axis=0), R.std(axis=0)
            self.sd = np.where(sd > 0, sd, 1.0)
        self.b = _logistic_fit(self._design(R, S), y, lam)

    def _features(self, docs, ranks):
        R = _rank_features(ranks, self.p) if self.predictor != "content" else None
        S = None
        if self.predictor != "rank":
            S = self.text.matrix[np.asarray(docs)]
            if self.cols is not None:
                S = S[:, self.cols]
        return R, S

    def _design(self, R, S):
        from scipy import sparse

        if R is None:
            return S
        Z = (R - self.mu) / self.sd
        return Z if S is None else sparse.hstack([sparse.csr_matrix(Z), S], format="csr")

    def __call__(self, docs, ranks) -> np.ndarray:
        from scipy.special import expit

        if self.rate is not None:
            return np.full(len(docs), self.rate)
        return expit(self.b[0] + self._design(*self._features(docs, ranks)) @ self.b[1:])


def predicted_relevance(tl: TopicLists, p: float = 0.95, lam: float = 1.0):
    """Probability of relevance of every document of one topic from the ``rank`` predictor
    (:class:`TopicPredictor`; a rank-only variant of Büttcher, Clarke, Yeung & Soboroff,
    SIGIR 2007, and Carterette & Allan, CIKM 2007). Returns (probabilities (n_docs,),
    probability of a document no contributing run retrieves)."""
    model = TopicPredictor(tl, "rank", p, lam)
    absent = model(np.zeros(1, np.int64), np.full((1, tl.ranks.shape[1]), KMAX + 1))
    return model(tl.docs, tl.ranks), float(absent[0])


def prediction_scores(L: RunLists, shallow: Qrels, contributing: list[str], p: float = 0.95,
                      depth: int = 100, score_runs: list[str] | None = None,
                      predictor: str = "rank", text: DocumentText | None = None,
                      lam: float = 1.0) -> np.ndarray:
    """RBP(p)@depth with judged documents at their binary gain and unjudged ones at their
    probability of relevance from ``predictor`` (:class:`TopicPredictor`, trained per topic
    on the judged documents the contributing runs retrieve; tail beyond ``depth`` not
    counted, as LB). A document no contributing run retrieves has absent rank features and,
    for content and hybrid, its own text. ``text`` (:func:`document_text` of ``L.docnos``) is
    needed by content and hybrid. Returns float64 (n_runs, n_topics) for ``score_runs``
    (default all runs of ``L``)."""
    cidx = [L.names.index(c) for c in contributing]
    sidx = [L.names.index(s) for s in (score_runs or L.names)]
    ks, vs = _judgment_lookup(shallow, L)
    tls = topic_lists(L, shallow, cidx, KMAX)
    nT = len(L.topics)
    out = np.zeros((len(sidx), nT))
    w = (1 - p) * p ** np.arange(depth)
    for t in range(nT):
        tl = tls[t]
        model = TopicPredictor(tl, predictor, p, lam, text)
        prob = model(tl.docs, tl.ranks) if len(tl.docs) else np.zeros(0)
        for a, s in enumerate(sidx):
            sel = (L.run == s) & (L.topic == t) & (L.rank <= depth)
            doc, wr = L.doc[sel], w[L.rank[sel] - 1]
            v = _values(ks, vs, (t << 32) | doc)
            g = (v >= 1).astype(np.float64)
            est = np.zeros(len(doc))
            if len(tl.docs):
                pos = np.minimum(np.searchsorted(tl.docs, doc), len(tl.docs) - 1)
                inl = tl.docs[pos] == doc
                est[inl] = prob[pos[inl]]
            else:
                inl = np.zeros(len(doc), bool)
            out_docs = doc[~inl]
            if len(out_docs):
                est[~inl] = model(out_docs, np.full((len(out_docs), len(cidx)), KMAX + 1))
            out[a, t] = float(np.sum(wr * np.where(v >= 0, g, est)))
    return out


# ------------------------------------------------------------------------ cross-validation


def _folds(y: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Stratified fold of every item: each class shuffled, then dealt round-robin."""
    fold = np.empty(len(y), np.int64)
    order = np.concatenate([rng.permutation(np.flatnonzero(y == c)) for c in (1.0, 0.0)])
    fold[order] = np.arange(len(y)) % k
    return fold


def _auc(prob: np.ndarray, y: np.ndarray) -> float:
    """Area under the ROC curve (the Mann-Whitney statistic, ties count one half); NaN with
    a single class."""
    from scipy.stats import rankdata

    npos, nneg = int(y.sum()), int(len(y) - y.sum())
    if not npos or not nneg:
        return float("nan")
    r = rankdata(prob)
    return float((r[y == 1].sum() - npos * (npos + 1) / 2) / (npos * nneg))


def cross_validate(L: RunLists, qrels: Qrels, contributing: list[str], predictor: str = "rank",
                   text: DocumentText | None = None, folds: int = 5, p: float = 0.95,
                   lam: float = 1.0, seed: int = 0) -> list[dict]:
    """k-fold cross-validation of a predictor over each topic's judged documents.

    Per topic, the documents the ``contributing`` runs retrieve that ``qrels`` judges are dealt
    into ``folds`` stratified folds (seeded: each class shuffled, then dealt round-robin); each
    fold is predicted by a :class:`TopicPredictor` trained on the other folds only. Reported
    per topic: ``judged``, ``relevant``, ``accuracy`` (share of the out-of-fold predictions on
    the right side of 0.5) and ``auc`` (the mean over the folds of each fold's ROC area: the
    folds' models are not calibrated to one another, so their predictions are not ranked
    together). A topic with fewer than ``folds`` relevant or non-relevant documents (some fold
    would miss a class) gets NaN for both.

    Returns a list of dicts (one per topic, in ``L.topics`` order) with keys ``qid``,
    ``judged``, ``relevant``, ``accuracy``, ``auc`` and ``prob`` (the out-of-fold
    probabilities of the judged documents, float64, in ``docs`` order), ``docs`` (their docno
    ids) and ``fold`` (their folds).

    Raises
    ------
    ValueError
        ``folds`` < 2, an unknown predictor, or content / hybrid without ``text``.
    """
    if folds < 2:
        raise ValueError(f"cross-validation needs at least 2 folds, got {folds}")
    cidx = [L.names.index(c) for c in contributing]
    rng = np.random.default_rng(seed)
    rows = []
    for t, tl in enumerate(topic_lists(L, qrels, cidx, KMAX)):
        J = np.flatnonzero(tl.judged)
        y = tl.gain[J]
        row = {"qid": L.topics[t], "judged": len(J), "relevant": int(y.sum()),
               "accuracy": float("nan"), "auc": float("nan"), "docs": tl.docs[J],
               "prob": np.full(len(J), np.nan), "fold": np.full(len(J), -1)}
        rows.append(row)
        if min(y.sum(), len(y) - y.sum()) < folds:
            continue
        fold = _folds(y, folds, rng)
        prob = np.empty(len(J))
        aucs = []
        for f in range(folds):
            test = fold == f
            train = np.zeros(len(tl.docs), bool)
            train[J[~test]] = True
            model = TopicPredictor(tl, predictor, p, lam, text, train)
            prob[test] = model(tl.docs[J[test]], tl.ranks[J[test]])
            aucs.append(_auc(prob[test], y[test]))
        row.update(accuracy=float(np.mean((prob >= 0.5) == (y >= 1))),
                   auc=float(np.mean(aucs)), prob=prob, fold=fold)
    return rows
