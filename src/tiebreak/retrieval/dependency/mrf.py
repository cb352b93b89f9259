"""SDM and FDM (Metzler & Croft 2005), Indri semantics (:mod:`tiebreak.retrieval.dependency`):
the set-up in numba (:func:`_mrf_query`: slot weights, window limits, unigram collection
counts, interval method), then :func:`~tiebreak.retrieval.dependency._kernels._score_query`
in mode 1 in the same compiled call; the window features' collection counts of a query and
scoring with given counts (sharded indexes: :func:`window_counts`, :func:`score_with_windows`);
SDM by rank-safe upper bounds (:func:`sdm_bounds`, over the pruned traversal of
:mod:`~tiebreak.retrieval.dependency.pruned`) and its term-pair statistics
(:func:`build_pair_statistics`).
"""

from __future__ import annotations

import numpy as np

from ..intervals import MAX_ALL_TERMS, MAX_TERMS, jit
from ..weights import collection_stats
from ._kernels import _ALL_DOCS, _dirichlet_part, _log_doclen, _score_query
from .plan import (
    _NOLIMIT,
    _ZERO1,
    FDM_WEIGHTS,
    K1,
    MAX_PROX_TERMS,
    MU,
    SDM_WEIGHTS,
    SDM_WINDOW,
    WINDOW_PER_TERM,
    B,
    _arrays,
    _check_k,
    _empty,
    _method_code,
    _prox_plan,
    _scratch,
    _structure,
)
from .pruned import _NOPOP, _bound_tables, _pruned_query, _report

__all__ = ["sdm", "sdm_bounds", "build_pair_statistics", "fdm", "window_counts",
           "score_with_windows", "constant_window_cf", "query_pairs", "mrf_bounds",
           "window_statistics", "build_subquery_statistics"]


def constant_window_cf(window_cf, num_docs: int) -> float:
    """The constant collection count ``f_{I(Q'),C}`` that replaces the exact statistic of every
    SDM / FDM window feature (``window_cf`` of :func:`sdm` / :func:`fdm`).

    ``"ivory"``: ``2 N / 100`` for a collection of N documents -- the default document
    frequency ``N / 100`` and collection frequency twice that, which Terrier's ``MRF``
    dependence model (C. Macdonald) states are the statistics of the Ivory system
    (J. Lin, D. Metzler, T. Elsayed and L. Wang, "Of Ivory and Smurfs: Loxodontan MapReduce
    experiments for web search", TREC 2009). The Ivory source itself could not be read here; the
    value is taken from that restatement. Lu (2018, §4.1.2) cites the idea from C. Macdonald,
    R. L. T. Santos and I. Ounis, "The whens and hows of learning to rank for web search",
    Information Retrieval 16(5), 2013: a constant avoids the global proximity statistics (and
    so the first pass), at the price of a value to tune. A number > 0: that count.

    Raises
    ------
    ValueError
        Anything else (a count <= 0, NaN, infinity, another string).
    """
    if isinstance(window_cf, str):
        if window_cf != "ivory":
            raise ValueError(f"window_cf: 'ivory' or a count > 0, got {window_cf!r}")
        return 2.0 * float(num_docs) / 100.0
    if isinstance(window_cf, bool) or not isinstance(window_cf, (int, float, np.number)):
        raise ValueError(f"window_cf: 'ivory' or a count > 0, got {window_cf!r}")
    v = float(window_cf)
    if not (v > 0 and np.isfinite(v)):
        raise ValueError(f"window_cf: 'ivory' or a finite count > 0, got {window_cf!r}")
    return v


def _mrf(index, query_terms, k, full, weights, mu, window, method, max_prox_terms,
         windows=None, export=False, window_cf=None):
    """SDM / FDM. ``export``: return the window features' collection counts in this index,
    float64 (nslots,) (None when it has no candidate); ``windows``: score with these counts
    instead of this index's (see :func:`window_counts`); ``window_cf``: one constant count for
    every window feature (:func:`constant_window_cf`)."""
    if window_cf is not None:
        if export or windows is not None:
            raise ValueError("window_cf replaces the window counts: not with windows/export")
        window_cf = constant_window_cf(window_cf, collection_stats(index).num_docs)
    lt, lo, lu = (float(x) for x in weights)
    if mu <= 0:
        raise ValueError("mu must be > 0")
    if min(lt, lo, lu) < 0:
        raise ValueError("weights must be >= 0")
    if method not in ("auto", "lps_if_all", "eps_cdf_all"):
        raise ValueError(f"method: expected auto, lps_if_all or eps_cdf_all, got {method!r}")
    k = _check_k(k)
    limit = MAX_ALL_TERMS if full else MAX_TERMS
    tids, qtf, npx = _prox_plan(index, query_terms, max_prox_terms, limit,
                                "fdm" if full else "sdm")  # fmt: skip
    nq = len(tids)
    if nq == 0 or k <= 0 or index.num_docs == 0:
        return None if export else _empty()
    # slots: [0, nq) unigrams (all terms), then ordered (#1) features, then unordered (#uwN)
    # features over the npx proximity terms (the first npx of tids); the rest of the set-up
    # runs in numba (_mrf_query)
    tables, ph_slot, phrases, pop = _structure(npx, "fdm" if full else "sdm", nq)
    n_o = len(phrases)
    nslot = nq + n_o + ((1 << npx) if full else max(npx - 1, 0))
    win, win_mode = _ZERO1, 0
    if window_cf is not None:
        # the same count for every window feature (unigram slots read their own cf)
        win, win_mode = np.full(nslot, window_cf), 2
    elif export:
        win, win_mode = np.zeros(nslot), 1
    elif windows is not None:
        win, win_mode = np.ascontiguousarray(windows, np.float64), 2
        if win.shape != (nslot,):
            raise ValueError(f"windows: expected {nslot} collection counts, got {win.shape}")
    pp, pd, pt, qp, pos, dl, rank, maxdl, df_all, cf_all = _arrays(index)
    st = collection_stats(index)
    coll_len = float(max(st.collection_length, 1))
    out = _mrf_query(
        pp, pd, pt, qp, pos, dl, rank, maxdl, *_scratch(index),
        _dirichlet_part(index, mu, coll_len), _log_doclen(index, mu), df_all, cf_all,
        tids, qtf, npx, k, full, lt, lo, lu, float(mu), int(window or 0),
        _method_code(index, tids, npx, method, full),
        coll_len, float(st.avgdl), float(st.num_docs), tables[0], tables[1], ph_slot, n_o,
        _ZERO1 if pop is None else pop, win, win_mode,
    )  # fmt: skip
    return win if export else out


@jit
def _mrf_setup(df_all, cf_all, tids, qtf, npx, full, lt, lo, lu, window, method, avgdl, n_docs,
               n_o, pop):
    """SDM / FDM per-query set-up in numba: the slot weights (Indri ``#combine``: each group's
    weight shared by its children), window limits, unigram collection counts and the interval
    method (``method`` 1 LPS-IF-A, 2 EPS-CDF-A, resolved by the caller:
    :func:`~tiebreak.retrieval.dependency.plan._method_code`, the index's thresholds). Slots:
    ``[0, nq)`` unigrams, then the ``n_o`` ordered features, then the unordered ones (FDM: one
    per mask of the ``npx`` proximity terms, popcount < 2 unused; SDM: one per adjacent pair).
    Returns ``(slot_gw, slot_maxlen, uni_cf, use_eps)``; shared by :func:`_mrf_query` and the
    pruned traversal (:mod:`~tiebreak.retrieval.dependency.pruned`), so both score with the
    same bits."""
    nq = len(tids)
    if full:
        n_u_slots = 1 << npx
        n_u = (1 << npx) - npx - 1
    else:
        n_u_slots = max(npx - 1, 0)
        n_u = n_u_slots
    nslot = nq + n_o + n_u_slots
    slot_gw = np.zeros(nslot, np.float64)
    slot_maxlen = np.empty(nslot, np.int32)
    qsum = 0.0
    for j in range(nq):
        qsum += qtf[j]
    for j in range(nq):
        slot_gw[j] = lt * qtf[j] / qsum
        slot_maxlen[j] = _NOLIMIT
    for j in range(nq, nq + n_o):
        slot_gw[j] = lo / max(n_o, 1)
        slot_maxlen[j] = _NOLIMIT
    for m in range(n_u_slots):
        s = nq + n_o + m
        if full:
            slot_maxlen[s] = WINDOW_PER_TERM * np.int32(pop[m])
            slot_gw[s] = lu / max(n_u, 1) if pop[m] >= 2 else 0.0
        else:
            slot_maxlen[s] = window
            slot_gw[s] = lu / max(n_u, 1)
    uni_cf = np.zeros(nslot, np.float64)
    for j in range(nq):
        uni_cf[j] = cf_all[tids[j]]
    use_eps = method == 2
    return slot_gw, slot_maxlen, uni_cf, use_eps


@jit
def _mrf_query(
    post_ptr, post_docid, post_tf, pos_ptr, pos, doclen, rank, maxdl,
    d_acc, d_cnt, d_head, d_touched, sat, ln_dl, df_all, cf_all,
    tids, qtf, npx, topk, full, lt, lo, lu, mu, window, method, coll_len, avgdl, n_docs,
    slot_of_mask, pair_slot, ph_slot, n_o, pop, win, win_mode,
):  # fmt: skip
    """:func:`_mrf_setup`, then :func:`_score_query` (mode 1) in the same call."""
    slot_gw, slot_maxlen, uni_cf, use_eps = _mrf_setup(
        df_all, cf_all, tids, qtf, npx, full, lt, lo, lu, window, method, avgdl, n_docs, n_o,
        pop)
    nq = len(tids)
    nslot = len(slot_gw)
    max_phrase = npx if full else 2
    pairs_only = not full
    return _score_query(
        post_ptr, post_docid, post_tf, pos_ptr, pos, doclen, rank, maxdl,
        d_acc, d_cnt, d_head, d_touched,
        tids, npx, topk, 1, use_eps, pairs_only,
        slot_of_mask, pair_slot, slot_maxlen, np.zeros(nslot), ph_slot, max_phrase,
        np.ones(nslot), np.zeros(nq), qtf, K1, B, avgdl, 0.0,
        slot_gw, uni_cf, coll_len, mu, sat, win, win_mode, ln_dl,
    )  # fmt: skip


def _mrf_args(model: str, index, query_terms, k, params: dict) -> tuple:
    """:func:`_mrf`'s positional arguments for ``sdm`` / ``fdm`` called with ``params``."""
    import inspect

    if model not in ("sdm", "fdm"):
        raise ValueError(f"window counts exist for sdm and fdm, not {model!r}")
    fn = sdm if model == "sdm" else fdm
    ba = inspect.signature(fn).bind(index, query_terms, k, **params)
    ba.apply_defaults()
    a = ba.arguments
    return (index, query_terms, k, model == "fdm", a["weights"], a["mu"], a.get("window"),
            a["method"], a["max_prox_terms"])


def window_counts(model: str, index, query_terms, **params) -> np.ndarray | None:
    """Collection counts of the window features of one SDM / FDM query in ``index`` (pass 1 of
    :func:`sdm`): float64 (nslots,), one per feature slot of the query (unigram slots 0), or
    None when ``index`` has no document or the query no term in its vocabulary.

    For a sharded index: the counts are integers, so their sum over the shards is exact in any
    order and equals the count over the whole collection; :func:`score_with_windows` then scores
    each shard with it, exactly as one index would. ``params`` as for :func:`sdm` / :func:`fdm`.

    Raises
    ------
    ValueError
        A model other than sdm / fdm, or a bad parameter.
    """
    return _mrf(*_mrf_args(model, index, query_terms, 1, params), export=True)


def score_with_windows(model: str, index, query_terms, k: int, windows, **params):
    """:func:`sdm` / :func:`fdm` with the window features' collection counts ``windows``
    (float64 (nslots,), e.g. :func:`window_counts` summed over the shards of a sharded index)
    instead of the counts in ``index``. Returns ``(docids int32, scores float64)``.

    Raises
    ------
    ValueError
        A model other than sdm / fdm, a bad parameter, or ``windows`` of the wrong length.
    """
    return _mrf(*_mrf_args(model, index, query_terms, k, params), windows=windows)


def sdm(index, query_terms, k: int = 1000, weights=SDM_WEIGHTS, mu: float = MU,
        window: int = SDM_WINDOW, method: str = "auto",
        max_prox_terms: int | None = None, algorithm: str = "exhaustive",
        window_cf=None):  # fmt: skip
    """Sequential dependence model (Metzler & Croft 2005; spec §1.4, Eq. 2.6), Indri semantics:

    ``score = lt/|Q| sum_q f_{q,Q} phi(f_{q,D}, f_{q,C})
    + lo/(k-1) sum_i phi(#1(q_i q_{i+1}))  + lu/(k-1) sum_i phi(#uw8(q_i q_{i+1}))``

    with ``phi(f_D, f_C) = ln((f_D + mu f_C/|C|) / (|D| + mu))`` (Dirichlet, §1.4), ``|Q|`` the
    number of in-vocabulary query tokens and k the number of distinct ones. **Each sum is divided
    by its number of children** (Indri ``#combine``, as the thesis's SDM runs were produced by
    Indri with ``dm.pl``); the thesis's Eq. 2.6 writes plain sums. Defaults: weights
    ``(0.8, 0.15, 0.05)`` (Table 4.3, the spec's recommendation), ``mu = 2500``, ``#uw8``.

    Two passes (the model needs the collection window counts ``f_{I,C}``): pass 1 walks the
    positional postings of every candidate, counting ``#1`` (exact phrase) and ``#uw8``
    (non-overlapping optimal intervals of length <= 8) per document and in total; pass 2 scores.
    A window feature whose collection count is 0 has ``phi = ln 0`` in every document; it is
    left out of the sums (a constant over documents, so the ranking is Indri's).
    ``max_prox_terms`` (default ``None`` = all, capped at 62; at most 62): the window features
    are built over the highest-IDF distinct terms only, in query order; the unigram part over
    all terms (module docstring: a deliberate deviation).
    ``algorithm="bounds"``: rank-safe pruning by upper bounds of the window potentials, with
    the pairs' collection counts from a term-pair statistics index (:func:`sdm_bounds`): the
    same documents, scores and order, bit for bit (not with ``window_cf``).
    ``window_cf``: ``None`` (default) the exact collection counts of the window features;
    ``"ivory"`` or a number > 0: that constant count ``f_{I(Q'),C}`` for every window feature
    (:func:`constant_window_cf`: Ivory's ``2 N / 100``), so that a document's score depends
    on its own counts only and no collection pass over the windows is needed (every window
    feature then takes part, also one that occurs nowhere).
    Returns ``(docids int32, scores float64)`` of the top k.
    """
    if algorithm == "bounds":
        if window_cf is not None:
            raise ValueError("algorithm 'bounds' uses the exact window counts, not window_cf")
        return sdm_bounds(index, query_terms, k, weights, mu, window, max_prox_terms,
                          method=method)
    if algorithm != "exhaustive":
        raise ValueError(f"algorithm: exhaustive or bounds, not {algorithm!r}")
    return _mrf(index, query_terms, k, False, weights, mu, window, method, max_prox_terms,
                window_cf=window_cf)


def sdm_bounds(index, query_terms, k: int = 1000, weights=SDM_WEIGHTS, mu: float = MU,
               window: int = SDM_WINDOW, max_prox_terms: int | None = None,
               stats: dict | None = None, method: str = "auto"):
    """SDM's top ``k`` by rank-safe pruning with upper bounds of the window potentials
    (:mod:`tiebreak.retrieval.dependency.pruned`; ``sdm -p algorithm=bounds``): ``(docids
    int32, scores float64)``, the top k of :func:`sdm` bit for bit (documents, scores, tie
    order). The pairs' collection window counts come from the term-pair statistics index
    (:func:`build_pair_statistics`; computed for the query's pairs on first use). ``stats``: a
    dict to receive ``candidates`` (documents holding a query term), ``multi`` (those with >=
    2 proximity terms) and ``scored`` (documents whose positions were read). Raises ValueError
    for bad parameters and on a shard."""
    return mrf_bounds(index, query_terms, k, False, weights, mu, window, method, max_prox_terms,
                      stats)


def build_pair_statistics(index, queries, window: int = SDM_WINDOW,
                          max_prox_terms: int | None = None) -> int:
    """Fill the term-pair statistics index (:func:`tiebreak.retrieval.proxprune.pair_statistics`)
    with every adjacent pair of ``queries`` (lists of analysed terms) as :func:`sdm_bounds`
    forms them; returns the number of pairs stored for ``window``."""
    from ..proxprune import pair_statistics

    pair_statistics(index, query_pairs(index, queries, max_prox_terms), int(window),
                    _arrays(index))
    return len(index._cache[("pair-stats", int(window))])


def query_pairs(index, queries, max_prox_terms: int | None = None) -> list[tuple[int, int]]:
    """The term-id pairs ``(a, b)`` of SDM's window features for ``queries`` (lists of analysed
    terms): each query's adjacent proximity terms in query order, as :func:`sdm` forms them;
    distinct, sorted."""
    pairs = set()
    for q in queries:
        tids, _, npx = _prox_plan(index, q, max_prox_terms, MAX_TERMS, "sdm")
        pairs.update((int(tids[j]), int(tids[j + 1])) for j in range(npx - 1))
    return sorted(pairs)


def fdm(index, query_terms, k: int = 1000, weights=FDM_WEIGHTS, mu: float = MU,
        method: str = "auto", max_prox_terms: int = MAX_PROX_TERMS,
        window_cf=None, algorithm: str = "exhaustive"):  # fmt: skip
    """Full dependence model (Metzler & Croft 2005; spec §1.4, Eq. 3.1), Indri semantics as in
    :func:`sdm`, over every contiguous sub-sequence (``#1``) and every subset (``#uwN`` with
    ``N = 4 |Q'|``) of >= 2 distinct query terms; each group divided by its number of children
    (``k(k-1)/2`` ordered, ``2^k - k - 1`` unordered). Defaults: weights ``(0.8, 0.1, 0.1)``
    (Table 4.3), ``mu = 2500``. ``max_prox_terms`` (default 12, at most 20): the window
    features use only the highest-IDF distinct terms, in query order; the unigrams use all
    (module docstring: a deliberate deviation from the full 2^|Q| enumeration).
    ``algorithm="bounds"``: rank-safe pruning by upper bounds of the window potentials
    (:mod:`tiebreak.retrieval.dependency.pruned`), the subqueries' collection counts from the
    subquery statistics store (:func:`~tiebreak.retrieval.dependency.mrf.window_statistics`):
    the same top k bit for bit (not with ``window_cf``).
    ``window_cf``: as for :func:`sdm` (a constant window count, Ivory's by ``"ivory"``)."""
    if algorithm == "bounds":
        if window_cf is not None:
            raise ValueError("algorithm 'bounds' uses the exact window counts, not window_cf")
        return mrf_bounds(index, query_terms, k, True, weights, mu, None, method,
                          max_prox_terms)
    if algorithm != "exhaustive":
        raise ValueError(f"algorithm: exhaustive or bounds, not {algorithm!r}")
    return _mrf(index, query_terms, k, True, weights, mu, None, method, max_prox_terms,
                window_cf=window_cf)


# ---------------------------------------------------------------------------------------------
# pruned traversal (tiebreak.retrieval.dependency.pruned)
# ---------------------------------------------------------------------------------------------


@jit
def _pruned_mrf(
    post_ptr, post_docid, post_tf, pos_ptr, pos, doclen, rank, maxdl,
    d_acc, d_cnt, d_head, d_touched, sat, ln_dl, df_all, cf_all,
    tids, qtf, npx, topk, full, lt, lo, lu, mu, window, method, coll_len, avgdl, n_docs,
    slot_of_mask, pair_slot, ph_slot, n_o, pop, win, b_slot, b_mask, every, only,
):  # fmt: skip
    """SDM / FDM: :func:`~tiebreak.retrieval.dependency.mrf._mrf_setup` (the exhaustive
    kernel's set-up), then :func:`_pruned_query` in mode 1 with the collection counts ``win``."""
    slot_gw, slot_maxlen, uni_cf, use_eps = _mrf_setup(
        df_all, cf_all, tids, qtf, npx, full, lt, lo, lu, window, method, avgdl, n_docs, n_o,
        pop)
    nq = len(tids)
    nslot = len(slot_gw)
    pairs_only = not full
    max_phrase = npx if full else 2
    return _pruned_query(
        post_ptr, post_docid, post_tf, pos_ptr, pos, doclen, rank, maxdl,
        d_acc, d_cnt, d_head, d_touched,
        tids, npx, topk, 1, use_eps, pairs_only,
        slot_of_mask, pair_slot, slot_maxlen, np.zeros(nslot), ph_slot, max_phrase,
        np.ones(nslot), np.zeros(nq), qtf, K1, B, avgdl, 0.0,
        slot_gw, uni_cf, coll_len, mu, sat, win, ln_dl,
        b_slot, b_mask, np.zeros(nslot), every, only,
    )  # fmt: skip


def window_statistics(index, tids, npx: int, full: bool, window: int, n_o: int) -> np.ndarray:
    """The window features' collection counts of an SDM / FDM query (float64 (nslots,), the
    unigram slots 0), as the exhaustive kernel's pass 1 finds them, from the index's stored
    statistics: SDM from the term-pair statistics index
    (:func:`tiebreak.retrieval.proxprune.pair_statistics`: per adjacent pair, its ``#1`` and
    ``#uwN`` counts); FDM from the subquery statistics store (per tuple of proximity terms,
    the counts of all its subqueries, computed on first use by one exhaustive pass 1 and kept
    on the index object; the vector of each query is kept too). Raises ValueError on a shard
    of a sharded index."""
    if getattr(index, "global_stats", None) is not None:
        raise ValueError("window statistics need the whole collection's positions (not a shard)")
    queries = index._cache.setdefault(("window-stats", bool(full), int(window)), {})
    qkey = (tuple(tids.tolist()), npx)
    if qkey not in queries:
        out = _window_statistics(index, tids, npx, full, window, n_o)
        out.flags.writeable = False
        queries[qkey] = out
    return queries[qkey]


def _window_statistics(index, tids, npx: int, full: bool, window: int, n_o: int) -> np.ndarray:
    nq = len(tids)
    key = tuple(int(t) for t in tids[:npx])
    if not full:
        from ..proxprune import pair_statistics

        no = max(npx - 1, 0)
        out = np.zeros(nq + 2 * no)
        pairs = list(zip(key, key[1:]))
        ps = pair_statistics(index, pairs, int(window), _arrays(index))
        for j, pr in enumerate(pairs):
            out[nq + j], out[nq + no + j] = ps[pr]
        return out
    if npx < 2:
        return np.zeros(nq + n_o + (1 << npx))
    store = index._cache.setdefault(("subquery-stats", "fdm"), {})
    if key not in store:
        terms = [index.term(t) for t in key]
        win = _mrf(index, terms, 1, True, (1.0, 1.0, 1.0), 2500.0, None, "auto", len(key),
                   export=True)
        store[key] = np.asarray(win[len(key):], np.float64)
    return np.concatenate([np.zeros(nq), store[key]])


def build_subquery_statistics(index, queries, max_prox_terms: int = 12) -> int:
    """Fill the subquery statistics store of FDM (:func:`window_statistics`) for ``queries``
    (lists of analysed terms) as :func:`mrf_bounds` plans them; returns the number of stored
    tuples of proximity terms."""
    for q in queries:
        tids, _, npx = _prox_plan(index, q, max_prox_terms, MAX_ALL_TERMS, "fdm")
        if npx >= 2:
            window_statistics(index, tids, npx, True, 0, len(_structure(npx, "fdm",
                                                                        len(tids))[2]))
    return len(index._cache.get(("subquery-stats", "fdm"), {}))


def mrf_bounds(index, query_terms, k, full: bool, weights, mu: float, window, method: str,
               max_prox_terms, stats: dict | None = None, every: bool = False, only=None):
    """SDM (``full`` False) / FDM by the pruned traversal (module docstring): ``(docids int32,
    scores float64)``, the exhaustive top ``k`` bit for bit. ``stats``: a dict to receive
    ``candidates`` (documents holding a query term), ``multi`` (those with >= 2 proximity
    terms) and ``scored`` (those whose positions were read). ``every``: return the kernel's
    whole output (:func:`proximity_bounds`). ``only``: uint8 (N,) marking the documents that
    may be retrieved (:func:`mrf_rerank`). Raises ValueError for a bad parameter and on a
    shard."""
    lt, lo, lu = (float(x) for x in weights)
    if not mu > 0 or min(lt, lo, lu) < 0:
        raise ValueError("mu must be > 0 and weights >= 0")
    if method not in ("auto", "lps_if_all", "eps_cdf_all"):
        raise ValueError(f"method: expected auto, lps_if_all or eps_cdf_all, got {method!r}")
    k = _check_k(k)
    name = "fdm" if full else "sdm"
    tids, qtf, npx = _prox_plan(index, query_terms, max_prox_terms,
                                MAX_ALL_TERMS if full else MAX_TERMS, name)
    if len(tids) == 0 or (k <= 0 and not every) or index.num_docs == 0:
        return None if every else _empty()
    nq = len(tids)
    tables, ph_slot, phrases, pop, b_slot, b_mask = _bound_tables(npx, name, nq)
    win = window_statistics(index, tids, npx, full, int(window or 0), len(phrases))
    pp, pd, pt, qp, pos, dl, rank, maxdl, df_all, cf_all = _arrays(index)
    st = collection_stats(index)
    coll_len = float(max(st.collection_length, 1))
    out = _pruned_mrf(
        pp, pd, pt, qp, pos, dl, rank, maxdl, *_scratch(index),
        _dirichlet_part(index, float(mu), coll_len), _log_doclen(index, float(mu)), df_all,
        cf_all, tids, qtf, npx, int(k), bool(full), lt, lo, lu, float(mu), int(window or 0),
        _method_code(index, tids, npx, method, full), coll_len, float(st.avgdl),
        float(st.num_docs), tables[0], tables[1], ph_slot, len(phrases),
        _NOPOP if pop is None else pop, win, b_slot, b_mask, bool(every),
        _ALL_DOCS if only is None else only,
    )  # fmt: skip
    _report(out, stats)
    return out if every else out[:2]
