"""Block codec of the compressed index format (version 2): postings in blocks of
:data:`BLOCK` postings, docid gaps and frequencies bit-packed with one width per block.

Layout (all little-endian, every block byte-aligned; ``n`` = postings in the block, 128 except
a term's last block):

* ``post_bytes`` (uint8), block ``g`` at ``post_off[g] .. post_off[g+1]``:
  ``[w_d][n docid gaps, w_d bits each][w_f][n values tf-1, w_f bits each]``, where the gap of
  a posting is ``docid - previous docid - 1`` (the previous docid of a term's first posting is
  -1, of a block's first posting the last docid of the block before, ``blk_last[g-1]``), so
  every block can be decoded on its own (binary packing, Anh & Moffat 2010; PISA's blocks of
  128 postings). A width is 0..32 bits; values are packed least significant bit first.
* ``pos_bytes`` (uint8), block ``g`` at ``pos_off[g] .. pos_off[g+1]``: the positions of the
  block's postings, posting by posting, as ``[w_p][values, w_p bits each]``: a posting's first
  position, then each next position minus the previous minus one.
* ``blk_last`` (int32 (nb,)): the last docid of every block (skip data).

Blocks of term ``t`` are ``ceil(df_t / BLOCK)`` consecutive ones in term order.

Decoders never read outside their arrays, whatever the bytes: every block's byte length must
equal the one its widths imply, offsets must run contiguously from 0 to the array's end, and a
decoded docid must stay below N and equal ``blk_last`` at the block's end; the first violation
is returned as ``(block, code)`` (see :data:`ERRORS`), never a crash.

Reference: V. N. Anh and A. Moffat, "Index compression using 64-bit words", Software: Practice
and Experience 40(2), 2010 (binary packing of fixed-size blocks); A. Mallia, M. Siedlaczek and
T. Suel, "An experimental study of index compression and DAAT query processing methods",
ECIR 2019 (PISA's block codecs).
"""

from __future__ import annotations

import numpy as np

from .._native.jit import njit

__all__ = ["BLOCK", "ERRORS", "encode_postings", "decode_postings", "decode_terms",
           "term_blocks", "encode_positions", "decode_positions", "num_blocks"]

#: postings per block
BLOCK = 128

#: decoder error codes -> message
ERRORS = {
    1: "block count does not match the postings",
    2: "block byte length does not match its bit widths or offsets not contiguous",
    3: "bit width above 32",
    4: "decoded docid outside [0, num_docs)",
    5: "last docid of the block differs from blk_last",
    6: "decoded frequency outside [1, 2**31)",
    7: "decoded position outside [0, 2**31)",
}


@njit(cache=True, nogil=True)
def num_blocks(post_ptr, block):
    nb = 0
    for t in range(post_ptr.size - 1):
        nb += (post_ptr[t + 1] - post_ptr[t] + block - 1) // block
    return nb


@njit(cache=True, nogil=True)
def _width(vals, n):
    m = np.int64(0)
    for i in range(n):
        m |= vals[i]
    w = 0
    while m:
        w += 1
        m >>= 1
    return w


@njit(cache=True, nogil=True)
def _pack(vals, n, w, out, o):
    """Write ``vals[:n]`` (each < 2**w) with ``w`` bits each at ``out[o:]``; return the end."""
    if w == 0:
        return o
    buf = np.int64(0)
    nb = 0
    for i in range(n):
        buf |= vals[i] << nb
        nb += w
        while nb >= 8:
            out[o] = buf & 0xFF
            o += 1
            buf >>= 8
            nb -= 8
    if nb > 0:
        out[o] = buf & 0xFF
        o += 1
    return o


@njit(cache=True, nogil=True)
def _unpack(src, o, n, w, out):
    """Read ``n`` values of ``w`` bits from ``src[o:]`` into ``out[:n]`` (reads exactly
    ``ceil(n w / 8)`` bytes; the caller checked they exist); return the end."""
    if w == 0:
        for i in range(n):
            out[i] = 0
        return o
    mask = (np.int64(1) << w) - 1
    buf = np.int64(0)
    nb = 0
    for i in range(n):
        while nb < w:
            buf |= np.int64(src[o]) << nb
            o += 1
            nb += 8
        out[i] = buf & mask
        buf >>= w
        nb -= w
    return o


@njit(cache=True, nogil=True)
def _nbytes(n, w):
    return (n * w + 7) // 8


# ------------------------------------------------------------------ postings
@njit(cache=True, nogil=True)
def _gaps(post_docid, j, n, prev, g):
    for i in range(n):
        d = np.int64(post_docid[j + i])
        g[i] = d - prev - 1
        prev = d
    return prev


@njit(cache=True, nogil=True)
def encode_postings(post_ptr, post_docid, post_tf, block):
    """(blk_last int32 (nb,), post_off int64 (nb+1,), post_bytes uint8) of the postings."""
    V = post_ptr.size - 1
    nb = num_blocks(post_ptr, block)
    blk_last = np.empty(nb, np.int32)
    off = np.zeros(nb + 1, np.int64)
    g = np.empty(block, np.int64)
    f = np.empty(block, np.int64)
    b = 0
    for t in range(V):      # pass 1: sizes
        prev = np.int64(-1)
        j = post_ptr[t]
        while j < post_ptr[t + 1]:
            n = min(block, post_ptr[t + 1] - j)
            prev = _gaps(post_docid, j, n, prev, g)
            for i in range(n):
                f[i] = post_tf[j + i] - 1
            blk_last[b] = prev
            off[b + 1] = off[b] + 2 + _nbytes(n, _width(g, n)) + _nbytes(n, _width(f, n))
            b += 1
            j += n
    out = np.zeros(off[nb], np.uint8)
    b = 0
    for t in range(V):      # pass 2: bytes
        prev = np.int64(-1)
        j = post_ptr[t]
        while j < post_ptr[t + 1]:
            n = min(block, post_ptr[t + 1] - j)
            prev = _gaps(post_docid, j, n, prev, g)
            for i in range(n):
                f[i] = post_tf[j + i] - 1
            o = off[b]
            w = _width(g, n)
            out[o] = w
            o = _pack(g, n, w, out, o + 1)
            w = _width(f, n)
            out[o] = w
            _pack(f, n, w, out, o + 1)
            b += 1
            j += n
    return blk_last, off, out


@njit(cache=True, nogil=True)
def decode_postings(post_ptr, blk_last, off, data, block, n_docs, post_docid, post_tf):
    """Decode every block into ``post_docid`` and ``post_tf`` (int32 (P,)); returns
    ``(block, code)`` of the first inconsistency (codes in :data:`ERRORS`) or ``(-1, 0)``."""
    nb = blk_last.size
    if off.size != nb + 1 or off[0] != 0 or off[nb] != data.size:
        return 0, 2
    b, code = decode_terms(post_ptr, blk_last, off, data, block, n_docs, 0, post_ptr.size - 1,
                           0, post_docid, post_tf, 0)
    if b < 0 and code != nb:
        return code, 1
    return b, code


@njit(cache=True, nogil=True)
def term_blocks(post_ptr, block):
    """(V+1,) int64: the blocks of term t are ``[out[t], out[t+1])``."""
    V = post_ptr.size - 1
    out = np.zeros(V + 1, np.int64)
    for t in range(V):
        out[t + 1] = out[t] + (post_ptr[t + 1] - post_ptr[t] + block - 1) // block
    return out


@njit(cache=True, nogil=True)
def decode_terms(post_ptr, blk_last, off, data, block, n_docs, t0, t1, b0, post_docid, post_tf,
                 o0):
    """Decode the postings of terms ``t0 .. t1-1`` (whose first block is ``b0``) into
    ``post_docid[o0:]`` and ``post_tf[o0:]``. Returns ``(block, code)`` of the first
    inconsistency, or ``(-1, next block)``."""
    nb = blk_last.size
    size = data.size
    if off.size != nb + 1 or t0 < 0 or t1 >= post_ptr.size or b0 < 0:
        return 0, 1
    tmp = np.empty(block, np.int64)
    b = b0
    for t in range(t0, t1):
        prev = np.int64(-1)
        j = post_ptr[t]
        e = post_ptr[t + 1]
        if e - j > post_docid.size - o0 - (j - post_ptr[t0]):
            return b, 1
        while j < e:
            n = min(block, e - j)
            if b >= nb:
                return b, 1
            o = off[b]
            end = off[b + 1]
            if o < 0 or end > size or end < o + 2:
                return b, 2
            wd = np.int64(data[o])
            if wd > 32:
                return b, 3
            o += 1
            if o + _nbytes(n, wd) + 1 > end:
                return b, 2
            o = _unpack(data, o, n, wd, tmp)
            x = o0 + j - post_ptr[t0]
            for i in range(n):
                d = prev + 1 + tmp[i]
                if d >= n_docs:
                    return b, 4
                post_docid[x + i] = d
                prev = d
            if prev != blk_last[b]:
                return b, 5
            wf = np.int64(data[o])
            if wf > 32:
                return b, 3
            o += 1
            if o + _nbytes(n, wf) != end:
                return b, 2
            _unpack(data, o, n, wf, tmp)
            for i in range(n):
                if tmp[i] >= 2147483647:
                    return b, 6
                post_tf[x + i] = tmp[i] + 1
            b += 1
            j += n
    return -1, b


# ------------------------------------------------------------------ positions
@njit(cache=True, nogil=True)
def _pos_values(pos_ptr, pos, j, n, vals):
    """Position values of postings j .. j+n-1 into vals; returns their count."""
    c = 0
    for x in range(j, j + n):
        prev = np.int64(-1)
        for i in range(pos_ptr[x], pos_ptr[x + 1]):
            p = np.int64(pos[i])
            vals[c] = p - prev - 1
            prev = p
            c += 1
    return c


@njit(cache=True, nogil=True)
def _max_block_positions(post_ptr, pos_ptr, block):
    """Most positions held by one block of ``block`` postings (at least 1): the size of the
    scratch buffer that encoding and decoding positions need."""
    mx = 1
    for t in range(post_ptr.size - 1):
        j = post_ptr[t]
        while j < post_ptr[t + 1]:
            n = min(block, post_ptr[t + 1] - j)
            c = pos_ptr[j + n] - pos_ptr[j]
            if c > mx:
                mx = c
            j += n
    return mx


@njit(cache=True, nogil=True)
def encode_positions(post_ptr, pos_ptr, pos, block):
    """(pos_off int64 (nb+1,), pos_bytes uint8): positions grouped by posting block."""
    V = post_ptr.size - 1
    nb = num_blocks(post_ptr, block)
    off = np.zeros(nb + 1, np.int64)
    mx = _max_block_positions(post_ptr, pos_ptr, block)
    vals = np.empty(mx, np.int64)
    b = 0
    for t in range(V):
        j = post_ptr[t]
        while j < post_ptr[t + 1]:
            n = min(block, post_ptr[t + 1] - j)
            c = _pos_values(pos_ptr, pos, j, n, vals)
            off[b + 1] = off[b] + 1 + _nbytes(c, _width(vals, c))
            b += 1
            j += n
    out = np.zeros(off[nb], np.uint8)
    b = 0
    for t in range(V):
        j = post_ptr[t]
        while j < post_ptr[t + 1]:
            n = min(block, post_ptr[t + 1] - j)
            c = _pos_values(pos_ptr, pos, j, n, vals)
            w = _width(vals, c)
            out[off[b]] = w
            _pack(vals, c, w, out, off[b] + 1)
            b += 1
            j += n
    return off, out


@njit(cache=True, nogil=True)
def decode_positions(post_ptr, pos_ptr, off, data, block, pos):
    """Decode every block's positions into ``pos`` (int32 (pos_ptr[-1],)); ``pos_ptr`` (P+1,)
    int64 must already be the prefix sums of the decoded frequencies. Returns ``(block, code)``
    of the first inconsistency or ``(-1, 0)``."""
    V = post_ptr.size - 1
    nb = off.size - 1
    size = data.size
    if nb < 0 or off[0] != 0 or off[nb] != size:
        return 0, 2
    mx = _max_block_positions(post_ptr, pos_ptr, block)
    tmp = np.empty(mx, np.int64)
    b = 0
    for t in range(V):
        j = post_ptr[t]
        e = post_ptr[t + 1]
        while j < e:
            n = min(block, e - j)
            if b >= nb:
                return b, 1
            o = off[b]
            end = off[b + 1]
            if end > size or end < o + 1:
                return b, 2
            w = np.int64(data[o])
            if w > 32:
                return b, 3
            c = pos_ptr[j + n] - pos_ptr[j]
            if o + 1 + _nbytes(c, w) != end:
                return b, 2
            _unpack(data, o + 1, c, w, tmp)
            c = 0
            for x in range(j, j + n):
                prev = np.int64(-1)
                base = pos_ptr[x]
                for i in range(pos_ptr[x + 1] - base):
                    p = prev + 1 + tmp[c]
                    if p >= 2147483647:
                        return b, 7
                    pos[base + i] = p
                    prev = p
                    c += 1
            b += 1
            j += n
    if b != nb:
        return b, 1
    return -1, 0
