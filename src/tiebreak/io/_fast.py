"""Compiled kernels of the fast run reader: fields, decimal numbers and interning, over the raw
bytes, with no Python object per line.

Only :mod:`tiebreak.io.runs` uses them, and only on inputs the kernels prove they read exactly as
the strict reader does; anything else (a field count other than 6, a comment, a blank line, a
number outside C ``strtod`` decimal syntax) makes them decline, and the strict reader runs.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

_POW10 = 10.0 ** np.arange(23)  # exact doubles 1e0 .. 1e22
_Q_MIN, _Q_MAX = -342, 308


def _powers_of_five() -> np.ndarray:
    """128-bit approximations of 5**q, q = -342 .. 308, normalised so that bit 127 is set
    (truncated for q >= 0, rounded up for q < 0), as (high, low) uint64 pairs: the table of the
    Eisel-Lemire algorithm (D. Lemire, "Number parsing at a gigabyte per second", Software:
    Practice and Experience 51(8), 2021)."""
    out = np.empty((_Q_MAX - _Q_MIN + 1, 2), np.uint64)
    for q in range(_Q_MIN, _Q_MAX + 1):
        if q >= 0:
            c = 5**q
            while c < 1 << 127:
                c <<= 1
            while c >= 1 << 128:
                c >>= 1
        else:
            p5 = 5**-q
            z = p5.bit_length() if p5 & (p5 - 1) else p5.bit_length() - 1
            c = (1 << (z + 127 if q >= -27 else 2 * z + 128)) // p5 + 1
            while c >= 1 << 128:
                c >>= 1
        out[q - _Q_MIN] = (c >> 64, c & ((1 << 64) - 1))
    return out


_POW5 = _powers_of_five()
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


@nb.njit(cache=True, nogil=True)
def parse_decimals(a, st, en, out, slow, expo):  # pragma: no cover - compiled
    """Parse the tokens ``a[st[j]:en[j]]`` as decimal numbers in C ``strtod`` syntax
    (``[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?``) into ``out``.

    Correctly rounded: with at most 15 significant digits and a power of ten within 1e+-22, one
    IEEE multiplication or division of two exact doubles (Clinger's fast path); else, up to 18
    significant digits, the Eisel-Lemire algorithm; the indices of the remaining tokens (more
    digits, subnormal results, the algorithm's rare undecided cases) go to ``slow`` for an exact
    parse by the caller. ``expo[j]`` is set when token j has an exponent (``e``/``E``). Returns
    (status, number of slow tokens); status 1 means a token is not a decimal number."""
    nslow = 0
    for j in range(st.shape[0]):
        i = st[j]
        e = en[j]
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
            return 1, nslow
        exp = 0
        expo[j] = i < e
        if i < e:
            if a[i] != 101 and a[i] != 69:
                return 1, nslow
            i += 1
            eneg = False
            if i < e and (a[i] == 43 or a[i] == 45):
                eneg = a[i] == 45
                i += 1
            if i >= e:
                return 1, nslow
            while i < e:
                c = a[i]
                if c < 48 or c > 57:
                    return 1, nslow
                if exp < 100000:
                    exp = exp * 10 + (c - 48)
                i += 1
            if eneg:
                exp = -exp
        e10 = exp - frac
        if mant == 0 and not inexact:
            out[j] = -0.0 if neg else 0.0
        elif not inexact and nd <= 15 and -22 <= e10 <= 22:
            v = float(mant)
            v = v * _POW10[e10] if e10 >= 0 else v / _POW10[-e10]
            out[j] = -v if neg else v
        else:
            v = math.nan if inexact else _eisel_lemire(np.uint64(mant), e10)
            if math.isnan(v):
                slow[nslow] = j
                nslow += 1
            else:
                out[j] = -v if neg else v
    return 0, nslow


@nb.njit(cache=True, nogil=True)
def intern(a, st, en):  # pragma: no cover - compiled
    """Distinct byte strings among the tokens ``a[st[j]:en[j]]``, by hashing (FNV-1a with
    MurmurHash3's 64-bit finaliser, open addressing, linear probing). Returns (ids, first):
    ``ids[j]`` numbers token j's string in order of first appearance; ``first[d]`` is the index
    of the first token with string d.

    The table grows with the distinct strings (not with the tokens) and keeps each distinct
    string's hash and a compact copy of its bytes, so a lookup touches memory proportional to
    the vocabulary, not random places of the whole text: on 1 M docnos of which 100 k distinct
    this is ~10x faster than a table sized by the tokens."""
    m = st.shape[0]
    size = 1024
    table = np.full(size, -1, np.int64)
    hashes = np.empty(256, np.uint64)
    kst = np.empty(256, np.int64)
    klen = np.empty(256, np.int64)
    keys = np.empty(4096, np.uint8)
    first = np.empty(256, np.int64)
    ids = np.empty(m, np.int64)
    k = 0
    used = 0
    for j in range(m):
        s = st[j]
        e = en[j]
        n = e - s
        if j > 0 and en[j - 1] - st[j - 1] == n:  # qids and tags repeat line after line
            ps = st[j - 1]
            same = True
            for t in range(n):
                if a[ps + t] != a[s + t]:
                    same = False
                    break
            if same:
                ids[j] = ids[j - 1]
                continue
        h = np.uint64(14695981039346656037)
        for i in range(s, e):
            h = (h ^ np.uint64(a[i])) * np.uint64(1099511628211)
        # FNV's low bits mix poorly for keys that differ only in their last digits (docnos such
        # as d12345): MurmurHash3's finaliser spreads every bit over the index bits
        h ^= h >> np.uint64(33)
        h *= np.uint64(0xFF51AFD7ED558CCD)
        h ^= h >> np.uint64(33)
        h *= np.uint64(0xC4CEB9FE1A85EC53)
        h ^= h >> np.uint64(33)
        slot = np.int64(h & np.uint64(size - 1))
        while True:
            d = table[slot]
            if d == -1:
                break
            if hashes[d] == h and klen[d] == n:
                ks = kst[d]
                same = True
                for t in range(n):
                    if keys[ks + t] != a[s + t]:
                        same = False
                        break
                if same:
                    break
            slot = (slot + 1) & (size - 1)
        if d != -1:
            ids[j] = d
            continue
        # a new distinct string: append it, growing the arrays (and the table at half load)
        if k == hashes.shape[0]:
            cap = 2 * k
            hashes2 = np.empty(cap, np.uint64)
            hashes2[:k] = hashes
            hashes = hashes2
            kst2 = np.empty(cap, np.int64)
            kst2[:k] = kst
            kst = kst2
            klen2 = np.empty(cap, np.int64)
            klen2[:k] = klen
            klen = klen2
            first2 = np.empty(cap, np.int64)
            first2[:k] = first
            first = first2
        if used + n > keys.shape[0]:
            keys2 = np.empty(max(2 * keys.shape[0], used + n), np.uint8)
            keys2[:used] = keys[:used]
            keys = keys2
        for t in range(n):  # a loop, not a slice copy: no array views per new string
            keys[used + t] = a[s + t]
        hashes[k] = h
        kst[k] = used
        klen[k] = n
        first[k] = j
        used += n
        table[slot] = k
        ids[j] = k
        k += 1
        if 2 * k > size:
            size *= 2
            table = np.full(size, -1, np.int64)
            msk = np.uint64(size - 1)
            for d2 in range(k):
                sl = np.int64(hashes[d2] & msk)
                while table[sl] != -1:
                    sl = (sl + 1) & (size - 1)
                table[sl] = d2
    return ids, first[:k].copy()


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
