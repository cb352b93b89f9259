"""The stored direct file of an index (optional array ``direct``, layout in
:mod:`tiebreak.index.store`): :func:`add_direct_file` adds it to an existing index, rebuilt
from the positional postings by :func:`direct_from_postings` (defined with the index checks,
:mod:`tiebreak.index.invariants`, as :meth:`~tiebreak.index.store.Index.verify` compares the
stored one with it). A fresh build writes it directly (``build_index(..., direct=True)``: the
analysed tokens are the direct file).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .build import _write_atomic
from .invariants import direct_from_postings
from .store import open_index

__all__ = ["direct_from_postings", "add_direct_file"]


def add_direct_file(path):
    """Add the stored direct file to the index at ``path`` (rewritten atomically as a new
    generation holding the same arrays plus ``direct``, built from its positional postings by
    :func:`direct_from_postings`). Returns the opened :class:`Index`; an
    index that already has one is returned unchanged.

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
