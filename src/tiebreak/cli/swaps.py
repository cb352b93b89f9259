"""``tiebreak swaps``: the pairs of systems that tied scores decide
(:mod:`tiebreak.stats.swaps`)."""

from __future__ import annotations

import click

from ..stats.swaps import FORMATS


@click.command("swaps", short_help="The pairs of systems whose order or significance the tie "
                                   "regimes change.")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Measure, repeatable or comma-separated (names as in 'tiebreak eval'). "
                   "Default: AP nDCG@10 RR P@10.")
@click.option("--test", type=click.Choice(["t", "wilcoxon", "randomization", "bootstrap", "sign",
                                           "tukey", "tukey-oneway", "randomised-tukey"]),
              default="t", show_default=True, help="The test of every pair (as in 'compare').")
@click.option("--correction", type=click.Choice(["holm", "bh", "bonferroni", "none"]),
              default="holm", show_default=True,
              help="Correction over all pairs of a measure (not applied to the Tukey tests).")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True, help="Significance level.")
@click.option("--resamples", type=click.IntRange(min=1), default=10000, show_default=True,
              help="Resamples of the randomization, bootstrap and randomised Tukey tests.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Random seed of the resampling.")
@click.option("--all", "everything", is_flag=True,
              help="List every pair, not only those that swap, that ties decide or whose "
                   "significance changes.")
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="table",
              show_default=True,
              help="table: summary per measure, then the pairs (6 significant digits); tsv: "
                   "the pairs at full precision; json: summary and pairs; latex: booktabs.")
@click.option("-j", "--jobs", type=int, default=0, show_default="all cores",
              help="Processes that read and evaluate run files (0 = all cores).")
@click.option("--name-by", type=click.Choice(["tag", "file"]), default="tag", show_default=True,
              help="Name runs by their run tag (column 6), or by their file name.")
@click.option("--quiet", is_flag=True, help="Do not print input warnings (they go to stderr).")
@click.option("--score-precision", default="float64", metavar="FORMAT", show_default=True,
              help="Round scores as a number format stores them first (as in 'tiebreak eval': "
                   "float32, float16, bfloat16, int8, int8-global, bits:K, decimals:D).")
def swaps_cmd(qrels, runs, measures, test, correction, alpha, resamples, seed, everything, fmt,
              jobs, name_by, quiet, score_precision):
    """For every pair of RUNS and measure: does the order or the significance change across
    the tie regimes?

    QRELS is a qrels file or irds:DATASET_ID. The difference of the two means is taken under
    trec_eval (score, then docno descending), file (line order) and expected (the mean over
    every order of each tied group), and as the range some order of the tied documents
    reaches (one run realistic, the other optimistic). A pair swaps when the sign differs
    between those regimes, the ties decide it when its range holds both signs, and its
    significance changes when the test's verdict differs between regimes or a trec_eval
    win is lost at its worst case. Differences at full precision in TSV and JSON.
    """
    from ..io import InputError
    from ..measures import MeasureError
    from ..ranking.formats import parse_format
    from ..stats.compare import evaluate_for_compare, input_warnings
    from ..stats.swaps import NEEDED_REGIMES, swaps
    from .common import _fail, split_list

    try:
        score_precision = parse_format(score_precision, "--score-precision")
        q, res, _ = evaluate_for_compare(qrels, runs,
                                         split_list(measures) or ["AP", "nDCG@10", "RR", "P@10"],
                                         "trec_eval", None, jobs, name_by,
                                         regimes=NEEDED_REGIMES,
                                         score_precision=score_precision)
        s = swaps(res, test=test, correction=correction, alpha=alpha, n=resamples, seed=seed)
    except (InputError, MeasureError, ValueError) as e:
        _fail(str(e))
    click.echo(s.format(fmt, everything), nl=False)
    if not quiet:
        for line in input_warnings(q, res, False):
            click.echo(f"tiebreak: warning: {line}", err=True)
