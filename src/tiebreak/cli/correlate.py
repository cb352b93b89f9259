"""``tiebreak correlate RESULT_A RESULT_B``: rank correlation of the system orderings of two
evaluation results (the work is in :mod:`tiebreak.studies.correlate`)."""

from __future__ import annotations

import click

from .common import _fail, open_output, write_rows


@click.command("correlate")
@click.argument("result_a", type=click.Path(allow_dash=True))
@click.argument("result_b", type=click.Path(allow_dash=True))
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Only this measure (as the results name it), repeatable.")
@click.option("--regime", "regimes", multiple=True, metavar="REGIME",
              help="Only this regime, repeatable.")
@click.option("--rbo-p", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.9, show_default=True, help="RBO persistence.")
@click.option("--samples", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Bootstrap resamples (0: no intervals).")
@click.option("--level", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.95, show_default=True, help="Coverage of the intervals.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap.")
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "json"]), default="table",
              show_default=True)
@click.option("-o", "--output", default="-", type=click.Path(allow_dash=True),
              help="Write here (default: standard output).")
def correlate_cmd(result_a, result_b, measures, regimes, rbo_p, samples, level, seed, fmt,
                  output):
    """Rank correlation of the system orderings in RESULT_A and RESULT_B (written by
    'tiebreak eval --format tsv' or '--format json'): Kendall's tau (tau-a), tau_AP (B against
    the reference A), tau-b, Spearman and RBO (equal means tied), with percentile bootstrap
    intervals over topics when both results have per-topic values (eval -q) for the same
    topics, else over systems."""
    from ..evaluation.output import read_records
    from ..io import InputError
    from ..studies.correlate import correlate

    try:
        rows = correlate(read_records(result_a), read_records(result_b), measures, regimes,
                         p=rbo_p, n=samples, seed=seed, level=level)
    except (InputError, ValueError) as e:
        _fail(str(e))
    if fmt == "table":
        from ..stats.correlation import COEFFICIENTS

        shown = []
        for r in rows:
            s = {k: r[k] for k in ("measure", "regime", "systems", "boot")}
            for k in COEFFICIENTS:
                s[k] = (f"{r[k]:.4f} [{r[k + '_low']:.4f}, {r[k + '_high']:.4f}]"
                        if k + "_low" in r else f"{r[k]:.4f}")
            shown.append(s)
        rows = shown
    with open_output(output) as fh:
        write_rows(rows, fmt, fh, None, 2)
