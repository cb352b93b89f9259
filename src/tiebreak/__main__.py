"""``tiebreak`` as a process: the console script (``tiebreak = tiebreak.__main__:main``) and
``python -m tiebreak``.

Every command runs through the click group :data:`tiebreak.cli.main`, except ``tiebreak
trec_eval``: its arguments are trec_eval's own, which the group passes through unprocessed, so
the process goes straight to :func:`tiebreak.trec_eval.cli.run_process` and does not import
click and the command table (about 10 ms of a 0.15 s call; scripts call trec_eval once per
run). Shell completion (``_TIEBREAK_COMPLETE``) and Windows (where click expands wildcards in
the arguments) always go through click.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    """Run the command named in ``sys.argv``; ends the process.

    The cyclic garbage collector is paused while the command's modules are imported (they
    allocate only long-lived objects: modules, functions, classes, tables; each collection
    would walk them all again) and those objects are then frozen out of later collections:
    about 3 ms of a one-run ``trec_eval``."""
    import gc

    gc.disable()
    if (sys.argv[1:2] == ["trec_eval"] and os.name != "nt"
            and "_TIEBREAK_COMPLETE" not in os.environ):
        from .trec_eval.cli import run_process

        gc.freeze()
        gc.enable()
        run_process(sys.argv[2:])
    from .cli import main as cli

    gc.freeze()
    gc.enable()
    cli()


if __name__ == "__main__":
    main()
