"""``tiebreak verify EXPECTED.yaml``: re-evaluate the runs of an expected-values file and fail
(exit status 1, with a diff table) when a value leaves its allowance (the work is in
:mod:`tiebreak.studies.verify`)."""

from __future__ import annotations

import sys

import click

from .common import _fail, write_rows


@click.command("verify")
@click.argument("expected", type=click.Path(exists=True, dir_okay=False))
@click.option("--all", "show_all", is_flag=True, help="List every entry, not only failures.")
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "json"]), default="table",
              show_default=True)
def verify_cmd(expected, show_all, fmt):
    """Check the values of EXPECTED.yaml (written by 'tiebreak eval --write-expected FILE'):
    each (run, measure) is evaluated again and must stay inside its tolerance, by default the
    run's tie range [realistic, optimistic] written with it, so that a change of tie order
    alone passes. Exit status 0 when every value passes, 1 with a table of the failures, 2 on
    bad input."""
    from ..io import InputError
    from ..measures import MeasureError
    from ..studies.verify import load_expected, verify

    try:
        checks = verify(load_expected(expected))
    except (InputError, MeasureError, ValueError, TypeError, ImportError) as e:
        _fail(str(e))
    bad = [c for c in checks if not c.ok]
    rows = [c.row() for c in (checks if show_all else bad)]
    if fmt == "table":  # enough digits to see a difference
        rows = [{k: f"{v:.10g}" if isinstance(v, float) else v for k, v in r.items()}
                for r in rows]
    if rows or fmt == "json":   # JSON is always a document ([] when nothing is listed)
        write_rows(rows, fmt, sys.stdout, None, 2)
    # the count: on stdout as the table's whole answer, else on stderr beside the data
    click.echo(f"{len(checks) - len(bad)} of {len(checks)} values verified"
               + (f", {len(bad)} outside their allowance" if bad else ""),
               err=bool(rows) or fmt != "table")
    sys.exit(1 if bad else 0)
