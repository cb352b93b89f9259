"""The checks an index's arrays pass (see :mod:`tiebreak.index.store` for when they run): the
crc32 of an array, pointer / permutation / sum helpers, the numba kernels of the one-pass checks
over all postings and positions, and :data:`INVARIANTS` (array name -> its invariant check).
"""

from __future__ import annotations

import threading
import zlib
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .store import Index

__all__ = ["crc32", "check_ptr", "min_sum", "check_perm", "INVARIANTS", "direct_from_postings"]


def crc32(a: np.ndarray) -> int:
    """zlib crc32 of an array's bytes (C order); reads a memory map without copying it."""
    # a flat byte view: memoryview.cast refuses a multi-dimensional array with a zero in its shape
    return zlib.crc32(np.ascontiguousarray(a).reshape(-1).view(np.uint8))


# ---------------------------------------------------------------- invariant checks
# The checks an index's small arrays (pointers, offsets, lengths, docno ranks) pass at their
# first access are numpy, so opening an index and searching a few terms needs no numba; the
# one-pass checks over all postings and positions are numba kernels (:func:`_kernels`).
_STEP = 1 << 20


def check_ptr(ptr: np.ndarray, end: int) -> int:
    """First index at which the pointer array ``ptr`` is not a valid CSR pointer (it must start
    at 0, never decrease and end at ``end``), or -1. Reads ``ptr`` in chunks of 1M entries."""
    ptr = np.asarray(ptr)
    n = ptr.size
    if n == 0 or ptr[0] != 0:
        return 0
    for a in range(0, n - 1, _STEP):
        c = ptr[a:min(a + _STEP + 1, n)]
        bad = np.flatnonzero(c[1:] < c[:-1])
        if bad.size:
            return a + int(bad[0]) + 1
    return -1 if ptr[n - 1] == end else n - 1


def min_sum(a: np.ndarray) -> tuple[int, int]:
    """(minimum, sum) of an integer array as int64 ((0, 0) when empty)."""
    a = np.asarray(a)
    if a.size == 0:
        return 0, 0
    return int(a.min()), int(a.sum(dtype=np.int64))


def check_perm(a: np.ndarray) -> int:
    """-1 when ``a`` is a permutation of 0..n-1, else the first index whose value is out of
    range or repeats an earlier one."""
    a = np.asarray(a)
    n = a.size
    if n == 0:
        return -1
    out = (a < 0) | (a >= n)
    if out.any():
        first_out = int(np.flatnonzero(out)[0])
        a, n_ok = a[:first_out], first_out
    else:
        first_out, n_ok = -1, n
    if n_ok and np.bincount(a, minlength=n).max() > 1:
        order = np.argsort(a, kind="stable")
        s = a[order]
        dup = order[1:][s[1:] == s[:-1]]
        return int(dup.min())
    return first_out


_KERNELS = None
_KERNELS_LOCK = threading.Lock()


def _kernels():
    """One-pass numba checks; each returns the first offending index, or -1."""
    global _KERNELS
    with _KERNELS_LOCK:
        if _KERNELS is not None:
            return _KERNELS
        from .._native.jit import njit

        @njit(cache=True, nogil=True)
        def check_docids(post_ptr, post_docid, n_docs):
            # every docid in [0, N), strictly ascending within a term
            for t in range(post_ptr.size - 1):
                prev = -1
                for j in range(post_ptr[t], post_ptr[t + 1]):
                    d = post_docid[j]
                    if d < 0 or d >= n_docs or d <= prev:
                        return j
                    prev = d
            return -1

        @njit(cache=True, nogil=True)
        def check_tf(pos_ptr, post_tf):
            # tf = number of positions >= 1
            for j in range(post_tf.size):
                if post_tf[j] < 1 or pos_ptr[j + 1] - pos_ptr[j] != post_tf[j]:
                    return j
            return -1

        @njit(cache=True, nogil=True)
        def check_positions(pos_ptr, pos, post_docid, doclen):
            # positions strictly ascending within a posting, in [0, |D|)
            for j in range(post_docid.size):
                L = doclen[post_docid[j]]
                prev = -1
                for i in range(pos_ptr[j], pos_ptr[j + 1]):
                    p = pos[i]
                    if p <= prev or p >= L:
                        return j
                    prev = p
            return -1

        @njit(cache=True, nogil=True)
        def recount(post_ptr, post_docid, post_tf, n_docs):
            # cf per term and length per document, from the postings
            cf = np.zeros(post_ptr.size - 1, np.int64)
            dl = np.zeros(n_docs, np.int64)
            for t in range(post_ptr.size - 1):
                for j in range(post_ptr[t], post_ptr[t + 1]):
                    cf[t] += post_tf[j]
                    dl[post_docid[j]] += post_tf[j]
            return cf, dl

        _KERNELS = {"recount": recount, "docids": check_docids, "tf": check_tf,
                    "positions": check_positions}
        return _KERNELS


_DIRECT = None


def direct_from_postings(post_ptr, post_docid, pos_ptr, pos, doclen) -> np.ndarray:
    """The stored direct file (int32 (C,), see :mod:`tiebreak.index.store`) rebuilt from the
    positional postings: term t written at every position of every posting of t. Positions
    are 0..|D|-1 in every document (stopwords take none), so every slot is written once."""
    global _DIRECT
    if _DIRECT is None:
        from .._native.jit import njit

        @njit(cache=True, nogil=True)
        def fill(post_ptr, post_docid, pos_ptr, pos, doc_start, out):
            for t in range(post_ptr.size - 1):
                for j in range(post_ptr[t], post_ptr[t + 1]):
                    base = doc_start[post_docid[j]]
                    for i in range(pos_ptr[j], pos_ptr[j + 1]):
                        out[base + pos[i]] = t
            return out

        _DIRECT = fill
    doclen = np.asarray(doclen)
    start = np.zeros(doclen.size + 1, np.int64)
    np.cumsum(doclen, dtype=np.int64, out=start[1:])
    out = np.full(int(start[-1]), -1, np.int32)
    return _DIRECT(np.asarray(post_ptr, np.int64), np.asarray(post_docid, np.int32),
                   np.asarray(pos_ptr, np.int64), np.asarray(pos, np.int32), start, out)


def _first_bad(mask: np.ndarray) -> int:
    bad = np.flatnonzero(mask)
    return int(bad[0]) if bad.size else -1


def _inv_docno_rank(ix: Index, a: np.ndarray) -> str | None:
    bad = check_perm(a)
    return None if bad < 0 else f"docno_rank[{bad}]: not a permutation of 0..num_docs-1"


def _inv_doclen(ix: Index, a: np.ndarray) -> str | None:
    lo, tot = min_sum(a)
    if lo < 0:
        return f"negative document length at docid {_first_bad(np.asarray(a) < 0)}"
    if tot != ix.collection_length:
        return "document lengths do not sum to collection_length"
    return None


def _inv_df(ix: Index, a: np.ndarray) -> str | None:
    bad = _first_bad(np.diff(ix.post_ptr) != a)
    return None if bad < 0 else f"df[{bad}] != number of postings of term {bad}"


def _inv_cf(ix: Index, a: np.ndarray) -> str | None:
    bad = _first_bad(a < ix.df)
    if bad >= 0:
        return f"cf[{bad}] < df[{bad}]"
    if int(a.sum(dtype=np.int64)) != ix.collection_length:
        return "cf does not sum to collection_length"
    return None


def _inv_post_ptr(ix: Index, a: np.ndarray) -> str | None:
    bad = check_ptr(a, ix.num_postings)
    return None if bad < 0 else (f"post_ptr[{bad}] out of order or out of [0, num_postings]")


def _inv_post_docid(ix: Index, a: np.ndarray) -> str | None:
    bad = _kernels()["docids"](np.asarray(ix.post_ptr), np.asarray(a), ix.num_docs)
    return None if bad < 0 else (f"post_docid[{bad}] outside [0, num_docs) or not ascending "
                                 "within its term")


def _inv_post_tf(ix: Index, a: np.ndarray) -> str | None:
    lo, tot = min_sum(a)
    if a.size and lo < 1:     # (min_sum gives 0 for an index without postings)
        return f"post_tf[{_first_bad(np.asarray(a) < 1)}] < 1"
    if tot != ix.collection_length:
        return "post_tf does not sum to collection_length"
    return None


def _inv_pos_ptr(ix: Index, a: np.ndarray) -> str | None:
    bad = check_ptr(a, ix.collection_length)
    if bad >= 0:
        return f"pos_ptr[{bad}] out of order or out of [0, collection_length]"
    bad = _kernels()["tf"](np.asarray(a), np.asarray(ix.post_tf))
    return None if bad < 0 else f"pos_ptr does not match post_tf at posting {bad}"


def _inv_pos(ix: Index, a: np.ndarray) -> str | None:
    bad = _kernels()["positions"](np.asarray(ix.pos_ptr), np.asarray(a),
                                  np.asarray(ix.post_docid), np.asarray(ix.doclen))
    return None if bad < 0 else (f"positions of posting {bad} not ascending or outside the "
                                 "document")


def _inv_offsets(data_name: str):
    def check(ix: Index, a: np.ndarray) -> str | None:
        bad = check_ptr(a, ix._raw[data_name].size)
        return None if bad < 0 else (f"offset [{bad}] out of order or out of "
                                     f"[0, size of {data_name}]")
    return check


def _inv_blk_last(ix: Index, a: np.ndarray) -> str | None:
    from .unpack import term_blocks

    tb = ix._cache["term_blocks"] = term_blocks(ix.post_ptr, ix.block_size)
    if a.size != tb[-1]:
        return "number of blocks does not match post_ptr"
    bad = _first_bad((a < 0) | (a >= ix.num_docs))
    return None if bad < 0 else f"blk_last[{bad}] outside [0, num_docs)"


def _inv_direct(ix: Index, a: np.ndarray) -> str | None:
    # term ids in [0, V), read in chunks of 1M entries (the length was checked at open)
    for s in range(0, a.size, _STEP):
        c = np.asarray(a[s:s + _STEP])
        bad = np.flatnonzero((c < 0) | (c >= ix.vocab_size))
        if bad.size:
            return f"direct[{s + int(bad[0])}] outside [0, vocab_size)"
    return None


#: array name -> invariant check run at its first access (after its crc32); returns a message
#: or None. Checks may read other arrays through the index (which verifies those first). An array
#: without an entry here gets its crc32 checked only.
INVARIANTS = {
    "docno_rank": _inv_docno_rank, "doclen": _inv_doclen, "df": _inv_df, "cf": _inv_cf,
    "post_ptr": _inv_post_ptr, "post_docid": _inv_post_docid, "post_tf": _inv_post_tf,
    "pos_ptr": _inv_pos_ptr, "pos": _inv_pos, "blk_last": _inv_blk_last,
    "post_off": _inv_offsets("post_bytes"), "pos_off": _inv_offsets("pos_bytes"),
    "direct": _inv_direct,
}
