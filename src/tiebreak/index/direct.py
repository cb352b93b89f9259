"""The stored direct file of an index (optional array ``direct``, layout in
:mod:`tiebreak.index.store`) rebuilt from the positional postings: what
:func:`tiebreak.index.build.add_direct_file` adds to an existing index and what
:meth:`~tiebreak.index.store.Index.verify` compares the stored one with. A fresh build writes it
directly (``build_index(..., direct=True)``: the analysed tokens are the direct file).
"""

from __future__ import annotations

import numpy as np

__all__ = ["direct_from_postings"]

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
