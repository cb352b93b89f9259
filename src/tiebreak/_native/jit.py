"""numba for tiebreak's compiled kernels, loaded without two of its start-up probes.

The first compiled function a process calls (or loads from numba's cache) makes numba load
its typing and lowering registries, and two of those modules probe optional libraries at
import time:

* ``numba.np.arraymath`` asks whether a BLAS is available (``_HAVE_BLAS``, read only when
  ``np.dot``/``np.vdot`` are compiled) by importing ``scipy.linalg.cython_blas``, which imports
  scipy.linalg (numba itself imports only the top-level ``scipy`` package, for its version);
* ``numba.core.typing.cffi_utils`` imports cffi and builds a ``cffi.FFI()`` (pycparser's
  lexer), read only when an unknown Python object is passed to a compiled function.

Together they are about a third of the start-up of a command that runs one compiled kernel
(profile in ``docs/performance.md``), and no tiebreak kernel needs either. When these libraries
have not been imported yet, :func:`defer_probes` loads those two numba modules with
scipy.linalg and cffi refused, then replaces each probe's result by a flag that runs the real
probe the first time numba reads it: a program that later compiles ``np.dot`` or passes a cffi
function to numba gets exactly what it would have got (scipy and cffi are imported then).
Every tiebreak module imports numba through this one (``from .._numba import njit``).
"""

from __future__ import annotations

import sys

import numba
from numba import njit

__all__ = ["numba", "njit", "defer_probes"]


class _Later:
    """A flag computed by ``probe()`` the first time it is read as a truth value."""

    def __init__(self, probe) -> None:
        self._probe = probe
        self._value: bool | None = None

    def __bool__(self) -> bool:
        if self._value is None:
            self._value = bool(self._probe())
        return self._value

    def __repr__(self) -> str:
        return f"<probe on first use: {self._value}>"


class _Refuse:
    """A meta path finder that makes the import of the named packages fail."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def find_spec(self, name, path=None, target=None):
        if any(name == n or name.startswith(n + ".") for n in self.names):
            raise ImportError(f"{name}: deferred by tiebreak._native.jit")
        return None


def _load_cffi() -> bool:
    from numba.core.typing import cffi_utils

    try:
        import cffi
    except ImportError:
        return False
    cffi_utils.cffi = cffi
    cffi_utils.ffi = cffi.FFI()
    return True


def defer_probes() -> None:
    """Load numba's BLAS and cffi probing modules with their probes deferred (see the module
    docstring); nothing when they are loaded already or the libraries are imported already."""
    if "numba.np.arraymath" in sys.modules or "numba.core.typing.cffi_utils" in sys.modules:
        return
    names = {n for n in ("scipy.linalg", "cffi") if n not in sys.modules}
    if not names:
        return
    refuse = _Refuse(names)
    sys.meta_path.insert(0, refuse)
    try:
        from numba.core.typing import cffi_utils
        from numba.np import arraymath
    except Exception:  # noqa: BLE001 - another numba layout: load it the ordinary way later
        for m in ("numba.np.arraymath", "numba.core.typing.cffi_utils"):
            sys.modules.pop(m, None)
        return
    finally:
        sys.meta_path.remove(refuse)
    if "scipy.linalg" in names and getattr(arraymath, "_HAVE_BLAS", None) is False and hasattr(
            arraymath, "_check_blas"):
        arraymath._HAVE_BLAS = _Later(arraymath._check_blas)
    if "cffi" in names and getattr(cffi_utils, "SUPPORTED", None) is False:
        cffi_utils.SUPPORTED = _Later(_load_cffi)


defer_probes()
