"""The stored direct file of an index (optional array ``direct``, layout in
:mod:`tiebreak.index.store`): rebuilt from the positional postings, and added to an existing
index. A fresh build writes it directly (``build_index(..., direct=True)``: the analysed
tokens are the direct file).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .build import _write_atomic
from .store import open_index

__all__ = ["direct_from_postings", "add_direct_file"]

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


def add_direct_file(path):
    """Add the stored direct file to the index at ``path`` (rewritten atomically as a new
    generation holding the same arrays plus ``direct``, built from its positional postings by
    :func:`direct_from_postings`). Returns the opened :class:`Index`; an index that already
    has one is returned unchanged.

    Raises
    ------
    IndexFormatError
        ``path`` is not a sound index (its arrays are checked as they are read).
    """
    idx = open_index(path)
    if idx.has_direct:
        return idx
    arrays = {name: np.array(getattr(idx, name)) for name in idx.manifest["arrays"]}
    arrays["direct"] = direct_from_postings(idx.post_ptr, idx.post_docid, idx.pos_ptr, idx.pos,
                                            idx.doclen)
    manifest = {k: v for k, v in idx.manifest.items() if k not in ("arrays", "data")}
    _write_atomic(Path(path), arrays, manifest)
    return open_index(path)
