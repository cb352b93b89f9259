"""``tiebreak trec_eval``: the click entry point; arguments go to trec_eval's own parser."""

from __future__ import annotations

import sys

import click


@click.command(
    "trec_eval",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                      "help_option_names": []},
    add_help_option=False,
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def trec_eval_cmd(args) -> None:
    """Drop-in trec_eval 10.0 (same options and output), plus --regime for tie regimes.

    Run `tiebreak trec_eval -h` for the options."""
    from .driver import main

    sys.exit(main(list(args)))
