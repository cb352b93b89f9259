"""``tiebreak compare QRELS RUN...``: significance tests between runs, flagging the differences
that depend on tie order (the computation is :mod:`tiebreak.stats.compare`), and the options it
shares with ``tiebreak report``."""

from __future__ import annotations

import click

from ..stats.compare import FORMATS
from .common import _fail, split_list

__all__ = ["compare_cmd", "compare_options", "regimes"]

REGIMES = ("trec_eval", "file", "expected", "realistic", "optimistic", "lower", "upper")


def regimes(given) -> list[str]:
    """The regimes of ``--regime`` (repeatable or comma-separated, :func:`split_list`), each
    once, in the order given; ``["trec_eval"]`` when none is given. Exit status 2 for a name
    that is not one of :data:`REGIMES`."""
    out = list(dict.fromkeys(split_list(given))) or ["trec_eval"]
    bad = [r for r in out if r not in REGIMES]
    if bad:
        _fail(f"--regime {', '.join(bad)}: not one of {', '.join(REGIMES)}")
    return out


def _joined(results, fmt: str) -> str:
    """The text of one comparison per regime in ``fmt``: one table after another; TSV with one
    header row; JSON, a list of the comparisons' documents when there are several."""
    if len(results) == 1:
        return results[0].format(fmt)
    texts = [c.format(fmt) for c in results]
    if fmt == "tsv":
        return texts[0] + "".join(t.split("\n", 1)[1] for t in texts[1:])
    if fmt == "json":
        import json

        return json.dumps([json.loads(t) for t in texts], indent=1) + "\n"
    return "\n".join(texts)


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
                                                  "tukey-oneway", "randomised-tukey"]),
                     default="t", show_default=True,
                     help="Two-sided paired test over topics (t, wilcoxon, randomization, "
                          "bootstrap, sign), or a test of all systems at once that needs no "
                          "correction: tukey (Tukey's HSD, topics as blocks), tukey-oneway "
                          "(topics unpaired, as statsmodels and ranx), randomised-tukey "
                          "(Carterette 2012; its interval comes from the permutation "
                          "distribution)."),
        click.option("--correction", type=click.Choice(["holm", "bh", "bonferroni", "none"]),
                     default="holm", show_default=True,
                     help="Multiple-comparison correction over the comparisons of a measure."),
        click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
                     default=0.05, show_default=True, help="Significance level."),
        click.option("--all-pairs", is_flag=True,
                     help="Compare every pair of systems instead of each against the baseline."),
        click.option("--regime", "regime", multiple=True, metavar="REGIME",
                     help="Tie regime of the reported means and tests, repeatable or "
                          f"comma-separated (one comparison each): {', '.join(REGIMES)}. "
                          "Default: trec_eval."),
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
                     help="Do not print input warnings (they go to stderr) or a progress bar."),
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
@click.option("--score-precision", default="float64", metavar="FORMAT", show_default=True,
              help="Round scores as a number format stores them first (as in 'tiebreak eval': "
                   "float32, float16, bfloat16, int8, int8-global, bits:K, decimals:D).")
def compare_cmd(qrels, runs, baseline, measures, test, correction, alpha, all_pairs,
                regime, level, resamples, seed, jobs, name_by, quiet, verbose, fmt, convention,
                score_precision):
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
    from ..ranking.formats import parse_format
    from ..stats.compare import compare, evaluate_for_compare, input_warnings

    regs = regimes(regime)
    try:
        score_precision = parse_format(score_precision, "--score-precision")
    except ValueError as e:
        _fail(str(e))
    try:
        q, res, bidx = evaluate_for_compare(qrels, runs, measures, regs, baseline, jobs,
                                            name_by, convention, quiet,
                                            score_precision=score_precision)
        cs = [compare(res, bidx, test=test, correction=correction, alpha=alpha,
                      all_pairs=all_pairs, regime=r, level=level, n=resamples, seed=seed)
              for r in regs]
    except (InputError, MeasureError, ValueError) as e:
        _fail(str(e))
    click.echo(_joined(cs, fmt), nl=False)
    for note in dict.fromkeys(n for c in cs for n in c.notes):
        click.echo(f"tiebreak: note: {note}", err=True)
    if not quiet:
        for line in input_warnings(q, res, verbose):
            click.echo(f"tiebreak: warning: {line}", err=True)
