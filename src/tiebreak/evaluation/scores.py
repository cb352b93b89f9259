"""Evaluate a score matrix, as dense retrievers hold one, without writing a run file.

>>> import numpy as np, tiebreak as tb
>>> res = tb.evaluate_scores(qrels, S, query_ids, doc_ids, k=100, precision="bfloat16")

``S`` is a (queries × documents) array, or a top-k pair ``(scores, indices)`` as
``torch.topk`` or FAISS return them; the result is the :class:`EvalResult` that
:func:`tiebreak.evaluate` gives for the equivalent run file (every regime, tie ranges included).
The matrix is turned into runs a block of queries at a time (:func:`score_blocks`) and evaluated
the way a large run file is (:meth:`Evaluator._chunked`), so memory beyond the inputs is bounded by
one block, O(queries × k) overall for the top-k form.
"""

from __future__ import annotations

import numpy as np

from ..io import Run
from ..ranking.formats import parse_format, round_scores

__all__ = ["evaluate_scores", "score_blocks"]

#: Run lines per block of queries evaluated at once.
BLOCK_LINES = 1 << 18


def _text(ids, what: str) -> np.ndarray:
    """Ids as the reader holds them: the latin-1 text of their UTF-8 bytes, a ``U`` array."""
    import re

    out = [str(x) for x in ids]
    joined = "".join(out)
    if (out and not min(map(len, out))) or re.search(r"\s", joined):
        i, s = next((i, s) for i, s in enumerate(out) if not s or re.search(r"\s", s))
        raise ValueError(f"{what}[{i}] = {s!r}: an id must be non-empty text without "
                         "white space")
    if not joined.isascii():
        out = [s.encode("utf-8").decode("latin-1") for s in out]
    return np.array(out, dtype=str)


def _check_pair(scores, indices, n_docs: int):
    s = np.asarray(scores)
    ix = np.asarray(indices)
    if s.ndim != 2 or s.shape != ix.shape:
        raise ValueError(f"top-k scores {s.shape} and indices {ix.shape} must be two arrays of "
                         "the same shape (queries, k)")
    if ix.dtype.kind not in "iu":
        raise ValueError(f"top-k indices must be integers, not {ix.dtype}")
    if ix.size and ix.max() >= n_docs:
        raise ValueError(f"top-k index {int(ix.max())} is beyond the {n_docs} doc_ids")
    return s, ix


def score_blocks(scores, query_ids, doc_ids, k: int | None = None, name: str = "scores",
                 precision="float64", block_lines: int = BLOCK_LINES):
    """Yield the :class:`~tiebreak.io.Run` of each block of queries of a score matrix (topics in
    ``query_ids`` order), and, after each, the format's warnings: pairs ``(run, warnings)``.

    Lines of a query: for a dense matrix, its ``k`` best documents (all with ``k=None``) by
    score descending, ties in ``doc_ids`` order; for a top-k pair, the given columns in the given
    order, leaving out negative indices (FAISS pads with -1). Ranks are 1, 2, ... in that
    order. A query without lines has no topic in the run. The scores are rounded to
    ``precision`` (:mod:`tiebreak.ranking.formats`) with ``int8-global``'s scale taken over the
    whole matrix.

    Raises
    ------
    ValueError
        Shapes that do not match, non-finite scores of documents, a document twice in one
        query, empty or white-space ids, doc_ids repeated.
    """
    fmt = parse_format(precision, "precision")
    qids = _text(query_ids, "query_ids")
    docs = _text(doc_ids, "doc_ids")
    sorted_docs, doc_rank = np.unique(docs, return_inverse=True)
    if len(sorted_docs) < len(docs):
        _, first, counts = np.unique(docs, return_index=True, return_counts=True)
        raise ValueError(f"doc_ids: {docs[first[counts > 1][0]]!r} appears more than once")
    dense = not isinstance(scores, tuple)
    if dense:
        S = np.asarray(scores)
        if S.ndim != 2 or S.shape != (len(qids), len(docs)):
            raise ValueError(f"scores has shape {S.shape}; expected (queries, documents) = "
                             f"({len(qids)}, {len(docs)})")
        width = S.shape[1] if k is None else min(int(k), S.shape[1])
    else:
        S, IX = _check_pair(*scores, len(docs))
        if S.shape[0] != len(qids):
            raise ValueError(f"top-k arrays have {S.shape[0]} rows for {len(qids)} query_ids")
        width = S.shape[1]
    if k is not None and int(k) < 1:
        raise ValueError("k must be a positive number of documents")
    rows = max(1, block_lines // max(width, 1))
    bounds = None
    if fmt.scope == "global":  # one scale for the run: over every document's score
        lo, hi = np.inf, -np.inf
        for a in range(0, len(qids), rows):
            s, ix = _block(S, None if dense else IX, a, a + rows, k, dense)
            f = s[(ix >= 0) & np.isfinite(s)]
            if len(f):
                lo, hi = min(lo, float(f.min())), max(hi, float(f.max()))
        bounds = (lo, hi)
    line = 0
    for a in range(0, len(qids), rows):
        s, ix = _block(S, None if dense else IX, a, a + rows, k, dense)
        keep = ix >= 0
        n_per = keep.sum(axis=1)
        if not np.isfinite(s[keep]).all():
            r, c = np.argwhere(keep & ~np.isfinite(s))[0]
            raise ValueError(f"query {qids[a + r]!r}: score {s[r, c]!r} of document "
                             f"{docs[ix[r, c]]!r} is not a finite number")
        srt = np.sort(np.where(keep, ix, -1 - np.arange(ix.shape[1])), axis=1)
        dup = srt[:, 1:] == srt[:, :-1]
        if dup.any():
            r, c = np.argwhere(dup)[0]
            raise ValueError(f"query {qids[a + r]!r}: document {docs[srt[r, c]]!r} listed "
                             "twice")
        has = np.flatnonzero(n_per)
        topic = np.repeat(np.arange(len(has)), n_per[has])
        score = s[keep].astype(np.float64)
        grank = doc_rank[ix[keep]]
        seen = np.zeros(len(sorted_docs), bool)
        seen[grank] = True
        used = np.flatnonzero(seen)  # the block's documents, in byte order
        rank = (np.cumsum(keep, axis=1)[keep]).astype(np.float64)
        n = len(score)
        run = Run(name, f"<scores {name}>", list(qids[a + has]), topic,
                  sorted_docs[used], (np.cumsum(seen) - 1)[grank], score, rank,
                  np.arange(line + 1, line + n + 1), [name])
        line += n
        warn: dict[str, int] = {}
        if not fmt.identity:
            run.score, warn = round_scores(score, fmt, topic, len(has), bounds=bounds)
        yield run, warn


def _block(S, IX, a: int, b: int, k, dense: bool):
    """Scores and document indices (rows a..b-1; a document index -1 where there is none)."""
    if not dense:
        return np.asarray(S[a:b]), np.asarray(IX[a:b]).astype(np.int64)
    s = np.asarray(S[a:b])
    v = s.astype(np.float64)
    if k is not None and k < s.shape[1]:
        # the k best of each row, ties at the k-th score taken in doc_ids order
        kth = -np.partition(-v, k - 1, axis=1)[:, k - 1:k]
        above = v > kth
        tie = v == kth
        take = above | (tie & (np.cumsum(tie, axis=1) <= k - above.sum(axis=1, keepdims=True)))
        part = np.nonzero(take)[1].reshape(len(v), k)
        sub = np.take_along_axis(v, part, axis=1)
        o = np.lexsort((part, -sub), axis=1)  # by score descending, ties in doc_ids order
        ix = np.take_along_axis(part, o, axis=1)
    else:
        ix = np.argsort(-v, axis=1, kind="stable")
    return np.take_along_axis(s, ix, axis=1), ix.astype(np.int64)


def evaluate_scores(qrels, scores, query_ids, doc_ids, k: int | None = None,
                    precision="float64", measures=None, regimes=None, name: str = "scores",
                    **kw):
    """Evaluate a score matrix as :func:`tiebreak.evaluate` evaluates a run.

    Parameters
    ----------
    qrels : Qrels, path, "irds:ID", DataFrame or dict
    scores : ndarray (queries, documents) or tuple (scores, indices)
        A dense matrix of any real dtype (float16 and bfloat16 values are read exactly), or a
        top-k pair: scores (queries, k) and integer indices (queries, k) into ``doc_ids``
        (negative: no document, as FAISS pads).
    query_ids : sequence of str (queries,)
    doc_ids : sequence of str (documents,)
        Distinct.
    k : int, optional
        Dense form: keep each query's k best documents (ties broken by doc_ids order, as
        ``tiebreak.retrieval`` does not: this is the run a writer of the top k would produce).
        Default: every document.
    precision : str or ScoreFormat
        Round the scores to a score format first (:mod:`tiebreak.ranking.formats`);
        ``int8-global`` takes its scale over the whole matrix.
    measures, regimes, **kw
        As :class:`~tiebreak.evaluation.Evaluator` (``score_precision`` excepted: use
        ``precision``).

    Returns
    -------
    EvalResult
        One run named ``name``; its warnings count what the format reported (overflow, NaN,
        topics merged into one score) beside the usual ones.

    Raises
    ------
    ValueError
        Bad shapes, ids, scores or ``precision`` (see :func:`score_blocks`).
    """
    from .evaluator import Evaluator

    if "score_precision" in kw:
        raise TypeError("evaluate_scores takes precision=, not score_precision=")
    ev = Evaluator(qrels, measures, regimes, **kw)
    fwarn: dict[str, int] = {}

    def parts():
        for run, w in score_blocks(scores, query_ids, doc_ids, k, name, precision):
            for key, v in w.items():
                fwarn[key] = fwarn.get(key, 0) + v
            if len(run):
                yield run

    out, w = ev._chunked(None, parts(), {})
    warnings = dict(fwarn)
    warnings.update(w)
    return ev._result([name], [out], {name: warnings})
