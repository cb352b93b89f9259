"""Token lists -> numpy codes, with memory proportional to the input.

Fixed-width numpy strings (``S``/``U``) are fast but sized by the longest token: one 1 MB docno
among 10,000 short ones would ask for 10,000 x 1 MB (x 4 for ``U``). Every helper here checks the
fixed width against the tokens' total size and otherwise uses Python objects (sets, dicts, object
arrays), which cost memory proportional to the input.
"""

from __future__ import annotations

import numpy as np

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
