"""Score formats: round a run's scores as a number format would store them.

Dense and late-interaction retrievers score in float16, bfloat16 or int8, and runs are often
written with ``%.4f``; each such format merges scores that full precision keeps apart, and so
creates ties. :func:`round_scores` rounds float64 scores as the format named by a *spec* would,
so that every tie regime can then be evaluated on them:

=================  ===========================================================================
``float64``        unchanged (the reader's precision)
``float32``        IEEE binary32, round-to-nearest-even (trec_eval <= 9.0.8, pytrec_eval)
``float16``        IEEE binary16: 10 mantissa bits, above 65504 (+ half an ulp) to ±inf,
                   subnormals below 2^-14 (as numpy's ``astype(float16)``)
``bfloat16``       8-bit exponent, 7 mantissa bits (as ``ml_dtypes.bfloat16``, rounded once from
                   float64)
``bits:K``         K mantissa bits (1 <= K <= 52) and float64's exponent range
``int8``           a linear grid of 256 levels between each topic's smallest and largest score
                   (min–max scale per topic); scores become the codes -128 .. 127
``int8-global``    the same with one scale for the whole run
``decimals:D``     the value ``%.Df`` prints (0 <= D <= 22), read back
=================  ===========================================================================

A binary floating-point format with m mantissa bits rounds a score to a relative step of at most
2^-m, a geometric band of ratio about ρ = 1 + 2^-m in Yang, Moffat & Turpin's sense (within one
binade): :attr:`ScoreFormat.bits` and :attr:`ScoreFormat.rho`. int8 and ``decimals:D`` are
linear grids, not geometric ones.

Reference: Z. Yang, A. Moffat, A. Turpin. How precise does document scoring need to be?
AIRS 2016, LNCS 9994, pp. 279–291 (geometric bands, ρ).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["FORMAT_NAMES", "WARN_MERGED", "WARN_NAN", "WARN_OVERFLOW", "ScoreFormat",
           "parse_format", "round_scores"]

#: The fixed names; ``bits:K`` and ``decimals:D`` take a number.
FORMAT_NAMES = ("float64", "float32", "float16", "bfloat16", "int8", "int8-global")

WARN_OVERFLOW = "scores beyond the score format's range (now ±inf, or the end codes of int8)"
WARN_NAN = "NaN scores (the score format keeps them NaN)"
WARN_MERGED = "topics whose distinct scores the score format merges into one"

# (mantissa bits, smallest normal exponent, largest exponent) of the binary formats
_BINARY = {"float64": (52, -1022, 1023), "float32": (23, -126, 127),
           "float16": (10, -14, 15), "bfloat16": (7, -126, 127)}


@dataclass(frozen=True)
class ScoreFormat:
    """A parsed score format (see the module's table).

    ``kind`` is ``binary`` (float formats and ``bits:K``), ``int8`` or ``decimals``;
    ``mantissa``, ``emin``, ``emax`` describe a binary format; ``scope`` (``topic`` or
    ``global``) the scale of int8; ``decimals`` the D of ``decimals:D``."""

    name: str
    kind: str
    mantissa: int = 52
    emin: int = -1022
    emax: int = 1023
    scope: str = "topic"
    decimals: int = 0

    @property
    def bits(self) -> float:
        """Mantissa bits m of a binary format (its relative step is at most 2^-m); for int8,
        8; for ``decimals:D``, D·log2(10) (the bits of the linear step 10^-D)."""
        if self.kind == "binary":
            return float(self.mantissa)
        if self.kind == "int8":
            return 8.0
        return self.decimals * float(np.log2(10.0))

    @property
    def rho(self) -> float:
        """The geometric band ratio ρ = 1 + 2^-m a binary format with m mantissa bits is
        comparable to (Yang, Moffat & Turpin 2016); NaN for the linear grids."""
        return 1.0 + 2.0 ** -self.mantissa if self.kind == "binary" else float("nan")

    @property
    def identity(self) -> bool:
        return self.name == "float64"

    def __str__(self) -> str:
        return self.name


def parse_format(spec, option: str = "score_precision") -> ScoreFormat:
    """The :class:`ScoreFormat` named by ``spec`` (a ScoreFormat is returned as is).

    Raises
    ------
    ValueError
        ``spec`` names no format; the message names ``option`` (the parameter or command-line
        option it came from).
    """
    if isinstance(spec, ScoreFormat):
        return spec
    text = str(spec).strip().lower()
    if text in _BINARY:
        m, lo, hi = _BINARY[text]
        return ScoreFormat(text, "binary", m, lo, hi)
    if text in ("int8", "int8-global"):
        return ScoreFormat(text, "int8", scope="global" if text == "int8-global" else "topic")
    head, sep, tail = text.partition(":")
    if sep and head in ("bits", "decimals"):
        try:
            n = int(tail)
        except ValueError:
            n = -1
        top = 52 if head == "bits" else 22
        low = 1 if head == "bits" else 0
        if low <= n <= top:
            if head == "bits":
                return ScoreFormat(f"bits:{n}", "binary", n, -1022, 1023)
            return ScoreFormat(f"decimals:{n}", "decimals", decimals=n)
        raise ValueError(f"{option}: {spec!r}: {head}:N needs a whole number N from {low} "
                         f"to {top}")
    raise ValueError(f"{option}: {spec!r} is not a score format; use one of "
                     f"{', '.join(FORMAT_NAMES)}, bits:K (1-52) or decimals:D (0-22)")


def round_binary(x: np.ndarray, mantissa: int, emin: int, emax: int) -> np.ndarray:
    """``x`` (float64) rounded once, to nearest with ties to even, to a binary floating-point
    format with ``mantissa`` fraction bits, smallest normal exponent ``emin`` (subnormals below
    it keep the step 2^(emin - mantissa)) and largest exponent ``emax`` (magnitudes from the
    largest finite value plus half its ulp become ±inf, as IEEE 754 rounds). Signs of zero,
    infinities and NaN are kept. Returns float64 of the shape of ``x``."""
    x = np.asarray(x, np.float64)
    _, e = np.frexp(x)  # x = f 2^e, 1/2 <= |f| < 1: the leading bit has exponent e - 1
    q = np.maximum(e - 1, emin) - mantissa  # exponent of the last kept bit
    with np.errstate(over="ignore", invalid="ignore"):
        y = np.ldexp(np.rint(np.ldexp(x, -q)), q)  # both scalings exact: powers of two
        top = (2.0 - 2.0 ** -mantissa) * 2.0 ** emax if emax < 1024 else np.inf
        if emax < 1023:
            y = np.where(np.abs(y) > top, np.copysign(np.inf, y), y)
    return y


def _decimals(x: np.ndarray, d: int) -> np.ndarray:
    """``float('%.{d}f' % v)`` of every v of ``x``, vectorized: the nearest integer of
    v·10^d divided by 10^d (correctly rounded, so equal to reading the printed text back), with
    the printed text itself where v·10^d is within rounding error of a half or too large for an
    exact integer."""
    p = 10.0 ** d  # exact for d <= 22
    with np.errstate(over="ignore", invalid="ignore"):
        y = x * p
        n = np.rint(y)
        out = n / p
        frac = np.abs(y - np.floor(y))
        risky = np.isfinite(y) & ((np.abs(frac - 0.5) <= 4 * np.spacing(y))
                                  | (np.abs(y) >= 2.0 ** 52))
    for i in np.flatnonzero(risky):
        out[i] = float(f"{x[i]:.{d}f}")  # the same digits as %.*f
    bad = ~np.isfinite(x)
    if bad.any():
        out[bad] = x[bad]
    return out


def _int8(s: np.ndarray, topic: np.ndarray, n: int, scope: str, bounds=None):
    """The int8 codes (float64, -128 .. 127, NaN kept) of a min–max scale per topic or for the
    whole run (``bounds``: its (lo, hi), default those of ``s``): code = rint((s - lo) /
    (hi - lo) · 255) - 128; ±inf take the end codes."""
    finite = np.isfinite(s)
    if scope == "global":
        if bounds is None:
            f = s[finite]
            bounds = (f.min(), f.max()) if len(f) else (np.inf, -np.inf)
        lo = np.full(n, float(bounds[0]))
        hi = np.full(n, float(bounds[1]))
    else:
        lo, hi = _extrema(s, topic, n, finite)
    a, b = lo[topic], hi[topic]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        span = b - a
        t = np.where(span > 0, (s - a) / np.where(span > 0, span, 1.0) * 255.0, 0.0)
    code = np.rint(t) - 128.0
    code = np.where(np.isnan(s), np.nan, code)
    code = np.where(s == np.inf, 127.0, np.where(s == -np.inf, -128.0, code))
    return code


def round_scores(scores, fmt, topic=None, n_topics: int | None = None, bounds=None
                 ) -> tuple[np.ndarray, dict[str, int]]:
    """Round ``scores`` as the score format ``fmt`` would store them.

    Parameters
    ----------
    scores : array_like float64 (n,)
    fmt : str or ScoreFormat
        A spec (see the module's table).
    topic : ndarray int64 (n,), optional
        Each score's topic index (0 .. n_topics - 1): the scale of ``int8`` and the topics
        merged are per topic. None: one topic.
    n_topics : int, optional
        Default ``topic.max() + 1``.
    bounds : (float, float), optional
        ``int8-global``: the smallest and largest finite score of the whole run when
        ``scores`` is a part of it (default: those of ``scores``).

    Returns
    -------
    rounded : ndarray float64 (n,)
        The rounded scores (for int8, the codes -128 .. 127 as float64).
    warnings : dict str -> int
        Counts, only when non-zero: :data:`WARN_OVERFLOW` (finite scores that became ±inf, or
        ±inf given to int8), :data:`WARN_NAN` (NaN scores) and :data:`WARN_MERGED` (topics
        with two or more distinct scores that all round to one). Empty for ``float64``.

    Raises
    ------
    ValueError
        ``fmt`` names no format, or ``topic`` does not match ``scores``.
    """
    f = parse_format(fmt)
    s = np.asarray(scores, np.float64)
    if f.identity:
        return s, {}
    if topic is None:
        topic = np.zeros(len(s), np.int64)
    topic = np.asarray(topic, np.int64)
    if topic.shape != s.shape:
        raise ValueError(f"topic has shape {topic.shape}, scores {s.shape}")
    n = int(n_topics) if n_topics is not None else (int(topic.max()) + 1 if len(topic) else 0)
    if f.kind == "int8":
        out = _int8(s, topic, n, f.scope, bounds)
        overflow = int(np.isinf(s).sum())
    else:
        if f.name == "float32":
            with np.errstate(over="ignore"):
                out = s.astype(np.float32).astype(np.float64)
        elif f.name == "float16":
            with np.errstate(over="ignore"):
                out = s.astype(np.float16).astype(np.float64)
        elif f.kind == "binary":
            out = round_binary(s, f.mantissa, f.emin, f.emax)
        else:
            out = _decimals(s, f.decimals)
        overflow = int((np.isinf(out) & np.isfinite(s)).sum())
    warn: dict[str, int] = {}
    if overflow:
        warn[WARN_OVERFLOW] = overflow
    nan = int(np.isnan(s).sum())
    if nan:
        warn[WARN_NAN] = nan
    if len(s) and n:
        fin = ~np.isnan(s)
        lo0, hi0 = _extrema(s, topic, n, fin)
        lo1, hi1 = _extrema(out, topic, n, fin)
        merged = int(((hi0 > lo0) & (hi1 == lo1)).sum())
        if merged:
            warn[WARN_MERGED] = merged
    return out, warn


def _extrema(s, topic, n, keep):
    """Smallest and largest of each topic's scores where ``keep`` (+inf / -inf for a topic
    without one)."""
    lo = np.full(n, np.inf)
    hi = np.full(n, -np.inf)
    np.minimum.at(lo, topic[keep], s[keep])
    np.maximum.at(hi, topic[keep], s[keep])
    return lo, hi
