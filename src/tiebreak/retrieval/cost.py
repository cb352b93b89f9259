"""Retrieval cost per document scored, as Lu (2018) §4.3.5 measures it (Table 4.8, Figs 4.8,
4.9): the time of a whole model call for one query (top 1,000), divided by the number of
documents scored -- the union of the query terms' postings lists (an exhaustive OR).

Used by ``benchmarks/bench_models.py`` and the reproduction items of Lu (2018) ch. 4. Times are
wall-clock (:func:`time.perf_counter`), best of ``repeat`` runs after one warm-up call per query
(numba compilation, impact caches), so they depend on the machine and its load.
"""

from __future__ import annotations

import time

import numpy as np

__all__ = ["docs_scored", "cost_per_doc", "model_fn", "short_queries"]


def docs_scored(index, query_terms) -> int:
    """Number of documents holding at least one of ``query_terms`` (analysed)."""
    tids = [index.term_id(t) for t in query_terms]
    tids = [t for t in tids if t >= 0]
    if not tids:
        return 0
    pp = np.asarray(index.post_ptr)
    pd = np.asarray(index.post_docid)
    return int(np.unique(np.concatenate([pd[pp[t]:pp[t + 1]] for t in tids])).size)


def model_fn(name: str, **params):
    """``fn(index, terms, k)`` of a registered model with ``params`` (checked once)."""
    from .registry import check, get

    p = check(name, params)
    fn = get(name).function()
    return lambda index, terms, k: fn(index, terms, k, **p)


def cost_per_doc(fn, index, queries, repeat: int = 3, k: int = 1000) -> np.ndarray:
    """Microseconds per document scored for every query (float64 (len(queries),)): best of
    ``repeat`` calls ``fn(index, q, k)`` after a warm-up call per query."""
    for q in queries:
        fn(index, q, k)
    out = []
    for q in queries:
        n = docs_scored(index, q)
        best = float("inf")
        for _ in range(max(1, int(repeat))):
            t = time.perf_counter()
            fn(index, q, k)
            best = min(best, time.perf_counter() - t)
        out.append(best * 1e6 / max(n, 1))
    return np.array(out)


def short_queries(index, topics, lengths=(2, 3, 4, 5)) -> list[list[str]]:
    """Title-like queries from long topics: topic i's first ``lengths[i % len(lengths)]``
    distinct in-vocabulary analysed terms (topics with fewer terms are skipped)."""
    an = index.analyzer.analyze
    out = []
    for i, (_, text) in enumerate(topics):
        q = list(dict.fromkeys(t for t in an(text) if index.term_id(t) >= 0))
        n = lengths[i % len(lengths)]
        if len(q) >= n:
            out.append(q[:n])
    return out
