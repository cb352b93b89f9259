"""Search over a sharded index: every shard scores its documents with the whole collection's
statistics, and the shards' top-k lists are merged (see ``docs/sharding.md``).

>>> from tiebreak.index.shards import open_sharded
>>> from tiebreak.retrieval.sharded import search_sharded
>>> sidx = open_sharded("vas.idx")
>>> res = search_sharded(sidx, [("1", "measurement of dielectric constant")], "bm25", k=1000)
>>> write_run(sys.stdout, sidx, res, tag="bm25")     # tiebreak.retrieval.search.write_run

Why the scores are those of one index, bit for bit: a document's score is a function of its own
postings, positions and length and of collection statistics (N, |C|, avgdl, df, cf, and for
SDM/FDM the collection counts of the window features). Each shard keeps the first kind and reads
the second from :class:`tiebreak.index.shards.CollectionStats` (the reduce step's sums, integers,
so exact) through :func:`tiebreak.retrieval.models.collection_stats`; the same kernel then
performs the same floating-point operations in the same order (term ids are global, so the
query plan, the order of the query terms and the proximity terms chosen are the same). SDM and
FDM need the window counts of the query first: one pass over every shard counts them
(:func:`tiebreak.retrieval.dependency.window_counts`), their sum (exact) is handed to the
scoring pass of every shard.

Work is shard-major: each shard answers all queries in one task, ``jobs`` shards at a time on
the project's process pool (:func:`tiebreak._native.parallel.imap`), then the lists are merged per
query.

Merge rule: the global top k in trec_eval order -- score descending, then docno descending in
byte order, the order every model of one index returns -- is contained in the union of the
shards' top-k lists in that order (a strict total order), so a k-way merge of the shards'
sorted lists by the same key (the docno compared through its rank over the whole collection)
keeps the right k. Ties at the cut therefore fall exactly as on one index.
"""

from __future__ import annotations

import numpy as np

__all__ = ["search_sharded", "search_queries", "merge_topk", "SHARDED_TRAVERSAL"]

#: traversal options a sharded search accepts: the rank-safe algorithms return each shard's
#: exact top k. Quantisation, band-safe and anytime retrieval are fitted to or budgeted over one
#: index (a quantiser fitted per shard gives other integers), so they are refused.
SHARDED_TRAVERSAL = ("algorithm",)


def _merge_kernel():
    from .._native.jit import njit

    @njit(cache=True)
    def merge(d, s, r, ptr, k):
        # S lists, each sorted best first: repeatedly take the best head (S is small)
        S = ptr.size - 1
        head = ptr[:-1].copy()
        n = min(k, d.size)
        out_d = np.empty(n, np.int32)
        out_s = np.empty(n, np.float64)
        for i in range(n):
            b = -1
            for j in range(S):
                h = head[j]
                if h < ptr[j + 1] and (b < 0 or s[h] > s[head[b]]
                                       or (s[h] == s[head[b]] and r[h] > r[head[b]])):
                    b = j
            h = head[b]
            out_d[i] = d[h]
            out_s[i] = s[h]
            head[b] = h + 1
        return out_d, out_s

    return merge


_MERGE = None


def merge_topk(parts, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Merge per-shard top-k lists.

    Parameters
    ----------
    parts : list of (docids, scores, ranks)
        Per shard: global docids (int, (n_s,)), scores (float64, (n_s,)) and the byte-order
        ranks of their docnos over the whole collection (int, (n_s,)), each list sorted best
        first (score descending, then rank descending), as every model returns them.
    k : int
        Documents kept.

    Returns
    -------
    docids : ndarray of int32, shape (<= k,)
    scores : ndarray of float64, shape (<= k,)
        Score descending, then docno descending in byte (code point) order.
    """
    global _MERGE
    parts = [p for p in parts if len(p[0])]
    if not parts:
        return np.zeros(0, np.int32), np.zeros(0, np.float64)
    if len(parts) == 1:
        d, s, _ = parts[0]
        return np.asarray(d[:k], np.int32), np.asarray(s[:k], np.float64)
    if _MERGE is None:
        _MERGE = _merge_kernel()
    ptr = np.zeros(len(parts) + 1, np.int64)
    ptr[1:] = np.cumsum([len(p[0]) for p in parts])
    return _MERGE(np.concatenate([np.asarray(p[0], np.int64) for p in parts]),
                  np.concatenate([np.asarray(p[1], np.float64) for p in parts]),
                  np.concatenate([np.asarray(p[2], np.int64) for p in parts]), ptr, int(k))


def _check_traversal(params: dict) -> None:
    from .models import TRAVERSAL_OPTIONS

    for n in TRAVERSAL_OPTIONS:
        if n in SHARDED_TRAVERSAL or params.get(n) is None:
            continue
        v = params[n]
        if (n, v) in (("quantizer", "linear"), ("band_method", "exact")):
            continue
        raise ValueError(f"{n}={v!r} is not available on a sharded index (quantisers, bands "
                         "and budgets are fitted to one index); use --algorithm, or search a "
                         "single index")


def _shard_windows(shared, i: int) -> list:
    """SDM/FDM pass 1 on shard ``i``: the window counts of every query (or None)."""
    from . import dependency as dep

    sidx, model, queries, _, params, _ = shared
    return [dep.window_counts(model, sidx.shards[i], q, **params) for q in queries]


def _shard_topk(shared, i: int) -> list:
    """Every query's top k on shard ``i``: a list of (docids int32 local, scores float64)."""
    from . import dependency as dep
    from .search import get_model

    sidx, model, queries, k, params, windows = shared
    sh = sidx.shards[i]
    if windows is not None:
        empty = (np.zeros(0, np.int32), np.zeros(0, np.float64))
        return [empty if w is None else dep.score_with_windows(model, sh, q, k, w, **params)
                for q, w in zip(queries, windows)]
    fn = get_model(model)
    return [fn(sh, q, k, **params) for q in queries]


def search_queries(sidx, model: str, queries, k: int, jobs: int = 1, progress: bool = False,
                   **params) -> list[tuple[np.ndarray, np.ndarray]]:
    """Top ``k`` of every query (a list of analysed terms) over the shards of ``sidx``: one
    (docids int32 global, scores float64) per query, in trec_eval order. Shard by shard (all
    queries of a shard in one task), ``jobs`` shards at a time on
    :func:`tiebreak._native.parallel.imap`; SDM/FDM first count the window features on every shard
    and sum them per query. ``params`` as for the model (and ``algorithm`` for bm25 / ql)."""
    from .._native.parallel import imap

    queries = [list(q) for q in queries]
    S = len(sidx.shards)
    windows = None
    if model in ("sdm", "fdm"):
        windows = [None] * len(queries)
        shared = (sidx, model, queries, k, params, None)
        for counts in imap(_shard_windows, range(S), jobs, shared,
                           progress="counting windows" if progress else None):
            windows = [c if w is None else (w if c is None else w + c)
                       for w, c in zip(windows, counts)]
    shared = (sidx, model, queries, k, params, windows)
    per_shard = list(imap(_shard_topk, range(S), jobs, shared,
                          progress=f"searching {S} shards" if progress else None))
    rank, off = sidx.stats.docno_rank, sidx.offsets
    out = []
    for j in range(len(queries)):
        parts = []
        for i in range(S):
            d, s = per_shard[i][j]
            g = np.asarray(d, np.int64) + off[i]
            parts.append((g, s, rank[g]))
        out.append(merge_topk(parts, k))
    return out


def search_sharded(sidx, topics, model: str = "bm25", k: int = 1000, progress: bool = False,
                   jobs: int = 1, **params):
    """:func:`tiebreak.retrieval.search.search` over a sharded index
    (:class:`tiebreak.index.shards.ShardedIndex`): one
    :class:`~tiebreak.retrieval.search.Result` per topic, in topic order, docids global (shard
    offset + docid in the shard), scores and order identical to a search of one index built
    from the same source. ``jobs``: shards searched at a time (processes,
    :func:`search_queries`).

    Raises
    ------
    ValueError
        Bad parameters (:func:`~tiebreak.retrieval.search.check_params`), a traversal option
        other than ``algorithm``, a topic id that is empty or contains whitespace.
    """
    from ..index.readers import check_docno
    from .registry import get
    from .search import Result, check_params, empty_note

    params = check_params(model, params)      # an alias's fixed parameters added
    model = get(model).name
    _check_traversal(params)
    topics = list(topics)
    for qid, _ in topics:
        check_docno(str(qid), f"topic {str(qid)!r}", "topic id")
    analyze = sidx.analyzer.analyze
    queries = [analyze(text) for _, text in topics]
    res = search_queries(sidx, model, queries, k, jobs, progress, **params)
    return [Result(str(qid), d, s, empty_note(sidx, q) if len(d) == 0 else "")
            for (qid, _), q, (d, s) in zip(topics, queries, res)]
