"""``tiebreak`` as a process: the console script (``tiebreak = tiebreak.__main__:main``) and
``python -m tiebreak``.

Every command runs through the click group :data:`tiebreak.cli.main`, except two that scripts
call once per run file, which start without importing click and the command table (about 10
ms of a 0.15 s process):

* ``tiebreak trec_eval``: its arguments are trec_eval's own, which the group passes through
  unprocessed, so the process goes straight to :func:`tiebreak.trec_eval.cli.run_process`;
* ``tiebreak eval`` in its common form (files and the command's options in their plain
  spellings, :func:`tiebreak.cli.eval_command.parse_args`): the command's body
  :func:`tiebreak.cli.eval_command.run` with the same arguments click would give it; anything else
  (``--help``, a usage error) goes through click.

Shell completion (``_TIEBREAK_COMPLETE``) and Windows (where click expands wildcards in the
arguments) always go through click.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    """Run the command named in ``sys.argv``; ends the process. Its modules are imported with
    the garbage collector paused (:class:`tiebreak._native.process.imports`)."""
    from ._native.process import imports

    command = sys.argv[1:2]
    if (command in (["trec_eval"], ["eval"]) and os.name != "nt"
            and "_TIEBREAK_COMPLETE" not in os.environ):
        if command == ["trec_eval"]:
            with imports(freeze=True):
                from .trec_eval.cli import run_process
            run_process(sys.argv[2:])
        from .cli import eval_command

        kw = eval_command.parse_args(sys.argv[2:])
        if kw is not None:
            from ._native.process import run_standalone

            with imports(freeze=True):
                eval_command.imports()
            run_standalone(lambda: eval_command.run(**kw))
    with imports(freeze=True):
        from .cli.app import main as cli
    cli()


if __name__ == "__main__":
    main()
