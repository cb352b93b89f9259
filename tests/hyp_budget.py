"""Example budgets of the slowest property tests (each example evaluates several regimes or
enumerates every ordering in Python). The default keeps the suite under its time budget;
``TIEBREAK_THOROUGH=1`` runs the full number of examples (2.5x), e.g. before a release."""

from __future__ import annotations

import os

THOROUGH = os.environ.get("TIEBREAK_THOROUGH", "") not in ("", "0")


def examples(full: int) -> int:
    """``full`` with TIEBREAK_THOROUGH=1, otherwise 40% of it (at least 20)."""
    return full if THOROUGH else max(20, full * 2 // 5)
