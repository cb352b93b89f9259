"""Operations on whole runs: fusion (:mod:`tiebreak.runs.fusion`) and the edits of
``tiebreak run`` (:mod:`tiebreak.runs.edit`: top-k cut, topic filter, score normalisation,
deduplication, rank from score). Every result is a :class:`tiebreak.io.Run` held in memory and
written by :func:`tiebreak.io.writers.format_trec_run` in full precision."""

from __future__ import annotations

from .fusion import FUSION_METHODS, NORMALISATIONS, FusedRun, fuse, normalise_scores, tie_counts

__all__ = ["FUSION_METHODS", "NORMALISATIONS", "FusedRun", "fuse", "normalise_scores",
           "tie_counts"]
