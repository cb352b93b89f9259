"""On-disk index: flat numpy arrays plus a versioned ``manifest.json``; mmap loading.

Layout of an index directory (format version :data:`FORMAT_VERSION`)::

    manifest.json     format, version, analyser config, counts, per-array dtype/shape/bytes/crc32
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

:func:`open_index` checks the manifest, every file's size, dtype and shape, and the pointer
invariants that cost O(1); :meth:`Index.verify` additionally checks every crc32.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path

import numpy as np

from .analysis import Analyzer

__all__ = ["Index", "IndexFormatError", "open_index", "FORMAT_NAME", "FORMAT_VERSION", "ARRAYS"]

FORMAT_NAME = "tiebreak-index"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"

#: array name -> dtype kind check ("U" = unicode of any width)
ARRAYS = {
    "docnos": "U", "docno_rank": "int32", "doclen": "int32", "terms": "U", "df": "int32",
    "cf": "int64", "post_ptr": "int64", "post_docid": "int32", "post_tf": "int32",
    "pos_ptr": "int64", "pos": "int32",
}


class IndexFormatError(ValueError):
    """The index directory is missing, incomplete, corrupted or of another format version."""


def crc32(a: np.ndarray) -> int:
    return zlib.crc32(memoryview(np.ascontiguousarray(a)).cast("B"))


class Index:
    """A loaded (memory-mapped) index. Build with :func:`tiebreak.index.build_index`, load with
    :func:`open_index`. Attributes follow the Index contract in ``docs/retrieval.md``."""

    def __init__(self, path: Path, manifest: dict, arrays: dict[str, np.ndarray]):
        self.path = path
        self.manifest = manifest
        self.docnos = arrays["docnos"]
        self.docno_rank = arrays["docno_rank"]
        self.doclen = arrays["doclen"]
        self.terms = arrays["terms"]
        self.df = arrays["df"]
        self.cf = arrays["cf"]
        self.post_ptr = arrays["post_ptr"]
        self.post_docid = arrays["post_docid"]
        self.post_tf = arrays["post_tf"]
        self.pos_ptr = arrays["pos_ptr"]
        self.pos = arrays["pos"]
        self.num_docs = int(manifest["num_docs"])
        self.vocab_size = int(manifest["vocab_size"])
        self.num_postings = int(manifest["num_postings"])
        self.collection_length = int(manifest["collection_length"])
        self.avgdl = self.collection_length / self.num_docs if self.num_docs else 0.0
        try:
            self.analyzer = Analyzer.from_config(manifest["analyzer"])
        except (ValueError, KeyError, TypeError) as e:
            raise IndexFormatError(f"{path}: bad analyser in manifest: {e}") from None
        self._cache: dict = {}

    # -- vocabulary
    def term_id(self, term: str) -> int:
        """Id of an (already analysed) term, -1 if it is not in the vocabulary."""
        v = self._cache.get("vocab")
        if v is None:   # built on first use (loading stays instant)
            v = self._cache["vocab"] = dict(zip(self.terms.tolist(), range(self.vocab_size)))
        return v.get(term, -1)

    def term(self, tid: int) -> str:
        return str(self.terms[tid])

    # -- postings
    def postings(self, tid: int) -> tuple[np.ndarray, np.ndarray]:
        """(docids int32 ascending, tf int32) of term ``tid``."""
        a, b = self.post_ptr[tid], self.post_ptr[tid + 1]
        return self.post_docid[a:b], self.post_tf[a:b]

    def positions(self, tid: int) -> tuple[np.ndarray, np.ndarray]:
        """(offsets int64 (df+1,), pos int32 (cf,)): positions of the i-th posting of ``tid`` are
        ``pos[offsets[i]:offsets[i+1]]``."""
        a, b = self.post_ptr[tid], self.post_ptr[tid + 1]
        ptr = self.pos_ptr[a:b + 1]
        base = ptr[0]
        return ptr - base, self.pos[base:ptr[-1]]

    def docno(self, docid: int) -> str:
        return str(self.docnos[docid])

    def verify(self) -> None:
        """Check every array's crc32 against the manifest (reads everything)."""
        for name, meta in self.manifest["arrays"].items():
            got = crc32(getattr(self, name))
            if got != meta["crc32"]:
                raise IndexFormatError(f"{self.path}: {name}.npy: checksum mismatch "
                                       f"(manifest {meta['crc32']}, file {got}); rebuild the index")

    def __repr__(self) -> str:
        return (f"Index({str(self.path)!r}, num_docs={self.num_docs}, vocab_size={self.vocab_size},"
                f" postings={self.num_postings}, {self.analyzer!r})")


def _load_array(path: Path, name: str, meta: dict) -> np.ndarray:
    f = path / f"{name}.npy"
    if not f.is_file():
        raise IndexFormatError(f"{path}: {name}.npy is missing; rebuild the index")
    size = f.stat().st_size
    if size != meta["file_bytes"]:
        raise IndexFormatError(f"{path}: {name}.npy has {size} bytes, the manifest says "
                               f"{meta['file_bytes']} (truncated or replaced); rebuild the index")
    try:
        if int(np.prod(meta["shape"])) == 0:
            a = np.load(f)
        else:
            a = np.load(f, mmap_mode="r")
    except Exception as e:  # noqa: BLE001 - any numpy failure is a format error here
        raise IndexFormatError(f"{path}: {name}.npy cannot be read: {e}") from None
    if list(a.shape) != list(meta["shape"]) or str(a.dtype) != meta["dtype"]:
        raise IndexFormatError(f"{path}: {name}.npy is {a.dtype}{list(a.shape)}, the manifest "
                               f"says {meta['dtype']}{meta['shape']}")
    want = ARRAYS[name]
    if (want == "U" and a.dtype.kind != "U") or (want != "U" and str(a.dtype) != want):
        raise IndexFormatError(f"{path}: {name}.npy has dtype {a.dtype}, expected {want}")
    return a


def open_index(path) -> Index:
    """Load an index directory (memory-mapped, no data is read up front).

    Raises
    ------
    IndexFormatError
        Missing directory or manifest, unknown format or version, a missing or truncated array,
        or counts that do not add up.
    """
    path = Path(path)
    mf = path / MANIFEST
    if not mf.is_file():
        raise IndexFormatError(f"{path}: not a tiebreak index (no {MANIFEST})")
    try:
        manifest = json.loads(mf.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise IndexFormatError(f"{path}: {MANIFEST} cannot be read: {e}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
        raise IndexFormatError(f"{path}: {MANIFEST} is not a {FORMAT_NAME} manifest")
    ver = manifest.get("version")
    if ver != FORMAT_VERSION:
        raise IndexFormatError(f"{path}: index format version {ver!r}, this tiebreak reads "
                               f"version {FORMAT_VERSION}; rebuild the index with "
                               f"'tiebreak index'")
    try:
        metas = manifest["arrays"]
        arrays = {name: _load_array(path, name, metas[name]) for name in ARRAYS}
        N, V, P = (int(manifest[k]) for k in ("num_docs", "vocab_size", "num_postings"))
        C = int(manifest["collection_length"])
    except KeyError as e:
        raise IndexFormatError(f"{path}: {MANIFEST} lacks {e}") from None
    checks = [
        (arrays["docnos"].shape == (N,), "docnos length != num_docs"),
        (arrays["doclen"].shape == (N,), "doclen length != num_docs"),
        (arrays["docno_rank"].shape == (N,), "docno_rank length != num_docs"),
        (arrays["terms"].shape == (V,), "terms length != vocab_size"),
        (arrays["df"].shape == (V,) and arrays["cf"].shape == (V,), "df/cf length != vocab_size"),
        (arrays["post_ptr"].shape == (V + 1,), "post_ptr length != vocab_size + 1"),
        (arrays["post_docid"].shape == (P,) and arrays["post_tf"].shape == (P,),
         "postings length != num_postings"),
        (arrays["pos_ptr"].shape == (P + 1,), "pos_ptr length != num_postings + 1"),
        (arrays["pos"].shape == (C,), "pos length != collection_length"),
        (int(arrays["post_ptr"][-1]) == P, "post_ptr[-1] != num_postings"),
        (int(arrays["pos_ptr"][-1]) == C, "pos_ptr[-1] != collection_length"),
    ]
    for ok, msg in checks:
        if not ok:
            raise IndexFormatError(f"{path}: inconsistent index: {msg}")
    return Index(path, manifest, arrays)


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
