"""On-disk index: numpy arrays plus a versioned ``manifest.json``; mmap loading, verification.

Layout of an index directory, format version 1 (flat, uncompressed)::

    manifest.json     format, version, analyser config, counts, the data directory ("data")
                      and per array: dtype, shape, file bytes, crc32
    v-<hex>/          the arrays of this generation (immutable once the manifest names it):
      docnos.npy        (N,)   <U    external document ids, in internal docid order
      docno_rank.npy    (N,)   int32 rank of each docno in byte (UTF-8) order, for tie breaking
      doclen.npy        (N,)   int32 indexed tokens per document (after stopword removal)
      terms.npy         (V,)   <U    vocabulary, sorted; term id = position
      df.npy            (V,)   int32 document frequency
      cf.npy            (V,)   int64 collection frequency
      post_ptr.npy      (V+1,) int64 postings of term t are [post_ptr[t], post_ptr[t+1])
      post_docid.npy    (P,)   int32 docids, ascending within a term
      post_tf.npy       (P,)   int32 within-document frequency
      pos_ptr.npy       (P+1,) int64 positions of posting j are pos[pos_ptr[j]:pos_ptr[j+1]]
      pos.npy           (sum tf,) int32 0-based token positions (stopwords take no position)

Format version 2 (:data:`FORMAT_VERSION`, the default written by
:func:`tiebreak.index.build_index`) keeps ``docnos`` .. ``post_ptr`` and replaces the four
posting and position arrays by blocks of ``block_size`` (128) postings
(:mod:`tiebreak.index.codec`; the manifest adds ``block_size`` and ``num_blocks`` = nb)::

      blk_last.npy      (nb,)   int32 last docid of every block (skip data)
      post_off.npy      (nb+1,) int64 byte offsets of the blocks in post_bytes
      post_bytes.npy    (...)   uint8 bit-packed docid gaps and frequencies, per block
      pos_off.npy       (nb+1,) int64 byte offsets of the blocks' positions in pos_bytes
      pos_bytes.npy     (...)   uint8 bit-packed position gaps, per block

``post_docid``, ``post_tf``, ``pos_ptr`` and ``pos`` remain attributes of the :class:`Index`
with the meaning above: they are decoded (in memory, 100-200M postings/s) at their first
access, after the compressed arrays they come from passed their checks, and the decoded arrays
then pass the same invariants as version 1's. A corrupt block raises :class:`IndexFormatError`
(the decoder checks every length and offset before reading; it never reads outside its arrays).

An index written before generations existed has no ``data`` entry and keeps its arrays beside the
manifest; it is read the same way.

A generation directory may also hold ``derived/``: arrays computed from the index for one model
setting (block maxima), cached by :meth:`Index.derived`; they are not part of the index.

A rebuild writes a new generation directory and then replaces ``manifest.json`` atomically
(``os.replace``), so a reader sees the old or the new index, never a mixture: :func:`open_index`
reads the manifest once, memory-maps every array of the generation it names, and if a file
vanished meanwhile (the old generation is deleted after the swap) it reads the new manifest and
starts again.

Checks (all raise :class:`IndexFormatError`, never crash the interpreter):

* at open, O(1) per array: manifest types, format and version, every file's presence, byte size,
  dtype and shape, pointer ends;
* at the first access of an array through the :class:`Index` (``verify="lazy"``, the default), or
  at open for every array (``verify="eager"``): its crc32 against the manifest, and the invariants
  that keep the search kernels inside their arrays (pointer arrays start at 0, never decrease and
  end at the array they point into; docids in ``[0, N)`` and ascending within a term; positions
  ascending within a posting and below the document's length; tf = position count >= 1;
  df = postings per term; counts that sum to the collection length). An array passes once per
  process: re-opening the same unchanged files does not hash them again;
* :meth:`Index.verify` (``tiebreak index --verify``) re-hashes everything and adds the whole-index
  checks (cf and doclen recomputed from the postings, docnos valid and consistent with
  ``docno_rank``, terms sorted and distinct).

Size: one module because the on-disk layout, its manifest, mmap loading and verification must
change together.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import threading
import time
import zlib
from pathlib import Path

import numpy as np

from .analysis import STEMMERS, Analyzer

__all__ = ["Index", "IndexFormatError", "open_index", "FORMAT_NAME", "FORMAT_VERSION", "ARRAYS",
           "ARRAYS_BY_VERSION", "READ_VERSIONS", "VERIFY_MODES"]

FORMAT_NAME = "tiebreak-index"
FORMAT_VERSION = 2
#: format versions this tiebreak reads
READ_VERSIONS = (1, 2)
MANIFEST = "manifest.json"
#: name of a generation directory inside an index directory
DATA_DIR_RE = re.compile(r"^v-[0-9a-f]{8,64}$")
VERIFY_MODES = ("lazy", "eager", "structure")

_COMMON = {
    "docnos": "U", "docno_rank": "int32", "doclen": "int32", "terms": "U", "df": "int32",
    "cf": "int64", "post_ptr": "int64",
}
#: format version -> array name -> dtype kind check ("U" = unicode of any width)
ARRAYS_BY_VERSION = {
    1: dict(_COMMON, post_docid="int32", post_tf="int32", pos_ptr="int64", pos="int32"),
    2: dict(_COMMON, blk_last="int32", post_off="int64", post_bytes="uint8", pos_off="int64",
            pos_bytes="uint8"),
}
#: the arrays of the version written (:data:`FORMAT_VERSION`)
ARRAYS = ARRAYS_BY_VERSION[FORMAT_VERSION]
#: arrays a version-2 index decodes from its blocks at first access
DECODED = ("post_docid", "post_tf", "pos_ptr", "pos")
#: lookups of :meth:`Index.term_id` answered by binary search before the vocabulary's dict is
#: built
_FEW_LOOKUPS = 256
_COUNTS = ("num_docs", "vocab_size", "num_postings", "collection_length")


class IndexFormatError(ValueError):
    """The index directory is missing, incomplete, corrupted or of another format version."""


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


#: array name -> invariant check run at its first access (after its crc32); returns a message
#: or None. Checks may read other arrays through the index (which verifies those first). An array
#: without an entry here gets its crc32 checked only.
INVARIANTS = {
    "docno_rank": _inv_docno_rank, "doclen": _inv_doclen, "df": _inv_df, "cf": _inv_cf,
    "post_ptr": _inv_post_ptr, "post_docid": _inv_post_docid, "post_tf": _inv_post_tf,
    "pos_ptr": _inv_pos_ptr, "pos": _inv_pos, "blk_last": _inv_blk_last,
    "post_off": _inv_offsets("post_bytes"), "pos_off": _inv_offsets("pos_bytes"),
}

#: arrays that passed in this process: (file, dev, inode, size, mtime_ns, crc, counts) -> whether
#: the crc32 was checked too
_PASSED: dict[tuple, bool] = {}
_PASSED_LOCK = threading.Lock()


# ---------------------------------------------------------------- the index
class Index:
    """A loaded (memory-mapped) index. Build with :func:`tiebreak.index.build_index`, load with
    :func:`open_index`. Attributes follow the Index contract in ``docs/retrieval.md``.

    The arrays (``docnos``, ``post_ptr``, ...) are attributes; each is verified (crc32 and
    invariants, see the module docstring) the first time it is read, unless the index was opened
    with ``verify="structure"`` (invariants only). A failed check raises
    :class:`IndexFormatError`.
    """

    def __init__(self, path: Path, manifest: dict, arrays: dict[str, np.ndarray],
                 data_dir: Path | None = None, verify: str = "lazy"):
        self.path = Path(path)
        self.data_dir = Path(data_dir) if data_dir is not None else self.path
        self.manifest = manifest
        self._raw = dict(arrays)
        self._verify = verify
        self.num_docs = int(manifest["num_docs"])
        self.vocab_size = int(manifest["vocab_size"])
        self.num_postings = int(manifest["num_postings"])
        self.collection_length = int(manifest["collection_length"])
        self.avgdl = self.collection_length / self.num_docs if self.num_docs else 0.0
        self.format_version = int(manifest["version"])
        self.block_size = int(manifest.get("block_size", 0))
        try:
            self.analyzer = Analyzer.from_config(manifest["analyzer"])
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise IndexFormatError(f"{path}: {MANIFEST}: bad analyser: {e}") from None
        self._cache: dict = {}
        self._checking: set[str] = set()
        self._lock = threading.RLock()

    def __getattr__(self, name: str):
        # only called when normal lookup fails: the first access of an array
        raw = self.__dict__.get("_raw", {})
        if name.startswith("_") or (name not in raw and not (
                name in DECODED and self.__dict__.get("format_version") == 2)):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        with self._lock:    # another thread waits until the array is checked
            a = self.__dict__.get(name)
            if a is not None:
                return a
            if name not in raw:
                self._decode(name)
                return self.__dict__[name]
            a = self._raw[name]
            if name in self._checking:      # an invariant of another array reads this one
                return a
            self._check_array(name, a, checksum=self._verify != "structure", force=False)
            self.__dict__[name] = a
            return a

    def _decode(self, name: str) -> None:
        """Decode the version-2 blocks behind ``name`` (and its companion arrays), check the
        invariants of the decoded arrays and set them as attributes."""
        from . import codec

        if name in ("post_docid", "post_tf"):
            pp = np.asarray(self.post_ptr)
            blk_last, off, data = self.blk_last, self.post_off, self.post_bytes
            docid = np.empty(self.num_postings, np.int32)
            tf = np.empty(self.num_postings, np.int32)
            b, code = codec.decode_postings(pp, np.asarray(blk_last), np.asarray(off),
                                            np.asarray(data), self.block_size, self.num_docs,
                                            docid, tf)
            if b >= 0:
                raise IndexFormatError(f"{self.data_dir}/post_bytes.npy: corrupt index: block "
                                       f"{b}: {codec.ERRORS[code]}; rebuild the index")
            self._check_decoded({"post_docid": docid, "post_tf": tf})
        else:
            tf = np.asarray(self.post_tf)
            pos_ptr = np.zeros(self.num_postings + 1, np.int64)
            np.cumsum(tf, dtype=np.int64, out=pos_ptr[1:])
            if pos_ptr[-1] != self.collection_length:      # post_tf's invariant checked it
                raise IndexFormatError(f"{self.data_dir}: corrupt index: frequencies do not "
                                       "sum to collection_length; rebuild the index")
            off, data = self.pos_off, self.pos_bytes
            pos = np.empty(self.collection_length, np.int32)
            b, code = codec.decode_positions(np.asarray(self.post_ptr), pos_ptr, np.asarray(off),
                                             np.asarray(data), self.block_size, pos)
            if b >= 0:
                raise IndexFormatError(f"{self.data_dir}/pos_bytes.npy: corrupt index: block "
                                       f"{b}: {codec.ERRORS[code]}; rebuild the index")
            self._check_decoded({"pos_ptr": pos_ptr, "pos": pos})

    def _check_decoded(self, arrays: dict[str, np.ndarray]) -> None:
        for name, a in arrays.items():
            self._checking.add(name)
            try:
                msg = INVARIANTS[name](self, a)
            finally:
                self._checking.discard(name)
            if msg:
                src = "post_bytes" if name in ("post_docid", "post_tf") else "pos_bytes"
                raise IndexFormatError(f"{self.data_dir}/{src}.npy: corrupt index: decoded "
                                       f"{name}: {msg}; rebuild the index")
            self.__dict__[name] = a

    def _check_array(self, name: str, a: np.ndarray, checksum: bool, force: bool) -> None:
        meta = self.manifest["arrays"][name]
        f = self.data_dir / f"{name}.npy"
        key = None
        try:
            st = f.stat()
            key = (str(f.resolve()), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
                   meta["crc32"], *(getattr(self, c) for c in _COUNTS))
        except OSError:
            pass   # replaced after mapping: the map stays valid, just check it
        if not force and key is not None and key in _PASSED and (_PASSED[key] or not checksum):
            return
        if checksum:
            got = crc32(a)
            if got != meta["crc32"]:
                raise IndexFormatError(f"{f}: checksum mismatch (manifest {meta['crc32']}, file "
                                       f"{got}): the file is corrupt; rebuild the index")
        check = INVARIANTS.get(name)
        if check is not None:
            self._checking.add(name)
            try:
                msg = check(self, a)
            finally:
                self._checking.discard(name)
            if msg:
                raise IndexFormatError(f"{f}: corrupt index: {msg}; rebuild the index")
        if key is not None:
            with _PASSED_LOCK:
                _PASSED[key] = _PASSED.get(key, False) or checksum

    # -- vocabulary
    def _vocab(self) -> dict[str, int]:
        v = self._cache.get("vocab")
        if v is None:   # built on first use (loading stays instant)
            v = self._cache["vocab"] = dict(zip(self.terms.tolist(), range(self.vocab_size)))
        return v

    def term_id(self, term: str) -> int:
        """Id of an (already analysed) term, -1 if it is not in the vocabulary.

        The first :data:`_FEW_LOOKUPS` lookups of an index are binary searches in the sorted
        ``terms`` array (a query of a few terms does not build the whole vocabulary's dict,
        80 ms for 200,000 terms); later ones use the dict."""
        v = self._cache.get("vocab")
        if v is not None:
            return v.get(term, -1)
        n = self._cache.get("lookups", 0)
        if n >= _FEW_LOOKUPS:
            return self._vocab().get(term, -1)
        self._cache["lookups"] = n + 1
        terms = self.terms
        i = int(np.searchsorted(terms, term))
        return i if i < terms.size and terms[i] == term else -1

    def term_ids(self, terms) -> np.ndarray:
        """Ids of a sequence of (already analysed) terms, int64 (len(terms),), -1 for a term
        not in the vocabulary (:meth:`term_id` for many terms at once)."""
        get = self._vocab().get
        return np.fromiter((get(t, -1) for t in terms), np.int64, len(terms))

    def term(self, tid: int) -> str:
        return str(self.terms[tid])

    # -- postings
    def postings(self, tid: int) -> tuple[np.ndarray, np.ndarray]:
        """(docids int32 ascending, tf int32) of term ``tid``. On a version-2 index whose
        postings are not decoded yet, only the term's blocks are decoded (a copy, in numpy:
        :func:`tiebreak.index.unpack.decode_term`; numba is not imported).

        Raises
        ------
        IndexError
            ``tid`` outside ``[0, vocab_size)`` (version 2, not decoded).
        IndexFormatError
            A corrupt block of the term.
        """
        a, b = self.post_ptr[tid], self.post_ptr[tid + 1]
        if self.format_version == 1 or "post_docid" in self.__dict__:
            return self.post_docid[a:b], self.post_tf[a:b]
        from . import unpack

        tid = int(tid)
        if not 0 <= tid < self.vocab_size:
            raise IndexError(f"term id {tid} outside [0, {self.vocab_size})")
        tb = self._cache.get("term_blocks")
        if tb is None:
            tb = self._cache["term_blocks"] = unpack.term_blocks(np.asarray(self.post_ptr),
                                                                 self.block_size)
        blk_last, off, data = self.blk_last, self.post_off, self.post_bytes
        docid, tf, bad, code = unpack.decode_term(np.asarray(self.post_ptr), np.asarray(blk_last),
                                                  np.asarray(off), np.asarray(data),
                                                  self.block_size, self.num_docs, tid,
                                                  int(tb[tid]))
        if bad >= 0:
            from .codec import ERRORS

            raise IndexFormatError(f"{self.data_dir}/post_bytes.npy: corrupt index: block "
                                   f"{bad}: {ERRORS[code]}; rebuild the index")
        return docid, tf

    def positions(self, tid: int) -> tuple[np.ndarray, np.ndarray]:
        """(offsets int64 (df+1,), pos int32 (cf,)): positions of the i-th posting of ``tid`` are
        ``pos[offsets[i]:offsets[i+1]]``."""
        a, b = self.post_ptr[tid], self.post_ptr[tid + 1]
        ptr = self.pos_ptr[a:b + 1]
        base = ptr[0]
        return ptr - base, self.pos[base:ptr[-1]]

    def docno(self, docid: int) -> str:
        return str(self.docnos[docid])

    # -- derived arrays (model-dependent, cached in memory and next to the index)
    def derived(self, name: str, params, compute) -> dict[str, np.ndarray]:
        """Arrays derived from this index for ``params`` (for example the per-term and
        per-block impact maxima of one model's parameter setting), computed once by
        ``compute()`` (a dict of array name -> ndarray) and cached.

        The cache is the loaded :class:`Index` and, when the index has a generation directory
        that can be written, ``<generation>/derived/<name>-<hash>/`` (one ``.npy`` per array
        and a ``meta.json`` with each one's dtype, shape and crc32; the hash covers ``name``,
        ``repr(params)`` and every array checksum of the manifest), written atomically. A later
        process reads the arrays from there (into memory, crc32-checked) instead of computing
        them; a missing, unreadable or corrupt cache entry is computed again and rewritten, a
        read-only index is simply not cached on disk. Rebuilding the index removes the
        generation and its cache with it.

        Returns
        -------
        dict of str -> ndarray
            The arrays of ``compute()`` (in-memory copies when read from disk).
        """
        mkey = ("derived", name, repr(params))
        hit = self._cache.get(mkey)
        if hit is not None:
            return hit
        where = None
        if self.data_dir != self.path:
            ident = json.dumps([name, repr(params), self.manifest.get("data"),
                                sorted((k, v["crc32"], v["shape"]) for k, v in
                                       self.manifest["arrays"].items())])
            h = hashlib.sha1(ident.encode("utf-8")).hexdigest()[:20]
            where = self.data_dir / "derived" / f"{name}-{h}"
        arrays = _read_derived(where) if where is not None else None
        if arrays is None:
            arrays = {k: np.ascontiguousarray(v) for k, v in compute().items()}
            if where is not None:
                _write_derived(where, arrays)
        self._cache[mkey] = arrays
        return arrays

    def verify(self) -> None:
        """Check everything: every array's crc32 (re-read, even if it passed before) and
        invariants, then the whole-index checks: cf and doclen recomputed from the postings,
        docnos non-empty, without whitespace, distinct and ranked by ``docno_rank`` in byte
        order, terms sorted and distinct. Reads the whole index (about 3 GB/s).

        Raises
        ------
        IndexFormatError
            Naming the file and the first failed check.
        """
        with self._lock:
            for name in self._raw:
                self._check_array(name, self._raw[name], checksum=True, force=True)
                self.__dict__[name] = self._raw[name]
            if self.format_version == 2:     # decode again from the re-checked blocks
                for name in DECODED:
                    self.__dict__.pop(name, None)
                self._decode("post_docid")
                self._decode("pos")
        where = self.data_dir
        cf, dl = _kernels()["recount"](np.asarray(self.post_ptr), np.asarray(self.post_docid),
                                       np.asarray(self.post_tf), self.num_docs)
        if not np.array_equal(cf, np.asarray(self.cf, np.int64)):
            raise IndexFormatError(f"{where}/cf.npy: corrupt index: cf differs from the sum of tf "
                                   "over the postings; rebuild the index")
        if not np.array_equal(dl, np.asarray(self.doclen, np.int64)):
            raise IndexFormatError(f"{where}/doclen.npy: corrupt index: doclen differs from the "
                                   "sum of tf per document; rebuild the index")
        if self.num_docs:
            from .readers import find_bad_docno

            bad = find_bad_docno(self.docnos.tolist())
            if bad is not None:
                raise IndexFormatError(f"{where}/docnos.npy: docid {bad[0]}: {bad[1]}; rebuild "
                                       "the index")
            ordered = np.empty_like(self.docnos)
            ordered[np.asarray(self.docno_rank)] = self.docnos
            if not np.all(ordered[1:] > ordered[:-1]):
                raise IndexFormatError(f"{where}/docnos.npy: docnos are not distinct or not "
                                       "ranked by docno_rank; rebuild the index")
        if self.vocab_size > 1 and not np.all(self.terms[1:] > self.terms[:-1]):
            raise IndexFormatError(f"{where}/terms.npy: terms not sorted and distinct; rebuild "
                                   "the index")

    def __repr__(self) -> str:
        return (f"Index({str(self.path)!r}, num_docs={self.num_docs}, vocab_size={self.vocab_size},"
                f" postings={self.num_postings}, {self.analyzer!r})")


# ---------------------------------------------------------------- derived-array cache
def _read_derived(where: Path) -> dict[str, np.ndarray] | None:
    """The arrays of a derived-cache directory, or None when it is missing or fails a check."""
    try:
        meta = json.loads((where / "meta.json").read_text(encoding="utf-8"))
        out = {}
        for k, m in meta.items():
            if not re.fullmatch(r"[a-z][a-z0-9_]*", k):
                return None
            a = np.load(where / f"{k}.npy", allow_pickle=False)
            if (str(a.dtype) != m["dtype"] or list(a.shape) != m["shape"]
                    or crc32(a) != m["crc32"] or a.dtype.hasobject or not a.dtype.isnative):
                return None
            out[k] = np.ascontiguousarray(a)
        return out
    except Exception:  # noqa: BLE001 - a cache that cannot be read is recomputed
        return None


def _write_derived(where: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write a derived-cache directory atomically; silently nothing when it cannot be written."""
    import secrets
    import shutil

    tmp = where.parent / f".{where.name}.tmp-{secrets.token_hex(6)}"
    trash = where.parent / f".{where.name}.old-{secrets.token_hex(6)}"
    try:
        tmp.mkdir(parents=True)
        meta = {}
        for k, a in arrays.items():
            np.save(tmp / f"{k}.npy", a, allow_pickle=False)
            meta[k] = {"dtype": str(a.dtype), "shape": list(a.shape), "crc32": crc32(a)}
        (tmp / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
        if where.exists():      # a corrupt entry: move it aside, then put the new one in place
            os.rename(where, trash)
        os.rename(tmp, where)
    except OSError:
        pass
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(trash, ignore_errors=True)


# ---------------------------------------------------------------- manifest and loading
class _Vanished(Exception):
    """An array file disappeared while opening (a concurrent rebuild): read the manifest again."""


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _check_manifest(path: Path, m) -> None:
    """Types and ranges of every manifest field the reader uses."""
    def bad(field, want, got):
        raise IndexFormatError(f"{path}/{MANIFEST}: {field}: expected {want}, got {got!r}; "
                               "rebuild the index")

    if not isinstance(m, dict) or m.get("format") != FORMAT_NAME:
        raise IndexFormatError(f"{path}: {MANIFEST} is not a {FORMAT_NAME} manifest")
    ver = m.get("version")
    if not _is_int(ver) or ver not in READ_VERSIONS:
        raise IndexFormatError(f"{path}: index format version {ver!r}, this tiebreak reads "
                               f"versions {', '.join(map(str, READ_VERSIONS))}; rebuild the "
                               f"index with 'tiebreak index'")
    if ver == 2:
        for k, lo, hi in (("block_size", 1, 2**16), ("num_blocks", 0, 2**62)):
            if not _is_int(m.get(k)) or not lo <= m[k] <= hi:
                bad(k, f"an integer in [{lo}, {hi}]", m.get(k))
    for k in _COUNTS:
        if k not in m:
            raise IndexFormatError(f"{path}/{MANIFEST} lacks {k!r}; rebuild the index")
        if not _is_int(m[k]) or m[k] < 0:
            bad(k, "an integer >= 0", m[k])
    if m["num_docs"] >= 2**31 or m["vocab_size"] >= 2**31:
        bad("num_docs/vocab_size", "< 2**31 (int32 ids)", max(m["num_docs"], m["vocab_size"]))
    an = m.get("analyzer")
    if not isinstance(an, dict):
        bad("analyzer", "an object", an)
    if an.get("stemmer", "porter") not in STEMMERS:
        bad("analyzer.stemmer", f"one of {', '.join(STEMMERS)}", an.get("stemmer"))
    if an.get("stopwords", "lucene") not in ("lucene", "smart", "none", "file", "list"):
        bad("analyzer.stopwords", "lucene, smart, none, file or list", an.get("stopwords"))
    sl = an.get("stopword_list", [])
    if not isinstance(sl, list) or not all(isinstance(w, str) for w in sl):
        bad("analyzer.stopword_list", "a list of strings", sl)
    data = m.get("data", ".")
    if not isinstance(data, str) or not (data == "." or DATA_DIR_RE.match(data)):
        bad("data", "'.' or a generation directory name 'v-<hex>'", data)
    arrays = m.get("arrays")
    if not isinstance(arrays, dict):
        bad("arrays", "an object (array name -> description)", arrays)
    for name in ARRAYS_BY_VERSION[ver]:
        if name not in arrays:
            raise IndexFormatError(f"{path}/{MANIFEST} lacks arrays.{name}; rebuild the index")
    for name, meta in arrays.items():
        f = f"arrays.{name}"
        if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            bad("arrays", "names of lower-case letters, digits and _", name)
        if not isinstance(meta, dict):
            bad(f, "an object", meta)
        if not isinstance(meta.get("dtype"), str):
            bad(f"{f}.dtype", "a string", meta.get("dtype"))
        shape = meta.get("shape")
        if not isinstance(shape, list) or not all(_is_int(s) and s >= 0 for s in shape):
            bad(f"{f}.shape", "a list of integers >= 0", shape)
        for k, hi in (("file_bytes", None), ("crc32", 2**32)):
            v = meta.get(k)
            if not _is_int(v) or v < 0 or (hi is not None and v >= hi):
                bad(f"{f}.{k}", "an integer >= 0" + (f" and < {hi}" if hi else ""), v)


def _read_manifest(path: Path) -> dict:
    mf = path / MANIFEST
    try:
        raw = mf.read_bytes()
    except FileNotFoundError:
        raise IndexFormatError(f"{path}: not a tiebreak index (no {MANIFEST})") from None
    except OSError as e:
        if not path.exists():
            raise IndexFormatError(f"{path}: no such index directory") from None
        raise IndexFormatError(f"{path}: {MANIFEST} cannot be read: {e}") from None
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise IndexFormatError(f"{path}: {MANIFEST} cannot be read: {e}") from None
    _check_manifest(path, manifest)
    return manifest


def _load_array(where: Path, name: str, meta: dict, version: int) -> np.ndarray:
    f = where / f"{name}.npy"
    try:
        st = f.stat()
    except FileNotFoundError:
        raise _Vanished(f"{f} is missing; rebuild the index") from None
    except OSError as e:
        raise IndexFormatError(f"{f} cannot be read: {e}") from None
    if not stat.S_ISREG(st.st_mode):
        raise IndexFormatError(f"{f} is not a file; rebuild the index")
    size = st.st_size
    if size != meta["file_bytes"]:
        raise IndexFormatError(f"{f} has {size} bytes, the manifest says "
                               f"{meta['file_bytes']} (truncated or replaced); rebuild the index")
    try:
        if int(np.prod(meta["shape"], dtype=np.float64)) == 0:
            a = np.load(f, allow_pickle=False)
        else:
            a = np.load(f, mmap_mode="r", allow_pickle=False)
    except FileNotFoundError:
        raise _Vanished(f"{f} is missing; rebuild the index") from None
    except Exception as e:  # noqa: BLE001 - any numpy failure is a format error here
        raise IndexFormatError(f"{f} cannot be read: {e}; rebuild the index") from None
    if list(a.shape) != list(meta["shape"]) or str(a.dtype) != meta["dtype"]:
        raise IndexFormatError(f"{f} is {a.dtype}{list(a.shape)}, the manifest "
                               f"says {meta['dtype']}{meta['shape']}; rebuild the index")
    want = ARRAYS_BY_VERSION[version].get(name)
    if want is not None and ((want == "U" and (a.dtype.kind != "U" or not a.dtype.isnative))
                             or (want != "U" and a.dtype != np.dtype(want))):
        raise IndexFormatError(f"{f} has dtype {a.dtype}, expected {want}; rebuild the index")
    if want is None and (not a.dtype.isnative or a.dtype.hasobject):
        raise IndexFormatError(f"{f} has dtype {a.dtype}; rebuild the index")
    return a


def _load(path: Path, manifest: dict) -> tuple[Path, dict[str, np.ndarray]]:
    where = path if manifest.get("data", ".") == "." else path / manifest["data"]
    metas = manifest["arrays"]
    version = manifest["version"]
    arrays = {name: _load_array(where, name, metas[name], version) for name in metas}
    N, V, P, C = (manifest[k] for k in _COUNTS)
    checks = [
        (arrays["docnos"].shape == (N,), "docnos length != num_docs"),
        (arrays["doclen"].shape == (N,), "doclen length != num_docs"),
        (arrays["docno_rank"].shape == (N,), "docno_rank length != num_docs"),
        (arrays["terms"].shape == (V,), "terms length != vocab_size"),
        (arrays["df"].shape == (V,) and arrays["cf"].shape == (V,), "df/cf length != vocab_size"),
        (arrays["post_ptr"].shape == (V + 1,), "post_ptr length != vocab_size + 1"),
    ]
    ends = [("post_ptr", P, "num_postings")]
    if version == 1:
        checks += [
            (arrays["post_docid"].shape == (P,) and arrays["post_tf"].shape == (P,),
             "postings length != num_postings"),
            (arrays["pos_ptr"].shape == (P + 1,), "pos_ptr length != num_postings + 1"),
            (arrays["pos"].shape == (C,), "pos length != collection_length"),
        ]
        ends.append(("pos_ptr", C, "collection_length"))
    else:
        nb = manifest["num_blocks"]
        checks += [
            (arrays["blk_last"].shape == (nb,), "blk_last length != num_blocks"),
            (arrays["post_off"].shape == (nb + 1,), "post_off length != num_blocks + 1"),
            (arrays["pos_off"].shape == (nb + 1,), "pos_off length != num_blocks + 1"),
            (arrays["post_bytes"].ndim == 1 and arrays["pos_bytes"].ndim == 1,
             "post_bytes/pos_bytes not one-dimensional"),
            (P <= nb * manifest["block_size"] and nb <= P, "num_blocks does not fit num_postings"),
        ]
        ends += [("post_off", arrays["post_bytes"].size, "the size of post_bytes"),
                 ("pos_off", arrays["pos_bytes"].size, "the size of pos_bytes")]
    for ok, msg in checks:
        if not ok:
            raise IndexFormatError(f"{path}: inconsistent index: {msg}; rebuild the index")
    for ptr, end, msg in ends:
        if int(arrays[ptr][0]) != 0 or int(arrays[ptr][-1]) != end:
            raise IndexFormatError(f"{where}/{ptr}.npy: inconsistent index: {ptr} does not run "
                                   f"from 0 to {msg}; rebuild the index")
    return where, arrays


def open_index(path, verify: str = "lazy") -> Index:
    """Load an index directory (memory-mapped; no array data is read up front).

    Parameters
    ----------
    path : index directory written by :func:`tiebreak.index.build_index`
    verify : ``"lazy"`` (default) checks each array's crc32 and invariants at its first access;
        ``"eager"`` checks every array now (:meth:`Index.verify`, reads the whole index);
        ``"structure"`` checks invariants only, at first access (no hashing; still never lets
        a kernel read outside an array, but a flipped bit that keeps the invariants goes unseen).

    Returns
    -------
    Index
        A consistent generation: if the index is rebuilt while it is opened, the old or the new
        one, never a mixture.

    Raises
    ------
    IndexFormatError
        Missing directory or manifest, a manifest field of the wrong type, unknown format or
        version, a missing or truncated array, counts that do not add up; later (at first
        access) a checksum mismatch or a broken invariant.
    """
    if verify not in VERIFY_MODES:
        raise ValueError(f"verify: expected one of {', '.join(VERIFY_MODES)}, got {verify!r}")
    path = Path(path)
    manifest = _read_manifest(path)
    for attempt in range(50):
        try:
            where, arrays = _load(path, manifest)
        except _Vanished as e:
            # a concurrent rebuild may have replaced the manifest and removed the generation we
            # were reading: start again from the new manifest; the same manifest = really missing
            time.sleep(0.001 * min(attempt, 10))
            again = _read_manifest(path)
            if again == manifest:
                raise IndexFormatError(str(e)) from None
            manifest = again
            continue
        idx = Index(path, manifest, arrays, data_dir=where, verify=verify)
        if verify == "eager":
            idx.verify()
        return idx
    raise IndexFormatError(f"{path}: the index kept changing while it was opened; try again")


def fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
