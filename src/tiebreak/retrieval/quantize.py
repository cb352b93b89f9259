"""Impact quantisation: score contributions as small integers.

Two quantisers map a real contribution ``x`` (one posting's share of a document score) to an
integer; the document score is the integer sum, so equal sums are deliberate ties that
``tiebreak eval`` can see.

* ``linear`` (PISA's linear quantiser; Anh, de Kretser & Moffat 2001's uniform method):
  ``q = floor(|x| / M * (L - 1)) + 1`` for ``x != 0`` (0 for ``x == 0``), with the sign of
  ``x``, ``L = 2**bits - 1`` and ``M`` the largest ``|x|`` in the index: codes ``1 .. L``, so
  a non-zero contribution never becomes 0 ("contains the term" is preserved).
* ``geometric`` (Anh & Moffat's left-geometric / logarithmic variant): the ``L`` codes are
  spaced geometrically between the smallest non-zero ``|x|`` (``lo``) and ``M``; code
  ``c = 1 + round((L - 1) * log(|x| / lo) / log(M / lo))`` and the integer added is its
  representative value on a fixed-point scale, ``round(2**16 * (lo / M) ** ((L - c) / (L - 1)))``
  (at least 1), with the sign of ``x``. Relative, not absolute, precision is kept.

References: V. N. Anh, O. de Kretser and A. Moffat, "Vector-space ranking with effective early
termination", SIGIR 2001; A. Mallia, M. Siedlaczek, J. Mackenzie and T. Suel, "PISA: Performant
indexes and search for academia", OSIRRC@SIGIR 2019.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Quantizer", "QUANTIZERS", "FIXED_POINT"]

QUANTIZERS = ("linear", "geometric")
#: fixed-point scale of the geometric variant's representative values
FIXED_POINT = 1 << 16


@dataclass(frozen=True)
class Quantizer:
    """A quantiser fitted to a collection's contributions.

    Parameters
    ----------
    bits : int
        Code width, 1 .. 16.
    kind : str
        ``"linear"`` or ``"geometric"``.
    M : float
        Largest absolute contribution in the index (> 0).
    lo : float
        Smallest non-zero absolute contribution (geometric only; 0 < lo <= M).

    Raises
    ------
    ValueError
        bits outside 1..16, an unknown kind, or a non-positive M.
    """

    bits: int
    kind: str = "linear"
    M: float = 1.0
    lo: float = 1.0

    def __post_init__(self):
        if not 1 <= int(self.bits) <= 16:
            raise ValueError(f"quantize: bits must be 1..16, got {self.bits}")
        if self.kind not in QUANTIZERS:
            raise ValueError(f"quantizer: expected one of {', '.join(QUANTIZERS)}, "
                             f"got {self.kind!r}")
        if not self.M > 0:
            raise ValueError("quantize: the largest contribution must be > 0")

    @property
    def levels(self) -> int:
        return (1 << int(self.bits)) - 1

    @property
    def scale(self) -> float:
        """Integer units per unit of score for additive real terms (the QL length prior)."""
        if self.kind == "linear":
            return (self.levels - 1) / self.M if self.levels > 1 else 1.0 / self.M
        return FIXED_POINT / self.M

    def __call__(self, x) -> np.ndarray:
        """Quantise contributions ``x`` (float64 array) to int32 integers of the same shape."""
        x = np.asarray(x, np.float64)
        a = np.abs(x)
        L = self.levels
        if self.kind == "linear":
            q = np.floor(a / self.M * (L - 1)) + 1.0
            q = np.where(a > 0, np.minimum(q, L), 0.0)
        else:
            lo = min(max(self.lo, np.finfo(float).tiny), self.M)
            span = np.log(self.M / lo)
            with np.errstate(divide="ignore"):
                rel = np.log(np.where(a > 0, a, lo) / lo)
            c = 1.0 + np.rint((L - 1) * rel / span) if span > 0 else np.full(a.shape, float(L))
            c = np.clip(c, 1, L)
            rep = np.rint(FIXED_POINT * np.exp((c - L) / max(L - 1, 1) * span))
            q = np.where(a > 0, np.maximum(rep, 1.0), 0.0)
        return (np.sign(x) * q).astype(np.int32)

    def additive(self, x) -> np.ndarray:
        """Quantise an additive real part (QL's document-length prior) on the same scale:
        ``round(x * scale)`` as int64."""
        return np.rint(np.asarray(x, np.float64) * self.scale).astype(np.int64)

    @classmethod
    def fit(cls, contributions: np.ndarray, bits: int, kind: str = "linear") -> Quantizer:
        """Fit to all contributions of an index (float64 array)."""
        a = np.abs(np.asarray(contributions, np.float64))
        M = float(a.max()) if a.size else 1.0
        nz = a[a > 0]
        lo = float(nz.min()) if nz.size else M
        return cls(int(bits), kind, M if M > 0 else 1.0, lo if lo > 0 else 1.0)
