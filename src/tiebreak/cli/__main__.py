"""``python -m tiebreak.cli``: the click group alone, without the click-free start of
``tiebreak eval`` (``python -m tiebreak`` is the console script's path)."""

from .app import main

main()
