"""Measure names as each peer tool spells them: one alias table per peer onto the registered
families, the way :mod:`.trec_names` maps trec_eval's names and :mod:`.ranx_names` ranx's.

``tiebreak eval --convention PEER`` (API: ``Evaluator(..., convention=PEER)``) reads every
``-m`` name as PEER spells it, with PEER's parameter syntax and defaults. A name that exists in
PEER means in tiebreak what it means there, or the parse fails with an error that states
PEER's meaning and tiebreak's spelling of it (:class:`ConventionError`). Without a convention
the mixed reading of :func:`tiebreak.measures.parse.parse_measure_list` applies (ir_measures
syntax, trec_eval and ranx names).

Peers (version the tables were checked against):

``trec_eval``
    trec_eval 10.0's ``-m`` names only (``map``, ``P.5,10``, ``ndcg_cut.10``, ``official``).
``ir_measures``
    ir_measures 0.4.3 syntax (``AP(rel=2)@10``, ``nDCG(dcg='exp-log2')@10``): ``SetP(relative=
    True)`` is trec_eval's set_relative_P (``SetRelP``); ``RBP`` without ``rel=`` is served by
    its trectools provider with the raw grade as gain (``RBP(graded=True)``); ``SetP`` and
    ``SetR`` take no cutoff in ir_measures either.
``ranx``
    ranx 0.3 names (``precision@10``, ``ndcg_burges@10``, ``rbp.95``, ``map@100-l2``); without
    ``@k`` a ranx metric covers the whole run (``precision`` = SetP, ``f1`` = SetF).
``ntcireval``
    NTCIREVAL's printed names (``Q-measure``, ``O-measure``, ``P-measure``, ``P-plus``,
    ``AP@0010``, ``Q@0010``, ``nDCG@0010``, ``MSnDCG@0010``, ``P@0010``, ``nERR@0010``,
    ``Hit@0010``, ``RR``, ``AP``, ``RBP``, ``ERR``, ``NCUgu,P``, ``NCUgu,BR``, ``NCUrb,P``,
    ``NCUrb,BR``) and pyNTCIREVAL's (``QMeasure``, ``OMeasure``, ``PMeasure``,
    ``PPlusMeasure``, ``Precision@k``, ``NCUguP``, ...), with its options ``g`` (``-g
    1:2:3``: the gain of levels L1, L2, ...; default each grade its own value), ``beta``
    (1), ``gamma`` (0.95), ``logb`` (2), ``rbp`` (0.95) and ``s`` (stop values; default the
    gains).
``trectools``
    trectools 0.0.50 ``TrecEval`` method calls: ``get_map(depth=1000)``,
    ``get_precision(depth=10)``, ``get_ndcg(depth=10)``, ``get_rbp(p=0.8)``, ...
``sklearn``
    scikit-learn's ``ndcg_score(k=10)``, ``dcg_score(k=10, log_base=2)``: per query, over the
    retrieved documents only (unjudged: relevance 0); the ideal of ``ndcg_score`` is the
    retrieved documents' own best order.
``spark``
    Spark MLlib ``RankingMetrics``: ``precisionAt(k)``, ``recallAt(k)``, ``ndcgAt(k)``
    (binary relevance), ``meanAveragePrecision``, ``meanAveragePrecisionAt(k)`` (normalised
    by min(R, k)).
``elasticsearch``
    The ``_rank_eval`` API's metrics: ``precision(k=10, relevant_rating_threshold=1)``,
    ``recall``, ``mean_reciprocal_rank``, ``dcg(k=10, normalize=false)``,
    ``expected_reciprocal_rank(maximum_relevance=3, k=10)``.
``cwl``
    cwl_eval 1.0.12's metric-file constructors (``NDCGCWLMetric(10)``, ``INSTCWLMetric(1.0)``,
    ``NERReq8CWLMetric(10)``, ...) and printed names (``NDCG-k@10``, ``INST-T=1.0``,
    ``NERR-EQ8@k=10``, ``TBG-H@224``, ``U-L@50``, ``BPM-Static-T=1-K=10``). Gains are the
    grades scaled to [0, 1] by the qrels' top grade, as ir_measures' cwl_eval provider hands
    them to cwl_eval: equal to cwl_eval itself on binary qrels (cwl_eval refuses gains above
    its ``--max_gain``, 1 by default, and reads them unscaled).
``sample_eval``
    NIST's sample_eval.pl (version of 10 Oct 2011) printed names over sampled qrels with
    strata: ``infAP`` (its xinfAP, smoothed with eps = 0.00001 and 3 eps: ``xinfAP(eps=0.00001,
    prior=1/3)``), ``infNDCG``, ``iP10``, ``iP50``, ``iP1000`` (any ``iP<k>``),
    ``inum_rel_ret``, ``inum_rel``, ``num_ret``, ``iprec@rec0.00`` ... ``iprec@rec1.00``
    (``infIPrec(recall=)``); its ``infNDCG`` is ``infNDCG(ideal_depth=
    1000)`` (the ideal DCG stops at rank 1000). It evaluates the top 1000 documents
    (``Evaluator(max_docs=1000)``), breaks ties as trec_eval and averages over the topics of
    the run (``--average run-topics``).

Size: one module because it is a table: one alias block per peer tool onto the one registry, read
together when a name is resolved.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from .errors import MeasureError
from .registry import Measure, family, make

__all__ = ["PEERS", "Convention", "ConventionError", "convention", "parse_with"]

PEERS = ("trec_eval", "ir_measures", "ranx", "ntcireval", "trectools", "sklearn", "spark",
         "elasticsearch", "cwl", "sample_eval")


class ConventionError(MeasureError):
    """A name that PEER spells but tiebreak cannot give PEER's meaning to, or does not know."""


def _err(peer: str, text: str, meaning: str, ours: str | None = None) -> ConventionError:
    tail = f"; tiebreak spells it {ours}" if ours else ""
    return ConventionError(f"{text} ({peer}): {meaning}{tail}")


def _m(fam: str, text: str, cutoff=None, **kw) -> Measure:
    kw = {k: v for k, v in kw.items() if v is not None}
    return make(family(fam), text, cutoff=cutoff, name=text, **kw)


def _peer_call(text: str, peer: str, what: str):
    """``(text stripped, name, positional, keyword)`` of a peer's call (:func:`_call`);
    ConventionError "``text`` is not ``what``" when it does not parse as one."""
    c = _call(text, peer)
    if c is None:
        raise ConventionError(f"{text!r} is not {what}")
    return (text.strip(), *c)


def _call(text: str, peer: str):
    """``name(args)`` with Python literal arguments -> (name, positional, keyword) or None."""
    mt = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*", text, re.S)
    if not mt:
        return None
    if mt.group(2) is None or not mt.group(2).strip():
        return mt.group(1), [], {}
    src = mt.group(2).replace("true", "True").replace("false", "False").replace("null", "None")
    try:
        call = ast.parse(f"f({src})", mode="eval").body
        args = [ast.literal_eval(a) for a in call.args]
        kw = {a.arg: ast.literal_eval(a.value) for a in call.keywords if a.arg}
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        raise ConventionError(f"{text} ({peer}): cannot read the arguments") from None
    return mt.group(1), args, kw


def _only(text, peer, kw, allowed):
    bad = sorted(set(kw) - set(allowed))
    if bad:
        raise ConventionError(f"{text} ({peer}): unknown argument(s) {bad}; "
                              f"{peer} takes {', '.join(allowed) or 'none'}")


# ---------------------------------------------------------------------------------------------
# trec_eval
# ---------------------------------------------------------------------------------------------

def _trec_eval(text: str, opts: dict) -> list[Measure]:
    from .trec_names import expand
    got = expand(text)
    if got is None:
        raise ConventionError(f"{text!r} is not a trec_eval measure name (trec_eval -m: map, "
                              "P.10, ndcg_cut.10, recip_rank, official, ...)")
    return got


# ---------------------------------------------------------------------------------------------
# ir_measures
# ---------------------------------------------------------------------------------------------

_IRM = re.compile(r"^(\w+)\s*(?:\((.*)\))?\s*(?:@\s*(\S+))?$", re.S)

#: ir_measures 0.4.3's measure names (case-sensitive, aliases included) -> tiebreak's family
IRM_NAMES = {
    "AP": "AP", "MAP": "AP", "AP_IA": "AP_IA", "MAP_IA": "AP_IA", "Accuracy": "Accuracy",
    "BPM": "BPM", "BPref": "bpref", "Bpref": "bpref", "Compat": "Compat", "ERR": "ERR",
    "ERR_IA": "ERR_IA", "INSQ": "INSQ", "INST": "INST", "IPrec": "IPrec", "Judged": "Judged",
    "MRR": "RR", "NDCG": "nDCG", "NERR8": "NERR8", "NERR9": "NERR9", "NERR10": "NERR10",
    "NERR11": "NERR11", "NRBP": "NRBP", "NumQ": "NumQ", "NumRel": "NumRel",
    "NumRelRet": "NumRelRet", "NumRet": "NumRet", "P": "P", "Precision": "P", "P_IA": "P_IA",
    "R": "R", "Recall": "R", "RBP": "RBP", "RPrec": "Rprec", "Rprec": "Rprec", "RR": "RR",
    "SDCG": "SDCG", "SetAP": "SetAP", "SetF": "SetF", "SetP": "SetP", "SetR": "SetR",
    "SetRelP": "SetRelP", "StRecall": "StRecall", "Success": "Success",
    "alpha_DCG": "alpha_DCG", "alpha_nDCG": "alpha_nDCG", "\u03b1_DCG": "alpha_DCG",
    "\u03b1_nDCG": "alpha_nDCG", "infAP": "infAP", "nDCG": "nDCG", "nERR_IA": "nERR_IA",
    "nNRBP": "nNRBP",
}


def _user_defined(name: str) -> bool:
    """A measure :func:`tiebreak.define_measure` registered: every convention reads its name
    as defined."""
    from .user import user_measures
    return name in user_measures()


def _ir_measures(text: str, opts: dict) -> list[Measure]:
    from .parse import parse_measure_list
    s = text.strip()
    mt = _IRM.match(s)
    if mt is not None and _user_defined(mt.group(1)):
        return parse_measure_list(s)
    if mt is None or mt.group(1) not in IRM_NAMES:
        raise ConventionError(f"{text!r} is not an ir_measures measure (ir_measures 0.4.3 "
                              "names are case-sensitive: AP, nDCG@10, P(rel=2)@5, RBP(p=0.8), "
                              "SetP, Bpref, ...)")
    name = IRM_NAMES[mt.group(1)]
    args = mt.group(2) or ""
    kw = _call(f"f({args})", "ir_measures")[2] if args.strip() else {}
    cut = mt.group(3)
    if name in ("SetP", "SetR", "SetF", "SetAP", "SetRelP") and cut is not None:
        ours = "P" if name == "SetP" else "R" if name == "SetR" else None
        raise _err("ir_measures", text, f"ir_measures' {mt.group(1)} is a set measure over "
                   "every retrieved document and takes no cutoff (ir_measures rejects "
                   "'unsupported params: cutoff')",
                   f"{ours}({args})@{cut}" if ours else None)
    if name == "SetP" and kw.pop("relative", False):
        name = "SetRelP"
    kw.pop("relative", None)
    if name == "RBP" and "rel" not in kw and "gains" not in kw:
        # ir_measures serves RBP without rel= by its trectools provider: raw grades as gains
        kw["graded"] = True
    if name == "Compat" and kw.pop("normalize", True) is not True:
        raise _err("ir_measures", text, "Compat(normalize=False) is RBO with the ideal ranking "
                   "without the normalisation for finite ideal rankings; tiebreak has only the "
                   "normalised form", "Compat(p=...)")
    if name == "Compat":  # ir_measures' ideal ranking (unretrieved relevant documents at 0)
        kw.setdefault("ideal", "ir_measures")
    inner = ",".join(f"{k}={v!r}" for k, v in kw.items())
    ours = name + (f"({inner})" if inner else "") + (f"@{cut}" if cut else "")
    return [m.with_(name=s) for m in parse_measure_list(ours)]


# ---------------------------------------------------------------------------------------------
# ranx
# ---------------------------------------------------------------------------------------------

_RANX_WHOLE = {"precision": "SetP", "f1": "SetF", "recall": "SetR", "hits": "Hits",
               "hit_rate": "Success", "mrr": "RR", "map": "AP", "ndcg": "nDCG", "dcg": "DCG"}


def _ranx(text: str, opts: dict) -> list[Measure]:
    from .ranx_names import RANX_NAMES, expand
    s = text.strip()
    mt = re.fullmatch(r"([a-z][a-z0-9_-]*?)(?:-l(\d+))?", s)
    if mt and mt.group(1) in _RANX_WHOLE:  # no @k: ranx evaluates the whole run
        kw = {"rel": int(mt.group(2))} if mt.group(2) else {}
        fam = _RANX_WHOLE[mt.group(1)]
        if fam in ("nDCG", "DCG") and kw:
            kw = {"gains": {g: 0 for g in range(kw["rel"])}}
        return [_m(fam, s, **kw)]
    got = expand(s)
    if got is None:
        mt = re.fullmatch(r"([a-z][a-z0-9_-]*?)(?:\.(\d+))?(?:@(\d+))?(?:-l(\d+))?", s)
        if mt and mt.group(1) in RANX_NAMES:
            from .parse import parse_measure_list
            name, _, cut, lvl = mt.groups()
            fam, fixed = RANX_NAMES[name]
            kw = dict(fixed)
            return [make(family(fam), s, cutoff=int(cut) if cut and int(cut) else None,
                         name=s, **kw)] if name != "rbp" else parse_measure_list(s)
        mu = _IRM.match(s)
        if mu is not None and _user_defined(mu.group(1)):
            from .parse import parse_measure_list
            return parse_measure_list(s)
        raise ConventionError(f"{text!r} is not a ranx metric (ranx: precision@10, "
                              "ndcg_burges@10, map@100-l2, rbp.95, mrr, ...)")
    return got


# ---------------------------------------------------------------------------------------------
# NTCIREVAL
# ---------------------------------------------------------------------------------------------

def _ntcir_gains(opts: dict):
    g = opts.get("g")
    if g is None:
        return None, None
    vals = [float(x) for x in str(g).split(":")] if isinstance(g, str) else [float(x)
                                                                             for x in g]
    if not vals or any(v < 0 for v in vals):
        raise ConventionError(f"ntcireval: -g {g}: gains must be non-negative numbers "
                              "gainL1:gainL2:...")
    table = {0: 0.0}
    table.update({i + 1: v for i, v in enumerate(vals)})
    # (a grade above the last level keeps its own value as gain: NTCIREVAL has no such level)
    return table, vals[-1]


_NT_NAMES = {  # NTCIREVAL / pyNTCIREVAL name -> (kind, takes cutoff)
    "RR": ("RR", "opt"), "O-measure": ("O", None), "OMeasure": ("O", None),
    "P-measure": ("Pm", None), "PMeasure": ("Pm", None), "P-plus": ("P+", None),
    "PPlusMeasure": ("P+", None), "AP": ("AP", "opt"), "Q-measure": ("Q", None),
    "QMeasure": ("Q", "opt"), "Q": ("Q", "req"), "NCUgu,P": ("NCU", ("gu", "P")),
    "NCUguP": ("NCU", ("gu", "P")), "NCUgu,BR": ("NCU", ("gu", "BR")),
    "NCUguBR": ("NCU", ("gu", "BR")), "NCUrb,P": ("NCU", ("rb", "P")),
    "NCUrbP": ("NCU", ("rb", "P")), "NCUrb,BR": ("NCU", ("rb", "BR")),
    "NCUrbBR": ("NCU", ("rb", "BR")), "RBP": ("RBP", None), "ERR": ("ERR", None),
    "nDCG": ("nDCG", "req"), "MSnDCG": ("MSnDCG", "req"), "P": ("P", "req"),
    "Precision": ("P", "req"), "nERR": ("nERR", "req"), "Hit": ("Hit", "req"),
}


def _ntcireval(text: str, opts: dict) -> list[Measure]:
    s = text.strip()
    name, _, cut = s.partition("@")
    if name not in _NT_NAMES:
        raise ConventionError(f"{text!r} is not an NTCIREVAL measure (ntcir_eval compute "
                              "prints: RR, O-measure, P-measure, P-plus, AP, Q-measure, "
                              "NCUgu,P, NCUgu,BR, NCUrb,P, NCUrb,BR, RBP, ERR, AP@k, Q@k, "
                              "nDCG@k, MSnDCG@k, P@k, nERR@k, Hit@k)")
    kind, c = _NT_NAMES[name]
    k = None
    if cut:
        if not re.fullmatch(r"\d+", cut) or int(cut) < 1:
            raise ConventionError(f"{text} (ntcireval): the cutoff must be a positive integer")
        if c is None or isinstance(c, tuple):
            raise _err("ntcireval", text, f"NTCIREVAL computes {name} without a cutoff")
        k = int(cut)
    elif c == "req":
        raise ConventionError(f"{text} (ntcireval): NTCIREVAL prints {name} at a cutoff, "
                              f"e.g. {name}@0010")
    gains, gmax = _ntcir_gains(opts)
    beta = float(opts.get("beta", 1.0))
    g = {"gains": gains}
    if kind == "RR":
        return [_m("RR", s, k)]
    if kind == "AP":
        return [_m("AP_b", s, k) if k is not None else _m("AP", s)]
    if kind == "Q":
        return [_m("Qmeasure", s, k, beta=beta, **g)]
    if kind == "O":
        return [_m("Omeasure", s, beta=beta, **g)]
    if kind == "Pm":
        return [_m("Pmeasure", s, beta=beta, **g)]
    if kind == "P+":
        return [_m("Pplus", s, beta=beta, **g)]
    if kind == "NCU":
        stops = opts.get("s")
        st = _ntcir_gains({"g": stops})[0] if stops else None
        return [_m("NCU", s, stop=c[0], utility=c[1], beta=beta,
                   gamma=float(opts.get("gamma", 0.95)), stops=st, **g)]
    if kind == "RBP":
        p = float(opts.get("rbp", 0.95))
        if gains is None:
            raise ConventionError(f"{text} (ntcireval): NTCIREVAL's RBP divides each gain by "
                                  "the gain of the top level: give the gain table (-g "
                                  "1:2:3) so it is known")
        return [_m("RBP", s, p=p, gains={lv: v / gmax for lv, v in gains.items()}
                   if gmax > 0 else {0: 0.0})]
    if kind == "ERR":
        return [_m("ERR_lin", s, **g)]
    if kind == "nDCG":
        logb = float(opts.get("logb", 2.0))
        if logb == 0:
            import math
            logb = math.e
        return [_m("nDCG_orig", s, k, logb=logb, **g)]
    if kind == "MSnDCG":
        return [_m("MSnDCG", s, k, **g)]
    if kind == "P":
        return [_m("P", s, k)]
    if kind == "nERR":
        return [_m("nERR", s, k, **g)]
    return [_m("Success", s, k)]  # Hit@k


# ---------------------------------------------------------------------------------------------
# trectools
# ---------------------------------------------------------------------------------------------

def _trectools(text: str, opts: dict) -> list[Measure]:
    c = _call(text, "trectools")
    if c is None or not c[0].startswith("get_"):
        raise ConventionError(f"{text!r} is not a trectools TrecEval method (trectools: "
                              "get_map(depth=1000), get_precision(depth=10), get_ndcg(depth=10), "
                              "get_rbp(p=0.8), ...)")
    name, args, kw = c
    s = text.strip()
    if args:
        raise ConventionError(f"{text} (trectools): give the arguments by name, e.g. "
                              f"{name}(depth=10)")
    kw.pop("per_query", None)
    depth = kw.pop("depth", 1000)
    jo = kw.pop("removeUnjudged", False)
    te = kw.pop("trec_eval", True)
    if not te:
        kw["trec_eval"] = te  # reported below where it matters
    extra = {"judged_only": True} if jo else {}
    simple = {"get_map": "AP", "get_precision": "P", "get_recall": "R",
              "get_reciprocal_rank": "RR", "get_ndcg": "nDCG"}
    if name in simple:
        _only(s, "trectools", kw, ["trec_eval"])
        if name == "get_ndcg" and not te:
            raise _err("trectools", text, "get_ndcg(trec_eval=False) uses exponential gains "
                       "2^rel - 1 and breaks ties by ascending docno",
                       f"nDCG(dcg='exp-log2')@{depth}")
        return [_m(simple[name], s, depth, **extra)]
    if name == "get_rprec":
        _only(s, "trectools", kw, [])
        return [_m("Rprec", s, **extra)]
    if name == "get_bpref":
        _only(s, "trectools", kw, [])
        if depth < 1000:
            _bad_depth(text)
        return [_m("bpref", s)]
    if name == "get_rbp":
        _only(s, "trectools", kw, ["p", "binary_topical_relevance", "average_ties"])
        return [_m("RBP", s, depth, p=float(kw.get("p", 0.8)),
                   graded=not kw.get("binary_topical_relevance", True))]
    if name == "get_unjudged":
        return [_m("unj", s, depth)]
    raise ConventionError(f"{text} (trectools): tiebreak has no alias for trectools' {name}")


def _bad_depth(text):
    raise _err("trectools", text, "trectools' get_bpref(depth=k) is bpref over the top k "
               "documents", "uBpref@k with the same qrels as the second qrels, or bpref with "
               "-M k")


# ---------------------------------------------------------------------------------------------
# scikit-learn
# ---------------------------------------------------------------------------------------------

def _sklearn(text: str, opts: dict) -> list[Measure]:
    c = _call(text, "sklearn")
    s = text.strip()
    if c is None or c[0] not in ("ndcg_score", "dcg_score"):
        raise ConventionError(f"{text!r}: tiebreak reads scikit-learn's ranking scores "
                              "ndcg_score(k=...) and dcg_score(k=..., log_base=...)")
    name, args, kw = c
    if args:
        raise ConventionError(f"{text} (sklearn): give k and log_base by name")
    kw.pop("ignore_ties", None)  # the tie regime is tiebreak's --regime
    if name == "dcg_score":
        _only(s, "sklearn", kw, ["k", "log_base"])
        return [_m("DCG_lu", s, kw.get("k"), discount="log",
                   base=float(kw.get("log_base", 2)))]
    _only(s, "sklearn", kw, ["k"])
    return [_m("nDCG_run", s, kw.get("k"))]


# ---------------------------------------------------------------------------------------------
# Spark MLlib RankingMetrics
# ---------------------------------------------------------------------------------------------

_BINARY = {g: 1.0 for g in range(1, 32)}  # Spark: every grade >= 1 is relevant


def _spark(text: str, opts: dict) -> list[Measure]:
    s, name, args, kw = _peer_call(text, "spark", "a Spark RankingMetrics method")
    if kw:
        raise ConventionError(f"{text} (spark): RankingMetrics methods take k positionally")
    k = args[0] if args else None
    need_k = {"precisionAt": "P", "recallAt": "R", "ndcgAt": "nDCG",
              "meanAveragePrecisionAt": "AP_b"}
    if name in need_k:
        if k is None:
            raise ConventionError(f"{text} (spark): {name} needs k, e.g. {name}(10)")
        if name == "ndcgAt":
            return [_m("nDCG", s, k, gains=_BINARY)]
        return [_m(need_k[name], s, k)]
    if name == "meanAveragePrecision":
        return [_m("AP", s)]
    raise ConventionError(f"{text!r} is not a Spark RankingMetrics method (precisionAt(k), "
                          "recallAt(k), ndcgAt(k), meanAveragePrecision, "
                          "meanAveragePrecisionAt(k))")


# ---------------------------------------------------------------------------------------------
# Elasticsearch _rank_eval
# ---------------------------------------------------------------------------------------------

def _elasticsearch(text: str, opts: dict) -> list[Measure]:
    s, name, args, kw = _peer_call(text, "elasticsearch", "an Elasticsearch rank_eval metric")
    if args:
        raise ConventionError(f"{text} (elasticsearch): give the parameters by name")
    k = kw.pop("k", 10)
    rel = kw.pop("relevant_rating_threshold", 1)
    if name in ("precision", "recall", "mean_reciprocal_rank"):
        if kw.pop("ignore_unlabeled", False):
            raise _err("elasticsearch", text, "precision with ignore_unlabeled=true counts "
                       "only the rated documents of the top k in the denominator")
        _only(s, "elasticsearch", kw, [])
        fam = {"precision": "P", "recall": "R", "mean_reciprocal_rank": "RR"}[name]
        return [_m(fam, s, k, rel=rel)]
    unk = kw.pop("unknown_doc_rating", None)
    if name == "dcg":
        norm = kw.pop("normalize", False)
        _only(s, "elasticsearch", kw, [])
        return [_m("nDCG" if norm else "DCG", s, k, dcg="exp-log2", unjudged=unk)]
    if name == "expected_reciprocal_rank":
        mx = kw.pop("maximum_relevance", None)
        if mx is None:
            raise ConventionError(f"{text} (elasticsearch): expected_reciprocal_rank needs "
                                  "maximum_relevance")
        _only(s, "elasticsearch", kw, [])
        _unknown(text, unk)
        return [_m("ERR", s, k, gmax=int(mx))]
    raise ConventionError(f"{text!r} is not an Elasticsearch rank_eval metric (precision, "
                          "recall, mean_reciprocal_rank, dcg, expected_reciprocal_rank)")


def _unknown(text, unk):
    if unk is not None:
        raise _err("elasticsearch", text, f"unknown_doc_rating={unk} rates every unrated "
                   f"document of the hits as {unk}; tiebreak takes it on dcg "
                   "(DCG/nDCG(unjudged=G)), not yet on expected_reciprocal_rank")


# ---------------------------------------------------------------------------------------------
# cwl_eval
# ---------------------------------------------------------------------------------------------

_CWL_CTOR = {"NDCGCWLMetric": ("SDCG", "k"), "INSTCWLMetric": ("INST", "T"),
             "INSQCWLMetric": ("INSQ", "T"), "NERReq8CWLMetric": ("NERR8", "k"),
             "NERReq9CWLMetric": ("NERR9", "k"), "NERReq10CWLMetric": ("NERR10", "p"),
             "NERReq11CWLMetric": ("NERR11", "T"), "TBGCWLMetric": ("TBG", "halflife"),
             "UMeasureCWLMetric": ("UMeasure", "L"), "BPMCWLMetric": ("BPM", "TK")}
_CWL_PRINTED = [
    (r"NDCG-k@(\d+)", "SDCG", "k"), (r"INST-T=([\d.]+)", "INST", "T"),
    (r"INSQ-T=([\d.]+)", "INSQ", "T"), (r"NERR-EQ8@k=(\d+)", "NERR8", "k"),
    (r"NERR-EQ9@k=(\d+)", "NERR9", "k"), (r"NERR-EQ10@phi=([\d.]+)", "NERR10", "p"),
    (r"NERR-EQ11@T=([\d.]+)", "NERR11", "T"), (r"TBG-H@([\d.]+)", "TBG", "halflife"),
    (r"U-L@([\d.]+)", "UMeasure", "L"), (r"BPM-Static-T=([\d.]+)-K=(\d+)", "BPM", "TK")]
_CWL_OTHER = {"P", "RBP", "RR", "AP", "PrecisionCWLMetric", "RBPCWLMetric", "RRCWLMetric",
              "APCWLMetric"}


def _cwl_measure(fam, key, vals, s):
    if key == "k":
        return _m(fam, s, int(vals[0]))
    if key == "TK":
        return _m(fam, s, int(vals[1]) if len(vals) > 1 else 10,
                  T=float(vals[0]) if vals else 1.0)
    return _m(fam, s, **({key: float(vals[0])} if vals else {}))


def _cwl(text: str, opts: dict) -> list[Measure]:
    s = text.strip()
    for pat, fam, key in _CWL_PRINTED:
        mt = re.fullmatch(pat, s)
        if mt:
            return [_cwl_measure(fam, key, mt.groups(), s)]
    c = _call(s, "cwl") if "(" in s else None
    if c and c[0] in _CWL_CTOR:
        fam, key = _CWL_CTOR[c[0]]
        vals = list(c[1]) + [v for _, v in sorted(c[2].items())]
        if key == "k" and not vals:
            vals = [10] if fam in ("NERR8", "NERR9") else [5]
        return [_cwl_measure(fam, key, vals, s)]
    base = re.split(r"[@(]", s)[0]
    if base in _CWL_OTHER:
        raise _err("cwl", text, "cwl_eval's P, RBP, RR and AP are C/W/L forms over the "
                   "graded gains read from the qrels as given (a gain, not a grade), with the "
                   "list padded to depth 1000; tiebreak's P, RBP, RR and AP are the binary "
                   "trec_eval forms")
    raise ConventionError(f"{text!r} is not a cwl_eval metric (cwl_eval: NDCGCWLMetric(10) / "
                          "NDCG-k@10, INSTCWLMetric(1.0), INSQCWLMetric(1.0), "
                          "NERReq8CWLMetric(10), TBGCWLMetric(224), ...)")


# ---------------------------------------------------------------------------------------------
# sample_eval (NIST)
# ---------------------------------------------------------------------------------------------

_SE_SMOOTH = {"eps": 0.00001, "prior": 1 / 3}


def _sample_eval(text: str, opts: dict) -> list[Measure]:
    s = text.strip()
    if s == "infAP":
        return [_m("xinfAP", s, **_SE_SMOOTH)]
    if s == "infNDCG":
        return [_m("infNDCG", s, ideal_depth=1000)]
    mt = re.fullmatch(r"iP(\d+)", s)
    if mt and int(mt.group(1)) > 0:
        return [_m("infP", s, int(mt.group(1)), **_SE_SMOOTH)]
    if s == "inum_rel_ret":
        return [_m("infNumRelRet", s, **_SE_SMOOTH)]
    if s == "inum_rel":
        return [_m("infNumRel", s)]
    if s == "num_ret":
        return [_m("NumRet", s)]
    mt = re.fullmatch(r"iprec@rec(\d(?:\.\d+)?)", s)
    if mt:
        x = float(mt.group(1))
        if not (0 <= x <= 1 and abs(x * 10 - round(x * 10)) < 1e-9):
            raise _err("sample_eval", text, "sample_eval prints interpolated precision at the "
                       "recall levels 0.00, 0.10, ..., 1.00 only")
        return [_m("infIPrec", s, recall=round(x, 1), **_SE_SMOOTH)]
    raise ConventionError(f"{text!r} is not a sample_eval measure (sample_eval prints: infAP, "
                          "infNDCG, iprec@rec0.00 ... iprec@rec1.00, iP10, iP50, iP1000, "
                          "inum_rel_ret, inum_rel, num_ret)")


# ---------------------------------------------------------------------------------------------

_PARSERS = {"trec_eval": _trec_eval, "ir_measures": _ir_measures, "ranx": _ranx,
            "ntcireval": _ntcireval, "trectools": _trectools, "sklearn": _sklearn,
            "spark": _spark, "elasticsearch": _elasticsearch, "cwl": _cwl,
            "sample_eval": _sample_eval}
_OPTIONS = {"ntcireval": ("g", "beta", "gamma", "logb", "rbp", "s")}


@dataclass(frozen=True)
class Convention:
    """A peer's spelling of measure names, with the peer's options (NTCIREVAL's ``g``,
    ``beta``, ``gamma``, ``logb``, ``rbp``, ``s``)."""

    peer: str
    options: dict = field(default_factory=dict)

    def parse(self, text: str) -> list[Measure]:
        """The measures ``text`` names in this peer's spelling (ConventionError if none)."""
        if not isinstance(text, str):
            raise TypeError(f"a measure name must be a string, not {type(text).__name__}")
        return _PARSERS[self.peer](text, self.options)


def convention(peer, **options) -> Convention:
    """The :class:`Convention` of ``peer`` (one of :data:`PEERS`), or ``peer`` itself when it
    is one already. Raises ValueError for an unknown peer or option."""
    if isinstance(peer, Convention):
        return peer if not options else Convention(peer.peer, {**peer.options, **options})
    if peer not in _PARSERS:
        raise ValueError(f"unknown convention {peer!r}; one of {', '.join(PEERS)}")
    options = {k: v for k, v in options.items() if v is not None}
    bad = sorted(set(options) - set(_OPTIONS.get(peer, ())))
    if bad:
        raise ValueError(f"convention {peer} takes no option(s) {bad}")
    return Convention(peer, options)


def parse_with(conv, names) -> list[Measure]:
    """Parse ``names`` (str or Measure) in a convention, in order, repeated names once."""
    c = convention(conv)
    out: list[Measure] = []
    seen = set()
    for n in names:
        ms = [n] if isinstance(n, Measure) else c.parse(n)
        for m in ms:
            if m not in seen:
                seen.add(m)
                out.append(m)
    return out
