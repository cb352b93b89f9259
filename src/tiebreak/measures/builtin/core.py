"""The built-in measure families of trec_eval and the core ad hoc measures, each registered once
(see :mod:`tiebreak.measures.registry`)."""

from __future__ import annotations

import math

from .. import kernels as K
from ..registry import JUDGED_ONLY, Family, Param, register

RECALL_PTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def _prob(v):
    return None if 0 < v < 1 else "must lie strictly between 0 and 1"


def _nonneg(v):
    return None if v >= 0 else "must be >= 0"


def _unit_gains(v):
    return None if all(0 <= g <= 1 for _, g in v) else "must map grades to gains in [0, 1]"


REL = Param("rel", "int", 1, "relevance level: a judged document is relevant when its qrels "
            "value >= rel (trec_eval -l)")
def _gains_ok(v):
    bad = [(k, g) for k, g in v if not (math.isfinite(g) and g >= 0)]
    return None if not bad else (f"must map grades to finite gains >= 0, got {bad[0][0]}: "
                                 f"{bad[0][1]!r} (a negative gain makes the ideal ranking "
                                 "meaningless)")


GAINS = Param("gains", "gains", None, "gain of each relevance grade (finite, >= 0); unmapped "
              "grades keep their own value (trec_eval ndcg.2=5, ir_measures gains=)", _gains_ok)
DCG = Param("dcg", "str", "log2", "gain form: log2 (gain = grade, trec_eval) or exp-log2 "
            "(gain = 2^grade - 1, Burges et al. 2005; with gains=, 2^v - 1 of the mapped v)",
            lambda v: None if v in ("log2", "exp-log2") else "must be 'log2' or 'exp-log2'")
UNJUDGED = Param("unjudged", "int", None, "grade given to unjudged retrieved documents "
                 "(Elasticsearch unknown_doc_rating); the ideal ranking keeps the qrels'",
                 lambda v: None if v >= 0 else "must be a grade >= 0")
P_RBP = Param("p", "float", 0.8, "persistence: probability of reading on", _prob)
P_TREC = Param("p", "float", 0.9, "persistence (trec_eval's default 0.9)", _prob)

MOFFAT = ("A. Moffat and J. Zobel. Rank-biased precision for measurement of retrieval "
          "effectiveness. ACM TOIS 27(1), 2008.")
JK = ("K. Jarvelin and J. Kekalainen. Cumulated gain-based evaluation of IR techniques. "
      "ACM TOIS 20(4), 2002.")
TREC = "trec_eval 10.0 (NIST), measure definitions in its m_*.c files."
BV = ("C. Buckley and E. M. Voorhees. Retrieval evaluation with incomplete information. "
      "SIGIR 2004.")

# -- counts ---------------------------------------------------------------------------------
register(Family("NumRet", "documents retrieved (with rel=: relevant documents retrieved, as "
                "ir_measures)", "count", K.num_ret,
                (Param("rel", "int", None, "count only documents with qrels value >= rel"),),
                "none",
                summary="sum", fmt="long", source=TREC, bogus=0.0))
register(Family("NumQ", "topics evaluated (1 per topic, summed)", "count", K.num_q, (), "none",
                summary="sum", fmt="long", source="ir_measures NumQ; trec_eval num_q",
                bogus=1.0))
register(Family("NumRel", "relevant documents in the qrels", "count", K.num_rel, (REL,),
                "none", summary="num_rel", fmt="long", source=TREC))
register(Family("NumRelRet", "relevant documents retrieved", "monotone", K.num_rel_ret,
                (REL,), "none", summary="sum", fmt="long", source=TREC))
register(Family("NumNonrelJudgedRet", "judged non-relevant documents retrieved", "other",
                K.num_nonrel_judged_ret, (REL,), "none", summary="sum", fmt="long",
                source=TREC))

# -- precision and recall -------------------------------------------------------------------
register(Family("P", "precision at k: relevant in the top k / k", "monotone", K.precision,
                (REL, JUDGED_ONLY), "required", source=TREC))
register(Family("R", "recall at k: relevant in the top k / R", "normalised", K.recall,
                (REL, JUDGED_ONLY),
                "required", source=TREC, aliases=("Recall",)))
register(Family("relative_P", "relevant in the top k / min(k, R)", "normalised",
                K.relative_precision, (REL,), "required", source=TREC))
register(Family("Rprec", "precision after R documents (R-precision)", "normalised", K.rprec,
                (REL, JUDGED_ONLY), "none", source=TREC))
register(Family("Rprec_mult", "precision after int(mult R + 0.9) documents", "normalised",
                K.rprec_mult, (REL, Param("mult", "float", 1.0, "multiple of R", _nonneg)),
                "none", source=TREC))
register(Family("Success", "1 if a relevant document is in the top k", "monotone", K.success,
                (REL, JUDGED_ONLY), "required", "closed", K.e_success, source=TREC))
register(Family("RR", "1 / rank of the first relevant document (within the top k)",
                "monotone", K.reciprocal_rank, (REL, JUDGED_ONLY), "optional", "closed",
                K.e_reciprocal_rank, source=TREC, aliases=("MRR", "recip_rank")))
register(Family("AP", "average precision: (1/R) sum over relevant ranks j <= k of P@j",
                "normalised", K.average_precision, (REL, JUDGED_ONLY), "optional", "closed",
                K.e_average_precision, source=TREC, aliases=("MAP", "AP_a")))
register(Family("bpref", "relevant documents ranked above judged non-relevant ones",
                "normalised", K.bpref, (REL,), "none", "closed", K.e_bpref, source=BV))
register(Family("infAP", "inferred AP; qrels value -1 = pooled but unjudged", "normalised",
                K.inf_ap, (REL,), "none", "sampled",
                source="E. Yilmaz and J. A. Aslam. Estimating average precision with "
                       "incomplete and imperfect judgments. CIKM 2006."))
register(Family("IPrec", "interpolated precision at a recall level", "normalised",
                K.iprec_at_recall,
                (REL, Param("recall", "float", 0.0, "recall level in [0, 1]",
                            lambda v: None if 0 <= v <= 1 else "must lie in [0, 1]"),
                 JUDGED_ONLY),
                "none", "sampled", source=TREC, aliases=("iprec_at_recall",)))
register(Family("11pt_avg", "interpolated precision averaged over recall levels",
                "normalised", K.eleven_pt_avg,
                (REL, Param("levels", "floats", RECALL_PTS, "recall levels",
                            lambda v: None if v else "needs at least one recall level")),
                "none", "sampled", source=TREC))
register(Family("binG", "mean over relevant documents of 1/log2(2 + non-relevant above)",
                "normalised", K.bin_g, (REL,), "none", "sampled", source=TREC))
register(Family("utility", "a rel_ret + b nonrel_ret + c rel_nonret + d nonrel_nonret",
                "other", K.utility,
                (REL, Param("coef", "floats", (1.0, -1.0, 0.0, 0.0), "a, b, c, d",
                            lambda v: None if len(v) == 4 else "needs 4 coefficients"),
                 Param("num_docs", "float", 0.0, "documents in the collection (-N)")),
                "none", source=TREC, bogus=0.0))

# -- set measures -----------------------------------------------------------------------------
register(Family("SetP", "relevant retrieved / retrieved", "set", K.set_P, (REL, JUDGED_ONLY),
                "none",
                source=TREC, aliases=("set_P",)))
register(Family("SetRelP", "relevant retrieved / min(retrieved, R)", "set", K.set_relative_P,
                (REL,), "none", source=TREC, aliases=("set_relative_P",)))
register(Family("SetR", "relevant retrieved / R", "set", K.set_recall, (REL,), "none",
                source=TREC, aliases=("set_recall",)))
register(Family("SetAP", "set_P x set_recall", "set", K.set_map, (REL, JUDGED_ONLY), "none",
                "linear_uncut", source=TREC, aliases=("set_map",)))
register(Family("SetF", "(beta+1) P R / (beta P + R) over the retrieved set", "set", K.set_F,
                (REL, Param("beta", "float", 1.0, "weight of recall", _nonneg), JUDGED_ONLY),
                "none", "linear_uncut", source=TREC, aliases=("set_F",)))

# -- gains ------------------------------------------------------------------------------------
register(Family("nDCG", "DCG@k / ideal DCG@k, ideal from every judged document", "normalised",
                K.ndcg, (GAINS, DCG, JUDGED_ONLY, UNJUDGED), source=JK))
register(Family("DCG", "sum over ranks j <= k of gain_j / log2(j + 1)", "monotone", K.dcg,
                (GAINS, DCG, UNJUDGED), source=JK))
register(Family("IDCG", "DCG of the ideal ranking of the qrels", "count", K.ideal_dcg,
                (GAINS, DCG), source=JK, aliases=("ideal_dcg",)))
register(Family("ndcg_rel", "nDCG averaged over the relevant documents", "normalised",
                K.ndcg_rel, (GAINS, DCG), "none", "sampled", source=TREC))
register(Family("Rndcg", "nDCG averaged at the R levels of the ideal ranking", "normalised",
                K.rndcg, (GAINS, DCG, REL), "none", "sampled", source=TREC))
register(Family("G", "gain / log2(2 + ideal cost - gain so far), normalised", "normalised",
                K.g_measure, (GAINS, DCG), "none", "sampled", source=TREC))

# -- user models ------------------------------------------------------------------------------
register(Family("RBP", "(1-p) sum_j p^(j-1) gain_j; binary gains (>= rel), a gains map in "
                "[0, 1], or the raw grade (graded=True: ranx rbp, trectools)", "monotone", K.rbp,
                (P_RBP, REL, Param("gains", "gains", None, "gain in [0, 1] of each grade; "
                                   "unmapped grades gain 0", _unit_gains),
                 Param("graded", "bool", False, "gain = the grade itself when >= rel, unscaled "
                       "(ranx rbp.p, trectools get_rbp(binary_topical_relevance=False), "
                       "ir_measures' trectools provider for RBP without rel=)")),
                source=MOFFAT))
register(Family("RBP_resid", "RBP residual: p^d + (1-p) sum of p^(j-1) over unjudged ranks",
                "residual", K.rbp_residual, (P_RBP,), source=MOFFAT))
register(Family("trec_rbp", "trec_eval's rbp: gains rescaled to [0, 1] per topic when any "
                "lies outside", "monotone", K.trec_rbp, (P_TREC, GAINS), "none",
                source=MOFFAT + " " + TREC))
register(Family("trec_rbp_resid", "trec_eval's rbp_resid: 0 when nothing retrieved is "
                "unjudged", "residual", K.trec_rbp_resid, (P_TREC,), "none", "linear_uncut",
                source=MOFFAT + " " + TREC, bogus=0.0))
register(Family("ERR", "sum_j (1/j) rho_j prod_{i<j} (1 - rho_i), rho = (2^g - 1) / 2^gmax",
                "monotone", K.err,
                (Param("gmax", "int", 4, "largest grade: 4 as gdeval and ir_measures; 0 = each "
                       "topic's largest grade", _nonneg),),
                "optional", "closed", K.e_err,
                source="O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan. Expected "
                       "reciprocal rank for graded relevance. CIKM 2009."))

# -- judged fractions -------------------------------------------------------------------------
register(Family("Judged", "judged documents in the top k / min(k, retrieved)", "judged",
                K.judged, (), source="ir_measures (MacAvaney et al. 2022) convention"))
register(Family("unj", "unjudged documents in the top k / k", "judged", K.unjudged, (),
                "required", source=TREC, bogus=0.0))
register(Family("relstring", "relevance codes of the top N documents (per topic only)",
                "other", K.relstring, (Param("length", "int", 10, "documents shown"),),
                "none", "trec_order", summary="none", fmt="str", source=TREC, bogus=""))

# -- other traditions: C/W/L, NTCIREVAL, Lu (2018) depth variants, Accuracy, Compat, F1 --------
