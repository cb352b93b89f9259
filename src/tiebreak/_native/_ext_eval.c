/* tiebreak._native._ext: the evaluation of a whole run under every default tie regime in one call.
 *
 * Included by _ext.c (one #include line; its method table lists EXT_EVAL_METHODS). This is the
 * compiled fast path of the registered measure families listed in the table of
 * tiebreak/measures/twins.py (AP, P, R, RR, nDCG with trec_eval's gains and bpref under every
 * regime, and more under the deterministic ones); their definitions stay the kernels of
 * tiebreak/measures/kernels.py, and every value here is computed with the same floating-point
 * operations in the same order as those kernels (sums from 0.0 in rank order, the group means
 * of the expected regime as numpy's bincount adds them, numpy's pairwise summation where the
 * kernel calls np.sum), so the values are bit-identical. tiebreak/measures/fastpath.py decides
 * which measures and regimes come here and passes numpy arrays as buffers.
 *
 * eval_core(starts, n_ret, topic_ids, code, docrank, group, levels, L, log2tab, specs,
 *           fparams, ords, out, unj_k) -> int
 *   starts, n_ret   int64 (nq,)   first score-order position and count of each qrels topic
 *   topic_ids       int64 (T,)    evaluated qrels topics (distinct)
 *   code, docrank, group  int64 (n,)  per score-order position: relevance code (qrels value,
 *                   -1 not in the qrels, -2 pooled but unjudged), the docno's byte-order rank,
 *                   the tied-group id (groups contiguous)
 *   levels          int64 (T, L)  qrels documents per evaluated topic and value 0..L-1
 *   log2tab         float64 (>= max rank + 2)  log2tab[r] = log2(r + 1) as numpy computes it
 *   specs           int64 (M, EV_NSPEC)  family (EV_AP ...), cutoff (-1: none), rel
 *   fparams         float64 (M, EV_NFP)  float parameters (slots EV_FP_<FAMILY>_<PARAMETER>)
 *   ords            int64 (M, K)  ordering of measure j under regime k: EV_TREC trec_eval,
 *                   EV_REAL realistic, EV_OPT optimistic, EV_UPMONO upper_mono (unjudged
 *                   promoted), EV_EXP expected (the first EV_NEXP families only)
 * (the names are those of _ev_specs.h, generated from tiebreak/measures/twins.py)
 *   out             float64 (M, K, T), written
 * Returns the number of unjudged documents in the top unj_k ranks of the trec_eval ordering
 * (topics with results). */

/* no fused multiply-add: every product is rounded before it is added, as numpy does */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

/* the family codes (EV_AP ...), orderings (EV_TREC ...), spec columns (EV_S_FAM ...) and float
 * parameter slots (EV_FP_<FAMILY>_<PARAMETER>): generated from the table of
 * tiebreak/measures/twins.py (python -m tiebreak.measures.twins --header) */
#include "_ev_specs.h"

/* numpy's pairwise summation (numpy/_core/src/umath/loops_utils.h.src) of a contiguous array */
static double ev_pairwise(const double *a, Py_ssize_t n) {
    if (n < 8) {
        double res = 0.;
        for (Py_ssize_t i = 0; i < n; i++)
            res += a[i];
        return res;
    } else if (n <= 128) {
        double r[8], res;
        Py_ssize_t i;
        for (int j = 0; j < 8; j++)
            r[j] = a[j];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++)
                r[j] += a[i + j];
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            res += a[i];
        return res;
    } else {
        Py_ssize_t n2 = n / 2;
        n2 -= n2 % 8;
        return ev_pairwise(a, n2) + ev_pairwise(a + n2, n - n2);
    }
}

/* np.sum of a contiguous float64 array (checked equal on random arrays of 1 to 3000 values) */
static double ev_npsum(const double *a, Py_ssize_t n) { return ev_pairwise(a, n); }

static int ev_cmp_asc(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static int ev_cmp_desc(const void *x, const void *y) { return ev_cmp_asc(y, x); }

/* (docrank, position) pairs: docrank descending, then position ascending (a stable sort) */
static int ev_cmp_doc(const void *x, const void *y) {
    const int64_t *a = x, *b = y;
    if (a[0] != b[0])
        return a[0] < b[0] ? 1 : -1;
    return (a[1] > b[1]) - (a[1] < b[1]);
}

typedef struct {
    const int64_t *lev; /* the topic's row of levels */
    int64_t L, nlev;    /* columns; trec_eval's num_rel_levels (1 + largest value held) */
    const double *log2tab;
} EvTopic;

static int64_t ev_nrel(const EvTopic *tp, int64_t rel) {
    int64_t s = 0, lv = rel > 0 ? rel : 0;
    for (int64_t l = lv; l < tp->L; l++)
        s += tp->lev[l];
    return s;
}

static int64_t ev_nnon(const EvTopic *tp, int64_t rel) {
    int64_t s = 0, lv = rel > 0 ? rel : 0;
    for (int64_t l = 0; l < lv && l < tp->L; l++)
        s += tp->lev[l];
    return s;
}

static inline int ev_is_rel(int64_t c, int64_t rel) {
    return rel > 0 ? c >= rel : c >= 0;
}

/* trec_eval's gain of a code (gains not mapped): the grade inside the topic's levels, the
 * largest gain for a promoted document, else 0 */
static inline double ev_gain(int64_t c, const EvTopic *tp) {
    if (c >= 0 && c < tp->nlev)
        return (double)c;
    if (c == EV_PROMOTED)
        return tp->nlev > 0 ? (double)(tp->nlev - 1) : 0.0;
    return 0.0;
}

/* ideal DCG through rank k (k < 0: the whole ideal list) */
static double ev_idcg(const EvTopic *tp, int64_t k) {
    double s = 0.0;
    int64_t col = 0;
    for (int64_t l = tp->nlev - 1; l >= 1; l--) {
        for (int64_t c = 0; c < tp->lev[l]; c++, col++) {
            if (k >= 0 && col >= k)
                return s;
            s += (double)l / tp->log2tab[col + 1];
        }
    }
    return s;
}

static inline double ev_div(double a, double b) { return b != 0 ? a / b : 0.0; }

/* relevant documents in the first k ranks (k < 0: all) */
static double ev_hits(const int64_t *c, int64_t n, int64_t k, int64_t rel) {
    int64_t m = (k < 0 || k > n) ? n : k;
    double h = 0.0;
    for (int64_t i = 0; i < m; i++)
        h += ev_is_rel(c[i], rel);
    return h;
}

/* C lround of x >= 0 as tiebreak.measures.kernels._lround computes it */
static inline int64_t ev_lround(double x) {
    double r = floor(x);
    return (int64_t)r + (x - r >= 0.5);
}

/* trec_eval's interpolated precision at recall level pt from the interpolated precisions ip
 * (nrr,) at the relevant retrieved positions */
static double ev_iprec_at(const double *ip, int64_t nrr, double nrel, double pt) {
    int64_t cut = ev_lround(pt * nrel);
    if (cut >= 1 && cut <= nrr)
        return ip[cut - 1];
    if (cut == 0 && nrr > 0)
        return ip[0];
    return 0.0;
}

/* a measure on one topic's relevance codes in rank order (ranks 1..n); fp: the measure's
 * EV_NFP float parameters (fp[EV_FP_<FAMILY>_<PARAMETER>]); scratch: n doubles */
static double ev_det(int fam, int64_t k, int64_t rel, const double *fp, const int64_t *c,
                     int64_t n, const EvTopic *tp, double *scratch) {
    int64_t m = (k < 0 || k > n) ? n : k, i;
    int64_t nrel_i = ev_nrel(tp, rel);
    double nrel = (double)nrel_i;
    switch (fam) {
    case EV_IPREC:
    case EV_11PT: {
        /* precision at each relevant position, then its maximum over the positions below
         * (the non-relevant positions between never hold the maximum) */
        int64_t nrr = 0;
        double cum = 0.0;
        for (i = 0; i < n; i++)
            if (ev_is_rel(c[i], rel)) {
                cum += 1.0;
                scratch[nrr++] = cum / (double)(i + 1);
            }
        for (i = nrr - 2; i >= 0; i--)
            if (scratch[i + 1] > scratch[i])
                scratch[i] = scratch[i + 1];
        if (fam == EV_IPREC)
            return ev_iprec_at(scratch, nrr, nrel, fp[EV_FP_IPREC_RECALL]);
        double s = 0.0;
        int64_t nl = (int64_t)fp[EV_FP_11PT_LEVELS_N];
        for (i = 0; i < nl; i++)
            s = s + ev_iprec_at(scratch, nrr, nrel, fp[EV_FP_11PT_LEVELS + i]);
        return s / (double)nl;
    }
    case EV_RELP:
        return ev_div(ev_hits(c, n, k, rel), (double)(k < nrel_i ? k : nrel_i));
    case EV_RPREC:
        return ev_div(ev_hits(c, n, nrel_i, rel), nrel);
    case EV_RPREC_MULT: {
        int64_t kk = (int64_t)floor(fp[EV_FP_RPREC_MULT_MULT] * nrel + 0.9);
        return ev_div(ev_hits(c, n, kk < 0 ? 0 : kk, rel), (double)kk);
    }
    case EV_SUCCESS:
        return ev_hits(c, n, k, rel) > 0 ? 1.0 : 0.0;
    case EV_UNJ: {
        double u = 0.0;
        for (i = 0; i < m; i++)
            u += c[i] < 0;
        return u / (double)k;
    }
    case EV_NUMRET:
        return (double)n;
    case EV_NUMREL:
        return nrel;
    case EV_NUMRELRET:
        return ev_hits(c, n, -1, rel);
    case EV_NONREL_RET: {
        double u = 0.0;
        for (i = 0; i < n; i++)
            u += c[i] >= 0 && c[i] < rel;
        return u;
    }
    case EV_SETP:
        return ev_div(ev_hits(c, n, -1, rel), (double)n);
    case EV_SETRELP:
        return ev_div(ev_hits(c, n, -1, rel), (double)(n < nrel_i ? n : nrel_i));
    case EV_SETR:
        return ev_div(ev_hits(c, n, -1, rel), nrel);
    case EV_SETAP: {
        double rr = ev_hits(c, n, -1, rel);
        return ev_div(rr * rr, (double)n * nrel);
    }
    case EV_SETF: {
        double rr = ev_hits(c, n, -1, rel), x = fp[EV_FP_SETF_BETA];
        double P = ev_div(rr, (double)n), Rc = ev_div(rr, nrel);
        return rr > 0 ? ev_div((x + 1.0) * P * Rc, x * P + Rc) : 0.0;
    }
    case EV_UTILITY: {
        double rr = ev_hits(c, n, -1, rel), nr = (double)n;
        return fp[EV_FP_UTILITY_COEF_A] * rr + fp[EV_FP_UTILITY_COEF_B] * (nr - rr) +
               fp[EV_FP_UTILITY_COEF_C] * (nrel - rr) +
               fp[EV_FP_UTILITY_COEF_D] * (fp[EV_FP_UTILITY_NUM_DOCS] + rr - nr - nrel);
    }
    case EV_AP: {
        double cum = 0.0, s = 0.0;
        for (i = 0; i < m; i++)
            if (ev_is_rel(c[i], rel)) {
                cum += 1.0;
                s += cum / (double)(i + 1);
            }
        return ev_div(s, nrel);
    }
    case EV_P:
    case EV_R: {
        double h = 0.0;
        for (i = 0; i < m; i++)
            h += ev_is_rel(c[i], rel);
        return fam == EV_P ? h / (double)k : ev_div(h, nrel);
    }
    case EV_RR:
        for (i = 0; i < m; i++)
            if (ev_is_rel(c[i], rel))
                return 1.0 / (double)(i + 1);
        return 0.0;
    case EV_NDCG: {
        double s = 0.0;
        for (i = 0; i < m; i++) {
            double g = ev_gain(c[i], tp);
            if (g != 0)
                s += g / tp->log2tab[i + 1];
        }
        return ev_div(s, ev_idcg(tp, k));
    }
    case EV_BPREF: {
        double den = (double)(ev_nnon(tp, rel) < (int64_t)nrel ? ev_nnon(tp, rel) : (int64_t)nrel);
        double nb = 0.0, s = 0.0;
        for (i = 0; i < n; i++) {
            if (ev_is_rel(c[i], rel))
                s += (nb > 0 && den > 0) ? 1.0 - (nb < nrel ? nb : nrel) / den : 1.0;
            else if (c[i] >= 0 && c[i] < rel)
                nb += 1.0;
        }
        return ev_div(s, nrel);
    }
    }
    return 0.0;
}

/* the expected value over all orderings inside the tied groups (score-order codes c, group
 * ids g): closed forms (AP, RR, bpref) or the linear form on group means (P, R, nDCG) */
static double ev_expected(int fam, int64_t k, int64_t rel, const int64_t *c, const int64_t *g,
                          int64_t n, const EvTopic *tp, double *scratch) {
    double nrel = (double)ev_nrel(tp, rel);
    int64_t m = (k < 0 || k > n) ? n : k;
    int64_t a = 0;
    switch (fam) {
    case EV_P:
    case EV_R:
    case EV_NDCG: {
        double s = 0.0;
        while (a < m) {
            int64_t b = a + 1;
            while (b < n && g[b] == g[a])
                b++;
            double mean;
            if (fam == EV_NDCG) {
                if (b - a == 1) {
                    mean = ev_gain(c[a], tp) + 0.0;
                } else {
                    double t = 0.0;
                    for (int64_t i = a; i < b; i++)
                        t += ev_gain(c[i], tp);
                    mean = t / (double)(b - a);
                }
                for (int64_t i = a; i < b && i < m; i++)
                    if (mean != 0)
                        s += mean / tp->log2tab[i + 1];
            } else {
                if (b - a == 1) {
                    mean = (double)ev_is_rel(c[a], rel) + 0.0;
                } else {
                    double t = 0.0;
                    for (int64_t i = a; i < b; i++)
                        t += (double)ev_is_rel(c[i], rel);
                    mean = t / (double)(b - a);
                }
                for (int64_t i = a; i < b && i < m; i++)
                    s += mean;
            }
            a = b;
        }
        if (fam == EV_P)
            return s / (double)k;
        if (fam == EV_R)
            return ev_div(s, nrel);
        return ev_div(s, ev_idcg(tp, k));
    }
    case EV_AP: {
        double A = 0.0, s = 0.0;
        while (a < n) {
            int64_t b = a + 1;
            while (b < n && g[b] == g[a])
                b++;
            double r = 0.0, sz = (double)(b - a), cg = 0.0;
            for (int64_t i = a; i < b; i++)
                r += (double)ev_is_rel(c[i], rel);
            if (b - a > 1)
                cg = (r - 1) / (sz - 1);
            if (r > 0)
                for (int64_t i = a; i < b; i++) {
                    int64_t j = i + 1;
                    if (k >= 0 && j > k)
                        break;
                    s += (r / sz) * (A + 1 + (double)(i - a) * cg) / (double)j;
                }
            A += r;
            a = b;
        }
        return ev_div(s, nrel);
    }
    case EV_RR: {
        while (a < n) {
            int64_t b = a + 1;
            while (b < n && g[b] == g[a])
                b++;
            int64_t r = 0;
            for (int64_t i = a; i < b; i++)
                r += ev_is_rel(c[i], rel);
            if (r > 0) {
                int64_t s = b - a, first = a + 1;
                if (k >= 0 && first > k)
                    return 0.0;
                if (s == 1)
                    return 1.0 / (double)first;
                int64_t nn = s - r + 1;
                if (k >= 0 && k - first + 1 < nn)
                    nn = k - first + 1;
                double p = 1.0, q = (double)r / (double)s;
                for (int64_t i = 0; i < nn; i++) {
                    if (i > 0)
                        p = p * ((double)(s - i - r + 1) / (double)(s - i));
                    scratch[i] = (q * p) / (double)(first + i);
                }
                return ev_npsum(scratch, nn);
            }
            a = b;
        }
        return 0.0;
    }
    case EV_BPREF: {
        int64_t nn = ev_nnon(tp, rel), nr = ev_nrel(tp, rel);
        double den = (double)(nn < nr ? nn : nr), Rg = nrel, acc = 0.0, s = 0.0;
        while (a < n) {
            int64_t b = a + 1;
            while (b < n && g[b] == g[a])
                b++;
            double r = 0.0, M = 0.0;
            for (int64_t i = a; i < b; i++) {
                int isr = ev_is_rel(c[i], rel);
                r += (double)isr;
                M += (double)(c[i] >= 0 && !isr);
            }
            double term = r;
            if (den > 0 && r > 0) {
                double sm;
                if (acc >= Rg) {
                    sm = (M + 1) * Rg;
                } else {
                    double t = Rg - acc > 0 ? Rg - acc : 0.0;
                    t = M < t ? M : t;
                    sm = (t + 1) * acc + t * (t + 1) / 2 + (M - t) * Rg;
                }
                term = r * (1 - sm / ((M + 1) * den));
            }
            s += term;
            acc += M;
            a = b;
        }
        return ev_div(s, nrel);
    }
    }
    return 0.0;
}

static PyObject *eval_core(PyObject *self, PyObject *args) {
    Py_buffer bst, bnr, bti, bc, bd, bg, blev, blog, bspec, bfp, bord, bout;
    Py_ssize_t L, unj_k;
    PyObject *res = NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*ny*y*y*y*w*n", &bst, &bnr, &bti, &bc, &bd, &bg,
                          &blev, &L, &blog, &bspec, &bfp, &bord, &bout, &unj_k))
        return NULL;
    Py_ssize_t nq = bst.len / 8, T = bti.len / 8, n = bc.len / 8, M = bspec.len / 8 / EV_NSPEC;
    Py_ssize_t K = M ? bord.len / 8 / M : 0, nlog = blog.len / 8;
    int64_t *buf = NULL, *pairs = NULL;
    double *scratch = NULL;
    if (check_len(&bnr, nq, 8, "n_ret") || check_len(&bd, n, 8, "docrank") ||
        check_len(&bspec, M * EV_NSPEC, 8, "specs") ||
        check_len(&bfp, M * EV_NFP, 8, "fparams") ||
        check_len(&bg, n, 8, "group") || check_len(&blev, T * L, 8, "levels") ||
        check_len(&bord, M * K, 8, "ords") || check_len(&bout, M * K * T, 8, "out"))
        goto done;
    const int64_t *st = bst.buf, *nr = bnr.buf, *ti = bti.buf, *code = bc.buf, *dr = bd.buf,
                  *grp = bg.buf, *lev = blev.buf, *spec = bspec.buf, *ord = bord.buf;
    const double *log2tab = blog.buf, *fpar = bfp.buf;
    double *out = bout.buf;
    int64_t nmax = 0, unj = 0;
    int need[EV_NORD] = {0};
    for (Py_ssize_t j = 0; j < M * K; j++) {
        if (ord[j] < 0 || ord[j] >= EV_NORD) {
            PyErr_SetString(PyExc_ValueError, "eval_core: unknown ordering");
            goto done;
        }
        need[ord[j]] = 1;
    }
    for (Py_ssize_t j = 0; j < M; j++) {
        int64_t f = spec[EV_NSPEC * j + EV_S_FAM], k = spec[EV_NSPEC * j + EV_S_CUTOFF];
        int bad = f < 0 || f >= EV_NFAM || EV_FP_BAD(f, fpar + EV_NFP * j) ||
                  (EV_NEEDS_CUTOFF(f) && k <= 0);
        for (Py_ssize_t r = 0; r < K && !bad; r++)
            bad = ord[j * K + r] == EV_EXP && f >= EV_NEXP;
        if (bad) {
            PyErr_SetString(PyExc_ValueError, "eval_core: bad measure spec");
            goto done;
        }
    }
    for (Py_ssize_t t = 0; t < T; t++) {
        int64_t q = ti[t];
        if (q < 0 || q >= nq || st[q] < 0 || nr[q] < 0 || st[q] + nr[q] > n) {
            PyErr_SetString(PyExc_ValueError, "eval_core: topic out of range");
            goto done;
        }
        if (nr[q] > nmax)
            nmax = nr[q];
    }
    for (Py_ssize_t t = 0; t < T; t++) {
        const int64_t *row = lev + t * L;
        int64_t tot = 0;
        for (Py_ssize_t l = 0; l < L; l++)
            tot += row[l];
        if (tot + 2 > nmax)
            nmax = tot + 2;
    }
    if (nlog < nmax + 2) {
        PyErr_SetString(PyExc_ValueError, "eval_core: log2 table too short");
        goto done;
    }
    buf = malloc(sizeof(int64_t) * (size_t)(4 * (nmax + 1)));
    pairs = malloc(sizeof(int64_t) * (size_t)(2 * (nmax + 1)));
    scratch = malloc(sizeof(double) * (size_t)(nmax + 1));
    if (!buf || !pairs || !scratch) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t t = 0; t < T; t++) {
        int64_t q = ti[t], a = st[q], len = nr[q];
        EvTopic tp = {lev + t * L, L, 0, log2tab};
        for (int64_t l = L - 1; l >= 0; l--)
            if (tp.lev[l] > 0) {
                tp.nlev = l + 1;
                break;
            }
        /* a qrels topic without results (trec_eval -c) holds one document absent from the
         * qrels at rank 1, as tiebreak.ranking._select adds it (not counted as unjudged in the
         * top ranks) */
        static const int64_t bogus_code[1] = {-1}, bogus_group[1] = {0};
        int bogus = len == 0;
        const int64_t *c0 = bogus ? bogus_code : code + a, *g0 = bogus ? bogus_group : grp + a;
        if (bogus)
            len = 1;
        int64_t *seq[4] = {buf, buf + nmax + 1, buf + 2 * (nmax + 1), buf + 3 * (nmax + 1)};
        int tied = 0;
        memcpy(seq[EV_TREC], c0, sizeof(int64_t) * (size_t)len);
        for (int o = EV_REAL; o <= EV_UPMONO; o++)
            if (need[o]) {
                for (int64_t i = 0; i < len; i++)
                    seq[o][i] = (o == EV_UPMONO && c0[i] < 0 && !bogus) ? EV_PROMOTED : c0[i];
            }
        for (int64_t i = 0; i < len;) {
            int64_t b = i + 1;
            while (b < len && g0[b] == g0[i])
                b++;
            if (b - i > 1) {
                tied = 1;
                for (int64_t x = i; x < b; x++) { /* (never for the bogus document) */
                    pairs[2 * (x - i)] = dr[a + x];
                    pairs[2 * (x - i) + 1] = x;
                }
                qsort(pairs, (size_t)(b - i), 2 * sizeof(int64_t), ev_cmp_doc);
                for (int64_t x = i; x < b; x++)
                    seq[EV_TREC][x] = c0[pairs[2 * (x - i) + 1]];
                if (need[EV_REAL])
                    qsort(seq[EV_REAL] + i, (size_t)(b - i), sizeof(int64_t), ev_cmp_asc);
                if (need[EV_OPT])
                    qsort(seq[EV_OPT] + i, (size_t)(b - i), sizeof(int64_t), ev_cmp_desc);
                if (need[EV_UPMONO])
                    qsort(seq[EV_UPMONO] + i, (size_t)(b - i), sizeof(int64_t), ev_cmp_desc);
            }
            i = b;
        }
        for (int64_t i = 0; i < len && i < unj_k && !bogus; i++)
            unj += seq[EV_TREC][i] < 0;
        for (Py_ssize_t j = 0; j < M; j++) {
            int fam = (int)spec[EV_NSPEC * j + EV_S_FAM];
            int64_t k = spec[EV_NSPEC * j + EV_S_CUTOFF], rel = spec[EV_NSPEC * j + EV_S_REL];
            double val[EV_NORD];
            int done_[EV_NORD] = {0};
            for (Py_ssize_t r = 0; r < K; r++) {
                int o = (int)ord[j * K + r];
                /* a topic without a tied group has one ordering: every regime's value is
                 * trec_eval's (as tiebreak.evaluation.evaluator takes it), but upper_mono's, whose
                 * unjudged documents count as relevant */
                int oo = (tied || o == EV_UPMONO) ? o : EV_TREC;
                if (!done_[oo]) {
                    val[oo] = oo == EV_EXP ? ev_expected(fam, k, rel, c0, g0, len, &tp, scratch)
                                           : ev_det(fam, k, rel, fpar + EV_NFP * j, seq[oo],
                                                    len, &tp, scratch);
                    done_[oo] = 1;
                }
                out[(j * K + r) * T + t] = val[oo];
            }
        }
    }
    Py_END_ALLOW_THREADS
    res = PyLong_FromLongLong(unj);
done:
    free(buf);
    free(pairs);
    free(scratch);
    PyBuffer_Release(&bst);
    PyBuffer_Release(&bnr);
    PyBuffer_Release(&bti);
    PyBuffer_Release(&bc);
    PyBuffer_Release(&bd);
    PyBuffer_Release(&bg);
    PyBuffer_Release(&blev);
    PyBuffer_Release(&blog);
    PyBuffer_Release(&bspec);
    PyBuffer_Release(&bfp);
    PyBuffer_Release(&bord);
    PyBuffer_Release(&bout);
    return res;
}

/* judge_dense(qt, docrank, doc_map, table, itemsize, D, value, relkey, grade, judged, qrow):
 * tiebreak.ranking.judged.judge's lookup through the dense (topic, qrels docno) table of
 * qrels rows, in one pass over the run's lines.
 *   qt       int64 (n,)  qrels topic of each line (>= 0: the lines of other topics dropped)
 *   docrank  int64 (n,)  the line's docno among the run's distinct docnos
 *   doc_map  int64 (d,)  the qrels docno id of each run docno, -1 when the qrels lack it
 *   table    (T, D) signed integers of itemsize bytes: qrels row, -1 when not judged
 *   value    int64 (m,)  qrels values
 * writes relkey int64 (the qrels value; -1 not in the qrels, -2 for a negative value), grade
 * float64 (the value when >= 0, else 0), judged uint8 (value >= 0), qrow int64 (row or -1) */
static PyObject *judge_dense(PyObject *self, PyObject *args) {
    Py_buffer bq, bd, bm, bt, bv, brk, bg, bj, bw;
    Py_ssize_t itemsize, D;
    PyObject *res = NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*y*nny*w*w*w*w*", &bq, &bd, &bm, &bt, &itemsize, &D, &bv,
                          &brk, &bg, &bj, &bw))
        return NULL;
    Py_ssize_t n = bq.len / 8, nd = bm.len / 8, m = bv.len / 8;
    Py_ssize_t T = (itemsize > 0 && D > 0) ? bt.len / itemsize / D : 0;
    if (check_len(&bd, n, 8, "docrank") || check_len(&brk, n, 8, "relkey") ||
        check_len(&bg, n, 8, "grade") || check_len(&bj, n, 1, "judged") ||
        check_len(&bw, n, 8, "qrow"))
        goto done;
    if (!(itemsize == 1 || itemsize == 2 || itemsize == 4 || itemsize == 8) ||
        bt.len != T * D * itemsize) {
        PyErr_SetString(PyExc_ValueError, "judge_dense: bad table");
        goto done;
    }
    const int64_t *qt = bq.buf, *dr = bd.buf, *dm = bm.buf, *val = bv.buf;
    int64_t *relkey = brk.buf, *qrow = bw.buf;
    double *grade = bg.buf;
    uint8_t *judged = bj.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t t = qt[i], d = dr[i], q = -1, row = -1;
        if (d < 0 || d >= nd || t < 0 || t >= T) {
            PyErr_SetString(PyExc_ValueError, "judge_dense: index out of range");
            goto done;
        }
        q = dm[d];
        if (q >= D) {
            PyErr_SetString(PyExc_ValueError, "judge_dense: docno id out of range");
            goto done;
        }
        if (q >= 0) {
            Py_ssize_t at = t * D + q;
            switch (itemsize) {
            case 1: row = ((const int8_t *)bt.buf)[at]; break;
            case 2: row = ((const int16_t *)bt.buf)[at]; break;
            case 4: row = ((const int32_t *)bt.buf)[at]; break;
            default: row = ((const int64_t *)bt.buf)[at]; break;
            }
        }
        if (row >= m) {
            PyErr_SetString(PyExc_ValueError, "judge_dense: qrels row out of range");
            goto done;
        }
        if (row >= 0) {
            int64_t v = val[row];
            relkey[i] = v < 0 ? -2 : v;
            judged[i] = v >= 0;
            grade[i] = v >= 0 ? (double)v : 0.0;
            qrow[i] = row;
        } else {
            relkey[i] = -1;
            judged[i] = 0;
            grade[i] = 0.0;
            qrow[i] = -1;
        }
    }
    res = Py_None;
    Py_INCREF(res);
done:
    PyBuffer_Release(&bq);
    PyBuffer_Release(&bd);
    PyBuffer_Release(&bm);
    PyBuffer_Release(&bt);
    PyBuffer_Release(&bv);
    PyBuffer_Release(&brk);
    PyBuffer_Release(&bg);
    PyBuffer_Release(&bj);
    PyBuffer_Release(&bw);
    return res;
}

#define EXT_EVAL_METHODS                                                                       \
    {"eval_core", eval_core, METH_VARARGS, "A run's measures under every regime (_ext_eval.c)."}, \
    {"judge_dense", judge_dense, METH_VARARGS, "Judge a run's lines (_ext_eval.c)."},
