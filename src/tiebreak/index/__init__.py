"""Positional inverted index, block-compressed numpy arrays (see :mod:`tiebreak.index.store`).

>>> from tiebreak.index import build_index, open_index
>>> idx = build_index("cranfield", "cran.idx")     # or a TREC / SMART / JSONL file
>>> idx = open_index("cran.idx")                    # mmap; IndexFormatError on any problem
>>> docids, tfs = idx.postings(idx.term_id("flow"))
"""

from .analysis import Analyzer
from .manifest import FORMAT_VERSION, IndexFormatError
from .store import Index, open_index


def build_index(source, path, analyzer=None, fields=None, progress=None, compressed=True,
                direct=False):
    """See :func:`tiebreak.index.build.build_index` (imported lazily: it needs numba)."""
    from .build import build_index as _build

    return _build(source, path, analyzer=analyzer, fields=fields, progress=progress,
                  compressed=compressed, direct=direct)


__all__ = ["Analyzer", "Index", "IndexFormatError", "open_index", "build_index", "FORMAT_VERSION"]
