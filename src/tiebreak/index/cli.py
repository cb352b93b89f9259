"""``tiebreak index SOURCE -o INDEX_DIR`` and ``tiebreak index --verify INDEX_DIR``."""

from __future__ import annotations

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
@click.option("--stemmer", type=click.Choice(["porter", "krovetz-like", "none"]),
              default="porter", show_default=True,
              help="porter: Snowball's original Porter (as Lucene's PorterStemFilter); "
                   "krovetz-like: our light inflectional stemmer (NOT Krovetz); none.")
@click.option("--stopwords", default="lucene", show_default=True, metavar="lucene|smart|none|FILE",
              help="Stopword list removed before stemming.")
@click.option("--fields", default=None, metavar="LETTERS|all",
              help="SMART files only: field letters to index, e.g. TWAK (default) or 'all'.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar or summary.")
def index_cmd(source, output, verify, stemmer, stopwords, fields, quiet):
    """Build a positional index of SOURCE in INDEX_DIR (or, with --verify, check an index).

    SOURCE is an ir_datasets id (cranfield, vaswani, ...), a TREC SGML <DOC> file, a SMART file
    (.I/.T/.W ...) or JSONL {"docno", "text"}; files may be gzipped.
    """
    from ..cli import _fail as fail
    from .store import IndexFormatError, open_index

    if verify:
        if output:
            fail("--verify checks the index SOURCE; it takes no -o")
        t0 = time.perf_counter()
        try:
            idx = open_index(source, verify="eager")
        except IndexFormatError as e:
            fail(str(e))
        if not quiet:
            mb = sum(m["file_bytes"] for m in idx.manifest["arrays"].values()) / 1e6
            click.echo(f"{source}: ok ({len(idx.manifest['arrays'])} arrays, {mb:.1f} MB, "
                       f"{idx.num_docs} documents; crc32 and invariants checked in "
                       f"{time.perf_counter() - t0:.1f} s)", err=True)
        return
    if not output:
        fail("missing -o INDEX_DIR (or use --verify to check an existing index)")

    from .analysis import Analyzer
    from .build import build_index

    try:
        an = Analyzer(stemmer=stemmer, stopwords=stopwords)
    except ValueError as e:
        fail(str(e))
    flds = None
    if fields:
        flds = "all" if fields == "all" else tuple(fields.replace(",", "").upper())
    t0 = time.perf_counter()
    try:
        idx = build_index(source, output, analyzer=an, fields=flds,
                          progress=(not quiet) and sys.stderr.isatty())
    except (ValueError, OSError, EOFError) as e:
        fail(str(e))
    if not quiet:
        click.echo(f"indexed {idx.num_docs} documents, {idx.vocab_size} terms, "
                   f"{idx.num_postings} postings, {idx.collection_length} tokens "
                   f"in {time.perf_counter() - t0:.1f} s -> {output}", err=True)
