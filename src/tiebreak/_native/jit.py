"""numba, the one compiler of the retrieval kernels (the index, the search engine, proximity).

Every retrieval and index module imports numba through this module, so that a missing numba is
one clear message naming the extra that installs it. Evaluation and reading never import numba:
their compiled path is the C extension (:mod:`tiebreak._native`), with numpy as the definition and
the fallback. Nothing of numba is patched: its own start-up (about 0.5 s to import, plus its
registries at the first compiled call) is paid by the commands that search or index.
"""

from __future__ import annotations

try:
    import numba
    from numba import njit
except ImportError as e:  # pragma: no cover - the search extra is part of the test install
    raise ImportError("the search engine needs numba: pip install 'tiebreak[search]'") from e

__all__ = ["numba", "njit"]
