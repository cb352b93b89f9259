"""``tiebreak index SOURCE -o INDEX_DIR``, ``tiebreak index --verify INDEX_DIR``,
``tiebreak index --calibrate-intervals INDEX_DIR``, ``tiebreak index INDEX_DIR --direct`` (add
the direct file) and ``tiebreak index INDEX_DIR --pairs TOPICS -o PAIR_DIR`` (the term-pair
index of a topic set)."""

from __future__ import annotations

import os
import sys
import time

import click


@click.command("index")
@click.argument("source")
@click.option("-o", "--output", "output", type=click.Path(file_okay=False),
              help="Index directory to create (replaced atomically if it holds an index).")
@click.option("--verify", is_flag=True,
              help="SOURCE is an index directory: check every array's crc32 and every "
                   "invariant (reads the whole index); exit 0 if sound, 2 if not.")
@click.option("--stemmer", type=click.Choice(["porter", "krovetz", "krovetz-like", "none"]),
              default="porter", show_default=True,
              help="porter: Snowball's original Porter (as Lucene's PorterStemFilter); "
                   "krovetz: Krovetz's KStem (as Indri; the krovetz extra); "
                   "krovetz-like: our light inflectional stemmer (NOT Krovetz); none.")
@click.option("--stopwords", default="lucene", show_default=True, metavar="lucene|smart|none|FILE",
              help="Stopword list removed before stemming.")
@click.option("--fields", default=None, metavar="LETTERS|all",
              help="SMART files only: field letters to index, e.g. TWAK (default) or 'all'.")
@click.option("--shards", type=click.IntRange(min=1), default=None, metavar="N",
              help="Build N document-partitioned shards (contiguous ranges of the source) in "
                   "parallel, plus the whole collection's statistics: 'tiebreak search' scores "
                   "exactly as on one index.")
@click.option("-j", "--jobs", type=int, default=0, show_default="all cores",
              help="--shards: processes building shards (0 = all cores).")
@click.option("--dask", "dask_address", metavar="ADDRESS",
              help="--shards: build the shards on a Dask cluster: tcp://scheduler:8786, or "
                   "'local' for a LocalCluster (needs pip install 'tiebreak[dask]'; SOURCE and "
                   "INDEX_DIR must be reachable by the workers under the same paths).")
@click.option("--calibrate-intervals", is_flag=True,
              help="Measure on this machine the term density and query length at which each "
                   "interval-finding method is faster (a few seconds) and store them in the "
                   "index manifest: after building with -o, or, without -o, for the existing "
                   "index SOURCE. Searches then choose the method with them instead of the "
                   "thesis's alpha = 0.15, k >= 7 (results are identical).")
@click.option("--direct", is_flag=True,
              help="Also store the direct file (every document's term ids in position order, "
                   "4 bytes a token): proximity reranking then reads candidates' terms from it "
                   "instead of the positional postings. Without -o, SOURCE is an index "
                   "directory and the direct file is added to it. Not with --shards.")
@click.option("--pairs", "pairs_topics", metavar="TOPICS",
              help="SOURCE is an index directory: write to -o the term-pair (nextword) index "
                   "of the SDM pairs of TOPICS (adjacent query terms; per pair the documents "
                   "with their phrase and unordered-window counts).")
@click.option("--window", type=click.IntRange(min=1), default=8, show_default=True,
              help="--pairs: the unordered window (#uwN) counted per pair.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar or summary.")
def index_cmd(source, output, verify, stemmer, stopwords, fields, quiet, shards=None, jobs=0,
              dask_address=None, calibrate_intervals=False, direct=False, pairs_topics=None,
              window=8):
    """Build a positional index of SOURCE in INDEX_DIR (or, with --verify, check an index; or,
    with --calibrate-intervals and no -o, measure and store the interval thresholds of the
    existing index SOURCE).

    SOURCE is an ir_datasets id (cranfield, vaswani, ...), a TREC SGML <DOC> file, a SMART file
    (.I/.T/.W ...) or JSONL {"docno", "text"}; files may be gzipped.
    """
    from ..index.manifest import IndexFormatError
    from ..index.store import open_index
    from .common import _fail as fail

    if calibrate_intervals and not output and not verify and shards is None:
        _calibrate(source, quiet)   # SOURCE is an existing index
        return
    if calibrate_intervals and (verify or shards is not None):
        fail("--calibrate-intervals works with a single index build (not --verify/--shards; "
             "a sharded index falls back to the thesis's thresholds)")

    if verify:
        if output:
            fail("--verify checks the index SOURCE; it takes no -o")
        t0 = time.perf_counter()
        from ..index.shards import is_sharded, open_sharded

        try:
            if is_sharded(source):
                sidx = open_sharded(source, verify="eager")
                if not quiet:
                    click.echo(f"{source}: ok ({len(sidx.shards)} shards, {sidx.num_docs} "
                               "documents; every shard's crc32 and invariants, the global "
                               "statistics and docno uniqueness checked in "
                               f"{time.perf_counter() - t0:.1f} s)", err=True)
                return
            idx = open_index(source, verify="eager")
            from ..retrieval.intervals import index_thresholds

            index_thresholds(idx)           # the optional interval_thresholds entry
        except IndexFormatError as e:
            fail(str(e))
        if not quiet:
            mb = sum(m["file_bytes"] for m in idx.manifest["arrays"].values()) / 1e6
            click.echo(f"{source}: ok ({len(idx.manifest['arrays'])} arrays, {mb:.1f} MB, "
                       f"{idx.num_docs} documents; crc32 and invariants checked in "
                       f"{time.perf_counter() - t0:.1f} s)", err=True)
        return
    if pairs_topics is not None or (direct and not output):
        _index_extras(source, output, direct, pairs_topics, window, quiet)
        return
    if not output:
        fail("missing -o INDEX_DIR (or use --verify to check an existing index)")
    if shards is None and (dask_address or jobs):
        fail(f"{'--dask' if dask_address else '--jobs'} works with --shards N")
    if shards is not None and direct:
        fail("--direct builds a single index; it does not work with --shards")

    from ..index.analysis import Analyzer
    from ..index.build import build_index

    try:
        an = Analyzer(stemmer=stemmer, stopwords=stopwords)
    except ValueError as e:
        fail(str(e))
    flds = None
    if fields:
        flds = "all" if fields == "all" else tuple(fields.replace(",", "").upper())
    t0 = time.perf_counter()
    if shards is not None:
        _build_sharded(source, output, an, flds, shards, jobs, dask_address, quiet, t0)
        return
    try:
        idx = build_index(source, output, analyzer=an, fields=flds,
                          progress=(not quiet) and sys.stderr.isatty(), direct=direct)
    except FileExistsError as e:
        fail(_exists_message(e))
    except (ValueError, EOFError) as e:   # any other OSError: tiebreak.cli's one error path
        fail(str(e))
    if not quiet:
        click.echo(f"indexed {idx.num_docs} documents, {idx.vocab_size} terms, "
                   f"{idx.num_postings} postings, {idx.collection_length} tokens"
                   f"{' and the direct file' if direct else ''} "
                   f"in {time.perf_counter() - t0:.1f} s -> {output}", err=True)
    if calibrate_intervals:
        _calibrate(output, quiet)


def _calibrate(path, quiet: bool) -> None:
    """Measure the interval thresholds and store them in the manifest of the index ``path``."""
    from ..index.manifest import IndexFormatError
    from ..index.shards import is_sharded
    from ..retrieval.interval_calibration import calibrate, store_thresholds
    from .common import _fail as fail

    if not os.path.isdir(path):     # a collection given without -o
        fail(f"{path}: not an index directory; to index it and calibrate the index, add "
             "-o INDEX_DIR")
    if is_sharded(path):
        fail(f"{path}: a sharded index; calibrate is per single index (a sharded index uses "
             "the thesis's thresholds)")
    try:
        from ..index.store import open_index

        open_index(path)                         # a clear error before measuring
        if not os.access(path, os.W_OK):         # ... and before a minute of measuring
            fail(f"{path}: the directory is not writable; the measured thresholds are stored "
                 "in its manifest.json")
        cal = calibrate()
        store_thresholds(path, cal.thresholds)
    except (IndexFormatError, RuntimeError) as e:
        fail(str(e))
    if not quiet:
        click.echo(cal.table())
        click.echo(f"measured in {cal.seconds:.1f} s; stored in {path}/manifest.json", err=True)


def _index_extras(source, output, direct, pairs_topics, window, quiet):
    """``--direct`` without -o (add the direct file to the index SOURCE) and ``--pairs``."""
    from ..index.manifest import IndexFormatError
    from ..index.store import open_index
    from .common import _fail as fail

    if direct and pairs_topics is not None:
        fail("--direct and --pairs are separate steps: run them one after the other")
    t0 = time.perf_counter()
    try:
        if direct:
            from ..index.direct import add_direct_file

            idx = add_direct_file(source)
            if not quiet:
                click.echo(f"{source}: direct file of {idx.collection_length} tokens "
                           f"({idx.manifest['arrays']['direct']['file_bytes']} bytes) in "
                           f"{time.perf_counter() - t0:.1f} s", err=True)
            return
        if not output:
            fail("--pairs needs -o PAIR_DIR (the pair index's directory)")
        from ..index.readers import read_topics
        from ..retrieval.pairindex import build_pair_index

        idx = open_index(source)
        topics = read_topics(pairs_topics)
        pi = build_pair_index(idx, topics, output, window=window)
    except (IndexFormatError, ValueError, EOFError) as e:
        fail(str(e))
    if not quiet:
        click.echo(f"pair index of {len(topics)} topics: {pi.num_pairs} pairs, "
                   f"{pi.num_postings} postings (#1 and #uw{window}) in "
                   f"{time.perf_counter() - t0:.1f} s -> {output}", err=True)


def _exists_message(e: FileExistsError) -> str:
    """The destination exists and is not an index, or a racing build created it."""
    if e.errno is None:
        return str(e)
    if e.filename is not None and e.strerror == "File exists":
        return f"{e.filename} exists and is not a directory; choose another -o"
    return e.strerror or str(e)


def _build_sharded(source, output, an, flds, shards, jobs, dask_address, quiet, t0):
    from ..index.shards import build_sharded_index
    from .common import _fail as fail

    client = None
    if dask_address:
        from ..evaluation import dask_client

        try:
            client = dask_client(dask_address)
        except (ImportError, OSError, ValueError) as e:
            fail(str(e))
    if jobs <= 0:
        from .._native.parallel import cpus

        jobs = cpus()
    try:
        sidx = build_sharded_index(source, output, shards, analyzer=an, fields=flds,
                                   jobs=min(jobs, shards), client=client,
                                   progress=(not quiet) and sys.stderr.isatty())
    except FileExistsError as e:
        fail(_exists_message(e))
    except (ValueError, EOFError) as e:   # any other OSError: tiebreak.cli's one error path
        fail(str(e))
    finally:
        if client is not None:
            cluster = client.cluster if dask_address == "local" else None
            client.close()
            if cluster is not None:
                cluster.close()
    if not quiet:
        click.echo(f"indexed {sidx.num_docs} documents in {len(sidx.shards)} shards, "
                   f"{sidx.vocab_size} terms, {sidx.num_postings} postings, "
                   f"{sidx.collection_length} tokens in {time.perf_counter() - t0:.1f} s "
                   f"-> {output}", err=True)
