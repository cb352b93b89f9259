"""Input checks shared by the statistics: 1-D finite score vectors and aligned pairs of them
(ValueError naming the argument)."""

from __future__ import annotations

import numpy as np


def _vector(x, name: str, min_len: int = 2) -> np.ndarray:
    v = np.asarray(x, dtype=np.float64)
    if v.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one value per topic or system), got shape {v.shape}")
    if v.size < min_len:
        raise ValueError(f"{name} needs at least {min_len} values, got {v.size}")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return v


def _pair(a, b, what: str = "pairs") -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"a and b must have the same shape, got {a.shape} and {b.shape}")
    if a.ndim != 1:
        raise ValueError(f"a and b must be 1-D, got shape {a.shape}")
    if a.size < 2:
        raise ValueError(f"need at least 2 {what}, got {a.size}")
    for v, name in ((a, "a"), (b, "b")):
        if not np.all(np.isfinite(v)):
            raise ValueError(f"{name} contains NaN or infinite values")
    return a, b
