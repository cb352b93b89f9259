"""Optimal intervals of query terms in one document: the PlaneSweep family of Lu (2018), ch. 3.

Definitions (spec ``proximity-retrieval.md`` §2.2): an interval ``[l..r]`` of a document is
*optimal* for a set of query terms when it contains every term of the set and no proper
sub-interval does. Both ends are then query-term occurrences of different terms (for sets of
two or more terms), and across the optimal intervals of one set the left ends and the right ends
both strictly increase.

Data types used throughout
--------------------------
* **Query terms** are dense local ids ``0..k-1`` (distinct terms; duplicates must be removed by
  the caller, spec §4 caveat).
* **Positions**: one sorted ``int32`` array per term (0-based token offsets). A list of such
  arrays is the *inverted-file* (IF) view of one document.
* **Condensed direct file (CDF)**, :class:`CDF`: the query-term occurrences of one document
  merged in position order, as two parallel arrays ``pos`` (int32) and ``term`` (int32 local
  ids). A whole direct file is a CDF with ``pos = arange(|D|)`` and non-query tokens given any
  term id outside ``0..63`` (e.g. -1); the single-subquery LPS skips them.
* **Subquery**: an ``int`` bitmask over local term ids (bit ``i`` set = term ``i`` in the
  subquery); :func:`mask_of` and :func:`terms_of` convert.
* **Intervals** of one subquery: an ``(n, 2)`` int32 array of ``(start, end)`` rows, inclusive
  ends, sorted by start. All subqueries at once: :class:`IntervalSet`, three parallel arrays
  ``mask`` (int64), ``start``, ``end`` (int32) in emission order (see each algorithm).

Algorithms
----------
* :func:`eps` -- Algorithm 1, eager PlaneSweep over the position lists (EPS-IF-S).
* :func:`lps` -- Algorithm 2, lazy PlaneSweep over a CDF or direct file (LPS-DF-S / LPS-IF-S).
* :func:`lps_if_all` -- Algorithm 3 (LPS-IF-A): every optimal interval of every subquery in one
  merge pass over the position lists; includes the spec's [R] fixes (loop while the smallest next
  occurrence is finite; ``S`` assigned, not compared).
* :func:`eps_cdf_all` -- Algorithm 4 (EPS-CDF-A): the same output from a CDF, with the spec's [R]
  fix of looping over CDF *indices* while emitting document *positions*; the ``seen`` set is a
  bitmask, so the reset of step 3 is free and cannot run past the end of the CDF.
* :func:`choose_method` -- the per-query choice of input representation (see its docstring).

The hot loops are plain Python functions compiled with ``numba.njit(cache=True)`` when numba is
importable (set ``TIEBREAK_NO_NUMBA=1`` to run the same code uncompiled); the uncompiled form of
every kernel stays available as ``kernel.py_func`` when numba is active.

Size: one module because the PlaneSweep family (EPS, LPS and their variants) shares the per-
document position layout and the brute-force reference the tests compare against.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

try:  # numba is imported here, never by tiebreak.cli / tiebreak eval paths
    if os.environ.get("TIEBREAK_NO_NUMBA"):
        raise ImportError("disabled by TIEBREAK_NO_NUMBA")
    from .._native.jit import njit as _numba_njit

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - exercised only without numba
    _numba_njit = None
    HAVE_NUMBA = False

#: Largest query handled by the all-subquery algorithms (2**k subquery slots are allocated).
MAX_ALL_TERMS = 20
#: Largest query handled by the single-subquery algorithms (bitmask in an int64).
MAX_TERMS = 62
#: The thesis's term-density threshold of :func:`choose_method` (Lu 2018, §3.3.4, §3.4.6): the
#: fallback when an index carries no measured thresholds (:class:`IntervalThresholds`).
ALPHA_DENSE = 0.15
#: The thesis's query length from which EPS-CDF-A is chosen for all subqueries (same fallback).
K_DENSE = 7
#: Manifest key of the measured thresholds (optional metadata of an index, written by
#: ``tiebreak index --calibrate-intervals`` / ``tiebreak index --calibrate-intervals``).
MANIFEST_KEY = "interval_thresholds"


def jit(fn=None, *, inline: bool = False):
    """``numba.njit(cache=True, nogil=True)`` when numba is available, else ``fn`` unchanged.
    ``inline=True`` asks numba to inline the function into its callers (``inline='always'``:
    small helpers called per document, where a call costs more than the work)."""
    if fn is None:
        return lambda f: jit(f, inline=inline)
    if HAVE_NUMBA:
        opts = {"inline": "always"} if inline else {}
        return _numba_njit(cache=True, nogil=True, **opts)(fn)
    return fn


# ---------------------------------------------------------------------------------------------
# data types
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CDF:
    """Condensed direct file: query-term occurrences of one document in position order.

    ``pos`` (T,) int32 document positions, strictly increasing; ``term`` (T,) int32 local ids.
    """

    pos: np.ndarray
    term: np.ndarray

    def __len__(self) -> int:
        return len(self.pos)


@dataclass(frozen=True)
class IntervalSet:
    """Optimal intervals of many subqueries: parallel arrays ``mask`` (M,) int64, ``start`` and
    ``end`` (M,) int32, in the emission order of the algorithm that produced them. Within one
    mask the intervals are sorted by start (and by end)."""

    mask: np.ndarray
    start: np.ndarray
    end: np.ndarray

    def __len__(self) -> int:
        return len(self.mask)

    def get(self, mask: int) -> np.ndarray:
        """(n, 2) int32 intervals of one subquery, sorted by start."""
        sel = self.mask == mask
        out = np.stack([self.start[sel], self.end[sel]], axis=1).astype(np.int32)
        return out[np.argsort(out[:, 0], kind="stable")]

    def by_subquery(self) -> dict[int, np.ndarray]:
        """{mask: (n, 2) int32 intervals sorted by start} for every subquery with an interval."""
        order = np.lexsort((self.start, self.mask))
        m, s, e = self.mask[order], self.start[order], self.end[order]
        cuts = np.flatnonzero(np.diff(m)) + 1
        out = {}
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(m)]):
            if hi > lo:
                out[int(m[lo])] = np.stack([s[lo:hi], e[lo:hi]], axis=1).astype(np.int32)
        return out


def mask_of(terms) -> int:
    """Bitmask of an iterable of local term ids."""
    m = 0
    for t in terms:
        m |= 1 << int(t)
    return m


def terms_of(mask: int) -> tuple[int, ...]:
    """Local term ids of a bitmask, ascending."""
    out, i = [], 0
    mask = int(mask)
    while mask:
        if mask & 1:
            out.append(i)
        mask >>= 1
        i += 1
    return tuple(out)


def as_position_lists(pos_lists) -> list[np.ndarray]:
    """Validate and convert per-term position lists to sorted, duplicate-free int32 arrays.

    Raises ValueError when a list is not strictly increasing, holds a negative position, or
    when two terms share a position (one token holds one term, spec §4 caveat)."""
    out = [np.ascontiguousarray(p, dtype=np.int32).ravel() for p in pos_lists]
    for p in out:
        if len(p) and (p[0] < 0 or np.any(np.diff(p) <= 0)):
            raise ValueError("positions must be non-negative and strictly increasing")
    allp = np.concatenate(out) if out else np.zeros(0, np.int32)
    if len(np.unique(allp)) != len(allp):
        raise ValueError("two query terms share a position")
    return out


def _flatten(pos_lists):
    lens = np.array([len(p) for p in pos_lists], dtype=np.int64)
    ends = np.cumsum(lens)
    starts = ends - lens
    flat = np.concatenate(pos_lists) if len(pos_lists) else np.zeros(0, np.int32)
    return flat.astype(np.int32, copy=False), starts, ends


# ---------------------------------------------------------------------------------------------
# kernels (numba-compiled when available)
# ---------------------------------------------------------------------------------------------


@jit(inline=True)
def _next_occurrence(pos, cur, ends, k):
    """``(j, p)``: the local term ``j < k`` whose cursor ``cur[j]`` (below ``ends[j]``) holds
    the smallest position ``p = pos[cur[j]]`` (the lowest j on ties); ``(-1, 0)`` when every
    cursor is at its end. A linear argmin: cheaper than a heap for short queries."""
    best = -1
    bp = np.int64(0)
    for j in range(k):
        if cur[j] < ends[j]:
            p = np.int64(pos[cur[j]])
            if best < 0 or p < bp:
                bp = p
                best = j
    return best, bp


@jit(inline=True)
def merge_cdf_kernel(pos, starts, ends, out_pos, out_term, cur):
    """k-way merge of ``pos[starts[j]:ends[j]]`` (j = local term) into a CDF. Linear argmin over
    the k cursors (cheaper than a heap for the short queries of interest): O(T k).
    ``cur`` (k,) int64 is scratch space. Returns T, the number of occurrences written to
    ``out_pos`` / ``out_term``."""
    k = len(starts)
    cur[:] = starts
    n = 0
    while True:
        best, bp = _next_occurrence(pos, cur, ends, k)
        if best < 0:
            break
        out_pos[n] = bp
        out_term[n] = best
        n += 1
        cur[best] += 1
    return n


@jit
def eps_kernel(pos, starts, ends, mask, out_l, out_r):
    """Algorithm 1 (EPS-IF-S) for the terms of ``mask``; returns the number of intervals.

    ``curr[i]`` is the current occurrence of each subquery term. Each step moves the leftmost
    term to its next occurrence; the span ``[min..max]`` is emitted when that next occurrence lies
    beyond the rightmost current occurrence. Linear argmin/argmax over the m terms instead of the
    two heaps of the thesis. Capacity of the outputs: sum of the list lengths suffices."""
    m = 0
    for j in range(len(starts)):
        if (mask >> j) & 1:
            m += 1
    ts = np.empty(m, np.int64)
    m = 0
    for j in range(len(starts)):
        if (mask >> j) & 1:
            ts[m] = j
            m += 1
    if m == 0:
        return 0
    cur = np.empty(m, np.int64)
    occ = np.empty(m, np.int64)
    for a in range(m):
        j = ts[a]
        if starts[j] >= ends[j]:
            return 0  # an absent term: no interval
        cur[a] = starts[j]
        occ[a] = pos[starts[j]]
    inf = np.int64(1) << 62
    n = 0
    while True:
        lo = 0
        hi = 0
        for a in range(1, m):
            if occ[a] < occ[lo]:
                lo = a
            if occ[a] > occ[hi]:
                hi = a
        if occ[hi] >= inf:
            break
        j = ts[lo]
        cur[lo] += 1
        nxt = pos[cur[lo]] if cur[lo] < ends[j] else inf
        if nxt > occ[hi]:
            out_l[n] = occ[lo]
            out_r[n] = occ[hi]
            n += 1
        occ[lo] = nxt
    return n


@jit(inline=True)
def _lps_scan(cdf_pos, cdf_term, mask, tf, out_l, out_r):
    """Algorithm 2 (LPS) over a CDF or a direct file, for the terms of ``mask``.

    ``latest[t]`` is the CDF index of the live (not yet voided) latest occurrence of term t, or
    -1. When every subquery term is live, the leftmost live occurrence and the current one bound
    an optimal interval; the left one is then voided (spec §4.2: the pseudocode, not the prose,
    is right). The argmin is a pointer that only moves forward past dead or non-query entries,
    so the scan is amortised O(T). Tokens whose id is outside 0..63 or not in ``mask`` are
    skipped.

    ``tf``: empty, or (64,) int64 occurrence counts of the local terms in the input (the TF
    counters of Lu 2018, §3.3.2). With counts the scan stops as soon as a voided term has no
    occurrence left (no later interval can contain it), and returns at once when a subquery
    term has none; over a direct file this skips the document's tail. Same output either way.
    Returns the number of intervals."""
    m = 0
    for j in range(64):
        if (mask >> j) & 1:
            m += 1
    counted = len(tf) > 0
    left = np.zeros(64, np.int64)
    if counted:
        for j in range(64):
            if (mask >> j) & 1:
                left[j] = tf[j]
                if tf[j] <= 0:
                    return 0
    latest = np.full(64, -1, np.int64)
    nlive = 0
    ptr = 0
    n = 0
    for e in range(len(cdf_pos)):
        t = cdf_term[e]
        if t < 0 or t > 63 or ((mask >> t) & 1) == 0:
            continue
        if latest[t] < 0:
            nlive += 1
        latest[t] = e
        left[t] -= 1
        if nlive == m:
            while True:
                u = cdf_term[ptr]
                if u >= 0 and u <= 63 and ((mask >> u) & 1) == 1 and latest[u] == ptr:
                    break
                ptr += 1
            out_l[n] = cdf_pos[ptr]
            out_r[n] = cdf_pos[e]
            n += 1
            u = cdf_term[ptr]
            latest[u] = -1
            nlive -= 1
            ptr += 1
            if counted and left[u] <= 0:
                break                   # u is voided and never occurs again
    return n


@jit
def lps_kernel(cdf_pos, cdf_term, mask, out_l, out_r):
    """Algorithm 2 (LPS) over a CDF or a direct file, for the terms of ``mask``, without TF
    counters (:func:`_lps_scan`). Returns the number of intervals."""
    return _lps_scan(cdf_pos, cdf_term, mask, np.zeros(0, np.int64), out_l, out_r)


@jit
def lps_tf_kernel(cdf_pos, cdf_term, mask, tf, out_l, out_r):
    """Algorithm 2 with the TF counters of §3.3.2 (:func:`_lps_scan`; ``tf`` (64,) int64, the
    occurrence count of every local term in the input): LPS-DF-S as the thesis describes it
    over a frequency-carrying index. Returns the number of intervals."""
    return _lps_scan(cdf_pos, cdf_term, mask, tf, out_l, out_r)


@jit
def lps_if_kernel(pos, starts, ends, mask, out_l, out_r):
    """LPS-IF-S in one call: the CDF merge of the position lists, then Algorithm 2 with TF
    counters (the list lengths) -- the single-subquery method of Table 3.6 whose CDF comes from
    the inverted file. Outputs as :func:`eps_kernel`."""
    cp, ct, T = _cdf_of(pos, starts, ends)
    tf = np.zeros(64, np.int64)
    for j in range(min(len(starts), 64)):
        tf[j] = ends[j] - starts[j]
    return _lps_scan(cp[:T], ct[:T], mask, tf, out_l, out_r)


@jit(inline=True)
def _later_terms(latest, k, lp):
    """Bitmask of the local terms ``i < k`` whose latest occurrence lies after ``lp``."""
    S = np.int64(0)
    for i in range(k):
        if latest[i] > lp:
            S |= np.int64(1) << i
    return S


@jit(inline=True)
def _emit_subsets(base, S, lp, rp, ls, rs, out_mask, out_l, out_r, out_ls, out_rs, n):
    """Emit the interval ``[lp, rp]`` (left term ``ls``, right term ``rs``) once for every
    subquery ``base | sub``, ``sub`` running over the subsets of ``S`` from ``S`` down to 0
    (``S = 0``: ``base`` alone); entries at or beyond the buffers' capacity are counted, not
    written. Returns the new count."""
    cap = len(out_mask)
    sub = S
    while True:
        if n < cap:
            out_mask[n] = base | sub
            out_l[n] = lp
            out_r[n] = rp
            out_ls[n] = ls
            out_rs[n] = rs
        n += 1
        if sub == 0:
            break
        sub = (sub - 1) & S
    return n


@jit(inline=True)
def _emit_ending_at(latest, k, rs, rpos, pairs_only, out_mask, out_l, out_r, out_ls, out_rs,
                    n):
    """Algorithm 3's emissions for the occurrence of local term ``rs`` at ``rpos``: every term
    ``ls`` whose latest occurrence ``lp`` lies after the previous occurrence of ``rs`` pairs
    with it, extended by every subset of the terms seen inside ``(lp, rpos)`` (not with
    ``pairs_only``); then ``rpos`` becomes the latest occurrence of ``rs``. Returns the new
    count."""
    crs = latest[rs]
    for ls in range(k):
        lp = latest[ls]
        if lp > crs:
            base = (np.int64(1) << ls) | (np.int64(1) << rs)
            S = np.int64(0) if pairs_only else _later_terms(latest, k, lp)
            n = _emit_subsets(base, S, lp, rpos, ls, rs, out_mask, out_l, out_r, out_ls, out_rs,
                              n)
    latest[rs] = rpos
    return n


@jit
def lps_if_all_kernel(pos, starts, ends, pairs_only, out_mask, out_l, out_r, out_ls, out_rs):
    """Algorithm 3 (LPS-IF-A), merging the k position lists on the fly.

    For each occurrence (rsym at rpos) in position order, every term ``ls`` whose latest
    occurrence lies after the previous occurrence of rsym is a left partner at ``lpos``; every
    subset of the terms whose latest occurrence lies strictly inside (lpos, rpos) extends the pair
    into a further optimal interval with the same ends. ``pairs_only`` emits only the pairs
    (the empty subset). Emissions go to the five ``out_*`` arrays while they fit; the return
    value is the total number of emissions, so a caller whose buffers were too small grows them
    and runs again. Per subquery, emissions come in increasing start and end.
    Cost O(T k^2 + |intervals|)."""
    k = len(starts)
    cur = starts.copy()
    latest = np.full(k, -1, np.int64)  # -1 stands for minus infinity (positions are >= 0)
    n = 0
    while True:
        rs, rpos = _next_occurrence(pos, cur, ends, k)
        if rs < 0:
            break
        n = _emit_ending_at(latest, k, rs, np.int64(rpos), pairs_only, out_mask, out_l, out_r,
                            out_ls, out_rs, n)
        cur[rs] += 1
    return n


@jit(inline=True)
def lps_cdf_all_kernel(
    cdf_pos, cdf_term, latest, pairs_only, out_mask, out_l, out_r, out_ls, out_rs
):
    """Algorithm 3's emission rule driven by a prebuilt CDF instead of an on-the-fly merge:
    same output, same order as :func:`lps_if_all_kernel` (used by the fused model kernels,
    which build the CDF anyway for phrase matching). ``latest`` (k,) int64 is scratch space,
    k = number of local term ids."""
    k = len(latest)
    latest[:] = -1
    n = 0
    for e in range(len(cdf_pos)):
        rs = cdf_term[e]
        rpos = cdf_pos[e]
        n = _emit_ending_at(latest, k, rs, np.int64(rpos), pairs_only, out_mask, out_l, out_r,
                            out_ls, out_rs, n)
    return n


@jit(inline=True)
def eps_cdf_all_kernel(cdf_pos, cdf_term, pairs_only, out_mask, out_l, out_r, out_ls, out_rs):
    """Algorithm 4 (EPS-CDF-A) over a CDF of local term ids ``0..k-1``.

    For each left end ``l`` (a CDF index) scan right until the next copy of the left term; the
    first occurrence of each other term met on the way is a right end, combined with every subset
    of the distinct terms already met (``seen``, a bitmask). Emits document positions, loops over
    CDF indices (the spec's [R] fix). Buffers and return value as in
    :func:`lps_if_all_kernel`. Per subquery, emissions come in increasing start.
    Cost O(T k + |intervals|) plus the subset enumeration."""
    T = len(cdf_pos)
    n = 0
    for l in range(T - 1):
        ls = cdf_term[l]
        lp = cdf_pos[l]
        seen = np.int64(0)
        r = l + 1
        while r < T and cdf_term[r] != ls:
            rs = cdf_term[r]
            bit = np.int64(1) << rs
            if (seen & bit) == 0:
                base = (np.int64(1) << ls) | bit
                n = _emit_subsets(base, np.int64(0) if pairs_only else seen, np.int64(lp),
                                  np.int64(cdf_pos[r]), ls, rs, out_mask, out_l, out_r, out_ls,
                                  out_rs, n)
                seen |= bit
            r += 1
    return n


# ---------------------------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# multi-pass baselines: one single-subquery pass per subquery (Lu 2018, §3.4's comparison)
# ---------------------------------------------------------------------------------------------


@jit(inline=True)
def _total_length(starts, ends):
    """The number of occurrences in the lists ``starts[j]:ends[j]``."""
    tot = 0
    for j in range(len(starts)):
        tot += ends[j] - starts[j]
    return tot


@jit(inline=True)
def _cdf_of(pos, starts, ends):
    """The CDF of the position lists (:func:`merge_cdf_kernel` into fresh arrays):
    ``(cdf_pos, cdf_term, T)``, the first T entries valid."""
    tot = _total_length(starts, ends)
    cp = np.empty(max(tot, 1), np.int32)
    ct = np.empty(max(tot, 1), np.int32)
    T = merge_cdf_kernel(pos, starts, ends, cp, ct, np.empty(len(starts), np.int64))
    return cp, ct, T


@jit(inline=True)
def _multi_pass(pos, starts, ends, pairs_only, use_cdf, out_mask, out_l, out_r):
    """One single-subquery pass per subquery of >= 2 terms (two-term ones only when
    ``pairs_only``), masks in increasing order: Algorithm 1 over the position lists, or (with
    ``use_cdf``) Algorithm 2 over their CDF merged once."""
    k = len(starts)
    cap = len(out_mask)
    if use_cdf:
        cp, ct, T = _cdf_of(pos, starts, ends)
    else:                                       # no CDF: Algorithm 1 reads the lists
        cp = ct = np.empty(1, np.int32)
        T = _total_length(starts, ends)
    bl = np.empty(max(T, 1), np.int32)
    br = np.empty(max(T, 1), np.int32)
    n = 0
    for m in range(3, 1 << k):
        c = 0
        for j in range(k):
            c += (m >> j) & 1
        if c < 2 or (pairs_only and c != 2):
            continue
        if use_cdf:
            got = lps_kernel(cp[:T], ct[:T], np.int64(m), bl, br)
        else:
            got = eps_kernel(pos, starts, ends, np.int64(m), bl, br)
        for i in range(got):
            if n < cap:
                out_mask[n] = m
                out_l[n] = bl[i]
                out_r[n] = br[i]
            n += 1
    return n


@jit
def eps_if_multi_kernel(pos, starts, ends, pairs_only, out_mask, out_l, out_r):
    """EPS-IF-S* (the multi-pass baseline of Lu 2018, §3.4): Algorithm 1 run once per subquery
    of >= 2 terms (only the two-term ones when ``pairs_only``), masks in increasing
    order. Writes at most ``len(out_mask)`` intervals; returns the number found (call again
    with larger buffers when it exceeds the capacity)."""
    return _multi_pass(pos, starts, ends, pairs_only, False, out_mask, out_l, out_r)


@jit
def lps_cdf_multi_kernel(pos, starts, ends, pairs_only, out_mask, out_l, out_r):
    """LPS-CDF-S* (multi-pass baseline): the CDF is merged once, then Algorithm 2 runs once per
    subquery of >= 2 terms (pairs only when ``pairs_only``). Same outputs as
    :func:`eps_if_multi_kernel`."""
    return _multi_pass(pos, starts, ends, pairs_only, True, out_mask, out_l, out_r)


@jit
def eps_cdf_all_if_kernel(pos, starts, ends, pairs_only, out_mask, out_l, out_r, out_ls,
                          out_rs):  # fmt: skip
    """EPS-CDF-A from position lists in one call: the CDF merge, then Algorithm 4 (the timing
    study's single-pass method that includes its CDF build). Outputs as
    :func:`eps_cdf_all_kernel`."""
    cp, ct, T = _cdf_of(pos, starts, ends)
    return eps_cdf_all_kernel(cp[:T], ct[:T], pairs_only, out_mask, out_l, out_r, out_ls,
                              out_rs)


def _run_multi(kernel, pl, pairs_only: bool) -> IntervalSet:
    _check_all(len(pl))
    flat, starts, ends = _flatten(pl)
    cap = max(4 * len(flat), 16)
    while True:
        bufs = (np.empty(cap, np.int64), np.empty(cap, np.int32), np.empty(cap, np.int32))
        n = kernel(flat, starts, ends, pairs_only, *bufs)
        if n <= cap:
            return IntervalSet(bufs[0][:n].copy(), bufs[1][:n].copy(), bufs[2][:n].copy())
        cap = n


def eps_if_multi(pos_lists, pairs_only: bool = False) -> IntervalSet:
    """Multi-pass baseline EPS-IF-S*: :func:`eps` once per subquery (>= 2 terms). Same
    intervals as :func:`lps_if_all` (emission order: by mask, then start)."""
    return _run_multi(eps_if_multi_kernel, as_position_lists(pos_lists), pairs_only)


def lps_cdf_multi(pos_lists, pairs_only: bool = False) -> IntervalSet:
    """Multi-pass baseline LPS-CDF-S*: one CDF, then :func:`lps` once per subquery. Same
    intervals as :func:`lps_if_all` (emission order: by mask, then start)."""
    return _run_multi(lps_cdf_multi_kernel, as_position_lists(pos_lists), pairs_only)


def build_cdf(pos_lists) -> CDF:
    """Merge per-term position lists (IF view) into a :class:`CDF`."""
    pl = as_position_lists(pos_lists)
    flat, starts, ends = _flatten(pl)
    out_pos = np.empty(len(flat), np.int32)
    out_term = np.empty(len(flat), np.int32)
    n = merge_cdf_kernel(flat, starts, ends, out_pos, out_term, np.empty(len(pl), np.int64))
    return CDF(out_pos[:n], out_term[:n])


def direct_file_cdf(doc_terms) -> CDF:
    """A direct file (local term id per token, anything outside 0..63 = non-query token, e.g.
    -1) viewed as a CDF with ``pos = arange(len(doc_terms))``, for :func:`lps` (LPS-DF-S)."""
    t = np.ascontiguousarray(doc_terms, dtype=np.int32).ravel()
    return CDF(np.arange(len(t), dtype=np.int32), t)


def _pairs(n_l, out_l, out_r):
    return np.stack([out_l[:n_l], out_r[:n_l]], axis=1).astype(np.int32)


def eps(pos_lists, mask: int) -> np.ndarray:
    """Algorithm 1 (EPS-IF-S): optimal intervals of subquery ``mask`` from per-term position
    lists. Returns (n, 2) int32 rows ``(start, end)`` sorted by start. A term of the mask with
    no occurrence (or beyond the lists) gives no interval."""
    pl = as_position_lists(pos_lists)
    if mask >> len(pl):
        return np.zeros((0, 2), np.int32)
    flat, starts, ends = _flatten(pl)
    cap = max(len(flat), 1)
    out_l = np.empty(cap, np.int32)
    out_r = np.empty(cap, np.int32)
    n = eps_kernel(flat, starts, ends, np.int64(mask), out_l, out_r)
    return _pairs(n, out_l, out_r)


def lps(cdf: CDF, mask: int, tf_counters: bool = False) -> np.ndarray:
    """Algorithm 2 (LPS): optimal intervals of subquery ``mask`` from a :class:`CDF` (LPS-IF-S
    when the CDF was merged from the lists, LPS-DF-S on :func:`direct_file_cdf`). Returns
    (n, 2) int32 rows sorted by start. Requires ``mask < 2**63`` (term ids 0..62).
    ``tf_counters``: count each term's occurrences first and stop the scan early (Lu 2018,
    §3.3.2; :func:`lps_tf_kernel`); the intervals are the same."""
    if not 0 < mask < (1 << 63):
        raise ValueError("mask must be a non-empty bitmask over term ids 0..62")
    cap = max(len(cdf), 1)
    out_l = np.empty(cap, np.int32)
    out_r = np.empty(cap, np.int32)
    if tf_counters:
        t = cdf.term[(cdf.term >= 0) & (cdf.term <= 63)]
        tf = np.bincount(t, minlength=64).astype(np.int64)[:64]
        n = lps_tf_kernel(cdf.pos, cdf.term, np.int64(mask), tf, out_l, out_r)
    else:
        n = lps_kernel(cdf.pos, cdf.term, np.int64(mask), out_l, out_r)
    return _pairs(n, out_l, out_r)


def _run_all(kernel, args, guess: int, pairs_only: bool) -> IntervalSet:
    cap = max(guess, 16)
    while True:
        bufs = (
            np.empty(cap, np.int64),
            np.empty(cap, np.int32),
            np.empty(cap, np.int32),
            np.empty(cap, np.int32),
            np.empty(cap, np.int32),
        )
        n = kernel(*args, pairs_only, *bufs)
        if n <= cap:
            return IntervalSet(bufs[0][:n].copy(), bufs[1][:n].copy(), bufs[2][:n].copy())
        cap = n


def _check_all(k: int):
    if k > MAX_ALL_TERMS:
        raise ValueError(
            f"all-subquery enumeration supports at most {MAX_ALL_TERMS} terms, got {k}"
        )


def lps_if_all(pos_lists, pairs_only: bool = False) -> IntervalSet:
    """Algorithm 3 (LPS-IF-A): every optimal interval of every subquery (>= 2 terms) in one
    pass over the per-term position lists. ``pairs_only`` restricts the output to two-term
    subqueries. Emission order: by end position."""
    pl = as_position_lists(pos_lists)
    _check_all(len(pl))
    flat, starts, ends = _flatten(pl)
    return _run_all(lps_if_all_kernel, (flat, starts, ends), 4 * len(flat), pairs_only)


def eps_cdf_all(source, pairs_only: bool = False) -> IntervalSet:
    """Algorithm 4 (EPS-CDF-A): the output of :func:`lps_if_all`, computed from a :class:`CDF`
    (``source`` may also be per-term position lists, merged first). Emission order: by start."""
    cdf = source if isinstance(source, CDF) else build_cdf(source)
    k = int(cdf.term.max()) + 1 if len(cdf) else 0
    _check_all(k)
    if len(cdf) and cdf.term.min() < 0:
        raise ValueError("a CDF for EPS-CDF-A holds query-term occurrences only (ids >= 0)")
    return _run_all(eps_cdf_all_kernel, (cdf.pos, cdf.term), 4 * len(cdf), pairs_only)


def term_density(pos_lists, doclen: int) -> float:
    """alpha_{Q,D} = T_{Q,D} / |D| (spec §0)."""
    T = sum(len(p) for p in pos_lists)
    return T / doclen if doclen > 0 else 0.0


@dataclass(frozen=True)
class IntervalThresholds:
    """Thresholds of :func:`choose_method`.

    ``alpha_single``: term density from which LPS over the CDF replaces EPS over the position
    lists for one subquery (``None``: never). ``alpha_all`` / ``k_all``: EPS-CDF-A replaces
    LPS-IF-A for all subqueries when ``alpha >= alpha_all`` or ``k >= k_all`` (``None``: that
    half of the rule never fires). ``source``: ``"thesis"`` (:data:`THESIS_THRESHOLDS`, Lu
    2018's constants) or ``"measured"`` (:mod:`tiebreak.retrieval.interval_calibration`, with
    ``details`` naming the machine and the date). Every method is exact: the thresholds change
    the speed of interval finding, never its output.
    """

    alpha_single: float | None
    alpha_all: float | None
    k_all: int | None
    source: str = "thesis"
    details: dict | None = None

    def to_json(self) -> dict:
        """The manifest entry (:data:`MANIFEST_KEY`): a JSON object of plain numbers."""
        out = {"alpha_single": self.alpha_single, "alpha_all": self.alpha_all,
               "k_all": self.k_all, "source": self.source}
        if self.details:
            out["details"] = self.details
        return out

    @classmethod
    def from_json(cls, obj) -> IntervalThresholds:
        """Inverse of :meth:`to_json`. Raises ValueError naming the bad field: a missing
        ``alpha_single`` / ``alpha_all`` / ``k_all`` (null means never), an unknown field, a
        value of the wrong type or range (NaN included), a ``source`` other than ``"thesis"``
        / ``"measured"``."""
        if not isinstance(obj, dict):
            raise ValueError(f"{MANIFEST_KEY}: expected an object, got {obj!r}")
        missing = [f for f in ("alpha_single", "alpha_all", "k_all") if f not in obj]
        if missing:     # null is "never"; an absent field is a damaged entry, not "never"
            raise ValueError(f"{MANIFEST_KEY}: missing field {missing[0]!r} (null for never)")
        extra = sorted(set(obj) - {"alpha_single", "alpha_all", "k_all", "source", "details"})
        if extra:
            raise ValueError(f"{MANIFEST_KEY}: unknown field {extra[0]!r}")
        for f in ("alpha_single", "alpha_all"):
            v = obj.get(f)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)
                                  or not 0.0 <= v <= 1.0):
                raise ValueError(f"{MANIFEST_KEY}.{f}: expected null or a number in [0, 1], "
                                 f"got {v!r}")
        v = obj.get("k_all")
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 2):
            raise ValueError(f"{MANIFEST_KEY}.k_all: expected null or an integer >= 2, got {v!r}")
        src = obj.get("source", "measured")
        if src not in ("thesis", "measured"):
            raise ValueError(f"{MANIFEST_KEY}.source: expected 'thesis' or 'measured', got "
                             f"{src!r}")
        det = obj.get("details")
        if det is not None and not isinstance(det, dict):
            raise ValueError(f"{MANIFEST_KEY}.details: expected an object, got {det!r}")
        a1, a2 = obj.get("alpha_single"), obj.get("alpha_all")
        return cls(None if a1 is None else float(a1), None if a2 is None else float(a2),
                   obj.get("k_all"), src, det)


#: Lu (2018)'s constants (§3.3.4, §3.4.6): α = 0.15 for both choices, k >= 7.
THESIS_THRESHOLDS = IntervalThresholds(ALPHA_DENSE, ALPHA_DENSE, K_DENSE, "thesis")


def index_thresholds(index) -> IntervalThresholds:
    """The thresholds stored in ``index``'s manifest (optional metadata under
    :data:`MANIFEST_KEY`), else :data:`THESIS_THRESHOLDS`: an index built without
    ``--calibrate-intervals`` (or before calibration existed), a sharded index, or any object
    without a ``manifest`` falls back to the thesis's constants. Raises
    :class:`~tiebreak.index.manifest.IndexFormatError` for a malformed entry."""
    m = getattr(index, "manifest", None)
    if not isinstance(m, dict) or MANIFEST_KEY not in m:
        return THESIS_THRESHOLDS
    entry = m[MANIFEST_KEY]            # present but null: malformed, as any other non-object
    cache = getattr(index, "_cache", None)
    if isinstance(cache, dict) and "interval_thresholds" in cache:
        return cache["interval_thresholds"]
    try:
        th = IntervalThresholds.from_json(entry)
    except ValueError as e:
        from ..index.manifest import IndexFormatError

        raise IndexFormatError(f"{getattr(index, 'path', 'index')}/manifest.json: {e}; run "
                               "'tiebreak index --calibrate-intervals INDEX' again") from None
    if isinstance(cache, dict):
        cache["interval_thresholds"] = th
    return th


def choose_method(k: int, alpha: float, all_subqueries: bool,
                  thresholds: IntervalThresholds | None = None) -> str:
    """Choose the input representation and algorithm for one query (spec §3.3, §6.4).

    ``thresholds``: measured on this machine and stored with the index
    (:func:`index_thresholds`; ``tiebreak index --calibrate-intervals``), default
    :data:`THESIS_THRESHOLDS` (Lu 2018, §3.3.3-§3.3.4 and §3.4.6, with the thesis's α
    examples). The rule:

    * single subquery: the inverted file with EPS (``"eps"``) unless the term density
      ``alpha = T_{Q,D}/|D|`` is at least ``alpha_single`` (thesis: 0.15); then the CDF with
      LPS (``"lps"``). Table 3.6 has the IF methods faster at the median and the direct-file
      LPS best at high α; the thesis's examples favouring LPS have α = 0.16, 0.19 and 0.35.
    * all subqueries: LPS-IF-A (``"lps_if_all"``), the faster one at the median of Table 3.7
      for every k, unless α >= ``alpha_all`` or k >= ``k_all`` (thesis: 0.15 and 7); then
      EPS-CDF-A (``"eps_cdf_all"``), whose worst case is far tighter (Table 3.7 maxima) and
      whose O(Tk) scan avoids LPS-IF-A's O(Tk^2) inner loop on long queries.

    Every method is exact: the choice changes speed only. Over an index, callers estimate
    alpha per query as sum_q cf_q / sum of the lengths of the candidate documents (the mean
    density), so that one representation serves the whole query.
    """
    th = THESIS_THRESHOLDS if thresholds is None else thresholds
    if all_subqueries:
        dense = th.alpha_all is not None and alpha >= th.alpha_all
        long_q = th.k_all is not None and k >= th.k_all
        return "eps_cdf_all" if (dense or long_q) else "lps_if_all"
    return "lps" if (th.alpha_single is not None and alpha >= th.alpha_single) else "eps"


def optimal_intervals(pos_lists, mask: int, doclen: int | None = None, method: str = "auto",
                      thresholds: IntervalThresholds | None = None):
    """Optimal intervals of one subquery; ``method`` is ``"eps"``, ``"lps"`` or ``"auto"``
    (:func:`choose_method` with ``thresholds``, ``doclen`` defaulting to the last position +
    1)."""
    pl = as_position_lists(pos_lists)
    if method == "auto":
        if doclen is None:
            doclen = max((int(p[-1]) + 1 for p in pl if len(p)), default=0)
        method = choose_method(len(pl), term_density(pl, doclen), False, thresholds)
    if method == "eps":
        return eps(pl, mask)
    if method == "lps":
        return lps(build_cdf(pl), mask)
    raise ValueError(f"unknown method {method!r}")


def all_optimal_intervals(
    pos_lists, doclen: int | None = None, method: str = "auto", pairs_only: bool = False,
    thresholds: IntervalThresholds | None = None,
) -> IntervalSet:
    """Optimal intervals of every subquery; ``method`` is ``"lps_if_all"``, ``"eps_cdf_all"``
    or ``"auto"`` (:func:`choose_method` with ``thresholds``)."""
    pl = as_position_lists(pos_lists)
    if method == "auto":
        if doclen is None:
            doclen = max((int(p[-1]) + 1 for p in pl if len(p)), default=0)
        method = choose_method(len(pl), term_density(pl, doclen), True, thresholds)
    if method == "lps_if_all":
        return lps_if_all(pl, pairs_only)
    if method == "eps_cdf_all":
        return eps_cdf_all(pl, pairs_only)
    raise ValueError(f"unknown method {method!r}")


__all__ = [
    "ALPHA_DENSE",
    "CDF",
    "HAVE_NUMBA",
    "IntervalSet",
    "IntervalThresholds",
    "K_DENSE",
    "MANIFEST_KEY",
    "THESIS_THRESHOLDS",
    "MAX_ALL_TERMS",
    "MAX_TERMS",
    "all_optimal_intervals",
    "as_position_lists",
    "build_cdf",
    "choose_method",
    "direct_file_cdf",
    "eps",
    "eps_cdf_all",
    "eps_if_multi",
    "index_thresholds",
    "jit",
    "lps",
    "lps_cdf_multi",
    "lps_if_all",
    "lps_if_kernel",
    "lps_tf_kernel",
    "mask_of",
    "optimal_intervals",
    "term_density",
    "terms_of",
]
