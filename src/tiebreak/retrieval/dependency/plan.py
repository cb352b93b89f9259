"""Query plans and the structures the dependency kernels take
(:mod:`tiebreak.retrieval.dependency`): the models' default parameters, the distinct
in-vocabulary query terms and the choice of the proximity terms (:func:`query_plan`,
:func:`proximity_terms`), the index arrays and (N,) scratch arrays the kernels read (cached on
the index), the interval method, and the per-query slot and phrase tables (subquery bitmask or
adjacent pair -> accumulator slot). No compiled code.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import numpy as np

from ..intervals import choose_method, index_thresholds
from ..weights import collection_stats

#: (lambda_t, lambda_o, lambda_u): Table 4.3 / the spec's recommendation (§1.4)
SDM_WEIGHTS = (0.8, 0.15, 0.05)
FDM_WEIGHTS = (0.8, 0.1, 0.1)
MU = 2500.0
#: SDM's unordered window (#uw8); FDM uses 4 |Q'|
SDM_WINDOW = 8
WINDOW_PER_TERM = 4
#: BM25^(2) (spec §1.2, Table 4.3) and the Lkp mixing weight (§5.5)
K1 = 0.9
B = 0.3
LAMBDA = 0.4

_NOLIMIT = np.int32(2**31 - 1)
_ZERO1 = np.zeros(1)
#: d_cnt increment of a proximity term in the kernel (the low 16 bits count the other terms)
_PROX_UNIT = 65536
#: default number of proximity terms of the models that enumerate all subsets
MAX_PROX_TERMS = 12

# ---------------------------------------------------------------------------------------------
# query plan
# ---------------------------------------------------------------------------------------------


def query_plan(index, query_terms) -> tuple[np.ndarray, np.ndarray]:
    """Distinct in-vocabulary term ids in first-occurrence order (int64 (k,)) and their query
    frequencies f_{q,Q} (float64 (k,))."""
    cnt = Counter(query_terms)
    tids, qtf = [], []
    for t, f in cnt.items():  # Counter keeps first-occurrence order
        tid = index.term_id(t)
        if tid >= 0:
            tids.append(tid)
            qtf.append(f)
    return np.asarray(tids, np.int64), np.asarray(qtf, np.float64)


def proximity_terms(df, max_prox_terms: int) -> np.ndarray:
    """Order of the query terms for the kernel: the (at most ``max_prox_terms``) terms with the
    highest IDF -- the smallest ``df``, ties to the earlier term -- in query order, then the
    others in query order. ``df``: document frequencies of the distinct query terms in query
    order. Returns an int64 permutation; its first ``min(len(df), max_prox_terms)`` entries are
    the proximity terms."""
    n = len(df)
    if n <= max_prox_terms:
        return np.arange(n, dtype=np.int64)
    keep = np.sort(np.argsort(np.asarray(df), kind="stable")[:max_prox_terms])
    rest = np.setdiff1d(np.arange(n), keep)
    return np.concatenate([keep, rest]).astype(np.int64)


def _prox_plan(index, query_terms, max_prox_terms, limit: int, name: str, plan=None):
    """(tids, qtf, P): the query plan reordered by :func:`proximity_terms` so that the first P
    terms are the proximity terms. ``plan``: :func:`query_plan`'s result when the caller has
    it already."""
    if max_prox_terms is None:
        max_prox_terms = limit
    mpt = int(max_prox_terms)
    if not 2 <= mpt <= limit:
        raise ValueError(f"{name}: max_prox_terms must be in [2, {limit}], got {max_prox_terms!r}")
    tids, qtf = query_plan(index, query_terms) if plan is None else plan
    if len(tids) <= mpt:        # every term is a proximity term, in query order
        return tids, qtf, len(tids)
    order = proximity_terms(_arrays(index)[8][tids], mpt)
    return tids[order], qtf[order], mpt


def _arrays(index):
    cache = getattr(index, "_cache", None)
    if cache is not None and "dep_arrays" in cache:
        return cache["dep_arrays"]
    rank = getattr(index, "docno_rank", None)
    if rank is None:
        docnos = np.asarray(index.docnos)
        rank = np.empty(len(docnos), np.int32)
        rank[np.argsort(docnos, kind="stable")] = np.arange(len(docnos))
    arrs = (
        np.asarray(index.post_ptr, np.int64),
        np.asarray(index.post_docid, np.int32),
        np.asarray(index.post_tf, np.int32),
        np.asarray(index.pos_ptr, np.int64),
        np.asarray(index.pos, np.int32),
        np.asarray(index.doclen, np.int32),
        np.asarray(rank, np.int32),      # the docno ranks every top-k kernel takes (int32)
    )
    maxdl = int(max(int(arrs[5].max()) if len(arrs[5]) else 1, 1))
    st = collection_stats(index)     # the whole collection's df / cf on a shard
    arrs = arrs + (maxdl, np.asarray(st.df), np.asarray(st.cf))
    if cache is not None:
        cache["dep_arrays"] = arrs
    return arrs


def _scratch(index):
    """(N,) scratch arrays of the kernel, kept on the index (like the bag-of-words models do,
    an index must therefore not be searched from two threads at once)."""
    cache = getattr(index, "_cache", None)
    if cache is not None and "dep_scratch" in cache:
        return cache["dep_scratch"]
    N = int(index.num_docs)
    arrs = (np.zeros(N), np.zeros(N, np.int32), np.full(N, -1, np.int32), np.empty(N, np.int32))
    if cache is not None:
        cache["dep_scratch"] = arrs
    return arrs


def _method(index, df, cf, method: str, all_subqueries: bool) -> bool:
    """True for EPS-CDF-A, False for LPS-IF-A (Algorithm 3 over the CDF). ``df``/``cf``: lists
    of the query terms' statistics. ``"auto"``: :func:`choose_method` with the thresholds
    stored in the index (:func:`index_thresholds`; the thesis's when it has none)."""
    if method == "auto":
        # mean term density of the candidates, estimated from term statistics
        st = collection_stats(index)
        denom = max(st.avgdl * min(float(st.num_docs), float(sum(df))), 1.0)
        method = choose_method(len(df), sum(cf) / denom, all_subqueries,
                               index_thresholds(index))
    if method in ("eps", "eps_cdf_all"):
        return True
    if method in ("lps", "lps_if_all"):
        return False
    raise ValueError(f"method: expected auto, lps_if_all or eps_cdf_all, got {method!r}")


def _popcount(m: int) -> int:
    return bin(m).count("1")


def _contiguous(k: int, max_len: int):
    """(start term, length) of the contiguous sub-sequences of length 2..max_len."""
    return [(i, L) for L in range(2, max_len + 1) for i in range(k - L + 1)]


def _empty():
    return np.zeros(0, np.int32), np.zeros(0, np.float64)




# ---------------------------------------------------------------------------------------------
# query structure
# ---------------------------------------------------------------------------------------------


def _subset_sums(values) -> np.ndarray:
    """(2^k,) float64: sum of ``values[i]`` over the bits i of each mask (popcount for ones)."""
    out = np.zeros(1 << len(values))
    for i, v in enumerate(values):
        out[1 << i : 2 << i] = out[: 1 << i] + v
    return out


def _slot_tables(nq: int, pairs_only: bool, first: int):
    """(slot_of_mask, pair_slot). Pair models (adjacent pairs only) look a slot up by the
    (left, right) end terms of an interval: pair ``(i, i+1)`` -> slot ``first + i``. The others
    use the bitmask itself: subquery ``m`` -> slot ``first + m`` (popcount >= 2, else -1)."""
    if pairs_only:
        pair = np.full((nq, nq), -1, np.int32)
        for i in range(nq - 1):
            pair[i, i + 1] = pair[i + 1, i] = first + i
        return np.full(1, -1, np.int32), pair
    pop = _subset_sums([1.0] * nq)
    by_mask = np.where(pop >= 2, first + np.arange(1 << nq), -1).astype(np.int32)
    return by_mask, np.full((1, 1), -1, np.int32)


def _phrase_table(nq: int, max_len: int, first: int):
    """ph_slot (nq, nq+1) int32: contiguous sub-sequence (start i, length L) -> slot, numbered
    from ``first`` in the order of :func:`_contiguous`; returns (table, list of (i, L))."""
    phrases = _contiguous(nq, max_len)
    table = np.full((nq, nq + 1), -1, np.int32)
    for j, (i, L) in enumerate(phrases):
        table[i, L] = first + j
    return table, phrases


@lru_cache(maxsize=256)
def _structure(nq: int, kind: str, n_uni: int | None = None):
    """Query-structure tables that depend only on the number ``nq`` of proximity terms, the
    model and (SDM/FDM) the number ``n_uni`` of unigram slots before them (default ``nq``):
    (slot tables, phrase table, phrases, popcounts or None). Cached; treated as read-only."""
    if n_uni is None:
        n_uni = nq
    pairs_only = kind in ("l2p", "sdm")
    if kind in ("lkp", "lkpf", "l2p"):
        n_u = max(nq - 1, 0) if pairs_only else 1 << nq
        tables = _slot_tables(nq, pairs_only, 0)
        ph_slot, phrases = _phrase_table(nq, 2 if pairs_only else nq, n_u)
    else:
        ph_slot, phrases = _phrase_table(nq, 2 if pairs_only else nq, n_uni)
        tables = _slot_tables(nq, pairs_only, n_uni + len(phrases))
    pop = None if pairs_only else _subset_sums([1.0] * nq)
    for a in (*tables, ph_slot) + (() if pop is None else (pop,)):
        a.flags.writeable = False
    return tables, ph_slot, phrases, pop


def _check_k(k) -> int:
    return int(k)


_METHOD_CODE = {"lps_if_all": 1, "eps_cdf_all": 2}


def _method_code(index, tids, nprox: int, method: str, all_subqueries: bool,
                 df_cf=None) -> int:
    """The kernels' interval method for the first ``nprox`` terms of ``tids``: 1 LPS-IF-A,
    2 EPS-CDF-A; ``"auto"`` is resolved here by :func:`_method` (the index's thresholds), so
    the compiled set-up never holds a threshold of its own. ``df_cf``: the whole collection's
    (df, cf) arrays when the caller has them (else from :func:`_arrays`, which reads the
    positions)."""
    df_all, cf_all = _arrays(index)[8:10] if df_cf is None else df_cf
    prox = np.asarray(tids[:nprox], np.int64)
    use_eps = _method(index, df_all[prox].tolist(), cf_all[prox].tolist(), method,
                      all_subqueries)
    return 2 if use_eps else 1
_VARIANT_CODE = {"lkp": 0, "lkpf": 1, "l2p": 2}
