"""Measuring the interval-method thresholds of :func:`~tiebreak.retrieval.intervals.choose_method`
on this machine (Lu 2018, §3.3.3-§3.3.4 Figs 3.10-3.11 and §3.4.6 Table 3.7 choose between the
inverted file and the (condensed) direct file by the term density α; the thesis's constants,
α = 0.15 and k >= 7, were measured on its C++ code and its machine, not on ours).

:func:`calibrate` times the kernels of :mod:`tiebreak.retrieval.intervals` on synthetic documents
of controlled term density α and query length k (each token a query term with probability α,
the term drawn uniformly from the k; every term present at least once, as in a document a query
retrieves):

* single subquery (the whole query): EPS-IF-S (:func:`~tiebreak.retrieval.intervals.eps_kernel`
  over the position lists) against LPS-IF-S (:func:`~tiebreak.retrieval.intervals.lps_if_kernel`:
  the CDF merged from the lists, then LPS). ``alpha_single`` is the density from which LPS is
  5 % faster (:func:`crossing` of the time ratios of every cell, k = 2, 3, 5, 8);
* all subqueries: LPS-IF-A against EPS-CDF-A (the CDF merge included), for k = 2..8 and 10: per k
  the density from which EPS-CDF-A is 5 % faster; ``k_all`` is the smallest k at which
  EPS-CDF-A is 5 % faster on the geometric mean of the grid's cells, and on the mean of those
  over every longer k measured; ``alpha_all`` the median crossing of the shorter queries.

Each grid cell is one compiled call that runs a method over a batch of documents (no Python
dispatch per document: the thesis's medians are microseconds), timed as the best of a few
repeats (the machine may be shared). A crossing is where a line fitted to log ratio against
log α crosses 0. The whole measurement takes a few seconds; the methods are exact, so the
thresholds change the speed of retrieval, never a score.

Stored in an index manifest (:data:`~tiebreak.retrieval.intervals.MANIFEST_KEY`) by
:func:`store_thresholds` (``tiebreak index SOURCE -o INDEX --calibrate-intervals``, or
``tiebreak index --calibrate-intervals INDEX`` for an existing index), read back by
:func:`~tiebreak.retrieval.intervals.index_thresholds`.
"""

from __future__ import annotations

import math
import platform
import time
from dataclasses import dataclass, field

import numpy as np

from . import intervals as iv

__all__ = ["ALPHAS", "KS_ALL", "KS_SINGLE", "METHODS", "Calibration", "batch_of", "buffers",
           "calibrate", "crossing", "run_batch", "store_thresholds", "synthetic_document",
           "time_cell"]

#: term densities of the grid
ALPHAS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.8)
#: query lengths of the single-subquery and the all-subquery measurements
KS_SINGLE = (2, 3, 5, 8)
KS_ALL = (2, 3, 4, 5, 6, 7, 8, 10)
#: emissions of an all-subquery call above which a cell is skipped (its time is then the
#: subset enumeration, the same for both methods)
_MAX_EMISSIONS = 100_000
#: time ratio under which a method counts as faster (5 %: the two all-subquery methods are
#: within a few per cent of each other on short queries, where the noise of a shared machine
#: would otherwise decide; the default method is kept unless the other is clearly faster)
_FASTER = 0.95
_MARGIN = math.log(_FASTER)


def synthetic_document(k: int, alpha: float, length: int, rng) -> list[np.ndarray]:
    """Position lists (k sorted int32 arrays) of a synthetic document of ``length`` tokens:
    each token is query term ``j`` (uniform over ``0..k-1``) with probability ``alpha``, else a
    non-query token; each term is then placed at least once (at a random non-query position) so
    that every term occurs. ``rng``: a numpy Generator."""
    toks = np.where(rng.random(length) < alpha, rng.integers(0, k, length), -1)
    for j in range(k):
        if not np.any(toks == j):
            free = np.flatnonzero(toks < 0)
            toks[free[rng.integers(0, len(free))] if len(free) else rng.integers(0, length)] = j
    return [np.flatnonzero(toks == j).astype(np.int32) for j in range(k)]


def batch_of(docs):
    """(flat int32, starts (n, k) int64, ends (n, k) int64): the documents' lists in one
    array, document ``d``'s term ``j`` at ``flat[starts[d, j]:ends[d, j]]``."""
    flat = np.concatenate([np.concatenate(pl) for pl in docs]).astype(np.int32)
    lens = np.array([[len(p) for p in pl] for pl in docs], np.int64)
    ends = np.cumsum(lens.ravel()).reshape(lens.shape)
    return flat, ends - lens, ends


#: the methods :func:`run_batch` runs, by code
METHODS = ("EPS-IF-S", "LPS-IF-S", "LPS-IF-A", "EPS-CDF-A", "LPS-DF-S", "LPS-DF-S+TF")


@iv.jit
def _run_batch(method, flat, starts, ends, df_term, df_ptr, out_mask, out_l, out_r, out_ls,
               out_rs):  # fmt: skip
    """Run one method over every document of a batch (codes of :data:`METHODS`): 0 EPS-IF-S,
    1 LPS-IF-S (whole-query mask), 2 LPS-IF-A, 3 EPS-CDF-A (all subqueries, CDF merge
    included), 4 LPS-DF-S and 5 LPS-DF-S with TF counters over the direct file of document
    ``d``, ``df_term[df_ptr[d]:df_ptr[d + 1]]`` (local term id per token, -1 for any other
    term; methods 0-3 ignore it). Returns the total number of intervals (all subqueries:
    emissions, counted beyond the buffers)."""
    n_docs, k = starts.shape
    st = np.empty(k, np.int64)
    en = np.empty(k, np.int64)
    mask = (np.int64(1) << k) - 1
    tf = np.zeros(64, np.int64)
    longest = 0
    for d in range(len(df_ptr) - 1):
        longest = max(longest, df_ptr[d + 1] - df_ptr[d])
    iota = np.arange(longest).astype(np.int32)         # a direct file's positions
    tot = 0
    for d in range(n_docs):
        for j in range(k):
            st[j] = starts[d, j]
            en[j] = ends[d, j]
        if method == 0:
            tot += iv.eps_kernel(flat, st, en, mask, out_l, out_r)
        elif method == 1:
            tot += iv.lps_if_kernel(flat, st, en, mask, out_l, out_r)
        elif method == 2:
            tot += iv.lps_if_all_kernel(flat, st, en, False, out_mask, out_l, out_r, out_ls,
                                        out_rs)
        elif method == 3:
            tot += iv.eps_cdf_all_if_kernel(flat, st, en, False, out_mask, out_l, out_r, out_ls,
                                            out_rs)
        else:
            lo, hi = df_ptr[d], df_ptr[d + 1]
            pos = iota[:hi - lo]
            if method == 5:
                for j in range(k):
                    tf[j] = en[j] - st[j]          # the index's tf of each query term
                tot += iv._lps_scan(pos, df_term[lo:hi], mask, tf, out_l, out_r)
            else:
                tot += iv._lps_scan(pos, df_term[lo:hi], mask, tf[:0], out_l, out_r)
    return tot


_NO_DF = (np.zeros(0, np.int32), np.zeros(1, np.int64))


def run_batch(method: int, batch, bufs, df=_NO_DF) -> int:
    """:func:`_run_batch` over ``batch`` = (flat, starts, ends) with buffers ``bufs``
    (:func:`buffers`) and, for methods 4-5, ``df`` = (df_term int32, df_ptr int64)."""
    return _run_batch(method, *batch, *df, *bufs)


def buffers(cap: int):
    return (np.empty(cap, np.int64), np.empty(cap, np.int32), np.empty(cap, np.int32),
            np.empty(cap, np.int32), np.empty(cap, np.int32))


def time_cell(methods, batch, bufs, repeats: int, df=_NO_DF) -> list[float]:
    """Seconds per document of each method (codes of :data:`METHODS`) on a batch (best of
    ``repeats``, methods interleaved so that a slow moment of a shared machine hits all)."""
    best = [math.inf] * len(methods)
    for _ in range(repeats):
        for i, m in enumerate(methods):
            t = time.perf_counter()
            run_batch(m, batch, bufs, df)
            best[i] = min(best[i], time.perf_counter() - t)
    return [b / len(batch[1]) for b in best]


def crossing(alphas, ratios, below: float = 1.0) -> float | None:
    """The density from which a method is faster: ``ratios[i]`` = its time / the other's at
    density ``alphas[i]``; faster means a ratio under ``below`` (1.0, or e.g. 0.95 for "5 %
    faster"). A least-squares line ``log ratio = a + b log alpha`` (robust to one noisy cell of
    a shared machine) is evaluated over ``[min(alphas), 1]``: 0.0 when it is under
    ``log(below)`` on the whole range (faster everywhere), None when it is not at alpha = 1
    (never faster at high density; a method faster only at *low* density is reported as None
    too, the rule being "from alpha on"), else the alpha where it crosses."""
    la = np.log(np.asarray(alphas, float))
    lr = np.log(np.asarray(ratios, float)) - math.log(below)
    if len(la) == 0:
        return None
    if len(la) == 1 or np.ptp(la) == 0:
        b, a = 0.0, float(lr.mean())
    else:
        b, a = (float(x) for x in np.polyfit(la, lr, 1))
    lo = float(la.min())
    if a + b * lo < 0 and a < 0:       # below at the sparsest point and at alpha = 1
        return 0.0
    if a >= 0 or b >= 0:
        return None
    return float(math.exp(-a / b))


@dataclass
class Calibration:
    """The result of :func:`calibrate`: ``thresholds`` (for the index manifest) and the grid
    it came from: ``single`` {k: [(alpha, eps_ms, lps_ms)]} and ``all`` {k: [(alpha,
    lps_if_a_ms, eps_cdf_a_ms)]} (ms per document; alpha the realised mean density of the
    cell), ``alpha_by_k`` {k: crossing of EPS-CDF-A or None} and the wall time in seconds."""

    thresholds: iv.IntervalThresholds
    single: dict = field(default_factory=dict)
    all: dict = field(default_factory=dict)
    alpha_by_k: dict = field(default_factory=dict)
    seconds: float = 0.0

    def table(self) -> str:
        """The measured thresholds beside the thesis's, as plain text."""
        th, t0 = self.thresholds, iv.THESIS_THRESHOLDS

        def f(x):
            return "never" if x is None else (f"{x:.3f}" if isinstance(x, float) else str(x))

        rows = [("single subquery: LPS-IF-S from alpha >=", th.alpha_single, t0.alpha_single),
                ("all subqueries: EPS-CDF-A from alpha >=", th.alpha_all, t0.alpha_all),
                ("all subqueries: EPS-CDF-A from k >=", th.k_all, t0.k_all)]
        out = [f"{'threshold':<42} {'measured':>9} {'thesis':>7}"]
        out += [f"{name:<42} {f(a):>9} {f(b):>7}" for name, a, b in rows]
        out.append("EPS-CDF-A crossing per k: " + ", ".join(
            f"k={k}: {f(a)}" for k, a in self.alpha_by_k.items()))
        return "\n".join(out)


def calibrate(seed: int = 1, length: int = 2000, docs: int = 10, repeats: int = 5,
              alphas=ALPHAS, ks_single=KS_SINGLE, ks_all=KS_ALL) -> Calibration:
    """Measure the thresholds of :func:`~tiebreak.retrieval.intervals.choose_method` on this
    machine (module docstring): ``docs`` synthetic documents of ``length`` tokens per (k, α)
    cell, each method timed as the best of ``repeats`` runs over the batch. About 2-6 s with
    the defaults (numba's compilation, cached on disk, adds about 10 s on the first run).

    Returns
    -------
    Calibration
        ``thresholds.source == "measured"``, ``thresholds.details`` naming the machine, the
        numba version, the date and the grid's crossings.
    """
    if not iv.HAVE_NUMBA:
        raise RuntimeError("calibrating the interval methods needs numba (pip install "
                           "'tiebreak[search]'); without it the thesis's thresholds apply")
    t_start = time.perf_counter()
    rng = np.random.default_rng(seed)
    cal = Calibration(iv.THESIS_THRESHOLDS)
    bufs = buffers(1 << 16)
    warm = batch_of([synthetic_document(3, 0.1, 50, rng)])
    for m in range(4):                                   # compile (or load) once
        run_batch(m, warm, bufs)
    dens, ratio_single = [], []
    for k in ks_single:
        rows = []
        for a in alphas:
            b = batch_of([synthetic_document(k, a, length, rng) for _ in range(docs)])
            t_eps, t_lps = time_cell((0, 1), b, bufs, repeats)
            dens.append(len(b[0]) / (docs * length))
            ratio_single.append(t_lps / t_eps)
            rows.append((dens[-1], 1e3 * t_eps, 1e3 * t_lps))
        cal.single[k] = rows
    a_single = crossing(dens, ratio_single, _FASTER)
    geo = {}
    for k in ks_all:
        rows, ratios, used = [], [], []
        for a in alphas:
            b = batch_of([synthetic_document(k, a, length, rng) for _ in range(docs)])
            n = run_batch(3, b, bufs) / docs
            if n > _MAX_EMISSIONS:
                break
            if n * docs > len(bufs[0]):             # room for the largest document
                bufs = buffers(int(n * docs) + 1)
            t_lps, t_eps = time_cell((2, 3), b, bufs, repeats)
            rows.append((len(b[0]) / (docs * length), 1e3 * t_lps, 1e3 * t_eps))
            ratios.append(t_eps / t_lps)
            used.append(rows[-1][0])
        cal.all[k] = rows
        cal.alpha_by_k[k] = crossing(used, ratios, _FASTER)
        geo[k] = float(np.mean(np.log(ratios))) if ratios else 0.0
    # k_all: the smallest k at which EPS-CDF-A is 5 % faster on the grid's geometric mean, and
    # on the mean of that over every longer k (pooled: one noisy k does not decide);
    # alpha_all: the shorter queries' median crossing (None counted as never)
    k_all = None
    ks = sorted(ks_all)
    for i, k in enumerate(ks):
        if geo[k] < _MARGIN and float(np.mean([geo[j] for j in ks[i:]])) < _MARGIN:
            k_all = k
            break
    short = [math.inf if a is None else a for k, a in cal.alpha_by_k.items()
             if k_all is None or k < k_all]
    med = float(np.median(short)) if short else math.inf
    a_all = None if math.isinf(med) else med
    cal.seconds = time.perf_counter() - t_start
    details = {
        "machine": platform.machine(), "processor": platform.processor() or platform.machine(),
        "python": platform.python_version(), "numba": _numba_version(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "doc_length": length, "docs_per_cell": docs, "seed": seed,
        "alpha_all_by_k": {str(k): v for k, v in cal.alpha_by_k.items()},
        "seconds": round(cal.seconds, 2),
    }
    cal.thresholds = iv.IntervalThresholds(
        None if a_single is None else min(round(a_single, 4), 1.0),
        None if a_all is None else min(round(a_all, 4), 1.0), k_all, "measured", details)
    return cal


def _numba_version() -> str:
    from .._native.jit import numba

    return str(numba.__version__)


def store_thresholds(path, thresholds: iv.IntervalThresholds) -> None:
    """Write ``thresholds`` into the manifest of the index at ``path`` (optional metadata under
    :data:`~tiebreak.retrieval.intervals.MANIFEST_KEY`; the arrays are untouched). Raises
    :class:`~tiebreak.index.manifest.IndexFormatError` for a directory that is not a
    (single, unsharded) tiebreak index."""
    from ..index.build import set_manifest_entry

    set_manifest_entry(path, iv.MANIFEST_KEY, thresholds.to_json())
