"""What every command shares: the error exit, the QRELS RUN... arguments, ``-j``, ``--dask``
and the files a command writes. Imported by the command modules of :mod:`tiebreak.cli`, which
stand above every other room (nothing below the command line imports this module)."""

from __future__ import annotations

import sys

import click

REGIME_HELP = (
    "Tie regime, repeatable or comma-separated: file, trec_eval, realistic, optimistic, lower, "
    "upper, expected, or all (these seven); also score-rank (score descending, then the rank "
    "column, as Yang et al. 2016 re-sort). Default: trec_eval,expected,realistic,optimistic,"
    "lower,upper."
)


def _fail(msg: str) -> None:
    click.echo(f"tiebreak: error: {msg}", err=True)
    sys.exit(2)


def dask_option(what: str = "Evaluate"):
    """The ``--dask ADDRESS`` option of every command that evaluates many runs."""
    return click.option("--dask", "dask_address", metavar="ADDRESS",
                        help=f"{what} on a Dask cluster: tcp://scheduler:8786, or 'local' for a "
                             "LocalCluster (needs pip install 'tiebreak[dask]').")


def split_qrels(qrels, runs) -> tuple[str, tuple]:
    """QRELS and RUNS of a command whose arguments are ``QRELS RUN [RUN ...]``, also accepting
    the older ``--qrels QRELS RUN ...`` (``qrels`` not None). Exit status 2 when a run is
    missing."""
    if qrels is None:
        if len(runs) < 2:
            _fail("give QRELS and at least one RUN")
        return runs[0], tuple(runs[1:])
    if not runs:
        _fail("give at least one RUN")
    return qrels, tuple(runs)


def resolve_jobs(jobs: int) -> int:
    """``jobs``, or every core for 0 or less (``-j`` defaults to 0 in every command)."""
    if jobs > 0:
        return jobs
    from .._native.parallel import cpus

    return cpus()


def open_client(address: str | None):
    """The Dask client of ``--dask ADDRESS`` (None without it); a clear error, exit status 2,
    when Dask is missing or the scheduler cannot be reached."""
    if not address:
        return None
    from .._native.parallel import dask_client

    try:
        return dask_client(address)
    except (ImportError, OSError, ValueError, TimeoutError) as e:
        _fail(f"--dask {address}: {e}")


class open_output:
    """``with open_output(path) as fh``: a text file a command writes (``-``: standard output);
    an :class:`OSError` while opening, writing or closing it names ``path``, so the one error
    path can say which file failed (a write error itself names no file)."""

    def __init__(self, path, encoding: str = "utf-8"):
        self.path, self.encoding, self.fh = str(path), encoding, None

    def __enter__(self):
        if self.path == "-":
            return sys.stdout
        try:
            self.fh = open(self.path, "w", encoding=self.encoding)
        except OSError as e:
            raise OSError(e.errno, e.strerror, self.path) from None
        return self.fh

    def __exit__(self, et, e, tb):
        if self.fh is None:
            return False
        try:
            self.fh.close()
        except OSError as ce:
            if e is None:
                e = ce
        if isinstance(e, OSError) and e.filename is None:
            raise OSError(e.errno, e.strerror, self.path) from None
        return False
