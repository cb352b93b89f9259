"""A random Zipf-distributed index for the traversal tests (test_pruning, test_saat)."""

from __future__ import annotations

import numpy as np

from tiebreak.index import Analyzer
from tiebreak.index.build import build_index_from_tokens


def zipf_index(path, seed: int, n_docs: int, vocab: int, max_len: int, dup: bool = False):
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, vocab + 1) ** 1.1
    p /= p.sum()
    lens = rng.integers(1, max_len + 1, n_docs)
    flat = rng.choice(vocab, int(lens.sum()), p=p).astype(np.int32)
    ptr = np.concatenate([[0], np.cumsum(lens)])
    if dup:      # every document twice: every score tied at least in pairs
        docs = [flat[ptr[i]:ptr[i + 1]] for i in range(n_docs)] * 2
        flat = np.concatenate(docs)
        ptr = np.concatenate([[0], np.cumsum([len(d) for d in docs])])
        n_docs *= 2
    names = [f"D{x}" for x in rng.permutation(n_docs)]     # docno order != docid order
    return build_index_from_tokens(path, names, flat, ptr, [f"t{i}" for i in range(vocab)],
                                   Analyzer("none", "none"))
