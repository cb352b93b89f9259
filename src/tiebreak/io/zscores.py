"""trec_eval's z-score files (``-Z``): ``qid measure mean stddev`` per line."""

from __future__ import annotations

from .source import NUMBER, InputError, open_bytes, show, split_lines, text_lines

__all__ = ["read_zscores"]


def read_zscores(source) -> dict[tuple[str, str], tuple[float, float]]:
    """Read per-topic means and standard deviations for trec_eval's ``-Z``.

    Parameters
    ----------
    source : path, ``"-"`` or binary file object
        Plain or gzip-compressed.

    Returns
    -------
    dict
        ``(qid, measure) -> (mean, stddev)``; qid and measure as latin-1 text.

    Raises
    ------
    InputError
        ``file:line: ...`` for a wrong number of fields or a mean or stddev that is not a decimal
        number.
    """
    raw, name = open_bytes(source)
    data = text_lines(raw, name, {})
    z = {}
    for lno, line in enumerate(split_lines(data), 1):
        f = line.split()
        if not f:
            continue
        if len(f) != 4:
            raise InputError(f"{name}:{lno}: expected 4 fields (qid measure mean stddev), "
                             f"found {len(f)}")
        for label, tok in (("mean", f[2]), ("stddev", f[3])):
            if not NUMBER.fullmatch(tok):
                raise InputError(f"{name}:{lno}: {label} {show(tok[:40])!r} is not a number")
        z[(f[0].decode("latin-1"), f[1].decode("latin-1"))] = (float(f[2]), float(f[3]))
    return z
