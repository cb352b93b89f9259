"""Subtopic (diversity) qrels: ``qid subtopic docno rel``, one judgment a line.

This is the format of the TREC Web track diversity task (read by NIST's ``ndeval``) and of
ir_measures' diversity qrels (the subtopic in the iteration column). There is one qrels reader,
:func:`tiebreak.io.read_qrels`; with ``subtopics=True`` it keeps the second column
(:class:`tiebreak.io.qrels.SubtopicLines`), and :class:`SubtopicQrels` is a view of those lines
by topic id, subtopic label and docno text.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .qrels import Qrels, read_qrels

__all__ = ["SubtopicQrels", "read_subtopic_qrels"]


@dataclass
class SubtopicQrels:
    """Subtopic judgments, a view of :attr:`Qrels.subtopic_lines`.

    Attributes
    ----------
    qrels : Qrels
        The qrels read with ``subtopics=True``.
    """

    qrels: Qrels

    def __post_init__(self):
        if self.qrels.subtopic_lines is None:
            raise ValueError("these qrels were read without their subtopic column; use "
                             "read_qrels(source, subtopics=True)")

    @property
    def name(self) -> str:
        return self.qrels.name

    @property
    def topics(self) -> list[str]:
        """Topic ids in natural order."""
        return self.qrels.topics

    @property
    def subtopics(self) -> list[tuple[str, str]]:
        """(topic id, subtopic label) of each subtopic index, grouped by topic."""
        return self.qrels.subtopic_lines.labels

    @property
    def topic(self) -> np.ndarray:
        """Topic index of each judgment line, int64 (l,), non-decreasing."""
        return self.qrels.subtopic_lines.topic

    @property
    def subtopic(self) -> np.ndarray:
        """Subtopic index (into :attr:`subtopics`) of each judgment line, int64 (l,)."""
        return self.qrels.subtopic_lines.subtopic

    @property
    def docid(self) -> np.ndarray:
        """Index into ``qrels.docnos`` of each judgment line, int64 (l,)."""
        return self.qrels.subtopic_lines.docid

    @property
    def docno(self) -> np.ndarray:
        """Docno of each judgment line (latin-1 text of the bytes), str (l,)."""
        return self.qrels.docnos[self.docid]

    @property
    def value(self) -> np.ndarray:
        """Relevance value of each judgment line as written, int64 (l,)."""
        return self.qrels.subtopic_lines.value


def read_subtopic_qrels(source) -> SubtopicQrels:
    """Read subtopic qrels (``qid subtopic docno rel``): ``read_qrels(source, subtopics=True)``
    seen by subtopic.

    Raises
    ------
    InputError
        A line without exactly 4 fields, a non-integer ``rel``, or the same (qid, subtopic,
        docno) judged twice; the message names file and line.
    """
    return SubtopicQrels(read_qrels(source, subtopics=True))
