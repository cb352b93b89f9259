"""Any run or qrels a caller may hold, read through the one validated layer: a path, ``-``,
``irds:DATASET_ID`` (qrels), a pandas DataFrame, a ``{qid: {docno: value}}`` dict, or an object
already read (:class:`~tiebreak.io.Run`, :class:`~tiebreak.io.Qrels`)."""

from __future__ import annotations

import os

from . import InputError, Qrels, Run, read_qrels, read_run
from .frames import _is_frame, qrels_from_dict, qrels_from_frame, run_from_dict, run_from_frame
from .irds import read_irds_qrels
from .params import check_finite_scores
from .tables import is_table_path, read_qrels_table, read_run_table


def as_run(x, name: str | None = None) -> Run:
    """A :class:`~tiebreak.io.Run` from a Run (returned as is), a path, a DataFrame or a dict.

    Raises
    ------
    InputError
        Bad content (see the readers), a Run object holding a score that is not finite (a NaN
        put there after reading), or a type that is none of these.
    """
    if isinstance(x, Run):
        check_finite_scores(x)
        return x
    if _is_frame(x):
        return run_from_frame(x, name)
    if isinstance(x, dict):
        return run_from_dict(x, name or "run")
    if is_table_path(x):
        return read_run_table(x, name=name)
    if isinstance(x, (str, os.PathLike)):
        return read_run(x, name=name)
    raise InputError(f"cannot read a run from {type(x).__name__}: give a path, a DataFrame "
                     "(query_id/doc_id/score or qid/docno/score) or {qid: {docno: score}}")


def as_qrels(x, subtopics: bool = False) -> Qrels:
    """A :class:`~tiebreak.io.Qrels` from a Qrels, a path, ``"irds:DATASET_ID"``, a DataFrame
    or a dict. ``subtopics``: read a path's second column as the subtopic
    (:func:`~tiebreak.io.read_qrels`); other sources are returned without subtopics. A path
    whose first judgment line has five fields is read as sampled judgments with strata
    (:func:`tiebreak.io.sampled.read_sampled_qrels`, sample_eval's qrels).

    Raises
    ------
    InputError
        Bad content, an ir_datasets id whose data is not available, or an unsupported type.
    """
    if isinstance(x, Qrels):
        return x
    if _is_frame(x):
        return qrels_from_frame(x)
    if isinstance(x, dict):
        return qrels_from_dict(x)
    if isinstance(x, str) and x.startswith("irds:"):
        return read_irds_qrels(x[len("irds:"):])
    if is_table_path(x) and not subtopics:
        return read_qrels_table(x)
    if isinstance(x, (str, os.PathLike)):
        from .sampled import is_sampled_qrels, read_sampled_qrels

        if not subtopics and is_sampled_qrels(x):  # sample_eval's qid iter docno stratum rel
            return read_sampled_qrels(x)
        return read_qrels(x, subtopics=subtopics)
    raise InputError(f"cannot read qrels from {type(x).__name__}: give a path, irds:ID, a "
                     "DataFrame (query_id/doc_id/relevance or qid/docno/label) or "
                     "{qid: {docno: relevance}}")
