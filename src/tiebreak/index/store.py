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

Optional, in either version (written on request: ``build_index(..., direct=True)``,
``tiebreak index --direct``; :data:`~tiebreak.index.manifest.OPTIONAL_ARRAYS`)::

      direct.npy        (C,)   int32 the stored direct file: the term ids of every document in
                               position order, document d at [D_d, D_d + doclen[d]) with D_d the
                               sum of the earlier documents' lengths (Lu 2018, Table 2.2: the
                               direct file beside the inverted file)

An index without it opens as before; its checks are a crc32, term ids in ``[0, V)`` at first
access, and in :meth:`Index.verify` the equality with the positional postings (every position of
every posting of t holds t).

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

Split: :mod:`tiebreak.index.manifest` (format constants, manifest, loading, derived-array
cache), :mod:`tiebreak.index.invariants` (crc32 and the invariant checks); this module keeps
the :class:`Index` and :func:`open_index`.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from pathlib import Path

import numpy as np

from .analysis import Analyzer
from .invariants import INVARIANTS, _kernels, crc32, direct_from_postings
from .manifest import (
    _COUNTS,
    ARRAYS,
    ARRAYS_BY_VERSION,
    FORMAT_NAME,
    FORMAT_VERSION,
    MANIFEST,
    READ_VERSIONS,
    IndexFormatError,
    _load,
    _read_derived,
    _read_manifest,
    _Vanished,
    _write_derived,
)

__all__ = ["Index", "IndexFormatError", "open_index", "FORMAT_NAME", "FORMAT_VERSION", "ARRAYS",
           "ARRAYS_BY_VERSION", "READ_VERSIONS", "VERIFY_MODES"]

VERIFY_MODES = ("lazy", "eager", "structure")
#: arrays a version-2 index decodes from its blocks at first access
DECODED = ("post_docid", "post_tf", "pos_ptr", "pos")
#: lookups of :meth:`Index.term_id` answered by binary search before the vocabulary's dict is
#: built
_FEW_LOOKUPS = 256

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
        if self.has_direct:
            # the direct file rebuilt from the (checked) positional postings must equal it
            want = direct_from_postings(self.post_ptr, self.post_docid, self.pos_ptr, self.pos,
                                        self.doclen)
            bad = np.flatnonzero(want != np.asarray(self.direct))
            if bad.size:
                raise IndexFormatError(f"{where}/direct.npy: corrupt index: the direct file "
                                       f"disagrees with the positional postings at token "
                                       f"{int(bad[0])}; rebuild the index")

    # -- the stored direct file (optional)
    @property
    def has_direct(self) -> bool:
        """Whether the index holds the stored direct file (``direct``)."""
        return "direct" in self._raw

    def doc_start(self) -> np.ndarray:
        """int64 (N+1,): document d's tokens are ``direct[doc_start[d]:doc_start[d+1]]`` (the
        running sum of ``doclen``; cached)."""
        a = self._cache.get("doc_start")
        if a is None:
            a = np.zeros(self.num_docs + 1, np.int64)
            np.cumsum(np.asarray(self.doclen), dtype=np.int64, out=a[1:])
            self._cache["doc_start"] = a
        return a

    def document_terms(self, docid: int) -> np.ndarray:
        """The term ids (int32) of document ``docid`` in position order, from the stored direct
        file.

        Raises
        ------
        ValueError
            The index has no direct file (build it with ``direct=True``).
        IndexError
            ``docid`` outside ``[0, num_docs)``.
        """
        if not self.has_direct:
            raise ValueError(f"{self.path}: the index has no direct file; rebuild it with "
                             "'tiebreak index --direct'")
        docid = int(docid)
        if not 0 <= docid < self.num_docs:
            raise IndexError(f"docid {docid} outside [0, {self.num_docs})")
        s = self.doc_start()
        return np.asarray(self.direct[s[docid]:s[docid + 1]])

    def __repr__(self) -> str:
        return (f"Index({str(self.path)!r}, num_docs={self.num_docs}, vocab_size={self.vocab_size},"
                f" postings={self.num_postings}, {self.analyzer!r})")


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
