"""Geometric banding of rankings and the worst-case bounds of Yang, Moffat & Turpin (2016).

Source: Yang, Moffat & Turpin, "How Precise Does Document Scoring Need to Be?", AIRS 2016,
Section 4 (Table 2); see ``../shared/spec/tie-aware-metrics.md`` §3.

Bands
-----
A ranking is cut into bands of geometrically growing width: ``b_1 = 1`` and
``b_{g+1} = ceil(rho * b_g)``, so band ``g`` holds ranks ``b_g .. b_{g+1} - 1``. Giving every
document of a band the same score simulates a system whose scores are only precise enough to
tell the bands apart. For ``rho = 2`` the bands are [1], [2, 3], [4..7], ...; ``rho = 1`` makes
every rank its own band.

Exact arithmetic
----------------
``rho`` is handled as an exact rational number. Floating point gets the bands wrong: in doubles
``1 / (1.1 - 1) = 9.999999999999991``, so the closed form ``1 + floor(1 / (rho - 1))`` for the
first band with two documents gives 10 instead of 11 (likewise for 1.05, 1.02, 1.01), and the
float loop for ``rho = 1.1`` yields the band [170..187] instead of [170..186] because
``1.1 * 170 = 187.00000000000003``. Every function here therefore turns ``rho`` (and RBP's ``p``)
into a :class:`fractions.Fraction`: a ``Fraction`` or ``int`` is taken as is, a string is parsed
as a decimal or ``a/b`` fraction (``"1.1"``, ``"11/10"``), and a Python ``float`` stands for its
shortest decimal representation (``1.1`` means 11/10, not the double nearest to it).

Bounds (Table 2)
----------------
Averaging a metric over all orderings inside the bands (the "expected" tie regime) changes it by
at most:

* ΔRR = ``1/b_v - mean(1/j for j in band v)``, where band ``v`` is the first band with two or
  more documents (the first relevant document at the top of band ``v``, the rest of the band not
  relevant). :func:`delta_rr` takes the largest such loss over all bands within the depth, which
  is the one of band ``v``.
* ΔRBP(p) = the sum over bands ``g`` of ``max_t (sum of the first t weights of g - t * W_g/s_g)``
  with weights ``w_j = (1 - p) p^(j-1)``, ``W_g`` their band total and ``s_g`` the band size:
  RBP is linear, so each band independently contributes most when its relevant documents take
  its first slots; the best ``t`` is the number of weights above the band mean.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from ..io import Run

__all__ = [
    "DEFAULT_BOUND_METRICS",
    "DEFAULT_RHOS",
    "BoundsTable",
    "Delta",
    "band_ranges",
    "band_run",
    "band_starts",
    "bounds_table",
    "delta_rbp",
    "delta_rr",
    "exact",
    "first_multi_band",
    "format_run",
    "parse_bound_metric",
    "round_run",
    "round_scores",
]

DEFAULT_RHOS = ("1.1", "1.2", "1.4", "1.7", "2.0")
DEFAULT_BOUND_METRICS = ("RR", "RBP(p=0.5)", "RBP(p=0.85)")


# --------------------------------------------------------------------------------------------
# exact numbers
# --------------------------------------------------------------------------------------------


def exact(x, what: str = "value") -> Fraction:
    """``x`` as an exact :class:`Fraction`.

    ``Fraction``/``int``/``Decimal`` are exact already; a ``str`` is parsed by ``Fraction``
    (``"1.1"``, ``"11/10"``, ``"2"``); a ``float`` stands for its shortest repr (``1.1`` ->
    11/10). Raises ``ValueError`` for text that is not a number and for NaN or infinity,
    ``TypeError`` for other types (``bool`` included).
    """
    if isinstance(x, bool):
        raise TypeError(f"{what} must be a number, not bool")
    if isinstance(x, Fraction):
        return x
    if isinstance(x, numbers.Integral):
        return Fraction(int(x))
    if isinstance(x, Decimal):
        if not x.is_finite():
            raise ValueError(f"{what} must be finite, got {x}")
        return Fraction(x)
    if isinstance(x, numbers.Real):
        f = float(x)
        if not math.isfinite(f):
            raise ValueError(f"{what} must be finite, got {f}")
        return Fraction(repr(f))
    if isinstance(x, str):
        try:
            return Fraction(x.strip())
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{what} {x!r} is not a number (use e.g. 1.1 or 11/10)") from None
    raise TypeError(f"{what} must be a number or a decimal string, not {type(x).__name__}")


def _rho(rho) -> Fraction:
    r = exact(rho, "rho")
    if r < 1:
        raise ValueError(f"rho must be at least 1, got {_label(rho)}")
    return r


def _p(p) -> Fraction:
    q = exact(p, "p")
    if not 0 < q < 1:
        raise ValueError(f"RBP persistence p must lie strictly between 0 and 1, got {_label(p)}")
    return q


def _depth(depth) -> int:
    if isinstance(depth, bool) or not isinstance(depth, numbers.Integral):
        raise TypeError(f"depth must be an integer, not {type(depth).__name__}")
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    return int(depth)


def _label(x) -> str:
    """Short text for a number: strings as given, terminating fractions as decimals."""
    if isinstance(x, str):
        return x.strip()
    if isinstance(x, Fraction):
        d = x.denominator
        while d % 2 == 0:
            d //= 2
        while d % 5 == 0:
            d //= 5
        if d != 1:
            return f"{x.numerator}/{x.denominator}"
        k = 0
        while (x * 10**k).denominator != 1:
            k += 1
        digits = str(abs(x.numerator * 10**k // x.denominator)).rjust(k + 1, "0")
        text = digits if k == 0 else f"{digits[:-k]}.{digits[-k:]}"
        return ("-" if x < 0 else "") + text
    if isinstance(x, float):
        return repr(x)
    return str(x)


# --------------------------------------------------------------------------------------------
# bands
# --------------------------------------------------------------------------------------------


def band_starts(rho, depth: int) -> np.ndarray:
    """First ranks of the geometric bands that cover ranks ``1..depth``.

    Parameters
    ----------
    rho : Fraction, int, str or float
        Growth factor, ``rho >= 1``; converted exactly (see the module docstring).
    depth : int
        Deepest rank to cover, ``>= 0``.

    Returns
    -------
    ndarray, int64, shape (G,)
        ``b_1 = 1 < b_2 < ... < b_G <= depth`` with ``b_{g+1} = ceil(rho * b_g)``; band ``g`` is
        ``b_g .. b_{g+1} - 1`` (the last one cut at ``depth``). Empty when ``depth == 0``.
        ``rho == 1`` gives ``1, 2, ..., depth``.

    Raises
    ------
    ValueError
        ``rho < 1``, ``rho`` not a finite number, or ``depth < 0``.

    Examples
    --------
    >>> band_starts(2, 10).tolist()
    [1, 2, 4, 8]
    """
    r = _rho(rho)
    depth = _depth(depth)
    n, d = r.numerator, r.denominator
    if n == d:
        return np.arange(1, depth + 1, dtype=np.int64)
    # ranks 1 .. floor(1/(rho-1)) are singletons: ceil(rho b) = b + 1 iff (rho - 1) b <= 1
    singles = d // (n - d)
    starts = list(range(1, min(singles, depth) + 1))
    b = singles + 1
    while b <= depth:
        starts.append(b)
        b = -((-n * b) // d)  # ceil(n b / d) in integers
    return np.array(starts, dtype=np.int64)


def band_ranges(rho, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """First and last rank of every band covering ``1..depth``: two int64 arrays (G,).

    The last band is cut at ``depth``. Same arguments and errors as :func:`band_starts`.
    """
    b = band_starts(rho, depth)
    e = np.empty_like(b)
    e[:-1] = b[1:] - 1
    if len(b):
        e[-1] = depth
    return b, e


def first_multi_band(rho) -> int:
    """Index ``v`` of the first band holding two or more ranks, ``1 + floor(1 / (rho - 1))``.

    Bands ``1..v-1`` are singletons, so band ``v`` also starts at rank ``v`` (``b_v = v``).
    Computed exactly: 11, 21, 51, 101 for rho = 1.1, 1.05, 1.02, 1.01 (floating point gives
    10, 20, 50, 100). For ``rho > 2`` it is 1.

    Raises
    ------
    ValueError
        ``rho <= 1`` (``rho == 1`` has no multi-rank band).
    """
    r = _rho(rho)
    if r == 1:
        raise ValueError("rho = 1 makes every rank its own band; there is no multi-rank band")
    return 1 + math.floor(1 / (r - 1))


# --------------------------------------------------------------------------------------------
# Table 2 bounds
# --------------------------------------------------------------------------------------------


class Delta(NamedTuple):
    """A worst-case difference: ``exact`` (Fraction), ``value`` (its float, correctly rounded)
    and, for ΔRR, the band ``(b, e)`` where it is attained (None when no band has two ranks)."""

    exact: Fraction
    value: float
    band: tuple[int, int] | None = None

    def __float__(self) -> float:
        return self.value


def delta_rr(rho, depth: int = 1000) -> Delta:
    """Largest drop in reciprocal rank from averaging over orderings within the bands.

    For a band ``[b, e]`` the worst case puts the first relevant document at rank ``b`` and
    no other relevant document in the band, so the drop is ``1/b - mean_{j=b..e} 1/j``. The
    largest drop over the bands within ``depth`` is the one of the first multi-rank band
    (Yang, Moffat & Turpin 2016, Section 4, Table 2): 1/264 for rho = 1.1, 1/84 for 1.2,
    1/24 for 1.4 and 1/12 for 1.7 and 2.

    Parameters
    ----------
    rho : number or decimal string, >= 1
    depth : int
        Ranks considered (a band is cut at ``depth``).

    Returns
    -------
    Delta
        ``exact`` Fraction, ``value`` float, ``band`` (b, e) attaining it (None, with 0,
        when no band within ``depth`` has two ranks).
    """
    bs, es = band_ranges(rho, depth)
    best, where = Fraction(0), None
    for b, e in zip(bs.tolist(), es.tolist()):
        if e == b:
            continue
        if Fraction(1, b) <= best:  # later bands lose less than 1/b
            break
        loss = Fraction(1, b) - sum(Fraction(1, j) for j in range(b, e + 1)) / (e - b + 1)
        if loss > best:
            best, where = loss, (b, e)
    return Delta(best, float(best), where)


def delta_rbp(rho, p, depth: int = 1000) -> Delta:
    """Largest change in RBP(p) from averaging over orderings within the bands.

    RBP weights rank ``j`` by ``w_j = (1 - p) p^(j-1)``. Each band ``g`` of size ``s_g`` and
    weight ``W_g`` contributes ``max_t (w_{b_g} + ... + w_{b_g+t-1} - t W_g / s_g)`` (its ``t``
    relevant documents in its first slots); the sum over the bands within ``depth`` is ΔRBP of
    Yang, Moffat & Turpin (2016), Section 4, Table 2 (0.0087 for rho = 1.1, p = 0.85).

    Within a band the first ``t`` weights sum to ``p^(b-1) (1 - p^t)``, and the increment from
    ``t`` to ``t + 1`` is positive while ``p^t (1 - p) > (1 - p^s) / s``, so the best ``t`` is
    the number of weights above the band mean (at most ``s // 2``).

    Parameters
    ----------
    rho : number or decimal string, >= 1
    p : number or decimal string, 0 < p < 1
        Converted exactly like ``rho`` (``0.85`` means 17/20).
    depth : int
        Ranks considered (the last band is cut at ``depth``).

    Returns
    -------
    Delta
        ``exact`` Fraction, ``value`` float (``band`` is None).
    """
    q = _p(p)
    bs, es = band_ranges(rho, depth)
    total = Fraction(0)
    for b, e in zip(bs.tolist(), es.tolist()):
        s = e - b + 1
        if s < 2:
            continue
        mean = (1 - q**s) / (s * (1 - q))  # band mean weight / (1-p) p^(b-1)
        t, pt = 0, Fraction(1)
        while t < s and pt > mean:
            t += 1
            pt *= q
        total += q ** (b - 1) * ((1 - pt) - t * (1 - q**s) / s)
    return Delta(total, float(total))


_RR = re.compile(r"^\s*(rr|recip_rank)\s*$", re.I)
_RBP = re.compile(r"^\s*rbp\s*\(\s*(?:p\s*=\s*)?([^()\s]+)\s*\)\s*$", re.I)


def parse_bound_metric(text: str) -> tuple[str, Fraction | None]:
    """``"RR"`` -> ``("RR", None)``; ``"RBP(p=0.85)"`` or ``"RBP(0.85)"`` ->
    ``("RBP(p=0.85)", Fraction(17, 20))``. Raises ``ValueError`` for anything else."""
    if _RR.match(text):
        return "RR", None
    m = _RBP.match(text)
    if m:
        return f"RBP(p={m.group(1)})", _p(m.group(1))
    raise ValueError(f"unknown bound metric {text!r}; use RR or RBP(p=P) with 0 < P < 1")


@dataclass
class BoundsTable:
    """Worst-case differences for several ``rho`` (rows) and metrics (columns).

    Attributes
    ----------
    rhos : list[str]
        Row labels, shape (n_rho,).
    metrics : list[str]
        Column labels (``RR``, ``RBP(p=0.5)``, ...), shape (n_metric,).
    exact : list[list[Fraction]]
        Exact values, ``exact[i][j]`` for rho ``i`` and metric ``j``.
    values : ndarray, float64, shape (n_rho, n_metric)
        The same, correctly rounded to doubles.
    depth : int
    """

    rhos: list[str]
    metrics: list[str]
    exact: list[list[Fraction]]
    values: np.ndarray
    depth: int

    def to_text(self, fmt: str = "table", decimals: int = 4) -> str:
        """``table``: aligned columns rounded to ``decimals``; ``tsv``: header line then one
        tab-separated row per rho with full-precision (repr) floats."""
        if fmt == "tsv":
            rows = ["\t".join(["rho", *self.metrics])]
            rows += ["\t".join([r, *(repr(float(x)) for x in row)])
                     for r, row in zip(self.rhos, self.values)]
            return "\n".join(rows) + "\n"
        if fmt != "table":
            raise ValueError("fmt must be 'table' or 'tsv'")
        cells = [["rho", *self.metrics]]
        cells += [[r, *(f"{x:.{decimals}f}" for x in row)]
                  for r, row in zip(self.rhos, self.values)]
        widths = [max(len(c[j]) for c in cells) for j in range(len(cells[0]))]
        lines = ["  ".join(c.ljust(w) if j == 0 else c.rjust(w)
                           for j, (c, w) in enumerate(zip(row, widths))).rstrip()
                 for row in cells]
        return "\n".join(lines) + "\n"


def bounds_table(rhos=DEFAULT_RHOS, metrics=DEFAULT_BOUND_METRICS,
                 depth: int = 1000, progress=None) -> BoundsTable:
    """Table 2 of Yang, Moffat & Turpin (2016): ΔRR / ΔRBP(p) for every rho and metric.

    Parameters
    ----------
    rhos : sequence of numbers or decimal strings, each >= 1
        Default 1.1, 1.2, 1.4, 1.7, 2.0.
    metrics : sequence of str
        ``RR`` or ``RBP(p=P)``; default RR, RBP(p=0.5), RBP(p=0.85).
    depth : int
        Ranks considered, default 1000 (as in the paper).
    progress : callable, optional
        Called with no argument after each cell (a progress bar's ``update``): the exact
        arithmetic takes time proportional to ``depth`` per cell (minutes at 10**7).

    Raises
    ------
    ValueError
        A bad rho, p or metric name.
    """
    parsed = [parse_bound_metric(m) for m in metrics]
    rs = [_rho(r) for r in rhos]
    def cell(r, p):
        v = delta_rr(r, depth).exact if p is None else delta_rbp(r, p, depth).exact
        if progress is not None:
            progress()
        return v

    ex = [[cell(r, p) for _, p in parsed] for r in rs]
    vals = np.array([[float(x) for x in row] for row in ex], dtype=np.float64).reshape(
        len(rs), len(parsed))
    return BoundsTable([_label(r) for r in rhos], [m for m, _ in parsed], ex, vals, depth)


# --------------------------------------------------------------------------------------------
# banded and rounded runs
# --------------------------------------------------------------------------------------------


def _reference_order(run: Run, order: str) -> np.ndarray:
    """Line permutation: topics in ``run.topics`` order, inside a topic file order, trec_eval
    order (score descending, then docno descending in byte order) or score-rank order (score
    descending, then the rank column ascending, then docno descending; Yang, Moffat & Turpin
    2016, Sect. 3)."""
    if order == "file":
        return np.argsort(run.topic, kind="stable")
    if order == "trec_eval":
        # docid is the docno's rank in byte order, so -docid gives docno descending
        return np.lexsort((-run.docid, -run.score, run.topic))
    if order == "score-rank":
        rk = np.where(np.isnan(run.rank), np.inf, run.rank)
        return np.lexsort((-run.docid, rk, -run.score, run.topic))
    raise ValueError(f"order must be 'file', 'trec_eval' or 'score-rank', got {order!r}")


def _ranks(topic: np.ndarray, n_topics: int) -> np.ndarray:
    """1-based position inside its topic for a topic-sorted array, int64 (n,)."""
    counts = np.bincount(topic, minlength=n_topics)
    first = np.cumsum(counts) - counts
    return np.arange(len(topic), dtype=np.int64) - first[topic] + 1


def _derived(run: Run, ref: np.ndarray, score: np.ndarray, rank: np.ndarray, name: str) -> Run:
    n = len(ref)
    return Run(name, run.source, list(run.topics), run.topic[ref], run.docnos, run.docid[ref],
               score, rank.astype(np.float64), np.arange(1, n + 1, dtype=np.int64), [name], {})


def band_run(run: Run, rho, order: str = "file", name: str | None = None) -> Run:
    """The banded version of a run: equal scores inside each geometric band.

    Per topic the lines are put in the reference ``order`` and ranked 1..n; rank ``r`` in band
    ``g`` (``b_g <= r <= e_g``, see :func:`band_starts`) gets score ``1/g``. So the tied groups
    of the result are exactly the bands (the last one cut at the topic's length).

    Parameters
    ----------
    run : Run
        From :func:`tiebreak.read_run`.
    rho : number or decimal string, >= 1
    order : {"file", "trec_eval", "score-rank"}
        Reference order inside a topic: the file's line order, or trec_eval's (score
        descending, ties by docno descending in byte order).
    name : str, optional
        Name / run tag of the result; default ``<run.name>_rho<rho>``.

    Returns
    -------
    Run
        Lines in output order (topics in order of first appearance, then rank); ``rank`` is
        1..n per topic, ``lineno`` 1..N; docnos unchanged. Write it with :func:`format_run`.

    Raises
    ------
    ValueError
        Bad ``rho`` or ``order``.
    """
    band_starts(rho, 0)  # validates rho before any work
    ref = _reference_order(run, order)
    topic = run.topic[ref]
    rank = _ranks(topic, len(run.topics))
    starts = band_starts(rho, int(rank.max()) if len(rank) else 0)
    g = np.searchsorted(starts, rank, side="right")
    score = 1.0 / g.astype(np.float64)
    return _derived(run, ref, score, rank, name or f"{run.name}_rho{_label(rho)}")


def round_scores(score, digits: int) -> np.ndarray:
    """Scores rounded to ``digits`` significant decimal digits, float64 array.

    Each score is formatted with Python's ``f"{x:.{digits}g}"``, which rounds the exact binary
    value correctly to ``digits`` significant digits, and parsed back with ``float`` (correctly
    rounded). So two scores become equal exactly when their ``digits``-digit decimal forms are
    equal, and the result is the double nearest to that decimal. Rounding is monotone, so the
    order of unequal scores is kept or turned into a tie, never reversed. Each distinct value is
    formatted once.

    Raises
    ------
    ValueError
        ``digits < 1``.
    """
    if isinstance(digits, bool) or not isinstance(digits, numbers.Integral) or digits < 1:
        raise ValueError(f"digits must be an integer >= 1, got {digits!r}")
    s = np.ascontiguousarray(score, dtype=np.float64)
    bits, inv = np.unique(s.view(np.int64), return_inverse=True)  # bitwise: keeps -0.0
    fmt = f".{int(digits)}g"
    rounded = np.array([float(format(x, fmt)) for x in bits.view(np.float64).tolist()],
                       dtype=np.float64)
    return rounded[inv.reshape(-1)]


def round_run(run: Run, digits: int, order: str = "file", name: str | None = None) -> Run:
    """A run with scores rounded to ``digits`` significant digits (deliberate ties).

    Lines are put in the reference ``order`` (as in :func:`band_run`) and ranked 1..n per
    topic; scores are rounded by :func:`round_scores`; docnos are unchanged. ``name`` defaults
    to ``<run.name>_d<digits>``.

    Raises
    ------
    ValueError
        ``digits < 1`` or a bad ``order``.
    """
    score = round_scores(run.score, digits)
    ref = _reference_order(run, order)
    rank = _ranks(run.topic[ref], len(run.topics))
    return _derived(run, ref, score[ref], rank, name or f"{run.name}_d{digits}")


def format_run(run: Run, tag: str | None = None) -> bytes:
    """TREC run text ``qid Q0 docno rank score tag``, one line per entry in array order.

    Docnos and qids are written as the bytes they were read from; scores with ``repr`` (the
    shortest text that reads back to the same double); ranks as integers. ``tag`` defaults to
    ``run.name`` (whitespace replaced by ``_``).

    Raises
    ------
    ValueError
        An empty tag or one with whitespace, or a rank that is not a whole number.
    """
    from ..io.writers import format_trec_run

    return format_trec_run(run, tag)
