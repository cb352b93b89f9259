"""trec_eval 10.0 drop-in replacement (``tiebreak trec_eval``).

* :mod:`.options` parses trec_eval's command line;
* :mod:`.evaluate` turns the options into registered measures (the alias table
  :mod:`tiebreak.measures.trec_names`) and evaluates them with the shared core;
* :mod:`.render` prints trec_eval's exact text (and z-scores);
* :mod:`.prefs` the preference measures (``-R prefs`` / ``qrels_prefs``);
* :mod:`.cli` argv -> exit status.

Python use::

    from tiebreak.trec_eval import main
    main(["-m", "all_trec", "-q", "qrels.txt", "run.txt"])   # prints, returns the exit status
"""

from .cli import main

__all__ = ["main"]
