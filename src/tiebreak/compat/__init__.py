"""The peers' APIs on tiebreak's evaluation core, so that code written for them runs unchanged
with a tiebreak import (and an optional ``regime=``):

* :mod:`tiebreak.compat.ir_measures` — ``iter_calc``, ``calc_aggregate``, ``evaluator``,
  measure objects with ``@`` and parameters (``irm.nDCG@10``, ``irm.AP(rel=2)``);
* :mod:`tiebreak.compat.pytrec_eval` — ``RelevanceEvaluator(qrels, {'map', 'ndcg'})
  .evaluate(run)`` giving ``{qid: {measure: value}}``.

>>> from tiebreak.compat import ir_measures as irm
>>> irm.calc_aggregate([irm.AP, irm.nDCG@10], qrels, run)            # doctest: +SKIP
"""
