"""``tiebreak qrels ...``: commands on judgments themselves (one subcommand each; the work is done
in :mod:`tiebreak.judgments` and :mod:`tiebreak.stats`, imported inside each command)."""

from __future__ import annotations

import click


@click.group("qrels")
def qrels_group() -> None:
    """Commands on qrels: convert, compare and test the conclusions they support."""


@qrels_group.command("convert")
@click.argument("collection")
@click.option("--data", "data", type=click.Path(file_okay=False), default=".",
              show_default=True,
              help="Folder holding the collections' folders (cranfield/, cacm/, cisi/, ...); "
                   "cranfield and vaswani are read through ir_datasets (IR_DATASETS_HOME).")
@click.option("-o", "--output", metavar="FILE", default="-", show_default=True,
              help="Write the qrels here ('-': standard output).")
def convert_cmd(collection, data, output):
    """Write the judgments of a classic test COLLECTION as TREC qrels (qid 0 docno rel).

    COLLECTION is one of cranfield, vaswani, cacm, cisi, medline, adi, lisa, time, npl.
    Grades: Cranfield's codes 1 (complete answer) to 4 (minimum interest) become 4 to 1, its
    code -1 becomes 0; every other collection is binary (1 for each judged-relevant
    document). Document and query ids are those the index and topic readers use, so the
    qrels evaluate the runs of 'tiebreak search' directly.
    """
    from pathlib import Path

    from ..index.testcollections import COLLECTIONS, qrels_bytes
    from ..io import InputError
    from .common import _fail, open_output

    c = COLLECTIONS.get(collection.lower())
    if c is None:
        _fail(f"unknown collection {collection!r}; choose from {', '.join(COLLECTIONS)}")
    if not c.irds and not (Path(data) / c.judgments).exists():
        _fail(f"{Path(data) / c.judgments}: judgments of {c.name} not found (give --data, the "
              "folder holding the collections)")
    try:
        out = qrels_bytes(c, Path(data))
    except (InputError, ValueError, OSError) as e:
        _fail(str(e))
    except Exception as e:  # ir_datasets: no network and no local copy
        _fail(f"{c.name}: ir_datasets could not provide the judgments ({e})")
    if output == "-":
        import sys

        sys.stdout.flush()
        sys.stdout.buffer.write(out)
        sys.stdout.buffer.flush()
    else:
        with open_output(output) as fh:
            fh.write(out.decode())
