"""Run files in the arguments of a command, skipping the files of a directory that are not runs
(a README, a notes file) and saying why, instead of failing on their first line."""

from __future__ import annotations

import os

from .runs import run_paths
from .source import InputError

__all__ = ["find_runs", "sniff_run"]

_SNIFF_BYTES = 1 << 16


def sniff_run(path: str) -> str | None:
    """None when the first result line of ``path`` (gzip or not; comments and blank lines
    skipped; within the first 64 KiB) looks like a TREC run line (five or more fields, and the
    2nd is ``Q0`` or the 4th or 5th a number: a run line with a malformed score is still a run,
    whose reader reports it with file and line), else the reason, naming the line: ``line 1:
    'This directory holds ...'``. An empty file is a run (it retrieved nothing)."""
    import gzip
    import zlib

    try:
        with open(path, "rb") as f:
            data = f.read(_SNIFF_BYTES)
        if data[:2] == b"\x1f\x8b":
            with gzip.open(path, "rb") as f:
                data = f.read(_SNIFF_BYTES)
    except (OSError, EOFError, zlib.error) as e:
        return f"cannot be read: {e}"
    data = data.rsplit(b"\n", 1)[0] if len(data) == _SNIFF_BYTES else data
    for n, line in enumerate(data.splitlines(), 1):
        f = line.split()
        if not f or f[0].startswith(b"#"):
            continue
        ok = len(f) >= 5 and (f[1].upper() == b"Q0" or _number(f[3]) or _number(f[4]))
        if ok:
            return None
        text = line.strip()[:60].decode("utf-8", "replace")
        return f"line {n} is not a run line ('qid Q0 docno rank score tag'): {text!r}"
    return None


def _number(x: bytes) -> bool:
    try:
        float(x)
    except ValueError:
        return False
    return True


def find_runs(args) -> tuple[list[str], list[tuple[str, str]]]:
    """(run paths, skipped): :func:`tiebreak.io.run_paths`, except that a file found inside a
    directory argument whose content is not a run, or that cannot be read, is skipped and
    listed with the reason (so are the entries :func:`run_paths` leaves out). Files
    named explicitly are kept (their reader reports any problem). Raises InputError as
    ``run_paths`` does, and when a directory holds no run at all."""
    explicit = {os.fspath(a) for a in args if not (a != "-" and os.path.isdir(a))}
    keep, skipped = [], []
    paths = run_paths(args, skipped)
    for p in paths:
        reason = None if p in explicit or p == "-" else sniff_run(p)
        if reason is None:
            keep.append(p)
        else:
            skipped.append((p, reason))
    if not keep:
        raise InputError(f"no run files among {', '.join(map(os.fspath, args))}: " +
                         "; ".join(f"{p}: {r}" for p, r in skipped[:3]))
    return keep, skipped
