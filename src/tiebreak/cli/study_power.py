"""``tiebreak study power`` and ``tiebreak study error-rate``: thin commands over
:mod:`tiebreak.studies.power` and :mod:`tiebreak.studies.error_rate`, computed for every tie
regime a comparison reports (the primary one, expected, realistic and optimistic)."""

from __future__ import annotations

import click

REGIMES = ("trec_eval", "expected", "realistic", "optimistic")


def _evaluate(qrels, runs, measures, convention):
    from ..evaluation import Evaluator
    from ..io import run_paths

    ev = Evaluator(qrels, list(measures) or ["AP"], list(REGIMES), convention=convention)
    return ev.evaluate(run_paths(runs))


def _echo_table(head, rows, fmt):
    if fmt == "tsv":
        click.echo("\t".join(head))
        for r in rows:
            click.echo("\t".join(str(x) for x in r))
        return
    from tabulate import tabulate

    click.echo(tabulate(rows, head, tablefmt="github"))


_COMMON = [
    click.argument("qrels"),
    click.argument("runs", nargs=-1, required=True, type=click.Path(allow_dash=True)),
    click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
                 help="Measure, repeatable (names as in 'tiebreak eval'). Default: AP."),
    click.option("--convention", metavar="PEER", default=None,
                 help="Read the -m names as PEER spells them (see 'tiebreak eval')."),
    click.option("--format", "fmt", type=click.Choice(["table", "tsv"]), default="table",
                 show_default=True),
]


def _common(f):
    for o in reversed(_COMMON):
        f = o(f)
    return f


@click.command("power")
@_common
@click.option("--min-diff", type=float, required=True,
              help="Smallest mean difference worth detecting, in the measure's units.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True)
@click.option("--beta", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.20, show_default=True, help="Type II error (power = 1 - beta).")
def power_cmd(qrels, runs, measures, convention, fmt, min_diff, alpha, beta):
    """Topic set size and achieved power of the paired t-test (Sakai 2016) from RUNS.

    The variance is the residual variance of two-way ANOVA over RUNS x topics, per measure and
    tie regime; the table gives how many topics detect --min-diff with power 1 - beta, and
    the power the qrels' topics achieve."""
    from ..io import InputError
    from ..measures import MeasureError
    from ..studies.power import power_table
    from .common import _fail

    try:
        res = _evaluate(qrels, runs, measures, convention)
        rows = power_table(res, min_diff, alpha, beta)
    except (InputError, MeasureError, ValueError) as e:
        _fail(str(e))
    _echo_table(["measure", "regime", "systems", "topics", "V_E", "sd_diff", "min_diff",
                 "topic_set_size", "achieved_power"],
                [(r.measure, r.regime, r.n_systems, r.n_topics, f"{r.variance:.6f}",
                  f"{r.sd_diff:.4f}", f"{r.min_diff:g}", r.topic_set_size,
                  f"{r.achieved_power:.4f}") for r in rows], fmt)


@click.command("error-rate")
@_common
@click.option("--size", type=int, default=None,
              help="Topics per set (default: half the topics).")
@click.option("--sets", "n_sets", type=click.IntRange(min=1), default=50, show_default=True)
@click.option("--fuzziness", type=float, default=0.05, show_default=True,
              help="Relative difference under which two means count as equal.")
@click.option("--absolute", is_flag=True, help="--fuzziness is an absolute difference.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True,
              help="Level of the t-test of Sanderson & Zobel's significance variant.")
@click.option("--seed", type=int, default=0, show_default=True)
def error_rate_cmd(qrels, runs, measures, convention, fmt, size, n_sets, fuzziness, absolute,
                   alpha, seed):
    """Buckley & Voorhees (2000) error rate with fuzziness, and Sanderson & Zobel (2005)'s
    swap rate over disjoint topic sets (fuzziness and t-test variants), per measure and tie
    regime (Lu 2018, Eq. 2.45)."""
    from ..io import InputError
    from ..measures import MeasureError
    from ..studies.error_rate import error_rate, swap_rate
    from .common import _fail

    try:
        res = _evaluate(qrels, runs, measures, convention)
        rows = []
        for j, m in enumerate(res.measures):
            for r in REGIMES:
                X = res.per_topic[:, j, res.regimes.index(r)]
                c = size or X.shape[1] // 2
                e = error_rate(X, c, n_sets, fuzziness, not absolute, seed)
                s = swap_rate(X, c, n_sets, fuzziness, not absolute, None, alpha, seed)
                st = swap_rate(X, c, n_sets, fuzziness, not absolute, "t", alpha, seed)
                rows.append((m, r, c, f"{e.error_rate:.4f}", f"{e.tie_rate:.4f}",
                             f"{s.swap_rate:.4f}", f"{st.swap_rate:.4f}"))
    except (InputError, MeasureError, ValueError) as e:
        _fail(str(e))
    _echo_table(["measure", "regime", "topics_per_set", "error_rate", "tie_rate",
                 "swap_rate", "swap_rate_t"], rows, fmt)
