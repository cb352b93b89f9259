"""``tiebreak study precision``: quantised, pruned and band-safe retrieval against exact scoring;
the study itself is :mod:`tiebreak.studies.study_precision`."""

from __future__ import annotations

import io
import os
import shutil
import sys
import tempfile
from pathlib import Path

import click

from ..studies.study_precision import (
    DEFAULT_MEASURES,
    _plot,
    run_precision,
)

__all__ = ["precision_cmd"]


def _split(s: str) -> list[str]:
    return [x.strip() for x in s.split(",") if x.strip()]


@click.command("precision")
@click.option("--index", "index_dir", type=click.Path(exists=True, file_okay=False),
              help="Index directory (with --topics and --qrels).")
@click.option("--topics", help="Topics of --index (any format 'tiebreak search' reads).")
@click.option("--qrels", type=click.Path(exists=True, dir_okay=False), help="Qrels of --index.")
@click.option("--collection", "collections", multiple=True, metavar="NAME|all",
              help="Classic collection(s) read from --data (cranfield, vaswani, cacm, cisi, "
                   "medline, adi, or all); indexed into a temporary directory.")
@click.option("--data", type=click.Path(exists=True, file_okay=False), default=None,
              help="Folder holding the classic collections (for --collection).")
@click.option("--models", default="bm25,ql", show_default=True)
@click.option("--rho", "rhos", default="1.1,1.2,1.4,1.7,2", show_default=True)
@click.option("--quantize", "bits", default="4,6,8,12", show_default=True)
@click.option("-m", "--measure", "measures", multiple=True,
              help=f"Measure, repeatable (default {' '.join(DEFAULT_MEASURES)}).")
@click.option("-k", "k", default=1000, show_default=True, type=click.IntRange(min=1))
@click.option("--repeat", default=3, show_default=True, type=click.IntRange(min=1),
              help="Timing rounds (best is kept).")
@click.option("--alpha", default=0.05, show_default=True, type=float)
@click.option("--out", "out_dir", default="study_precision", show_default=True)
@click.option("-q", "--quiet", is_flag=True)
def precision_cmd(index_dir, topics, qrels, collections, data, models, rhos, bits, measures, k,
                  repeat, alpha, out_dir, quiet):
    """Throughput, postings scored and effectiveness (YMT protocol) of band-safe, quantised and
    pruned retrieval against exact exhaustive scoring."""
    import pandas as pd

    from ..index import IndexFormatError, build_index, open_index
    from ..index.readers import read_topics
    from ..index.testcollections import COLLECTIONS
    from ..io import read_qrels
    from ..ranking.bands import band_starts
    from .common import _fail as fail

    models_l = _split(models)
    for m in models_l:
        if m not in ("bm25", "ql"):
            fail(f"--models: {m!r} is not bm25 or ql")
    rhos_l = _split(rhos)
    for r in rhos_l:
        try:
            band_starts(r, 1)
        except ValueError as e:
            fail(f"--rho {r}: {e}")
    try:
        bits_l = [int(b) for b in _split(bits)]
    except ValueError:
        fail(f"--quantize: expected comma-separated integers, got {bits!r}")
    if any(not 1 <= b <= 16 for b in bits_l):
        fail("--quantize: bits must be 1..16")
    measures = measures or DEFAULT_MEASURES
    if not index_dir and not collections:
        fail("give --index/--topics/--qrels or --collection")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    progress = not quiet and sys.stderr.isatty()
    rows = []
    if index_dir:
        if not (topics and qrels):
            fail("--index needs --topics and --qrels")
        try:
            idx = open_index(index_dir)
            tops = read_topics(topics)
            qr = read_qrels(qrels)
        except IndexFormatError as e:
            fail(str(e))
        except (ValueError, OSError) as e:
            fail(f"{e}")
        rows += run_precision(idx, tops, qr, Path(index_dir).name, models_l, rhos_l, bits_l,
                              measures, k, repeat, alpha, out, progress)
    if collections:
        names = list(COLLECTIONS) if "all" in collections else list(collections)
        for n in names:
            if n not in COLLECTIONS:
                fail(f"--collection: unknown {n!r}; choose from {', '.join(COLLECTIONS)} or all")
        if data is None:
            fail("--collection needs --data (the folder with the classic collections)")
        tmp = Path(tempfile.mkdtemp(prefix="tb-precision-"))
        old_home = os.environ.get("IR_DATASETS_HOME")
        try:
            if any(COLLECTIONS[n].irds for n in names):
                shutil.copytree(Path(data) / "ir_datasets_home", tmp / "irds")
                os.environ["IR_DATASETS_HOME"] = str(tmp / "irds")
            for n in names:
                c = COLLECTIONS[n]
                if not quiet:
                    click.echo(f"indexing {n}", err=True)
                idx = build_index(c.docs_source(data), tmp / n, fields=c.fields, progress=False)
                numbering = "sequential" if n == "cranfield" and not c.irds else "id"
                tops = read_topics(c.topics_source(data), numbering=numbering)
                qr = read_qrels(io.BytesIO(c.qrels(data)))
                rows += run_precision(idx, tops, qr, n, models_l, rhos_l, bits_l, measures, k,
                                      repeat, alpha, out, progress)
        finally:
            if old_home is None:
                os.environ.pop("IR_DATASETS_HOME", None)
            else:
                os.environ["IR_DATASETS_HOME"] = old_home
            shutil.rmtree(tmp, ignore_errors=True)
    df = pd.DataFrame(rows)
    df.to_csv(out / "precision.tsv", sep="\t", index=False, float_format="%.6g")
    files = _plot(df, out / "precision")
    show = df[df["measure"] == measures[0]][["collection", "model", "config", "qps", "speedup",
                                            "postings_share", "mean", "relative", "p>99%",
                                            "p>97%"]]
    click.echo(show.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    click.echo(f"wrote {out / 'precision.tsv'}, {', '.join(files)}", err=True)
