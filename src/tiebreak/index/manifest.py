"""The manifest of an on-disk index (layout: :mod:`tiebreak.index.store`): the format's constants
and :class:`IndexFormatError`, reading and checking ``manifest.json``, memory-mapping a
generation's arrays with the O(1) checks done at open, the derived-array cache next to a
generation, and :func:`fsync_dir`.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import numpy as np

from .analysis import STEMMERS
from .invariants import crc32

__all__ = ["IndexFormatError", "FORMAT_NAME", "FORMAT_VERSION", "ARRAYS", "ARRAYS_BY_VERSION",
           "OPTIONAL_ARRAYS", "READ_VERSIONS", "MANIFEST", "DATA_DIR_RE", "fsync_dir"]

FORMAT_NAME = "tiebreak-index"
FORMAT_VERSION = 2
#: format versions this tiebreak reads
READ_VERSIONS = (1, 2)
MANIFEST = "manifest.json"
#: name of a generation directory inside an index directory
DATA_DIR_RE = re.compile(r"^v-[0-9a-f]{8,64}$")

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
#: optional arrays an index of any read version may hold (written on request), name -> dtype:
#: ``direct`` is the stored direct file (the documents' term ids in position order, see
#: :mod:`tiebreak.index.store`). An index without them opens as before; a reader that does not
#: know them still checks their crc32 and ignores them, so they need no new format version.
OPTIONAL_ARRAYS = {"direct": "int32"}
_COUNTS = ("num_docs", "vocab_size", "num_postings", "collection_length")


class IndexFormatError(ValueError):
    """The index directory is missing, incomplete, corrupted or of another format version."""


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
    want = ARRAYS_BY_VERSION[version].get(name, OPTIONAL_ARRAYS.get(name))
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
    if "direct" in arrays:
        checks.append((arrays["direct"].shape == (C,), "direct length != collection_length"))
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
