"""The shared compiled kernels of the dependency models (:mod:`tiebreak.retrieval.dependency`):
the per-interval accumulation (:func:`_take_interval`, :func:`_take_subqueries`), the
proximity features of one document (:func:`_proximity`: CDF merge, exact phrases, LPS-IF-A /
EPS-CDF-A interval enumeration fused with the selection), Lkp's Eq. 4.2 proximity sum, the
document-at-a-time scorer of one query (:func:`_score_query`, both the Lkp family's mode 0 and
SDM/FDM's mode 1), the top-k selection, and the per-posting tables the scorer reads (BM25
saturation, the Dirichlet unigram part, ``ln(|D| + mu)``), cached on the index.

numba's on-disk cache keys a kernel by its own file: the kernels of
:mod:`~tiebreak.retrieval.dependency.lkp_family`, :mod:`~tiebreak.retrieval.dependency.mrf`
and :mod:`~tiebreak.retrieval.dependency.rerank` hold the compiled code of the ones here, so
after an edit of this file clear the cache (``__pycache__/*.nbi``, ``*.nbc`` or
``NUMBA_CACHE_DIR``; :mod:`tiebreak._native.jit`).

Size: one module because these kernels call one another inside compiled code and the
exhaustive and pruned traversals must share their term-at-a-time pass
(:func:`_postings_pass`) for bit-identical scores; splitting them would add more cross-file
callees that numba's cache does not track.
"""

from __future__ import annotations

import math

import numpy as np

from ..intervals import HAVE_NUMBA, jit, merge_cdf_kernel
from ..kernels import _select  # top k in trec_eval order: score desc, then docno rank desc
from ..weights import collection_stats
from .plan import _PROX_UNIT, _ZERO1, _arrays, _scratch

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
        from ..._native.jit import njit

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
    T = merge_cdf_kernel(pos, starts, ends, cdf_pos, cdf_term, mcur)
    return _proximity_cdf(
        T, cdf_pos, cdf_term, latest, k, mode, use_eps, pairs_only, slot_of_mask, pair_slot,
        slot_maxlen, slot_sumw, ph_slot, max_phrase, slot_inc, w, stamp, last, acc, touched, dno,
    )  # fmt: skip


@jit(inline=True)
def _proximity_cdf(
    T, cdf_pos, cdf_term, latest, k, mode, use_eps, pairs_only, slot_of_mask, pair_slot,
    slot_maxlen, slot_sumw, ph_slot, max_phrase, slot_inc, w, stamp, last, acc, touched, dno,
):  # fmt: skip
    """:func:`_proximity` after the merge: the features of the condensed direct file
    ``cdf_pos[:T]``, ``cdf_term[:T]`` (positions ascending, local term ids), however it was
    built (merged from the positional postings, or read from the stored direct file by
    :func:`_proximity_direct_doc`)."""
    nt = 0
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
def _proximity_direct_doc(
    direct, lo, hi, local, cdf_pos, cdf_term, latest, k, mode, use_eps, pairs_only,
    slot_of_mask, pair_slot, slot_maxlen, slot_sumw, ph_slot, max_phrase, slot_inc, w,
    stamp, last, acc, touched, dno,
):  # fmt: skip
    """:func:`_proximity_doc` with the CDF read from the stored direct file: the document's
    term ids are ``direct[lo:hi]`` (position p at ``lo + p``); ``local`` (int32, vocabulary
    size) maps a term id to its local proximity-term id, -1 for the others. The occurrences
    come out in position order, as the merge of the positional postings yields them, so the
    features (and scores) are the same."""
    T = 0
    for p in range(hi - lo):
        j = local[direct[lo + p]]
        if j >= 0:
            cdf_pos[T] = p
            cdf_term[T] = j
            T += 1
    return _proximity_cdf(
        T, cdf_pos, cdf_term, latest, k, mode, use_eps, pairs_only, slot_of_mask, pair_slot,
        slot_maxlen, slot_sumw, ph_slot, max_phrase, slot_inc, w, stamp, last, acc, touched, dno,
    )  # fmt: skip


#: no restriction of the candidates (:func:`_postings_pass`'s ``only``)
_ALL_DOCS = np.zeros(0, np.uint8)


@jit(inline=True)
def _postings_pass(tids, P, post_ptr, post_docid, qw, w, k1, mode, bg, slot_gw, sat, only,
                   d_acc, d_cnt, d_head, d_touched, l_term, l_post, l_next):
    """The term-at-a-time pass of one query, shared by the exhaustive kernel
    (:func:`_score_query`) and the pruned one (:mod:`.pruned`) so that both sum the same terms
    in the same order (bit-identical scores): every posting of the query terms ``tids`` is
    linked into its document's list (``d_head``/``l_next``, term index ``l_term``, posting
    ``l_post``), counted in ``d_cnt`` (low 16 bits: other terms; high bits: the ``P``
    proximity terms) and its unigram part added to ``d_acc``: mode 0 (Lkp family) the BM25
    weight ``qw w (k1 + 1) sat``, mode 1 (SDM/FDM) ``slot_gw sat`` where ``sat`` is
    ln(f_{q,D} + mu f_{q,C}/|C|) - ln(mu f_{q,C}/|C|) and the term occurs in the collection
    (``bg > 0``). ``only``: uint8 (N,) marking the documents that may be candidates, or empty
    for all. Returns the number of documents touched (listed in ``d_touched``)."""
    restrict = len(only) > 0
    nd = 0
    e = 0
    for j in range(len(tids)):
        t = tids[j]
        cw = qw[j] * w[j] * (k1 + 1.0)
        for p in range(post_ptr[t], post_ptr[t + 1]):
            d = post_docid[p]
            if restrict and only[d] == 0:
                continue
            if d_cnt[d] == 0:
                d_touched[nd] = d
                nd += 1
            d_cnt[d] += _PROX_UNIT if j < P else 1
            l_term[e] = j
            l_post[e] = p
            l_next[e] = d_head[d]
            d_head[d] = e
            e += 1
            if mode == 0:
                d_acc[d] += cw * sat[p]
            elif bg[j] > 0:
                d_acc[d] += slot_gw[j] * sat[p]
    return nd


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
    nd = _postings_pass(tids, P, post_ptr, post_docid, qw, w, k1, mode, bg, slot_gw, sat,
                        _ALL_DOCS, d_acc, d_cnt, d_head, d_touched, l_term, l_post, l_next)
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
# per-query driver and per-posting tables
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
    if cache is not None and "dep_arrays" in cache:
        pd, pt, dl = (cache["dep_arrays"][i] for i in (1, 2, 5))
    else:       # the postings only: a two-stage rerank over the direct file reads no position
        pd, pt, dl = index.post_docid, np.asarray(index.post_tf), np.asarray(index.doclen)
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
