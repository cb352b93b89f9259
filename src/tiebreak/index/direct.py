"""Direct files of an index: the document -> term views.

* :func:`direct_file`: the bag-of-words view (each document's distinct terms with their
  frequencies), built in memory from the postings and cached on the index; used by
  pseudo-relevance feedback (:mod:`tiebreak.retrieval.prf`) and by the content-based relevance
  predictor of :mod:`tiebreak.judgments.content`.
* the **stored** direct file (optional array ``direct`` of the index, layout in
  :mod:`tiebreak.index.store`: every document's term ids in position order), read by the
  two-stage proximity rerank: :func:`add_direct_file` adds it to an existing index, rebuilt
  from the positional postings by :func:`direct_from_postings` (defined with the index checks,
  :mod:`tiebreak.index.invariants`, as :meth:`~tiebreak.index.store.Index.verify` compares the
  stored one with it). A fresh build writes it directly (``build_index(..., direct=True)``:
  the analysed tokens are the direct file).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .invariants import direct_from_postings

__all__ = ["direct_file", "direct_from_postings", "add_direct_file"]


def direct_file(index) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The document -> term view of the postings, cached on the index: ``ptr`` int64 (N+1,),
    ``tids`` int64 and ``tf`` int64: document d's terms are ``tids[ptr[d]:ptr[d+1]]`` (term
    ids ascending) with their within-document frequencies ``tf[ptr[d]:ptr[d+1]]``."""
    c = index._cache
    if "direct-file" not in c:
        pp = np.asarray(index.post_ptr)
        pd = np.asarray(index.post_docid)
        order = np.argsort(pd, kind="stable")
        tid_of = np.repeat(np.arange(index.vocab_size, dtype=np.int64), np.diff(pp))
        ptr = np.zeros(index.num_docs + 1, np.int64)
        np.cumsum(np.bincount(pd, minlength=index.num_docs), out=ptr[1:])
        c["direct-file"] = (ptr, tid_of[order], np.asarray(index.post_tf, np.int64)[order])
    return c["direct-file"]


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
    from .build import _write_atomic
    from .store import open_index

    idx = open_index(path)
    if idx.has_direct:
        return idx
    arrays = {name: np.array(getattr(idx, name)) for name in idx.manifest["arrays"]}
    arrays["direct"] = direct_from_postings(idx.post_ptr, idx.post_docid, idx.pos_ptr, idx.pos,
                                            idx.doclen)
    manifest = {k: v for k, v in idx.manifest.items() if k not in ("arrays", "data")}
    _write_atomic(Path(path), arrays, manifest)
    return open_index(path)
