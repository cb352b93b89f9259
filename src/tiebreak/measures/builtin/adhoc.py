"""Registry declarations of the ad hoc measure families of other traditions: C/W/L (cwl_eval),
NTCIREVAL, Lu (2018)'s depth variants, Accuracy, Compat and F1@k.

Each family is declared once; its kernel adapts a :class:`~tiebreak.ranking.Ranking` to the
flat-array kernels of :mod:`.cwl`, :mod:`.ntcir`, :mod:`.depth` and :mod:`.setbased` (which hold
the formulas, conventions and references). ir_measures names and parameters are used verbatim
where ir_measures has the measure (``INST(T=3.0,max_rel=3)``, ``SDCG(max_rel=3)@10``,
``NERR8(max_rel=3)@10``, ``Compat(p=0.95)``, ``Accuracy@10``); ``max_rel``, which ir_measures
requires, defaults here to the largest grade of the qrels.

Size: one module because it is a table of registry declarations (one short block per family), not
code paths.
"""

from __future__ import annotations

import numpy as np

from ..registry import JUDGED_ONLY, Family, MeasureError, Param, register
from . import core  # noqa: F401  (the core families register first)

# The kernel modules are imported when a family is first evaluated, not when the registry
# loads (it loads on every ``tiebreak eval``).

CWL = {
    "cwl": "A. Moffat, P. Bailey, F. Scholer, P. Thomas. Incorporating user expectations and "
           "behavior into the measurement of search effectiveness. ACM TOIS 35(3), 2017; "
           "L. Azzopardi, P. Thomas, A. Moffat. cwl_eval: An evaluation tool for information "
           "retrieval. SIGIR 2019.",
    "INST": "A. Moffat, P. Bailey, F. Scholer, P. Thomas. INST: An adaptive metric for "
            "information retrieval evaluation. ADCS 2015.",
    "INSQ": "A. Moffat, F. Scholer, P. Thomas. Models and metrics: IR evaluation as a user "
            "process. ADCS 2012.",
    "BPM": "F. Zhang, Y. Liu, X. Li, M. Zhang, Y. Xu, S. Ma. Evaluating web search with a "
           "bejeweled player model. SIGIR 2017.",
    "U": "T. Sakai, Z. Dou. Summaries, ranked retrieval and sessions: a unified framework for "
         "information access evaluation. SIGIR 2013.",
    "TBG": "M. D. Smucker, C. L. A. Clarke. Time-based calibration of effectiveness measures. "
           "SIGIR 2012.",
    "IFT": "L. Azzopardi, P. Thomas, N. Craswell. Measuring the utility of search engine result "
           "pages: an information foraging based measure. SIGIR 2018.",
    "NERR": "L. Azzopardi, J. Mackenzie, A. Moffat. ERR is not C/W/L: exploring the "
            "relationship between expected reciprocal rank and other metrics. ICTIR 2021.",
    "SDCG": "K. Jarvelin, J. Kekalainen. Cumulated gain-based evaluation of IR techniques. "
            "ACM TOIS 20(4), 2002 (scaled to a probability distribution as in cwl_eval).",
}
NT = {
    "Q": "T. Sakai. New performance metrics based on multigrade relevance: their application "
         "to question answering. NTCIR-4, 2004; T. Sakai. On the reliability of information "
         "retrieval metrics based on graded relevance. IP&M 43(2), 2007.",
    "P+": "T. Sakai. On penalising late arrival of relevant documents in information retrieval "
          "evaluation with graded relevance. EVIA 2007.",
    "O": "T. Sakai. Ranking the NTCIR systems based on multigrade relevance. AIRS 2004.",
    "nDCG": "K. Jarvelin, J. Kekalainen. Cumulated gain-based evaluation of IR techniques. "
            "ACM TOIS 20(4), 2002 (NTCIREVAL).",
    "ERR": "O. Chapelle, D. Metzler, Y. Zhang, P. Grinspan. Expected reciprocal rank for graded "
           "relevance. CIKM 2009 (linear-gain form as in Sakai's NTCIREVAL).",
}
LU = ("X. Lu. Efficient and effective retrieval using higher-order proximity models. PhD "
      "thesis, RMIT University, 2018, Section 2.4.3.")
ACCURACY = ("ir_measures' Accuracy (S. MacAvaney, C. Macdonald, I. Ounis. Streamlining "
            "evaluation with ir-measures. ECIR 2022).")
COMPAT = ("C. L. A. Clarke, A. Vtyurina, M. D. Smucker. Assessing top-k preferences. ACM TOIS "
          "39(3), 2021.")

# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def _prob(v):
    return None if 0 < v < 1 else "must lie strictly between 0 and 1"


def _pos(v):
    return None if v > 0 else "must be > 0"


def _nonneg(v):
    return None if v >= 0 else "must be >= 0"


REL = Param("rel", "int", 1, "relevance level: a judged document is relevant when its qrels "
            "value >= rel")
MIN_REL = Param("min_rel", "int", 0, "grade mapped to gain 0 (ir_measures min_rel)")
MAX_REL = Param("max_rel", "int", None, "grade mapped to gain 1 (ir_measures max_rel; default "
                "the largest grade of the qrels)")
GAINS = Param("gains", "gains", None, "gain of each relevance grade; unmapped grades keep "
              "their own value")


def _top_grade(R) -> int:
    return max(int(R.rel_levels.shape[1]) - 1, 1)


def _cwl_gain(R, m) -> np.ndarray:
    """cwl_eval gains in [0, 1] per position (promoted unjudged documents: 1)."""
    lo = m["min_rel"]
    hi = m["max_rel"] if m["max_rel"] is not None else _top_grade(R)
    if not hi > lo:
        raise MeasureError(f"{m}: max_rel ({hi}) must be greater than min_rel ({lo})")

    def fn(c, t):
        g = np.clip(np.maximum(c, 0).astype(np.float64), lo, hi)
        return np.where(c >= 0, (g - lo) / (hi - lo), 0.0)
    return R.per_position(("cwl_gain", lo, hi), fn)


def _judged(R) -> np.ndarray:
    return R.judged


def _level_gain(R, gains) -> np.ndarray:
    """Gain of each relevance value 0..L-1 under a ``gains`` map (unmapped: the value)."""
    L = R.rel_levels.shape[1]
    table = dict(gains) if gains is not None else {}
    return np.array([float(table.get(v, v)) for v in range(L)])


def _ideal(R, gains, positive_level=1) -> tuple[np.ndarray, np.ndarray]:
    """Ideal list (ideal_topic, ideal_gain) from the qrels' grade counts: every judged document
    with value >= positive_level and a positive gain, gain descending."""
    def make():
        lg = _level_gain(R, gains)
        L = len(lg)
        lv = np.arange(L)
        ok = (lv >= positive_level) & (lg > 0)
        order = lv[ok][np.argsort(-lg[ok], kind="stable")]
        counts = R.rel_levels[:, order]
        T = R.n_topics
        it = np.repeat(np.repeat(np.arange(T), len(order)), counts.ravel())
        ig = np.repeat(np.tile(lg[order], T), counts.ravel())
        return it, ig
    return R.cached(("adhoc_ideal", gains, positive_level), make)


def _grade_gain(R, gains) -> np.ndarray:
    """Per-position gain of the qrels value under ``gains`` (unjudged 0; promoted: top)."""
    lg = _level_gain(R, gains)
    L = len(lg)

    def fn(c, t):
        v = np.clip(c, 0, L - 1)
        return np.where(c >= 0, lg[v], 0.0)
    return R.per_position(("adhoc_gain", gains), fn)


# ---------------------------------------------------------------------------------------------
# C/W/L
# ---------------------------------------------------------------------------------------------

def _cwl_kernel(fname: str, **fixed):
    def kernel(R, m):
        from .. import cwl
        fn = getattr(cwl, fname)
        kw = {p: m[p] for p in ("T", "p", "halflife", "L", "b1", "R1", "A", "b2", "R2", "hb",
                                "gain_med") if _has(m, p)}
        kw.update(fixed)
        if m.family.cutoff == "required":
            kw["K" if fname == "bpm" else "k"] = m.cutoff
        if "residual" in fixed:
            kw["judged"] = _judged(R)
        return fn(R.topic, R.rank, _cwl_gain(R, m), R.n_topics, **kw)
    return kernel


def _has(m, p) -> bool:
    return any(k == p for k, _ in m.values)


T_GOAL = Param("T", "float", 1.0, "expected total gain T", _pos)
CWL_FAMILIES = [
    ("INST", "inst", (T_GOAL,), "none", "sampled", "other",
     "adaptive C/W/L: C(i) = ((i+T+T_i-1)/(i+T+T_i))^2, T_i = T - gain so far",
     CWL["INST"]),
    ("INSQ", "insq", (T_GOAL,), "none", "linear", "monotone",
     "C/W/L: C(i) = ((i+2T-1)/(i+2T))^2", CWL["INSQ"]),
    ("SDCG", "sdcg", (Param("dcg", "str", "log2", "DCG form (log2 only)",
                              lambda v: None if v == "log2" else "must be 'log2'"),),
     "required", "linear", "monotone",
     "scaled DCG@k: sum_{i<=k} g_i/log2(1+i) / sum_{i<=k} 1/log2(1+i)", CWL["SDCG"]),
    ("BPM", "bpm", (T_GOAL,), "required", "sampled", "other",
     "bejeweled player model: read on while gain < T and documents < k",
     CWL["BPM"]),
    ("NERR8", "nerr8", (), "required", "sampled", "other",
     "C/W/L near-ERR: C(i) = 1 - g_i for i < k", CWL["NERR"]),
    ("NERR9", "nerr9", (), "required", "sampled", "other",
     "C/W/L near-ERR: C(i) = i/(i+1) (1 - g_i) for i < k", CWL["NERR"]),
    ("NERR10", "nerr10", (Param("p", "float", 0.9, "persistence", _prob),), "none",
     "sampled", "other", "C/W/L near-ERR: C(i) = p (1 - g_i)", CWL["NERR"]),
    ("NERR11", "nerr11", (T_GOAL,), "none", "sampled", "other",
     "C/W/L near-ERR: C(i) = ((i+2T-1)/(i+2T))^2 (1 - g_i)", CWL["NERR"]),
    ("TBG", "tbg", (Param("halflife", "float", 224.0, "half-life h (in documents)", _pos),),
     "none", "linear", "monotone", "time-biased gain: W(i) proportional to 2^(-(i-1)/h)",
     CWL["TBG"]),
    ("UMeasure", "umeasure", (Param("L", "float", 1000.0, "reading budget L", _pos),),
     "none", "linear", "monotone", "U-measure: W(i) proportional to max(0, 1 - (i-1)/L)",
     CWL["U"]),
    ("IFT", "ift", (Param("T", "float", None, "goal gain T"),
                      Param("b1", "float", None, "goal intercept b1"),
                      Param("R1", "float", None, "goal rationality R1"),
                      Param("A", "float", None, "expected rate of gain A"),
                      Param("b2", "float", None, "rate intercept b2"),
                      Param("R2", "float", None, "rate rationality R2")),
     "none", "sampled", "other", "information-foraging C/W/L measure (goal and/or rate)",
     CWL["IFT"]),
]

for _name, _fn, _params, _cut, _exp, _kind, _doc, _src in CWL_FAMILIES:
    _ps = (*_params, MIN_REL, MAX_REL)
    register(Family(_name, _doc + " (cwl_eval, D = 1000 ranks)", _kind, _cwl_kernel(_fn),
                    _ps, _cut, _exp, source=_src))
    register(Family(_name + "_resid", f"cwl_eval residual of {_name}: value with unjudged "
                    "and missing ranks at gain 1 minus the value", "residual",
                    _cwl_kernel(_fn, residual=True), _ps, _cut,
                    "linear" if _exp == "linear" else "sampled", source=CWL["cwl"]))

# ---------------------------------------------------------------------------------------------
# NTCIREVAL
# ---------------------------------------------------------------------------------------------

BETA = Param("beta", "float", 1.0, "weight of the gain in the blended ratio", _nonneg)
LOGB = Param("logb", "float", 2.0, "log base b of the original discount (rank < b: 1)",
             lambda v: None if v > 1 else "must be > 1")


def _ntcir_args(R, m):
    gains = m["gains"]
    g = _grade_gain(R, gains)
    it, ig = _ideal(R, gains, 1)
    nrel = R.num_rel(1)
    gmax = float(_level_gain(R, gains)[-1]) if R.rel_levels.shape[1] > 1 else 1.0
    return g, it, ig, nrel, gmax


def _k_q(R, m):
    from .. import ntcir
    g, it, ig, nrel, _ = _ntcir_args(R, m)
    return ntcir.q_measure(R.topic, R.rank, g, R.n_topics, it, ig, nrel, m["beta"], m.cutoff)


def _k_o(R, m):
    from .. import ntcir
    g, it, ig, _, _ = _ntcir_args(R, m)
    return ntcir.o_measure(R.topic, R.rank, g, R.n_topics, it, ig, m["beta"])


def _k_p(R, m):
    from .. import ntcir
    g, it, ig, _, _ = _ntcir_args(R, m)
    return ntcir.p_measure(R.topic, R.rank, g, R.n_topics, it, ig, m["beta"])


def _k_pplus(R, m):
    from .. import ntcir
    g, it, ig, _, _ = _ntcir_args(R, m)
    return ntcir.p_plus(R.topic, R.rank, g, R.n_topics, it, ig, m["beta"])


def _k_ndcg_orig(R, m):
    from .. import ntcir
    g, it, ig, _, _ = _ntcir_args(R, m)
    return ntcir.ndcg(R.topic, R.rank, g, R.n_topics, it, ig, m.cutoff, m["logb"])


def _k_msndcg(R, m):
    from .. import ntcir
    g, it, ig, _, _ = _ntcir_args(R, m)
    return ntcir.ndcg(R.topic, R.rank, g, R.n_topics, it, ig, m.cutoff, microsoft=True)


def _k_nerr(R, m):
    from .. import ntcir
    g, it, ig, _, gmax = _ntcir_args(R, m)
    return ntcir.nerr(R.topic, R.rank, g, R.n_topics, it, ig, gmax, m.cutoff)


def _k_err_lin(R, m):
    from .. import ntcir
    g, _, _, _, gmax = _ntcir_args(R, m)
    return ntcir.err(R.topic, R.rank, g, R.n_topics, gmax, m.cutoff)


register(Family("Qmeasure", "Q-measure: sum over relevant ranks r <= k of BR(r) / min(R, k)",
                "normalised", _k_q, (BETA, GAINS), source=NT["Q"], aliases=("QM",),
                expected="sampled"))
register(Family("Omeasure", "O-measure: BR-like ratio at the first relevant rank",
                "normalised", _k_o, (BETA, GAINS), "none", "sampled", source=NT["O"]))
register(Family("Pmeasure", "P-measure: BR at the first rank of the list's highest grade",
                "normalised", _k_p, (BETA, GAINS), "none", "sampled", source=NT["P+"]))
register(Family("Pplus", "P+-measure: mean BR over relevant ranks up to the preferred rank",
                "normalised", _k_pplus, (BETA, GAINS), "none", "sampled", source=NT["P+"]))
register(Family("nDCG_orig", "nDCG with the original Jarvelin-Kekalainen discount "
                "(NTCIREVAL nDCG)", "normalised", _k_ndcg_orig, (LOGB, GAINS),
                expected="sampled", source=NT["nDCG"]))
register(Family("MSnDCG", "nDCG with the 1/log(r+1) discount and linear gains (NTCIREVAL)",
                "normalised", _k_msndcg, (GAINS,), expected="sampled", source=NT["nDCG"]))
register(Family("nERR", "ERR@k / ERR@k of the ideal list, stop probability g/(gmax+1) "
                "(NTCIREVAL)", "normalised", _k_nerr, (GAINS,), expected="sampled",
                source=NT["ERR"]))
register(Family("ERR_lin", "ERR with the linear stop probability g/(gmax+1) (NTCIREVAL ERR)",
                "monotone", _k_err_lin, (GAINS,), expected="sampled", source=NT["ERR"]))


def _k_ndcg_run(R, m):
    from ...ranking._flat import div, ideal_ranks, tsum, within
    g = np.maximum(_grade_gain(R, m["gains"]), 0.0)
    k = m.cutoff
    num = tsum(R.topic, g / np.log2(R.rank + 1.0), R.n_topics, within(R.rank, k))
    order = np.lexsort((-g, R.topic))
    it, ig = R.topic[order], g[order]
    ir = ideal_ranks(it, R.n_topics)
    den = tsum(it, ig / np.log2(ir + 1.0), R.n_topics, within(ir, k))
    return div(num, den)


register(Family("nDCG_run", "DCG@k / DCG@k of the retrieved documents' own best order "
                "(scikit-learn ndcg_score: the ideal knows only the scored documents; grades as "
                "gains, unjudged 0)", "other", _k_ndcg_run, (GAINS,), expected="sampled",
                source="K. Jarvelin, J. Kekalainen. Cumulated gain-based evaluation of IR "
                       "techniques. ACM TOIS 20(4), 2002; scikit-learn's ndcg_score "
                       "(F. Pedregosa et al. JMLR 12, 2011)."))

def _k_ncu(R, m):
    from .. import ntcir
    g, it, ig, nrel, _ = _ntcir_args(R, m)
    stops = m["stops"] if m["stops"] is not None else m["gains"]
    st = _grade_gain(R, stops)
    lg = _level_gain(R, stops)
    total = R.rel_levels[:, 1:] @ lg[1:] if len(lg) > 1 else np.zeros(R.n_topics)
    beta = 0.0 if m["utility"] == "P" else m["beta"]
    gamma = m["gamma"] if m["stop"] == "rb" else None
    return ntcir.ncu(R.topic, R.rank, g, st, R.n_topics, it, ig, nrel, total, beta, gamma,
                     rel=None)


NCU_SRC = ("T. Sakai, S. Robertson. Modelling a user population for designing information "
           "retrieval metrics. EVIA 2008 (NTCIREVAL NCUgu,P / NCUgu,BR / NCUrb,P / NCUrb,BR).")
register(Family("NCU", "normalised cumulative utility: sum over relevant ranks r of the stop "
                "probability at r (graded-uniform 'gu' or rank-biased 'rb') times the utility "
                "at r (precision 'P' or blended ratio 'BR')", "normalised", _k_ncu,
                (Param("stop", "str", "gu", "stopping distribution: 'gu' graded-uniform (stop "
                       "value of the level / their sum over the qrels) or 'rb' rank-biased",
                       lambda v: None if v in ("gu", "rb") else "must be 'gu' or 'rb'"),
                 Param("utility", "str", "BR", "utility at the stopping rank: 'P' precision or "
                       "'BR' blended ratio", lambda v: None if v in ("P", "BR") else
                       "must be 'P' or 'BR'"),
                 BETA, Param("gamma", "float", 0.95, "rank-biased stop parameter (NTCIREVAL "
                             "--gamma)", lambda v: None if 0 < v <= 1 else "must lie in (0, 1]"),
                 GAINS, Param("stops", "gains", None, "stop value of each grade (NTCIREVAL -s; "
                              "default the gains)")),
                "none", "sampled", source=NCU_SRC))

# ---------------------------------------------------------------------------------------------
# Lu (2018) depth variants
# ---------------------------------------------------------------------------------------------

DISC = Param("discount", "str", "log", "rank discount: log, log_shift, jarvelin, zipf, linear",
             lambda v: _check_discount(v))
BASE = Param("base", "float", 2.0, "log base", lambda v: None if v > 1 else "must be > 1")


def _check_discount(v):
    from ..depth import DISCOUNTS
    return None if v in DISCOUNTS else "must be one of " + ", ".join(DISCOUNTS)


def _rel_bool(R, level):
    return np.asarray(R.rel(level)) > 0.5


def _k_ap_b(R, m):
    from .. import depth
    lv = m["rel"]
    return depth.ap_b(R.topic, R.rank, _rel_bool(R, lv), R.n_topics, m.cutoff, R.num_rel(lv))


def _c_ap_b(G, m, k):
    from .. import depth
    lv = m["rel"]
    R_ = G.rel_levels[:, max(lv, 0):].sum(axis=1)
    s = depth.e_ap_sum(G.topic, G.rank, G.rel(lv), G.n_topics, G.gid, G.g_first, G.g_size, k)
    norm = R_ if m.cutoff is None else np.minimum(R_, m.cutoff)
    return np.divide(s, norm, out=np.zeros(len(s)), where=norm > 0)


def _k_ap_c(R, m):
    from .. import depth
    return depth.ap_c(R.topic, R.rank, _rel_bool(R, m["rel"]), R.n_topics, m.cutoff)


def _k_dcg_lu(R, m):
    from .. import depth
    from ..kernels import gains_at
    g = gains_at(R, m["gains"])
    return depth.dcg(R.topic, R.rank, g, R.n_topics, m.cutoff, m["discount"], m["base"])


def _k_ndcg_a(R, m):
    from .. import depth
    from ..kernels import gains_at
    g = gains_at(R, m["gains"])
    it, ig = _ideal(R, m["gains"], 0)
    return depth.ndcg(R.topic, R.rank, g, R.n_topics, it, ig, m.cutoff, m["discount"],
                      m["base"])


def _k_ndcg_b(R, m):
    from .. import depth
    from ..kernels import gains_at
    g = gains_at(R, m["gains"])
    it, ig = depth.ideal_from_pool(R.topic, R.rank, g, R.n_topics, m.cutoff)
    return depth.ndcg(R.topic, R.rank, g, R.n_topics, it, ig, m.cutoff, m["discount"],
                      m["base"])


def _k_err_resid(R, m):
    from .. import depth
    gm = float(m["gmax"])
    stop = R.per_position(("err_stop4", gm), lambda c, t: depth.err_stop(
        np.where(c >= 0, np.minimum(c, gm), 0), c >= 0, gm))
    smax = (2.0 ** gm - 1.0) / 2.0 ** gm
    return depth.err_residual(R.topic, R.rank, stop, np.asarray(R.unjudged) < 0.5, R.n_topics,
                              smax, m.cutoff)


register(Family("AP_b", "AP at depth k normalised by min(R, k) (Lu 2018; NTCIREVAL AP@k, "
                "Spark MAP@k)", "normalised", _k_ap_b, (REL,), "optional", "closed", _c_ap_b,
                source=LU))
register(Family("AP_c", "AP at depth k normalised by the relevant documents in the top k",
                "normalised", _k_ap_c, (REL,), "required", "sampled", source=LU))
register(Family("DCG_lu", "DCG@k with a chosen discount (log, log_shift, Jarvelin, Zipf, "
                "linear; Lu 2018 Table 2.4)", "monotone", _k_dcg_lu, (DISC, BASE, GAINS),
                source=LU))
register(Family("NDCG_a", "NDCG@k with a chosen discount, ideal from all judged documents",
                "normalised", _k_ndcg_a, (DISC, BASE, GAINS), source=LU))
register(Family("NDCG_b", "NDCG@k with the ideal from the relevant documents of the run's "
                "own top k", "normalised", _k_ndcg_b, (DISC, BASE, GAINS), "required",
                "sampled", source=LU))
register(Family("ERR_resid", "ERR@k residual: unjudged and missing ranks at the top grade "
                "gmax, stop (2^g-1)/2^gmax", "residual", _k_err_resid,
                (Param("gmax", "float", 4.0, "top grade (gdeval's 4)", _pos),), "optional",
                "sampled", source=LU))

# ---------------------------------------------------------------------------------------------
# Accuracy, Compat, F1@k
# ---------------------------------------------------------------------------------------------


def _k_accuracy(R, m):
    from .. import setbased
    return setbased.accuracy(R.topic, R.rank, _rel_bool(R, m["rel"]), R.n_topics, m.cutoff)


def _k_compat(R, m):
    from .. import setbased
    it, ig = _ideal(R, None, 1)
    g = _grade_gain(R, None)
    extra = None
    if m["ideal"] == "ir_measures" and R.line is not None and R.prepared is not None:
        # ir_measures' ideal: within a grade by run score, unretrieved documents scored 0,
        # so they go ahead of the retrieved ones scored below 0
        code = R.code if R.code is not None else np.zeros(len(R.topic), np.int64)
        lv = R.rel_levels.shape[1]
        graded = (code > 0) & (code < lv)
        key = R.topic[graded] * lv + code[graded]
        ret = np.bincount(key, minlength=R.n_topics * lv).reshape(R.n_topics, lv)
        unret = np.maximum(R.rel_levels - ret, 0)
        score = np.where(R.line >= 0, R.prepared.J.score[np.maximum(R.line, 0)], 0.0)
        extra = np.zeros(len(R.topic), np.int64)
        neg = graded & (score < 0)
        extra[neg] = unret[R.topic[neg], code[neg]]
    return setbased.compat(R.topic, R.rank, g, R.n_topics, it, ig, m["p"], extra=extra)


def _k_f1(R, m):
    from .. import setbased
    lv = m["rel"]
    return setbased.f1_at(R.topic, R.rank, _rel_bool(R, lv), R.n_topics, m.cutoff,
                          R.num_rel(lv))


register(Family("Accuracy", "share of (relevant, non-relevant) pairs of the top k in the "
                "right order; undefined (NaN) without a relevant document", "other",
                _k_accuracy, (REL,), "optional", "sampled", source=ACCURACY))
register(Family("Compat", "compatibility: normalised RBO with the ideal ranking of the "
                "relevant documents (grade descending, retrieved ones first in run order; "
                "ideal='ir_measures': within a grade by run score with the unretrieved ones "
                "scored 0, as ir_measures 0.4.3)", "other", _k_compat,
                (Param("p", "float", 0.95, "persistence", _prob),
                 Param("ideal", "str", "run", "ideal ranking within a grade: 'run' (retrieved "
                       "first, in run order) or 'ir_measures' (by score, unretrieved at 0)",
                       lambda v: None if v in ("run", "ir_measures")
                       else "must be 'run' or 'ir_measures'")), "none", "sampled",
                source=COMPAT))
register(Family("F1", "2 P@k R@k / (P@k + R@k) (ranx f1@k)", "normalised", _k_f1, (REL,),
                "required", "sampled", source="ranx (E. Bassani, ECIR 2022)"))

# ---------------------------------------------------------------------------------------------
# Diversity (ndeval / ir_measures' pyndeval provider): subtopic qrels
# ---------------------------------------------------------------------------------------------

ALPHA = Param("alpha", "float", 0.5, "redundancy intolerance alpha",
              lambda v: None if 0 <= v < 1 else "must lie in [0, 1)")
BETA_NRBP = Param("beta", "float", 0.5, "patience beta", _prob)
DIV = ("NIST ndeval 4.5 (TREC Web track diversity task), as ir_measures' pyndeval provider "
       "runs it; ")


def _k_div(R, m):
    from .. import diversity
    return diversity.evaluate_ranking(R, m)


_DIVERSITY = [
    ("alpha_DCG", "alpha-DCG@k over the ideal-ideal value S sum_{i<=k} (1-alpha)^(i-1)/log2(1+i)",
     (REL, ALPHA, JUDGED_ONLY), "optional", "alpha-nDCG", ()),
    ("alpha_nDCG", "alpha-DCG@k over that of the greedy ideal ranking of the judged documents",
     (REL, ALPHA, JUDGED_ONLY), "optional", "alpha-nDCG", ()),
    ("ERR_IA", "intent-aware ERR@k, sum_{i<=k} g_i / i over S sum_{i<=k} (1-alpha)^(i-1)/i",
     (REL, JUDGED_ONLY), "optional", "ERR-IA", ()),
    ("nERR_IA", "ERR-IA@k over that of the greedy ideal ranking", (REL, JUDGED_ONLY),
     "optional", "ERR-IA", ()),
    ("NRBP", "novelty- and rank-biased precision (1-(1-alpha)beta)/S sum_i g_i beta^(i-1)",
     (REL, ALPHA, BETA_NRBP), "none", "NRBP", ()),
    ("nNRBP", "NRBP over that of the greedy ideal ranking", (REL, ALPHA, BETA_NRBP), "none",
     "NRBP", ()),
    ("P_IA", "intent-aware precision: relevant (document, subtopic) pairs in the top k / (k S)",
     (REL, JUDGED_ONLY), "optional", "IA", ()),
    ("StRecall", "subtopic recall: subtopics covered by the top k / S", (REL,), "optional",
     "IA", ()),
    ("AP_IA", "intent-aware AP: mean over the S subtopics of each subtopic's AP",
     (REL, JUDGED_ONLY), "none", "IA", ("MAP_IA",)),
]


def _div_source(key: str) -> str:
    from ..diversity import CITATIONS
    return CITATIONS[key]


for _name, _doc, _params, _cut, _cite, _aliases in _DIVERSITY:
    register(Family(_name, _doc + "; g_i = sum over subtopics s of d_i of (1-alpha)^(s's "
                    "earlier documents); subtopic qrels", "other", _k_div, _params, _cut,
                    "sampled", source=DIV + _div_source(_cite), aliases=_aliases,
                    rel_format="subtopics"))

# ---------------------------------------------------------------------------------------------
# ranx's count of hits (its other names are in :mod:`.ranx_names`)
# ---------------------------------------------------------------------------------------------


def _k_hits(R, m):
    from ..kernels import hits_at
    return hits_at(R, m)


register(Family("Hits", "relevant documents (value >= rel) in the top k (ranx hits@k)",
                "monotone", _k_hits, (REL, JUDGED_ONLY), "optional", "linear",
                source="ranx (E. Bassani. ranx: a blazing-fast Python library for ranking "
                       "evaluation and comparison. ECIR 2022)"))

# ---------------------------------------------------------------------------------------------
# Multidimensional relevance: uRBP and uBpref (trectools), a second qrels scales the gains
# ---------------------------------------------------------------------------------------------

OTHER = Param("other", "str", None, "path of the second qrels (understandability, "
              "trustworthiness, ...) whose value scales each relevant document")
SCALE = Param("scale", "float", 1.0, "factor on the second qrels' values (trectools' "
              "normalization_factor)")


def _other(R, m):
    from .. import multidim
    if m["other"] is None:
        raise MeasureError(f"{m}: name the second qrels, e.g. {m.family.name}(other='u.qrels')")
    return multidim.other_values(R, m["other"])


def _k_urbp(R, m):
    from .. import multidim
    from ..kernels import graded_gain
    has, u = _other(R, m)
    return multidim.urbp(R.topic, R.rank, _rel_bool(R, m["rel"]), graded_gain(R, m["rel"]),
                         has, u, R.n_topics, m["p"], m.cutoff, m["scale"], m["graded"])


def _k_ubpref(R, m):
    from .. import multidim
    has, u = _other(R, m)
    lv = m["rel"]
    return multidim.ubpref(R.topic, np.asarray(R.judged) > 0.5, _rel_bool(R, lv),
                           np.asarray(R.nonrel(lv)) > 0.5, has, u, R.n_topics, R.num_rel(lv),
                           R.num_nonrel(lv), m.cutoff, m["scale"])


def _multidim_source() -> str:
    from ..multidim import CITATION
    return CITATION


register(Family("uRBP", "RBP@k with each relevant document's gain times its value in a second "
                "qrels (trectools get_urbp)", "monotone", _k_urbp,
                (Param("p", "float", 0.8, "persistence", _prob), OTHER, SCALE,
                 Param("graded", "bool", False, "also multiply by the grade (trectools "
                       "binary_topical_relevance=False)"), REL),
                "optional", "sampled", source=_multidim_source()))
register(Family("uBpref", "bpref@k with each relevant document weighted by its value in a "
                "second qrels; the run restricted to documents both qrels judge (trectools "
                "get_ubpref)", "normalised", _k_ubpref, (OTHER, SCALE, REL), "optional",
                "sampled", source=_multidim_source()))


# ---------------------------------------------------------------------------------------------
# Lu (2018) Section 2.4: measures for incomplete and graded judgments
# ---------------------------------------------------------------------------------------------

AG = ("P. Ahlgren, L. Gronqvist. Evaluation of retrieval effectiveness with incomplete "
      "relevance data: theoretical and experimental comparison of three measures. IP&M 44(1), "
      "2008.")
RKY = ("S. E. Robertson, E. Kanoulas, E. Yilmaz. Extending average precision to graded "
       "relevance judgments. SIGIR 2010.")
RM = ("S. D. Ravana, A. Moffat. Score estimation, incomplete judgments, and significance "
      "testing in IR evaluation. AIRS 2010 (Lu 2018, Eqs. 2.41-2.42).")


def _k_rankeff(R, m):
    """RankEff: (1/R) sum over retrieved relevant d of 1 - n_d / N, n_d the judged
    non-relevant documents above d, N every judged non-relevant document of the qrels."""
    L = m["rel"]
    rel = R.rel(L)
    nb = R.cumsum(R.nonrel(L)) - R.nonrel(L)
    N = R.num_nonrel(L).astype(np.float64)
    R_ = R.num_rel(L).astype(np.float64)
    term = rel * (1.0 - nb / np.where(N > 0, N, 1.0)[R.topic])
    if m.cutoff is not None:
        term = np.where(R.rank <= m.cutoff, term, 0.0)
    s = np.bincount(R.topic, weights=term, minlength=R.n_topics)
    return np.where(R_ > 0, s / np.where(R_ > 0, R_, 1.0), 0.0)


def _k_bpref10(R, m):
    """bpref-10: (1/R) sum over retrieved relevant d of 1 - min(n_d, R + 10) / (R + 10), n_d
    the judged non-relevant documents above d (the first R + 10 of them count)."""
    L = m["rel"]
    rel = R.rel(L)
    nb = R.cumsum(R.nonrel(L)) - R.nonrel(L)
    R_ = R.num_rel(L).astype(np.float64)
    cap = (R_ + 10.0)[R.topic]
    term = rel * (1.0 - np.minimum(nb, cap) / cap)
    s = np.bincount(R.topic, weights=term, minlength=R.n_topics)
    return np.where(R_ > 0, s / np.where(R_ > 0, R_, 1.0), 0.0)


def _gap_thresholds(R, m) -> np.ndarray:
    c = _top_grade(R)
    th = m["thresholds"]
    if th is None:
        return np.full(c, 1.0 / c)
    g = np.zeros(c)
    g[:min(c, len(th))] = th[:c]
    return g


def _k_gap(R, m):
    """Graded AP: sum over relevant ranks n of (1/n) sum_{m <= n} delta(n, m) over
    sum_i R_i sum_{j <= i} g_j, delta(n, m) = sum_{j <= min(grade_n, grade_m)} g_j; g_j the
    probability that a user's relevance threshold is grade j."""
    g = _gap_thresholds(R, m)
    num = np.zeros(len(R.rank))
    den = np.zeros(R.n_topics)
    for j, gj in enumerate(g, start=1):
        if gj == 0:
            continue
        a = R.rel(j)
        num += gj * a * R.cumsum(a)
        den += gj * R.num_rel(j)
    term = num / R.rank
    if m.cutoff is not None:
        term = np.where(R.rank <= m.cutoff, term, 0.0)
    s = np.bincount(R.topic, weights=term, minlength=R.n_topics)
    return np.where(den > 0, s / np.where(den > 0, den, 1.0), 0.0)


def _k_rbp_rm(R, m):
    from ..kernels import rbp, rbp_residual
    from ..registry import family as _fam
    from ..registry import make as _make

    base_m = _make(_fam("RBP"), "RBP_rm", cutoff=m.cutoff, p=m["p"], rel=m["rel"])
    base = rbp(R, base_m)
    delta = rbp_residual(R, base_m)
    if m["lam"] is not None:
        return base + m["lam"] * delta
    interp = np.where(delta < 1, base / np.where(delta < 1, 1.0 - delta, 1.0), base)
    return m["alpha"] * interp + (1.0 - m["alpha"]) * base


DBM = ("J. De Beer, M.-F. Moens. Rpref: a generalization of Bpref towards graded relevance "
       "judgments. SIGIR 2006 (Lu 2018, Eq. 2.38).")
YA = ("E. Yilmaz, J. A. Aslam. Estimating average precision with incomplete and imperfect "
      "judgments. CIKM 2006.")


def _k_rpref(R, m):
    """RPref: ``(1 / sum_J r) sum_{judged retrieved i} r_i (1 - P_i / sum_J (1 - r))`` with
    ``P_i = sum_{judged j above i, r_j < r_i} (r_i - r_j) / r_i``, ``r = grade / c`` (c the
    qrels' top grade, negative grades 0) and J the topic's judged documents."""
    c = _top_grade(R)
    L = R.rel_levels.shape[1]
    r = np.minimum(np.arange(L, dtype=np.float64) / c, 1.0)
    at = [R.nonrel(1)] + [R.rel(g) - R.rel(g + 1) for g in range(1, L)]   # exactly grade g
    ri = np.zeros(len(R.rank))
    for g in range(1, L):
        ri += r[g] * at[g]
    # judged documents above each position, per grade: count and (count x r_g)
    n_low = np.zeros(len(R.rank))
    s_low = np.zeros(len(R.rank))
    pen = np.zeros(len(R.rank))
    for g in range(1, L):
        n_low += R.cumsum(at[g - 1]) - at[g - 1]
        s_low += r[g - 1] * (R.cumsum(at[g - 1]) - at[g - 1])
        pen += at[g] * (n_low - s_low / r[g])
    den = (R.rel_levels * (1.0 - r)[None, :]).sum(axis=1)
    norm = (R.rel_levels * r[None, :]).sum(axis=1)
    dt = den[R.topic]
    frac = np.where(dt > 0, pen / np.where(dt > 0, dt, 1.0), 0.0)
    term = ri * (1.0 - frac)
    if m.cutoff is not None:
        term = np.where(R.rank <= m.cutoff, term, 0.0)
    s = np.bincount(R.topic, weights=term, minlength=R.n_topics)
    return np.where(norm > 0, s / np.where(norm > 0, norm, 1.0), 0.0)


def _subap_keep(R, rate: float, seed: int) -> np.ndarray:
    """bool (n,): judged positions, and unjudged ones whose document's seeded coin (a CRC-32 of
    seed, topic and docno, uniform on [0, 1)) falls below ``rate`` -- the same documents for
    every run and regime."""
    import zlib

    keep = np.asarray(R.judged) > 0.5
    P = R.prepared
    if rate >= 1.0 or P is None or R.line is None:
        return np.ones(len(R.rank), bool) if rate >= 1.0 else keep
    tids = np.asarray(P.topic_ids)      # qrels topic indices
    names = P.qrels.topics if P.qrels is not None else None
    docs = np.asarray(P.run_docnos)
    rows = np.asarray(P.J.docrank)
    for i in np.flatnonzero(~keep):
        ln = int(R.line[i])
        if ln < 0:
            continue
        ti = int(tids[R.topic[i] % len(tids)])
        t = str(names[ti]) if names is not None else str(ti)
        d = str(docs[rows[ln]])
        keep[i] = zlib.crc32(f"{seed}\t{t}\t{d}".encode()) / 4294967296.0 < rate
    return keep


def _k_subap(R, m):
    """SubAP: AP on the sub-collection of the judged documents plus a ``rate`` sample of the
    unjudged ones (the rest removed from the ranking, ranks closed up); R from the qrels."""
    L = m["rel"]
    keep = _subap_keep(R, m["rate"], m["seed"]).astype(np.float64)
    rel = R.rel(L) * keep
    rank = R.cumsum(keep)
    term = np.where(rel > 0, R.cumsum(rel) / np.where(rank > 0, rank, 1.0), 0.0)
    if m.cutoff is not None:
        term = np.where(rank <= m.cutoff, term, 0.0)
    s = np.bincount(R.topic, weights=term, minlength=R.n_topics)
    R_ = R.num_rel(L).astype(np.float64)
    return np.where(R_ > 0, s / np.where(R_ > 0, R_, 1.0), 0.0)


def _rate(v):
    return None if 0.0 <= v <= 1.0 else "must be in [0, 1]"


register(Family("RPref", "graded bpref: (1/sum r) sum over judged retrieved documents of r_i (1 "
                "- sum over judged documents above of lower grade (r_i - r_j)/r_i, over "
                "sum (1 - r)); r = grade / top grade", "normalised", _k_rpref, (), "optional",
                "sampled", source=DBM))
register(Family("SubAP", "sub-collection AP: AP after removing the unjudged documents outside "
                "a seeded rate sample of them (rate 1: AP; rate 0: AP over judged documents "
                "only)", "normalised", _k_subap,
                (Param("rate", "float", 0.1, "share of the unjudged documents kept", _rate),
                 Param("seed", "int", 0, "seed of the per-document coins"), REL),
                "optional", "sampled", source=YA))
register(Family("RankEff", "ranking efficiency: (1/R) sum over retrieved relevant documents of "
                "1 - (judged non-relevant above) / (all judged non-relevant)", "normalised",
                _k_rankeff, (REL,), "optional", "sampled", source=AG))
register(Family("bpref_10", "bpref-10: (1/R) sum over retrieved relevant documents of 1 - "
                "min(judged non-relevant above, R + 10) / (R + 10)", "normalised", _k_bpref10,
                (REL,), "none", "sampled", source="C. Buckley, E. M. Voorhees. Retrieval "
                "evaluation with incomplete information. SIGIR 2004."))
register(Family("GAP", "graded average precision: AP over a population of users whose "
                "relevance threshold is grade j with probability g_j", "normalised", _k_gap,
                (Param("thresholds", "floats", None, "g_1..g_c, probability of each grade as "
                       "the user's threshold (default uniform over the qrels' grades)"),),
                "optional", "sampled", source=RKY))
register(Family("RBP_rm", "Ravana-Moffat estimate of RBP from the judged part (Base) and its "
                "residual Delta: Base + lam Delta, or alpha (Base + Delta Base / (1 - Delta)) "
                "+ (1 - alpha) Base", "other", _k_rbp_rm,
                (Param("p", "float", 0.8, "persistence", _prob), REL,
                 Param("lam", "float", None, "share of the residual taken as gain (Eq. 2.42's "
                       "first form); None uses alpha"),
                 Param("alpha", "float", 1.0, "smoothing: 1 the interpolative estimate (Eq. "
                       "2.41), 0 the judged part alone (Eq. 2.42)",
                       lambda v: None if 0 <= v <= 1 else "must lie in [0, 1]")),
                "optional", "sampled", source=RM))
