"""trec_eval 10.0 drop-in replacement (``tiebreak trec_eval``).

* :mod:`.options` parses trec_eval's command line;
* :mod:`.ranks` builds each topic's ranked relevance codes under any tie regime;
* :mod:`.measures` holds every trec_eval measure as a vectorised kernel;
* :mod:`.prefs` the preference measures (``-R prefs`` / ``qrels_prefs``);
* :mod:`.driver` evaluates, converts to z-scores and prints trec_eval's exact text.

Python use::

    from tiebreak.trec_eval import main
    main(["-m", "all_trec", "-q", "qrels.txt", "run.txt"])   # prints, returns the exit status
"""

from .driver import main

__all__ = ["main"]
