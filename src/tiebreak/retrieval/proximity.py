"""Per-document proximity features: Indri window counts for the MRF models and the Lkp
interval, subquery and document-proximity scores of Lu (2018), ch. 4.

Inputs are the per-term position lists of one document (see :mod:`.intervals` for the data
types); query terms are distinct local ids ``0..k-1`` in query order. These functions are the
readable per-document reference; :mod:`.dependency` computes the same quantities inside fused
doc-at-a-time kernels over an index, and the tests check the two agree.

Window semantics (spec ``proximity-retrieval.md`` §1.4, §2.3):

* ``#odN`` / ``#1`` (:func:`count_ordered`): Indri's ordered window. For *every* occurrence of
  the first term, each following term takes its first occurrence after the previous term's; the
  match counts when every step is at most N positions (``p_{i+1} - p_i <= N``). With N = 1 this
  is the exact phrase. Matches are not filtered for overlap (Indri's ``OrderedWindowNode``
  emits one extent per first-term occurrence); for distinct terms and N = 1 they cannot overlap.
* ``#uwN`` (:func:`count_unordered`): windows of length ``last - first + 1 <= N`` that contain
  every term, counted greedily left to right without overlap; for distinct terms this is the
  number of non-overlapping optimal intervals of length <= N, selected after the length filter.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .intervals import all_optimal_intervals, as_position_lists, eps, mask_of, terms_of

#: BM25^(2) parameters reused by the Lkp family (spec §1.2, Table 4.3; §5.4).
K1 = 0.9
B = 0.3
#: Lkp mixing weight of Eq. 4.3 (spec §5.5).
LAMBDA = 0.4
#: Lkpf / FDM window length per subquery term (``4 |Q'|``).
WINDOW_PER_TERM = 4


# ---------------------------------------------------------------------------------------------
# interval selection and window counts
# ---------------------------------------------------------------------------------------------


def non_overlapping(intervals, max_len: int | None = None) -> np.ndarray:
    """Greedy non-overlapping selection of one subquery's intervals (spec §2.4).

    ``intervals``: (n, 2) int ``(start, end)`` rows (any order). Intervals longer than
    ``max_len`` (``end - start + 1 > max_len``) are dropped first; the rest are scanned by start
    and an interval is kept when it starts strictly after the end of the last kept one.
    Returns (m, 2) int32."""
    iv = np.asarray(intervals, dtype=np.int64).reshape(-1, 2)
    if max_len is not None:
        iv = iv[iv[:, 1] - iv[:, 0] + 1 <= max_len]
    iv = iv[np.lexsort((iv[:, 1], iv[:, 0]))]
    kept = []
    last = -1
    for s, e in iv:
        if s > last:
            kept.append((s, e))
            last = e
    return np.array(kept, dtype=np.int32).reshape(-1, 2)


def count_unordered(pos_lists, window: int) -> int:
    """Indri ``#uwN`` count of the (distinct) terms whose position lists are given: the number
    of non-overlapping optimal intervals of length <= ``window`` (spec §1.4 [X]/[V])."""
    pl = as_position_lists(pos_lists)
    if len(pl) == 0 or any(len(p) == 0 for p in pl):
        return 0
    iv = eps(pl, mask_of(range(len(pl))))
    return len(non_overlapping(iv, max_len=window))


def count_ordered(pos_lists, window: int = 1) -> int:
    """Indri ``#odN`` count (``#1`` for ``window=1``) of the terms in the given order.

    For each occurrence of the first term, each later term takes its first occurrence after the
    previous term's occurrence; the match counts when every step ``p_{i+1} - p_i <= window``.
    One match per first-term occurrence at most; no overlap filter (Indri's OrderedWindowNode)."""
    pl = [np.asarray(p, dtype=np.int64) for p in pos_lists]
    if len(pl) == 0 or any(len(p) == 0 for p in pl):
        return 0
    cur = np.zeros(len(pl), np.int64)
    count = 0
    for p0 in pl[0]:
        prev = p0
        ok = True
        for i in range(1, len(pl)):
            while cur[i] < len(pl[i]) and pl[i][cur[i]] <= prev:
                cur[i] += 1
            if cur[i] == len(pl[i]):
                return count  # no later match can complete either
            q = pl[i][cur[i]]
            if q - prev > window:
                ok = False
                break
            prev = q
        if ok:
            count += 1
    return count


def phrase_starts(pos_lists) -> np.ndarray:
    """Start positions of the exact-phrase occurrences (terms adjacent, in list order)."""
    pl = [np.asarray(p, dtype=np.int64) for p in pos_lists]
    if not pl:
        return np.zeros(0, np.int64)
    s = pl[0]
    for i, p in enumerate(pl[1:], start=1):
        s = np.intersect1d(s, p - i, assume_unique=True)
    return s


# ---------------------------------------------------------------------------------------------
# Lkp scores (Eq. 4.1 - 4.3)
# ---------------------------------------------------------------------------------------------


def lkp_interval_score(start, end, w_left, w_right, sub_weights: Sequence[float]):
    """Eq. 4.1: ``w_l * w_r / dbar**2`` with ``dbar = (end - start + 1) / sum_{q in Q'}
    min(w_q, 1)``.

    ``w_left`` / ``w_right``: IDF (``ln(N/f_t)``, spec §1.2 ``w^(2)``) of the terms at the two
    ends; ``sub_weights``: the IDFs of every term of the subquery. ``start``/``end`` may be
    arrays (then ``w_left``/``w_right`` broadcast). Returns 0 where ``sum min(w, 1) <= 0``
    (every term has IDF 0; spec §5.5 ambiguity 3)."""
    s = float(sum(min(float(w), 1.0) for w in sub_weights))
    length = np.asarray(end, dtype=np.float64) - np.asarray(start, dtype=np.float64) + 1.0
    if s <= 0.0:
        return np.zeros_like(length) if length.ndim else 0.0
    out = np.asarray(w_left, dtype=np.float64) * np.asarray(w_right, dtype=np.float64)
    out = out * (s / length) ** 2
    return out if out.ndim else float(out)


def saturation_K(doclen: float, avgdl: float, k1: float = K1, b: float = B) -> float:
    """BM25 length normaliser ``K = k1 * (1 - b + b |D| / avg|D|)``."""
    return k1 * (1.0 - b + b * doclen / avgdl)


def lkp_subquery_score(
    interval_scores, doclen: float, avgdl: float, k1: float = K1, b: float = B
) -> float:
    """Eq. 4.2: ``S (1 + k1) / (S + K)`` with ``S`` the sum of the kept intervals' Eq. 4.1
    scores; 0 when ``S = 0``. Bounded by ``1 + k1``."""
    S = float(np.sum(interval_scores))
    if S <= 0.0:
        return 0.0
    return S * (1.0 + k1) / (S + saturation_K(doclen, avgdl, k1, b))


def contiguous_masks(k: int, max_len: int | None = None) -> list[int]:
    """Bitmasks of the contiguous sub-sequences ``q_i..q_j`` (length >= 2) of a k-term query."""
    out = []
    for i in range(k):
        for j in range(i + 1, k):
            if max_len is None or j - i + 1 <= max_len:
                out.append(mask_of(range(i, j + 1)))
    return out


def lkp_proximity(
    pos_lists,
    weights,
    doclen: float,
    avgdl: float,
    variant: str = "lkp",
    k1: float = K1,
    b: float = B,
) -> tuple[float, float]:
    """The two proximity sums of Eq. 4.3 for one document, before the factor lambda:
    ``(phrase, unordered)``.

    * ``unordered`` = sum over the subqueries of the variant of Eq. 4.2 over their
      non-overlapping optimal intervals (Eq. 4.1 scores). Variants (spec §5.6): ``"lkp"``
      every subquery with >= 2 terms; ``"lkpf"`` the same with intervals longer than ``4 |Q'|``
      (``end - start + 1``) dropped before the non-overlap selection; ``"l2p"`` only the adjacent
      query pairs ``(q_i, q_{i+1})``.
    * ``phrase`` = sum over the contiguous subqueries of the variant (all contiguous
      sub-sequences; for L2p the adjacent pairs) of Eq. 4.2 over their exact-phrase occurrences,
      each scored with Eq. 4.1 with ``|I| = |Q'|``, left end = first query term, right end = last
      (spec §5.5 ambiguity 1, recommended reading).

    ``pos_lists``: k position lists in query order; ``weights``: k IDFs (``ln(N/f_t)``).
    """
    pl = as_position_lists(pos_lists)
    w = np.asarray(weights, dtype=np.float64)
    k = len(pl)
    if k < 2:
        return 0.0, 0.0
    if variant == "l2p":
        allowed = set(contiguous_masks(k, 2))
    elif variant in ("lkp", "lkpf"):
        allowed = None
    else:
        raise ValueError(f"unknown variant {variant!r}")
    phr = 0.0
    for m in contiguous_masks(k, 2 if variant == "l2p" else None):
        ts = terms_of(m)
        starts = phrase_starts([pl[t] for t in ts])
        if len(starts):
            sc = lkp_interval_score(starts, starts + len(ts) - 1, w[ts[0]], w[ts[-1]], w[list(ts)])
            phr += lkp_subquery_score(sc, doclen, avgdl, k1, b)
    unord = 0.0
    ivs = all_optimal_intervals(pl, method="lps_if_all", pairs_only=(variant == "l2p"))
    for m, iv in ivs.by_subquery().items():
        if allowed is not None and m not in allowed:
            continue
        ts = terms_of(m)
        max_len = WINDOW_PER_TERM * len(ts) if variant == "lkpf" else None
        kept = non_overlapping(iv, max_len=max_len)
        if not len(kept):
            continue
        wl = _term_at(pl, ts, kept[:, 0], w)
        wr = _term_at(pl, ts, kept[:, 1], w)
        sc = lkp_interval_score(kept[:, 0], kept[:, 1], wl, wr, w[list(ts)])
        unord += lkp_subquery_score(sc, doclen, avgdl, k1, b)
    return phr, unord


def _term_at(pl, ts, positions, w) -> np.ndarray:
    """IDF of the term (among ``ts``) occurring at each of ``positions``."""
    out = np.zeros(len(positions))
    for t in ts:
        hit = np.isin(positions, pl[t])
        out[hit] = w[t]
    return out


__all__ = [
    "B",
    "K1",
    "LAMBDA",
    "WINDOW_PER_TERM",
    "contiguous_masks",
    "count_ordered",
    "count_unordered",
    "lkp_interval_score",
    "lkp_proximity",
    "lkp_subquery_score",
    "non_overlapping",
    "phrase_starts",
    "saturation_K",
]
