"""``tiebreak index SOURCE -o INDEX_DIR``."""

from __future__ import annotations

import sys
import time

import click


@click.command("index")
@click.argument("source")
@click.option("-o", "--output", "output", required=True, type=click.Path(file_okay=False),
              help="Index directory to create (replaced atomically if it holds an index).")
@click.option("--stemmer", type=click.Choice(["porter", "krovetz-like", "none"]),
              default="porter", show_default=True,
              help="porter: Snowball's original Porter (as Lucene's PorterStemFilter); "
                   "krovetz-like: our light inflectional stemmer (NOT Krovetz); none.")
@click.option("--stopwords", default="lucene", show_default=True, metavar="lucene|smart|none|FILE",
              help="Stopword list removed before stemming.")
@click.option("--fields", default=None, metavar="LETTERS|all",
              help="SMART files only: field letters to index, e.g. TWAK (default) or 'all'.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar or summary.")
def index_cmd(source, output, stemmer, stopwords, fields, quiet):
    """Build a positional index of SOURCE in INDEX_DIR.

    SOURCE is an ir_datasets id (cranfield, vaswani, ...), a TREC SGML <DOC> file, a SMART file
    (.I/.T/.W ...) or JSONL {"docno", "text"}; files may be gzipped.
    """
    from .analysis import Analyzer
    from .build import build_index

    def fail(msg):
        click.echo(f"tiebreak: error: {msg}", err=True)
        sys.exit(2)

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
    except (ValueError, OSError) as e:
        fail(str(e))
    if not quiet:
        click.echo(f"indexed {idx.num_docs} documents, {idx.vocab_size} terms, "
                   f"{idx.num_postings} postings, {idx.collection_length} tokens "
                   f"in {time.perf_counter() - t0:.1f} s -> {output}", err=True)
