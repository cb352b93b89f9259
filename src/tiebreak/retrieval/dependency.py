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

Size: one module because SDM, FDM, WSDM and their pruned driver share the window feature extraction
and the collection statistics, and the two-stage kernels of :mod:`tiebreak.retrieval.rerank`
are compiled from the same pieces: numba's on-disk cache of a kernel sees only edits of the file
that defines it, so they are defined here.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache

import numpy as np

from .intervals import (
    ALPHA_DENSE,
    HAVE_NUMBA,
    MAX_ALL_TERMS,
    MAX_TERMS,
    choose_method,
    jit,
    merge_cdf_kernel,
)
from .kernels import (
    _bm25_impact_topk,  # the first pass of the two-stage kernel
    _select,  # top k in trec_eval order: score desc, then docno rank desc
)
from .weights import collection_stats

__all__ = [
    "sdm",
    "sdm_bounds",
    "build_pair_statistics",
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
    of the query terms' statistics."""
    if method == "auto":
        # mean term density of the candidates, estimated from term statistics
        st = collection_stats(index)
        denom = max(st.avgdl * min(float(st.num_docs), float(sum(df))), 1.0)
        method = choose_method(len(df), sum(cf) / denom, all_subqueries)
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
# kernel
# ---------------------------------------------------------------------------------------------


@jit
def _select_topk(sc, docs, rank, k):
    """Top ``k`` of the documents ``docs[:len(sc)]`` (int32) with scores ``sc`` (float64), best
    first in trec_eval order (score descending, then docno rank descending):
    :func:`tiebreak.retrieval.kernels._select`."""
    n = len(sc)
    if k <= 0 or n == 0:
        return np.empty(0, np.int32), np.empty(0, np.float64)
    return _select(docs, sc, n, rank, k)


@jit
def _grow(a, need):
    b = np.empty(max(2 * len(a), need), a.dtype)
    b[: len(a)] = a
    return b


def _leaf(fn):
    """:func:`~tiebreak.retrieval.intervals.jit` for a helper that allocates nothing, compiled
    without numba's reference counting (``_nrt=False``): a compiled function increfs its array
    arguments on entry and decrefs them on exit (atomic operations), inlined or called, which
    per interval made the fused kernel 5-30 % slower (measured) than the lines written out at
    each place; without it the call costs what those lines did (LLVM inlines it). ``fn``
    unchanged without numba. Note: numba's on-disk cache keys a function on its own file's
    contents, so a kernel of another module that calls these keeps its cached machine code
    until that file's text changes or its cache files are removed (touching it is not enough)."""
    if HAVE_NUMBA:
        from .._native.jit import njit

        return njit(cache=True, nogil=True, _nrt=False)(fn)
    return fn


@_leaf
def _take_interval(s, lp, rp, w, ls, rs, mode, slot_maxlen, slot_sumw, stamp, last, acc, touched,
                   nt, dno):  # fmt: skip
    """Record the optimal interval ``[lp, rp]`` of slot ``s`` (end terms ``ls`` and ``rs``, of
    weights ``w[ls]``, ``w[rs]``, read only for an interval taken) in document ``dno``: drop it
    if longer than ``slot_maxlen[s]``; on the slot's first interval in this document reset its
    accumulator and list it in ``touched``; take it if it does not overlap the slot's last
    taken interval (greedy, left to right) and add its Eq. 4.1 score (mode 0) or 1 (mode 1).
    Returns the new number of touched slots."""
    L = rp - lp + 1
    if L <= slot_maxlen[s]:
        if stamp[s] != dno:
            stamp[s] = dno
            acc[s] = 0.0
            last[s] = -1
            touched[nt] = s
            nt += 1
        if lp > last[s]:
            last[s] = rp
            if mode == 0:
                q = slot_sumw[s] / L
                acc[s] += w[ls] * w[rs] * q * q
            else:
                acc[s] += 1.0
    return nt


@_leaf
def _take_subqueries(base, S, lp, rp, w, ls, rs, mode, slot_of_mask, slot_maxlen, slot_sumw,
                     stamp, last, acc, touched, nt, dno):  # fmt: skip
    """:func:`_take_interval` for ``[lp, rp]`` in every subquery that has a slot among those
    whose bitmask is ``base`` (the two end terms) plus a subset of ``S`` (the terms occurring
    inside), subsets in decreasing order. Returns the new number of touched slots."""
    sub = S
    while True:
        s = slot_of_mask[base | sub]
        if s >= 0:
            nt = _take_interval(s, lp, rp, w, ls, rs, mode, slot_maxlen, slot_sumw, stamp, last,
                                acc, touched, nt, dno)
        if sub == 0:
            break
        sub = (sub - 1) & S
    return nt


@jit(inline=True)
def _proximity(
    pos, starts, ends, cdf_pos, cdf_term, mcur, latest, k, mode, use_eps, pairs_only,
    slot_of_mask, pair_slot, slot_maxlen, slot_sumw, ph_slot, max_phrase, slot_inc, w,
    stamp, last, acc, touched, dno,
):  # fmt: skip
    """Proximity features of one document with >= 2 query terms (positions
    ``pos[starts[j]:ends[j]]``): merge into a CDF, count exact phrases, enumerate the optimal
    intervals of every subquery (LPS-IF-A or EPS-CDF-A), filter by length, select greedily
    without overlap per subquery and accumulate per slot (mode 0: Eq. 4.1 scores; mode 1:
    counts). Returns the number of touched slots (listed in ``touched``).

    The interval enumeration is that of
    :func:`~tiebreak.retrieval.intervals.lps_cdf_all_kernel` and
    :func:`~tiebreak.retrieval.intervals.eps_cdf_all_kernel`, fused with the selection: each
    interval is taken (:func:`_take_interval`: length filter, greedy non-overlap,
    accumulation) where those kernels emit it, in the same order, so no emission buffer is
    written and read back. With ``pairs_only`` only the pairs that have a
    slot (``pair_slot >= 0``) are looked at, and EPS stops scanning right of a left end once
    every such partner of its term has been met: the intervals skipped are the ones the
    selection would drop."""
    nt = 0
    T = merge_cdf_kernel(pos, starts, ends, cdf_pos, cdf_term, mcur)
    # exact phrases (contiguous subqueries in query order, adjacent positions)
    if max_phrase >= 2:
        for e in range(T):
            i = cdf_term[e]
            m = 1
            while (m < max_phrase and e + m < T and cdf_term[e + m] == i + m
                   and cdf_pos[e + m] == cdf_pos[e] + m):  # fmt: skip
                m += 1
            for L in range(2, m + 1):
                s = ph_slot[i, L]
                if s < 0:
                    continue
                if stamp[s] != dno:
                    stamp[s] = dno
                    acc[s] = 0.0
                    touched[nt] = s
                    nt += 1
                acc[s] += slot_inc[s]
    # unordered subqueries: optimal intervals, length filter, greedy non-overlap
    if use_eps:
        # EPS-CDF-A: per left end, scan right until the next copy of its term
        for l in range(T - 1):
            ls = cdf_term[l]
            lp = cdf_pos[l]
            seen = np.int64(0)
            if pairs_only:
                # the partners of ls that have a slot (adjacent query terms), as a bitmask
                want = np.int64(0)
                if ls > 0 and pair_slot[ls, ls - 1] >= 0:
                    want |= np.int64(1) << (ls - 1)
                if ls + 1 < k and pair_slot[ls, ls + 1] >= 0:
                    want |= np.int64(1) << (ls + 1)
                r = l + 1
                while r < T and cdf_term[r] != ls and (seen & want) != want:
                    rs = cdf_term[r]
                    bit = np.int64(1) << rs
                    if (seen & bit) == 0:
                        if (want & bit) != 0:
                            s = pair_slot[ls, rs]
                            rp = cdf_pos[r]
                            nt = _take_interval(s, lp, rp, w, ls, rs, mode, slot_maxlen,
                                                slot_sumw, stamp, last, acc, touched, nt, dno)
                        seen |= bit
                    r += 1
            else:
                r = l + 1
                while r < T and cdf_term[r] != ls:
                    rs = cdf_term[r]
                    bit = np.int64(1) << rs
                    if (seen & bit) == 0:
                        nt = _take_subqueries(
                            (np.int64(1) << ls) | bit, seen, lp, cdf_pos[r], w, ls, rs, mode,
                            slot_of_mask, slot_maxlen, slot_sumw, stamp, last, acc, touched, nt,
                            dno,
                        )  # fmt: skip
                        seen |= bit
                    r += 1
    else:
        # LPS-IF-A's rule over the CDF: right end rs at rpos; every term whose latest
        # occurrence lies after rs's previous one is a left partner
        for i in range(k):
            latest[i] = -1
        for e in range(T):
            rs = cdf_term[e]
            rpos = cdf_pos[e]
            crs = latest[rs]
            if pairs_only:
                for ls in range(max(rs - 1, 0), min(rs + 2, k)):
                    if ls == rs:
                        continue
                    lp = latest[ls]
                    if lp > crs:
                        s = pair_slot[ls, rs]
                        if s >= 0:
                            nt = _take_interval(s, lp, rpos, w, ls, rs, mode, slot_maxlen,
                                                slot_sumw, stamp, last, acc, touched, nt, dno)
            else:
                for ls in range(k):
                    lp = latest[ls]
                    if lp > crs:
                        S = np.int64(0)
                        for i in range(k):
                            if latest[i] > lp:
                                S |= np.int64(1) << i
                        nt = _take_subqueries(
                            (np.int64(1) << ls) | (np.int64(1) << rs), S, lp, rpos, w, ls, rs,
                            mode, slot_of_mask, slot_maxlen, slot_sumw, stamp, last, acc,
                            touched, nt, dno,
                        )  # fmt: skip
            latest[rs] = rpos
    return nt


@jit(inline=True)
def _lkp_proximity(acc, touched, nt, dl, k1, b, avgdl):
    """The proximity part of Lkp's score (Lu 2018, Eq. 4.3): ``sum S (1 + k1) / (S + K_D)``
    over the ``nt`` subquery slots ``touched`` with a positive accumulated score ``S =
    acc[slot]`` (Eq. 4.2), ``K_D = k1 (1 - b + b |D| / avgdl)`` (``k1 (1 - b)`` when avgdl is
    0)."""
    Kd = k1 * (1.0 - b + b * dl / avgdl) if avgdl > 0 else k1 * (1.0 - b)
    prox = 0.0
    for t in range(nt):
        S = acc[touched[t]]
        if S > 0.0:
            prox += S * (1.0 + k1) / (S + Kd)
    return prox


@jit
def _proximity_scratch(P, maxdl, nslots):
    """The scratch arrays of :func:`_proximity` for ``P`` query terms, documents of at most
    ``maxdl`` tokens and ``nslots`` subquery slots: ``(starts, ends, mcur, latest)`` int64
    (P,), ``(cdf_pos, cdf_term)`` int32 (maxdl,), ``stamp`` (-1), ``last``, ``acc`` (0.0,
    float64) and ``touched`` (nslots,)."""
    return (np.zeros(P, np.int64), np.zeros(P, np.int64), np.empty(P, np.int64),
            np.empty(P, np.int64), np.empty(maxdl, np.int32), np.empty(maxdl, np.int32),
            np.full(nslots, -1, np.int64), np.empty(nslots, np.int64),
            np.zeros(nslots, np.float64), np.empty(nslots, np.int64))


@jit
def _proximity_doc(
    pos, starts, ends, cdf_pos, cdf_term, mcur, latest, k, mode, use_eps, pairs_only,
    slot_of_mask, pair_slot, slot_maxlen, slot_sumw, ph_slot, max_phrase, slot_inc, w,
    stamp, last, acc, touched, dno,
):  # fmt: skip
    """:func:`_proximity` as a function of its own, for the two-stage kernel
    (:mod:`tiebreak.retrieval.rerank`): inlined there, the compiled loop over the candidates
    came out ~40 % slower (measured), while :func:`_score_query` gains from inlining it."""
    return _proximity(
        pos, starts, ends, cdf_pos, cdf_term, mcur, latest, k, mode, use_eps, pairs_only,
        slot_of_mask, pair_slot, slot_maxlen, slot_sumw, ph_slot, max_phrase, slot_inc, w,
        stamp, last, acc, touched, dno,
    )  # fmt: skip


@jit
def _score_query(
    post_ptr, post_docid, post_tf, pos_ptr, pos, doclen, rank, maxdl,
    d_acc, d_cnt, d_head, d_touched,
    tids, nprox, topk, mode, use_eps, pairs_only,
    slot_of_mask, pair_slot, slot_maxlen, slot_sumw, ph_slot, max_phrase, slot_inc,
    w, qw, k1, b, avgdl, lam,
    slot_gw, uni_cf, coll_len, mu, sat, win, win_mode, ln_dl,
):  # fmt: skip
    """Score every candidate document of one query; return the top ``topk`` (docids, scores).

    ``win`` / ``win_mode`` (mode 1, for sharded indexes): 0 = the window features' collection
    counts are this index's; 1 = also copy them into ``win`` (nslots,); 2 = score with the
    counts in ``win`` (summed over the shards) instead of this index's.

    ``sat``: per-posting values computed once per index and parameters -- mode 0: BM25's
    saturation ``tf / (tf + K_d)`` for these ``k1``, ``b`` (:func:`_saturation`); mode 1: the
    Dirichlet unigram part ``ln(tf + mu cf/|C|) - ln(mu cf/|C|)`` (:func:`_dirichlet_part`).
    ``ln_dl`` (mode 1): ``ln(L + mu)`` for every document length L (:func:`_log_doclen`).

    Term-at-a-time over the postings: the unigram part (mode 0: BM25^(2); mode 1: the
    document-dependent part of the Dirichlet unigram potentials) is added into the dense
    accumulator ``d_acc``, ``d_cnt`` counts the query terms of each document and a per-document
    linked list (``d_head``) remembers its postings. Then every touched document with >= 2
    query terms gets its proximity features (:func:`_proximity`). mode 0 (Lkp family) scores
    Eq. 4.3 at once; mode 1 (SDM/FDM) first sums the window counts over the collection (pass 1)
    and then scores the potentials (pass 2). ``d_*`` are (N,) scratch arrays, zero / -1 on entry
    and left so on exit. Only the first ``nprox`` terms of ``tids`` take part in the proximity
    features (their CDF term ids are 0..nprox-1); all of them in the unigram part.
    """
    k = len(tids)
    P = nprox
    nslots = len(slot_maxlen)
    total = 0
    for j in range(k):
        total += post_ptr[tids[j] + 1] - post_ptr[tids[j]]
    l_term = np.empty(total, np.int32)
    l_post = np.empty(total, np.int64)
    l_next = np.empty(total, np.int32)
    # unigram constants (mode 1)
    bg = np.zeros(nslots, np.float64)
    lbg = np.zeros(nslots, np.float64)
    for s in range(k):
        if mode == 1 and uni_cf[s] > 0:
            bg[s] = mu * uni_cf[s] / coll_len
            lbg[s] = math.log(bg[s])
    # term-at-a-time pass
    nd = 0
    e = 0
    for j in range(k):
        t = tids[j]
        cw = qw[j] * w[j] * (k1 + 1.0)
        for p in range(post_ptr[t], post_ptr[t + 1]):
            d = post_docid[p]
            if d_cnt[d] == 0:
                d_touched[nd] = d
                nd += 1
            # low 16 bits: other terms; high bits: proximity terms
            d_cnt[d] += _PROX_UNIT if j < P else 1
            l_term[e] = j
            l_post[e] = p
            l_next[e] = d_head[d]
            d_head[d] = e
            e += 1
            if mode == 0:
                d_acc[d] += cw * sat[p]
            elif bg[j] > 0:
                # sat (mode 1): ln(f_{q,D} + mu f_{q,C}/|C|) - ln(mu f_{q,C}/|C|) per posting
                d_acc[d] += slot_gw[j] * sat[p]
    # proximity pass over the documents with >= 2 query terms
    starts, ends, mcur, latest, cdf_pos, cdf_term, stamp, last, acc, touched = \
        _proximity_scratch(P, maxdl, nslots)
    kk = max(topk, 0)
    # the documents with >= 2 proximity terms, in a compact list (keeps the emission buffers out
    # of the loop over all touched documents, where carrying them costs more than the work)
    multi = np.empty(nd, np.int32)
    nm = 0
    for i in range(nd):
        d = d_touched[i]
        d_head[d] = d_head[d] if d_cnt[d] >= 2 * _PROX_UNIT else -1
        if d_cnt[d] >= 2 * _PROX_UNIT:
            multi[nm] = d
            nm += 1
    # mode 1 store of window counts: per multi-term document, its touched slots and counts
    c_ptr = np.zeros(nm + 1, np.int64)
    c_slot = np.empty(1024, np.int32)
    c_cnt = np.empty(1024, np.float64)
    nstore = 0
    tot = np.zeros(nslots, np.float64)
    for i in range(nm):
        d = multi[i]
        x = d_head[d]
        while x >= 0:
            j = l_term[x]
            if j < P:
                starts[j] = pos_ptr[l_post[x]]
                ends[j] = pos_ptr[l_post[x] + 1]
            x = l_next[x]
        d_head[d] = -1
        nt = _proximity(
            pos, starts, ends, cdf_pos, cdf_term, mcur, latest, P, mode, use_eps,
            pairs_only, slot_of_mask, pair_slot, slot_maxlen, slot_sumw, ph_slot,
            max_phrase, slot_inc, w, stamp, last, acc, touched, i,
        )  # fmt: skip
        for j in range(P):
            starts[j] = 0
            ends[j] = 0
        if mode == 0:
            prox = _lkp_proximity(acc, touched, nt, doclen[d], k1, b, avgdl)
            # final Eq. 4.3 score; d_cnt = -1 marks it final
            d_acc[d] = (1.0 - lam) * d_acc[d] + lam * prox
            d_cnt[d] = -1
        else:
            if nstore + nt > len(c_slot):
                c_slot = _grow(c_slot, nstore + nt)
                c_cnt = _grow(c_cnt, nstore + nt)
            for t in range(nt):
                s = touched[t]
                c_slot[nstore] = s
                c_cnt[nstore] = acc[s]
                nstore += 1
                tot[s] += acc[s]
            c_ptr[i + 1] = nstore
    c0 = 0.0
    gsum = 0.0
    if mode == 1 and win_mode == 1:
        for s in range(nslots):
            win[s] = tot[s]
    if mode == 1:
        # pass 2: Dirichlet potentials with the collection window counts of pass 1
        for s in range(nslots):
            ts = uni_cf[s] if s < k else (win[s] if win_mode == 2 else tot[s])
            if ts > 0:
                bg[s] = mu * ts / coll_len
                lbg[s] = math.log(bg[s])
                c0 += slot_gw[s] * lbg[s]
                gsum += slot_gw[s]
        for i in range(nm):
            d = multi[i]
            for t in range(c_ptr[i], c_ptr[i + 1]):
                s = c_slot[t]
                if bg[s] > 0:
                    d_acc[d] += slot_gw[s] * (math.log(c_cnt[t] + bg[s]) - lbg[s])
    sc = np.empty(nd, np.float64)
    for i in range(nd):
        d = d_touched[i]
        if mode == 0:
            sc[i] = d_acc[d] if d_cnt[d] < 0 else (1.0 - lam) * d_acc[d]
        else:
            sc[i] = c0 - gsum * ln_dl[doclen[d]] + d_acc[d]
        d_acc[d] = 0.0
        d_cnt[d] = 0
    return _select_topk(sc, d_touched, rank, kk)


# ---------------------------------------------------------------------------------------------
# model set-up
# ---------------------------------------------------------------------------------------------


def _run(index, tids, nprox, k, mode, use_eps, pairs_only, tables, slot_maxlen, slot_sumw,
         ph_slot, max_phrase, slot_inc, w, qw, k1, b, lam, slot_gw, uni_cf, mu,
         win=_ZERO1, win_mode=0):  # fmt: skip
    pp, pd, pt, qp, pos, dl, rank, maxdl = _arrays(index)[:8]
    st = collection_stats(index)
    coll_len = float(max(st.collection_length, 1))
    sat = _saturation(index, k1, b) if mode == 0 else _dirichlet_part(index, mu, coll_len)
    return _score_query(
        pp, pd, pt, qp, pos, dl, rank, maxdl, *_scratch(index),
        tids, int(nprox), int(k), int(mode), bool(use_eps), bool(pairs_only),
        tables[0], tables[1], slot_maxlen, slot_sumw, ph_slot, int(max_phrase), slot_inc,
        w, qw, float(k1), float(b), float(st.avgdl), float(lam),
        slot_gw, uni_cf, coll_len, float(mu), sat, win, int(win_mode),
        _log_doclen(index, mu) if mode == 1 else _ZERO1,
    )  # fmt: skip


def _saturation(index, k1: float, b: float) -> np.ndarray:
    """(num_postings,) float64: BM25's ``tf / (tf + k1 (1 - b + b |D| / avgdl))`` of every
    posting, cached on the index per ``(k1, b)`` (the Lkp family's per-posting work is then one
    multiply-add, as BM25's precomputed impacts)."""
    cache = getattr(index, "_cache", None)
    key = ("dep_sat", float(k1), float(b))
    if cache is not None and key in cache:
        return cache[key]
    pp, pd, pt, _, _, dl = _arrays(index)[:6]
    avgdl = float(collection_stats(index).avgdl)
    tf = pt.astype(np.float64)
    if avgdl > 0:
        kd = k1 * (1.0 - b + b * dl.astype(np.float64) / avgdl)
    else:
        kd = np.full(len(dl), k1 * (1.0 - b))
    sat = tf / (tf + kd[pd])        # tf >= 1 in every posting
    if cache is not None:
        cache[key] = sat
    return sat


@jit
def _dirichlet_kernel(post_ptr, post_tf, cf, mu, coll_len):
    out = np.zeros(len(post_tf), np.float64)
    for t in range(len(post_ptr) - 1):
        if cf[t] > 0:
            bg = mu * float(cf[t]) / coll_len
            lbg = math.log(bg)
            for p in range(post_ptr[t], post_ptr[t + 1]):
                out[p] = math.log(float(post_tf[p]) + bg) - lbg
    return out


def _dirichlet_part(index, mu: float, coll_len: float) -> np.ndarray:
    """(num_postings,) float64: ``ln(tf + mu cf_t / |C|) - ln(mu cf_t / |C|)`` of every posting
    (``cf_t``, ``|C|``: the whole collection's, also on a shard), the per-posting part of
    SDM/FDM's Dirichlet unigram potentials; cached on the index per ``mu`` (the kernel's
    per-posting work is then one multiply-add instead of a logarithm; the values are the ones
    the kernel computed before, bit for bit)."""
    cache = getattr(index, "_cache", None)
    key = ("dep_dir", float(mu), float(coll_len))
    if cache is not None and key in cache:
        return cache[key]
    pp, _, pt = _arrays(index)[:3]
    cf = np.asarray(_arrays(index)[9], np.float64)
    out = _dirichlet_kernel(pp, pt, cf, float(mu), float(coll_len))
    if cache is not None:
        cache[key] = out
    return out


@jit
def _log_doclen_kernel(maxdl, mu):
    out = np.empty(maxdl + 1, np.float64)
    for n in range(maxdl + 1):
        out[n] = math.log(float(n) + mu)
    return out


def _log_doclen(index, mu: float) -> np.ndarray:
    """(maxdl + 1,) float64: ``ln(L + mu)`` for every document length L (the document part of
    SDM/FDM's Dirichlet potentials, one look-up per candidate instead of a logarithm; the same
    ``math.log`` of the same value as before, so the same bits), cached on the index per
    ``mu``."""
    cache = getattr(index, "_cache", None)
    key = ("dep_lndl", float(mu))
    if cache is not None and key in cache:
        return cache[key]
    out = _log_doclen_kernel(int(_arrays(index)[7]), float(mu))
    if cache is not None:
        cache[key] = out
    return out


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


@jit
def _lkp_setup(df_all, cf_all, tids, nq, variant, method, avgdl, n_docs, ph_slot, pop):
    """Per-query set-up of Lkp / Lkpf / L2p (``variant`` 0 / 1 / 2), in numba:
    term weights ``w = ln(N / f_t)``, the Eq. 4.1 subquery weight sums (subset sums of
    ``min(w, 1)`` over the ``2^nq`` masks, or over adjacent pairs), the window limits of Lkpf,
    the per-occurrence phrase scores and the interval method (``method`` 0 auto, 1 LPS-IF-A,
    2 EPS-CDF-A; auto as :func:`~tiebreak.retrieval.intervals.choose_method`). ``tids`` holds
    the distinct query terms, the ``nq`` proximity terms first."""
    k = len(tids)
    pairs_only = variant == 2
    w = np.empty(k, np.float64)
    for j in range(k):
        # a vocabulary term without postings (possible in an index built from tokens) has no
        # weight: it scores nothing
        w[j] = math.log(n_docs / df_all[tids[j]]) if df_all[tids[j]] > 0 else 0.0
    mw = np.empty(nq, np.float64)
    for j in range(nq):
        mw[j] = min(w[j], 1.0)
    if pairs_only:
        n_u = max(nq - 1, 0)
        u_sumw = np.empty(n_u, np.float64)
        for i in range(n_u):
            u_sumw[i] = mw[i] + mw[i + 1]
    else:
        n_u = 1 << nq
        u_sumw = np.zeros(n_u, np.float64)
        for i in range(nq):
            lo = 1 << i
            for m in range(lo):
                u_sumw[lo + m] = u_sumw[m] + mw[i]
    # phrase slots follow the unordered ones in ph_slot's numbering (start i, length L)
    maxp = 2 if pairs_only else nq
    n_p = 0
    for L in range(2, maxp + 1):
        n_p += max(nq - L + 1, 0)
    nslots = n_u + n_p
    slot_maxlen = np.empty(nslots, np.int32)
    slot_sumw = np.zeros(nslots, np.float64)
    slot_inc = np.zeros(nslots, np.float64)
    for s in range(n_u):
        slot_sumw[s] = u_sumw[s]
        if variant == 1:
            slot_maxlen[s] = WINDOW_PER_TERM * int(pop[s])
        else:
            slot_maxlen[s] = _NOLIMIT
    for L in range(2, maxp + 1):
        for i in range(nq - L + 1):
            s = ph_slot[i, L]
            sw = 0.0
            for j in range(i, i + L):
                sw += mw[j]
            slot_maxlen[s] = _NOLIMIT
            if sw > 0:
                slot_inc[s] = w[i] * w[i + L - 1] * (sw / L) * (sw / L)
    if method == 0:
        sdf = 0.0
        scf = 0.0
        for j in range(nq):
            sdf += df_all[tids[j]]
            scf += cf_all[tids[j]]
        denom = max(avgdl * min(n_docs, sdf), 1.0)
        alpha = scf / denom
        if pairs_only:      # one subquery per slot: EPS unless dense ("eps" / "lps")
            use_eps = alpha < ALPHA_DENSE
        else:               # all subqueries: "eps_cdf_all" / "lps_if_all"
            use_eps = alpha >= ALPHA_DENSE or nq >= 7
    else:
        use_eps = method == 2
    return w, slot_maxlen, slot_sumw, slot_inc, use_eps, maxp


@jit
def _lkp_query(
    post_ptr, post_docid, post_tf, pos_ptr, pos, doclen, rank, maxdl,
    d_acc, d_cnt, d_head, d_touched, sat, df_all, cf_all,
    tids, qtf, nq, topk, variant, method, lam, k1, b, avgdl, n_docs,
    slot_of_mask, pair_slot, ph_slot, pop,
):  # fmt: skip
    """:func:`_lkp_setup` then :func:`_score_query` in one call (the whole query in numba)."""
    w, slot_maxlen, slot_sumw, slot_inc, use_eps, maxp = _lkp_setup(
        df_all, cf_all, tids, nq, variant, method, avgdl, n_docs, ph_slot, pop)
    return _score_query(
        post_ptr, post_docid, post_tf, pos_ptr, pos, doclen, rank, maxdl,
        d_acc, d_cnt, d_head, d_touched,
        tids, nq, topk, 0, use_eps, variant == 2,
        slot_of_mask, pair_slot, slot_maxlen, slot_sumw, ph_slot, maxp, slot_inc,
        w, qtf, k1, b, avgdl, lam,
        _ZERO1, _ZERO1, 1.0, MU, sat, np.zeros(0), 0, _ZERO1,
    )  # fmt: skip


_METHOD_CODE = {"auto": 0, "lps_if_all": 1, "eps_cdf_all": 2}
_VARIANT_CODE = {"lkp": 0, "lkpf": 1, "l2p": 2}


def _lkp_prepare(index, query_terms, k, variant, lam, k1, b, method, max_prox_terms,
                 plan=None):
    """Checks and the query plan of the Lkp family: ``None`` when nothing can be retrieved,
    else (tids, qtf, nq, structure tables). Raises ValueError for a bad parameter."""
    if not 0.0 <= lam <= 1.0:
        raise ValueError("lam must be in [0, 1]")
    if k1 < 0 or not 0.0 <= b <= 1.0:
        raise ValueError("k1 must be >= 0 and b in [0, 1]")
    if method not in ("auto", "lps_if_all", "eps_cdf_all"):
        raise ValueError(f"method: expected auto, lps_if_all or eps_cdf_all, got {method!r}")
    k = _check_k(k)
    pairs_only = variant == "l2p"
    limit = MAX_TERMS if pairs_only else MAX_ALL_TERMS
    tids, qtf, nq = _prox_plan(index, query_terms, max_prox_terms, limit, variant, plan)
    if len(tids) == 0 or k <= 0 or index.num_docs == 0:
        return None
    # nq = the number of proximity terms (the first nq of tids)
    return tids, qtf, nq, _structure(nq, variant)


def _lkp_family(index, query_terms, k, variant, lam, k1, b, method, max_prox_terms):
    plan = _lkp_prepare(index, query_terms, k, variant, lam, k1, b, method, max_prox_terms)
    if plan is None:
        return _empty()
    tids, qtf, nq, (tables, ph_slot, _, pop) = plan
    # the rest of the set-up runs in numba (_lkp_query)
    pp, pd, pt, qp, pos, dl, rank, maxdl, df_all, cf_all = _arrays(index)
    st = collection_stats(index)
    return _lkp_query(
        pp, pd, pt, qp, pos, dl, rank, maxdl, *_scratch(index), _saturation(index, k1, b),
        df_all, cf_all, tids, qtf, nq, int(k), _VARIANT_CODE[variant], _METHOD_CODE[method],
        float(lam), float(k1), float(b), float(st.avgdl), float(st.num_docs),
        tables[0], tables[1], ph_slot, _ZERO1 if pop is None else pop,
    )  # fmt: skip


def lkp(index, query_terms, k: int = 1000, lam: float = LAMBDA, k1: float = K1, b: float = B,
        method: str = "auto", max_prox_terms: int | None = MAX_PROX_TERMS):  # fmt: skip
    """Lkp, Lu (2018) Eq. 4.3 with Eq. 4.1 / 4.2 (spec §5):

    ``score = (1 - lam) * sum_q f_{q,Q} BM25(q, D) + lam * (sum_{Q' in Q_0} phrase(Q', D)
    + sum_{Q' in Q} Score(Q', D))``

    * BM25 part: BM25^(2), ``w_q = ln(N / f_t)`` (Robertson-Walker, never negative),
      ``k1 = 0.9``, ``b = 0.3`` (Table 4.3), query-frequency factor ``f_{q,Q}`` (k3 dropped).
    * ``Score(Q', D)`` (Eq. 4.2) ``= S (1 + k1) / (S + K)``, ``K = k1 (1 - b + b |D|/avg|D|)``,
      ``S`` = sum of Eq. 4.1 ``w_l w_r / dbar^2``, ``dbar = |I| / sum_{q in Q'} min(w_q, 1)``,
      over the non-overlapping optimal intervals of ``Q'`` (greedy by start, §2.4), for every
      subquery ``Q'`` of >= 2 distinct query terms.
    * phrase part: for each contiguous sub-sequence (>= 2 terms) of the distinct query terms,
      Eq. 4.2 over its exact-phrase occurrences (adjacent, in query order), each scored with
      Eq. 4.1 with ``|I| = |Q'|`` (spec §5.5 ambiguity 1, recommended reading).
    * ``lam = 0.4``. Single-term queries get ``(1 - lam) BM25``.

    ``method``: ``"auto"`` (per query, :func:`~tiebreak.retrieval.intervals.choose_method`),
    ``"lps_if_all"`` or ``"eps_cdf_all"``; the scores do not depend on it.
    ``max_prox_terms`` (default 12, at most 20): the proximity parts use only the highest-IDF
    distinct terms, in query order; BM25 uses all (module docstring: a deliberate deviation).
    Returns ``(docids int32 (k',), scores float64 (k',))``, k' = min(k, #candidates).
    """
    return _lkp_family(index, query_terms, k, "lkp", lam, k1, b, method, max_prox_terms)


def lkpf(index, query_terms, k: int = 1000, lam: float = LAMBDA, k1: float = K1, b: float = B,
         method: str = "auto", max_prox_terms: int | None = MAX_PROX_TERMS):  # fmt: skip
    """Lkpf (spec §5.6): :func:`lkp` with the optimal intervals of each subquery ``Q'`` limited
    to ``p_r - p_l + 1 <= 4 |Q'|`` (Indri's length convention) *before* the non-overlap
    selection (equivalent to Indri's ``#uwN`` counting). Phrases always fit. Same parameters,
    return value and errors as :func:`lkp`."""
    return _lkp_family(index, query_terms, k, "lkpf", lam, k1, b, method, max_prox_terms)


def l2p(index, query_terms, k: int = 1000, lam: float = LAMBDA, k1: float = K1, b: float = B,
        method: str = "auto", max_prox_terms: int | None = None):  # fmt: skip
    """L2p (spec §5.6): :func:`lkp` restricted to the order-preserving bigram subqueries, read as
    the adjacent query pairs ``(q_i, q_{i+1})`` (as in SDM) for both the unordered part (no
    distance limit) and the phrase part. Same parameters, return value as :func:`lkp`, except
    ``max_prox_terms`` defaults to ``None`` = all distinct terms, capped at 62 (the pairs are
    then those of the highest-IDF terms, adjacent in query order)."""
    return _lkp_family(index, query_terms, k, "l2p", lam, k1, b, method, max_prox_terms)


def _mrf(index, query_terms, k, full, weights, mu, window, method, max_prox_terms,
         windows=None, export=False):
    """SDM / FDM. ``export``: return the window features' collection counts in this index,
    float64 (nslots,) (None when it has no candidate); ``windows``: score with these counts
    instead of this index's (see :func:`window_counts`)."""
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
    if export:
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
        tids, qtf, npx, k, full, lt, lo, lu, float(mu), int(window or 0), _METHOD_CODE[method],
        coll_len, float(st.avgdl), float(st.num_docs), tables[0], tables[1], ph_slot, n_o,
        _ZERO1 if pop is None else pop, win, win_mode,
    )  # fmt: skip
    return win if export else out


@jit
def _mrf_query(
    post_ptr, post_docid, post_tf, pos_ptr, pos, doclen, rank, maxdl,
    d_acc, d_cnt, d_head, d_touched, sat, ln_dl, df_all, cf_all,
    tids, qtf, npx, topk, full, lt, lo, lu, mu, window, method, coll_len, avgdl, n_docs,
    slot_of_mask, pair_slot, ph_slot, n_o, pop, win, win_mode,
):  # fmt: skip
    """SDM / FDM set-up in numba, then :func:`_score_query` (mode 1) in the same call: the
    slot weights (Indri ``#combine``: each group's weight shared by its children), window
    limits, unigram collection counts and the interval method (``method`` 0 auto, 1 LPS-IF-A,
    2 EPS-CDF-A; auto as :func:`~tiebreak.retrieval.intervals.choose_method`). Slots: ``[0,
    nq)`` unigrams, then the ``n_o`` ordered features, then the unordered ones (FDM: one per
    mask of the ``npx`` proximity terms, popcount < 2 unused; SDM: one per adjacent pair)."""
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
    if method == 0:
        sdf = 0
        scf = 0.0
        for j in range(npx):
            sdf += df_all[tids[j]]
            scf += uni_cf[j]
        denom = max(avgdl * min(n_docs, float(sdf)), 1.0)
        alpha = scf / denom
        if full:            # all subqueries: "eps_cdf_all" / "lps_if_all"
            use_eps = alpha >= ALPHA_DENSE or npx >= 7
        else:               # one subquery per slot: EPS unless dense ("eps" / "lps")
            use_eps = alpha < ALPHA_DENSE
    else:
        use_eps = method == 2
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
        max_prox_terms: int | None = None, algorithm: str = "exhaustive"):  # fmt: skip
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
    the pairs' collection counts from a term-pair statistics index
    (:func:`tiebreak.retrieval.proxprune.sdm_bounds`; ``method`` does not apply): the same
    documents in the same order, scores equal to within float rounding.
    Returns ``(docids int32, scores float64)`` of the top k.
    """
    if algorithm == "bounds":
        return sdm_bounds(index, query_terms, k, weights, mu, window, max_prox_terms)
    if algorithm != "exhaustive":
        raise ValueError(f"algorithm: exhaustive or bounds, not {algorithm!r}")
    return _mrf(index, query_terms, k, False, weights, mu, window, method, max_prox_terms)


def sdm_bounds(index, query_terms, k: int = 1000, weights=SDM_WEIGHTS, mu: float = MU,
               window: int = SDM_WINDOW, max_prox_terms: int | None = None,
               stats: dict | None = None):
    """SDM's top ``k`` by rank-safe pruning with upper bounds of the window potentials
    (:mod:`tiebreak.retrieval.proxprune`; ``sdm -p algorithm=bounds``): ``(docids int32, scores
    float64)``, the documents and order of :func:`sdm`, scores equal to within float rounding.
    The pairs' collection window counts come from the term-pair statistics index
    (:func:`build_pair_statistics`; computed for the query's pairs on first use). ``stats``: a
    dict to receive ``candidates`` (documents holding a query term) and ``scored`` (documents
    whose positions were read). Raises ValueError for bad parameters and on a shard."""
    from .proxprune import bounds_search

    lt, lo, lu = (float(x) for x in weights)
    if not mu > 0 or min(lt, lo, lu) < 0:
        raise ValueError("mu must be > 0 and weights >= 0")
    k = _check_k(k)
    tids, qtf, npx = _prox_plan(index, query_terms, max_prox_terms, MAX_TERMS, "sdm")
    if len(tids) == 0 or k <= 0 or index.num_docs == 0:
        return _empty()
    arrays = _arrays(index)
    coll_len = float(max(collection_stats(index).collection_length, 1))
    docs, scores, n, ns = bounds_search(
        index, arrays, tids, qtf, npx, int(window), _dirichlet_part(index, float(mu), coll_len),
        _log_doclen(index, float(mu)), weights, float(mu), coll_len, k)
    if stats is not None:
        stats["candidates"] = int(n)
        stats["scored"] = int(ns)
    return _select_topk(scores, docs.astype(np.int32), arrays[6], k)


def build_pair_statistics(index, queries, window: int = SDM_WINDOW,
                          max_prox_terms: int | None = None) -> int:
    """Fill the term-pair statistics index (:func:`tiebreak.retrieval.proxprune.pair_statistics`)
    with every adjacent pair of ``queries`` (lists of analysed terms) as :func:`sdm_bounds`
    forms them; returns the number of pairs stored for ``window``."""
    from .proxprune import pair_statistics

    pairs = set()
    for q in queries:
        tids, _, npx = _prox_plan(index, q, max_prox_terms, MAX_TERMS, "sdm")
        pairs.update((int(tids[j]), int(tids[j + 1])) for j in range(npx - 1))
    pair_statistics(index, sorted(pairs), int(window), _arrays(index))
    return len(index._cache[("pair-stats", int(window))])


def fdm(index, query_terms, k: int = 1000, weights=FDM_WEIGHTS, mu: float = MU,
        method: str = "auto", max_prox_terms: int = MAX_PROX_TERMS):  # fmt: skip
    """Full dependence model (Metzler & Croft 2005; spec §1.4, Eq. 3.1), Indri semantics as in
    :func:`sdm`, over every contiguous sub-sequence (``#1``) and every subset (``#uwN`` with
    ``N = 4 |Q'|``) of >= 2 distinct query terms; each group divided by its number of children
    (``k(k-1)/2`` ordered, ``2^k - k - 1`` unordered). Defaults: weights ``(0.8, 0.1, 0.1)``
    (Table 4.3), ``mu = 2500``. ``max_prox_terms`` (default 12, at most 20): the window
    features use only the highest-IDF distinct terms, in query order; the unigrams use all
    (module docstring: a deliberate deviation from the full 2^|Q| enumeration)."""
    return _mrf(index, query_terms, k, True, weights, mu, None, method, max_prox_terms)


# ---------------------------------------------------------------------------------------------
# two-stage ranking (:mod:`tiebreak.retrieval.rerank`): its kernels live here, beside the pieces
# they compile in (:func:`_lkp_setup`, :func:`_proximity_doc`, :func:`_select_topk`). numba's
# on-disk cache of a kernel is keyed by the stamp (mtime, size) of the file that defines it, and
# a compiled caller holds its callees' code: defined in rerank.py, these kernels kept the old
# proximity code after an edit of this file alone.
# ---------------------------------------------------------------------------------------------


@jit
def _heap_push(heap, n, cap, v):
    """Keep the ``cap`` largest values in the min-heap ``heap[:n]`` (n <= cap) after adding
    ``v``."""
    if n < cap:
        i = n
        heap[i] = v
        while i > 0:
            par = (i - 1) >> 1
            if heap[par] <= heap[i]:
                break
            heap[par], heap[i] = heap[i], heap[par]
            i = par
        return
    if v <= heap[0]:
        return
    heap[0] = v
    i = 0
    while True:
        c = 2 * i + 1
        if c >= cap:
            break
        if c + 1 < cap and heap[c + 1] < heap[c]:
            c += 1
        if heap[i] <= heap[c]:
            break
        heap[i], heap[c] = heap[c], heap[i]
        i = c


@jit
def _rerank_kernel(
    post_ptr, post_docid, pos_ptr, pos, rank, maxdl, sat, df_all, cf_all,
    cands, first_sc, nprox, tail_w, tids, qtf, nq, topk, variant, method, lam, k1, b, avgdl,
    doclen_arr, n_docs, slot_of_mask, pair_slot, ph_slot, pop,
):  # fmt: skip
    """Two-stage scores. ``cands`` (int32) and ``first_sc`` (float64) are the first pass's
    ranking, best first in trec_eval order. The first ``nprox`` documents (the head) get their
    Eq. 4.3 score; the others (the tail) ``tail_w * first_sc``, already in order. Returns the
    top ``topk`` of head and tail merged, in trec_eval order."""
    w, slot_maxlen, slot_sumw, slot_inc, use_eps, maxp = _lkp_setup(
        df_all, cf_all, tids, nq, variant, method, avgdl, n_docs, ph_slot, pop)
    pairs_only = variant == 2
    k = len(tids)
    P = nq
    n_all = len(cands)
    m = min(nprox, n_all)
    # the head in docid order; posting index of (head document i, term j), -1 when absent: per
    # term, a galloping search per document from where the previous one ended (O(log gap):
    # a handful of probes when the head is dense in the postings, few when it is sparse)
    hd = np.sort(cands[:m])
    where = np.full((m, k), -1, np.int64)
    for j in range(k):
        t = tids[j]
        lo = post_ptr[t]
        hi = post_ptr[t + 1]
        for i in range(m):
            if lo >= hi:
                break
            d = hd[i]
            if post_docid[lo] < d:
                # gallop from lo, then a binary search in the last step's range
                step = 1
                while lo + step < hi and post_docid[lo + step] < d:
                    lo += step
                    step <<= 1
                end = min(lo + step, hi)
                lo += 1 + np.searchsorted(post_docid[lo + 1:end], d)
            if lo < hi and post_docid[lo] == d:
                where[i, j] = lo
    nslots = len(slot_maxlen)
    starts, ends, mcur, latest, cdf_pos, cdf_term, stamp, last, acc, touched = \
        _proximity_scratch(P, maxdl, nslots)
    sc = np.empty(m, np.float64)
    ub = np.empty(m, np.float64)
    npx_of = np.zeros(m, np.int64)
    pmax = lam * (1.0 + k1)
    for i in range(m):
        bm = 0.0
        npx = 0
        nslot = 0
        run = 0
        for j in range(k):
            p = where[i, j]
            if p >= 0:
                bm += qtf[j] * w[j] * (k1 + 1.0) * sat[p]
        for j in range(P):
            if where[i, j] >= 0:
                npx += 1
                run += 1
                # the slots ending at term j a document can touch: adjacent pairs (unordered
                # and phrase), or the phrases (contiguous runs of present terms) ending there
                if pairs_only:
                    nslot += 2 if run >= 2 else 0
                else:
                    nslot += min(run, maxp) - 1
            else:
                run = 0
        if not pairs_only and npx >= 2:
            nslot += (1 << npx) - npx - 1   # every subset of >= 2 present terms
        sc[i] = (1.0 - lam) * bm
        npx_of[i] = npx
        # each Eq. 4.2 term S (1 + k1) / (S + K_d) is below 1 + k1: an upper bound of Eq. 4.3
        # (with room for rounding)
        ub[i] = sc[i] + (pmax * nslot) * (1.0 + 1e-9) + 1e-12 if npx >= 2 else sc[i]
    # proximity for the head documents in decreasing bound order; when fewer than m documents
    # are returned, stop once the topk-th exact score is above the next bound (rank-safe: a
    # document left out scores at most its bound, below topk documents already scored)
    prune = topk < m
    if prune:
        order = np.argsort(-ub, kind="mergesort")
    else:
        order = np.arange(m)
    heap = np.empty(max(topk, 1), np.float64)
    hn = 0
    done = np.empty(m, np.int64)
    nd = 0
    for x in range(m):
        i = order[x]
        if prune and hn == topk and heap[0] > ub[i]:
            break
        if npx_of[i] >= 2:
            d = hd[i]
            for j in range(P):
                p = where[i, j]
                if p >= 0:
                    starts[j] = pos_ptr[p]
                    ends[j] = pos_ptr[p + 1]
                else:
                    starts[j] = 0
                    ends[j] = 0
            nt = _proximity_doc(
                pos, starts, ends, cdf_pos, cdf_term, mcur, latest, P, 0, use_eps,
                pairs_only, slot_of_mask, pair_slot, slot_maxlen, slot_sumw, ph_slot,
                maxp, slot_inc, w, stamp, last, acc, touched, x,
            )  # fmt: skip
            sc[i] += lam * _lkp_proximity(acc, touched, nt, doclen_arr[d], k1, b, avgdl)
        done[nd] = i
        nd += 1
        if prune:
            _heap_push(heap, hn, topk, sc[i])
            hn = min(hn + 1, topk)
    sel = done[:nd]
    h_d, h_s = _select_topk(sc[sel], hd[sel], rank, min(topk, nd))
    # merge the sorted head with the tail (already in order: first-pass order, scaled scores)
    n_out = min(topk, m + (n_all - m))
    out_d = np.empty(n_out, np.int32)
    out_s = np.empty(n_out, np.float64)
    a = 0
    t = m
    for o in range(n_out):
        take_head = a < len(h_d)
        if take_head and t < n_all:
            ts = tail_w * first_sc[t]
            take_head = h_s[a] > ts or (h_s[a] == ts and rank[h_d[a]] > rank[cands[t]])
        if take_head:
            out_d[o] = h_d[a]
            out_s[o] = h_s[a]
            a += 1
        else:
            out_d[o] = cands[t]
            out_s[o] = tail_w * first_sc[t]
            t += 1
    # scaling can make distinct first-pass scores equal (and lam = 1 makes the whole tail 0):
    # put every group of equal scores in docno-descending order, as trec_eval reads them
    g = 0
    while g < n_out:
        e = g + 1
        while e < n_out and out_s[e] == out_s[g]:
            e += 1
        ordered = True
        for i in range(g + 1, e):
            if rank[out_d[i]] > rank[out_d[i - 1]]:
                ordered = False
                break
        if not ordered:  # rare: only where scaling made scores equal
            r = np.empty(e - g, np.int64)
            for i in range(g, e):
                r[i - g] = -rank[out_d[i]]
            o = np.argsort(r, kind="mergesort")
            grp = out_d[g:e].copy()
            for i in range(e - g):
                out_d[g + i] = grp[o[i]]
        g = e
    return out_d, out_s


@jit
def _rerank_query(
    bpp, bpd, imp, tids0, w0, acc, seen, touched, brank, n_first,
    post_ptr, post_docid, pos_ptr, pos, rank, maxdl, sat, df_all, cf_all,
    first_k, tail_w, tids, qtf, nq, topk, variant, method, lam, k1, b, avgdl,
    doclen_arr, n_docs, slot_of_mask, pair_slot, ph_slot, pop,
):  # fmt: skip
    """The BM25 first pass (the compiled top-k of :mod:`tiebreak.retrieval.models`, given its
    impacts, weights and scratch arrays) and :func:`_rerank_kernel` in one compiled call (one
    dispatch, no Python in between)."""
    cands, first_sc = _bm25_impact_topk(bpp, bpd, imp, tids0, w0, acc, seen, touched, brank,
                                        n_first)
    if len(cands) == 0:
        return np.zeros(0, np.int32), np.zeros(0, np.float64)
    return _rerank_kernel(
        post_ptr, post_docid, pos_ptr, pos, rank, maxdl, sat, df_all, cf_all,
        cands, first_sc, first_k, tail_w, tids, qtf, nq, topk, variant, method, lam, k1, b,
        avgdl, doclen_arr, n_docs, slot_of_mask, pair_slot, ph_slot, pop,
    )  # fmt: skip
