/* _ev_specs.h: the measure specs of the compiled evaluation (_ext_eval.c).
 *
 * GENERATED from the table TWINS of src/tiebreak/measures/twins.py by
 *     python -m tiebreak.measures.twins --header
 * Do not edit: change the table and rerun the command (tests/test_measure_twins.py
 * checks that this file is the generated text). */
#ifndef TIEBREAK_EV_SPECS_H
#define TIEBREAK_EV_SPECS_H

#define EV_NFP 16 /* float parameters per measure */
#define EV_PROMOTED ((int64_t)1 << 40) /* code of a promoted unjudged document */

/* the columns of a measure's spec row (specs int64 (M, EV_NSPEC)) */
enum { EV_S_FAM, EV_S_CUTOFF, EV_S_REL, EV_NSPEC };

/* the orderings of a measure under a regime (ords) */
enum {
    EV_TREC, /* trec_eval */
    EV_REAL, /* realistic */
    EV_OPT, /* optimistic */
    EV_UPMONO, /* upper_mono */
    EV_EXP, /* the expected regime */
    EV_NORD
};

/* the families with a compiled twin; the first EV_NEXP (6) have an expected form */
enum {
    EV_AP, /* AP (average_precision), expected: closed */
    EV_P, /* P (precision), expected: linear */
    EV_R, /* R (recall), expected: linear */
    EV_RR, /* RR (reciprocal_rank), expected: closed */
    EV_NDCG, /* nDCG (ndcg), expected: linear */
    EV_BPREF, /* bpref (bpref), expected: closed */
    EV_RELP, /* relative_P (relative_precision) */
    EV_RPREC, /* Rprec (rprec) */
    EV_RPREC_MULT, /* Rprec_mult (rprec_mult) */
    EV_SUCCESS, /* Success (success) */
    EV_UNJ, /* unj (unjudged) */
    EV_NUMRET, /* NumRet (num_ret) */
    EV_NUMREL, /* NumRel (num_rel) */
    EV_NUMRELRET, /* NumRelRet (num_rel_ret) */
    EV_NONREL_RET, /* NumNonrelJudgedRet (num_nonrel_judged_ret) */
    EV_SETP, /* SetP (set_P) */
    EV_SETRELP, /* SetRelP (set_relative_P) */
    EV_SETR, /* SetR (set_recall) */
    EV_SETAP, /* SetAP (set_map) */
    EV_SETF, /* SetF (set_F) */
    EV_UTILITY, /* utility (utility) */
    EV_IPREC, /* IPrec (iprec_at_recall) */
    EV_11PT, /* 11pt_avg (eleven_pt_avg) */
    EV_NFAM
};
#define EV_NEXP 6

/* the float parameter slots of each family (fparams[j * EV_NFP + slot]) */
#define EV_FP_RPREC_MULT_MULT 0
#define EV_FP_SETF_BETA 0
#define EV_FP_UTILITY_COEF_A 0
#define EV_FP_UTILITY_COEF_B 1
#define EV_FP_UTILITY_COEF_C 2
#define EV_FP_UTILITY_COEF_D 3
#define EV_FP_UTILITY_NUM_DOCS 4
#define EV_FP_IPREC_RECALL 0
#define EV_FP_11PT_LEVELS_N 0 /* number of levels values: 1 to EV_FP_11PT_LEVELS_MAX */
#define EV_FP_11PT_LEVELS 1
#define EV_FP_11PT_LEVELS_MAX 15

/* the families that need a cutoff k > 0 (registered with cutoff required) */
#define EV_NEEDS_CUTOFF(f) ((f) == EV_P || \
    (f) == EV_R || \
    (f) == EV_RELP || \
    (f) == EV_SUCCESS || \
    (f) == EV_UNJ)
/* float parameters out of range for family f (fp: the measure's EV_NFP values) */
#define EV_FP_BAD(f, fp) (((f) == EV_11PT && \
    !((fp)[EV_FP_11PT_LEVELS_N] >= 1 && (fp)[EV_FP_11PT_LEVELS_N] <= EV_FP_11PT_LEVELS_MAX)))

#endif
