"""Term-dependency retrieval models over a positional index: SDM, FDM (Metzler & Croft 2005)
and Lkp, Lkpf, L2p (Lu 2018, ch. 4). Spec: ``proximity-retrieval.md`` §1.4, §5.

Every model has the registry signature ``model(index, query_terms, k, **params) -> (docids,
scores)``: ``query_terms`` are analysed index terms; the result is the top ``k`` documents among
the candidates -- every document containing at least one query term -- as ``int32`` docids and
``float64`` scores, sorted by score descending, then docno descending in byte order (trec_eval's
order). An empty query, ``k <= 0`` or a query with no term in the vocabulary gives two empty
arrays. Raises ValueError for a bad parameter.

Long queries (**a deliberate deviation** from the papers, which score every subquery): FDM, Lkp
and Lkpf enumerate all ``2^k - k - 1`` subsets of the k distinct query terms, which is
infeasible beyond about 20 terms (Cranfield, CACM, CISI and MEDLINE have topics with 30-100).
Every model therefore takes ``max_prox_terms``: the unigram / BM25 part is computed over *all*
query terms, the proximity features (phrases, windows, subqueries) over at most
``max_prox_terms`` distinct terms -- the highest-IDF ones (smallest ``df``, ties to the earlier
term), kept in query order (:func:`proximity_terms`). Defaults: 12 for FDM/Lkp/Lkpf (at most
:data:`~tiebreak.retrieval.intervals.MAX_ALL_TERMS` = 20 allowed); all terms up to
:data:`~tiebreak.retrieval.intervals.MAX_TERMS` = 62 for SDM/L2p (``None``; at most 62
allowed). Queries with at most that many distinct terms are scored exactly as before.

Query handling (the spec treats Q as a set, §0): terms outside the vocabulary are dropped; the
proximity features are built over the *distinct* remaining (proximity) terms in
first-occurrence order
(adjacency, contiguity and query order refer to that sequence), while the unigram part keeps
the query frequency ``f_{q,Q}`` exactly as :mod:`tiebreak.retrieval.models` does, so that SDM
with weights ``(1, 0, 0)`` ranks as ``ql`` and Lkp with ``lam=0`` scores as BM25^(2).

Evaluation is document-at-a-time in one numba kernel per query: a k-way merge of the query
terms' postings; for each candidate document the query-term positions are merged into a
condensed direct file (CDF), the optimal intervals of every subquery the model uses are
enumerated in one pass (LPS-IF-A or EPS-CDF-A, chosen per query by
:func:`tiebreak.retrieval.intervals.choose_method`, or forced with ``method=``), selected
(length filter, then greedy non-overlap per subquery) and scored on the fly; the best ``k``
are selected at the end (a partition, then a sort of the survivors).

Parts (a package: numba's on-disk cache keys each kernel by the file that defines it, see
:mod:`tiebreak._native.jit`):

* :mod:`~tiebreak.retrieval.dependency.plan` -- default parameters, query plans
  (:func:`query_plan`, :func:`proximity_terms`), the index and scratch arrays, the slot and
  phrase tables of a query structure;
* :mod:`~tiebreak.retrieval.dependency._kernels` -- the shared compiled proximity kernels
  (interval selection, the proximity features of a document, the per-query scorer, top-k
  selection) and the per-posting tables (BM25 saturation, Dirichlet and document-length parts);
* :mod:`~tiebreak.retrieval.dependency.lkp_family` -- Lkp, Lkpf, L2p;
* :mod:`~tiebreak.retrieval.dependency.mrf` -- SDM, FDM, the term-pair statistics and the
  window counts of sharded scoring;
* :mod:`~tiebreak.retrieval.dependency.pruned` -- rank-safe dynamic pruning of all five models
  (``algorithm="bounds"``): the one traversal kernel and its per-document upper bounds of the
  proximity part from the postings (the exhaustive top k bit for bit); its drivers are
  ``mrf.mrf_bounds`` and ``lkp_family.lkp_bounds``;
* :mod:`~tiebreak.retrieval.dependency.bounds` -- every candidate's bounds for tests
  (:func:`proximity_bounds`) and the two-stage SDM / FDM baseline (:func:`mrf_rerank`);
* :mod:`~tiebreak.retrieval.dependency.rerank` -- the two-stage kernels of
  :mod:`tiebreak.retrieval.rerank`.
"""

from __future__ import annotations

from . import plan
from .bounds import mrf_rerank, proximity_bounds
from .lkp_family import l2p, lkp, lkpf
from .mrf import (
    build_pair_statistics,
    build_subquery_statistics,
    fdm,
    query_pairs,
    score_with_windows,
    sdm,
    sdm_bounds,
    window_counts,
)
from .plan import FDM_WEIGHTS, MAX_PROX_TERMS, SDM_WEIGHTS, proximity_terms, query_plan

# the models' default parameters: public module attributes as before, outside __all__
B, K1, LAMBDA, MU = plan.B, plan.K1, plan.LAMBDA, plan.MU
SDM_WINDOW, WINDOW_PER_TERM = plan.SDM_WINDOW, plan.WINDOW_PER_TERM

__all__ = [
    "sdm",
    "sdm_bounds",
    "build_pair_statistics",
    "build_subquery_statistics",
    "proximity_bounds",
    "mrf_rerank",
    "query_pairs",
    "fdm",
    "lkp",
    "lkpf",
    "l2p",
    "query_plan",
    "proximity_terms",
    "window_counts",
    "score_with_windows",
    "SDM_WEIGHTS",
    "FDM_WEIGHTS",
    "MAX_PROX_TERMS",
]
