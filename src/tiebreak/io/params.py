"""Ranges of numeric parameters, declared once and used by the API and the command line.

A :class:`Range` is the rule of one parameter (a fusion weight, RRF's ``k``, a model's ``k1``):
finite always, bounds open or closed, whole numbers on request, and the reason for a bound (a
bound is never arbitrary: it is where the computation stops being finite or defined). The API
calls ``spec(name, value)``; the command line wraps the same object in a click type
(:func:`tiebreak.cli.common.range_type`), so both refuse the same values with the same
sentence. :func:`check_finite_scores` is the last guard before a run leaves the program: no
command writes a score that is not a finite number.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

__all__ = ["Range", "check_finite_scores", "FINITE"]


@dataclass(frozen=True)
class Range:
    """A finite number in ``[lo, hi]`` (open ends on request), a whole number if ``integer``.

    ``why`` is appended to the message of a value out of range (the reason of the bound).
    Calling ``spec(name, value)`` returns the value as float (int if ``integer``) or raises
    ValueError: ``"k must be in (-1, inf) (k + rank > 0 at every rank >= 1), got -1.0"``,
    ``"w must be a finite number, got nan"``.
    """

    lo: float = -math.inf
    hi: float = math.inf
    lo_open: bool = False
    hi_open: bool = False
    integer: bool = False
    why: str = ""

    def interval(self) -> str:
        """``[0, 1]``, ``(0, inf)``, ``(-1, inf)``."""
        return (f"{'(' if self.lo_open or not math.isfinite(self.lo) else '['}{self.lo:g}, "
                f"{self.hi:g}{')' if self.hi_open or not math.isfinite(self.hi) else ']'}")

    def __call__(self, name: str, value):
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                pass
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ValueError(f"{name} must be a number, got {value!r}")
        x = float(value)
        if not math.isfinite(x):
            raise ValueError(f"{name} must be a finite number, got {value!r}")
        why = f" ({self.why})" if self.why else ""
        if ((x <= self.lo) if self.lo_open else (x < self.lo)) or \
                ((x >= self.hi) if self.hi_open else (x > self.hi)):
            raise ValueError(f"{name} must be in {self.interval()}{why}, got {value!r}")
        if self.integer and x != int(x):
            raise ValueError(f"{name} must be a whole number, got {value!r}")
        return int(x) if self.integer else x


#: any finite number
FINITE = Range()


def check_finite_scores(run, what: str = "") -> None:
    """Raise :class:`~tiebreak.io.InputError` if a score of ``run`` (a
    :class:`~tiebreak.io.Run`) is NaN or infinite, naming the run, the topic and the docno of
    the first such score and the number of them. ``what`` says where the scores came from
    (``"wsum fusion"``, ``"--norm zmuv"``)."""
    from .source import InputError

    s = np.asarray(run.score)
    bad = np.flatnonzero(~np.isfinite(s))
    if len(bad):
        i = int(bad[0])
        doc = run.docnos[run.docid[i]]
        doc = (doc if isinstance(doc, bytes) else str(doc).encode("latin-1")).decode(
            "utf-8", "backslashreplace")
        src = f" from {what}" if what else ""
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        raise InputError(f"run {run.name}: score {float(s[i])!r}{src} for topic "
                         f"{run.topics[run.topic[i]]}, docno {doc}{more} is not a finite "
                         "number; no run with such a score is written or evaluated")
