"""The model registry: every retrieval model declared once.

A :class:`Model` names the model (and its aliases), its parameters with defaults and checks, the
index data it reads (``stats``: document and collection statistics; ``positions``: positional
postings; ``intervals``: optimal intervals enumerated per document), how it is scored
(``term weights``: a :class:`~tiebreak.retrieval.weights.TermScorer` the traversal layer runs;
``positional``: a per-document kernel over the query terms' positions; ``dependency``: the
fused two-pass kernels of :mod:`tiebreak.retrieval.dependency`) and its source.

>>> from tiebreak.retrieval.registry import get, run
>>> get("lmds").name, get("lmds").fixed
('ql', {'smoothing': 'dirichlet'})
>>> d, s = run(index, ["apple"], 10, "bm25", k1=1.2)          # doctest: +SKIP

``tiebreak models`` prints the table; ``tiebreak search --model NAME -p k=v`` and
:func:`tiebreak.retrieval.search.search` reach every entry.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

from ..io.params import Range

__all__ = ["Param", "Model", "MODELS", "ALIASES", "get", "run", "names", "register",
           "TRAVERSAL_OPTIONS", "check"]

#: options of the traversal layer a term-weight model accepts besides its parameters
TRAVERSAL_OPTIONS = ("algorithm", "quantize", "quantizer", "rho", "budget", "stats",
                     "band_method")


# ------------------------------------------------------------------ parameter checks
def _number(name, v):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise ValueError(f"{name} must be a number, got {v!r}")
    v = float(v)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite number, got {v!r}")
    return v


def in_range(lo, hi, lo_open=False, hi_open=False, why=""):
    """A check: a finite number in [lo, hi] (open ends on request; the one rule of
    :class:`tiebreak.io.params.Range`)."""
    return Range(lo, hi, lo_open, hi_open, why=why)


def integer(lo):
    """A check: an integer >= lo."""
    def rule(name, v):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    return rule


def one_of(*choices):
    """A check: one of ``choices``."""
    def rule(name, v):
        if v not in choices:
            raise ValueError(f"{name} must be one of {', '.join(map(str, choices))}, got {v!r}")
    return rule


def weights3(name, v):
    """A check: three finite numbers >= 0 (lambda_t, lambda_ow, lambda_uw)."""
    if isinstance(v, str | bytes) or not hasattr(v, "__iter__"):
        raise ValueError(f"{name} must be 3 numbers, got {v!r}")
    v = list(v)
    if len(v) != 3:
        raise ValueError(f"{name} must be 3 numbers (lambda_t, lambda_ow, lambda_uw: "
                         f"-p {name}=0.8,0.1,0.1), got {len(v)}: {v!r}")
    for w in v:
        if _number(name, w) < 0:
            raise ValueError(f"{name} must be >= 0, got {v!r}")


def weights_any(name, v):
    """A check: 3 finite numbers of any sign (a learned weight vector)."""
    if isinstance(v, str | bytes) or not hasattr(v, "__iter__") or len(list(v)) != 3:
        raise ValueError(f"{name} must be 3 numbers, got {v!r}")
    for w in v:
        _number(name, w)


def optional_number(name, v):
    """A check: None or a finite number."""
    if v is not None:
        _number(name, v)


def optional_integer(lo):
    def rule(name, v):
        if v is not None:
            integer(lo)(name, v)
    return rule


@dataclass(frozen=True)
class Param:
    """One model parameter: name, default, check(name, value) raising ValueError, meaning, and
    how a default of None reads in ``tiebreak models`` (``none``: e.g. "all" terms, "exact")."""

    name: str
    default: object
    check: object = None
    doc: str = ""
    none: str = "all"


@dataclass(frozen=True)
class Model:
    """One registered model (module docstring)."""

    name: str
    summary: str
    kind: str                      # "term weights" | "positional" | "dependency"
    needs: tuple                   # subset of ("stats", "positions", "intervals")
    params: tuple                  # of Param
    fn: str                        # "module:function" called as fn(index, terms, k, **params)
    citation: str
    aliases: tuple = ()
    fixed: dict = field(default_factory=dict)   # parameters an alias fixes
    traversal: bool = False        # accepts TRAVERSAL_OPTIONS

    def param_names(self) -> list[str]:
        return [p.name for p in self.params]

    def defaults(self) -> dict:
        return {p.name: p.default for p in self.params}

    def function(self):
        import importlib

        mod, attr = self.fn.split(":")
        return getattr(importlib.import_module(mod), attr)


#: canonical name -> Model
MODELS: dict[str, Model] = {}
#: alias -> (canonical name, fixed parameters)
ALIASES: dict[str, tuple[str, dict]] = {}


def register(m: Model) -> Model:
    """Add ``m`` (its name and aliases must be new)."""
    for n in (m.name,) + tuple(m.aliases):
        if n in MODELS or n in ALIASES:
            raise ValueError(f"model name {n!r} is registered twice")
    MODELS[m.name] = m
    for a in m.aliases:
        ALIASES[a] = (m.name, dict(m.fixed))
    return m


def get(name: str) -> Model:
    """The :class:`Model` registered as ``name`` or aliased to it.

    Raises
    ------
    ValueError
        An unknown name (the message lists every name).
    """
    if name in MODELS:
        return MODELS[name]
    if name in ALIASES:
        return MODELS[ALIASES[name][0]]
    raise ValueError(f"unknown model {name!r}; choose from {', '.join(names())}")


def names() -> list[str]:
    """Every model name and alias, canonical names first in registration order."""
    return list(MODELS) + list(ALIASES)


def check(name: str, params: dict) -> dict:
    """``params`` checked against model ``name`` (plus an alias's fixed parameters); returns
    the parameters to call the model with.

    Raises
    ------
    ValueError
        An unknown model or parameter, or a value its check rejects.
    """
    m = get(name)
    fixed = ALIASES[name][1] if name in ALIASES else {}
    by_name = {p.name: p for p in m.params}
    for n, v in params.items():
        if n in fixed and v != fixed[n]:
            raise ValueError(f"{name} fixes {n}={fixed[n]!r}; use --model {m.name} for others")
        if n in by_name:
            if by_name[n].check is not None:
                by_name[n].check(n, v)
            elif isinstance(v, float) and not math.isfinite(v):
                raise ValueError(f"{n} must be a finite number, got {v!r}")
        elif not (m.traversal and n in TRAVERSAL_OPTIONS):
            allowed = m.param_names() + (list(TRAVERSAL_OPTIONS) if m.traversal else [])
            raise ValueError(f"{name} has no parameter {n!r} (its parameters: "
                             f"{', '.join(allowed) or 'none'})")
    return {**fixed, **params}


def run(index, query_terms, k: int, name: str, **params):
    """Top ``k`` of model ``name`` for one query of analysed terms: ``(docids int32, scores
    float64)`` in trec_eval order. Raises ValueError as :func:`check`."""
    return get(name).function()(index, query_terms, k, **check(name, params))


# ------------------------------------------------------------------ the models
_K1 = Param("k1", 0.9, in_range(0.0, 1e6, why="(k1 + 1) tf must stay finite; beyond 1e6 "
                                  "BM25 is linear in tf to six digits"),
            "BM25 term-frequency saturation")
_B = Param("b", 0.4, in_range(0.0, 1.0), "BM25 length normalisation")
_B3 = Param("b", 0.3, in_range(0.0, 1.0), "BM25 length normalisation (BM25^(2))")
_IDF = Param("idf", "lucene", one_of("rsj", "rw", "lucene"),
             "idf: lucene log(1+(N-df+.5)/(df+.5)), rsj log((N-df+.5)/(df+.5)), rw log(N/df)")
_IDF_RW = Param("idf", "rw", one_of("rsj", "rw", "lucene"), "idf of the BM25 part")
_MU = Param("mu", 2500.0, in_range(0.0, math.inf, lo_open=True), "Dirichlet prior")
_LAM = Param("lam", 0.4, in_range(0.0, 1.0), "proximity weight lambda of Eq. 4.3")
_MAXP = Param("max_prox_terms", 6, integer(2),
              "proximity over the highest-IDF distinct terms only (2^m - m - 1 subqueries)")
_BM25 = ("S. E. Robertson, S. Walker, S. Jones, M. Hancock-Beaulieu and M. Gatford, "
         "\"Okapi at TREC-3\", TREC 1994")
_LU = "X. Lu, PhD thesis, RMIT University, 2018, ch. 4"

register(Model(
    "vsm", "TF x IDF cosine vector space model (Lu 2018 Eq. 2.1-2.2)", "term weights",
    ("stats",), (), "tiebreak.retrieval.models:vsm",
    "G. Salton, A. Wong and C. S. Yang, \"A vector space model for automatic indexing\", "
    "CACM 18(11), 1975", traversal=True))
register(Model(
    "bm25", "Okapi BM25 (Lu 2018 Eq. 2.3-2.4)", "term weights", ("stats",),
    (_K1, _B, _IDF, Param("doclen", "exact", one_of("exact", "lucene"),
                          "document length: exact, or Lucene's one-byte encoding")),
    "tiebreak.retrieval.models:bm25", _BM25, traversal=True))
register(Model(
    "ql", "query likelihood; Dirichlet (LMDS, Lu 2018 Eq. 2.5), Jelinek-Mercer or absolute "
    "discount smoothing", "term weights", ("stats",),
    (_MU, Param("smoothing", "dirichlet", one_of("dirichlet", "jm", "ad"), "smoothing method"),
     Param("lam", 0.1, in_range(0.0, 1.0, True, True), "jm: weight of the collection model"),
     Param("delta", 0.7, in_range(0.0, 1.0, True, True), "ad: discount")),
    "tiebreak.retrieval.models:ql",
    "J. M. Ponte and W. B. Croft, SIGIR 1998; C. Zhai and J. Lafferty, \"A study of smoothing "
    "methods for language models applied to information retrieval\", ACM TOIS 22(2), 2004",
    aliases=("lmds",), fixed={"smoothing": "dirichlet"}, traversal=True))
_AMATI = ("G. Amati and C. J. van Rijsbergen, \"Probabilistic models of information retrieval "
          "based on measuring the divergence from randomness\", ACM TOIS 20(4), 2002")
_C = Param("c", 1.0, in_range(0.0, math.inf, lo_open=True), "Normalisation 2 parameter c")
register(Model(
    "pl2", "DFR PL2: Poisson randomness, Laplace after-effect, Normalisation 2 (log2)",
    "term weights", ("stats",), (_C,), "tiebreak.retrieval.models:pl2", _AMATI, traversal=True))
register(Model(
    "dph", "DFR DPH: parameter-free hypergeometric model, Popper normalisation (log2)",
    "term weights", ("stats",), (), "tiebreak.retrieval.models:dph",
    "G. Amati, E. Ambrosi, M. Bianchi, C. Gaibisso and G. Gambosi, \"FUB, IASI-CNR and "
    "University of Tor Vergata at TREC 2007 Blog Track\", TREC 2007", traversal=True))
register(Model(
    "dfr_bm25", "DFR form of BM25: Normalisation 2 tf, RSJ idf (log2), k3 query factor",
    "term weights", ("stats",),
    (_C, Param("k1", 1.2, in_range(0.0, math.inf), "tf saturation"),
     Param("k3", 1000.0, in_range(0.0, math.inf), "query-frequency saturation")),
    "tiebreak.retrieval.models:dfr_bm25", "G. Amati, PhD thesis, University of Glasgow, 2003 "
    "(the DFR derivation of BM25)", traversal=True))

#: the dependency models' traversal (tiebreak.retrieval.dependency.pruned)
_ALGO_BOUNDS = Param("algorithm", "exhaustive", one_of("exhaustive", "bounds"),
                     "bounds: rank-safe pruning by per-document upper bounds of the proximity "
                     "part (same top k, bit for bit)")
def _window_cf_rule(name, v):
    if v is not None:
        from .dependency.mrf import constant_window_cf

        constant_window_cf(v, 1)


_WINDOW_CF = Param("window_cf", None, _window_cf_rule, "constant collection count of every "
                   "window feature: 'ivory' (2N/100, Ivory's) or a count > 0; default exact",
                   none="exact")
_MRF = ("D. Metzler and W. B. Croft, \"A Markov random field model for term dependencies\", "
        "SIGIR 2005")
register(Model(
    "sdm", "sequential dependence model, Indri semantics", "dependency", ("stats", "positions"),
    (Param("weights", (0.8, 0.15, 0.05), weights3, "lambda_t, lambda_ow, lambda_uw"), _MU,
     Param("window", 8, integer(1), "#uwN window of the bigrams"),
     Param("method", "auto", one_of("auto", "lps_if_all", "eps_cdf_all"), "interval finder"),
     Param("max_prox_terms", None, optional_integer(2), "window features over at most this "
           "many highest-IDF terms (default all, <= 62)"),
     _ALGO_BOUNDS, _WINDOW_CF),
    "tiebreak.retrieval.dependency:sdm", _MRF))
register(Model(
    "fdm", "full dependence model, Indri semantics", "dependency", ("stats", "positions"),
    (Param("weights", (0.8, 0.1, 0.1), weights3, "lambda_t, lambda_ow, lambda_uw"), _MU,
     Param("method", "auto", one_of("auto", "lps_if_all", "eps_cdf_all"), "interval finder"),
     Param("max_prox_terms", 12, integer(2), "window features over at most this many "
           "highest-IDF terms (<= 20)"), _ALGO_BOUNDS, _WINDOW_CF),
    "tiebreak.retrieval.dependency:fdm", _MRF))
register(Model(
    "wsdm", "weighted SDM: each unigram / adjacent pair weighted by its concept's features "
    "(constant, ln cf, ln df); the weights must be given (no default: they are learned)",
    "dependency", ("stats", "positions"),
    (Param("uni", "required", weights_any, "unigram concept weights u0,u1,u2 (required)"),
     Param("bi", "required", weights_any, "bigram concept weights v0,v1,v2 (required)"), _MU,
     Param("window", 8, integer(1), "#uwN window of the bigrams"),
     Param("method", "auto", one_of("auto", "lps_if_all", "eps_cdf_all"), "interval finder"),
     Param("max_prox_terms", None, optional_integer(2), "window features over at most this "
           "many highest-IDF terms (default all, <= 62)")),
    "tiebreak.retrieval.wsdm:wsdm",
    "M. Bendersky, D. Metzler and W. B. Croft, \"Learning concept importance using a weighted "
    "dependence model\", WSDM 2010"))
_SEG = ("R. Jones, B. Rey, O. Madani and W. Greiner, \"Generating query substitutions\", "
        "WWW 2006 (mutual-information segmentation)")
_PMI = Param("pmi", 0.0, _number, "segment threshold: adjacent pairs with PMI below it are cut")
register(Model(
    "wfdm", "weighted FDM: WSDM's concept weights (constant, ln cf, ln df) on every FDM "
    "subquery; the weights must be given (no default: they are learned)",
    "dependency", ("stats", "positions"),
    (Param("uni", "required", weights_any, "unigram concept weights u0,u1,u2 (required)"),
     Param("bi", "required", weights_any, "concept weights v0,v1,v2 of every subquery of >= 2 "
           "terms (required)"), _MU,
     Param("method", "auto", one_of("auto", "lps_if_all", "eps_cdf_all"), "interval finder"),
     Param("max_prox_terms", 12, integer(2), "subqueries over at most this many highest-IDF "
           "terms (<= 20)"),
     Param("segment", None, optional_number, "PMI threshold: keep only the subqueries within "
           "one query segment (default: all)")),
    "tiebreak.retrieval.wfdm:wfdm",
    "M. Bendersky, D. Metzler and W. B. Croft, \"Learning concept importance using a weighted "
    "dependence model\", WSDM 2010 (generalised to FDM's subqueries)"))
register(Model(
    "sdm-seg", "SDM over the adjacent pairs within one query segment (adjacent PMI cut)",
    "dependency", ("stats", "positions"),
    (Param("weights", (0.8, 0.15, 0.05), weights3, "lambda_t, lambda_ow, lambda_uw"), _MU,
     Param("window", 8, integer(1), "#uwN window of the bigrams"),
     Param("method", "auto", one_of("auto", "lps_if_all", "eps_cdf_all"), "interval finder"),
     Param("max_prox_terms", None, optional_integer(2), "window features over at most this "
           "many highest-IDF terms (default all, <= 62)"), _PMI),
    "tiebreak.retrieval.wfdm:sdm_seg", _SEG))
register(Model(
    "fdm-seg", "FDM over the subqueries within one query segment (adjacent PMI cut)",
    "dependency", ("stats", "positions"),
    (Param("weights", (0.8, 0.1, 0.1), weights3, "lambda_t, lambda_ow, lambda_uw"), _MU,
     Param("method", "auto", one_of("auto", "lps_if_all", "eps_cdf_all"), "interval finder"),
     Param("max_prox_terms", 12, integer(2), "window features over at most this many "
           "highest-IDF terms (<= 20)"), _PMI),
    "tiebreak.retrieval.wfdm:fdm_seg", _SEG))
for _n, _s in (("lkp", "local k-term proximity, all subqueries (Eq. 4.1-4.3)"),
               ("lkpf", "Lkp with intervals of length <= 4|Q'|"),
               ("l2p", "Lkp over adjacent query-term pairs")):
    register(Model(
        _n, _s, "dependency", ("stats", "positions", "intervals"),
        (_LAM, _K1, _B3,
         Param("method", "auto", one_of("auto", "lps_if_all", "eps_cdf_all"),
               "interval finder"),
         Param("max_prox_terms", 12 if _n != "l2p" else None,
               integer(2) if _n != "l2p" else optional_integer(2),
               "subqueries over at most this many highest-IDF terms"), _ALGO_BOUNDS),
        f"tiebreak.retrieval.dependency:{_n}", _LU))

_BCTP = ("S. Buettcher, C. L. A. Clarke and B. Lushman, \"Term proximity scoring for ad-hoc "
         "retrieval on very large text collections\", SIGIR 2006")
register(Model(
    "bctp", "BM25 + term-pair proximity of adjacent query-term occurrences (Eq. 2.9, 2.11)",
    "positional", ("stats", "positions"), (_K1, _B, _IDF_RW),
    "tiebreak.retrieval.positional:bctp", _BCTP))
register(Model(
    "rs", "BM25 + term-pair proximity 1/d^2 of pairs within a window (Eq. 2.9-2.10)",
    "positional", ("stats", "positions"),
    (_K1, _B, _IDF_RW, Param("window", 5, integer(1), "largest pair distance counted")),
    "tiebreak.retrieval.positional:rs",
    "Y. Rasolofo and J. Savoy, \"Term proximity scoring for keyword-based retrieval "
    "systems\", ECIR 2003"))
_INTERVAL_PARAMS = (_K1, _B, _IDF_RW, Param("lam", 1.0, in_range(0.0, 1.0),
                                            "weight of the proximity part"), _MAXP)
register(Model(
    "ht", "BM25 + sum over intervals of 1/(|I|-1) (Eq. 2.7; -p root=1: 1/sqrt(|I|-1))",
    "positional", ("stats", "positions", "intervals"),
    _INTERVAL_PARAMS + (Param("root", 0, one_of(0, 1), "1: the square-root variant"),),
    "tiebreak.retrieval.positional:ht",
    "D. Hawking and P. Thistlewaite, \"Proximity operators -- so near and yet so far\", "
    "TREC-4, 1995"))
register(Model(
    "cdr", "BM25 + cover density: w/|I| if |I| > w else 1, summed (Eq. 2.8)", "positional",
    ("stats", "positions", "intervals"),
    _INTERVAL_PARAMS + (Param("w", 16, integer(1), "cover length scored 1"),),
    "tiebreak.retrieval.positional:cdr",
    "C. L. A. Clarke, G. V. Cormack and E. A. Tudhope, \"Relevance ranking for one to three "
    "term queries\", IP&M 36(2), 2000"))
register(Model(
    "vdv", "BM25 + sum over intervals of (|I cap Q|-1)/(|I|-1) (Eq. 2.13)", "positional",
    ("stats", "positions", "intervals"), _INTERVAL_PARAMS,
    "tiebreak.retrieval.positional:vdv",
    "J. B. P. Vuurens and A. P. de Vries, \"Distance matters! Cumulative proximity expansions "
    "for ranking documents\", Information Retrieval 17(4), 2014"))
_TZ = ("T. Tao and C. Zhai, \"An exploration of proximity measures in information retrieval\", "
       "SIGIR 2007")
for _n, _s in (("mindist", "min"), ("maxdist", "max"), ("avgdist", "mean")):
    register(Model(
        _n, f"BM25 + sum over subqueries of log(1 + exp(-delta)/alpha), delta the {_s} "
        "interval length (Table 4.1)", "positional", ("stats", "positions", "intervals"),
        (_K1, _B, _IDF_RW, Param("alpha", 0.3, in_range(1e-300, math.inf, why="exp(-delta) / alpha "
                                                  "overflows below it"),
                                 "Tao & Zhai's alpha"), _MAXP),
        f"tiebreak.retrieval.positional:{_n}", _TZ))
register(Model(
    "sumdist", "BM25 + lam * sum over subqueries and intervals of 1/|I| (Table 4.1 "
    "Summation^1; -p root=1: 1/sqrt|I|, Summation^2)", "positional",
    ("stats", "positions", "intervals"),
    _INTERVAL_PARAMS + (Param("root", 0, one_of(0, 1), "1: Summation^2"),),
    "tiebreak.retrieval.positional:sumdist", _TZ))
register(Model(
    "amortized", "BM25 + per-term BM25 saturation of sum |Q'|^lam_q / |I|^gamma over the "
    "intervals holding the term (Table 4.1 Amortized)", "positional",
    ("stats", "positions", "intervals"),
    (_K1, _B, _IDF_RW, Param("lam_q", 2.0, in_range(0.0, math.inf), "exponent of |Q'|"),
     Param("gamma", 1.0, in_range(0.0, math.inf), "exponent of |I|"), _MAXP),
    "tiebreak.retrieval.positional:amortized",
    "R. Song, M. J. Taylor, J.-R. Wen, H.-W. Hon and Y. Yu, \"Viewing term proximity from a "
    "different perspective\", ECIR 2008"))

register(Model(
    "tpspan", "BM25 with tf replaced by the relevance contribution n^lam / width^gamma of the "
    "expanded spans holding the term (Eq. 2.12)", "positional", ("stats", "positions"),
    (_K1, _B, _IDF_RW, Param("max_dis", 45, integer(1), "largest gap inside a span; the width "
                             "of a one-hit span"),
     Param("lam", 2.0, in_range(0.0, math.inf), "exponent of the span's number of hits"),
     Param("gamma", 1.0, in_range(0.0, math.inf), "exponent of the span's width")),
    "tiebreak.retrieval.spans:tpspan",
    "R. Song, M. J. Taylor, J.-R. Wen, H.-W. Hon and Y. Yu, \"Viewing term proximity from a "
    "different perspective\", ECIR 2008"))

register(Model(
    "plm", "positional language model, Dirichlet smoothing, over the query-term positions: "
    "best position, multi-position (-p top=k) or multi-sigma with sigma=inf (-p beta=b)",
    "positional", ("stats", "positions"),
    (Param("sigma", 175.0, in_range(0.0, math.inf, lo_open=True), "kernel width"),
     Param("mu", 2000.0, in_range(0.0, math.inf, lo_open=True), "Dirichlet prior"),
     Param("kernel", "gaussian", one_of("gaussian", "triangle", "cosine", "circle", "passage"),
           "propagation kernel"),
     Param("top", 1, integer(1), "mean of the top best position scores (1: best position)"),
     Param("beta", 0.0, in_range(0.0, 1.0), "multi-sigma: weight of sigma = infinity")),
    "tiebreak.retrieval.positional:plm",
    "Y. Lv and C. Zhai, \"Positional language models for information retrieval\", SIGIR 2009"))

_PENG = ("J. Peng, C. Macdonald, B. He, V. Plachouras and I. Ounis, \"Incorporating term "
         "dependency in the divergence from randomness framework\", SIGIR 2007 (Terrier's "
         "pBiL / pBiL2)")
for _n, _s in (("pdfr", "pBiL: binomial randomness against the document"),
               ("bdfr", "pBiL2: Norm2-normalised count against the average document length")):
    register(Model(
        _n, f"BM25 + lam * DFR term dependence of query-term pairs in #uw windows, {_s}",
        "positional", ("stats", "positions", "intervals"),
        (_K1, _B, _IDF_RW, Param("lam", 1.0, in_range(0.0, 1.0), "weight of the DFR part"),
         Param("window", 5, integer(2), "window length"),
         Param("pairs", "adjacent", one_of("adjacent", "all"), "adjacent pairs (SD) or all"),
         Param("max_prox_terms", 12, integer(2), "pairs over at most this many highest-IDF "
               "terms"),
         Param("base", "bm25", one_of("bm25", "pl2", "dph", "dfr_bm25"),
               "unigram part: BM25 (k1, b, idf) or a DFR model at its defaults")),
        f"tiebreak.retrieval.positional:{_n}", _PENG))

register(Model(
    "bm25p", "BM25 + lam * BM25 weight of the number of w-token windows holding both terms of "
    "each adjacent (or every) query-term pair: BM25P with n-gram counting", "positional",
    ("stats", "positions"),
    (Param("k1", 1.2, in_range(0.0, math.inf), "BM25 term-frequency saturation (both parts)"),
     Param("b", 0.75, in_range(0.0, 1.0), "BM25 length normalisation (both parts)"),
     Param("idf", "rsj", one_of("rsj", "rw", "lucene"), "idf of terms and pairs"),
     Param("lam", 1.0, in_range(0.0, math.inf), "weight of the proximity part"),
     Param("window", 5, integer(2), "window length w in tokens"),
     Param("pairs", "adjacent", one_of("adjacent", "all"), "adjacent pairs (SD) or all")),
    "tiebreak.retrieval.he2011:bm25p",
    "B. He, J. X. Huang and X. Zhou, \"Modeling term proximity for probabilistic information "
    "retrieval models\", Information Sciences 181(14), 3017-3031, 2011 (formula read from the "
    "first author's Terrier code, NC)", aliases=("he-window",)))

_TP = "tiebreak.retrieval.termpairs"
register(Model(
    "fagan", "tf x idf cosine + statistical phrases: each pair of query terms within a window "
    "is a cosine dimension weighted (1 + ln tf_p) idf_p", "positional", ("stats", "positions"),
    (Param("lam", 1.0, in_range(0.0, math.inf), "weight of the phrase dimensions"),
     Param("window", 5, integer(1), "largest position difference of a phrase's terms"),
     Param("pairs", "all", one_of("all", "adjacent"), "every pair of query terms or adjacent")),
    f"{_TP}:fagan",
    "J. L. Fagan, \"Experiments in automatic phrase indexing for document retrieval\", PhD "
    "thesis, Cornell University, 1987"))
_LM_MU = Param("mu", 2000.0, in_range(0.0, math.inf, lo_open=True), "unigram Dirichlet prior")
_LM_LAM = Param("lam", 0.1, in_range(0.0, 1.0, hi_open=True),
                "weight of the bigram / biterm probability")
register(Model(
    "bigram_lm", "bigram language model: log P(t1|D) + sum log((1-lam) P(ti|D) + "
    "lam c(t(i-1) ti; D)/c(t(i-1); D))", "positional", ("stats", "positions"),
    (_LM_MU, _LM_LAM), f"{_TP}:bigram_lm",
    "F. Song and W. B. Croft, \"A general language model for information retrieval\", "
    "CIKM 1999"))
register(Model(
    "biterm_lm", "biterm language model: the bigram model with order-free adjacent counts over "
    "min(c(t(i-1)), c(ti))", "positional", ("stats", "positions"),
    (_LM_MU, _LM_LAM), f"{_TP}:biterm_lm",
    "M. Srikanth and R. Srihari, \"Biterm language models for document retrieval\", "
    "SIGIR 2002"))
register(Model(
    "locality", "locality model: query-term occurrences spread h_t K(d/s) around them; the "
    "largest total at a query-term position", "positional", ("stats", "positions"),
    (Param("kernel", "triangle", one_of("triangle", "cosine", "circle", "arc"), "kernel shape"),
     Param("spread", 25.0, in_range(0.0, math.inf, lo_open=True), "spread s in positions")),
    f"{_TP}:locality",
    "O. de Kretser and A. Moffat, \"Effective document presentation with a locality-based "
    "similarity heuristic\", SIGIR 1999"))


def alias(name: str, model: str, fixed: dict) -> None:
    """Register ``name`` as ``model`` with the parameters ``fixed``."""
    if name in MODELS or name in ALIASES:
        raise ValueError(f"model name {name!r} is registered twice")
    ALIASES[name] = (model, dict(fixed))


def _table_3_1() -> None:
    from .configs import TABLE_3_1

    for n, (model, params) in TABLE_3_1.items():
        alias(n.lower() if n.startswith("BOW") else n.lower() + "31", model, params)


_table_3_1()   # bow, bow+ow, bow+uw, sdm31, fdm31: Lu (2018) Table 3.1 as stated
