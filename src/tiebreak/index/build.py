"""Building an index: analyse documents, invert (numba), write atomically.

Atomic write (see :mod:`tiebreak.index.store` for the layout): the arrays of a build go into a
new generation directory ``v-<hex>`` (staged as ``.v-<hex>.tmp``, each file fsync'ed), and the
manifest naming it is written to a temporary file and renamed onto ``manifest.json``
(``os.replace``, atomic). A fresh index is staged whole in a hidden ``.NAME.tmp-*`` directory
beside the target and renamed onto it. A reader therefore always finds the old or the new
manifest, each naming a complete generation; the old generation is deleted after the swap
(readers that already mapped it keep their maps; one caught in between re-reads the manifest).
A failure at any point removes what the build wrote and leaves an existing index untouched; a
hard crash can leave a ``.NAME.tmp-*`` or ``.v-*.tmp`` directory (never read, safe to delete).
A rebuild holds an ``flock`` on ``.v-<hex>.lock`` while it writes generation ``v-<hex>``, and
after its switch removes every generation it can prove unused (:func:`_remove_stale`: a dead
builder's, or one a racing build superseded). Two fresh builds of one path: the loser says so.
An ``OSError`` while writing names the destination the user gave; a full disk says so.
Directories are created with mode 0777 minus the umask, files 0666 minus the umask.
"""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import shutil
import sys
import time
from array import array
from pathlib import Path

import numpy as np

from .analysis import Analyzer
from .invariants import crc32
from .manifest import (
    ARRAYS_BY_VERSION,
    DATA_DIR_RE,
    FORMAT_NAME,
    FORMAT_VERSION,
    MANIFEST,
    fsync_dir,
)
from .readers import count_documents, find_bad_docno, iter_documents
from .store import open_index

__all__ = ["build_index", "build_index_from_tokens", "invert", "set_manifest_entry"]


def _kernels():
    from .._native.jit import njit

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


def _mkdir_unique(parent: Path, prefix: str, suffix: str = "") -> Path:
    """A new directory ``parent/prefix<hex>suffix`` (mode 0777 minus the umask)."""
    for _ in range(100):
        d = parent / f"{prefix}{secrets.token_hex(8)}{suffix}"
        try:
            os.mkdir(d)
            return d
        except FileExistsError:
            continue
    raise FileExistsError(f"cannot create a temporary directory in {parent}")


def _write_manifest(f: Path, manifest: dict) -> None:
    with open(f, "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())


def _write_generation(gen: Path, arrays: dict[str, np.ndarray], version: int) -> dict:
    missing = [n for n in ARRAYS_BY_VERSION[version] if n not in arrays]
    if missing:
        raise ValueError(f"arrays missing: {', '.join(missing)}")
    metas = {}
    for name in arrays:
        metas[name] = _save(gen, name, arrays[name])
    fsync_dir(gen)
    return metas


def _old_manifest(target: Path) -> dict | None:
    try:
        m = json.loads((target / MANIFEST).read_text(encoding="utf-8"))
        return m if isinstance(m, dict) else None
    except (OSError, ValueError):
        return None


def set_manifest_entry(path, key: str, value) -> None:
    """Set one optional top-level entry of an index's manifest (metadata that is not an array,
    such as the measured interval thresholds), leaving the arrays and generation untouched.

    The manifest is rewritten through a temporary file and ``os.replace`` (atomic); if a rebuild
    swaps the manifest meanwhile (read again just before the switch), the entry is set on the
    new manifest instead. ``key`` must not be a field the reader uses.

    Raises
    ------
    IndexFormatError
        ``path`` is not a (single, unsharded) tiebreak index.
    ValueError
        ``key`` is one of the format's own fields.
    """
    from .manifest import _read_manifest

    if key in ("format", "version", "data", "arrays", "analyzer", "block_size", "num_blocks",
               "num_docs", "vocab_size", "num_postings", "collection_length"):
        raise ValueError(f"manifest entry {key!r} belongs to the index format")
    path = Path(path)
    for _ in range(20):
        m = _read_manifest(path)
        tmp = path / f".{MANIFEST}.tmp-{secrets.token_hex(8)}"
        try:
            _write_manifest(tmp, dict(m, **{key: value}))
            if _read_manifest(path) != m:        # a rebuild switched meanwhile: again
                continue
            os.replace(tmp, path / MANIFEST)
            fsync_dir(path)
            return
        finally:
            tmp.unlink(missing_ok=True)
    raise OSError(f"{path}: the index kept changing while its manifest was updated; try again")


STALE_SECONDS = 3600
_GEN_RE = re.compile(r"^\.?(v-[0-9a-f]{8,64})(?:\.tmp)?$")


def _lock_path(parent: Path, gen: str) -> Path:
    """The lock file of generation ``gen`` (``v-<hex>``): ``parent/.v-<hex>.lock``."""
    return parent / f".{gen}.lock"


def _mkdir_locked(parent: Path) -> tuple[Path, int]:
    """A new staging directory ``parent/.v-<hex>.tmp`` and an open descriptor holding an
    exclusive ``flock`` on its lock file (taken *before* the directory exists). The lock is held
    while the build runs and released (never deleted) when it ends; the kernel releases it when
    the builder dies, so a cleaner that can take it knows no build is using the generation."""
    import fcntl

    for _ in range(100):
        gen = f"v-{secrets.token_hex(8)}"
        lock = _lock_path(parent, gen)
        fd = os.open(lock, os.O_CREAT | os.O_RDWR, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            d = parent / f".{gen}.tmp"
            os.mkdir(d)
            return d, fd
        except (FileExistsError, BlockingIOError):
            os.close(fd)
            continue
        except BaseException:
            os.close(fd)
            raise
    raise FileExistsError(f"cannot create a temporary directory in {parent}")


def _unlock(fd: int | None, gen: Path) -> None:
    """Release a builder's lock on generation directory ``gen`` (staged or renamed) and delete
    its lock file: after the manifest switch (the generation is named, or already superseded by
    a racing build) or after a failure (its directories are removed)."""
    if fd is None:
        return
    _lock_path(gen.parent, _GEN_RE.match(gen.name).group(1)).unlink(missing_ok=True)
    os.close(fd)


def _remove_stale(target: Path, keep: str | None = None) -> None:
    """Remove the generations in ``target`` that are provably unused: not named by its manifest
    (re-read here) and

    * with a lock file that can be taken: its builder died (see :func:`_mkdir_locked`);
    * a finished generation (``v-<hex>``) without a lock file: its builder deletes the lock only
      after switching the manifest, so it was superseded (two builds racing);
    * a staging directory (``.v-<hex>.tmp``) without a lock file (left by a tiebreak that did not
      lock): last touched more than :data:`STALE_SECONDS` ago.

    Leftovers of killed builds and the superseded generations of racing builds go this way;
    generations of a build in progress (lock held) stay."""
    import fcntl

    now = time.time()
    try:
        entries = list(target.iterdir())
    except OSError:
        return
    for p in entries:
        m = _GEN_RE.match(p.name)
        if m is None and p.name.endswith(".lock"):
            m = _GEN_RE.match(p.name[:-len(".lock")])
            if m is not None and not (target / m.group(1)).exists() and \
                    not (target / f".{m.group(1)}.tmp").exists():
                _remove_orphan_lock(p)
            continue
        if m is None or not p.is_dir():
            continue
        gen = m.group(1)
        if gen == keep:
            continue
        lock = _lock_path(target, gen)
        try:
            fd = os.open(lock, os.O_RDWR)
        except FileNotFoundError:
            fd = None
        except OSError:
            continue
        try:
            if fd is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue                 # a build in progress holds it
            elif p.name.endswith(".tmp") and now - p.stat().st_mtime <= STALE_SECONDS:
                continue
            named = (_old_manifest(target) or {}).get("data")
            if named == gen:
                continue
            shutil.rmtree(p, ignore_errors=True)
            if fd is not None and not (target / gen).exists() and \
                    not (target / f".{gen}.tmp").exists():
                lock.unlink(missing_ok=True)
        except OSError:
            pass
        finally:
            if fd is not None:
                os.close(fd)


def _remove_orphan_lock(lock: Path) -> None:
    """Delete the lock file of a generation that is gone, unless a builder holds it."""
    import fcntl

    try:
        fd = os.open(lock, os.O_RDWR)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        lock.unlink(missing_ok=True)
    except OSError:
        pass
    finally:
        os.close(fd)


def _rename_fresh(stage: Path, target: Path) -> None:
    """Rename the staged fresh index onto ``target`` (atomic); a clear error when another build
    created ``target`` meanwhile (two builds racing for a new index)."""
    try:
        os.rename(stage, target)
    except OSError as e:
        if e.errno in (errno.EEXIST, errno.ENOTEMPTY, errno.EISDIR) or \
                (e.errno == errno.ENOTDIR and target.exists()):
            raise FileExistsError(errno.EEXIST, f"another build created the index {target} while "
                                  "this one ran (two builds of one index at a time); that "
                                  "build's index is kept: run this one again to replace it",
                                  str(target)) from None
        raise


def _disk_full(e: OSError) -> bool:
    """ENOSPC / EDQUOT, or numpy's short write without an errno ('N requested and M
    written'), which only a full device causes."""
    return e.errno in (errno.ENOSPC, errno.EDQUOT) or \
        (e.errno is None and re.search(r"\d+ requested and \d+ written", str(e)) is not None)


class _DestinationErrors:
    """Context manager: an :class:`OSError` while writing the index is re-raised naming the
    destination the user gave (never a staging ``.tmp`` path or byte counts); a full disk says
    so."""

    def __init__(self, target):
        self.target = str(target)

    def __enter__(self):
        return self

    def __exit__(self, et, e, tb):
        if et is None or not issubclass(et, OSError) or isinstance(e, FileExistsError):
            return False
        if _disk_full(e):
            raise OSError(errno.ENOSPC, "No space left on device", self.target) from None
        if e.errno is not None and e.filename is not None and str(e.filename) != self.target:
            raise OSError(e.errno, f"{e.strerror} (writing {e.filename})", self.target) from None
        return False


def _write_atomic(target: Path, arrays: dict[str, np.ndarray], manifest: dict) -> None:
    with _DestinationErrors(target):
        _write_atomic_(Path(target), arrays, manifest)


def _write_atomic_(target: Path, arrays: dict[str, np.ndarray], manifest: dict) -> None:
    parent = target.parent if str(target.parent) else Path(".")
    parent.mkdir(parents=True, exist_ok=True)
    if target.exists() and not target.is_dir():
        raise FileExistsError(f"{target} exists and is not a directory; refusing to replace it")
    rebuild = (target / MANIFEST).is_file()
    if target.exists() and not rebuild and any(target.iterdir()):
        raise FileExistsError(f"{target} exists and is not a tiebreak index; "
                              "refusing to replace it")
    if not rebuild:
        stage = _mkdir_unique(parent, f".{target.name}.tmp-")
        try:
            gen = _mkdir_unique(stage, "v-")
            manifest = dict(manifest, data=gen.name,
                            arrays=_write_generation(gen, arrays, manifest["version"]))
            _write_manifest(stage / MANIFEST, manifest)
            fsync_dir(stage)
            _rename_fresh(stage, target)
            fsync_dir(parent)
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)
            raise
        return
    # rebuild in place: a new generation, then swap the manifest
    old = _old_manifest(target)
    staging, fd = _mkdir_locked(target)
    gen = None
    tmp_mf = target / f".{MANIFEST}.tmp-{secrets.token_hex(8)}"
    try:
        metas = _write_generation(staging, arrays, manifest["version"])
        gen = target / staging.name[1:-len(".tmp")]
        os.rename(staging, gen)
        _write_manifest(tmp_mf, dict(manifest, data=gen.name, arrays=metas))
        os.replace(tmp_mf, target / MANIFEST)     # the switch: atomic
        fsync_dir(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if gen is not None:
            shutil.rmtree(gen, ignore_errors=True)
        try:
            tmp_mf.unlink()
        except OSError:
            pass
        _unlock(fd, staging)
        raise
    _unlock(fd, gen)
    # the old generation is no longer named by the manifest (readers that mapped it keep it)
    if old is not None:
        data = old.get("data", ".")
        if isinstance(data, str) and DATA_DIR_RE.match(data) and data != gen.name:
            shutil.rmtree(target / data, ignore_errors=True)
        elif data == "." and isinstance(old.get("arrays"), dict):   # pre-generation layout
            for name in old["arrays"]:
                if isinstance(name, str) and name.isidentifier():
                    try:
                        (target / f"{name}.npy").unlink()
                    except OSError:
                        pass
    _remove_stale(target)


def compress(inv: dict[str, np.ndarray], block: int | None = None) -> dict[str, np.ndarray]:
    """The version-2 arrays (:mod:`tiebreak.index.codec`) of the inverted arrays of
    :func:`invert`: ``blk_last``, ``post_off``, ``post_bytes``, ``pos_off``, ``pos_bytes``."""
    from . import codec

    block = codec.BLOCK if block is None else int(block)
    pp = inv["post_ptr"]
    blk_last, post_off, post_bytes = codec.encode_postings(pp, inv["post_docid"], inv["post_tf"],
                                                           block)
    pos_off, pos_bytes = codec.encode_positions(pp, inv["pos_ptr"], inv["pos"], block)
    return {"blk_last": blk_last, "post_off": post_off, "post_bytes": post_bytes,
            "pos_off": pos_off, "pos_bytes": pos_bytes}


def build_index_from_tokens(path, docnos, tok: np.ndarray, doc_ptr: np.ndarray, terms,
                            analyzer: Analyzer | None = None, source: str = "",
                            extra: dict | None = None, compressed: bool = True,
                            direct: bool = False):
    """Write an index from already analysed documents.

    ``tok`` holds term ids into ``terms`` (any order of ``terms``; the index sorts them), document
    d is ``tok[doc_ptr[d]:doc_ptr[d+1]]``. ``compressed``: write format version 2 (blocks of
    bit-packed docid gaps, frequencies and positions, about a fifth of the bytes; default) or
    version 1 (flat int32 arrays, memory-mapped without decoding). ``direct``: also store the
    direct file (``direct``, the documents' term ids in position order; optional array of
    :mod:`tiebreak.index.store`). Returns the opened :class:`Index`.

    Raises
    ------
    ValueError
        Term ids outside ``[0, len(terms))``, ``doc_ptr`` not running from 0 to ``len(tok)``
        without decreasing, repeated terms, docnos that are not strings, empty, contain
        whitespace or repeat.
    FileExistsError
        ``path`` exists and is neither an index nor an empty directory.
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
    tok = np.asarray(tok)
    if tok.ndim != 1 or (tok.size and tok.dtype.kind not in "iu"):
        raise ValueError("tok must be a 1-d integer array of term ids")
    if tok.size and (int(tok.min()) < 0 or int(tok.max()) >= len(terms)):
        raise ValueError(f"term ids must be in [0, {len(terms)}), got "
                         f"[{int(tok.min())}, {int(tok.max())}]")
    tok = remap[tok.astype(np.int64)] if len(tok) else np.zeros(0, np.int32)
    doc_ptr = np.asarray(doc_ptr)
    if doc_ptr.ndim != 1 or (doc_ptr.size and doc_ptr.dtype.kind not in "iu"):
        raise ValueError("doc_ptr must be a 1-d integer array")
    doc_ptr = doc_ptr.astype(np.int64)
    if doc_ptr.size and (doc_ptr[0] != 0 or doc_ptr[-1] != len(tok)
                         or np.any(np.diff(doc_ptr) < 0)):
        raise ValueError("doc_ptr must start at 0, never decrease and end at len(tok)")
    docnos = list(docnos)
    if not all(isinstance(d, str) for d in docnos):
        raise ValueError("docnos must be strings")
    bad = find_bad_docno(docnos)
    if bad is not None:
        raise ValueError(f"document {bad[0] + 1}: {bad[1]}; a run line would split it")
    docnos = np.asarray(docnos, dtype=str) if docnos else np.zeros(0, dtype="<U1")
    N = len(docnos)
    if doc_ptr.shape != (N + 1,):
        raise ValueError("doc_ptr must have len(docnos) + 1 entries")
    rank = _docno_rank(docnos)
    if N > 1:
        srt = np.empty_like(docnos)
        srt[rank] = docnos
        dup = np.flatnonzero(srt[1:] == srt[:-1])
        if dup.size:
            raise ValueError(f"duplicate docno {str(srt[dup[0]])!r}")
    inv = invert(tok, doc_ptr, len(terms))
    common = dict(docnos=docnos, docno_rank=rank, doclen=np.diff(doc_ptr).astype(np.int32),
                  terms=terms[order], df=inv["df"], cf=inv["cf"], post_ptr=inv["post_ptr"])
    manifest = {
        "format": FORMAT_NAME, "version": FORMAT_VERSION if compressed else 1,
        "analyzer": analyzer.config(),
        "num_docs": N, "vocab_size": int(len(terms)), "num_postings": int(len(inv["post_docid"])),
        "collection_length": int(len(inv["pos"])), "source": source,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    if compressed:
        from .codec import BLOCK

        arrays = dict(common, **compress(inv, BLOCK))
        manifest.update(block_size=BLOCK, num_blocks=int(arrays["blk_last"].size))
    else:
        arrays = dict(inv, **common)
    if direct:
        arrays["direct"] = np.ascontiguousarray(tok, np.int32)
    if extra:
        manifest.update(extra)
    _write_atomic(Path(path), arrays, manifest)
    return open_index(path)


def build_index(source, path, analyzer: Analyzer | None = None, fields=None,
                progress: bool | None = None, compressed: bool = True, direct: bool = False):
    """Index ``source`` (file or ir_datasets id, see :mod:`tiebreak.index.readers`) into the
    directory ``path``, atomically. Returns the opened :class:`Index`.

    ``progress``: tqdm bar on stderr; None = only when stderr is a terminal. ``compressed``:
    format version 2 (default) or 1, ``direct``: store the direct file too, see
    :func:`build_index_from_tokens`.

    Raises
    ------
    ValueError
        A malformed source (``file:line`` and the field, see :mod:`tiebreak.index.readers`), a
        duplicate docno, an ir_datasets id that cannot be read.
    FileExistsError
        ``path`` exists and is neither an index nor an empty directory.
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
                                   source=str(source), extra=extra, compressed=compressed,
                                   direct=direct)
