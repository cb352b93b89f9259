"""The C extension :mod:`tiebreak._native._ext`, when it was built and is not turned off.

``pip install .`` compiles ``src/tiebreak/_ext.c`` when a C compiler is present (``setup.py``
marks the extension optional, so an installation without a compiler succeeds without it). The
readers and the ranking layer ask :func:`ext` first, then fall back to numba (the ``fast``
extra), then to numpy. Setting the environment variable ``TIEBREAK_NO_EXT`` to anything but
``""`` or ``"0"`` makes :func:`ext` return None (read at every call, so tests can compare the
paths in one process).
"""

from __future__ import annotations

import os

_loaded: list = []  # [module or None] once the import was tried


def ext():
    """The module :mod:`tiebreak._native._ext`, or None when it is not built or ``TIEBREAK_NO_EXT``
    is
    set."""
    if os.environ.get("TIEBREAK_NO_EXT", "") not in ("", "0"):
        return None
    if not _loaded:
        try:
            from . import _ext as mod
        except ImportError:
            mod = None
        _loaded.append(mod)
    return _loaded[0]
