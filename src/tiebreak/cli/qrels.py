"""``tiebreak qrels ...``: commands on judgments themselves (one subcommand each; the work is done
in :mod:`tiebreak.judgments` and :mod:`tiebreak.stats`, imported inside each command)."""

from __future__ import annotations

import click


@click.group("qrels")
def qrels_group() -> None:
    """Commands on qrels: convert, compare and test the conclusions they support."""
