"""``tiebreak report QRELS RUN...``: one self-contained HTML page comparing runs (the page is
built by :mod:`tiebreak.report`)."""

from __future__ import annotations

import click

from .compare import compare_options

__all__ = ["report_cmd"]


@click.command("report", short_help="Write a self-contained HTML report comparing runs.")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True, type=click.Path(allow_dash=True))
@compare_options
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True),
              default="report.html", show_default=True, help="HTML file to write ('-': stdout).")
@click.option("--title", default="tiebreak comparison", show_default=True, help="Page title.")
def report_cmd(qrels, runs, baseline, measures, test, correction, alpha, all_pairs, regime,
               level, resamples, seed, jobs, name_by, quiet, verbose, output, title):
    """Write one self-contained HTML page comparing RUNS.

    It holds the comparison table of 'tiebreak compare' (same options), each system's tie range
    per measure, per-topic differences against the baseline (default: the first run) with the
    span of tie orders, and the input warnings. The page loads nothing from the network.
    """
    from ..io import InputError
    from ..measures import MeasureError
    from ..report import build_report
    from ..stats.compare import compare, evaluate_for_compare, input_warnings
    from .common import _fail

    try:
        q, res, bidx = evaluate_for_compare(qrels, runs, measures, regime, baseline, jobs,
                                            name_by)
        c = compare(res, bidx, test=test, correction=correction, alpha=alpha,
                    all_pairs=all_pairs, regime=regime, level=level, n=resamples, seed=seed)
    except (InputError, MeasureError, ValueError) as e:
        _fail(str(e))
    warn = input_warnings(q, res)
    page = build_report(res, c, warn, title, q.name, inputs=list(runs))
    if output == "-":
        click.echo(page, nl=False)
    else:
        from .common import open_output

        with open_output(output) as fh:
            fh.write(page)
        if not quiet:
            click.echo(f"tiebreak: wrote {output}", err=True)
    if not quiet:
        for line in (warn if verbose else input_warnings(q, res, False)):
            click.echo(f"tiebreak: warning: {line}", err=True)
