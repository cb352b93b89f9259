"""The one parallel helper: map a function over items in forked workers, or on a Dask cluster,
in order."""

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
         progress: str | None = None, client=None) -> Iterator:
    """Yield ``fn(shared, item)`` for every item, in order, from ``jobs`` forked workers.

    ``shared`` (e.g. parsed qrels) reaches the workers through fork, never pickled; results
    are pickled back. Falls back to this process where fork is unavailable or ``jobs <= 1``.
    ``progress``: a label for a tqdm progress bar on stderr (None: no bar).

    ``client``: a ``dask.distributed.Client`` (see :func:`dask_client`): ``shared`` is sent to
    every worker once, items go out as tasks of up to 16 items (``jobs`` is ignored), results
    come back in order. ``fn`` must then be importable by the workers (a module-level function).
    """
    items = list(items)
    bar = None
    if progress is not None:
        import sys

        from tqdm import tqdm

        bar = tqdm(total=len(items), desc=progress, file=sys.stderr, leave=False)
    try:
        gen = _imap(fn, items, jobs, shared) if client is None else _dask_map(
            fn, items, shared, client)
        for out in gen:
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


def _dask_map(fn, items, shared, client):
    # shared goes out once, under a key of its own (hash=False): a second map never meets the
    # first one's copy while the cluster releases it
    [sh] = client.scatter([shared], broadcast=True, hash=False)
    # items go out in chunks (about 8 per worker thread): one scheduler round trip per chunk,
    # not per item, so that small items (one run each) are not dominated by task overhead
    threads = sum(client.nthreads().values()) or 1
    size = max(1, min(16, -(-len(items) // (8 * threads))))
    chunks = [items[i:i + size] for i in range(0, len(items), size)]
    futures = client.map(_chunk, [fn] * len(chunks), [sh] * len(chunks), chunks, pure=False)
    for f in futures:
        yield from f.result()


def _chunk(fn, shared, items):
    return [fn(shared, it) for it in items]


def dask_client(address: str):
    """A ``dask.distributed.Client`` for ``address`` (``tcp://host:port``), or a LocalCluster of
    one single-threaded worker process per CPU for ``local``.

    Raises
    ------
    ImportError
        Dask is not installed; the message names the extra (``pip install 'tiebreak[dask]'``).
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ImportError("--dask needs Dask: pip install 'tiebreak[dask]'") from None
    import logging

    # A task that raises (a malformed run) comes back to the command as its exception, which
    # the command reports in one line; Dask's own logs of it (the worker's traceback, the
    # scheduler's "lose scattered data" at shutdown) would only bury that line.
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    if address == "local":
        cluster = LocalCluster(n_workers=cpus(), threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.CRITICAL)
        return Client(cluster)
    return Client(address)
