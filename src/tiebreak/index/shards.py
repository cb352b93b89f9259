"""Sharded (document-partitioned) indexes: a parallel build, a reduce step writing the whole
collection's statistics, and loading (see ``docs/sharding.md``).

>>> from tiebreak.index.shards import build_sharded_index, open_sharded
>>> sidx = build_sharded_index("vaswani", "vas.idx", shards=4, jobs=2)   # or client=dask client
>>> sidx = open_sharded("vas.idx")            # shards memory-mapped, statistics attached
>>> from tiebreak.retrieval.sharded import search_sharded

Partition: the documents are split, in source order, into ``shards`` contiguous ranges whose
sizes differ by at most one (the first ``N mod shards`` ranges hold one more document). The
global docid of a document is its shard's offset plus its docid inside the shard, which is its
position in the source: docids are those of one index of the whole source.

Layout of a sharded index directory::

    manifest.json       format "tiebreak-sharded-index", version, counts of the whole
                        collection, analyser, the generation directory ("data"), and per shard
                        its directory, document range, counts and the crc32 of its docnos (the
                        shard order: shards swapped on disk are refused at open); crc32 of the
                        statistics (checked at open)
    v-<hex>/            one generation (immutable once the manifest names it)
      shard-0000/       an ordinary tiebreak index (tiebreak index --verify works on it) of the
      shard-0001/       shard's documents, with the *whole collection's* vocabulary (a term
      ...               absent from the shard has df 0 and no postings), so a term id is the
                        same in every shard
      stats/df.npy      (V,) int64 document frequency in the whole collection
      stats/cf.npy      (V,) int64 collection frequency in the whole collection
      stats/docno_rank.npy (N,) int32 rank of each document's docno in byte order among all
                        docnos, by global docid (the merge of the shards' top k sorts by it)

Build (:func:`build_sharded_index`), in two parallel map steps and two small reduces, either on
the project's process pool (:func:`tiebreak._native.parallel.imap`) or on a Dask cluster (a client,
e.g. :func:`tiebreak.evaluation.dask_client`):

0. this process reads (parses) the source once and checks that docnos are distinct across the
   whole source (the error names the docno, both shards and both positions);
1. map: each task analyses its range of the documents (local vocabulary, token ids); forked
   workers inherit the documents, Dask workers receive their range (``client.scatter``);
2. reduce: the vocabularies are merged into the sorted global one;
3. map: each task writes its shard, token ids mapped to the global vocabulary;
4. reduce: df and cf are summed over the shards (integers: exact), N and |C| likewise, the
   docnos ranked over the whole collection, into ``stats/`` and the manifest, which is written
   last and renamed into place (a reader sees the old or the new index, never a mixture, as
   for a single index).

On Dask, the tasks write their shard and work files by path: the index directory must be
reachable under the same path from every worker (one machine, or a shared file system).

Size: one module because the parallel build, the reduce step and the sharded search share the shard
manifest and its checks.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .analysis import Analyzer
from .invariants import crc32
from .manifest import DATA_DIR_RE, MANIFEST, IndexFormatError, fsync_dir
from .store import Index, open_index

__all__ = ["CollectionStats", "ShardedIndex", "build_sharded_index", "open_sharded",
           "open_searchable", "is_sharded", "partition", "reduce_stats", "SHARDED_FORMAT",
           "SHARDED_VERSION"]

SHARDED_FORMAT = "tiebreak-sharded-index"
SHARDED_VERSION = 1
_STATS = ("df", "cf", "docno_rank")


@dataclass(frozen=True)
class CollectionStats:
    """Statistics of the whole collection, attached to every shard as ``shard.global_stats``
    (read by :func:`tiebreak.retrieval.models.collection_stats`).

    Attributes
    ----------
    num_docs : int
        N, documents in the collection.
    collection_length : int
        |C|, indexed tokens in the collection.
    avgdl : float
        ``collection_length / num_docs`` (Python's correctly rounded int division, as
        :class:`~tiebreak.index.Index` computes it), 0.0 for an empty collection.
    df, cf : ndarray of int64, shape (V,)
        Document and collection frequency of each term id (the shards share term ids).
    docno_rank : ndarray of int32, shape (N,)
        Rank of each document's docno in byte order over the whole collection, by global
        docid (what one index's ``docno_rank`` holds); used to merge the shards' lists.
    """

    num_docs: int
    collection_length: int
    avgdl: float
    df: np.ndarray
    cf: np.ndarray
    docno_rank: np.ndarray


def partition(num_docs: int, shards: int) -> list[tuple[int, int]]:
    """Contiguous document ranges ``[(lo, hi), ...]`` in source order: ``shards`` ranges whose
    sizes differ by at most one, the first ``num_docs % shards`` one larger.

    Raises
    ------
    ValueError
        ``shards < 1``, or more shards than documents.
    """
    if isinstance(shards, bool) or not isinstance(shards, int | np.integer) or shards < 1:
        raise ValueError(f"shards must be an integer >= 1, got {shards!r}")
    if shards > num_docs:
        raise ValueError(f"{shards} shards for {num_docs} documents: every shard needs at least "
                         "one document")
    q, r = divmod(int(num_docs), int(shards))
    out, lo = [], 0
    for i in range(shards):
        hi = lo + q + (1 if i < r else 0)
        out.append((lo, hi))
        lo = hi
    return out


# ---------------------------------------------------------------- the map steps (one per shard)
def _analyze_part(shared: dict, i: int, docs=None) -> dict:
    """Map step 1: analyse shard ``i``'s documents (``docs``, a list of (docno, text) or its
    pickle, or its range of ``shared["docs"]``, inherited through fork); token ids (local
    vocabulary in first-occurrence order) go to ``work/part-<i>.npz``; returns the
    vocabulary."""
    from array import array

    if docs is None:
        lo, hi = shared["ranges"][i]
        docs = shared["docs"][lo:hi]
    elif isinstance(docs, bytes):
        import pickle

        docs = pickle.loads(docs)
    analyze = Analyzer.from_config(shared["analyzer"]).analyze
    vocab: dict[str, int] = {}
    tok = array("i")
    lens = array("q", [0])
    for _, text in docs:
        tok.extend([vocab.setdefault(t, len(vocab)) for t in analyze(text)])
        lens.append(len(tok))
    np.savez(Path(shared["work"]) / f"part-{i}.npz", tok=np.frombuffer(tok, np.int32),
             doc_ptr=np.frombuffer(lens, np.int64))
    return {"terms": list(vocab)}


def _write_part(shared: dict, part: tuple[int, list[str], list[str]]) -> dict:
    """Map step 2: write shard ``i`` with the global vocabulary (``work/terms.npy``)."""
    from .build import build_index_from_tokens

    i, terms, docnos = part
    work = Path(shared["work"])
    gterms = np.load(work / "terms.npy")
    with np.load(work / f"part-{i}.npz") as z:
        tok, doc_ptr = z["tok"], z["doc_ptr"]
    local = np.asarray(terms, dtype=str) if terms else np.zeros(0, "<U1")
    gid = np.searchsorted(gterms, local).astype(np.int32)
    extra = {"fields": shared["fields"] if isinstance(shared["fields"], str | None)
             else list(shared["fields"]), "shard": i, "docid_offset": shared["offsets"][i]}
    idx = build_index_from_tokens(Path(shared["gen"]) / _shard_name(i), docnos,
                                  gid[tok] if len(tok) else tok, doc_ptr, gterms,
                                  Analyzer.from_config(shared["analyzer"]),
                                  source=str(shared["source"]), extra=extra)
    return {"num_docs": idx.num_docs, "collection_length": idx.collection_length,
            "num_postings": idx.num_postings}


def _shard_name(i: int) -> str:
    return f"shard-{i:04d}"


def _run_map(fn, shared, items, jobs: int, client, desc: str, progress: bool,
             extra=None) -> list:
    """``[fn(shared, item) ...]`` in order, on the Dask ``client`` (``fn(shared, item, x)``
    for the futures ``x`` of ``extra`` when given) or with
    :func:`tiebreak._native.parallel.imap`."""
    if client is None:
        from .._native.parallel import imap

        return list(imap(fn, items, jobs, shared, progress=desc if progress else None))
    futures = client.map(fn, [shared] * len(items), items, *([extra] if extra else []),
                         pure=False)
    if progress:
        from distributed import as_completed
        from tqdm import tqdm

        with tqdm(total=len(futures), desc=desc, file=sys.stderr, leave=False) as bar:
            for _ in as_completed(futures):
                bar.update(1)
    return client.gather(futures)


def _check_docnos(names: list[str], docnos: list[list[str]], where: str) -> None:
    """Docnos distinct across all shards; raises ValueError naming the docno and both shards."""
    seen: dict[str, tuple[int, int]] = {}
    for s, dl in enumerate(docnos):
        for j, d in enumerate(dl):
            prev = seen.setdefault(d, (s, j))
            if prev != (s, j):
                ps, pj = prev
                raise ValueError(f"{where}: duplicate docno {d!r}: document {pj + 1} of "
                                 f"{names[ps]} and document {j + 1} of {names[s]}")


# ---------------------------------------------------------------- building
def build_sharded_index(source, path, shards: int, analyzer: Analyzer | None = None,
                        fields=None, jobs: int = 1, client=None,
                        progress: bool | None = None) -> ShardedIndex:
    """Index ``source`` into ``shards`` document-partitioned shards under ``path`` (atomically)
    and return the opened :class:`ShardedIndex`.

    Parameters
    ----------
    source : a file or an ir_datasets id, as for :func:`tiebreak.index.build_index`
    path : the sharded index directory (replaced atomically if it holds a sharded index)
    shards : number of shards (>= 1, at most the number of documents)
    analyzer, fields : as for :func:`tiebreak.index.build_index`
    jobs : processes of :func:`tiebreak._native.parallel.imap` (without ``client``)
    client : a ``distributed.Client``; the map steps then run as its tasks
    progress : tqdm bars on stderr; None = only when stderr is a terminal

    Raises
    ------
    ValueError
        A malformed source (file, line, field), a docno that repeats anywhere in the source
        (naming both shards and positions), a bad ``shards``.
    FileExistsError
        ``path`` exists and is neither a sharded index nor an empty directory.
    """
    from .build import _DestinationErrors, _progress
    from .readers import count_documents, iter_documents

    analyzer = analyzer or Analyzer()
    if progress is None:
        progress = sys.stderr.isatty()
    source = os.fspath(source)
    with _progress(count_documents(source) if progress else None, not progress,
                   "reading") as bar:
        docs = []
        for d in iter_documents(source, fields=fields):
            docs.append(d)
            bar.update(1)
    ranges = partition(len(docs), shards)
    names = [_shard_name(i) for i in range(shards)]
    docnos = [[d for d, _ in docs[lo:hi]] for lo, hi in ranges]
    _check_docnos(names, docnos, source)
    box = [docs]    # handed over, so that the writer can free the documents
    del docs
    with _DestinationErrors(path):
        _write_sharded(source, Path(path), box, ranges, names, docnos, analyzer, fields, jobs,
                       client, progress)
    return open_sharded(path)


def _write_sharded(source, target, box, ranges, names, docnos, analyzer, fields, jobs, client,
                   progress):
    from .build import (
        _mkdir_locked,
        _mkdir_unique,
        _remove_stale,
        _rename_fresh,
        _save,
        _unlock,
        _write_manifest,
    )

    shards = len(ranges)
    docs = box.pop()
    parent = target.parent if str(target.parent) else Path(".")
    parent.mkdir(parents=True, exist_ok=True)
    rebuild = is_sharded(target)
    if target.exists() and not target.is_dir():
        raise FileExistsError(f"{target} exists and is not a directory; refusing to replace it")
    if target.exists() and not rebuild and any(target.iterdir()):
        raise FileExistsError(f"{target} exists and is not a sharded tiebreak index; refusing "
                              "to replace it")
    stage = target if rebuild else _mkdir_unique(parent, f".{target.name}.tmp-")
    gen, fd = _mkdir_locked(stage)
    try:
        work = gen / ".work"
        work.mkdir()
        shared = {"source": source, "fields": fields, "analyzer": analyzer.config(),
                  "work": str(work), "gen": str(gen), "offsets": [lo for lo, _ in ranges],
                  "ranges": ranges}
        if client is None:      # the documents reach forked workers without pickling
            parts = _run_map(_analyze_part, dict(shared, docs=docs), range(shards), jobs, None,
                             "analysing shards", progress)
        else:
            import pickle

            # one bytes object per shard: Dask would otherwise serialise 2 tuples per document
            extra = client.scatter([pickle.dumps(docs[lo:hi], protocol=pickle.HIGHEST_PROTOCOL)
                                    for lo, hi in ranges])
            parts = _run_map(_analyze_part, shared, range(shards), jobs, client,
                             "analysing shards", progress, extra)
            del extra
        del docs
        vocab = set()
        for p in parts:
            vocab.update(p["terms"])
        gterms = np.asarray(sorted(vocab), dtype=str) if vocab else np.zeros(0, "<U1")
        np.save(work / "terms.npy", gterms, allow_pickle=False)
        del vocab
        _run_map(_write_part, shared, [(i, p["terms"], dn) for i, (p, dn) in
                                        enumerate(zip(parts, docnos))],
                 jobs, client, "writing shards", progress)
        del parts, docnos
        shutil.rmtree(work)
        shard_idx = [open_index(gen / nm, verify="structure") for nm in names]
        stats = reduce_stats(shard_idx)
        (gen / "stats").mkdir()
        metas = {nm: _save(gen / "stats", nm, getattr(stats, nm)) for nm in _STATS}
        fsync_dir(gen / "stats")
        fsync_dir(gen)
        final = stage / gen.name[1:-len(".tmp")]
        os.rename(gen, final)
        gen = final
        manifest = {
            "format": SHARDED_FORMAT, "version": SHARDED_VERSION, "data": gen.name,
            "num_docs": stats.num_docs, "vocab_size": int(len(gterms)),
            "num_postings": sum(ix.num_postings for ix in shard_idx),
            "collection_length": stats.collection_length, "analyzer": analyzer.config(),
            "source": source, "partition": "contiguous",
            "fields": fields if isinstance(fields, str | None) else list(fields),
            "terms_crc32": shard_idx[0].manifest["arrays"]["terms"]["crc32"],
            "shards": [{"path": nm, "docid_offset": lo, "num_docs": hi - lo,
                        "collection_length": ix.collection_length,
                        "num_postings": ix.num_postings,
                        "docnos_crc32": ix.manifest["arrays"]["docnos"]["crc32"]}
                       for nm, (lo, hi), ix in zip(names, ranges, shard_idx)],
            "stats": metas, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        del shard_idx
        if rebuild:
            from .build import _old_manifest

            old = _old_manifest(target) or {}    # only its generation is needed: to delete it
            tmp = target / f".{MANIFEST}.tmp-{gen.name}"
            _write_manifest(tmp, manifest)
            os.replace(tmp, target / MANIFEST)     # the switch: atomic
            fsync_dir(target)
            data = old.get("data")
            if isinstance(data, str) and DATA_DIR_RE.match(data) and data != gen.name:
                shutil.rmtree(target / data, ignore_errors=True)
        else:
            _write_manifest(stage / MANIFEST, manifest)
            fsync_dir(stage)
            _rename_fresh(stage, target)  # atomic; an error if someone created target meanwhile
            fsync_dir(parent)
    except BaseException:
        shutil.rmtree(stage if not rebuild else gen, ignore_errors=True)
        _unlock(fd, gen)
        raise
    _unlock(fd, gen if rebuild else target / gen.name)
    if rebuild:
        _remove_stale(target)


def reduce_stats(shards: list[Index]) -> CollectionStats:
    """The reduce step: the whole collection's statistics from shards that share one vocabulary
    (every shard's ``terms`` identical): df and cf summed per term id (int64, exact), N and |C|
    summed, ``avgdl = |C| / N`` as :class:`~tiebreak.index.Index` computes it, and the docnos'
    byte-order ranks over all shards (as :func:`tiebreak.index.build_index` ranks them).

    Raises
    ------
    IndexFormatError
        The shards' vocabularies differ.
    """
    if not shards:
        raise ValueError("no shards")
    V = shards[0].vocab_size
    crc = shards[0].manifest["arrays"]["terms"]["crc32"]
    df = np.zeros(V, np.int64)
    cf = np.zeros(V, np.int64)
    for ix in shards:
        if ix.vocab_size != V or ix.manifest["arrays"]["terms"]["crc32"] != crc:
            raise IndexFormatError(f"{ix.path}: its vocabulary differs from {shards[0].path}'s; "
                                   "the shards of a sharded index share one vocabulary")
        df += np.asarray(ix.df)
        cf += np.asarray(ix.cf)
    N = sum(ix.num_docs for ix in shards)
    C = sum(ix.collection_length for ix in shards)
    from .build import _docno_rank

    rank = _docno_rank(np.concatenate([np.asarray(ix.docnos) for ix in shards]))
    return CollectionStats(N, C, C / N if N else 0.0, df, cf, rank)


# ---------------------------------------------------------------- loading
class _Docnos:
    """``docnos[global docids]`` over the shards without concatenating them."""

    def __init__(self, shards: list[Index], offsets: np.ndarray):
        self._shards = shards
        self._off = offsets

    def __len__(self) -> int:
        return int(self._off[-1])

    def __getitem__(self, docids):
        d = np.asarray(docids, np.int64)
        scalar = d.ndim == 0
        d = d.reshape(-1)
        if d.size and (d.min() < 0 or d.max() >= self._off[-1]):
            raise IndexError(f"docid outside [0, {int(self._off[-1])})")
        s = np.searchsorted(self._off, d, side="right") - 1
        out = np.empty(d.size, dtype=object)
        for i in np.unique(s):
            m = s == i
            out[m] = np.asarray(self._shards[i].docnos)[d[m] - self._off[i]]
        out = out.astype(str) if out.size else np.zeros(0, "<U1")
        return out[0] if scalar else out


class ShardedIndex:
    """A loaded sharded index (:func:`open_sharded`): the shards as memory-mapped
    :class:`~tiebreak.index.Index` objects, each carrying the whole collection's
    :class:`CollectionStats` as ``shard.global_stats``.

    Attributes: ``path``, ``manifest``, ``shards`` (list of Index), ``offsets`` (int64
    (S+1,), shard i holds global docids ``[offsets[i], offsets[i+1])``), ``stats``,
    ``num_docs``, ``vocab_size``, ``num_postings``, ``collection_length``, ``avgdl``,
    ``analyzer``, ``docnos`` (indexable by global docids), :meth:`term_id`, :meth:`docno`.
    """

    def __init__(self, path: Path, manifest: dict, shards: list[Index], stats: CollectionStats):
        self.path = Path(path)
        self.manifest = manifest
        self.shards = shards
        self.stats = stats
        self.offsets = np.asarray([0] + [int(x) for x in np.cumsum([s.num_docs for s in shards])],
                                  np.int64)
        self.num_docs = stats.num_docs
        self.collection_length = stats.collection_length
        self.avgdl = stats.avgdl
        self.vocab_size = int(manifest["vocab_size"])
        self.num_postings = int(manifest["num_postings"])
        self.analyzer = shards[0].analyzer
        self.docnos = _Docnos(shards, self.offsets)

    def term_id(self, term: str) -> int:
        """Id of an analysed term (the same in every shard), -1 if not in the vocabulary."""
        return self.shards[0].term_id(term)

    def docno(self, docid: int) -> str:
        return str(self.docnos[int(docid)])

    def verify(self) -> None:
        """Everything :meth:`Index.verify` checks, for every shard, then the reduce's results:
        df and cf equal to the sums over the shards, docnos distinct across shards.

        Raises
        ------
        IndexFormatError
            Naming the shard or file and the first failed check.
        """
        for ix in self.shards:
            ix.verify()
        again = reduce_stats(self.shards)
        for nm in _STATS:
            if not np.array_equal(getattr(again, nm), getattr(self.stats, nm)):
                raise IndexFormatError(f"{self._gen}/stats/{nm}.npy: differs from the sum over "
                                       "the shards; rebuild the index")
        try:
            _check_docnos([str(ix.path.name) for ix in self.shards],
                          [ix.docnos.tolist() for ix in self.shards], str(self.path))
        except ValueError as e:
            raise IndexFormatError(f"{e}; rebuild the index") from None

    @property
    def _gen(self) -> Path:
        return self.path / self.manifest["data"]

    def __repr__(self) -> str:
        return (f"ShardedIndex({str(self.path)!r}, shards={len(self.shards)}, "
                f"num_docs={self.num_docs}, vocab_size={self.vocab_size})")


def is_sharded(path) -> bool:
    """Whether ``path`` holds a sharded index (its manifest says so; nothing else is checked)."""
    try:
        m = json.loads((Path(path) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(m, dict) and m.get("format") == SHARDED_FORMAT


def _read_sharded_manifest(path: Path) -> dict:
    try:
        m = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise IndexFormatError(f"{path}: not a tiebreak index (no {MANIFEST})") from None
    except (OSError, ValueError) as e:
        raise IndexFormatError(f"{path}: {MANIFEST} cannot be read: {e}") from None

    def bad(field, want, got):
        raise IndexFormatError(f"{path}/{MANIFEST}: {field}: expected {want}, got {got!r}; "
                               "rebuild the index")

    if not isinstance(m, dict) or m.get("format") != SHARDED_FORMAT:
        raise IndexFormatError(f"{path}: {MANIFEST} is not a {SHARDED_FORMAT} manifest")
    if m.get("version") != SHARDED_VERSION:
        raise IndexFormatError(f"{path}: sharded index version {m.get('version')!r}, this "
                               f"tiebreak reads version {SHARDED_VERSION}; rebuild the index")
    for k in ("num_docs", "vocab_size", "num_postings", "collection_length"):
        v = m.get(k)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            bad(k, "an integer >= 0", v)
    if not isinstance(m.get("data"), str) or not DATA_DIR_RE.match(m["data"]):
        bad("data", "a generation directory name 'v-<hex>'", m.get("data"))
    sh = m.get("shards")
    if not isinstance(sh, list) or not sh:
        bad("shards", "a non-empty list", sh)
    off = 0
    for i, s in enumerate(sh):
        if not isinstance(s, dict) or s.get("path") != _shard_name(i):
            bad(f"shards[{i}].path", repr(_shard_name(i)), s)
        if s.get("docid_offset") != off or not isinstance(s.get("num_docs"), int):
            bad(f"shards[{i}].docid_offset", off, s.get("docid_offset"))
        off += s["num_docs"]
    if off != m["num_docs"]:
        bad("shards", f"documents summing to num_docs = {m['num_docs']}", off)
    if m["num_docs"] >= 2**31:
        bad("num_docs", "< 2**31 (global docids are int32)", m["num_docs"])
    st = m.get("stats")
    if not isinstance(st, dict) or any(not isinstance(st.get(nm), dict) for nm in _STATS):
        bad("stats", f"an object with {', '.join(_STATS)}", st)
    return m


def open_sharded(path, verify: str = "lazy") -> ShardedIndex:
    """Load a sharded index: every shard with :func:`tiebreak.index.open_index` (``verify`` as
    there; ``"eager"`` also runs :meth:`ShardedIndex.verify`), the global statistics (crc32
    checked), and attach them to the shards.

    Raises
    ------
    IndexFormatError
        A missing or malformed manifest, a shard that is not an index or does not match the
        manifest (documents, analyser, vocabulary), statistics of the wrong shape or checksum.
    """
    path = Path(path)
    m = _read_sharded_manifest(path)
    gen = path / m["data"]
    shards = []
    for s in m["shards"]:
        ix = open_index(gen / s["path"], verify="lazy" if verify == "eager" else verify)
        if ix.num_docs != s["num_docs"]:
            raise IndexFormatError(f"{ix.path}: {ix.num_docs} documents, the sharded manifest "
                                   f"says {s['num_docs']}; rebuild the index")
        if ix.manifest["analyzer"] != m["analyzer"]:
            raise IndexFormatError(f"{ix.path}: analyser differs from the sharded manifest's; "
                                   "rebuild the index")
        if ix.vocab_size != m["vocab_size"] or \
                ix.manifest["arrays"]["terms"]["crc32"] != m["terms_crc32"]:
            raise IndexFormatError(f"{ix.path}: vocabulary differs from the sharded manifest's; "
                                   "rebuild the index")
        # shard order: each shard's docnos checksum, recorded at build (absent before it was);
        # shards swapped or copied from another build hold other documents at these docids
        want = s.get("docnos_crc32")
        if want is not None and ix.manifest["arrays"]["docnos"]["crc32"] != want:
            raise IndexFormatError(f"{ix.path}: not the shard the sharded manifest lists at "
                                   f"position {len(shards)} (its documents differ: shards "
                                   "swapped, moved or copied from another build); rebuild the "
                                   "index or put the shards back")
        shards.append(ix)
    arrays = {}
    for nm in _STATS:
        f = gen / "stats" / f"{nm}.npy"
        meta = m["stats"][nm]
        try:
            empty = not isinstance(meta.get("shape"), list) or 0 in meta["shape"]
            a = np.load(f, mmap_mode=None if empty else "r", allow_pickle=False)
        except (OSError, ValueError) as e:
            raise IndexFormatError(f"{f} cannot be read: {e}; rebuild the index") from None
        want = (np.int32, (m["num_docs"],)) if nm == "docno_rank" else \
            (np.int64, (m["vocab_size"],))
        if (a.dtype, a.shape) != want or crc32(a) != meta.get("crc32"):
            raise IndexFormatError(f"{f}: wrong dtype, shape or checksum; rebuild the index")
        arrays[nm] = np.asarray(a)
    if any(s.get("docnos_crc32") is None for s in m["shards"]):
        _check_legacy_order(shards, m, arrays["docno_rank"])
    N, C = m["num_docs"], m["collection_length"]
    stats = CollectionStats(N, C, C / N if N else 0.0, arrays["df"], arrays["cf"],
                            arrays["docno_rank"])
    for ix in shards:
        ix.global_stats = stats
    out = ShardedIndex(path, m, shards, stats)
    if verify == "eager":
        out.verify()
    return out


def _check_legacy_order(shards, m, global_rank) -> None:
    """Shard order of a manifest written before it recorded each shard's docnos crc32: inside
    each shard, the global docno ranks (``stats/docno_rank``) must put its documents in the
    order of the shard's own ranks; a swapped shard's documents are other documents."""
    for i, (ix, s) in enumerate(zip(shards, m["shards"])):
        lo, n = s["docid_offset"], s["num_docs"]
        if n < 2:
            continue
        g = np.asarray(global_rank[lo:lo + n])
        loc = np.asarray(ix.docno_rank)
        if int(np.argmin(g)) != int(np.argmin(loc)) or int(np.argmax(g)) != int(np.argmax(loc)):
            raise IndexFormatError(f"{ix.path}: not the shard the sharded manifest lists at "
                                   f"position {i} (its documents differ: shards swapped, moved "
                                   "or copied from another build); rebuild the index or put "
                                   "the shards back")


def open_searchable(path, verify: str = "lazy") -> Index | ShardedIndex:
    """:func:`open_sharded` for a sharded index directory, else
    :func:`tiebreak.index.open_index`."""
    return open_sharded(path, verify) if is_sharded(path) else open_index(path, verify)
