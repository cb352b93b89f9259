"""bm25 and ql (Dirichlet) for a handful of queries, in numpy: no numba import.

A script that calls ``tiebreak search`` once per query pays, in each process, numba's import,
its registries and the loading of cached kernels, and the decoding of every posting of a
compressed index, before one query of a few terms is scored (``docs/performance.md``). For a
few topics whose terms hold a small part of the index's postings
(:func:`worth_it`), :func:`tiebreak.retrieval.search.search` scores them here instead:

* only the query terms' postings are decoded (:meth:`tiebreak.index.Index.postings`, numpy);
* the term weights are the registry models' own definitions
  (:func:`tiebreak.retrieval.weights.idf_weights`, :func:`~tiebreak.retrieval.weights._knorm`,
  :func:`~tiebreak.retrieval.weights.bm25_tf_part`, :func:`~tiebreak.retrieval.weights.
  collection_stats`);
* scores are accumulated term by term in query-term order, ``acc[d] += w_q imp[q, d]``, the
  same floating-point operations in the same order as the compiled models
  (:func:`tiebreak.retrieval.models.bm25` and :func:`~tiebreak.retrieval.models.ql`), so the
  scores are bit-identical;
* query likelihood's arithmetic is the compiled path's own definition
  (:func:`~tiebreak.retrieval.weights.ql_dirichlet_factor`,
  :func:`~tiebreak.retrieval.weights.ql_dirichlet_impact`,
  :func:`~tiebreak.retrieval.weights.ql_dirichlet_prior`, with the C library's ``math.log``),
  applied once per distinct value (a term's distinct frequencies, the touched documents' distinct
  lengths): numpy's vectorised ``np.log`` may differ from it in the last bit;
* the top ``k`` are the touched documents in trec_eval order (score descending, then docno
  descending in byte order: ``docno_rank`` descending), as
  :func:`tiebreak.retrieval.kernels._topk_of` orders them.

The runs written are byte-identical to the compiled path's (``tests/test_onequery.py``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["MODELS", "worth_it", "score"]

#: the models scored here, with the parameters each takes (others go to the compiled path)
MODELS = {"bm25": {"k1", "b", "idf", "doclen"}, "ql": {"mu", "smoothing"}}
#: at most this many topics
MAX_TOPICS = 64
#: the query terms of all topics hold less than 1/SHARE of the index's postings
SHARE = 8
#: topics one index object scores here in all (about 2 ms each on 300k documents, against
#: 0.4-0.8 s for the compiled path's start-up and 0.4 ms per query after it): a process that
#: keeps searching one index goes over to the compiled path once this many are done
BUDGET = 256


def worth_it(index, model: str, params: dict, topics, analyze) -> bool:
    """Whether :func:`score` is the cheaper way to run ``topics`` of ``model``: a bm25 or
    Dirichlet ql topic set (no traversal option) of at most :data:`MAX_TOPICS` topics whose
    query terms hold less than 1/:data:`SHARE` of the postings of ``index`` (an
    :class:`~tiebreak.index.Index`), so decoding and weighting those terms in numpy costs less
    than loading the compiled kernels and decoding the whole index; and while fewer than
    :data:`BUDGET` topics have been scored here on this index object (a long-running process
    that searches one query at a time then pays the compiled path's start-up once and runs
    faster per query). The results are the same either way."""
    allowed = MODELS.get(model)
    if allowed is None or set(params) - allowed or len(topics) > MAX_TOPICS:
        return False
    if params.get("smoothing", "dirichlet") != "dirichlet" or not hasattr(index, "post_ptr"):
        return False
    if index._cache.get("onequery-topics", 0) + len(topics) > BUDGET:
        return False
    pp = index.post_ptr
    tids = {index.term_id(t) for _, text in topics for t in analyze(text)}
    held = sum(int(pp[t + 1]) - int(pp[t]) for t in tids if t >= 0)
    return SHARE * held < index.num_postings


def _postings(index, tid: int):
    c = index._cache
    key = ("term-postings", tid)
    hit = c.get(key)
    if hit is None:
        hit = c[key] = index.postings(tid)
    return hit


def _logs(x: np.ndarray, f) -> np.ndarray:
    """``f(v)`` (a scalar function) of every element of ``x``, computed once per
    distinct value."""
    u, inv = np.unique(x, return_inverse=True)
    return np.fromiter((f(v) for v in u.tolist()), np.float64, u.size)[inv]


def score(index, query_terms, k: int, model: str, **params) -> tuple[np.ndarray, np.ndarray]:
    """Top ``k`` of ``model`` (``bm25`` or ``ql`` with Dirichlet smoothing) for one query of
    analysed terms on ``index``: ``(docids int32, scores float64)`` in trec_eval order,
    bit-identical to :func:`tiebreak.retrieval.models.bm25` / ``ql`` with the same
    parameters (defaults: the registry's).

    Raises
    ------
    ValueError
        An unknown ``idf`` or ``doclen``, ``mu`` <= 0, or a model other than bm25 and ql.
    """
    from .weights import (
        _knorm,
        bm25_tf_part,
        collection_stats,
        idf_weights,
        ql_dirichlet_factor,
        ql_dirichlet_impact,
        ql_dirichlet_prior,
        query_term_ids,
    )

    if model not in MODELS:
        raise ValueError(f"onequery: model {model!r} is scored by the compiled path")
    k = int(k)
    index._cache["onequery-topics"] = index._cache.get("onequery-topics", 0) + 1
    tids, qtf = query_term_ids(index, query_terms)
    empty = np.zeros(0, np.int32), np.zeros(0, np.float64)
    if model == "bm25":
        k1 = float(params.get("k1", 0.9))
        b = float(params.get("b", 0.4))
        idf = params.get("idf", "lucene")
        doclen = params.get("doclen", "exact")
        if tids.size == 0 or k <= 0 or index.num_docs == 0:
            return empty
        w = idf_weights(index, tids, idf) * qtf
        if doclen not in ("exact", "lucene"):
            raise ValueError(f"doclen: expected exact or lucene, got {doclen!r}")
        knorm = index._cache[_knorm(index, k1, b, doclen)]
    else:
        if params.get("smoothing", "dirichlet") != "dirichlet":
            raise ValueError("onequery: ql scores Dirichlet smoothing only")
        mu = float(params.get("mu", 2500.0))
        if mu <= 0:
            raise ValueError("mu must be > 0")
        if tids.size == 0 or k <= 0 or index.num_docs == 0:
            return empty
        st = collection_stats(index)
        cf = np.asarray(st.cf)
        coll_len = float(st.collection_length)
        w = qtf
    acc = np.zeros(index.num_docs, np.float64)
    seen = np.zeros(index.num_docs, np.bool_)
    for qi, t in enumerate(tids.tolist()):
        d, tf = _postings(index, t)
        if d.size == 0:     # a shard's vocabulary can hold terms without postings here
            continue
        if model == "bm25":
            imp = bm25_tf_part(tf, knorm[d], k1)
        else:
            c = ql_dirichlet_factor(coll_len, mu, float(cf[t]))
            imp = _logs(tf, lambda f, c=c: ql_dirichlet_impact(float(f), c))
        acc[d] += w[qi] * imp
        seen[d] = True
    touched = np.flatnonzero(seen)
    if model == "ql":
        nq = float(qtf.sum())
        dl = np.asarray(index.doclen)[touched]
        acc[touched] += nq * _logs(dl, lambda x: ql_dirichlet_prior(float(x), mu))
    sc = acc[touched]
    n = touched.size
    if n > k:
        thr = np.partition(sc, n - k)[n - k]
        keep = sc >= thr                      # ties at the cut are kept, then ordered
        touched, sc = touched[keep], sc[keep]
    rank = np.asarray(index.docno_rank)[touched]
    order = np.lexsort((-rank.astype(np.int64), -sc))[:k]
    return touched[order].astype(np.int32), sc[order]
