"""Tie groups and the orderings of every tie regime (the ranking layer).

A run's lines for the topics of the qrels are judged once (:func:`judge`) and then put in the
order each regime asks for. Every ordering is topic-major (qrels topic index ascending) so that all
rankings of one run share the same ``topic`` and ``rank`` arrays; only the per-position gains
differ.

Modules: :mod:`.judged` (run hygiene, relevance lookup), :mod:`.orderings` (every regime's
order), :mod:`.rankings` (the ranking structure measures read, tie groups), :mod:`.bands`
(deliberate banding), :mod:`._flat` (per-topic kernels, numpy: the definition) and
:mod:`._cloops` (the compiled forms of its loops, in the C extension).

Regimes:

===============  ==========================================================================
``file``         order of lines in the file, scores ignored
``trec_eval``    score descending, then docno descending by byte comparison (trec_eval's
                 ``comp_sim_docno``); rank column ignored
``realistic``    Cabanac et al. (2010): inside a tied group relevance ascending, then docno
                 descending (unjudged = -1, pooled-but-unjudged = -2, as trec_eval codes them)
``optimistic``   the same with relevance descending
``lower``        Yang, Moffat & Turpin (2016) pessimistic bound: gains ascending in each group
``upper``        optimistic bound: gains descending; for measures that only grow with a gain,
                 unjudged documents count as maximally relevant
``expected``     exact mean over all permutations inside tied groups (McSherry & Najork 2008)
===============  ==========================================================================
"""

from __future__ import annotations

from .judged import (  # noqa: F401
    DENSE_QRELS_MAX,
    NOT_IN_QRELS,
    POOLED_UNJUDGED,
    Judged,
    _code_points,
    _compiled,
    _dense_rows,
    judge,
    lookup,
    run_hygiene,
)
from .orderings import (  # noqa: F401
    ALL_REGIMES,
    DEFAULT_REGIMES,
    REGIMES,
    Orderings,
    Regime,
    order_for,
    orderings,
)
from .rankings import (  # noqa: F401
    PROMOTED,
    QRELS_SIDE_KEEP,
    Groups,
    Prepared,
    Ranking,
    _exact_whole,
    _score_positions,
    _seg_positions,
    _select,
    exact_cumsum,
    expected_ranking,
    groups,
    prepare,
    qrels_levels,
    ranking,
    sampled_ranking,
    topic_generators,
)

__all__ = [
    "ALL_REGIMES",
    "DEFAULT_REGIMES",
    "DENSE_QRELS_MAX",
    "Groups",
    "Judged",
    "NOT_IN_QRELS",
    "Orderings",
    "POOLED_UNJUDGED",
    "PROMOTED",
    "Prepared",
    "QRELS_SIDE_KEEP",
    "REGIMES",
    "Ranking",
    "Regime",
    "exact_cumsum",
    "expected_ranking",
    "groups",
    "judge",
    "lookup",
    "order_for",
    "orderings",
    "prepare",
    "qrels_levels",
    "ranking",
    "run_hygiene",
    "sampled_ranking",
    "topic_generators",
]
