"""Evaluation: runs against one qrels under every tie regime (the Python API behind
``tiebreak eval``).

* :mod:`.compute`: the values of measures on one prepared run under one regime, and the summary
  over topics in trec_eval's order;
* :mod:`.result`: :class:`EvalResult`, the values of every run, measure, regime and topic;
* :mod:`.evaluator`: :class:`Evaluator` and :func:`evaluate` (reading, streaming, prefetch,
  chunking and warnings around the compute step);
* :mod:`.scores`: :func:`evaluate_scores`, a (queries × documents) or top-k score matrix;
* :mod:`.chunks`: topic-chunked and streamed evaluation; :mod:`.output`: tables, TSV and JSON.
"""

from __future__ import annotations

from .compute import measure_values, resolve_regimes, summarize
from .evaluator import Evaluator, dask_client, evaluate
from .result import EvalResult
from .scores import evaluate_scores

__all__ = ["EvalResult", "Evaluator", "dask_client", "evaluate", "evaluate_scores",
           "measure_values", "resolve_regimes", "summarize"]
