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
    """Run the command named in ``sys.argv``; ends the process. Its modules are imported with
    the garbage collector paused (:class:`tiebreak._process.imports`)."""
    from ._process import imports

    if (sys.argv[1:2] == ["trec_eval"] and os.name != "nt"
            and "_TIEBREAK_COMPLETE" not in os.environ):
        with imports(freeze=True):
            from .trec_eval.cli import run_process
        run_process(sys.argv[2:])
    with imports(freeze=True):
        from .cli import main as cli
    cli()


if __name__ == "__main__":
    main()
