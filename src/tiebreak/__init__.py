"""tiebreak: tie-aware evaluation of TREC runs.

Read qrels and runs, then evaluate them under every treatment of tied scores (file order,
trec_eval order, Cabanac et al.'s realistic/optimistic orders, Yang, Moffat & Turpin's bounds and
the exact expectation over all within-group permutations).

>>> import tiebreak as tb
>>> res = tb.evaluate(tb.read_qrels("qrels.txt"), [tb.read_run("a.run")], ["AP", "P@10"], "all")
"""

from .evaluate import EvalResult, Evaluator, evaluate
from .io import InputError, Qrels, Run, read_qrels, read_run
from .measures import DEFAULT_MEASURES, Measure, parse_measure
from .ranking import DEFAULT_REGIMES, REGIMES

__version__ = "0.1.0"

__all__ = [
    "EvalResult", "Evaluator", "evaluate", "InputError", "Qrels", "Run", "read_qrels",
    "read_run", "Measure", "parse_measure", "DEFAULT_MEASURES", "DEFAULT_REGIMES", "REGIMES",
]
