"""Reader for subtopic (diversity) qrels: ``qid subtopic docno rel``, one judgment a line.

This is the format of the TREC Web track diversity task (read by NIST's ``ndeval``) and of
ir_measures' diversity qrels (the subtopic in the iteration column). ``rel`` is an integer; the
diversity measures use it as binary (``rel >= level``). Lines starting with ``#`` and blank lines
are skipped. Every problem names the file, the line and the field and raises
:class:`tiebreak.io.InputError`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import InputError, _read_bytes, _show, natural_key

__all__ = ["SubtopicQrels", "read_subtopic_qrels"]


@dataclass
class SubtopicQrels:
    """Subtopic judgments.

    Attributes
    ----------
    name : str
        Source file name.
    topics : list[str]
        Topic ids in natural order.
    subtopics : list[tuple[str, str]]
        (topic id, subtopic label) of each subtopic index, grouped by topic.
    topic : ndarray int64 (m,)
        Topic index of each judgment (non-decreasing).
    subtopic : ndarray int64 (m,)
        Subtopic index (into ``subtopics``) of each judgment; unique across topics.
    docno : ndarray str (m,)
        Docno of each judgment (latin-1 text of the bytes).
    value : ndarray int64 (m,)
        Relevance value as written.
    """

    name: str
    topics: list[str]
    subtopics: list[tuple[str, str]]
    topic: np.ndarray
    subtopic: np.ndarray
    docno: np.ndarray
    value: np.ndarray

    def pairs(self, topic: np.ndarray, docnos, topics: list[str], level: int = 1
              ) -> tuple[np.ndarray, np.ndarray]:
        """Relevant (position, subtopic) pairs of a ranked list.

        Parameters
        ----------
        topic : ndarray int64 (n,)
            Topic index of each position, indexing ``topics`` (e.g. the run's qrels topics).
        docnos : sequence of str (n,)
            Docno of each position.
        topics : list[str]
            Topic ids that ``topic`` indexes.
        level : int
            Minimum value counted as relevant to a subtopic.

        Returns
        -------
        (pos, sub) : int64 arrays (p,)
            Position index and subtopic index (into ``self.subtopics``) of every judgment with
            ``value >= level``, sorted by (pos, sub).
        """
        tidx = {t: i for i, t in enumerate(self.topics)}
        rel = self.value >= level
        look: dict[tuple[int, str], list[int]] = {}
        for t, s, d in zip(self.topic[rel], self.subtopic[rel], self.docno[rel]):
            look.setdefault((int(t), str(d)), []).append(int(s))
        pos: list[int] = []
        sub: list[int] = []
        tq = [tidx.get(t, -1) for t in topics]
        for i, (t, d) in enumerate(zip(topic, docnos)):
            ss = look.get((tq[t], str(d)))
            if ss:
                pos.extend([i] * len(ss))
                sub.extend(ss)
        p, s = np.array(pos, np.int64), np.array(sub, np.int64)
        o = np.lexsort((s, p))
        return p[o], s[o]


def read_subtopic_qrels(source) -> SubtopicQrels:
    """Read subtopic qrels (``qid subtopic docno rel``).

    Parameters
    ----------
    source : path, ``"-"`` or binary file object (plain or gzip)

    Returns
    -------
    SubtopicQrels

    Raises
    ------
    InputError
        A line without exactly 4 fields, a non-integer ``rel``, or the same (qid, subtopic,
        docno) judged twice; the message names file and line.
    """
    data, name = _read_bytes(source)
    rows: list[tuple[str, str, str, int, int]] = []
    seen: dict[tuple[bytes, bytes, bytes], int] = {}
    for i, line in enumerate(data.split(b"\n"), 1):
        f = line.split()
        if not f or f[0][:1] == b"#":
            continue
        if len(f) != 4:
            raise InputError(f"{name}:{i}: expected 4 fields 'qid subtopic docno rel', found "
                             f"{len(f)}: {_show(line.strip())!r}")
        try:
            v = int(f[3])
        except ValueError:
            raise InputError(f"{name}:{i}: rel {_show(f[3])!r} is not an integer") from None
        key = (f[0], f[1], f[2])
        if key in seen:
            raise InputError(f"{name}:{i}: subtopic {_show(f[1])} of topic {_show(f[0])} judges "
                             f"docno {_show(f[2])} twice (lines {seen[key]} and {i})")
        seen[key] = i
        rows.append((f[0].decode("utf-8", "surrogateescape"),
                     f[1].decode("utf-8", "surrogateescape"), f[2].decode("latin-1"), v, i))
    topics = sorted(dict.fromkeys(r[0] for r in rows), key=natural_key)
    tindex = {t: j for j, t in enumerate(topics)}
    labels = sorted(dict.fromkeys((r[0], r[1]) for r in rows),
                    key=lambda x: (tindex[x[0]], natural_key(x[1])))
    sindex = {x: j for j, x in enumerate(labels)}
    rows.sort(key=lambda r: (tindex[r[0]], sindex[(r[0], r[1])], r[2]))
    return SubtopicQrels(
        name, topics, labels,
        np.array([tindex[r[0]] for r in rows], np.int64),
        np.array([sindex[(r[0], r[1])] for r in rows], np.int64),
        np.array([r[2] for r in rows], dtype=str) if rows else np.zeros(0, "U1"),
        np.array([r[3] for r in rows], np.int64),
    )
