"""Regression checks of effectiveness (the idea of Anserini's regression files: a file of
expected values that CI re-evaluates): ``tiebreak eval --write-expected FILE`` writes one,
``tiebreak verify FILE`` re-evaluates and fails when a value leaves its allowance.

The file is YAML (PyYAML)::

    qrels: qrels.txt            # paths relative to this file (or absolute)
    regime: trec_eval           # the regime of every value (default trec_eval)
    expected:
    - run: runs/bm25.txt
      measure: AP
      value: 0.3123
      low: 0.3101               # the run's tie range when written: [realistic, optimistic]
      high: 0.3140
      tolerance: 0.0005         # optional: |value now - value| <= tolerance instead

Allowance of each entry: with ``tolerance``, ``|now - value| <= tolerance``; else the tie range
written with it, ``low <= now <= high`` (a change of tie order alone passes; anything else
fails); else (no range written) the value must lie in the run's tie range now. Comparisons
allow :data:`EPS` for floating-point summation order.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from ..evaluation import Evaluator
from ..io import InputError, read_run

__all__ = ["EPS", "RANGE", "Check", "write_expected", "load_expected", "verify"]

#: Absolute slack of every comparison (floating-point summation order).
EPS = 1e-12
#: The regimes whose values bound the tie range.
RANGE = ("realistic", "optimistic")  # (for a lower-is-better measure such as an RBP residual,
# realistic is the larger: the range is [min, max] of the two)


def _yaml():
    try:
        import yaml
    except ImportError:  # pragma: no cover - PyYAML is a dependency
        raise ImportError("tiebreak verify needs PyYAML: pip install pyyaml") from None
    return yaml


def write_expected(res, run_paths: list[str], qrels_path: str, path: str,
                   regime: str = "trec_eval") -> int:
    """Write the expected-values file ``path`` from an :class:`~tiebreak.evaluation.EvalResult`
    whose runs came from ``run_paths`` (same order) and that holds ``regime`` and the
    :data:`RANGE` regimes. Paths are written relative to the file's folder. Returns the number
    of entries. Raises ValueError when a needed regime is missing."""
    for g in (regime, *RANGE):
        if g not in res.regimes:
            raise ValueError(f"--write-expected needs the regime {g!r} among those evaluated")
    if len(run_paths) != len(res.runs):
        raise ValueError("--write-expected: one run per path is needed")
    base = os.path.dirname(os.path.abspath(path))
    k, lo, hi = (res.regimes.index(g) for g in (regime, *RANGE))
    items = []
    for i, p in enumerate(run_paths):
        for j, m in enumerate(res.measures):
            v = res.mean[i, j]
            items.append({"run": os.path.relpath(os.path.abspath(p), base), "name": res.runs[i],
                          "measure": m, "value": float(v[k]), "low": float(min(v[lo], v[hi])),
                          "high": float(max(v[lo], v[hi]))})
    doc = {"qrels": os.path.relpath(os.path.abspath(qrels_path), base), "regime": regime,
           "expected": items}
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("# expected values: tiebreak verify THIS_FILE (written by tiebreak eval "
                 "--write-expected)\n")
        _yaml().safe_dump(doc, fh, sort_keys=False)
    return len(items)


@dataclass
class Check:
    """One entry checked: run, measure, expected value, value now, allowed [low, high], the
    rule used (``tolerance``, ``tie range``, ``tie range now``) and ``ok``."""

    run: str
    measure: str
    expected: float
    now: float
    low: float
    high: float
    rule: str
    ok: bool

    def row(self) -> dict:
        return {"run": self.run, "measure": self.measure, "expected": self.expected,
                "now": self.now, "diff": self.now - self.expected, "allowed_low": self.low,
                "allowed_high": self.high, "rule": self.rule,
                "status": "ok" if self.ok else "FAIL"}


def _number(e: dict, key: str, where: str, required: bool = False):
    v = e.get(key)
    if v is None:
        if required:
            raise InputError(f"{where}: '{key}' is missing")
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise InputError(f"{where}: '{key}' must be a finite number, got {v!r}")
    return float(v)


def load_expected(path: str) -> dict:
    """Read and check an expected-values file; paths resolved against its folder. Raises
    InputError naming the file and entry of anything malformed, OSError if unreadable."""
    yaml = _yaml()
    with open(path, encoding="utf-8") as fh:
        try:
            doc = yaml.safe_load(fh)
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            line = f":{mark.line + 1}" if mark is not None else ""
            raise InputError(f"{path}{line}: not valid YAML ({getattr(e, 'problem', e)})") \
                from None
    if not isinstance(doc, dict) or "qrels" not in doc or not isinstance(doc.get("expected"),
                                                                         list):
        raise InputError(f"{path}: needs 'qrels' and a list 'expected' of entries "
                         "(run, measure, value)")
    base = os.path.dirname(os.path.abspath(path))

    def resolve(p):
        return p if os.path.isabs(p) else os.path.join(base, p)

    items = []
    for n, e in enumerate(doc["expected"], 1):
        where = f"{path}: expected entry {n}"
        if not isinstance(e, dict) or not isinstance(e.get("run"), str) or not isinstance(
                e.get("measure"), str):
            raise InputError(f"{where}: needs 'run' and 'measure' (text) and 'value'")
        it = {"run": resolve(e["run"]), "shown": e["run"], "measure": e["measure"],
              "value": _number(e, "value", where, True), "low": _number(e, "low", where),
              "high": _number(e, "high", where), "tolerance": _number(e, "tolerance", where)}
        if (it["low"] is None) != (it["high"] is None):
            raise InputError(f"{where}: give both 'low' and 'high', or neither")
        if it["tolerance"] is not None and it["tolerance"] < 0:
            raise InputError(f"{where}: 'tolerance' must not be negative")
        items.append(it)
    return {"qrels": resolve(str(doc["qrels"])), "regime": str(doc.get("regime", "trec_eval")),
            "items": items}


def verify(spec: dict) -> list[Check]:
    """Evaluate every run of a loaded file (:func:`load_expected`) and check each entry
    (see the module docstring). Raises the readers' and the evaluator's errors."""
    regime = spec["regime"]
    regs = list(dict.fromkeys([regime, *RANGE]))
    measures = list(dict.fromkeys(it["measure"] for it in spec["items"]))
    ev = Evaluator(spec["qrels"], measures, regs)
    runs = list(dict.fromkeys(it["run"] for it in spec["items"]))
    res = ev.evaluate([read_run(p) for p in runs])
    k, lo, hi = (regs.index(g) for g in (regime, *RANGE))
    out = []
    for it in spec["items"]:
        i = runs.index(it["run"])
        j = res.measures.index(it["measure"]) if it["measure"] in res.measures else None
        if j is None:  # an alias: the evaluator shows the measure's own name
            j = measures.index(it["measure"])
        v = res.mean[i, j]
        now, want = float(v[k]), it["value"]
        if it["tolerance"] is not None:
            a, b, rule = want - it["tolerance"], want + it["tolerance"], "tolerance"
            ok = abs(now - want) <= it["tolerance"] + EPS
        elif it["low"] is not None:
            a, b, rule = it["low"], it["high"], "tie range"
            ok = a - EPS <= now <= b + EPS
        else:
            a, b = float(min(v[lo], v[hi])), float(max(v[lo], v[hi]))
            rule = "tie range now"
            ok = a - EPS <= want <= b + EPS
        out.append(Check(it["shown"], it["measure"], want, now, a, b, rule,
                         bool(ok and not np.isnan(now))))
    return out
