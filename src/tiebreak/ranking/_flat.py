"""Segment helpers shared by the flat-array measure kernels (cwl, ntcir, depth, setbased,
diversity).

Every kernel in those modules works on positions of ALL topics at once, sorted by (topic, rank):
``topic`` int64 (n,) non-decreasing in 0..T-1 and ``rank`` int64 (n,) 1-based within the topic.
Per-topic qrels quantities (R, the ideal gain list, grade counts) come in as explicit arguments.
The ideal gain list is passed flat: ``ideal_topic`` int64 (m,) non-decreasing and ``ideal_gain``
float64 (m,) sorted by gain descending within each topic (see :func:`ideal_list`).
"""

from __future__ import annotations

import numpy as np


def tsum(topic: np.ndarray, x: np.ndarray, n_topics: int,
         where: np.ndarray | None = None) -> np.ndarray:
    """Sum of a per-position quantity over each topic, float64 (n_topics,)."""
    if where is None:
        return np.bincount(topic, weights=x, minlength=n_topics).astype(np.float64)
    return np.bincount(topic[where], weights=x[where], minlength=n_topics).astype(np.float64)


def tcount(topic: np.ndarray, mask: np.ndarray, n_topics: int) -> np.ndarray:
    """Number of marked positions per topic, float64 (n_topics,)."""
    return np.bincount(topic[mask], minlength=n_topics).astype(np.float64)


def div(a, b, fill: float = 0.0) -> np.ndarray:
    """Elementwise a / b with ``fill`` where b == 0."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    out = np.full(np.broadcast(a, b).shape, fill, dtype=np.float64)
    np.divide(a, b, out=out, where=b != 0)
    return out


def starts_of(topic: np.ndarray, n_topics: int) -> np.ndarray:
    """Index of the first position of each topic (len(topic) for an empty topic), int64 (T,)."""
    return np.searchsorted(topic, np.arange(n_topics))


def seg_cumsum(x: np.ndarray, topic: np.ndarray, n_topics: int) -> np.ndarray:
    """Inclusive cumulative sum of x restarted at each topic (positions sorted by topic)."""
    x = np.asarray(x, dtype=np.float64)
    if not len(x):
        return x.copy()
    c = np.cumsum(x)
    before = np.r_[0.0, c][starts_of(topic, n_topics)]
    return c - before[topic]


def seg_cumprod_excl(x: np.ndarray, topic: np.ndarray, n_topics: int) -> np.ndarray:
    """Product of x over the EARLIER positions of the same topic (1 at each topic's first).

    Exact for zeros (a zero factor makes every later product 0), unlike exp(cumsum(log)).
    """
    x = np.asarray(x, dtype=np.float64)
    out = np.ones(len(x))
    if not len(x):
        return out
    zero = x == 0
    nz = seg_cumsum(zero.astype(np.float64), topic, n_topics) - zero  # zeros strictly before
    lx = np.log(np.where(zero, 1.0, np.abs(x)))
    lc = seg_cumsum(lx, topic, n_topics) - lx
    neg = x < 0
    sign = 1.0 - 2.0 * ((seg_cumsum(neg.astype(np.float64), topic, n_topics) - neg) % 2)
    out = sign * np.exp(lc)
    out[nz > 0] = 0.0
    return out


def first_per_topic(topic: np.ndarray, mask: np.ndarray, n_topics: int) -> np.ndarray:
    """Index of the first marked position of each topic, -1 when none, int64 (T,)."""
    idx = np.flatnonzero(mask)
    out = np.full(n_topics, -1, dtype=np.int64)
    if len(idx):
        t = topic[idx]
        first = np.r_[True, t[1:] != t[:-1]]
        out[t[first]] = idx[first]
    return out


def dense(topic: np.ndarray, rank: np.ndarray, x: np.ndarray, n_topics: int, depth: int,
          fill: float = 0.0) -> np.ndarray:
    """Per-topic vectors padded to ``depth`` ranks: float64 (n_topics, depth); positions with
    rank > depth are dropped, missing ranks take ``fill``."""
    out = np.full((n_topics, depth), fill, dtype=np.float64)
    m = rank <= depth
    out[topic[m], rank[m] - 1] = np.asarray(x, dtype=np.float64)[m]
    return out


def ideal_list(topic: np.ndarray, gain: np.ndarray, n_topics: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """The ideal gain list of every topic from per-judgment gains (e.g. a qrels' judgments):
    positive gains sorted descending within each topic. Returns (ideal_topic, ideal_gain)."""
    topic = np.asarray(topic, dtype=np.int64)
    gain = np.asarray(gain, dtype=np.float64)
    keep = gain > 0
    t, g = topic[keep], gain[keep]
    o = np.lexsort((-g, t))
    return t[o], g[o]


def ideal_cum_at(ideal_topic: np.ndarray, ideal_gain: np.ndarray, n_topics: int,
                 topic: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Cumulative ideal gain at each position: sum of the ``rank`` largest gains of the
    position's topic (all of them when the ideal list is shorter), float64 (n,)."""
    ic = seg_cumsum(ideal_gain, ideal_topic, n_topics)
    st = starts_of(ideal_topic, n_topics)
    ln = np.bincount(ideal_topic, minlength=n_topics)
    total = np.bincount(ideal_topic, weights=ideal_gain, minlength=n_topics)
    r = np.minimum(rank, ln[topic])
    out = total[topic].astype(np.float64)
    ok = r > 0
    out[ok] = ic[st[topic[ok]] + r[ok] - 1]
    out[~ok] = 0.0
    return out


def ideal_ranks(ideal_topic: np.ndarray, n_topics: int) -> np.ndarray:
    """1-based rank of each ideal-list entry within its topic, int64 (m,)."""
    st = starts_of(ideal_topic, n_topics)
    return np.arange(len(ideal_topic)) - st[ideal_topic] + 1


def within(rank: np.ndarray, k) -> np.ndarray:
    """rank <= k (all True for k None)."""
    if k is None:
        return np.ones(len(rank), bool)
    return rank <= k
