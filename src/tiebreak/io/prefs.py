"""Preference judgments for trec_eval's ``-R prefs`` and ``-R qrels_prefs``.

``prefs``: lines ``qid ujg ujsubg docno rel_level``; ``qrels_prefs``: ordinary qrels
``qid iter docno rel`` read with judgment group (JG) = ``iter`` and one sub-group (JSG) per JG.
The measures computed from them are in :mod:`tiebreak.trec_eval.prefs`; the format follows
trec_eval 10.0 (``get_prefs.c``, ``get_qrels_prefs.c``), read independently.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .source import NUMBER, InputError, open_bytes, show, split_lines, text_lines

__all__ = ["TopicPrefs", "read_prefs"]

_FORMATS = {
    "prefs": (5, "qid ujg ujsubg docno rel_level"),
    "qrels_prefs": (4, "qid iter docno rel"),
}


@dataclass
class TopicPrefs:
    """One topic's preference judgments, one entry per input line.

    Attributes
    ----------
    qid : str
        Topic id.
    jgs : tuple[str, ...]
        Judgment group names in byte order (the order trec_eval visits them).
    jsgs : tuple[str, ...]
        Judgment sub-group names of the topic in byte order (a JSG is identified by (JG, name)).
    docnos : ndarray, str (``U``), shape (d,)
        Distinct judged docnos (latin-1 text of the bytes) in byte order.
    jg, jsg, doc : ndarray, int64, shape (n,)
        Per line: index into ``jgs``, ``jsgs`` and ``docnos``.
    level : ndarray, float64, shape (n,)
        Per line: ``rel_level`` (``> 0`` relevant, ``0`` non-relevant).
    lineno : ndarray, int64, shape (n,)
        Per line: 1-based line number in ``source``.
    source : str
        File the judgments came from.
    """

    qid: str
    jgs: tuple[str, ...]
    jsgs: tuple[str, ...]
    docnos: np.ndarray
    jg: np.ndarray
    jsg: np.ndarray
    doc: np.ndarray
    level: np.ndarray
    lineno: np.ndarray
    source: str = ""

    def __len__(self) -> int:
        return len(self.level)


# --------------------------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------------------------


def _codes(tokens: list[bytes]) -> tuple[list[bytes], np.ndarray]:
    """Distinct tokens in byte order and each token's index among them."""
    uniq = sorted(set(tokens))
    index = {t: i for i, t in enumerate(uniq)}
    return uniq, np.fromiter(map(index.__getitem__, tokens), np.int64, len(tokens))


def _name(tok: bytes) -> str:
    return tok.decode("utf-8", "surrogateescape")


def read_prefs(source, fmt: str) -> dict[str, TopicPrefs]:
    """Read preference judgments the way ``trec_eval -R prefs`` / ``-R qrels_prefs`` does.

    Parameters
    ----------
    source : path, ``"-"`` or binary file object
        Plain or gzip-compressed.
    fmt : {"prefs", "qrels_prefs"}
        ``"prefs"``: lines ``qid ujg ujsubg docno rel_level``. ``"qrels_prefs"``: ordinary qrels
        ``qid iter docno rel``, read with JG = ``iter`` and one JSG per JG (trec_eval's constant
        ``"0"``). ``rel_level`` is a decimal number (``5.5`` is fine), as trec_eval's ``atof``.
        Lines whose first character is ``#`` are comments; blank lines are skipped (trec_eval
        rejects them as malformed). A line repeated exactly is kept: in a JG with one JSG
        trec_eval counts its preferences twice, and so does this module.

    Returns
    -------
    dict[str, TopicPrefs]
        Topic id -> judgments, topics in byte order (trec_eval's order).

    Raises
    ------
    InputError
        ``file:line: ...`` for a wrong number of fields, a ``rel_level`` that is not a decimal
        number, a doc given two different levels in one JSG, or a doc judged both ``0`` and
        ``> 0`` inside one JG (trec_eval stops on those too, when it evaluates the topic).
    ValueError
        Unknown ``fmt``.
    """
    if fmt not in _FORMATS:
        raise ValueError(f"fmt must be 'prefs' or 'qrels_prefs', not {fmt!r}")
    nf, layout = _FORMATS[fmt]
    raw, name = open_bytes(source)
    data = text_lines(raw, name, {})
    q: list[bytes] = []
    g: list[bytes] = []
    s: list[bytes] = []
    d: list[bytes] = []
    levels: list[float] = []
    lno: list[int] = []
    for i, line in enumerate(split_lines(data), 1):
        if line.startswith(b"#"):
            continue
        f = line.split()
        if not f:
            continue
        if len(f) != nf:
            raise InputError(
                f"{name}:{i}: expected {nf} fields '{layout}', found {len(f)}: "
                f"{show(line.strip())!r}"
            )
        rel = f[-1]
        if not NUMBER.fullmatch(rel):
            field = "rel_level" if fmt == "prefs" else "rel"
            raise InputError(f"{name}:{i}: {field} {show(rel)!r} is not a number")
        q.append(f[0])
        g.append(f[1])
        s.append(f[2] if fmt == "prefs" else b"0")
        d.append(f[-2])
        levels.append(float(rel))
        lno.append(i)
    level = np.array(levels, dtype=np.float64)
    lineno = np.array(lno, dtype=np.int64)
    out: dict[str, TopicPrefs] = {}
    tuniq, tcode = _codes(q)
    order = np.argsort(tcode, kind="stable")
    bounds = np.searchsorted(tcode[order], np.arange(len(tuniq) + 1))
    for t, qid in enumerate(tuniq):
        sel = order[bounds[t]:bounds[t + 1]]
        sl = sel.tolist()
        jgs, jg = _codes([g[k] for k in sl])
        jsgs, jsg = _codes([s[k] for k in sl])
        docs, doc = _codes([d[k] for k in sl])
        tp = TopicPrefs(
            _name(qid), tuple(map(_name, jgs)), tuple(map(_name, jsgs)),
            np.array([x.decode("latin-1") for x in docs], dtype=str) if docs else np.zeros(0, "U1"),
            jg, jsg, doc, level[sel], lineno[sel], name,
        )
        _check_consistency(tp)
        out[tp.qid] = tp
    return out


def _check_consistency(tp: TopicPrefs) -> None:
    """A doc must have one level per JSG, and cannot be both non-relevant and relevant in a JG."""
    n = len(tp)
    if n < 2:
        return
    nd = len(tp.docnos)
    ns = max(len(tp.jsgs), 1)

    def first_clash(key: np.ndarray, value: np.ndarray):
        o = np.lexsort((tp.lineno, value, key))
        k, v = key[o], value[o]
        bad = np.flatnonzero((k[1:] == k[:-1]) & (v[1:] != v[:-1]))
        if not len(bad):
            return None
        pairs = [(int(tp.lineno[o[j]]), int(tp.lineno[o[j + 1]])) for j in bad]
        return min(pairs, key=lambda p: max(p))

    key = (tp.jg * ns + tp.jsg) * nd + tp.doc
    clash = first_clash(key, tp.level)
    if clash:
        a, b = sorted(clash)
        raise InputError(
            f"{tp.source}:{b}: rel_level: doc given two different levels in one judgment "
            f"sub-group (lines {a} and {b}; topic {tp.qid})"
        )
    judged = tp.level >= 0
    clash = first_clash(np.where(judged, tp.jg * nd + tp.doc, -1 - np.arange(n)),
                        (tp.level > 0).astype(np.int64))
    if clash:
        a, b = sorted(clash)
        raise InputError(
            f"{tp.source}:{b}: rel_level: doc judged both non-relevant (0) and relevant (> 0) "
            f"in one judgment group (lines {a} and {b}; topic {tp.qid})"
        )
