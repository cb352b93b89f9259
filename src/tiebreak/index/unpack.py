"""The postings of one term of a compressed (version 2) index, decoded with numpy alone.

:mod:`tiebreak.index.codec` decodes whole indexes in numba; a command that searches a handful
of queries needs only the query terms' blocks, and importing numba and loading its kernels
costs more than decoding them (``docs/performance.md``). :func:`decode_term` decodes the blocks
of one term with vectorised numpy (every value of the term at once: one unaligned 64-bit load
per value, a shift and a mask), with the same checks, in the same order, and the same error
codes (:data:`tiebreak.index.codec.ERRORS`) as :func:`tiebreak.index.codec.decode_terms`; the
two are compared posting for posting and on corrupted blocks in ``tests/test_onequery.py``.

Layout: see :mod:`tiebreak.index.codec` (blocks of ``block`` postings, ``[w_d][docid gaps][w_f]
[tf - 1]``, widths <= 32 bits, values least significant bit first).
"""

from __future__ import annotations

import numpy as np

__all__ = ["term_blocks", "decode_term"]


def term_blocks(post_ptr: np.ndarray, block: int) -> np.ndarray:
    """(V+1,) int64: the blocks of term t are ``[out[t], out[t+1])``
    (:func:`tiebreak.index.codec.term_blocks` in numpy)."""
    df = np.diff(np.asarray(post_ptr, np.int64))
    out = np.zeros(df.size + 1, np.int64)
    np.cumsum((df + block - 1) // block, out=out[1:])
    return out


def _nbytes(n, w):
    return (n * w + 7) // 8


def _unpack(win: np.ndarray, start: np.ndarray, w: np.ndarray, counts: np.ndarray):
    """Values of ``counts[i]`` fields of ``w[i]`` bits from byte ``start[i]`` of the 64-bit
    little-endian window view ``win``, block after block (int64 (sum counts,))."""
    total = int(counts.sum())
    first = np.repeat(np.cumsum(counts) - counts, counts)
    i = np.arange(total, dtype=np.int64) - first            # index within its block
    wv = np.repeat(w, counts)
    bit = np.repeat(start * 8, counts) + i * wv
    word = win[np.minimum(bit >> 3, win.size - 1)] >> (bit & 7).astype(np.uint64)
    mask = (np.uint64(1) << wv.astype(np.uint64)) - np.uint64(1)
    return (word & mask).astype(np.int64)


def decode_term(post_ptr, blk_last, off, data, block: int, n_docs: int, t: int, b0: int):
    """Decode the postings of term ``t`` (whose first block is ``b0``).

    Parameters are the index's arrays (``post_ptr`` int64 (V+1,), ``blk_last`` int32 (nb,),
    ``post_off`` int64 (nb+1,), ``post_bytes`` uint8) and counts.

    Returns
    -------
    (docid int32 (df,), tf int32 (df,), block, code)
        ``block, code`` = ``-1, 0`` when the blocks are consistent, else the first
        inconsistent block and its code in :data:`tiebreak.index.codec.ERRORS` (the arrays are
        then meaningless).
    """
    a, e = int(post_ptr[t]), int(post_ptr[t + 1])
    df = e - a
    nbt = (df + block - 1) // block
    nb = int(blk_last.size)
    empty = np.zeros(0, np.int32)
    if off.size != nb + 1 or b0 < 0:
        return empty, empty, 0, 1
    if nbt == 0:
        return empty, empty, -1, 0
    if b0 + nbt > nb:
        return empty, empty, max(b0, nb), 1
    size = int(data.size)
    o = np.asarray(off[b0:b0 + nbt + 1], np.int64)
    beg, end = o[:-1], o[1:]
    n = np.full(nbt, block, np.int64)
    n[-1] = df - block * (nbt - 1)
    # the bytes of the term's blocks, padded so that every 8-byte load stays inside
    lo = int(max(min(beg.min(), size), 0))
    hi = int(min(max(end.max(), lo), size))
    buf = np.zeros(hi - lo + 16, np.uint8)
    buf[:hi - lo] = data[lo:hi]
    win = np.ndarray((hi - lo + 8,), "<u8", buffer=buf, strides=(1,))
    rel = np.clip(beg - lo, 0, hi - lo)
    code = np.zeros(nbt, np.int64)
    wd = buf[rel].astype(np.int64)
    dend = rel + 1 + _nbytes(n, np.minimum(wd, 32))
    wf = buf[np.minimum(dend, hi - lo)].astype(np.int64)
    gaps = _unpack(win, rel + 1, np.minimum(wd, 32), n)
    docid = np.cumsum(gaps + 1) - 1
    last = docid[np.cumsum(n) - 1]
    vals = _unpack(win, np.minimum(dend + 1, hi - lo), np.minimum(wf, 32), n)
    vmax = np.maximum.reduceat(vals, np.cumsum(n) - n)
    # codes in the order decode_terms checks them within a block (the first one found wins)
    checks = [
        (vmax >= 2147483647, 6),
        (dend + 1 + _nbytes(n, np.minimum(wf, 32)) != end - lo, 2),
        (wf > 32, 3),
        (last != np.asarray(blk_last[b0:b0 + nbt], np.int64), 5),
        (last >= n_docs, 4),
        (dend + 1 > end - lo, 2),
        (wd > 32, 3),
        ((beg < 0) | (end > size) | (end < beg + 2), 2),
    ]
    for bad, c in checks:       # later checks overwrite: the earliest check's code stays
        code[bad] = c
    badb = np.flatnonzero(code)
    if badb.size:
        return empty, empty, b0 + int(badb[0]), int(code[badb[0]])
    return docid.astype(np.int32), (vals + 1).astype(np.int32), -1, 0
