"""The one process-pool helper: map a function over items in forked workers, in order."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator

_SHARED: tuple | None = None


def cpus() -> int:
    """CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover
        return os.cpu_count() or 1


def _call(item):
    fn, shared = _SHARED
    return fn(shared, item)


def imap(fn: Callable, items: Iterable, jobs: int, shared=None,
         progress: str | None = None) -> Iterator:
    """Yield ``fn(shared, item)`` for every item, in order, from ``jobs`` forked workers.

    ``shared`` (e.g. parsed qrels) reaches the workers through fork, never pickled; results
    are pickled back. Falls back to this process where fork is unavailable or ``jobs <= 1``.
    ``progress``: a label for a tqdm progress bar on stderr (None: no bar).
    """
    items = list(items)
    bar = None
    if progress is not None:
        import sys

        from tqdm import tqdm

        bar = tqdm(total=len(items), desc=progress, file=sys.stderr, leave=False)
    try:
        for out in _imap(fn, items, jobs, shared):
            yield out
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()


def _imap(fn, items, jobs, shared):
    global _SHARED
    jobs = min(int(jobs), len(items))
    if jobs <= 1:
        for it in items:
            yield fn(shared, it)
        return
    import multiprocessing as mp

    if "fork" not in mp.get_all_start_methods():  # pragma: no cover
        for it in items:
            yield fn(shared, it)
        return
    _SHARED = (fn, shared)
    try:
        with mp.get_context("fork").Pool(jobs) as pool:
            yield from pool.imap(_call, items)
    finally:
        _SHARED = None
