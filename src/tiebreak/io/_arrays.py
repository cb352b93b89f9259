"""Token lists -> numpy codes, with memory proportional to the input.

Fixed-width numpy strings (``S``/``U``) are fast but sized by the longest token: one 1 MB docno
among 10,000 short ones would ask for 10,000 x 1 MB (x 4 for ``U``). Every helper here checks the
fixed width against the tokens' total size and otherwise uses Python objects (sets, dicts, object
arrays), which cost memory proportional to the input.
"""

from __future__ import annotations

import sys

import numpy as np

#: Input (bytes) below which reading stays in Python while the compiled reader is not loaded:
#: loading numba and its cached kernels costs about 0.8 s once, the strict reader about 40 ms per
#: MB more than the compiled one, so one small file (a CLI call on a single run) is read faster
#: without it. Once this much has been read in a process, or :func:`expect_input` announces it,
#: the compiled reader is loaded and used for every further file of 128 KiB or more.
FAST_WORTH_BYTES = 16 << 20
_read_without_fast = 0


def expect_files(paths) -> None:
    """:func:`expect_input` for these files (gzip counted at 4x its size); paths that are not
    files (``-``, file objects, DataFrames) are ignored."""
    import os

    total = 0
    for p in paths:
        if isinstance(p, (str, os.PathLike)) and p != "-":
            try:
                n = os.path.getsize(p)
            except OSError:
                continue
            total += 4 * n if os.fspath(p).endswith(".gz") else n
    expect_input(total)


def expect_input(total_bytes: int) -> None:
    """Announce that about ``total_bytes`` of runs/qrels will be read (e.g. the files given to
    one command): at :data:`FAST_WORTH_BYTES` or more, load the compiled reader now."""
    from .._native import ext

    if ext() is not None:  # the C extension reads every file: nothing to load
        return
    if total_bytes >= FAST_WORTH_BYTES and "tiebreak.io._fast" not in sys.modules:
        try:
            from . import _fast  # noqa: F401
        except ImportError:  # numba not installed (the fast extra): the strict reader serves
            pass

# A fixed-width array may use this many times the tokens' own bytes (plus a constant).
_SLACK = 8
_CONST = 1 << 20


def _fits(width: int, n: int, total: int, itemsize: int = 1) -> bool:
    return width * n * itemsize <= _SLACK * total + _CONST


def latin1_array(items) -> np.ndarray:
    """Bytes tokens -> text array, one code point per byte (latin-1), so that text order is byte
    order. ``U`` dtype when its fixed width is affordable, else ``object``."""
    n = len(items)
    if n == 0:
        return np.zeros(0, "U1")
    if isinstance(items, np.ndarray) and items.dtype.kind == "S":
        w = items.dtype.itemsize
        total = int(np.char.str_len(items).sum()) if w > 64 else w * n
        if _fits(w, n, total, 4):
            u8 = np.frombuffer(np.ascontiguousarray(items).tobytes(), np.uint8).reshape(n, w)
            return u8.astype(np.uint32).view(f"U{w}").reshape(n)
        items = items.tolist()
    w = max(map(len, items))
    total = sum(map(len, items))
    if _fits(w, n, total, 4):
        return np.array([t.decode("latin-1") for t in items], dtype=f"U{max(w, 1)}")
    out = np.empty(n, object)
    out[:] = [t.decode("latin-1") for t in items]
    return out


def sorted_codes(items: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    """Distinct tokens in byte order (as :func:`latin1_array` text) and each token's index.

    Tokens hold no NUL byte (the readers refuse NUL), so a token zero-padded to a multiple of 8
    bytes sorts, as big-endian 64-bit words, in byte order: integer sorts instead of a string
    sort (3-4x faster than ``np.unique`` on fixed-width bytes).

    Returns
    -------
    uniq : ndarray, ``U`` or object, shape (d,)
    codes : ndarray, int64, shape (len(items),)
    """
    n = len(items)
    if n == 0:
        return np.zeros(0, "U1"), np.zeros(0, np.int64)
    w = max(map(len, items))
    joined = b"".join(items)
    total = len(joined)
    w8 = max(-(-w // 8) * 8, 8)
    if _fits(w8, n, total):
        if total == n * w:  # every token w bytes long: the array straight from the bytes
            a = np.zeros((n, w8), np.uint8)
            a[:, :w] = np.frombuffer(joined, np.uint8).reshape(n, w)
            a = a.view(f"S{w8}").reshape(n)
        else:
            a = np.array(items, dtype=f"S{w8}")
        del joined
        words = a.view(">u8").reshape(n, w8 // 8).astype(np.uint64)
        order = np.argsort(words[:, 0]) if w8 == 8 else np.lexsort(words.T[::-1])
        sw = words[order]
        new = np.empty(n, bool)
        new[0] = True
        if w8 == 8:
            np.not_equal(sw[1:, 0], sw[:-1, 0], out=new[1:])
        else:
            np.any(sw[1:] != sw[:-1], axis=1, out=new[1:])
        codes = np.empty(n, np.int64)
        codes[order] = np.cumsum(new) - 1
        return latin1_array(a[order[new]].astype(f"S{max(w, 1)}")), codes
    su = sorted(set(items))
    index = {t: i for i, t in enumerate(su)}
    return latin1_array(su), np.fromiter(map(index.__getitem__, items), np.int64, n)


def split_columns(data: bytes, nl: int, k: int) -> list[bytes] | None:
    """Every field of ``data`` (one ``bytes.split()``: C ``isspace`` separators, as each
    reader's line loop splits a line) when each of its ``nl`` lines holds exactly ``k`` fields
    and no line's first field starts with ``#``; None otherwise (an empty input too), and the
    reader's line loop then reads it, naming any problem. Field ``j`` of line ``i`` is item
    ``i * k + j``. The check is a few numpy passes over the bytes (no Python object per line):
    a field starts at a non-blank byte after a blank one, and the field starts before each
    line end must number ``k`` per line."""
    if not nl:
        return None
    a = np.frombuffer(data, np.uint8)
    blank = a <= 32
    # bytes 0-8 and 14-31 are not blanks for bytes.split() or isspace(): leave such text to
    # the line loop (a NUL is refused before this)
    if (a < 9).any() or (np.subtract(a, 14, dtype=np.uint8) < 18).any():
        return None
    start = ~blank
    start[1:] &= blank[:-1]
    sp = np.flatnonzero(start)
    if len(sp) != k * nl:
        return None
    ends = np.flatnonzero(a == 10)
    if not np.array_equal(np.searchsorted(sp, ends), np.arange(k, k * len(ends) + 1, k)):
        return None
    if (a[sp[::k]] == 35).any():  # a comment line ('#')
        return None
    return data.split()


def text(docno) -> str:
    """A docno held as latin-1 text, shown as UTF-8."""
    return str(docno).encode("latin-1").decode("utf-8", "backslashreplace")


def fast_bytes(data: bytes):
    """``data`` as a uint8 array for the compiled readers, or None for an empty input, without
    numba, or before :data:`FAST_WORTH_BYTES` have been read (the strict reader then runs)."""
    global _read_without_fast
    if not data:
        return None
    if "tiebreak.io._fast" not in sys.modules:
        _read_without_fast += len(data)
        if _read_without_fast < FAST_WORTH_BYTES:
            return None
    try:
        from . import _fast  # noqa: F401
    except ImportError:  # numba not installed (pip install 'tiebreak[fast]'): strict reader
        return None
    return np.frombuffer(data, np.uint8)


def fixed_fields(data: bytes, nl: int, k: int):
    """The compiled fast path's first step: ``(bytes (N,) uint8, starts (nl, k), ends (nl, k))``
    (starts and ends int32 for texts under 2 GiB, else int64)
    of the fields of ``data`` when every one of its ``nl`` lines holds exactly ``k`` fields;
    None otherwise, for an empty input, without numba, or before :data:`FAST_WORTH_BYTES` have
    been read (the strict reader then runs)."""
    a = fast_bytes(data) if nl else None
    if a is None:
        return None
    from ._fast import split_fields
    # offsets in int32 below 2 GiB: half the memory of the reader's largest arrays
    dt = np.int32 if len(data) < (1 << 31) - 1 else np.int64
    status, st, en = split_fields(a, nl, k, np.empty(nl * k, dt), np.empty(nl * k, dt))
    if status:
        return None
    return a, st.reshape(nl, k), en.reshape(nl, k)
