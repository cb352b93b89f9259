"""``tiebreak compare QRELS RUN...``: significance tests between runs, flagging the differences
that depend on tie order (the computation is :mod:`tiebreak.stats.compare`), and the options it
shares with ``tiebreak report``."""

from __future__ import annotations

import click

from ..stats.compare import FORMATS

__all__ = ["compare_cmd", "compare_options"]


def compare_options(f):
    """Options shared by ``compare`` and ``report``."""
    opts = [
        click.option("--baseline", metavar="RUN",
                     help="Baseline: a run file (added when not among RUNS) or a run name. "
                          "Default: the first run."),
        click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
                     help="Measure, repeatable (names as in 'tiebreak eval'). "
                          "Default: AP nDCG@10."),
        click.option("--test", type=click.Choice(["t", "wilcoxon", "randomization",
                                                  "bootstrap", "sign", "tukey",
                                                  "randomised-tukey"]),
                     default="t", show_default=True,
                     help="Two-sided paired test over topics (t, wilcoxon, randomization, "
                          "bootstrap, sign), or a test of all systems at once that needs no "
                          "correction: tukey (Tukey's HSD), randomised-tukey (Carterette "
                          "2012)."),
        click.option("--correction", type=click.Choice(["holm", "bh", "bonferroni", "none"]),
                     default="holm", show_default=True,
                     help="Multiple-comparison correction over the comparisons of a measure."),
        click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
                     default=0.05, show_default=True, help="Significance level."),
        click.option("--all-pairs", is_flag=True,
                     help="Compare every pair of systems instead of each against the baseline."),
        click.option("--regime", default="trec_eval", show_default=True,
                     type=click.Choice(["trec_eval", "file", "expected", "realistic",
                                        "optimistic", "lower", "upper"]),
                     help="Tie regime of the reported means and tests."),
        click.option("--level", type=click.FloatRange(0, 1, min_open=True, max_open=True),
                     default=0.95, show_default=True, help="Confidence level of the interval."),
        click.option("--resamples", type=click.IntRange(min=1), default=10000,
                     show_default=True,
                     help="Resamples of the randomization and bootstrap tests and intervals."),
        click.option("--seed", type=int, default=0, show_default=True,
                     help="Random seed of the resampling."),
        click.option("-j", "--jobs", type=int, default=0, show_default="all cores",
                     help="Processes that read and evaluate run files (0 = all cores)."),
        click.option("--name-by", type=click.Choice(["tag", "file"]), default="tag",
                     show_default=True,
                     help="Name runs by their run tag (column 6), or by their file name."),
        click.option("--quiet", is_flag=True,
                     help="Do not print input warnings (they go to stderr)."),
        click.option("--verbose", is_flag=True,
                     help="Print every run's input warnings (by default, with more than 3 "
                          "runs, one line per kind of warning with a count)."),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


@click.command("compare", short_help="Significance tests between runs; flags tie-dependent wins.")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True, type=click.Path(allow_dash=True))
@compare_options
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="table",
              show_default=True,
              help="table: readable; markdown; latex: booktabs, best in bold, markers as "
                   "superscripts; tsv: header row, full precision; json.")
@click.option("--convention", metavar="PEER",
              type=click.Choice(["trec_eval", "ir_measures", "ranx", "ntcireval", "trectools",
                                 "sklearn", "spark", "elasticsearch", "cwl"]),
              help="Read every -m name as PEER spells it (as in 'tiebreak eval').")
def compare_cmd(qrels, runs, baseline, measures, test, correction, alpha, all_pairs,
                regime, level, resamples, seed, jobs, name_by, quiet, verbose, fmt, convention):
    """Compare RUNS with significance tests, and flag differences that depend on ties.

    QRELS is a qrels file or irds:DATASET_ID. Per measure, every run is tested against
    the baseline (or every pair, --all-pairs) on per-topic values: mean, difference with a
    confidence interval, effect size (Cohen's d_z), p before and after the correction,
    wins/ties/losses over topics, and tie_robust: whether a significant difference still
    holds when the winner is scored in the realistic and the loser in the optimistic order
    of their tied documents, and under the expected value over tie orders.
    """
    from ..io import InputError
    from ..measures import MeasureError
    from ..stats.compare import compare, evaluate_for_compare, input_warnings
    from .common import _fail

    try:
        q, res, bidx = evaluate_for_compare(qrels, runs, measures, regime, baseline, jobs,
                                            name_by, convention)
        c = compare(res, bidx, test=test, correction=correction, alpha=alpha,
                    all_pairs=all_pairs, regime=regime, level=level, n=resamples,
                    seed=seed)
    except (InputError, MeasureError, ValueError) as e:
        _fail(str(e))
    click.echo(c.format(fmt), nl=False)
    for note in c.notes:
        click.echo(f"tiebreak: note: {note}", err=True)
    if not quiet:
        for line in input_warnings(q, res, verbose):
            click.echo(f"tiebreak: warning: {line}", err=True)
