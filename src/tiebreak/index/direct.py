"""The document -> term view of an index (a direct file), built from its postings.

Used by pseudo-relevance feedback (:mod:`tiebreak.retrieval.prf`) and by the content-based
relevance predictor of :mod:`tiebreak.judgments.content`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["direct_file"]


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
