"""numba, the one compiler of the retrieval kernels (the index, the search engine, proximity).

Every retrieval and index module imports numba through this module, so that a missing numba is
one clear message naming the extra that installs it. Evaluation and reading never import numba:
their compiled path is the C extension (:mod:`tiebreak._native`), with numpy as the definition and
the fallback. Nothing of numba is patched: its own start-up (about 0.5 s to import, plus its
registries at the first compiled call) is paid by the commands that search or index.

On-disk cache (``cache=True``): numba keys a kernel's cache by the stamp (modification time and
size) of the file that defines it, and a compiled kernel holds the code of the compiled
functions it calls. An edit of a callee's file therefore does not reach a cached caller in
another file until the caller's file changes too (or the cache, ``__pycache__/*.nbi`` /
``NUMBA_CACHE_DIR``, is cleared). A kernel that composes the kernels of one model is defined
beside them (the two-stage kernels of :mod:`tiebreak.retrieval.rerank` live in the package
:mod:`tiebreak.retrieval.dependency`); the shared building blocks (``retrieval/kernels.py``,
``retrieval/intervals.py``, and in that package ``_kernels.py`` and ``lkp_family.py``'s
``_lkp_setup``) are the remaining cross-file callees: after editing them, clear the cache.
"""

from __future__ import annotations

try:
    import numba
    from numba import njit
except ImportError as e:  # pragma: no cover - the search extra is part of the test install
    raise ImportError("the search engine needs numba: pip install 'tiebreak[search]'") from e

__all__ = ["numba", "njit"]
