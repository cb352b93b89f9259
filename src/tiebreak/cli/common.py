"""What every command shares: the error exit, the QRELS RUN... arguments, ``-j``, ``--dask``
and the files a command writes. Imported by the command modules of :mod:`tiebreak.cli`, which
stand above every other room (nothing below the command line imports this module)."""

from __future__ import annotations

import sys

import click

from .options import REGIME_HELP  # noqa: F401 - the regime option's text, shared


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


def split_list(values) -> list[str]:
    """The items of a list option, in the one list syntax of every command: the option
    repeated, each value comma-separated (``-m AP -m P@10,RR`` -> ``[AP, P@10, RR]``); blanks
    around items and empty items are dropped. ``values``: a string or an iterable of strings
    (None: no items). A comma inside parentheses stays in its item (``RBP(p=0.8,d=10)``)."""
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    out = []
    for v in values:
        depth, start = 0, 0
        for i, ch in enumerate(v):
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif ch == "," and depth == 0:
                out.append(v[start:i])
                start = i + 1
        out.append(v[start:])
    return [s.strip() for s in out if s.strip()]


def note_renamed(old: str, new: str) -> None:
    """The deprecation note of an old option spelling, on stderr."""
    click.echo(f"tiebreak: note: {old} is deprecated (kept for one release): use {new}",
               err=True)


def renamed_option(old: str, param: str, new: str, **kw):
    """A hidden option spelled ``old`` (an earlier release's name of ``new``) for a command
    whose parameter ``param`` is now given as ``new``: its value goes to ``param`` with a
    deprecation note on stderr (:func:`note_renamed`). For a repeatable option
    (``multiple=True``) the old values are added to the new ones; otherwise giving both is a
    usage error. ``kw``: click's option arguments (type, multiple, ...) of the old spelling.
    Apply it below the command's ``@click.command`` like an option."""
    import functools

    hidden = f"_renamed_{param}_{old.lstrip('-').replace('-', '_')}"

    def decorate(f):
        @functools.wraps(f)
        def wrapper(*a, **k):
            value = k.pop(hidden)
            if value is None or value == ():
                return f(*a, **k)
            note_renamed(old, new)
            if kw.get("multiple"):
                k[param] = tuple(k.get(param) or ()) + tuple(value)
            else:
                ctx = click.get_current_context()
                src = ctx.get_parameter_source(param)
                if src is not None and src.name == "COMMANDLINE":
                    raise click.UsageError(f"give {new} or its old spelling {old}, not both")
                k[param] = value
            return f(*a, **k)

        return click.option(old, hidden, hidden=True, default=None if not kw.get("multiple")
                            else (), **kw)(wrapper)

    return decorate


def write_rows(rows: list[dict], fmt: str, fh, columns: list[str] | None = None,
               nleft: int = 1, title: str | None = None) -> None:
    """Write records (dicts with the same keys) as ``table`` (the readable grid, floats to 4
    decimals), ``tsv`` (a header row and full precision) or ``json`` (a list of objects; NaN as
    null). ``columns`` chooses and orders the keys (default: the first row's); ``title`` is a line
    above a table (tables only)."""
    from ..evaluation.output import dump_json, grid

    cols = columns or (list(rows[0]) if rows else [])
    if fmt == "json":
        dump_json([{c: r.get(c) for c in cols} for r in rows], fh)
        return

    def cell(v, precise):
        if isinstance(v, float):
            if v != v:
                return "-" if not precise else "nan"
            return repr(v) if precise else f"{v:.4f}"
        return str(v)

    if fmt == "tsv":
        fh.write("\t".join(cols) + "\n")
        for r in rows:
            fh.write("\t".join(cell(r.get(c), True) for c in cols) + "\n")
        return
    if title:
        fh.write(title + "\n")
    fh.write(grid(cols, [[cell(r.get(c), False) for c in cols] for r in rows], nleft))
