"""Retrieval: bag-of-words models (:mod:`.models`), batch search and run output (:mod:`.search`),
and the interval/proximity models (:mod:`.intervals`, :mod:`.proximity`, :mod:`.dependency`).

Kept import-light: nothing here imports numba until a model module is imported.
"""
