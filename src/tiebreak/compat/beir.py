"""BEIR's (and MTEB's) retrieval evaluation on tiebreak, with the tie range of every value.

BEIR (Thakur et al., "BEIR: A Heterogeneous Benchmark for Zero-shot Evaluation of Information
Retrieval Models", NeurIPS 2021 Datasets and Benchmarks) evaluates ``results`` ``{qid:
{docid: score}}`` with pytrec_eval and returns four dicts, ``NDCG@k``, ``MAP@k``,
``Recall@k`` and ``P@k``; MTEB's retrieval tasks do the same. Its conventions, kept here:

* ``ignore_identical_ids=True`` leaves out a document whose id equals the query id (BEIR pops
  them from ``results``; here the input is not changed);
* values are trec_eval's ``ndcg_cut``, ``map_cut``, ``recall`` and ``P`` at each k, with
  pytrec_eval's reading of the scores (C ``float``, so more scores tie) and tie order
  (score descending, then docid descending), through :mod:`tiebreak.compat.pytrec_eval`;
* the mean is over the qrels topics that ``results`` has (a topic whose ranking is empty
  counts, scored 0), rounded to 5 decimals.

Changing ``from beir.retrieval.evaluation import EvaluateRetrieval`` to ``from
tiebreak.compat.beir import EvaluateRetrieval`` gives the same four dicts; the result also
carries ``.ties``: ``{"NDCG@10": (low, high), ...}``, the values with every tied group in its
worst order (relevant documents last) and its best (relevant first), and ``.expected``, the
exact mean over the tie orders (McSherry & Najork, "Computing information retrieval
performance measures efficiently in the presence of tied scores", ECIR 2008). A range wider
than the rounding says that ties (e.g. from bf16 or fp16 scores) move the table.
"""

from __future__ import annotations

__all__ = ["EvaluateRetrieval", "BeirResult", "evaluate"]

_FAMILIES = (("NDCG", "ndcg_cut"), ("MAP", "map_cut"), ("Recall", "recall"), ("P", "P"))


class BeirResult(tuple):
    """``(ndcg, _map, recall, precision)`` as BEIR returns them, with ``.ties`` (``{name:
    (low, high)}``) and ``.expected`` (``{name: value}``)."""

    ties: dict
    expected: dict


def _means(qrels: dict, results: dict, k_values, regime: str, score_precision: str) -> dict:
    from .pytrec_eval import RelevanceEvaluator

    ks = ",".join(str(int(k)) for k in k_values)
    ev = RelevanceEvaluator(qrels, {f"{trec}.{ks}" for _, trec in _FAMILIES},
                            regime=regime, score_precision=score_precision)
    scores = ev.evaluate(results)
    if not scores:
        raise ValueError("results has no query of the qrels: nothing to average (BEIR "
                         "divides by zero here)")
    out = {}
    for name, trec in _FAMILIES:
        for k in k_values:
            key = f"{trec}_{int(k)}"
            out[f"{name}@{k}"] = round(sum(v[key] for v in scores.values()) / len(scores), 5)
    return out


def evaluate(qrels: dict, results: dict, k_values, ignore_identical_ids: bool = True, *,
             regime: str = "trec_eval", score_precision: str = "float32",
             ties: bool = True) -> BeirResult:
    """BEIR's ``EvaluateRetrieval.evaluate``: ``(ndcg, _map, recall, precision)``, each
    ``{"NDCG@k": float}`` (5 decimals), as a :class:`BeirResult` with ``.ties`` and
    ``.expected`` (``ties=False`` skips them).

    Parameters
    ----------
    qrels : dict ``{qid: {docid: int}}``
    results : dict ``{qid: {docid: float}}``
    k_values : list of int
    ignore_identical_ids : bool
        Leave out documents whose id is the query's (BEIR's default).
    regime : str
        Tie regime of the four dicts (default ``trec_eval``, what BEIR gets).
    score_precision : {"float32", "float64"}
        ``float32``: the scores as pytrec_eval reads them.

    Raises
    ------
    ValueError
        No query of ``results`` is in the qrels, or a bad measure or regime.
    TypeError
        A query or document id that is not a str (as pytrec_eval).
    """
    if ignore_identical_ids:
        results = {q: {d: s for d, s in docs.items() if d != q} for q, docs in results.items()}
    main = _means(qrels, results, k_values, regime, score_precision)
    out = BeirResult(tuple({k: v for k, v in main.items() if k.startswith(f"{name}@")}
                           for name, _ in _FAMILIES))
    out.ties, out.expected = {}, {}
    if ties:
        lo = _means(qrels, results, k_values, "realistic", score_precision)
        hi = _means(qrels, results, k_values, "optimistic", score_precision)
        out.ties = {k: (lo[k], hi[k]) for k in main}
        out.expected = _means(qrels, results, k_values, "expected", score_precision)
    return out


class EvaluateRetrieval:
    """BEIR's class name: ``EvaluateRetrieval.evaluate(qrels, results, k_values,
    ignore_identical_ids=True)`` (a static method, as in BEIR)."""

    evaluate = staticmethod(evaluate)
