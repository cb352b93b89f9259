"""trec_eval's measure names: the one alias table onto the registered families.

``-m name[.params]`` is read as trec_eval 10.0 reads it (cutoff lists sorted, ``23.4`` -> 23,
``%3.2f`` printed names, ``level=gain`` pairs, raw-parameter names such as ``utility_2,-1,0,0``)
and expands to :class:`~tiebreak.measures.registry.Measure` objects with trec_eval's printed
names. ``tiebreak eval -m`` and ``tiebreak trec_eval -m`` both use :func:`expand`.
"""

from __future__ import annotations

import re

from .registry import Measure, MeasureError, _Frozen, family, make

LONG_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_PTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
RPREC_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


class TrecName(_Frozen):
    """A trec_eval measure name: the family it means and how its parameters are read.

    ``params`` is trec_eval's parameter form: none | long_cuts | double_cuts | floats | float |
    pairs. ``summary`` overrides the family's summary (``gm_map``: geometric mean, printed only
    on the ``all`` line: ``gmonly``). ``special`` marks names computed outside the ranking
    kernels (runid, num_q, preference and judgment-group measures).
    """

    _fields = __match_args__ = ("name", "doc", "family", "params", "default", "summary",
                                "special")
    name: str
    doc: str
    family: str | None
    params: str
    default: tuple
    summary: str
    special: str

    def __init__(self, name: str, doc: str, family: str | None, params: str = "none",
                 default: tuple = (), summary: str = "", special: str = ""):
        _set = object.__setattr__
        _set(self, "name", name)
        _set(self, "doc", doc)
        _set(self, "family", family)
        _set(self, "params", params)
        _set(self, "default", default)
        _set(self, "summary", summary)
        _set(self, "special", special)

    def _key(self) -> tuple:
        return (self.name, self.doc, self.family, self.params, self.default, self.summary,
                self.special)


T = TrecName
TREC_NAMES: list[TrecName] = [
    T("runid", "run tag of the results file", None, special="runid"),
    T("num_q", "number of topics evaluated", None, special="num_q"),
    T("num_ret", "documents retrieved", "NumRet"),
    T("num_rel", "relevant documents in the qrels", "NumRel"),
    T("num_rel_ret", "relevant documents retrieved", "NumRelRet"),
    T("map", "average precision: mean precision at each relevant document, over R", "AP"),
    T("gm_map", "geometric mean over topics of AP (floor 1e-5)", "AP", summary="gmonly"),
    T("Rprec", "precision after R documents", "Rprec"),
    T("bpref", "fraction of relevant documents ranked above judged non-relevant ones",
      "bpref"),
    T("recip_rank", "1 / rank of the first relevant document", "RR"),
    T("iprec_at_recall", "interpolated precision at recall levels (cutoff lround(level R))",
      "IPrec", "double_cuts", RECALL_PTS),
    T("P", "precision at k", "P", "long_cuts", LONG_CUTS),
    T("relstring", "relevance codes of the top N documents (per topic only)", "relstring",
      "float", (10.0,)),
    T("recall", "recall at k", "R", "long_cuts", LONG_CUTS),
    T("infAP", "inferred AP (Yilmaz & Aslam 2006), -1 in qrels = pooled but unjudged",
      "infAP"),
    T("gm_bpref", "geometric mean over topics of bpref (floor 1e-5)", "bpref",
      summary="gmonly"),
    T("Rprec_mult", "precision at int(m R + 0.9) documents", "Rprec_mult", "double_cuts",
      RPREC_MULTS),
    T("utility", "a rel_ret + b nonrel_ret + c rel_nonret + d nonrel_nonret (-N)", "utility",
      "floats", (1.0, -1.0, 0.0, 0.0)),
    T("11pt_avg", "interpolated precision averaged over the recall levels", "11pt_avg",
      "floats", RECALL_PTS),
    T("binG", "mean over relevant documents of 1/log2(2 + non-relevant above)", "binG"),
    T("G", "gain / log2(2 + ideal cost - gain so far), normalised (Buckley 2008)", "G",
      "pairs"),
    T("dcg", "discounted cumulative gain, gain = relevance value", "DCG", "pairs"),
    T("ideal_dcg", "DCG of the ideal ranking", "IDCG", "pairs"),
    T("ndcg", "DCG / ideal DCG (Jarvelin & Kekalainen 2002), gains level=gain", "nDCG",
      "pairs"),
    T("ndcg_rel", "nDCG averaged over the relevant documents", "ndcg_rel", "pairs"),
    T("Rndcg", "nDCG averaged at the R levels of the ideal ranking", "Rndcg", "pairs"),
    T("ndcg_cut", "nDCG at k", "nDCG", "long_cuts", LONG_CUTS),
    T("map_cut", "AP over the top k, divided by R", "AP", "long_cuts", LONG_CUTS),
    T("relative_P", "precision at k / its maximum min(k, R)/k", "relative_P", "long_cuts",
      LONG_CUTS),
    T("success", "1 if a relevant document is in the top k", "Success", "long_cuts",
      (1, 5, 10)),
    T("set_P", "relevant retrieved / retrieved", "SetP"),
    T("set_relative_P", "relevant retrieved / min(retrieved, R)", "SetRelP"),
    T("set_recall", "relevant retrieved / R", "SetR"),
    T("set_map", "set_P x set_recall", "SetAP"),
    T("set_F", "(x+1) P R / (x P + R) over the retrieved set", "SetF", "float", (1.0,)),
    T("num_nonrel_judged_ret", "judged non-relevant documents retrieved",
      "NumNonrelJudgedRet"),
]
PREFS_NAMES = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
    "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
    "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp")
TREC_NAMES += [T(n, "preference measure (see docs/trec_eval.md)", None, special="prefs",
                 summary="sum" if n.startswith("prefs_num") else "mean")
               for n in PREFS_NAMES]
TREC_NAMES += [
    T("map_avgjg", "map averaged over judgment groups", "AP", special="jg"),
    T("P_avgjg", "P at k averaged over judgment groups", "P", "long_cuts", LONG_CUTS,
      special="jg"),
    T("Rprec_mult_avgjg", "Rprec_mult averaged over judgment groups", "Rprec_mult",
      "double_cuts", RPREC_MULTS, special="jg"),
    T("rbp", "rank-biased precision, p=0.9 (gains rescaled to [0,1])", "trec_rbp", "pairs"),
    T("rbp_resid", "RBP residual, trec_eval 10 definition (0 when nothing is unjudged)",
      "trec_rbp_resid", "pairs"),
    T("unj", "fraction of unjudged documents in the top k", "unj", "long_cuts", (5, 10, 20)),
]
del T
BY_NAME = {t.name: t for t in TREC_NAMES}
ORDER = {t.name: i for i, t in enumerate(TREC_NAMES)}

NICKNAMES = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
                 "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG",
                 "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P",
                 "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
                 "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
    "all_prefs": ("runid", "num_q") + PREFS_NAMES,
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
              "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg"),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}


class TrecEvalError(Exception):
    """A trec_eval usage or input error: ``message`` is printed, ``status`` is the exit code."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status


def atof(s: str) -> float:
    """C atof: the longest numeric prefix, 0.0 when there is none."""
    m = re.match(r"[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)", s.strip())
    return float(m.group(0)) if m else 0.0


def atol(s: str) -> int:
    """C atol: the leading integer, 0 when there is none."""
    m = re.match(r"\s*[+-]?\d+", s)
    # glibc's atol saturates at LONG_MIN / LONG_MAX
    return max(min(int(m.group(0)), (1 << 63) - 1), -(1 << 63)) if m else 0


class Requested:
    """A trec_eval name as requested: its parsed parameter values, printed names and the
    registered measures behind them (one per printed name; empty for special names). (A plain
    class: a dataclass costs a few tenths of a ms at every start.)"""

    __slots__ = ("t", "raw", "values", "names", "measures")

    def __init__(self, t: TrecName, raw: str | None, values: tuple, names: list[str],
                 measures: list[Measure]):
        self.t, self.raw, self.values, self.names, self.measures = t, raw, values, names, measures

    def __repr__(self) -> str:
        return (f"Requested(t={self.t!r}, raw={self.raw!r}, values={self.values!r}, "
                f"names={self.names!r}, measures={self.measures!r})")

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)
        return NotImplemented

    __hash__ = None


def _values(t: TrecName, raw: str | None) -> tuple:
    kind = t.params
    if raw is None:
        return t.default
    if kind == "long_cuts":
        vals = tuple(sorted({atol(x) for x in raw.split(",")}))
        if any(v <= 0 for v in vals):
            raise TrecEvalError(f"trec_eval: illegal measure '{t.name}.{raw}'")
        return vals
    if kind == "double_cuts":
        return tuple(sorted({atof(x) for x in raw.split(",")}))
    if kind == "floats":
        return tuple(atof(x) for x in raw.split(","))
    if kind == "float":
        return (atof(raw.split(",")[0]),)
    if kind == "pairs":
        out = []
        for item in raw.split(","):
            if "=" not in item:
                raise TrecEvalError(f"trec_eval: illegal measure '{t.name}.{raw}'")
            k, v = item.split("=", 1)
            out.append((k, atof(v)))
        return tuple(out)
    raise TrecEvalError(f"trec_eval: illegal measure '{t.name}.{raw}'")


def _printed(t: TrecName, raw, vals) -> list[str]:
    if t.params == "long_cuts":
        return [f"{t.name}_{c}" for c in vals]
    if t.params == "double_cuts":
        return [f"{t.name}_{c:3.2f}" for c in vals]
    return [t.name if raw is None else f"{t.name}_{raw}"]


def resolve(t: TrecName, raw: str | None, level: int = 1, num_docs: float = 0.0) -> Requested:
    """Read ``raw`` (the text after the first '.' of ``-m``) as trec_eval does for ``t`` and
    build the registered measures, at relevance level ``level`` (``-l``)."""
    vals = _values(t, raw)
    names = _printed(t, raw, vals)
    if t.family is None:
        return Requested(t, raw, vals, names, [])
    fam = family(t.family)
    where = f"{t.name}" + (f".{raw}" if raw else "")
    kw: dict = {}
    if any(p.name == "rel" and p.default is not None for p in fam.params):
        kw["rel"] = level
    summary = t.summary if t.summary != "gmonly" else "gmean"
    try:
        if t.params == "long_cuts":
            return Requested(t, raw, vals, names,
                             [make(fam, where, cutoff=int(c), name=n, summary=summary, **kw)
                              for c, n in zip(vals, names)])
        if t.params == "double_cuts":
            key = "recall" if t.family == "IPrec" else "mult"
            return Requested(t, raw, vals, names,
                             [make(fam, where, name=n, summary=summary, **{key: c}, **kw)
                              for c, n in zip(vals, names)])
        if t.params == "floats":
            if t.family == "utility":
                if len(vals) != 4:
                    raise TrecEvalError("trec_eval.calc_utility: improper number of "
                                        "coefficients", 4)
                kw.update(coef=vals, num_docs=float(num_docs))
            else:
                if not vals:
                    raise TrecEvalError("trec_eval.calc_m_11ptavg: No cutoff values", 4)
                kw["levels"] = vals
        elif t.params == "float":
            kw["length" if t.family == "relstring" else "beta"] = (
                int(vals[0]) if t.family == "relstring" else vals[0])
        elif t.params == "pairs":
            gains = {}
            for k, v in vals:
                if k == "p" and t.family in ("trec_rbp", "trec_rbp_resid"):
                    kw["p"] = v
                    continue
                try:
                    gains[int(k)] = v
                except ValueError:
                    continue  # trec_eval ignores names that are not levels
            if gains and t.family != "trec_rbp_resid":
                kw["gains"] = gains
        return Requested(t, raw, vals, names,
                         [make(fam, where, name=names[0], summary=summary, **kw)])
    except MeasureError as e:
        raise TrecEvalError(f"trec_eval: illegal measure '{where}': {e}") from None


def mark(args: list[str], level: int = 1, num_docs: float = 0.0) -> list[Requested]:
    """The measures requested by ``-m`` arguments, in trec_eval's printing order.

    Raises :class:`TrecEvalError` (status 1) for an unknown measure (``illegal measure``)."""
    marked: set[str] = set()
    params: dict[str, str] = {}
    for arg in args or ["official"]:
        name, dot, raw = arg.partition(".")
        if dot:
            if raw == "":
                raise TrecEvalError(f"trec_eval: improper measure in parameter '{name}'\n"
                                    f"trec_eval: illegal measure '{arg}'")
            params[name] = raw
        if name in NICKNAMES:
            marked.update(NICKNAMES[name])
        elif name in BY_NAME:
            marked.add(name)
        else:
            raise TrecEvalError(f"trec_eval: illegal measure '{arg}'")
    return [resolve(BY_NAME[n], params.get(n), level, num_docs)
            for n in sorted(marked, key=ORDER.get)]


_SUFFIX = re.compile(r"^(.+?)_(\d+)$")


def expand(text: str, level: int = 1) -> list[Measure] | None:
    """Measures for a trec_eval-style name typed to ``tiebreak eval`` (``map``, ``P.5,10``,
    ``P_5``, ``ndcg_cut_10``, ``official``, ``all_trec``), or None when ``text`` is not one.

    Special names (runid, num_q, preference and judgment-group measures) are left out: they
    have no per-topic value over a ranking."""
    s = text.strip()
    name, dot, raw = s.partition(".")
    if name not in BY_NAME and name not in NICKNAMES:
        m = _SUFFIX.match(s)
        if not m or m.group(1) not in BY_NAME or BY_NAME[m.group(1)].params != "long_cuts":
            return None
        name, raw, dot = m.group(1), m.group(2), "."
    try:
        reqs = mark([s if not dot else f"{name}.{raw}"], level)
    except TrecEvalError as e:
        raise MeasureError(str(e).replace("trec_eval: ", "")) from None
    return [m for r in reqs if not r.t.special for m in r.measures]
