"""tiebreak: tie-aware evaluation of TREC runs.

Read qrels and runs, then evaluate them under every treatment of tied scores (file order,
trec_eval order, Cabanac et al.'s realistic/optimistic orders, Yang, Moffat & Turpin's bounds and
the exact expectation over all within-group permutations).

>>> import tiebreak as tb
>>> res = tb.evaluate(tb.read_qrels("qrels.txt"), [tb.read_run("a.run")], ["AP", "P@10"], "all")

The names below are imported on first use, so ``tiebreak --help`` does not load numpy.
"""

from __future__ import annotations

__version__ = "0.1.0"

_EXPORTS = {
    "EvalResult": ".evaluation", "Evaluator": ".evaluation", "evaluate": ".evaluation",
    "evaluate_scores": ".evaluation",
    "InputError": ".io", "Qrels": ".io", "Run": ".io", "read_qrels": ".io", "read_run": ".io",
    "Measure": ".measures", "parse_measure": ".measures", "DEFAULT_MEASURES": ".measures",
    "DEFAULT_REGIMES": ".ranking", "REGIMES": ".ranking",
    "fuse": ".runs", "FusedRun": ".runs", "define_measure": ".measures.user",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    mod = _EXPORTS.get(name)
    if mod is None:
        raise AttributeError(f"module 'tiebreak' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(mod, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
