"""Judgment-group qrels (``qid jg docno rel``), trec_eval's ``-R qrels_jg``."""

from __future__ import annotations

import io as _io

from . import InputError, _read_bytes, read_qrels


def read_qrels_jg(path):
    """Read a ``qrels_jg`` file: one :class:`~tiebreak.io.Qrels` per judgment group, in order
    of first appearance, as ``[(group, Qrels), ...]``. Raises InputError (file:line)."""
    data, name = _read_bytes(path)
    by: dict[bytes, list[bytes]] = {}
    for lno, line in enumerate(data.splitlines(), 1):
        if not line.strip() or line.startswith(b"#"):
            continue
        f = line.split()
        if len(f) != 4:
            raise InputError(f"{name}:{lno}: expected 4 fields (qid jg docno rel), "
                             f"found {len(f)}")
        try:
            int(f[3])
        except ValueError:
            raise InputError(f"{name}:{lno}: relevance '{f[3].decode(errors='replace')}' "
                             "is not an integer") from None
        by.setdefault(f[1], []).append(line)
    out = []
    for g, lines in by.items():
        q = read_qrels(_io.BytesIO(b"\n".join(lines) + b"\n"))
        q.name = name
        out.append((g.decode(errors="replace"), q))
    return out
