"""trec_eval's ``qrels_jg`` format (``-R qrels_jg``): ``qid jg docno rel``, where the second field
names a judgment group (one user's judgments) instead of being ignored."""

from __future__ import annotations

import io

from .qrels import LAYOUT, Qrels, parse_rels, read_qrels
from .source import InputError, open_bytes, show, split_lines, text_lines

__all__ = ["read_qrels_jg"]


def read_qrels_jg(source) -> list[tuple[str, Qrels]]:
    """Read a ``qrels_jg`` file: one :class:`~tiebreak.io.Qrels` per judgment group.

    Parameters
    ----------
    source : path, ``"-"`` or binary file object
        Plain or gzip-compressed.

    Returns
    -------
    list of (str, Qrels)
        (judgment group name, its judgments), groups in order of first appearance. Each Qrels
        keeps the file name; its line numbers refer to the group's own lines.

    Raises
    ------
    InputError
        ``file:line: ...`` for a wrong number of fields or a ``rel`` that is not a 64-bit
        integer; ``file: ...`` when the file holds no judgment.
    """
    raw, name = open_bytes(source)
    data = text_lines(raw, name, {})
    by: dict[bytes, list[bytes]] = {}
    for lno, line in enumerate(split_lines(data), 1):
        f = line.split()
        if not f or f[0][:1] == b"#":
            continue
        if len(f) != 4:
            raise InputError(f"{name}:{lno}: expected 4 fields '{LAYOUT}' (iter = judgment "
                             f"group), found {len(f)}: {show(line.strip()[:160])!r}")
        parse_rels([f[3]], [lno], name)
        by.setdefault(f[1], []).append(line)
    if not by:
        raise InputError(f"{name}: no judgments; qrels_jg need lines 'qid jg docno rel'")
    out = []
    for g, lines in by.items():
        q = read_qrels(io.BytesIO(b"\n".join(lines) + b"\n"))
        q.name = name
        out.append((g.decode(errors="replace"), q))
    return out
