"""``tiebreak repro ORIGINAL_RUN... --reproduced RUN... --qrels QRELS``: the reproduction measures
of Breuer et al. (SIGIR 2020) in every tie regime, with the share of the gap that ties explain
(the work is done in :mod:`tiebreak.studies.repro`)."""

from __future__ import annotations

import sys

import click

from .common import REGIME_HELP, _fail, open_output, split_qrels, write_rows

COLUMNS = ["original", "reproduced", "measure", "regime", "orig_mean", "rep_mean", "RMSE",
           "nRMSE", "p_paired", "KTU", "KTU_ties", "RBO", "RBO_ties", "overlap", "topics",
           "RMSE_beyond_ties", "tie_share"]
REPLICATION = ["original", "reproduced", "measure", "regime", "orig_mean", "rep_mean",
               "p_unpaired"]


@click.command("repro")
@click.argument("originals", nargs=-1, required=True, type=click.Path(allow_dash=True),
                metavar="QRELS ORIGINAL...")
@click.option("--reproduced", "reproduced", multiple=True, required=True, metavar="RUN",
              type=click.Path(), help="A reproduced run, repeatable. Paired with the originals "
                                      "by run name, else in the order given.")
@click.option("--qrels", default=None, type=click.Path(allow_dash=True),
              help="Deprecated: give QRELS as the first argument (the qrels of the original "
                   "runs, and of the reproduced ones unless --rep-qrels).")
@click.option("--rep-qrels", type=click.Path(),
              help="Qrels of another collection for the reproduced runs: replicability (ER, "
                   "DeltaRI and the unpaired t-test only).")
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Measure, repeatable. Default: AP nDCG@10 P@10.")
@click.option("--regime", "regimes", multiple=True, metavar="REGIME",
              help=REGIME_HELP.replace("Default: trec_eval,expected,realistic,optimistic,"
                                       "lower,upper.", "Default: trec_eval."))
@click.option("--baseline", metavar="RUN",
              help="The original run that is the baseline of ER and DeltaRI (default: the first "
                   "of exactly two pairs).")
@click.option("--rbo-p", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.95, show_default=True, help="RBO persistence.")
@click.option("-k", "--depth", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Depth of KTU and RBO.")
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "json"]), default="table",
              show_default=True)
@click.option("-q", "--per-topic", is_flag=True,
              help="Also print each topic: both runs' values and tie ranges, KTU and RBO.")
@click.option("--plot", "plot_path", type=click.Path(), metavar="FILE",
              help="Draw the per-topic differences with both tie ranges (first measure; needs "
                   "the plot extra).")
@click.option("-o", "--output", default="-", type=click.Path(allow_dash=True),
              help="Write here (default: standard output).")
def repro_cmd(originals, reproduced, qrels, rep_qrels, measures, regimes, baseline, rbo_p, depth,
              fmt, per_topic, plot_path, output):
    """Compare ORIGINAL runs, judged by QRELS, with their reproductions (Breuer et al. 2020):
    KTU and RBO of the rankings, RMSE and nRMSE, ER and DeltaRI, t-tests, in each tie regime,
    with the share of the gap explained by ties (topics whose tie ranges overlap; the RMSE left
    when each run is scored at the point of its tie range closest to the other)."""
    from ..evaluation.compute import resolve_regimes
    from ..io import InputError, read_qrels, read_run
    from ..measures import MeasureError
    from ..studies.repro import plot, reproduction

    if plot_path:
        from importlib.util import find_spec

        if find_spec("matplotlib") is None:
            _fail("--plot needs the plot extra (missing: matplotlib): pip install "
                  "'tiebreak[plot]'")
    qrels, originals = split_qrels(qrels, originals)
    try:
        regs = resolve_regimes(regimes or ["trec_eval"])
        q = read_qrels(qrels)
        rq = read_qrels(rep_qrels) if rep_qrels else None
        o = [read_run(p) for p in originals]
        r = [read_run(p) for p in reproduced]
        res = reproduction(q, o, r, measures or None, regs, rep_qrels=rq, baseline=baseline,
                           p=rbo_p, depth=depth)
    except (InputError, MeasureError, ValueError, TypeError) as e:
        _fail(str(e))
    cols = COLUMNS if rq is None else REPLICATION
    with open_output(output) as fh:
        if fmt == "json":
            from ..evaluation.output import dump_json

            dump_json({"pairs": res.rows, "effects": res.effects,
                       **({"per_topic": res.per_topic} if per_topic else {})}, fh)
        else:
            write_rows(res.rows, fmt, fh, cols, 4)
            if res.effects:
                fh.write("\n")
                write_rows(res.effects, fmt, fh, None, 4)
            if per_topic:
                fh.write("\n")
                pt = [x for x in res.per_topic if x["measure"] != "-"]
                write_rows(pt, fmt, fh, None, 4)
                fh.write("\n")
                do = [x for x in res.per_topic if x["measure"] == "-"]
                write_rows(do, fmt, fh, ["original", "reproduced", "qid", "KTU", "KTU_ties",
                                         "RBO", "RBO_ties"], 3)
        if fmt == "table" and rq is None:
            fh.write("\nKTU, RBO: trec_eval's order (as repro_eval); _ties: tied documents kept "
                     "tied. overlap: topics whose tie ranges [realistic, optimistic] overlap; "
                     "tie_share = 1 - RMSE_beyond_ties / RMSE.\n")
    if plot_path:
        plot(res, plot_path)
        click.echo(f"wrote {plot_path}", err=True)
    sys.stdout.flush()
