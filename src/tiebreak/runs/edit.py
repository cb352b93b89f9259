"""Run edits (trectools-like) for ``tiebreak run``: order and rank from score, top-k cut, topic
filter, score normalisation. Each takes and returns a :class:`tiebreak.io.Run`; lines of the
result are grouped by topic (first-appearance order) and ranked 1..n inside a topic. Duplicate
docnos are dropped when reading (``read_run(..., on_duplicate="first")``)."""

from __future__ import annotations

import numpy as np

from ..io import Run
from ..io.params import check_finite_scores
from .fusion import _segments, normalise_scores

__all__ = ["edit_run"]


def _ordered(run: Run, order: str) -> np.ndarray:
    if order == "trec_eval":
        return np.lexsort((-run.docid, -run.score, run.topic))
    if order == "file":
        return np.argsort(run.topic, kind="stable")
    raise ValueError(f"order must be 'trec_eval' or 'file', got {order!r}")


def edit_run(run: Run, *, top: int | None = None, keep_topics=None, drop_topics=None,
             norm: str | None = None, order: str = "trec_eval", name: str | None = None) -> Run:
    """The edited run.

    Parameters
    ----------
    run : Run
    top : int, optional
        Keep the first ``top`` lines of each topic (after ordering).
    keep_topics, drop_topics : iterable of str, optional
        Keep only these topics / drop these (unknown ids are ignored by neither: ValueError).
    norm : str, optional
        Per-topic score normalisation (:data:`tiebreak.runs.NORMALISATIONS` but ``borda``).
    order : {"trec_eval", "file"}
        Rank by score (descending, ties by docno descending: trec_eval's order), or keep the
        file's line order inside each topic and renumber the ranks.
    name : str, optional
        New name (run tag).

    Returns
    -------
    Run
        ``rank`` 1..n per topic, ``lineno`` 1..N; ``warnings`` and ``line_counts`` dropped.

    Raises
    ------
    ValueError
        Bad ``top``, ``order``, ``norm``, or a topic id the run does not have.
    """
    if top is not None and top < 1:
        raise ValueError(f"top must be at least 1, got {top}")
    ids = set(run.topics)
    for what, ts in (("keep", keep_topics), ("drop", drop_topics)):
        missing = sorted(set(ts or ()) - ids)
        if missing:
            raise ValueError(f"{what}_topics: topic(s) not in run {run.name}: "
                             f"{', '.join(missing[:10])}")
    ref = _ordered(run, order)
    t = run.topic[ref]
    keep = np.ones(len(ref), bool)
    if keep_topics is not None:
        want = np.array([x in set(keep_topics) for x in run.topics], bool)
        keep &= want[t] if len(t) else keep
    if drop_topics is not None:
        bad = np.array([x in set(drop_topics) for x in run.topics], bool)
        keep &= ~bad[t] if len(t) else keep
    st = _segments(t)
    n = np.diff(np.r_[st, len(t)])
    rank = np.arange(len(t)) - np.repeat(st, n) + 1
    if top is not None:
        keep &= rank <= top
    ref, t = ref[keep], t[keep]
    score = run.score[ref]
    if norm:
        score = normalise_scores(score, t, norm)
    st = _segments(t)
    n = np.diff(np.r_[st, len(t)])
    rank = (np.arange(len(t)) - np.repeat(st, n) + 1).astype(np.float64)
    name = name or run.name
    out = Run(name, run.source, list(run.topics), t, run.docnos, run.docid[ref], score, rank,
              np.arange(1, len(t) + 1, dtype=np.int64), [name], {})
    check_finite_scores(out, f"--norm {norm}" if norm else "")
    return out
