"""ir_measures' API on tiebreak: ``iter_calc``, ``calc_aggregate``, ``calc``, ``evaluator``,
the readers ``read_trec_qrels`` / ``read_trec_run``, ``parse_measure``,
``parse_trec_measure``, every measure object of ir_measures 0.4 (``AP``, ``nDCG@10``,
``P(rel=2)@5``, ``INSQ``, ``NERR8``, ``SDCG``, ``alpha_nDCG``, ``Compat(p=0.95)``, ...), with
``.calc_aggregate(qrels, run)`` on each, and the providers ``pytrec_eval`` and ``compat``.

Code written for ir_measures (MacAvaney, Macdonald & Ounis, "Streamlining evaluation with
ir-measures", ECIR 2022) runs with ``from tiebreak.compat import ir_measures`` in place of
``import ir_measures``. Measure names are read as ir_measures 0.4.3 spells them
(``convention="ir_measures"``, :mod:`tiebreak.measures.conventions`); the values are
tiebreak's (one definition of each measure).

Conventions of ir_measures kept by default:

* topics: every qrels topic; a qrels topic the run lacks scores 0 (ir_measures' ``DEFAULT``)
  and counts in the mean; run topics without judgments are ignored; an empty run gives 0;
  ``NumQ``, ``NumRel``, ``NumRet``, ``NumRelRet`` are summed, the others averaged;
* tie order: that of the provider ir_measures serves the measure with: its pytrec_eval
  provider (trec_eval's order, scores descending then docno descending, on scores rounded to
  C ``float`` as pytrec_eval reads them) for most measures; its compat provider (scores
  descending then docno ascending, double precision) for ``Compat``, whose ideal ranking is
  ir_measures' (``Compat(ideal='ir_measures')``).

Every function takes ``regime=`` (``trec_eval``, ``expected``, ``realistic``, ``optimistic``,
``lower``, ``upper``, ...) to evaluate under another tie regime, on double-precision scores,
e.g. ``regime="expected"`` for the exact expectation over tied orderings.

Qrels and runs may be dicts ``{qid: {docno: value}}``, DataFrames (``query_id, doc_id,
relevance|score``), iterables of ``Qrel`` / ``ScoredDoc`` tuples (or any tuples with
``query_id``, ``doc_id`` and ``relevance`` / ``score`` fields), paths, or tiebreak objects.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import namedtuple

from ..measures.conventions import IRM_NAMES, _user_defined

Metric = namedtuple("Metric", ["query_id", "measure", "value"])
Qrel = namedtuple("Qrel", ["query_id", "doc_id", "relevance", "iteration"], defaults=["0"])
ScoredDoc = namedtuple("ScoredDoc", ["query_id", "doc_id", "score"])
CalcResults = namedtuple("CalcResults", ["aggregated", "per_query"])
GenericQrel, GenericScoredDoc = Qrel, ScoredDoc

#: ir_measures' measures summed over topics rather than averaged
_SUMMED = ("NumQ", "NumRel", "NumRet", "NumRelRet")
#: ir_measures' alias names -> the name its objects print
_CANON = {"MAP": "AP", "MRR": "RR", "BPref": "Bpref", "NDCG": "nDCG", "Precision": "P",
          "Recall": "R", "RPrec": "Rprec", "\u03b1_DCG": "alpha_DCG", "\u03b1_nDCG": "alpha_nDCG",
          "MAP_IA": "AP_IA"}


def _fmt(v) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {v[k]!r}" for k in sorted(v)) + "}"
    return repr(v)


class Measure:
    """A measure as ir_measures writes it: ``AP``, ``AP(rel=2)``, ``nDCG@10``,
    ``RBP(p=0.8)``. ``@k`` and ``(...)`` return new objects; equal names are equal measures.
    ``m['p']`` reads a parameter, ``m.NAME`` the name; ``m.calc_aggregate(qrels, run)``,
    ``m.iter_calc(qrels, run)`` and ``m.calc(qrels, run)`` evaluate this measure alone."""

    __slots__ = ("NAME", "params", "cutoff")

    def __init__(self, name: str, params: dict | None = None, cutoff: float | None = None):
        self.NAME = _CANON.get(name, name)
        self.params = dict(params or {})
        self.cutoff = cutoff

    @property
    def name(self) -> str:
        return self.NAME

    def __matmul__(self, k) -> Measure:
        if isinstance(k, bool) or not isinstance(k, (int, float)) or k < 0 \
                or (k == 0 and self.NAME != "IPrec"):
            raise ValueError(f"{self.NAME}@{k!r}: the cutoff must be a positive number")
        return Measure(self.NAME, self.params, k)

    def __call__(self, **params) -> Measure:
        cut = params.pop("cutoff", None)
        if self.NAME == "IPrec" and "recall" in params:
            cut = params.pop("recall") if cut is None else cut
        return Measure(self.NAME, {**self.params, **params},
                       self.cutoff if self.cutoff is not None else cut)

    def __getitem__(self, key: str):
        if key == "cutoff":
            return self.cutoff
        return self.params.get(key)

    def __str__(self) -> str:
        p = ", ".join(f"{k}={_fmt(v)}" for k, v in sorted(self.params.items()))
        c = "" if self.cutoff is None else f"@{self.cutoff}"
        return f"{self.NAME}{f'({p})' if p else ''}{c}"

    __repr__ = __str__

    def __eq__(self, other) -> bool:
        return isinstance(other, (Measure, str)) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    def __lt__(self, other) -> bool:
        return str(self) < str(other)

    def iter_calc(self, qrels, run, regime: str | None = None):
        return iter_calc([self], qrels, run, regime=regime)

    def calc_aggregate(self, qrels, run, regime: str | None = None):
        return calc_aggregate([self], qrels, run, regime=regime)[self]

    def calc(self, qrels, run, regime: str | None = None):
        agg, per_q = calc([self], qrels, run, regime=regime)
        return agg[self], per_q


def _tb_name(m: Measure) -> str:
    """The measure in ir_measures syntax as tiebreak's ir_measures convention reads it."""
    params = dict(m.params)
    cut = m.cutoff
    if m.NAME == "IPrec" and cut is not None:
        params["recall"], cut = cut, None
    p = ",".join(f"{k}={v!r}" for k, v in params.items())
    return f"{m.NAME}{f'({p})' if p else ''}{'' if cut is None else f'@{cut}'}"


# every measure object of ir_measures 0.4.3, under each of its names
globals().update({n: Measure(n) for n in IRM_NAMES})
NumQ = Measure("NumQ")
MAP, MRR, BPref, NDCG, Precision = AP, RR, Bpref, nDCG, P  # noqa: F821 (defined just above)
Recall, RPrec, MAP_IA = R, Rprec, AP_IA  # noqa: F821


def parse_measure(text) -> Measure:
    """``"nDCG@10"``, ``"AP(rel=2)"``, ``"RBP(p=0.8)@20"``, ``"Precision@1"`` -> a
    :class:`Measure` (a Measure is returned as is). The name is checked against tiebreak's
    reading of ir_measures' names (its MeasureError is raised for an unknown one)."""
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        raise TypeError(f"a measure must be a string such as 'nDCG@10' or a Measure, not "
                        f"{type(text).__name__}")
    m = re.fullmatch(r"\s*([^\s(@]+)\s*(?:\((.*)\))?\s*(?:@\s*(\S+))?\s*", text, re.S)
    if not m or m.group(1) not in IRM_NAMES and m.group(1) != "NumQ" \
            and not _user_defined(m.group(1)):
        from ..measures.conventions import convention

        convention("ir_measures").parse(text)  # raises the convention's error
        raise ValueError(f"cannot read measure {text!r}")
    kw = {}
    if m.group(2) and m.group(2).strip():
        try:
            call = ast.parse(f"f({m.group(2)})", mode="eval").body
            kw = {a.arg: ast.literal_eval(a.value) for a in call.keywords}
        except (SyntaxError, ValueError):
            raise ValueError(f"{text}: cannot read the parameters {m.group(2)!r}") from None
    out = Measure(m.group(1))(**kw)
    if m.group(3):
        try:
            c = float(m.group(3))
        except ValueError:
            raise ValueError(f"{text}: the cutoff must be a number") from None
        out = out @ (int(c) if c.is_integer() and out.NAME != "IPrec" else c)
    _check(out)
    return out


def _check(m: Measure) -> None:
    from ..measures.conventions import convention

    if m.NAME != "NumQ":
        convention("ir_measures").parse(_tb_name(m))


#: trec_eval name -> (ir_measures name, what its ``.v1,v2`` list sets, default list)
_TREC = {
    "map": ("AP", None, ()), "ndcg": ("nDCG", None, ()), "set_P": ("SetP", None, ()),
    "set_recall": ("SetR", None, ()), "set_relative_P": ("SetRelP", None, ()),
    "set_map": ("SetAP", None, ()), "set_F": ("SetF", "beta", ()),
    "recip_rank": ("RR", None, ()), "Rprec": ("Rprec", None, ()), "bpref": ("Bpref", None, ()),
    "infAP": ("infAP", None, ()), "num_q": ("NumQ", None, ()), "num_rel": ("NumRel", None, ()),
    "num_ret": ("NumRet", None, ()), "num_rel_ret": ("NumRelRet", None, ()),
    "P": ("P", "cutoff", (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    "recall": ("R", "cutoff", (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    "ndcg_cut": ("nDCG", "cutoff", (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    "map_cut": ("AP", "cutoff", (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    "success": ("Success", "cutoff", (1, 5, 10)),
    "iprec_at_recall": ("IPrec", "cutoff", tuple(i / 10 for i in range(11))),
}
_OFFICIAL = ("P", "Rprec", "bpref", "iprec_at_recall", "map", "num_q", "num_rel",
             "num_rel_ret", "num_ret", "recip_rank")


def parse_trec_measure(text: str) -> list[Measure]:
    """trec_eval's measure names as ir_measures reads them: ``map`` -> [AP], ``P_5,10`` or
    ``P.5,10`` -> [P@5, P@10], ``P`` -> P at trec_eval's cutoffs, ``set_F.1.0,0.5`` ->
    [SetF, SetF(beta=0.5)], ``official`` -> trec_eval's official set. Raises ValueError for
    a name neither knows."""
    if text == "official":
        return [m for n in _OFFICIAL for m in parse_trec_measure(n)]
    m = re.fullmatch(r"([A-Za-z_]+?)(?:[._]([0-9.,]+))?", text.strip())
    if not m or m.group(1) not in _TREC:
        raise ValueError(f"unknown trec_eval measure {text!r}")
    name, what, default = _TREC[m.group(1)]
    if m.group(2) is None:
        vals = default or (None,)
    elif what is None:
        raise ValueError(f"{text}: trec_eval's {m.group(1)} takes no parameter")
    else:
        vals = tuple(float(v) for v in m.group(2).split(",") if v)
    out = []
    for v in vals:
        if what == "cutoff" and v is not None:
            out.append(Measure(name) @ (v if name == "IPrec" else int(v)))
        elif what == "beta" and v is not None and v != 1.0:
            out.append(Measure(name)(beta=v))
        else:
            out.append(Measure(name))
    return out


convert_trec_name = parse_trec_measure


def _lines(source):
    """A binary source for tiebreak's readers: a path, or the text itself (ir_measures reads
    a string holding a newline as the file's content)."""
    import io

    if isinstance(source, str) and "\n" in source:
        return io.BytesIO(source.encode())
    return source


def read_trec_qrels(source):
    """Yield :class:`Qrel` tuples from a TREC qrels file (path) or its text (a string with a
    newline). Raises :class:`tiebreak.io.InputError` naming the line of a bad judgment."""
    from ..io import read_qrels

    q = read_qrels(_lines(source))
    for i in range(len(q)):
        yield Qrel(q.topics[q.topic[i]], str(q.docnos[q.docid[i]]), int(q.value[i]))


def read_trec_run(source):
    """Yield :class:`ScoredDoc` tuples from a TREC run file (path) or its text (a string with
    a newline). Raises :class:`tiebreak.io.InputError` naming the line of a bad line."""
    from ..io import read_run

    r = read_run(_lines(source))
    for i in range(len(r)):
        yield ScoredDoc(r.topics[r.topic[i]], r.docno(i), float(r.score[i]))


parse_trec_qrels, parse_trec_run = read_trec_qrels, read_trec_run


def _measures(measures) -> list[Measure]:
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    return list(dict.fromkeys(parse_measure(m) for m in measures))  # equal ones once


def _tuples(x, value: str, what: str) -> dict:
    d: dict = {}
    for i, t in enumerate(x):
        try:
            q, doc, v = t.query_id, t.doc_id, getattr(t, value)
        except AttributeError:
            kind = "Qrel" if value == "relevance" else "ScoredDoc"
            raise ValueError(
                f"{what}: item {i} is a {type(t).__name__}, not a tuple with fields "
                f"query_id, doc_id, {value} (e.g. ir_measures.{kind}); {what} may also be a "
                f"dict {{qid: {{docno: {value}}}}}, a DataFrame or a path") from None
        inner = d.setdefault(str(q), {})
        if str(doc) in inner:
            raise ValueError(f"{what}: item {i}: docno {str(doc)!r} given twice for topic "
                             f"{str(q)!r}")
        inner[str(doc)] = int(v) if value == "relevance" else float(v)
    return d


def _iterable(x) -> bool:
    """An iterable of ir_measures records (not a dict, path, DataFrame or tiebreak object)."""
    return not isinstance(x, (dict, str, bytes)) and not hasattr(x, "columns") \
        and hasattr(x, "__iter__") and type(x).__name__ not in ("Qrels", "Run")


def _qrels(x):
    from ..io.inputs import as_qrels

    return as_qrels(_tuples(x, "relevance", "qrels") if _iterable(x) else x)


def _run_dict(x) -> dict:
    """``{qid: {docno: score}}`` of any run ir_measures accepts."""
    from ..io.inputs import as_run

    if _iterable(x):
        return _tuples(x, "score", "run")
    if isinstance(x, dict):
        return x
    r = as_run(x)
    d: dict = {}
    for i in range(len(r)):
        d.setdefault(r.topics[r.topic[i]], {})[r.docno(i)] = float(r.score[i])
    return d


class _Evaluator:
    """``evaluator(measures, qrels)``: evaluate many runs against the same qrels.

    ``provider`` fixes the tie order of every measure (``pytrec_eval``: trec_eval's on C
    float scores; ``compat``: docno ascending); None: each measure's ir_measures provider.
    """

    def __init__(self, measures, qrels, regime: str | None = None,
                 provider: str | None = None):
        self.measures = _measures(measures)
        self.regime = regime
        self.qrels = _qrels(qrels)
        self.provider = provider
        self._evs: dict = {}

    def _group(self, m: Measure) -> str:
        if self.provider is not None:
            return self.provider
        return next((p.NAME for p in providers.registry.values() if p.serves(m)), "other")

    def _ev(self, group: str, ms: list[Measure]):
        from ..evaluation import Evaluator

        key = (group, tuple(ms))
        if key not in self._evs:
            regime = self.regime or ("file" if group == "compat" else "trec_eval")
            prec = "float32" if group == "pytrec_eval" and self.regime is None else "float64"
            self._evs[key] = Evaluator(self.qrels, [_tb_name(m) for m in ms], [regime],
                                       score_precision=prec, average="run-topics",
                                       convention="ir_measures")
        return self._evs[key]

    def _values(self, run) -> tuple[dict, list[str]]:
        """``{(qid, measure): value}`` over the qrels topics the run has, and those topics."""
        from ..io.inputs import as_run
        from ..measures.conventions import convention

        d = _run_dict(run)
        qt = set(self.qrels.topics)
        have = sorted(t for t, docs in d.items() if str(t) in qt and len(docs))
        out: dict = {}
        if not have:
            return out, have
        # ties by docno ascending, in the order the lines are given ("file" regime)
        sd = {str(t): dict(sorted(((str(k), float(v)) for k, v in d[t].items()),
                                  key=lambda kv: (-kv[1], kv[0]))) for t in have}
        r = as_run(sd)
        groups: dict = {}
        for m in self.measures:
            if m.NAME == "NumQ":
                continue
            groups.setdefault(self._group(m), []).append(m)
        for g, ms in groups.items():
            ev = self._ev(g, ms)
            res = ev.evaluate([r])
            col = [ev.measures.index(convention("ir_measures").parse(_tb_name(m))[0])
                   for m in ms]  # the evaluator keeps one of equal measures
            for ti, q in enumerate(res.topics):
                if q not in sd:
                    continue
                for j, m in zip(col, ms):
                    out[(q, m)] = float(res.per_topic[0, j, 0, ti])
        for q in have:
            out[(q, NumQ)] = 1.0
        return out, [str(t) for t in have]

    def iter_calc(self, run):
        """Yield ``Metric(query_id, measure, value)`` for every qrels topic and measure: the
        topics the run has (byte order, each with its measures), then the others with 0."""
        vals, have = self._values(run)
        for q in have:
            for m in self.measures:
                v = vals[(q, m)]
                if v == v:  # an undefined value (Accuracy without a relevant document): none
                    yield Metric(q, m, v)
        rest = sorted(set(self.qrels.topics) - set(have))
        for m in sorted(self.measures, key=str):
            for q in rest:
                yield Metric(q, m, 0.0 if m.NAME not in _SUMMED else 0)

    def calc_aggregate(self, run) -> dict:
        """``{measure: value}``: the mean over every qrels topic (the sum for NumQ, NumRel,
        NumRet, NumRelRet), a topic missing from the run counting 0 and one where the measure
        is undefined (Accuracy without a relevant document) left out."""
        return self.calc(run)[0]

    def calc(self, run):
        """``CalcResults(aggregated, per_query)``: :meth:`calc_aggregate` and the list of
        :meth:`iter_calc`."""
        per = list(self.iter_calc(run))
        agg = {}
        for m in self.measures:
            v = [x.value for x in per if x.measure == m]
            agg[m] = sum(v) if m.NAME in _SUMMED else (sum(v) / len(v) if v else 0.0)
        return CalcResults(agg, per)


def evaluator(measures, qrels, regime: str | None = None) -> _Evaluator:
    """An evaluator for ``measures`` against ``qrels`` (``.iter_calc(run)``,
    ``.calc_aggregate(run)``, ``.calc(run)``)."""
    return _Evaluator(measures, qrels, regime)


def iter_calc(measures, qrels, run, regime: str | None = None):
    """Yield ``Metric(query_id, measure, value)`` for every qrels topic and measure.

    Raises :class:`tiebreak.io.InputError` for bad qrels or runs, ValueError naming the
    argument for items without the fields ``query_id``, ``doc_id``, ``relevance``/``score``,
    and :class:`tiebreak.measures.MeasureError` for an unknown measure."""
    return _Evaluator(measures, qrels, regime).iter_calc(run)


def calc_aggregate(measures, qrels, run, regime: str | None = None) -> dict:
    """``{measure: value}`` averaged over the qrels topics, as ir_measures does."""
    return _Evaluator(measures, qrels, regime).calc_aggregate(run)


def calc(measures, qrels, run, regime: str | None = None):
    """``CalcResults(aggregated, per_query)``."""
    return _Evaluator(measures, qrels, regime).calc(run)


#: ir_measures 0.4.3's providers in the order its default pipeline asks them, with the
#: measures each serves there (None: those trec_eval has)
_PROVIDERS = {
    "pytrec_eval": None, "compat": ("Compat",), "judged": ("Judged",),
    "accuracy": ("Accuracy",),
}
_TREC_EVAL = ("AP", "P", "R", "RR", "nDCG", "Rprec", "Bpref", "Success", "IPrec", "NumRet",
              "NumRel", "NumRelRet", "NumQ", "SetP", "SetR", "SetF", "SetAP", "SetRelP",
              "infAP")


class Provider:
    """One of ir_measures' providers by name: the same tiebreak measures (one definition
    each), in that provider's tie order (``pytrec_eval``: trec_eval's, on C float scores;
    ``compat``: docno ascending; the others trec_eval's on double scores).
    ``supports(measure)``, ``evaluator``, ``iter_calc``, ``calc_aggregate``, ``calc``."""

    def __init__(self, name: str):
        if name not in _PROVIDERS:
            raise ValueError(f"unknown provider {name!r}; one of {', '.join(_PROVIDERS)}")
        self.NAME = name

    def serves(self, m: Measure) -> bool:
        names = _PROVIDERS[self.NAME]
        return m.NAME in (names or _TREC_EVAL)

    def supports(self, measure) -> bool:
        return self.serves(parse_measure(measure))

    def is_available(self) -> bool:
        return True

    def evaluator(self, measures, qrels, regime: str | None = None) -> _Evaluator:
        return _Evaluator(measures, qrels, regime, provider=self.NAME)

    def iter_calc(self, measures, qrels, run, regime: str | None = None):
        return self.evaluator(measures, qrels, regime).iter_calc(run)

    def calc_aggregate(self, measures, qrels, run, regime: str | None = None) -> dict:
        return self.evaluator(measures, qrels, regime).calc_aggregate(run)

    def calc(self, measures, qrels, run, regime: str | None = None):
        return self.evaluator(measures, qrels, regime).calc(run)

    def __repr__(self) -> str:
        return f"Provider({self.NAME!r})"


pytrec_eval, compat = Provider("pytrec_eval"), Provider("compat")
judged, accuracy = Provider("judged"), Provider("accuracy")


class providers:  # noqa: N801  (ir_measures' module name)
    """``ir_measures.providers``: the provider registry and classes by name."""

    registry = {"pytrec_eval": pytrec_eval, "compat": compat, "judged": judged,
                "accuracy": accuracy}
    Provider = Provider

    @staticmethod
    def PytrecEvalProvider() -> Provider:  # noqa: N802
        return Provider("pytrec_eval")

    @staticmethod
    def CompatProvider() -> Provider:  # noqa: N802
        return Provider("compat")


measures = sys.modules[__name__]  # ``ir_measures.measures``: the measure objects

__all__ = ["Measure", "Metric", "Qrel", "ScoredDoc", "CalcResults", "calc", "calc_aggregate",
           "evaluator", "iter_calc", "parse_measure", "parse_trec_measure", "read_trec_qrels",
           "read_trec_run", "providers", "pytrec_eval", "compat", "judged", "accuracy", "NumQ",
           "MAP", "MRR", "BPref", "NDCG", "Precision", "Recall", "RPrec", "MAP_IA",
           *(n for n in IRM_NAMES if n.isidentifier())]
