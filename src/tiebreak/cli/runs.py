"""``tiebreak fuse`` and ``tiebreak run``: thin commands over :mod:`tiebreak.runs`."""

from __future__ import annotations

import sys

import click

from ..runs.fusion import FUSION_METHODS, NORMALISATIONS
from .common import _fail

_NORMS = [n for n in NORMALISATIONS]


def _write(run, output, fmt, tag=None):
    from ..io.writers import format_trec_run, write_run

    if output in (None, "-"):
        if fmt not in (None, "trec"):
            _fail(f"--format {fmt} needs --output FILE")
        data = format_trec_run(run, tag)
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        write_run(run, output, fmt, tag)


FORMAT_OPT = click.option("--format", "fmt", type=click.Choice(["trec", "json", "parquet"]),
                          default=None, help="Output format (default: from the --output "
                          "suffix: .json, .parquet; else TREC text).")
OUTPUT_OPT = click.option("-o", "--output", metavar="FILE",
                          help="Write here instead of standard output.")


@click.command("fuse")
@click.argument("runs", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click.option("--method", default="rrf", show_default=True,
              type=click.Choice(sorted(FUSION_METHODS) + ["combsum", "combmnz", "combanz",
                                                          "combmax", "combmin", "combmed",
                                                          "borda"]),
              help="sum mnz anz max min med (Comb*), wsum (weighted sum), rrf, isr, log_isr, "
                   "bordafuse, condorcet.")
@click.option("--norm", type=click.Choice(_NORMS + ["z-score"]), default="min-max",
              show_default=True, help="Per-topic score normalisation of each run before a "
                                      "score-based method (rank-based methods ignore it).")
@click.option("-w", "--weight", "weights", type=float, multiple=True, metavar="W",
              help="wsum: one weight per run, in order (default 1 each).")
@click.option("-k", "k", type=float, default=60, show_default=True, help="RRF's constant.")
@click.option("--depth", type=click.IntRange(min=1), help="Keep the first DEPTH documents of "
                                                         "each topic.")
@click.option("--tag", metavar="TAG", help="Run tag of the output (default: the method).")
@OUTPUT_OPT
@FORMAT_OPT
@click.option("--quiet", is_flag=True, help="Do not print the tie count on stderr.")
def fuse_cmd(runs, method, norm, weights, k, depth, tag, output, fmt, quiet):
    """Fuse RUNS into one run (ranx's methods and normalisations) and say how many ties the
    fusion made.

    RUNS are TREC runs (plain or gzipped), or ranx JSON / Parquet files. The output has, per
    topic, the fused scores descending (ties by docno descending), ranks 1..n and scores in
    full precision. Fusion makes ties (two documents each at rank 1 of one run get the same
    RRF score); their count goes to standard error.
    """
    from ..io import InputError
    from ..runs.fusion import fuse

    try:
        out = fuse(list(runs), method, norm, weights=list(weights) or None, k=k, name=tag,
                   depth=depth)
        _write(out, output, fmt, tag)
    except (InputError, ValueError, ImportError, OSError) as e:
        _fail(str(e))
    if not quiet:
        click.echo(f"tiebreak: note: {out.ties_summary()}", err=True)


def _topic_list(values, path):
    if not values and not path:
        return None
    out = [t for v in values for t in v.replace(",", " ").split()]
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                out += [ln.split()[0] for ln in f if ln.strip()]
        except OSError as e:
            _fail(f"{path}: {e.strerror}")
    return out


@click.command("run")
@click.argument("run", type=click.Path(allow_dash=True))
@click.option("--top", "-k", type=click.IntRange(min=1), metavar="K",
              help="Keep the first K documents of each topic.")
@click.option("--topics", "topics", multiple=True, metavar="IDS",
              help="Keep only these topics (comma- or space-separated, repeatable).")
@click.option("--topics-file", type=click.Path(exists=True, dir_okay=False),
              help="Keep only the topics listed (first field of each line).")
@click.option("--drop-topics", multiple=True, metavar="IDS", help="Drop these topics.")
@click.option("--norm", type=click.Choice([n for n in _NORMS if n != "borda"] + ["z-score"]),
              help="Normalise the scores per topic.")
@click.option("--dedup", is_flag=True,
              help="Keep the first line of a docno repeated in a topic (default: stop with an "
                   "error naming the line).")
@click.option("--order", type=click.Choice(["trec_eval", "file"]), default="trec_eval",
              show_default=True, help="trec_eval: rank by score (ties by docno descending); "
                                      "file: keep the file's order and renumber the ranks.")
@click.option("--tag", metavar="TAG", help="Run tag of the output (default: the run's).")
@OUTPUT_OPT
@FORMAT_OPT
def run_cmd(run, top, topics, topics_file, drop_topics, norm, dedup, order, tag, output, fmt):
    """Edit a run: cut to the top K, filter topics, normalise scores, drop duplicate docnos,
    rank from scores; write it in full precision (TREC text, JSON or Parquet).

    Lines come out grouped by topic, ranked 1..n. What was dropped goes to standard error.
    """
    from ..io import InputError, read_run
    from ..io.tables import is_table_path, read_run_table
    from ..runs.edit import edit_run

    try:
        r = read_run_table(run) if is_table_path(run) else \
            read_run(run, on_duplicate="first" if dedup else "error")
        keep = _topic_list(topics, topics_file)
        drop = _topic_list(drop_topics, None)
        out = edit_run(r, top=top, keep_topics=keep, drop_topics=drop, norm=norm, order=order,
                       name=tag)
        _write(out, output, fmt, tag)
    except (InputError, ValueError, ImportError, OSError) as e:
        _fail(str(e))
    dups = sum(v for k, v in r.warnings.items() if "duplicate" in k)
    msg = [f"{len(r) - len(out)} of {len(r)} lines dropped"]
    if dups:
        msg.append(f"{dups} duplicate docno lines (kept the first)")
    click.echo(f"tiebreak: note: {run}: " + "; ".join(msg), err=True)
