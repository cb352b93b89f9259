"""The command line, the top floor of the house: thin click commands over the rooms below.

* :mod:`.app`: the group ``tiebreak`` (:func:`main`), its lazy command table and the commands
  ``eval``, ``measures``, ``example``, ``band`` and ``bounds``;
* :mod:`.common`: what every command shares (error exit, ``QRELS RUN...``, ``-j``, ``--dask``,
  output files);
* :mod:`.eval_command`: ``tiebreak eval``'s body and its click-free start;
* one module per command family: :mod:`.index`, :mod:`.search`, :mod:`.judgments`,
  :mod:`.runs`, :mod:`.reproduce`, :mod:`.study_depth`, :mod:`.study_dropout`,
  :mod:`.study_estimate`, :mod:`.study_power`.

Importing this package costs nothing (``tiebreak eval``'s click-free start imports
:mod:`.eval_command` through it); the names of :mod:`.app` (``main``, ``LAZY_COMMANDS``, ...) are
reached through it on first use.
"""

from __future__ import annotations


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    import importlib
    import importlib.util

    if importlib.util.find_spec(f"{__name__}.{name}") is not None:   # a command module
        return importlib.import_module(f".{name}", __name__)
    app = importlib.import_module(".app", __name__)
    try:
        return getattr(app, name)
    except AttributeError:
        raise AttributeError(f"module 'tiebreak.cli' has no attribute {name!r}") from None
