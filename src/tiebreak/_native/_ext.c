/* tiebreak._native._ext: the compiled kernels of the evaluation command path in plain C99 over the
 * CPython C API, so that reading runs and qrels and ordering their lines needs no numba.
 *
 * The reader kernels split fields, parse decimals correctly rounded (Eisel-Lemire, exact
 * fallback) and number distinct strings in order of first appearance, and decline on any input
 * the strict Python reader (the definition) might read differently: the caller then runs that
 * reader, which accepts the input or names the file, line and field of the problem. The ranking
 * kernels compute what the numpy code of tiebreak/ranking computes (same additions in the same
 * order). Arrays cross the
 * boundary as buffers: the Python wrappers (tiebreak/io/_cfast.py, tiebreak/ranking/_cloops.py)
 * pass numpy arrays in and wrap the returned bytearrays with numpy.frombuffer, so no numpy
 * header is needed to build this module.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_pow5.h"

/* ------------------------------------------------------------------------------------------ */
/* helpers                                                                                      */

/* C isspace in the "C" locale, as bytes.split() splits: \t \n \v \f \r and space */
#define IS_WS(c) ((c) == 32 || ((c) >= 9 && (c) <= 13))

/* a new bytearray of n bytes, uninitialised; *p its storage */
static PyObject *new_bytes(Py_ssize_t n, void **p) {
    PyObject *b = PyByteArray_FromStringAndSize(NULL, n > 0 ? n : 0);
    if (b != NULL)
        *p = PyByteArray_AS_STRING(b);
    return b;
}

static int check_len(Py_buffer *b, Py_ssize_t n, Py_ssize_t itemsize, const char *what) {
    if (b->len != n * itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd bytes, got %zd", what, n * itemsize,
                     b->len);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* decimal numbers in C strtod syntax, correctly rounded                                       */

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* full 64 x 64 -> 128-bit product, portable */
static void mul128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p0 = a0 * b0, p1 = a0 * b1, p2 = a1 * b0, p3 = a1 * b1;
    uint64_t mid = (p0 >> 32) + (p1 & 0xFFFFFFFFu) + (p2 & 0xFFFFFFFFu);
    *hi = p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
    *lo = (p0 & 0xFFFFFFFFu) | (mid << 32);
}

/* floor(x / 65536) for any sign */
static int64_t floor_shift16(int64_t x) {
    return x >= 0 ? x / 65536 : -((-x + 65535) / 65536);
}

/* w * 10**q (w > 0, exact decimal significand) correctly rounded, or NaN when the algorithm
 * (Lemire 2021) cannot decide or the result is subnormal: the caller parses the token exactly */
static double eisel_lemire(uint64_t w, int64_t q) {
    int64_t lz = 0, idx, upper, power2;
    uint64_t hi, lo, mant, shift;
    if (q < POW5_QMIN || q > POW5_QMAX)
        return NAN;
    while ((w >> 63) == 0) {
        w <<= 1;
        lz++;
    }
    idx = q - POW5_QMIN;
    mul128(w, POW5[idx][0], &hi, &lo);
    if ((hi & 0x1FF) == 0x1FF) {
        uint64_t hi2, lo2x, lo2;
        mul128(w, POW5[idx][1], &hi2, &lo2x);
        lo2 = lo + hi2;
        if (hi2 > lo2)
            hi += 1;
        lo = lo2;
        if (lo == UINT64_C(0xFFFFFFFFFFFFFFFF) && (q < -27 || q > 55))
            return NAN;
    }
    upper = (int64_t)(hi >> 63);
    shift = (uint64_t)(upper + 9);
    mant = hi >> shift;
    power2 = floor_shift16((152170 + 65536) * q) + 63 + upper - lz + 1023;
    if (power2 <= 0)
        return NAN;
    if (lo <= 1 && q >= -4 && q <= 23 && (mant & 3) == 1) {
        if ((mant << shift) == hi)
            mant &= ~(uint64_t)1;
    }
    mant += mant & 1;
    mant >>= 1;
    if (mant >= (UINT64_C(2) << 52)) {
        mant = UINT64_C(1) << 52;
        power2 += 1;
    }
    if (power2 >= 0x7FF)
        return HUGE_VAL;
    return ldexp((double)mant, (int)(power2 - 1075));
}

/* a[i:e] as a decimal number ([+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?):
 * returns 1 when it is not one; else 0 with *out the value, *slow set when the caller must parse
 * it exactly (more than 18 significant digits, subnormal, undecided), *has_exp when it is
 * written with an exponent. */
static int parse_decimal(const uint8_t *a, Py_ssize_t i, Py_ssize_t e, double *out, int *slow,
                         int *has_exp) {
    int neg = 0, dot = 0, inexact = 0;
    int64_t mant = 0, nd = 0, ndig = 0, frac = 0, ex = 0, e10;
    double v;
    *slow = 0;
    *has_exp = 0;
    if (a[i] == '+' || a[i] == '-') {
        neg = a[i] == '-';
        i++;
    }
    while (i < e) {
        uint8_t c = a[i];
        if (c >= '0' && c <= '9') {
            ndig++;
            if (mant == 0 && c == '0') {
                if (dot)
                    frac++;
            } else if (nd < 18) {
                mant = mant * 10 + (c - '0');
                nd++;
                if (dot)
                    frac++;
            } else {
                inexact = 1;
            }
        } else if (c == '.' && !dot) {
            dot = 1;
        } else {
            break;
        }
        i++;
    }
    if (ndig == 0)
        return 1;
    if (i < e) {
        int eneg = 0;
        *has_exp = 1;
        if (a[i] != 'e' && a[i] != 'E')
            return 1;
        i++;
        if (i < e && (a[i] == '+' || a[i] == '-')) {
            eneg = a[i] == '-';
            i++;
        }
        if (i >= e)
            return 1;
        while (i < e) {
            uint8_t c = a[i];
            if (c < '0' || c > '9')
                return 1;
            if (ex < 100000)
                ex = ex * 10 + (c - '0');
            i++;
        }
        if (eneg)
            ex = -ex;
    }
    e10 = ex - frac;
    if (mant == 0 && !inexact) {
        *out = neg ? -0.0 : 0.0;
        return 0;
    }
    if (!inexact && nd <= 15 && e10 >= -22 && e10 <= 22) {
        v = (double)mant;
        v = e10 >= 0 ? v * POW10[e10] : v / POW10[-e10];
        *out = neg ? -v : v;
        return 0;
    }
    v = inexact ? NAN : eisel_lemire((uint64_t)mant, e10);
    if (isnan(v)) {
        *out = 0.0;
        *slow = 1;
        return 0;
    }
    *out = neg ? -v : v;
    return 0;
}

/* parse_decimal for the common tokens: [+-]? digits [. digits] with at most 18 digits in all
 * and no exponent (every rank, most scores), with the same result; anything else goes to
 * parse_decimal. */
static inline int parse_number(const uint8_t *a, Py_ssize_t i, Py_ssize_t e, double *out,
                               int *slow, int *has_exp) {
    Py_ssize_t p = i, f0;
    uint64_t mant = 0, d;
    int neg = 0, ndig, frac = 0;
    if (a[p] == '+' || a[p] == '-') {
        neg = a[p] == '-';
        p++;
    }
    f0 = p;
    while (p < e && (d = (uint64_t)a[p] - '0') < 10) {
        mant = mant * 10 + d;
        p++;
    }
    ndig = (int)(p - f0);
    if (p < e && a[p] == '.') {
        p++;
        f0 = p;
        while (p < e && (d = (uint64_t)a[p] - '0') < 10) {
            mant = mant * 10 + d;
            p++;
        }
        frac = (int)(p - f0);
        ndig += frac;
    }
    if (p < e || ndig == 0 || ndig > 18)
        return parse_decimal(a, i, e, out, slow, has_exp);
    *slow = 0;
    *has_exp = 0;
    if (mant == 0) {
        *out = neg ? -0.0 : 0.0;
    } else if (mant < UINT64_C(1000000000000000) && frac <= 22) {
        double v = (double)mant / POW10[frac];
        *out = neg ? -v : v;
    } else {
        double v = eisel_lemire(mant, -frac);
        if (isnan(v)) {
            *out = 0.0;
            *slow = 1;
        } else {
            *out = neg ? -v : v;
        }
    }
    return 0;
}

/* the exact value of a token the fast paths left (Python's own correctly rounded parser, the
 * one float() uses); called with the GIL held. Returns -1 with an exception set on failure. */
static int parse_exact(const uint8_t *a, Py_ssize_t s, Py_ssize_t e, double *out) {
    char buf[128];
    char *p = buf, *end = NULL;
    Py_ssize_t n = e - s;
    if (n + 1 > (Py_ssize_t)sizeof buf) {
        p = PyMem_Malloc(n + 1);
        if (p == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    memcpy(p, a + s, n);
    p[n] = 0;
    *out = PyOS_string_to_double(p, &end, NULL);
    if (p != buf)
        PyMem_Free(p);
    if (*out == -1.0 && PyErr_Occurred())
        return -1;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* interning: distinct byte strings numbered in order of first appearance                     */

typedef struct {
    uint64_t *slots;   /* 2 per slot: string number + 1 (0: empty), hash */
    Py_ssize_t size;   /* slots, a power of two */
    int64_t *span;     /* 2 per string: start and end of its first occurrence */
    Py_ssize_t count, cap;
} Table;

/* p[0:n] == q[0:n]; short tokens (docnos, qids) compared 8 bytes at a time */
static inline int same_bytes(const uint8_t *p, const uint8_t *q, Py_ssize_t n) {
    uint64_t x, y;
    while (n >= 8) {
        memcpy(&x, p, 8);
        memcpy(&y, q, 8);
        if (x != y)
            return 0;
        p += 8;
        q += 8;
        n -= 8;
    }
    while (n > 0) {
        if (*p++ != *q++)
            return 0;
        n--;
    }
    return 1;
}

static uint64_t hash_bytes(const uint8_t *p, Py_ssize_t n) {
    uint64_t h = UINT64_C(14695981039346656037) ^ (uint64_t)n, w;
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);
        h = (h ^ w) * UINT64_C(0x9E3779B97F4A7C15);
    }
    w = 0;
    for (; i < n; i++)
        w = (w << 8) | p[i];
    h = (h ^ w) * UINT64_C(0x9E3779B97F4A7C15);
    h ^= h >> 33;
    h *= UINT64_C(0xFF51AFD7ED558CCD);
    h ^= h >> 33;
    h *= UINT64_C(0xC4CEB9FE1A85EC53);
    h ^= h >> 33;
    return h;
}

static int table_init(Table *t, Py_ssize_t cap) {
    Py_ssize_t size = 64;
    while (size < 2 * cap)
        size *= 2;
    t->size = size;
    t->cap = size / 2;
    t->count = 0;
    t->slots = calloc((size_t)(2 * size), sizeof(uint64_t));
    t->span = malloc((size_t)(2 * t->cap) * sizeof(int64_t));
    return (t->slots && t->span) ? 0 : -1;
}

static void table_free(Table *t) {
    free(t->slots);
    free(t->span);
    t->slots = NULL;
    t->span = NULL;
}

static int table_grow(Table *t, const uint8_t *a) {
    Py_ssize_t size = 2 * t->size, d;
    uint64_t *slots = calloc((size_t)(2 * size), sizeof(uint64_t));
    int64_t *span = realloc(t->span, (size_t)(2 * (size / 2)) * sizeof(int64_t));
    if (span != NULL)
        t->span = span;
    if (slots == NULL || span == NULL) {
        free(slots);
        return -1;
    }
    for (d = 0; d < t->count; d++) {
        int64_t s = t->span[2 * d], e = t->span[2 * d + 1];
        uint64_t h = hash_bytes(a + s, e - s);
        Py_ssize_t sl = (Py_ssize_t)(h & (uint64_t)(size - 1));
        while (slots[2 * sl] != 0)
            sl = (sl + 1) & (size - 1);
        slots[2 * sl] = (uint64_t)(d + 1);
        slots[2 * sl + 1] = h;
    }
    free(t->slots);
    t->slots = slots;
    t->size = size;
    t->cap = size / 2;
    return 0;
}

/* number of the string a[s:e], added when new; -1 when out of memory */
static int64_t table_find(Table *t, const uint8_t *a, Py_ssize_t s, Py_ssize_t e) {
    Py_ssize_t n = e - s, mask, sl;
    uint64_t h = hash_bytes(a + s, n), v;
    if (t->count == t->cap && table_grow(t, a) < 0)
        return -1;
    mask = t->size - 1;
    sl = (Py_ssize_t)(h & (uint64_t)mask);
    while ((v = t->slots[2 * sl]) != 0) {
        if (t->slots[2 * sl + 1] == h) {
            int64_t d = (int64_t)v - 1, ds = t->span[2 * d];
            if (t->span[2 * d + 1] - ds == n && same_bytes(a + ds, a + s, n))
                return d;
        }
        sl = (sl + 1) & mask;
    }
    t->slots[2 * sl] = (uint64_t)(t->count + 1);
    t->slots[2 * sl + 1] = h;
    t->span[2 * t->count] = s;
    t->span[2 * t->count + 1] = e;
    return t->count++;
}

/* the table's spans as bytes (int64 (count, 2)) */
static PyObject *table_spans(Table *t) {
    return PyBytes_FromStringAndSize((const char *)t->span,
                                     (Py_ssize_t)(2 * t->count * sizeof(int64_t)));
}

static int same_token(const uint8_t *a, Py_ssize_t s1, Py_ssize_t e1, Py_ssize_t s2,
                      Py_ssize_t e2) {
    return e1 - s1 == e2 - s2 && same_bytes(a + s1, a + s2, e1 - s1);
}

/* ------------------------------------------------------------------------------------------ */
/* lines of exactly nf fields                                                                   */

/* the fields of the line starting at *pos: fills fs/fe (nf each), moves *pos past the line's
 * end. Returns 1 for a line of exactly nf fields whose first does not start with '#', 0 for a
 * final piece without fields after the last newline, -1 for anything else. */
/* byte classes: 1 a blank other than \n, 2 \n, 0 anything else */
static uint8_t CLS[256];

static void init_classes(void) {
    int c;
    for (c = 0; c < 256; c++)
        CLS[c] = IS_WS(c) ? (c == '\n' ? 2 : 1) : 0;
}

/* index of the lowest set bit of x != 0 (de Bruijn multiplication: portable C) */
static int lowest_bit(uint64_t x) {
    static const int8_t pos[64] = {
        0,  1,  48, 2,  57, 49, 28, 3,  61, 58, 50, 42, 38, 29, 17, 4,
        62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30, 24, 18, 12, 5,
        63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11,
        46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9,  13, 8,  7,  6};
    return pos[((x & (~x + 1)) * UINT64_C(0x03f79d71b4cb0a89)) >> 58];
}

static int little_endian = 0; /* set at module init: words loaded with memcpy are scanned
                               * 8 bytes at a time only on little-endian machines */

/* the end of the token starting at i: the first C isspace byte at or after i, or n. Eight
 * bytes at a time: a word with no byte below 0x21 holds no blank; the lowest byte the test
 * flags is below 0x21 (the subtraction's borrows only reach higher bytes), and is checked. */
static inline Py_ssize_t token_end(const uint8_t *a, Py_ssize_t i, Py_ssize_t n) {
    if (little_endian) {
        while (i + 8 <= n) {
            uint64_t w, m;
            memcpy(&w, a + i, 8);
            m = (w - UINT64_C(0x2121212121212121)) & ~w & UINT64_C(0x8080808080808080);
            if (m == 0) {
                i += 8;
                continue;
            }
            i += lowest_bit(m) >> 3;
            if (CLS[a[i]] != 0)
                return i;
            i++; /* a control byte that is not a blank: part of the token */
        }
    }
    while (i < n && CLS[a[i]] == 0)
        i++;
    return i;
}

static int line_fields(const uint8_t *a, Py_ssize_t n, Py_ssize_t *pos, int nf, Py_ssize_t *fs,
                       Py_ssize_t *fe) {
    Py_ssize_t i = *pos;
    int cnt = 0;
    for (;;) {
        while (i < n && CLS[a[i]] == 1)
            i++;
        if (i >= n || a[i] == '\n')
            break;
        if (cnt == nf || (cnt == 0 && a[i] == '#'))
            return -1;
        fs[cnt] = i;
        i = token_end(a, i, n);
        fe[cnt++] = i;
    }
    if (i < n) {
        *pos = i + 1;
        return cnt == nf ? 1 : -1;
    }
    *pos = n;
    if (cnt == 0)
        return 0;
    return cnt == nf ? 1 : -1;
}

/* the line-th line of a reader's loop (of at most nl): 1 a line of exactly nf fields, 0 the
 * end of the text, -1 anything else (the reader declines) */
static inline int next_line(const uint8_t *a, Py_ssize_t n, Py_ssize_t *pos, int nf,
                            Py_ssize_t *fs, Py_ssize_t *fe, Py_ssize_t line, Py_ssize_t nl) {
    int st = line_fields(a, n, pos, nf, fs, fe);
    return st > 0 && line >= nl ? -1 : st;
}

/* the strings of one column numbered in order of first appearance; a line whose token is the
 * previous line's (a run's qid and tag, qrels' qid) skips the table */
typedef struct {
    Table t;
    Py_ssize_t s, e; /* the previous line's token */
    int64_t code;    /* its number; -1 before the first line */
} Column;

static int column_init(Column *c, Py_ssize_t cap) {
    c->s = c->e = 0;
    c->code = -1;
    return table_init(&c->t, cap);
}

/* the number of the token a[s:e] in the column; -1 when out of memory */
static inline int64_t column_code(Column *c, const uint8_t *a, Py_ssize_t s, Py_ssize_t e) {
    if (c->code < 0 || !same_token(a, c->s, c->e, s, e)) {
        c->code = table_find(&c->t, a, s, e);
        c->s = s;
        c->e = e;
    }
    return c->code;
}

/* the numbers the fast paths cannot round: parsed again with the GIL held (parse_exact) */
typedef struct {
    int64_t line;
    int field;
    Py_ssize_t s, e;
} Slow;

typedef struct {
    Slow *v;
    Py_ssize_t n, cap;
} SlowList;

/* field f of the line, a decimal number, into *out (*has_exp: written with e/E); a token the
 * fast paths cannot round is listed in *sl. 0, -1 when the token is not a decimal number, -2
 * when out of memory */
static inline int number_field(const uint8_t *a, const Py_ssize_t *fs, const Py_ssize_t *fe,
                               int f, int64_t line, double *out, int *has_exp, SlowList *sl) {
    int slow;
    if (parse_number(a, fs[f], fe[f], out, &slow, has_exp))
        return -1;
    if (slow) {
        if (sl->n == sl->cap) {
            Py_ssize_t cap = sl->cap ? 2 * sl->cap : 64;
            Slow *v = realloc(sl->v, (size_t)cap * sizeof(Slow));
            if (v == NULL)
                return -2;
            sl->v = v;
            sl->cap = cap;
        }
        sl->v[sl->n].line = line;
        sl->v[sl->n].field = f;
        sl->v[sl->n].s = fs[f];
        sl->v[sl->n++].e = fe[f];
    }
    return 0;
}

/* after a reader's loop: 1 when it ends here, out of memory (an exception set) or declining
 * (*result None), else 0 */
static int loop_end(int nomem, int ok, PyObject **result) {
    if (nomem) {
        PyErr_NoMemory();
        return 1;
    }
    if (!ok) {
        Py_INCREF(Py_None);
        *result = Py_None;
        return 1;
    }
    return 0;
}

/* read_run6(data, nl) -> None when the text is not nl lines of exactly six fields
 * `qid Q0 docno rank score tag` (C isspace separators, no line starting with '#') with a finite
 * decimal rank and score, else (topic, docid, rank, score, exponent, qid spans, docno spans,
 * tag spans, lines whose tag is not the first line's): topic/docid int64 (nl,) bytearrays
 * numbering the qids/docnos in order of first appearance, rank/score float64 (nl,), exponent
 * bool (nl,) (the score is written with e/E), spans int64 (d, 2) bytes: start and end of each
 * distinct string's first occurrence. */
static PyObject *read_run6(PyObject *self, PyObject *args) {
    Py_buffer buf;
    Py_ssize_t nl, n, pos = 0, line = 0, fs[6], fe[6], k;
    const uint8_t *a;
    int64_t *topic = NULL, *docid = NULL, ndiff = 0;
    double *rank = NULL, *score = NULL;
    uint8_t *expo = NULL;
    PyObject *o_topic = NULL, *o_docid = NULL, *o_rank = NULL, *o_score = NULL, *o_expo = NULL;
    PyObject *result = NULL;
    Column cq = {0}, ct = {0};
    Table td = {0};
    SlowList slow = {0};
    int ok = 1, nomem = 0;

    if (!PyArg_ParseTuple(args, "y*n", &buf, &nl))
        return NULL;
    a = buf.buf;
    n = buf.len;
    if (nl <= 0 || n == 0) {  /* nothing to read: the strict reader decides */
        PyBuffer_Release(&buf);
        Py_RETURN_NONE;
    }
    o_topic = new_bytes(nl * 8, (void **)&topic);
    o_docid = new_bytes(nl * 8, (void **)&docid);
    o_rank = new_bytes(nl * 8, (void **)&rank);
    o_score = new_bytes(nl * 8, (void **)&score);
    o_expo = new_bytes(nl, (void **)&expo);
    if (!o_topic || !o_docid || !o_rank || !o_score || !o_expo)
        goto done;
    if (column_init(&cq, 64) || table_init(&td, nl < 16384 ? nl : 16384) ||
        column_init(&ct, 4)) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    while (pos < n) {
        int st = next_line(a, n, &pos, 6, fs, fe, line, nl), hx;
        int64_t qid, d, tid;
        if (st == 0)
            break;
        if (st < 0 || (st = number_field(a, fs, fe, 3, line, &rank[line], &hx, &slow)) < 0 ||
            (st = number_field(a, fs, fe, 4, line, &score[line], &hx, &slow)) < 0) {
            nomem = st == -2;
            ok = 0;
            break;
        }
        expo[line] = (uint8_t)hx;
        qid = column_code(&cq, a, fs[0], fe[0]);
        d = table_find(&td, a, fs[2], fe[2]);
        tid = column_code(&ct, a, fs[5], fe[5]);
        if (qid < 0 || d < 0 || tid < 0) {
            nomem = 1;
            break;
        }
        topic[line] = qid;
        docid[line] = d;
        ndiff += tid != 0;
        line++;
    }
    if (line != nl)
        ok = 0;
    Py_END_ALLOW_THREADS
    if (loop_end(nomem, ok, &result))
        goto done;
    for (k = 0; k < slow.n; k++) {  /* the few numbers the fast paths cannot round */
        Slow *sk = &slow.v[k];
        double v;
        if (parse_exact(a, sk->s, sk->e, &v) < 0)
            goto done;
        (sk->field == 4 ? score : rank)[sk->line] = v;
    }
    for (k = 0; k < nl; k++) {
        if (!isfinite(score[k]) || !isfinite(rank[k])) {
            loop_end(0, 0, &result); /* a number that is not finite: decline */
            goto done;
        }
    }
    {
        PyObject *qs = table_spans(&cq.t), *ds = table_spans(&td), *ts = table_spans(&ct.t);
        if (qs && ds && ts)
            result = Py_BuildValue("(OOOOOOOOL)", o_topic, o_docid, o_rank, o_score, o_expo, qs,
                                   ds, ts, (long long)ndiff);
        Py_XDECREF(qs);
        Py_XDECREF(ds);
        Py_XDECREF(ts);
    }
done:
    free(slow.v);
    table_free(&cq.t);
    table_free(&td);
    table_free(&ct.t);
    Py_XDECREF(o_topic);
    Py_XDECREF(o_docid);
    Py_XDECREF(o_rank);
    Py_XDECREF(o_score);
    Py_XDECREF(o_expo);
    PyBuffer_Release(&buf);
    return result;
}

/* read_fields4(data, nl, with_iter) -> None when the text is not nl lines of exactly four fields
 * `qid iter docno rel` (no line starting with '#') with rel an integer [+-]? digits of at most
 * 18 digits, else (value, qcode, qid spans, docid, docno spans, icode, iter spans): value and
 * codes int64 (nl,) bytearrays (codes number distinct strings in order of first appearance),
 * spans int64 (d, 2) bytes; icode and iter spans None unless with_iter. */
static PyObject *read_fields4(PyObject *self, PyObject *args) {
    Py_buffer buf;
    Py_ssize_t nl, n, pos = 0, line = 0, fs[4], fe[4];
    const uint8_t *a;
    int with_iter, ok = 1, nomem = 0, c;
    int64_t *value = NULL, *code[3] = {NULL, NULL, NULL};
    PyObject *o_value = NULL, *o_code[3] = {NULL, NULL, NULL}, *result = NULL;
    Column col[3] = {0};
    static const int cols[3] = {0, 2, 1};

    if (!PyArg_ParseTuple(args, "y*np", &buf, &nl, &with_iter))
        return NULL;
    a = buf.buf;
    n = buf.len;
    if (nl <= 0 || n == 0) {  /* nothing to read: the strict reader decides */
        PyBuffer_Release(&buf);
        Py_RETURN_NONE;
    }
    o_value = new_bytes(nl * 8, (void **)&value);
    if (!o_value)
        goto done;
    for (c = 0; c < 2 + with_iter; c++) {
        o_code[c] = new_bytes(nl * 8, (void **)&code[c]);
        if (!o_code[c])
            goto done;
        if (column_init(&col[c], c == 1 ? (nl < 16384 ? nl : 16384) : 64)) {
            PyErr_NoMemory();
            goto done;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    while (pos < n) {
        int st = next_line(a, n, &pos, 4, fs, fe, line, nl), neg = 0;
        Py_ssize_t i, e;
        int64_t v = 0;
        if (st == 0)
            break;
        if (st < 0) {
            ok = 0;
            break;
        }
        i = fs[3];
        e = fe[3];
        if (a[i] == '+' || a[i] == '-') {
            neg = a[i] == '-';
            i++;
        }
        if (i >= e || e - i > 18) {
            ok = 0;
            break;
        }
        for (; i < e; i++) {
            if (a[i] < '0' || a[i] > '9')
                break;
            v = v * 10 + (a[i] - '0');
        }
        if (i < e) {
            ok = 0;
            break;
        }
        value[line] = neg ? -v : v;
        for (c = 0; c < 2 + with_iter; c++) {
            int64_t d = column_code(&col[c], a, fs[cols[c]], fe[cols[c]]);
            if (d < 0) {
                nomem = 1;
                break;
            }
            code[c][line] = d;
        }
        if (nomem)
            break;
        line++;
    }
    if (line != nl)
        ok = 0;
    Py_END_ALLOW_THREADS
    if (loop_end(nomem, ok, &result))
        goto done;
    {
        PyObject *sp[3] = {NULL, NULL, NULL};
        int good = 1;
        for (c = 0; c < 2 + with_iter; c++) {
            sp[c] = table_spans(&col[c].t);
            good = good && sp[c] != NULL;
        }
        if (good)
            result = Py_BuildValue("(OOOOOOO)", o_value, o_code[0], sp[0], o_code[1], sp[1],
                                   with_iter ? o_code[2] : Py_None,
                                   with_iter ? sp[2] : Py_None);
        for (c = 0; c < 3; c++)
            Py_XDECREF(sp[c]);
    }
done:
    for (c = 0; c < 3; c++) {
        table_free(&col[c].t);
        Py_XDECREF(o_code[c]);
    }
    Py_XDECREF(o_value);
    PyBuffer_Release(&buf);
    return result;
}

/* gather_fixed(data, starts, ends, width) -> bytearray (k * width): the tokens
 * data[starts[j]:ends[j]] (int64 (k,)) as zero-padded rows of width bytes */
static PyObject *gather_fixed(PyObject *self, PyObject *args) {
    Py_buffer buf, bs, be;
    Py_ssize_t width, k, j;
    uint8_t *out = NULL;
    PyObject *o = NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*n", &buf, &bs, &be, &width))
        return NULL;
    k = bs.len / 8;
    if (check_len(&be, k, 8, "ends") == 0 && (o = new_bytes(k * width, (void **)&out))) {
        const int64_t *s = bs.buf, *e = be.buf;
        const uint8_t *a = buf.buf;
        memset(out, 0, (size_t)(k * width));
        for (j = 0; j < k; j++) {
            Py_ssize_t len = (Py_ssize_t)(e[j] - s[j]);
            if (s[j] < 0 || len < 0 || len > width || e[j] > buf.len) {
                PyErr_SetString(PyExc_ValueError, "gather_fixed: token outside the text");
                Py_CLEAR(o);
                break;
            }
            memcpy(out + j * width, a + s[j], (size_t)len);
        }
    }
    PyBuffer_Release(&buf);
    PyBuffer_Release(&bs);
    PyBuffer_Release(&be);
    return o;
}

/* no_repeats(topic, docid, n_topics, n_docnos) -> 1 when every (topic, docid) pair (int64 (n,)
 * each) occurs once and each topic's lines are contiguous, else 0 */
static PyObject *no_repeats(PyObject *self, PyObject *args) {
    Py_buffer bt, bd;
    Py_ssize_t nt, nd, n, j, block = -1;
    uint8_t *seen = NULL;
    int64_t *mark = NULL;
    long res = 1;
    if (!PyArg_ParseTuple(args, "y*y*nn", &bt, &bd, &nt, &nd))
        return NULL;
    n = bt.len / 8;
    if (check_len(&bd, n, 8, "docid")) {
        res = -1;
        goto done;
    }
    seen = calloc((size_t)(nt > 0 ? nt : 1), 1);
    mark = malloc((size_t)(nd > 0 ? nd : 1) * sizeof(int64_t));
    if (!seen || !mark) {
        PyErr_NoMemory();
        res = -1;
        goto done;
    }
    {
        const int64_t *t = bt.buf, *d = bd.buf;
        for (j = 0; j < nd; j++)
            mark[j] = -1;
        for (j = 0; j < n; j++) {
            if (t[j] < 0 || t[j] >= nt || d[j] < 0 || d[j] >= nd) {
                res = 0;  /* out of range: let the numpy code decide */
                break;
            }
            if (j == 0 || t[j] != t[j - 1]) {
                if (seen[t[j]]) {
                    res = 0;
                    break;
                }
                seen[t[j]] = 1;
                block++;
            }
            if (mark[d[j]] == block) {
                res = 0;
                break;
            }
            mark[d[j]] = block;
        }
    }
done:
    free(seen);
    free(mark);
    PyBuffer_Release(&bt);
    PyBuffer_Release(&bd);
    return res < 0 ? NULL : PyLong_FromLong(res);
}

/* ------------------------------------------------------------------------------------------ */
/* ranking loops (tiebreak/ranking/_loops.py)                                                 */

/* numpy's order of doubles: NaN after everything, NaNs equal */
static int less_f64(double x, double y) { return x < y || (y != y && x == x); }

/* stable merge sort of idx[0:n] by key[idx[.]] ascending (numpy's mergesort order) */
static void msort(int64_t *idx, int64_t *tmp, Py_ssize_t n, const double *key) {
    Py_ssize_t width, i;
    if (n < 2)
        return;
    for (i = 0; i < n; i += 16) {  /* insertion sort of runs of 16 */
        Py_ssize_t hi = i + 16 < n ? i + 16 : n, p;
        for (p = i + 1; p < hi; p++) {
            int64_t v = idx[p];
            Py_ssize_t q = p;
            while (q > i && less_f64(key[v], key[idx[q - 1]])) {
                idx[q] = idx[q - 1];
                q--;
            }
            idx[q] = v;
        }
    }
    for (width = 16; width < n; width *= 2) {
        for (i = 0; i < n; i += 2 * width) {
            Py_ssize_t mid = i + width < n ? i + width : n;
            Py_ssize_t hi = i + 2 * width < n ? i + 2 * width : n, l = i, r = mid, o = i;
            if (mid >= hi || !less_f64(key[idx[mid]], key[idx[mid - 1]])) {
                memcpy(tmp + i, idx + i, (size_t)(hi - i) * sizeof(int64_t));
                continue;
            }
            while (l < mid && r < hi)
                tmp[o++] = less_f64(key[idx[r]], key[idx[l]]) ? idx[r++] : idx[l++];
            while (l < mid)
                tmp[o++] = idx[l++];
            while (r < hi)
                tmp[o++] = idx[r++];
        }
        memcpy(idx, tmp, (size_t)n * sizeof(int64_t));
    }
}

/* seg_cumsum(x, topic, out): out[i] = running sum of x restarted where topic changes */
static PyObject *seg_cumsum(PyObject *self, PyObject *args) {
    Py_buffer bx, bt, bo;
    Py_ssize_t n, i;
    PyObject *r = NULL;
    if (!PyArg_ParseTuple(args, "y*y*w*", &bx, &bt, &bo))
        return NULL;
    n = bx.len / 8;
    if (!check_len(&bt, n, 8, "topic") && !check_len(&bo, n, 8, "out")) {
        const double *x = bx.buf;
        const int64_t *t = bt.buf;
        double *out = bo.buf, acc = 0.0;
        for (i = 0; i < n; i++) {
            if (i > 0 && t[i] != t[i - 1])
                acc = 0.0;
            acc += x[i];
            out[i] = acc;
        }
        r = Py_None;
        Py_INCREF(r);
    }
    PyBuffer_Release(&bx);
    PyBuffer_Release(&bt);
    PyBuffer_Release(&bo);
    return r;
}

/* hygiene(t, s, rk, nt, contra, ties, inc) -> bool: tiebreak.ranking._loops.hygiene, the
 * three int64 (nt,) outputs zeroed by the caller; False when a rank is NaN or a topic's lines
 * are not contiguous */
static PyObject *hygiene(PyObject *self, PyObject *args) {
    Py_buffer bt, bs, br, bc, bi, bn;
    Py_ssize_t nt, n, i, j, k;
    PyObject *r = NULL;
    int ok = 1;
    uint8_t *seen = NULL;
    int64_t *o = NULL, *tmp = NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*nw*w*w*", &bt, &bs, &br, &nt, &bc, &bi, &bn))
        return NULL;
    n = bt.len / 8;
    if (check_len(&bs, n, 8, "s") || check_len(&br, n, 8, "rk") || check_len(&bc, nt, 8, "c")
        || check_len(&bi, nt, 8, "t") || check_len(&bn, nt, 8, "i"))
        goto done;
    seen = calloc((size_t)(nt > 0 ? nt : 1), 1);
    o = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    tmp = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (!seen || !o || !tmp) {
        PyErr_NoMemory();
        goto done;
    }
    {
        const int64_t *t = bt.buf;
        const double *s = bs.buf, *rk = br.buf;
        int64_t *contra = bc.buf, *ties = bi.buf, *inc = bn.buf;
        for (i = 0; i < n; i++)
            if (isnan(rk[i]) || t[i] < 0 || t[i] >= nt)
                ok = 0;
        i = 0;
        while (ok && i < n) {
            int64_t tt = t[i];
            int in_order = 1;
            if (seen[tt]) {
                ok = 0;
                break;
            }
            seen[tt] = 1;
            for (j = i + 1; j < n && t[j] == tt; j++) {
                if (s[j] > s[j - 1])
                    inc[tt]++;
                if (rk[j] < rk[j - 1])
                    in_order = 0;
            }
            if (in_order) {
                contra[tt] = inc[tt];
                for (k = i + 1; k < j; k++)
                    if (rk[k] == rk[k - 1])
                        ties[tt]++;
            } else {
                for (k = i; k < j; k++)
                    o[k - i] = k;
                msort(o, tmp, j - i, rk);
                for (k = 1; k < j - i; k++) {
                    if (s[o[k]] > s[o[k - 1]])
                        contra[tt]++;
                    if (rk[o[k]] == rk[o[k - 1]])
                        ties[tt]++;
                }
            }
            i = j;
        }
    }
    r = PyBool_FromLong(ok);
done:
    free(seen);
    free(o);
    free(tmp);
    PyBuffer_Release(&bt);
    PyBuffer_Release(&bs);
    PyBuffer_Release(&br);
    PyBuffer_Release(&bc);
    PyBuffer_Release(&bi);
    PyBuffer_Release(&bn);
    return r;
}

/* select(order, qtopic, relkey, tmap, n_eval, judged_only, max_docs, promote, promoted)
 * -> (lines, topic, rank, code) int64 bytearrays: tiebreak.ranking._loops.select */
static PyObject *select_(PyObject *self, PyObject *args) {
    Py_buffer bo, bq, br, bm;
    Py_ssize_t n_eval, n, nq, nmap, i, m = 0, k;
    long long max_docs, promoted;
    int judged_only, promote;
    int64_t *cnt = NULL, *off = NULL, *seen = NULL, *o = NULL, *t = NULL, *rank = NULL,
            *code = NULL;
    PyObject *oo = NULL, *ot = NULL, *orank = NULL, *ocode = NULL, *r = NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*y*npLpL", &bo, &bq, &br, &bm, &n_eval, &judged_only,
                          &max_docs, &promote, &promoted))
        return NULL;
    n = bo.len / 8;
    nq = bq.len / 8;
    nmap = bm.len / 8;
    if (check_len(&br, nq, 8, "relkey"))
        goto done;
    cnt = calloc((size_t)(n_eval > 0 ? n_eval : 1), sizeof(int64_t));
    off = malloc((size_t)(n_eval > 0 ? n_eval : 1) * sizeof(int64_t));
    seen = calloc((size_t)(n_eval > 0 ? n_eval : 1), sizeof(int64_t));
    if (!cnt || !off || !seen) {
        PyErr_NoMemory();
        goto done;
    }
    {
        const int64_t *order = bo.buf, *qtopic = bq.buf, *relkey = br.buf, *tmap = bm.buf;
        for (i = 0; i < n; i++) {
            int64_t line = order[i], q, tt;
            if (line < 0 || line >= nq || (q = qtopic[line]) < 0 || q >= nmap) {
                PyErr_SetString(PyExc_IndexError, "select: index out of range");
                goto done;
            }
            tt = tmap[q];
            if (tt >= n_eval) {
                PyErr_SetString(PyExc_IndexError, "select: topic out of range");
                goto done;
            }
            if (tt < 0 || (judged_only && relkey[line] < 0))
                continue;
            cnt[tt]++;
        }
        for (k = 0; k < n_eval; k++) {
            off[k] = m;
            m += max_docs < 0 ? cnt[k] : (cnt[k] < max_docs ? cnt[k] : max_docs);
        }
        oo = new_bytes(m * 8, (void **)&o);
        ot = new_bytes(m * 8, (void **)&t);
        orank = new_bytes(m * 8, (void **)&rank);
        ocode = new_bytes(m * 8, (void **)&code);
        if (!oo || !ot || !orank || !ocode)
            goto done;
        for (i = 0; i < n; i++) {
            int64_t line = order[i], tt = tmap[qtopic[line]], c, rr, p;
            if (tt < 0)
                continue;
            c = relkey[line];
            if (judged_only && c < 0)
                continue;
            rr = ++seen[tt];
            if (max_docs >= 0 && rr > max_docs)
                continue;
            if (promote && c < 0)
                c = promoted;
            p = off[tt] + rr - 1;
            o[p] = line;
            t[p] = tt;
            rank[p] = rr;
            code[p] = c;
        }
        r = PyTuple_Pack(4, oo, ot, orank, ocode);
    }
done:
    free(cnt);
    free(off);
    free(seen);
    Py_XDECREF(oo);
    Py_XDECREF(ot);
    Py_XDECREF(orank);
    Py_XDECREF(ocode);
    PyBuffer_Release(&bo);
    PyBuffer_Release(&bq);
    PyBuffer_Release(&br);
    PyBuffer_Release(&bm);
    return r;
}

/* match_sorted(a, wa, b, wb, out): for each row of a (uint32 (n, wa), sorted) the index of the
 * equal row of b (uint32 (m, wb), sorted, distinct) in out (int64 (n,), filled with -1 by the
 * caller): a merge of the two sorted lists */
static PyObject *match_sorted(PyObject *self, PyObject *args) {
    Py_buffer ba, bb, bo;
    Py_ssize_t wa, wb, n, m, i, j = 0, w, x;
    PyObject *r = NULL;
    if (!PyArg_ParseTuple(args, "y*ny*nw*", &ba, &wa, &bb, &wb, &bo))
        return NULL;
    if (wa <= 0 || wb <= 0) {
        PyErr_SetString(PyExc_ValueError, "match_sorted: widths must be positive");
        goto done;
    }
    n = ba.len / (4 * wa);
    m = bb.len / (4 * wb);
    if (check_len(&ba, n * wa, 4, "a") || check_len(&bb, m * wb, 4, "b")
        || check_len(&bo, n, 8, "out"))
        goto done;
    w = wa > wb ? wa : wb;
    {
        const uint32_t *a = ba.buf, *b = bb.buf;
        int64_t *out = bo.buf;
        for (i = 0; i < n && j < m; i++) {
            while (j < m) {
                int c = 0;
                for (x = 0; x < w; x++) {
                    uint32_t ca = x < wa ? a[i * wa + x] : 0, cb = x < wb ? b[j * wb + x] : 0;
                    if (ca != cb) {
                        c = ca < cb ? -1 : 1;
                        break;
                    }
                }
                if (c == 0) {
                    out[i] = j;
                    break;
                }
                if (c < 0)
                    break;
                j++;
            }
        }
    }
    r = Py_None;
    Py_INCREF(r);
done:
    PyBuffer_Release(&ba);
    PyBuffer_Release(&bb);
    PyBuffer_Release(&bo);
    return r;
}

/* score_order(t0, s0, n_topics) -> (order, group, tied, starts, n_ret, rank) int64 bytearrays:
 * tiebreak.ranking._loops.score_order */
static PyObject *score_order(PyObject *self, PyObject *args) {
    Py_buffer bt, bs;
    Py_ssize_t nt, n, i, k, p, g = -1, m = 0;
    int64_t *so = NULL, *group = NULL, *tied = NULL, *starts = NULL, *n_ret = NULL,
            *rank = NULL, *fill = NULL, *size = NULL, *tmp = NULL;
    double *neg = NULL;
    PyObject *oso = NULL, *ogroup = NULL, *otied = NULL, *ostarts = NULL, *onret = NULL,
             *orank = NULL, *r = NULL;
    if (!PyArg_ParseTuple(args, "y*y*n", &bt, &bs, &nt))
        return NULL;
    n = bt.len / 8;
    if (check_len(&bs, n, 8, "s0"))
        goto done;
    oso = new_bytes(n * 8, (void **)&so);
    ogroup = new_bytes(n * 8, (void **)&group);
    orank = new_bytes(n * 8, (void **)&rank);
    ostarts = new_bytes(nt * 8, (void **)&starts);
    onret = new_bytes(nt * 8, (void **)&n_ret);
    fill = malloc((size_t)(nt > 0 ? nt : 1) * sizeof(int64_t));
    size = calloc((size_t)(n > 0 ? n : 1), sizeof(int64_t));
    tmp = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    neg = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (!oso || !ogroup || !orank || !ostarts || !onret)
        goto done;
    if (!fill || !size || !tmp || !neg) {
        PyErr_NoMemory();
        goto done;
    }
    {
        const int64_t *t0 = bt.buf;
        const double *s0 = bs.buf;
        int64_t acc = 0;
        memset(n_ret, 0, (size_t)nt * sizeof(int64_t));
        for (i = 0; i < n; i++) {
            if (t0[i] < 0 || t0[i] >= nt) {
                PyErr_SetString(PyExc_IndexError, "score_order: topic out of range");
                goto done;
            }
            n_ret[t0[i]]++;
        }
        for (k = 0; k < nt; k++) {
            starts[k] = acc;
            fill[k] = acc;
            acc += n_ret[k];
        }
        for (i = 0; i < n; i++)
            so[fill[t0[i]]++] = i;
        for (i = 0; i < n; i++)
            neg[i] = -s0[i];
        for (k = 0; k < nt; k++) {
            Py_ssize_t a0 = starts[k], b0 = starts[k] + n_ret[k];
            for (p = a0 + 1; p < b0; p++) {
                if (s0[so[p]] > s0[so[p - 1]]) {
                    msort(so + a0, tmp, b0 - a0, neg);
                    break;
                }
            }
        }
        for (p = 0; p < n; p++) {
            int64_t li = so[p];
            if (p == 0 || t0[li] != t0[so[p - 1]] || s0[li] != s0[so[p - 1]])
                g++;
            group[p] = g;
            rank[p] = p - starts[t0[li]] + 1;
            size[g]++;
        }
        for (p = 0; p < n; p++)
            m += size[group[p]] > 1;
        otied = new_bytes(m * 8, (void **)&tied);
        if (!otied)
            goto done;
        m = 0;
        for (p = 0; p < n; p++)
            if (size[group[p]] > 1)
                tied[m++] = p;
        r = PyTuple_Pack(6, oso, ogroup, otied, ostarts, onret, orank);
    }
done:
    free(fill);
    free(size);
    free(tmp);
    free(neg);
    Py_XDECREF(oso);
    Py_XDECREF(ogroup);
    Py_XDECREF(otied);
    Py_XDECREF(ostarts);
    Py_XDECREF(onret);
    Py_XDECREF(orank);
    PyBuffer_Release(&bt);
    PyBuffer_Release(&bs);
    return r;
}

/* pow5_table() -> bytes: the Eisel-Lemire table as compiled in (a test compares it with
 * tiebreak.io._pow5.powers_of_five()) */
static PyObject *pow5_table(PyObject *self, PyObject *noargs) {
    return PyBytes_FromStringAndSize((const char *)POW5, (Py_ssize_t)sizeof POW5);
}

/* parse_decimal_token(token) -> (status, value, slow, has_exp): the decimal parser on one token,
 * for tests */
static PyObject *parse_decimal_token(PyObject *self, PyObject *args) {
    Py_buffer b;
    double v = 0.0;
    int st, sl = 0, hx = 0;
    PyObject *r;
    if (!PyArg_ParseTuple(args, "y*", &b))
        return NULL;
    if (b.len == 0)
        st = 1;
    else
        st = parse_number(b.buf, 0, b.len, &v, &sl, &hx);
    r = Py_BuildValue("(idii)", st, v, sl, hx);
    PyBuffer_Release(&b);
    return r;
}

#include "_ext_eval.c" /* eval_core: a run's measures under every regime */

static PyMethodDef methods[] = {
    {"read_run6", read_run6, METH_VARARGS, "Read a run of six-field lines (see _ext.c)."},
    {"read_fields4", read_fields4, METH_VARARGS, "Read qrels of four-field lines."},
    {"gather_fixed", gather_fixed, METH_VARARGS, "Tokens as zero-padded fixed-width rows."},
    {"no_repeats", no_repeats, METH_VARARGS, "1 when no (topic, docid) pair repeats."},
    {"seg_cumsum", seg_cumsum, METH_VARARGS, "Per-topic running sums."},
    {"hygiene", hygiene, METH_VARARGS, "Run hygiene counts."},
    {"select", select_, METH_VARARGS, "Evaluated positions of an ordering."},
    {"match_sorted", match_sorted, METH_VARARGS, "Merge of two sorted text arrays."},
    {"score_order", score_order, METH_VARARGS, "Lines by topic and score, tied groups."},
    {"pow5_table", pow5_table, METH_NOARGS, "The compiled Eisel-Lemire table."},
    {"parse_decimal_token", parse_decimal_token, METH_VARARGS, "Parse one decimal token."},
    EXT_EVAL_METHODS
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_ext",
                                    "tiebreak's compiled kernels in C (see _ext.c).", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__ext(void) {
    const uint16_t one = 1;
    init_classes();
    little_endian = *(const uint8_t *)&one == 1;
    return PyModule_Create(&module);
}
