"""Building an index: analyse documents, invert (numba), write atomically.

Atomic write: everything goes into a hidden temporary directory beside the target
(``.NAME.tmp-*``); each array is fsync'ed, ``manifest.json`` is written last, then the directory is
renamed onto the target. If the target already holds an index it is first renamed aside and
removed only after the new one is in place. A failure at any point removes the temporary
directory and leaves an existing index untouched; a hard crash can leave a ``.NAME.tmp-*``
directory (never loaded, safe to delete), and only a crash in the instant between the two renames
leaves no index at the target (the old one is then in ``.NAME.old-*``).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from array import array
from pathlib import Path

import numpy as np

from .analysis import Analyzer
from .readers import count_documents, iter_documents
from .store import ARRAYS, FORMAT_NAME, FORMAT_VERSION, MANIFEST, crc32, fsync_dir, open_index

__all__ = ["build_index", "build_index_from_tokens", "invert"]


def _kernels():
    from numba import njit

    @njit(cache=True)
    def _invert(tok, doc_ptr, V):
        N = doc_ptr.size - 1
        df = np.zeros(V, np.int64)
        cf = np.zeros(V, np.int64)
        last = np.full(V, -1, np.int64)
        for d in range(N):
            for i in range(doc_ptr[d], doc_ptr[d + 1]):
                t = tok[i]
                cf[t] += 1
                if last[t] != d:
                    last[t] = d
                    df[t] += 1
        post_ptr = np.zeros(V + 1, np.int64)
        for t in range(V):
            post_ptr[t + 1] = post_ptr[t] + df[t]
        P = post_ptr[V]
        post_docid = np.empty(P, np.int32)
        post_tf = np.zeros(P, np.int32)
        nxt = post_ptr[:V].copy()
        cur = np.zeros(V, np.int64)
        last[:] = -1
        for d in range(N):
            for i in range(doc_ptr[d], doc_ptr[d + 1]):
                t = tok[i]
                if last[t] != d:
                    last[t] = d
                    cur[t] = nxt[t]
                    nxt[t] += 1
                    post_docid[cur[t]] = d
                post_tf[cur[t]] += 1
        pos_ptr = np.zeros(P + 1, np.int64)
        for j in range(P):
            pos_ptr[j + 1] = pos_ptr[j] + post_tf[j]
        pos = np.empty(pos_ptr[P], np.int32)
        fill = pos_ptr[:P].copy()
        nxt[:] = post_ptr[:V]
        last[:] = -1
        for d in range(N):
            base = doc_ptr[d]
            for i in range(base, doc_ptr[d + 1]):
                t = tok[i]
                if last[t] != d:
                    last[t] = d
                    cur[t] = nxt[t]
                    nxt[t] += 1
                j = cur[t]
                pos[fill[j]] = i - base
                fill[j] += 1
        return df, cf, post_ptr, post_docid, post_tf, pos_ptr, pos

    return _invert


_INVERT = None


def invert(tok: np.ndarray, doc_ptr: np.ndarray, V: int) -> dict[str, np.ndarray]:
    """Inverted arrays from a flat token-id array ``tok`` and per-document pointers ``doc_ptr``
    (documents are ``tok[doc_ptr[d]:doc_ptr[d+1]]``). Term ids must be in ``[0, V)``."""
    global _INVERT
    if _INVERT is None:
        _INVERT = _kernels()
    df, cf, post_ptr, post_docid, post_tf, pos_ptr, pos = _INVERT(
        np.ascontiguousarray(tok, np.int32), np.ascontiguousarray(doc_ptr, np.int64), int(V))
    if df.size and df.max() > np.iinfo(np.int32).max:
        raise ValueError("document frequency exceeds int32")
    return {"df": df.astype(np.int32), "cf": cf, "post_ptr": post_ptr, "post_docid": post_docid,
            "post_tf": post_tf, "pos_ptr": pos_ptr, "pos": pos}


def _progress(total, disable, desc):
    from tqdm import tqdm

    return tqdm(total=total, disable=disable, desc=desc, unit=" docs", file=sys.stderr,
                mininterval=0.5)


def _save(dirpath: Path, name: str, a: np.ndarray) -> dict:
    """np.save + fsync; returns the manifest entry."""
    f = dirpath / f"{name}.npy"
    with open(f, "wb") as fh:
        np.save(fh, a, allow_pickle=False)
        fh.flush()
        os.fsync(fh.fileno())
    return {"dtype": str(a.dtype), "shape": list(a.shape), "file_bytes": f.stat().st_size,
            "crc32": crc32(a)}


def _docno_rank(docnos: np.ndarray) -> np.ndarray:
    # Python str order is code-point order, which equals UTF-8 byte order (trec_eval's strcmp)
    order = np.argsort(docnos, kind="stable")
    rank = np.empty(len(docnos), np.int32)
    rank[order] = np.arange(len(docnos), dtype=np.int32)
    return rank


def _write_atomic(target: Path, arrays: dict[str, np.ndarray], manifest: dict) -> None:
    target = Path(target)
    parent = target.parent if str(target.parent) else Path(".")
    parent.mkdir(parents=True, exist_ok=True)
    if target.exists() and not (target / MANIFEST).is_file():
        if not target.is_dir() or any(target.iterdir()):
            raise FileExistsError(f"{target} exists and is not a tiebreak index; "
                                  "refusing to replace it")
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=parent))
    try:
        metas = {}
        for name in ARRAYS:
            metas[name] = _save(tmp, name, arrays[name])
        manifest = dict(manifest, arrays=metas)
        mf = tmp / MANIFEST
        with open(mf, "w", encoding="utf-8") as fh:
            json.dump(manifest, fh, indent=1)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        fsync_dir(tmp)
        old = None
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=parent))
            os.rmdir(old)
            os.replace(target, old)
        os.replace(tmp, target)
        fsync_dir(parent)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def build_index_from_tokens(path, docnos, tok: np.ndarray, doc_ptr: np.ndarray, terms,
                            analyzer: Analyzer | None = None, source: str = "",
                            extra: dict | None = None):
    """Write an index from already analysed documents.

    ``tok`` holds term ids into ``terms`` (any order of ``terms``; the index sorts them), document
    d is ``tok[doc_ptr[d]:doc_ptr[d+1]]``. Returns the opened :class:`Index`.
    """
    analyzer = analyzer or Analyzer()
    terms = np.asarray(terms, dtype=str)
    if terms.size == 0:
        terms = np.zeros(0, dtype="<U1")
    order = np.argsort(terms, kind="stable")
    if terms.size and np.any(terms[order][1:] == terms[order][:-1]):
        raise ValueError("terms must be distinct")
    remap = np.empty(len(terms), np.int32)
    remap[order] = np.arange(len(terms), dtype=np.int32)
    tok = remap[np.asarray(tok, np.int64)] if len(tok) else np.zeros(0, np.int32)
    doc_ptr = np.asarray(doc_ptr, np.int64)
    docnos = np.asarray(docnos, dtype=str)
    if docnos.size == 0:
        docnos = np.zeros(0, dtype="<U1")
    N = len(docnos)
    if doc_ptr.shape != (N + 1,):
        raise ValueError("doc_ptr must have len(docnos) + 1 entries")
    inv = invert(tok, doc_ptr, len(terms))
    arrays = dict(inv, docnos=docnos, docno_rank=_docno_rank(docnos),
                  doclen=np.diff(doc_ptr).astype(np.int32), terms=terms[order])
    manifest = {
        "format": FORMAT_NAME, "version": FORMAT_VERSION, "analyzer": analyzer.config(),
        "num_docs": N, "vocab_size": int(len(terms)), "num_postings": int(len(inv["post_docid"])),
        "collection_length": int(len(inv["pos"])), "source": source,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    if extra:
        manifest.update(extra)
    _write_atomic(Path(path), arrays, manifest)
    return open_index(path)


def build_index(source, path, analyzer: Analyzer | None = None, fields=None,
                progress: bool | None = None):
    """Index ``source`` (file or ir_datasets id, see :mod:`tiebreak.index.readers`) into the
    directory ``path``, atomically. Returns the opened :class:`Index`.

    ``progress``: tqdm bar on stderr; None = only when stderr is a terminal.
    """
    analyzer = analyzer or Analyzer()
    if progress is None:
        progress = sys.stderr.isatty()
    vocab: dict[str, int] = {}
    tok = array("i")
    lens = array("q", [0])
    docnos: list[str] = []
    seen: set[str] = set()
    analyze = analyzer.analyze
    with _progress(count_documents(source) if progress else None, not progress,
                   "indexing") as bar:
        for docno, text in iter_documents(source, fields=fields):
            if docno in seen:
                raise ValueError(f"{source}: duplicate docno {docno!r}")
            seen.add(docno)
            docnos.append(docno)
            ids = [vocab.setdefault(t, len(vocab)) for t in analyze(text)]
            tok.extend(ids)
            lens.append(len(tok))
            bar.update(1)
    terms = list(vocab)
    extra = {"fields": fields if isinstance(fields, str) or fields is None else list(fields)}
    return build_index_from_tokens(path, docnos, np.frombuffer(tok, np.int32),
                                   np.frombuffer(lens, np.int64), terms, analyzer,
                                   source=str(source), extra=extra)
