"""PyTerrier adapter: evaluate result frames under every tie regime, in one call.

PyTerrier (Macdonald & Tonellotto, "Declarative experimentation in information retrieval using
PyTerrier", ICTIR 2020) passes results between pipeline stages as DataFrames with columns
``qid, docno, score`` (and ``rank``); its qrels frames have ``qid, docno, label``. This module
takes those frames directly (ir_measures' ``query_id, doc_id, score / relevance`` columns work
too) and needs neither PyTerrier nor Java:

>>> from tiebreak.compat.pyterrier import evaluate_frames, tie_measure
>>> res = evaluate_frames({"BM25": bm25_frame, "DPH": dph_frame}, qrels_frame, ["AP", "nDCG@10"])
>>> res.to_pandas()                             # run, measure, regime, qid, value
>>> compare_frames({"BM25": a, "DPH": b}, qrels_frame, ["AP"], baseline="BM25")
>>> pt.Experiment([bm25, dph], topics, qrels,   # inside PyTerrier, via ir_measures
...               eval_metrics=["map", tie_measure("AP", "expected")])

Row order inside a frame is the run's file order (the ``file`` regime); every other regime
depends only on scores, docnos and judgments.
"""

from __future__ import annotations

from ..evaluation import EvalResult, Evaluator
from ..io.frames import run_from_frame
from ..io.inputs import as_qrels
from ..stats.compare import CompareResult, compare, needed_regimes

__all__ = ["evaluate_frames", "compare_frames", "tie_measure"]


def _runs(results, name: str | None):
    if isinstance(results, dict):
        return [run_from_frame(df, str(k)) for k, df in results.items()]
    if isinstance(results, (list, tuple)):
        return [run_from_frame(df, f"{name or 'system'}{i + 1}") for i, df in enumerate(results)]
    return [run_from_frame(results, name or "run")]


def evaluate_frames(results, qrels, measures=None, regimes="all", name: str | None = None,
                    **kw) -> EvalResult:
    """Evaluate PyTerrier result frames under tie regimes.

    Parameters
    ----------
    results : DataFrame, list of DataFrames, or dict name -> DataFrame
        Result frames (``qid, docno, score``); names default to ``name`` (one frame) or
        ``system1, system2, ...`` (a list).
    qrels : DataFrame, dict, path, ``"irds:ID"`` or Qrels
        Judgments (``qid, docno, label`` frames included).
    measures, regimes, kw
        As :class:`tiebreak.Evaluator`; default every regime.

    Returns
    -------
    EvalResult
        ``per_topic`` float64 (n_frames, n_measures, n_regimes, n_topics).

    Raises
    ------
    tiebreak.InputError
        Missing columns or bad values in a frame (naming the row and column).
    """
    return Evaluator(as_qrels(qrels), measures, regimes, **kw).evaluate(_runs(results, name))


def compare_frames(results, qrels, measures=None, baseline=None, *, regime: str = "trec_eval",
                   **kw) -> CompareResult:
    """:func:`tiebreak.stats.compare.compare` for result frames (a dict name -> DataFrame or a
    list); ``kw`` goes to :func:`~tiebreak.stats.compare.compare` (test, correction, alpha,
    all_pairs, ...).
    """
    res = evaluate_frames(results, qrels, measures, needed_regimes(regime))
    return compare(res, baseline, regime=regime, **kw)


def tie_measure(measure: str, regime: str = "expected"):
    """An ir_measures measure computing a tiebreak measure under a tie regime, usable in
    ``pt.Experiment(eval_metrics=[...])`` and ``ir_measures.calc_aggregate``.

    Parameters
    ----------
    measure : str
        A tiebreak measure name (``"AP"``, ``"nDCG@10"``, ``"RBP(p=0.8)"`` ...).
    regime : str
        Tie regime, e.g. ``"expected"``, ``"lower"``, ``"upper"``.

    Returns
    -------
    ir_measures measure
        Named ``tiebreak.<measure>.<regime>``; per query it yields the value for every qrels
        topic (a topic without results scores 0, as ``tiebreak eval``).

    Raises
    ------
    ImportError
        ir_measures is not installed (it comes with PyTerrier).
    ValueError
        Unknown measure or regime.
    """
    try:
        import ir_measures
    except ImportError:
        raise ImportError("tie_measure needs ir_measures (pip install ir-measures; PyTerrier "
                          "installs it)") from None
    from ..io.frames import qrels_from_frame

    Evaluator(as_qrels({"q": {"d": 1}}), [measure], [regime])  # check the names now

    def impl(qrels_df, run_df):
        q = qrels_from_frame(qrels_df)
        ev = Evaluator(q, [measure], [regime])
        r = ev.evaluate([run_from_frame(run_df, "run")])
        return list(zip(r.topics, r.per_topic[0, 0, 0].tolist()))

    return ir_measures.define(impl, name=f"tiebreak.{measure}.{regime}", support_cutoff=False)
