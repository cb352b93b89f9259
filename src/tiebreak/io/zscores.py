"""Z-score files (``qid measure mean stddev``), trec_eval's ``-Z``."""

from __future__ import annotations

from . import InputError, _read_bytes


def read_zscores(path) -> dict:
    """``qid measure mean stddev`` lines -> {(qid, measure): (mean, stddev)}. Raises
    InputError (file:line)."""
    data, name = _read_bytes(path)
    z = {}
    for lno, line in enumerate(data.decode("latin-1").splitlines(), 1):
        f = line.split()
        if not f:
            continue
        if len(f) != 4:
            raise InputError(f"{name}:{lno}: expected 4 fields (qid measure mean stddev)")
        try:
            z[(f[0], f[1])] = (float(f[2]), float(f[3]))
        except ValueError:
            raise InputError(f"{name}:{lno}: mean or stddev is not a number") from None
    return z
