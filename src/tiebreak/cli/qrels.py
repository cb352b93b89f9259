"""``tiebreak qrels ...``: commands on judgments themselves (one subcommand each; the work is done
in :mod:`tiebreak.judgments` and :mod:`tiebreak.stats`, imported inside each command)."""

from __future__ import annotations

import click


@click.group("qrels")
def qrels_group() -> None:
    """Commands on qrels: convert, compare and test the conclusions they support."""


@qrels_group.command("agree")
@click.argument("qrels_a", type=click.Path(allow_dash=True))
@click.argument("qrels_b", type=click.Path(allow_dash=True))
@click.option("--level", type=int, default=1, show_default=True,
              help="Smallest relevant value (binary kappa, nominal alpha, Jaccard).")
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "json"]), default="table",
              show_default=True)
@click.option("--summary", is_flag=True, help="Only the pooled row (qid all) and the matrix.")
def agree_cmd(qrels_a, qrels_b, level, fmt, summary):
    """Agreement of QRELS_A and QRELS_B, per topic and pooled: Cohen's kappa (binary, and
    linearly weighted over grades), Krippendorff's alpha (ordinal grades, nominal binary),
    Jaccard of the relevant sets and of the judged sets, the documents judged by one side only,
    and the confusion matrix of grades."""
    from ..io import InputError, read_qrels
    from ..stats.agreement import agreement
    from .common import _fail, write_rows

    try:
        res = agreement(read_qrels(qrels_a), read_qrels(qrels_b), level)
    except (InputError, ValueError) as e:
        _fail(str(e))
    rows = res.rows[-1:] if summary else res.rows
    mat = [{"A \\ B": str(g), **{str(h): int(v) for h, v in zip(res.grades, r, strict=True)}}
           for g, r in zip(res.grades, res.confusion, strict=True)]
    if fmt == "json":
        import sys

        from ..evaluation.output import dump_json

        dump_json({"topics": rows, "grades": res.grades.tolist(),
                   "confusion": res.confusion.tolist(), "topics_a_only": res.topics_a_only,
                   "topics_b_only": res.topics_b_only}, sys.stdout)
        return
    import sys

    write_rows(rows, fmt, sys.stdout, None, 1)
    sys.stdout.write("\n")
    if fmt == "table":
        sys.stdout.write("grades of the documents both judge (rows: QRELS_A, columns: QRELS_B)\n")
    write_rows(mat, fmt, sys.stdout, None, 1)
    if fmt == "table" and (res.topics_a_only or res.topics_b_only):
        sys.stdout.write(f"\ntopics left out: {len(res.topics_a_only)} in QRELS_A only, "
                         f"{len(res.topics_b_only)} in QRELS_B only\n")
