"""ir_measures' API on tiebreak: ``iter_calc``, ``calc_aggregate``, ``evaluator``, measure
objects with ``@`` (cutoff) and ``(...)`` (parameters), ``Metric`` / ``Qrel`` / ``ScoredDoc``.

Code written for ir_measures (MacAvaney, Macdonald & Ounis, "Streamlining evaluation with
ir-measures", ECIR 2022) runs with ``from tiebreak.compat import ir_measures`` in place of
``import ir_measures``; every function also takes ``regime=`` (default ``trec_eval``: scores
descending, ties by docno descending, what ir_measures' pytrec_eval provider does), e.g.
``regime="expected"`` for the exact expectation over tied orderings.

Measures are tiebreak's (one definition each; see ``tiebreak measures``); a measure object is
only a name: ``nDCG@10`` is ``Measure("nDCG", cutoff=10)`` and ``str()`` of it is the name
:func:`tiebreak.parse_measure` reads. Qrels and runs may be dicts ``{qid: {docno: value}}``,
DataFrames (``query_id, doc_id, relevance|score``), iterables of ``Qrel`` / ``ScoredDoc``
tuples, paths, or tiebreak objects. Topics averaged: those of the qrels that the run has
(ir_measures' convention), in byte order.
"""

from __future__ import annotations

from collections import namedtuple

__all__ = ["Measure", "Metric", "Qrel", "ScoredDoc", "calc_aggregate", "evaluator",
           "iter_calc", "parse_measure", "AP", "nDCG", "P", "R", "RR", "Bpref", "Judged",
           "ERR", "RBP", "Success", "NumRel", "NumRet", "NumRelRet", "Rprec", "IPrec",
           "SetP", "SetR", "SetF", "infAP", "DCG", "Compat"]

Metric = namedtuple("Metric", ["query_id", "measure", "value"])
Qrel = namedtuple("Qrel", ["query_id", "doc_id", "relevance", "iteration"], defaults=["0"])
ScoredDoc = namedtuple("ScoredDoc", ["query_id", "doc_id", "score"])


class Measure:
    """A measure name with parameters and a cutoff: ``AP``, ``AP(rel=2)``, ``nDCG@10``,
    ``RBP(p=0.8)``. ``@k`` and ``(...)`` return new objects; equal names are equal measures."""

    __slots__ = ("name", "params", "cutoff")

    def __init__(self, name: str, params: dict | None = None, cutoff: float | None = None):
        self.name = name
        self.params = dict(params or {})
        self.cutoff = cutoff

    def __matmul__(self, k) -> Measure:
        if isinstance(k, bool) or not isinstance(k, (int, float)) or k <= 0:
            raise ValueError(f"{self.name}@{k!r}: the cutoff must be a positive number")
        return Measure(self.name, self.params, k)

    def __call__(self, **params) -> Measure:
        return Measure(self.name, {**self.params, **params}, self.cutoff)

    def __str__(self) -> str:
        p = ",".join(f"{k}={v}" for k, v in sorted(self.params.items()))
        return f"{self.name}{f'({p})' if p else ''}{f'@{self.cutoff}' if self.cutoff else ''}"

    __repr__ = __str__

    def __eq__(self, other) -> bool:
        return str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


AP, nDCG, P, R, RR = Measure("AP"), Measure("nDCG"), Measure("P"), Measure("R"), Measure("RR")
Bpref, Judged, ERR, RBP = Measure("bpref"), Measure("Judged"), Measure("ERR"), Measure("RBP")
Success, NumRel, NumRet = Measure("Success"), Measure("NumRel"), Measure("NumRet")
NumRelRet, Rprec, IPrec = Measure("NumRelRet"), Measure("Rprec"), Measure("IPrec")
SetP, SetR, SetF, infAP = Measure("SetP"), Measure("SetR"), Measure("SetF"), Measure("infAP")
DCG, Compat = Measure("DCG"), Measure("Compat")
MAP, MRR = AP, RR


def parse_measure(text: str) -> Measure:
    """``"nDCG@10"``, ``"AP(rel=2)"``, ``"RBP(p=0.8)@20"`` -> :class:`Measure` (checked by
    :func:`tiebreak.parse_measure`; its errors are raised)."""
    import re

    from ..measures import parse_measure as tb_parse

    tb_parse(text)
    m = re.fullmatch(r"\s*([^(@\s]+)\s*(?:\(([^)]*)\))?\s*(?:@\s*([0-9.]+))?\s*", text)
    if not m:
        raise ValueError(f"cannot read measure {text!r}")
    params = {}
    for kv in filter(None, (m.group(2) or "").split(",")):
        k, _, v = kv.partition("=")
        params[k.strip()] = v.strip()
    c = m.group(3)
    return Measure(m.group(1), params, (float(c) if "." in c else int(c)) if c else None)


def _measures(measures) -> list[Measure]:
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    return [m if isinstance(m, Measure) else parse_measure(str(m)) for m in measures]


def _qrels(x):
    from ..io.inputs import as_qrels

    if not isinstance(x, (dict, str)) and not hasattr(x, "columns") and hasattr(x, "__iter__") \
            and type(x).__name__ != "Qrels":
        d: dict = {}
        for q in x:
            d.setdefault(str(q.query_id), {})[str(q.doc_id)] = int(q.relevance)
        x = d
    return as_qrels(x)


def _run(x):
    from ..io.inputs import as_run

    if not isinstance(x, (dict, str)) and not hasattr(x, "columns") and hasattr(x, "__iter__") \
            and type(x).__name__ != "Run":
        d: dict = {}
        for s in x:
            d.setdefault(str(s.query_id), {})[str(s.doc_id)] = float(s.score)
        x = d
    return as_run(x)


class _Evaluator:
    """``evaluator(measures, qrels)``: evaluate many runs against the same qrels."""

    def __init__(self, measures, qrels, regime: str = "trec_eval"):
        from ..evaluation import Evaluator

        self.measures = _measures(measures)
        self.regime = regime
        self._ev = Evaluator(_qrels(qrels), [str(m) for m in self.measures], [regime],
                             average="run-topics")

    def _result(self, run):
        return self._ev.evaluate([_run(run)])

    def iter_calc(self, run):
        """Yield ``Metric(query_id, measure, value)`` per topic (qrels topics the run has, in
        byte order) and measure."""
        import numpy as np

        res = self._result(run)
        for t, q in enumerate(res.topics):
            for j, m in enumerate(self.measures):
                v = res.per_topic[0, j, 0, t]
                if not np.isnan(v):
                    yield Metric(q, m, float(v))

    def calc_aggregate(self, run) -> dict:
        """``{measure: value}``: each measure's summary over the topics."""
        res = self._result(run)
        return {m: float(res.mean[0, j, 0]) for j, m in enumerate(self.measures)}


def evaluator(measures, qrels, regime: str = "trec_eval") -> _Evaluator:
    """An evaluator for ``measures`` against ``qrels`` (``.iter_calc(run)``,
    ``.calc_aggregate(run)``)."""
    return _Evaluator(measures, qrels, regime)


def iter_calc(measures, qrels, run, regime: str = "trec_eval"):
    """Yield ``Metric(query_id, measure, value)`` for every topic and measure.

    Raises :class:`tiebreak.io.InputError` for bad qrels or runs and
    :class:`tiebreak.measures.MeasureError` for an unknown measure."""
    return _Evaluator(measures, qrels, regime).iter_calc(run)


def calc_aggregate(measures, qrels, run, regime: str = "trec_eval") -> dict:
    """``{measure: mean value}`` (ir_measures' ``calc_aggregate``)."""
    return _Evaluator(measures, qrels, regime).calc_aggregate(run)
