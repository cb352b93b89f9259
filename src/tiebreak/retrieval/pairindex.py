"""A term-pair index for the pairs a query set needs (Lu 2018, Table 2.2; the nextword / pair
index of H. E. Williams, J. Zobel and D. Bahle, "Fast phrase querying with combined indexes",
ACM TOIS 22(4), 2004), built from the positional index.

For every ordered term pair ``(a, b)`` of SDM's window features of a query file (each query's
adjacent proximity terms in query order, :func:`tiebreak.retrieval.dependency.query_pairs`),
the index stores a posting list over the documents where the pair occurs within the window:
docid, the **nextword** count ``#1(a b)`` (positions p holding a with b at p + 1: the phrase
"a b", Williams et al.'s nextword entry) and the **unordered-window** count ``#uwN(a b)``
(greedy non-overlapping optimal intervals of the two terms of length <= N, Indri's ``#uwN`` as
SDM counts it). The per-document counts are those of the positional computation
(:func:`tiebreak.retrieval.proxprune.pair_counts_in`, the one definition); a phrase or window
lookup then reads one slice instead of merging two positional posting lists. Documents with
both counts 0 are not stored (with N >= 2 a phrase is also a window, so that is the documents
where ``#uwN > 0``).

On disk, a directory::

    manifest.json    format "tiebreak-pair-index", version 1, window, counts, the positional
                     index it was built from (its manifest's data generation, num_docs,
                     vocab_size, collection_length) and per array: dtype, shape, crc32
    pair_a.npy       (n,)   int32 first term id of each pair, pairs sorted by (a, b), distinct
    pair_b.npy       (n,)   int32 second term id
    pair_ptr.npy     (n+1,) int64 postings of pair i are [pair_ptr[i], pair_ptr[i+1])
    docid.npy        (P,)   int32 docids, ascending within a pair
    n_od.npy         (P,)   int32 #1 (nextword / phrase) count
    n_uw.npy         (P,)   int32 #uwN count

:func:`open_pair_index` checks every array's crc32, shape and the invariants (pointers, sorted
distinct pairs, term ids in the vocabulary, docids ascending and in range, counts
>= 0, not both 0) and, given the positional index, that it is the one the pair index
was built from. Errors raise :class:`PairIndexError` naming the file.

Only pairs of two distinct terms (the query plan's terms are distinct); FDM's windows of three
or more terms are not stored.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from .intervals import jit
from .proxprune import _pair_counts, next_common

__all__ = ["PairIndex", "PairIndexError", "build_pair_index", "open_pair_index",
           "FORMAT_NAME", "FORMAT_VERSION"]

FORMAT_NAME = "tiebreak-pair-index"
FORMAT_VERSION = 1
_ARRAYS = {"pair_a": "int32", "pair_b": "int32", "pair_ptr": "int64", "docid": "int32",
           "n_od": "int32", "n_uw": "int32"}


class PairIndexError(ValueError):
    """A pair-index directory that is missing, corrupt, or built from another index."""


@jit
def _pair_postings(pp, pd, qp, pos, ta, tb, window, out_d, out_o, out_u):
    """Per-document (#1, #uwN) counts of the pair (ta, tb) by one merge of the two terms'
    positional postings; the documents with #uwN or #1 > 0 written to ``out_*`` (room for
    min(df_a, df_b)); returns their number."""
    ie, je = pp[ta + 1], pp[tb + 1]
    n = 0
    i, j = next_common(pd, pp[ta], ie, pp[tb], je)
    while i < ie:
        o, u = _pair_counts(pos, qp[i], qp[i + 1], qp[j], qp[j + 1], window)
        if o > 0 or u > 0:
            out_d[n] = pd[i]
            out_o[n] = o
            out_u[n] = u
            n += 1
        i, j = next_common(pd, i + 1, ie, j + 1, je)
    return n


def _index_identity(index) -> dict:
    m = getattr(index, "manifest", {}) or {}
    return {"data": m.get("data", "."), "num_docs": int(index.num_docs),
            "vocab_size": int(index.vocab_size),
            "collection_length": int(index.collection_length)}


class PairIndex:
    """A loaded term-pair index (module docstring). Attributes: ``window``, ``pair_a``,
    ``pair_b``, ``pair_ptr``, ``docid``, ``n_od``, ``n_uw`` (numpy arrays), ``num_pairs``,
    ``num_postings``, ``path`` (None when built in memory only)."""

    def __init__(self, arrays: dict[str, np.ndarray], window: int, identity: dict,
                 path: Path | None = None):
        self.__dict__.update(arrays)
        self.window = int(window)
        self.identity = identity
        self.path = path
        self.num_pairs = int(self.pair_a.size)
        self.num_postings = int(self.docid.size)
        self._key = self.pair_a.astype(np.int64) << 32 | self.pair_b.astype(np.int64)

    def _find(self, a: int, b: int) -> int:
        k = (int(a) << 32) | int(b)
        i = int(np.searchsorted(self._key, k))
        return i if i < self._key.size and self._key[i] == k else -1

    def __contains__(self, pair) -> bool:
        return self._find(*pair) >= 0

    def pairs(self) -> list[tuple[int, int]]:
        """The stored ``(a, b)`` term-id pairs, sorted."""
        return list(zip(self.pair_a.tolist(), self.pair_b.tolist()))

    def postings(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(docids int32, #1 counts int32, #uwN counts int32)`` of the pair ``(a, b)`` (term
        ids), docids ascending: the documents where it occurs within the window.

        Raises
        ------
        KeyError
            The pair is not in the index (it was not in the query set it was built for).
        """
        i = self._find(a, b)
        if i < 0:
            raise KeyError(f"term pair ({a}, {b}) is not in the pair index")
        s, e = self.pair_ptr[i], self.pair_ptr[i + 1]
        return self.docid[s:e], self.n_od[s:e], self.n_uw[s:e]

    def phrase(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        """``(docids int32, counts int32)`` of the phrase "a b" (nextword entry): the documents
        with ``#1(a b) > 0`` and their counts. Raises KeyError as :meth:`postings`."""
        d, o, _ = self.postings(a, b)
        keep = o > 0
        return d[keep], o[keep]

    def totals(self, a: int, b: int) -> tuple[int, int]:
        """Collection counts ``(#1, #uwN)`` of the pair: SDM's window statistics ``f_{I,C}``.
        Raises KeyError as :meth:`postings`."""
        _, o, u = self.postings(a, b)
        return int(o.sum(dtype=np.int64)), int(u.sum(dtype=np.int64))

    def nbytes(self) -> int:
        """Bytes of the arrays (on disk: plus the .npy headers and the manifest)."""
        return sum(getattr(self, k).nbytes for k in _ARRAYS)


def build_pair_index(index, queries, path=None, window: int = 8,
                     max_prox_terms: int | None = None) -> PairIndex:
    """Build the pair index of ``queries`` (lists of analysed terms, or ``(qid, text)`` topics
    analysed with the index's analyser) from the positional ``index``: the pairs of
    :func:`tiebreak.retrieval.dependency.query_pairs`, window ``window`` (SDM's ``#uw8`` by
    default). Written to the directory ``path`` when given (created; an existing pair index
    there is replaced), else kept in memory.

    Raises
    ------
    ValueError
        ``window < 1``, or ``path`` exists and is not a pair-index directory.
    """
    from .dependency import query_pairs
    from .dependency.plan import _arrays

    if isinstance(window, bool) or int(window) != window or window < 1:
        raise ValueError(f"window must be an integer >= 1, got {window!r}")
    qs = []
    for q in queries:
        if isinstance(q, tuple) and len(q) == 2 and isinstance(q[1], str):
            q = index.analyzer.analyze(q[1])
        qs.append(list(q))
    pairs = query_pairs(index, qs, max_prox_terms)
    pp, pd, _, qp, pos = _arrays(index)[:5]
    df = np.diff(pp)
    cap = sum(int(min(df[a], df[b])) for a, b in pairs)
    docid = np.empty(cap, np.int32)
    n_od = np.empty(cap, np.int32)
    n_uw = np.empty(cap, np.int32)
    ptr = np.zeros(len(pairs) + 1, np.int64)
    at = 0
    for i, (a, b) in enumerate(pairs):
        at += _pair_postings(pp, pd, qp, pos, np.int64(a), np.int64(b), np.int64(window),
                             docid[at:], n_od[at:], n_uw[at:])
        ptr[i + 1] = at
    arrays = {"pair_a": np.array([a for a, _ in pairs], np.int32).reshape(-1),
              "pair_b": np.array([b for _, b in pairs], np.int32).reshape(-1),
              "pair_ptr": ptr, "docid": docid[:at].copy(), "n_od": n_od[:at].copy(),
              "n_uw": n_uw[:at].copy()}
    ident = _index_identity(index)
    if path is not None:
        _write(Path(path), arrays, int(window), ident)
        return open_pair_index(path, index)
    return PairIndex(arrays, int(window), ident)


def _write(path: Path, arrays: dict[str, np.ndarray], window: int, ident: dict) -> None:
    from ..index.invariants import crc32

    if path.exists() and any(path.iterdir()) and not (path / "manifest.json").exists():
        raise ValueError(f"{path} exists and is not a pair index; choose another path")
    path.mkdir(parents=True, exist_ok=True)
    metas = {}
    for name, a in arrays.items():
        np.save(path / f"{name}.npy", a, allow_pickle=False)
        metas[name] = {"dtype": str(a.dtype), "shape": list(a.shape), "crc32": crc32(a)}
    manifest = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "window": window,
                "num_pairs": int(arrays["pair_a"].size),
                "num_postings": int(arrays["docid"].size), "index": ident, "arrays": metas}
    tmp = path / "manifest.json.tmp"
    tmp.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path / "manifest.json")


def open_pair_index(path, index=None) -> PairIndex:
    """Load a pair index written by :func:`build_pair_index` (read into memory, checked).
    ``index``: the positional index it must have been built from (checked when given).

    Raises
    ------
    PairIndexError
        Missing or unreadable manifest or array, another format or version, a crc32, dtype or
        shape mismatch, a broken invariant, or a different positional index.
    """
    from ..index.invariants import check_ptr, crc32

    path = Path(path)
    mf = path / "manifest.json"
    try:
        m = json.loads(mf.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise PairIndexError(f"{mf}: cannot be read: {e}") from None
    if not isinstance(m, dict) or m.get("format") != FORMAT_NAME:
        raise PairIndexError(f"{mf}: not a {FORMAT_NAME} manifest")
    if m.get("version") != FORMAT_VERSION:
        raise PairIndexError(f"{mf}: version {m.get('version')!r}, this tiebreak reads "
                             f"{FORMAT_VERSION}; rebuild the pair index")
    arrays = {}
    for name, dt in _ARRAYS.items():
        f = path / f"{name}.npy"
        meta = (m.get("arrays") or {}).get(name)
        if not isinstance(meta, dict):
            raise PairIndexError(f"{mf}: lacks arrays.{name}; rebuild the pair index")
        try:
            a = np.load(f, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise PairIndexError(f"{f}: cannot be read: {e}; rebuild the pair index") from None
        if str(a.dtype) != dt or a.ndim != 1 or list(a.shape) != meta.get("shape"):
            raise PairIndexError(f"{f}: {a.dtype}{list(a.shape)}, expected {dt}"
                                 f"{meta.get('shape')}; rebuild the pair index")
        if crc32(a) != meta.get("crc32"):
            raise PairIndexError(f"{f}: checksum mismatch: the file is corrupt; rebuild the "
                                 "pair index")
        arrays[name] = a
    ident = m.get("index") or {}
    msg = _invariant(arrays, ident, check_ptr)
    if msg:
        raise PairIndexError(f"{path}: corrupt pair index: {msg}; rebuild the pair index")
    if index is not None and ident != _index_identity(index):
        raise PairIndexError(f"{path}: built from another index ({ident}), not "
                             f"{getattr(index, 'path', index)}; rebuild the pair index")
    return PairIndex(arrays, int(m.get("window", 0)), ident, path)


def _invariant(a: dict[str, np.ndarray], ident: dict, check_ptr) -> str | None:
    n = a["pair_a"].size
    P = a["docid"].size
    if a["pair_b"].size != n or a["pair_ptr"].size != n + 1:
        return "pair_a / pair_b / pair_ptr lengths disagree"
    if a["n_od"].size != P or a["n_uw"].size != P:
        return "docid / n_od / n_uw lengths disagree"
    if check_ptr(a["pair_ptr"], P) >= 0:
        return "pair_ptr does not run from 0 to the number of postings without decreasing"
    V, N = int(ident.get("vocab_size", -1)), int(ident.get("num_docs", -1))
    for k in ("pair_a", "pair_b"):
        if n and (a[k].min() < 0 or a[k].max() >= V):
            return f"{k}: a term id outside [0, vocab_size)"
    key = a["pair_a"].astype(np.int64) << 32 | a["pair_b"].astype(np.int64)
    if n > 1 and not np.all(key[1:] > key[:-1]):
        return "pairs not sorted and distinct"
    if P and (a["docid"].min() < 0 or a["docid"].max() >= N):
        return "a docid outside [0, num_docs)"
    if P and (min(a["n_od"].min(), a["n_uw"].min()) < 0
              or (a["n_od"].astype(np.int64) + a["n_uw"]).min() < 1):
        return "a negative count, or a posting with both counts 0"
    # docids ascending within each pair: a drop is allowed only where a new pair starts
    drop = np.flatnonzero(np.diff(a["docid"]) <= 0) + 1
    if drop.size and not np.all(np.isin(drop, a["pair_ptr"])):
        return "docids not ascending within a pair"
    return None
