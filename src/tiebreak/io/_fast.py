"""Compiled kernels of the fast run reader: fields, decimal numbers and interning, over the raw
bytes, with no Python object per line.

Only the run and qrels readers (:mod:`tiebreak.io.runs`, :mod:`tiebreak.io.qrels`) use them, and
only on inputs the kernels prove they read exactly as the strict reader does; anything else (a
field count other than the format's, a comment, a blank line, a number outside C ``strtod``
decimal syntax) makes them decline, and the strict reader runs.

When the C extension :mod:`tiebreak._native._ext` is built (``pip install .`` with a C compiler),
the
readers use its twins of these kernels instead (:mod:`tiebreak.io._cfast`: same results, same
declines, no numba start-up); this module is then the fallback (``TIEBREAK_NO_EXT=1``).
"""

from __future__ import annotations

import math

import numpy as np

from .._native.jit import numba as nb
from ._pow5 import Q_MAX, Q_MIN, powers_of_five

_POW10 = 10.0 ** np.arange(23)  # exact doubles 1e0 .. 1e22
_Q_MIN, _Q_MAX = Q_MIN, Q_MAX
_POW5 = powers_of_five()  # the Eisel-Lemire table (shared with the C parser)
_M32 = np.uint64(0xFFFFFFFF)


@nb.njit(cache=True, nogil=True, inline="always")
def _mul128(a, b):  # pragma: no cover - compiled
    """Full 64 x 64 -> 128-bit product of two uint64, as (high, low)."""
    s32 = np.uint64(32)
    a0, a1 = a & _M32, a >> s32
    b0, b1 = b & _M32, b >> s32
    p0, p1, p2, p3 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p0 >> s32) + (p1 & _M32) + (p2 & _M32)
    return p3 + (p1 >> s32) + (p2 >> s32) + (mid >> s32), (p0 & _M32) | (mid << s32)


@nb.njit(cache=True, nogil=True)
def _eisel_lemire(w, q):  # pragma: no cover - compiled
    """w * 10**q (w: uint64 > 0, exact decimal significand) correctly rounded to a double, or
    NaN when this fast algorithm cannot decide (the caller then parses the token exactly)."""
    if q < _Q_MIN or q > _Q_MAX:
        return math.nan
    one = np.uint64(1)
    lz = 0
    while (w >> np.uint64(63)) == 0:
        w = w << one
        lz += 1
    idx = q - _Q_MIN
    hi, lo = _mul128(w, _POW5[idx, 0])
    if (hi & np.uint64(0x1FF)) == np.uint64(0x1FF):
        hi2, _ = _mul128(w, _POW5[idx, 1])
        lo2 = lo + hi2
        if hi2 > lo2:
            hi = hi + one
        lo = lo2
        if lo == np.uint64(0xFFFFFFFFFFFFFFFF) and (q < -27 or q > 55):
            return math.nan
    upper = np.int64(hi >> np.uint64(63))
    shift = np.uint64(upper + 9)
    mant = hi >> shift
    power2 = (((152170 + 65536) * q) >> 16) + 63 + upper - lz + 1023
    if power2 <= 0:  # subnormal: leave it to the exact parser
        return math.nan
    if lo <= one and -4 <= q <= 23 and (mant & np.uint64(3)) == one:
        if (mant << shift) == hi:
            mant = mant & ~one
    mant = mant + (mant & one)
    mant = mant >> one
    if mant >= (np.uint64(2) << np.uint64(52)):
        mant = one << np.uint64(52)
        power2 += 1
    if power2 >= 0x7FF:
        return math.inf
    return math.ldexp(float(mant), power2 - 1075)


@nb.njit(cache=True, nogil=True)
def split_fields(a, nl, nf, st, en):  # pragma: no cover - compiled
    """Fill ``st`` and ``en`` (integer arrays of shape (nl * nf,); int32 suffices for a text
    under 2 GiB) with the starts and ends of the fields of a text in which every one of the
    ``nl`` lines holds exactly ``nf`` fields, separated by C ``isspace`` bytes, the first not
    starting with ``#``. Returns (0, starts, ends), or (1, ...) when the text is not like that."""
    n = a.shape[0]
    k = 0
    line = 0
    cnt = 0
    infield = False
    for i in range(n):
        c = a[i]
        if c == 32 or (c >= 9 and c <= 13):
            if infield:
                en[k - 1] = i
                infield = False
            if c == 10:
                if cnt != nf:
                    return 1, st, en
                cnt = 0
                line += 1
        elif not infield:
            if cnt == nf or line >= nl or (cnt == 0 and c == 35):
                return 1, st, en
            st[k] = i
            k += 1
            cnt += 1
            infield = True
    if infield:
        en[k - 1] = n
    if cnt != 0:
        if cnt != nf:
            return 1, st, en
        line += 1
    if line != nl or k != nl * nf:
        return 1, st, en
    return 0, st, en


@nb.njit(cache=True, nogil=True, inline="always")
def _decimal(a, i, e):  # pragma: no cover - compiled
    """The token ``a[i:e]`` as a decimal number in C ``strtod`` syntax
    (``[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?``): (status, value, slow,
    exponent). status 1: not a decimal number; exponent: written with ``e``/``E``.

    Correctly rounded: with at most 15 significant digits and a power of ten within 1e+-22, one
    IEEE multiplication or division of two exact doubles (Clinger's fast path); else, up to 18
    significant digits, the Eisel-Lemire algorithm; ``slow`` marks the rest (more digits,
    subnormal results, the algorithm's rare undecided cases), which the caller parses exactly."""
    neg = False
    if a[i] == 43 or a[i] == 45:
        neg = a[i] == 45
        i += 1
    mant = 0
    nd = 0
    ndig = 0
    frac = 0
    dot = False
    inexact = False
    while i < e:
        c = a[i]
        if c >= 48 and c <= 57:
            ndig += 1
            if mant == 0 and c == 48:
                if dot:
                    frac += 1
            elif nd < 18:
                mant = mant * 10 + (c - 48)
                nd += 1
                if dot:
                    frac += 1
            else:
                inexact = True
        elif c == 46 and not dot:
            dot = True
        else:
            break
        i += 1
    if ndig == 0:
        return 1, 0.0, False, False
    exp = 0
    has_exp = i < e
    if i < e:
        if a[i] != 101 and a[i] != 69:
            return 1, 0.0, False, False
        i += 1
        eneg = False
        if i < e and (a[i] == 43 or a[i] == 45):
            eneg = a[i] == 45
            i += 1
        if i >= e:
            return 1, 0.0, False, False
        while i < e:
            c = a[i]
            if c < 48 or c > 57:
                return 1, 0.0, False, False
            if exp < 100000:
                exp = exp * 10 + (c - 48)
            i += 1
        if eneg:
            exp = -exp
    e10 = exp - frac
    if mant == 0 and not inexact:
        return 0, (-0.0 if neg else 0.0), False, has_exp
    if not inexact and nd <= 15 and -22 <= e10 <= 22:
        v = float(mant)
        v = v * _POW10[e10] if e10 >= 0 else v / _POW10[-e10]
        return 0, (-v if neg else v), False, has_exp
    v = math.nan if inexact else _eisel_lemire(np.uint64(mant), e10)
    if math.isnan(v):
        return 0, 0.0, True, has_exp
    return 0, (-v if neg else v), False, has_exp


@nb.njit(cache=True, nogil=True, inline="always")
def _hash(a, s, e):  # pragma: no cover - compiled
    """64-bit hash of ``a[s:e]``: the bytes packed 8 to a word, each word folded in with one
    multiplication, then MurmurHash3's finaliser (it spreads every bit over the index bits, so
    keys that differ only in their last digits, such as d12345 and d12346, do not cluster)."""
    h = np.uint64(14695981039346656037) ^ np.uint64(e - s)
    w = np.uint64(0)
    c = 0
    for i in range(s, e):
        w = (w << np.uint64(8)) | np.uint64(a[i])
        c += 1
        if c == 8:
            h = (h ^ w) * np.uint64(0x9E3779B97F4A7C15)
            w = np.uint64(0)
            c = 0
    h = (h ^ w) * np.uint64(0x9E3779B97F4A7C15)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xC4CEB9FE1A85EC53)
    h ^= h >> np.uint64(33)
    return h


@nb.njit(cache=True, nogil=True)
def _table(cap):  # pragma: no cover - compiled
    """An empty interning table with room for ``cap`` distinct strings (the caller grows it with
    :func:`_grown` when :func:`_find` finds it full): (slots, meta, keys, count).

    ``slots`` (uint64, 2 x a power of two >= 2 cap; open addressing, linear probing) holds each
    slot's string number + 1 (0: empty) and the string's hash side by side, one cache line per
    probe; ``meta`` (int64, (cap, 3)) each string's start in ``keys``, length, and where it was
    first seen; ``keys`` (uint8) a compact copy of the strings; ``count`` (int64, (2,)) the
    number of strings and of key bytes used."""
    size = 64
    while size < 2 * cap:
        size *= 2
    return (np.zeros(2 * size, np.uint64), np.empty((size // 2, 3), np.int64),
            np.empty(max(8 * cap, 64), np.uint8), np.zeros(2, np.int64))


@nb.njit(cache=True, nogil=True)
def _grown(slots, meta, keys, cnt, n):  # pragma: no cover - compiled
    """(slots, meta, keys) with room for twice the strings and at least ``n`` more key bytes;
    every string keeps its number."""
    k, used = cnt[0], cnt[1]
    if k == meta.shape[0]:
        slots2, meta2, _, _ = _table(2 * meta.shape[0])
        meta2[:k] = meta[:k]
        size = slots2.shape[0] // 2
        for d in range(k):
            h = _hash(keys, meta[d, 0], meta[d, 0] + meta[d, 1])
            sl = np.int64(h & np.uint64(size - 1))
            while slots2[2 * sl] != 0:
                sl = (sl + 1) & (size - 1)
            slots2[2 * sl] = np.uint64(d + 1)
            slots2[2 * sl + 1] = h
        slots, meta = slots2, meta2
    if used + n > keys.shape[0]:
        keys2 = np.empty(max(2 * keys.shape[0], used + n), np.uint8)
        keys2[:used] = keys[:used]
        keys = keys2
    return slots, meta, keys


@nb.njit(cache=True, nogil=True, inline="always")
def _find(slots, meta, keys, cnt, a, s, e, j):  # pragma: no cover - compiled
    """Number of the string ``a[s:e]`` in the table, adding it when new and recording ``j``
    (the caller's token index or byte position) as where it was first seen; -1 when it is new
    and the table is full (the caller then grows it with :func:`_grown` and asks again)."""
    n = e - s
    h = _hash(a, s, e)
    mask = slots.shape[0] // 2 - 1
    slot = np.int64(h & np.uint64(mask))
    while True:
        v = slots[2 * slot]
        if v == 0:
            break
        if slots[2 * slot + 1] == h:
            d = np.int64(v) - 1
            if meta[d, 1] == n:
                ks = meta[d, 0]
                same = True
                for x in range(n):
                    if keys[ks + x] != a[s + x]:
                        same = False
                        break
                if same:
                    return d
        slot = (slot + 1) & mask
    k, used = cnt[0], cnt[1]
    if k == meta.shape[0] or used + n > keys.shape[0]:
        return -1  # no room: the caller grows the table (:func:`_grown`) and asks again
    for x in range(n):  # a loop, not a slice copy: no array view per new string
        keys[used + x] = a[s + x]
    meta[k, 0] = used
    meta[k, 1] = n
    meta[k, 2] = j
    slots[2 * slot] = np.uint64(k + 1)
    slots[2 * slot + 1] = h
    cnt[0] = k + 1
    cnt[1] = used + n
    return k


@nb.njit(cache=True, nogil=True, inline="always")
def _same(a, s1, e1, s2, e2):  # pragma: no cover - compiled
    if e1 - s1 != e2 - s2:
        return False
    for x in range(e1 - s1):
        if a[s1 + x] != a[s2 + x]:
            return False
    return True


@nb.njit(cache=True, nogil=True)
def intern(a, st, en):  # pragma: no cover - compiled
    """Distinct byte strings among the tokens ``a[st[j]:en[j]]``. Returns (ids, first):
    ``ids[j]`` numbers token j's string in order of first appearance; ``first[d]`` is the index
    of the first token with string d.

    The table (:func:`_table`) grows with the distinct strings, not with the tokens, and keeps
    each distinct string's hash and a compact copy of its bytes, so a lookup touches memory
    proportional to the vocabulary, not random places of the whole text. A token equal to the
    one before it (qids and tags repeat line after line) is not looked up."""
    m = st.shape[0]
    slots, meta, keys, cnt = _table(min(m, 1 << 14))
    ids = np.empty(m, np.int64)
    for j in range(m):
        s, e = st[j], en[j]
        if j > 0 and _same(a, st[j - 1], en[j - 1], s, e):
            ids[j] = ids[j - 1]
            continue
        while True:
            d = _find(slots, meta, keys, cnt, a, s, e, j)
            if d >= 0:
                break
            slots, meta, keys = _grown(slots, meta, keys, cnt, e - s)
        ids[j] = d
    return ids, meta[:cnt[0], 2].copy()


@nb.njit(cache=True, nogil=True)
def _spans(meta, cnt):  # pragma: no cover - compiled
    """(start, end) of each distinct string of a table filled by :func:`read_run6` (which
    records the byte position of each string's first occurrence)."""
    k = cnt[0]
    out = np.empty((k, 2), np.int64)
    for x in range(k):
        out[x, 0] = meta[x, 2]
        out[x, 1] = meta[x, 2] + meta[x, 1]
    return out


@nb.njit(cache=True, nogil=True)
def _intern_column(a, st, en, col, skip_repeat, ids, cap):  # pragma: no cover - compiled
    """Intern the tokens ``a[st[j, col]:en[j, col]]`` into ``ids`` (numbers in order of first
    appearance; a token equal to the one before it is not looked up when ``skip_repeat``).
    Returns each distinct string's (start, end) in ``a`` at its first occurrence, int64 (d, 2)."""
    slots, meta, keys, cnt = _table(cap)
    for j in range(st.shape[0]):
        s, e = st[j, col], en[j, col]
        if skip_repeat and j > 0 and _same(a, st[j - 1, col], en[j - 1, col], s, e):
            ids[j] = ids[j - 1]
            continue
        while True:
            d = _find(slots, meta, keys, cnt, a, s, e, s)
            if d >= 0:
                break
            slots, meta, keys = _grown(slots, meta, keys, cnt, e - s)
        ids[j] = d
    return _spans(meta, cnt)


def read_run6(a, nl):
    """:func:`_read_run6` with field offset arrays allocated here: int32 (48 bytes a line) for a
    text under 2 GiB, else int64."""
    pos = np.int32 if a.shape[0] < 1 << 31 else np.int64
    return _read_run6(a, nl, np.empty((nl, 6), pos), np.empty((nl, 6), pos))


@nb.njit(cache=True, nogil=True)
def _read_run6(a, nl, st, en):  # pragma: no cover - compiled
    """Read a run text whose every one of its ``nl`` lines holds exactly six fields
    ``qid Q0 docno rank score tag`` separated by C ``isspace`` bytes, the first not starting with
    ``#``: fields found (:func:`split_fields` into the caller's ``st``, ``en``: int32 or int64,
    shape (nl, 6)), rank and score parsed (:func:`_decimal`), qids, docnos and tags interned,
    with no Python object per line. Each step is its own tight loop over the lines: one loop
    doing all of them per line ran 1.6x slower (numba keeps the growing tables and the
    per-line field arrays live across the whole loop).

    Returns (status, topic, docid, rank, score, exponent, slow, qid first, docno first, tag first,
    lines whose tag is not the first line's): ``topic``/``docid`` (int64, shape (nl,)) number the
    qids/docnos in order of first appearance; ``slow`` (int64, shape (s, 4): line, field 3 or 4,
    start, end) lists the numbers the caller must parse exactly; each ``first`` (int64, shape
    (d, 2)) gives the start and end in ``a`` of each distinct string's first occurrence.
    status 1 when the text is not like that (the strict reader then runs and names the problem).
    """
    topic = np.empty(nl, np.int64)
    docid = np.empty(nl, np.int64)
    rank = np.empty(nl)
    score = np.empty(nl)
    expo = np.zeros(nl, np.bool_)
    e0 = np.empty((0, 2), np.int64)
    bad = (1, topic, docid, rank, score, expo, np.empty((0, 4), np.int64), e0, e0, e0, 0)
    status, _, _ = split_fields(a, nl, 6, st.reshape(nl * 6), en.reshape(nl * 6))
    if status:
        return bad
    nslow = 0
    for line in range(nl):
        status, v, sl, _ = _decimal(a, st[line, 3], en[line, 3])
        if status:
            return bad
        rank[line] = v
        nslow += sl
        status, v, sl, ex = _decimal(a, st[line, 4], en[line, 4])
        if status:
            return bad
        score[line] = v
        expo[line] = ex
        nslow += sl
    slow = np.empty((nslow, 4), np.int64)
    k = 0
    for line in range(nl if nslow else 0):
        for f in range(3, 5):
            if _decimal(a, st[line, f], en[line, f])[2]:
                slow[k, 0] = line
                slow[k, 1] = f
                slow[k, 2] = st[line, f]
                slow[k, 3] = en[line, f]
                k += 1
    qspan = _intern_column(a, st, en, 0, True, topic, 64)
    dspan = _intern_column(a, st, en, 2, False, docid, min(nl, 1 << 14))
    tag = np.empty(nl, np.int64)
    tspan = _intern_column(a, st, en, 5, True, tag, 4)
    ndiff = 0
    for line in range(nl):
        ndiff += tag[line] != 0
    return (0, topic, docid, rank, score, expo, slow, qspan, dspan, tspan, ndiff)


@nb.njit(cache=True, nogil=True)
def parse_integers(a, st, en, out):  # pragma: no cover - compiled
    """Parse the tokens ``a[st[j]:en[j]]`` as decimal integers ``[+-]? digits`` of at most 18
    digits (so within int64) into ``out``; returns 1 when a token is anything else (the caller
    then leaves it to the strict reader, which names it), else 0."""
    for j in range(st.shape[0]):
        i = st[j]
        e = en[j]
        neg = False
        if a[i] == 43 or a[i] == 45:
            neg = a[i] == 45
            i += 1
        if i >= e or e - i > 18:
            return 1
        v = 0
        while i < e:
            c = a[i]
            if c < 48 or c > 57:
                return 1
            v = v * 10 + (c - 48)
            i += 1
        out[j] = -v if neg else v
    return 0


@nb.njit(cache=True, nogil=True)
def gather_fixed(a, st, en, width):  # pragma: no cover - compiled
    """The tokens ``a[st[j]:en[j]]`` as the rows of a zero-padded uint8 array (len(st), width),
    to be viewed as numpy ``S<width>`` strings."""
    out = np.zeros((st.shape[0], width), np.uint8)
    for j in range(st.shape[0]):
        s = st[j]
        for t in range(en[j] - s):
            out[j, t] = a[s + t]
    return out


@nb.njit(cache=True, nogil=True)
def no_repeats(topic, docid, n_topics, n_docnos):  # pragma: no cover - compiled
    """1 when every (topic, docid) pair occurs once and every topic's lines are contiguous, so
    the caller may skip its sort; 0 when there is a repeat or a topic comes back after another
    (the caller's sort then finds and names the repeats)."""
    seen_topic = np.zeros(n_topics, np.bool_)
    mark = np.full(n_docnos, -1, np.int64)
    block = -1
    for j in range(topic.shape[0]):
        t = topic[j]
        if j == 0 or t != topic[j - 1]:
            if seen_topic[t]:
                return 0
            seen_topic[t] = True
            block += 1
        d = docid[j]
        if mark[d] == block:
            return 0
        mark[d] = block
    return 1
