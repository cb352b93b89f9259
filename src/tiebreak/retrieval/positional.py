"""Distance-based proximity models over a positional index (Lu 2018, §2.2.3 and Table 4.1):
BCTP, Rasolofo-Savoy, Hawking-Thistlewaite, cover density, Vuurens-de Vries and the Table 4.1
aggregators (MinDist, MaxDist, AvgDist, Summation, Amortized), each on a BM25 base.

Every model has the registry signature ``model(index, query_terms, k, **params) -> (docids
int32, scores float64)``, top ``k`` among the documents holding at least one query term, in
trec_eval order (score descending, then docno descending). Scores are

    score(Q, D) = BM25(Q, D) + proximity(Q, D)

with BM25 over every query term (``f_{q,Q}`` weights, ``k1``, ``b``, ``idf``; default the
Robertson-Walker idf ``log(N/df)`` the thesis uses for its proximity models) and the proximity
part of each model below, computed on the document's condensed direct file (the query-term
occurrences in position order, Lu 2018 Definition 2). Positions are those of the index
(stopwords take none).

Term-pair models (``d`` = ``p_j - p_i``, the distance of two positions; adjacent terms d = 1,
as in both original papers -- the thesis's Eq. 2.9 writes ``1/|I|^2``):

* ``bctp`` (Buettcher, Clarke & Lushman 2006; Eq. 2.9, 2.11): walking the occurrences in
  position order, each pair of consecutive occurrences of *different* terms adds
  ``w_prev d^-2`` to ``acc(t)`` and ``w_t d^-2`` to ``acc(t_prev)``; proximity =
  ``sum_t min(1, w_t) acc(t) (k1+1) / (acc(t) + K_D)``.
* ``rs`` (Rasolofo & Savoy 2003; Eq. 2.9-2.10): for every pair of distinct query terms,
  ``tpi = sum d^-2`` over their occurrence pairs with ``d <= window``; proximity =
  ``sum_pairs min(w_i, w_j) tpi (k1+1) / (tpi + K_D)``.

Interval models: the non-overlapping optimal intervals ``I(Q')`` (LPS, then greedy
left-to-right selection; spec §2.4) of every subquery ``Q'`` of at least two of the (at most
``max_prox_terms`` highest-IDF) distinct query terms; ``|I| = p_r - p_l + 1``:

* ``ht`` (Eq. 2.7): ``lam sum_{Q'} sum_I 1/(|I|-1)`` (``root=1``: ``1/sqrt(|I|-1)``),
* ``cdr`` (Eq. 2.8): ``lam sum sum (w/|I| if |I| > w else 1)``,
* ``vdv`` (Eq. 2.13): ``lam sum sum (|Q'|-1)/(|I|-1)``,
* ``mindist``/``maxdist``/``avgdist`` (Table 4.1; Tao & Zhai 2007's transform):
  ``sum_{Q'} log(1 + exp(-delta(Q'))/alpha)`` with delta the min / max / mean ``|I|`` of the
  subquery's intervals -- Tao & Zhai's ``log(alpha + exp(-delta))`` less ``log(alpha)``, so a
  subquery without an interval (delta = infinity) adds 0,
* ``sumdist`` (Table 4.1 Summation^1, ``w_{Q'} = w_I = 1``): ``lam sum sum 1/|I|``
  (``root=1``: Summation^2, ``1/sqrt|I|``),
* ``amortized`` (Table 4.1; Song et al. 2008): per term,
  ``acc(q) = sum_{Q' ∋ q} sum_I |Q'|^lam_q / |I|^gamma``, then
  ``sum_q w_q acc(q) (k1+1) / (acc(q) + K_D)`` (the BM25 TF slot, as Song et al. place it).

The document loop is one numba kernel per query; subqueries are bit masks over the local term
ids.

Size: one module because the distance-based models share one pass over the query terms' positions
per document.
"""

from __future__ import annotations

import math

import numpy as np

from .intervals import jit, lps_kernel
from .kernels import term_cursors
from .weights import BM25Scorer, _knorm, collection_stats, idf_weights, query_term_ids

__all__ = ["bctp", "rs", "ht", "cdr", "vdv", "mindist", "maxdist", "avgdist", "sumdist",
           "amortized", "plm", "pdfr", "bdfr", "cdf_of", "AGGREGATORS"]

#: mode codes of the interval kernel
_MODES = {"ht": 0, "cdr": 1, "vdv": 2, "mindist": 3, "maxdist": 4, "avgdist": 5,
          "sumdist": 6, "amortized": 7, "pdfr": 8, "bdfr": 9}
AGGREGATORS = tuple(_MODES)


def cdf_of(index, tids) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The condensed direct files of every document holding a query term.

    Returns ``docs`` int64 (n,) ascending, ``ptr`` int64 (n+1,), ``pos`` int32 and ``term``
    int32 (T,): document ``docs[i]``'s query-term occurrences are ``pos[ptr[i]:ptr[i+1]]``
    (ascending) with local term ids ``term[...]`` (the index into ``tids``). One merge of the
    terms' postings by docid (numba)."""
    c = index._cache
    if "pos-arrays" not in c:
        c["pos-arrays"] = (np.asarray(index.post_ptr, np.int64),
                           np.asarray(index.post_docid, np.int32),
                           np.asarray(index.pos_ptr, np.int64), np.asarray(index.pos, np.int32))
    pp, pd, qp, pos = c["pos-arrays"]
    tids = np.asarray(tids, np.int64)
    n_post = int((pp[tids + 1] - pp[tids]).sum())
    n_pos = int((qp[pp[tids + 1]] - qp[pp[tids]]).sum())
    docs = np.empty(n_post, np.int64)
    ptr = np.empty(n_post + 1, np.int64)
    cpos = np.empty(n_pos, np.int32)
    cterm = np.empty(n_pos, np.int32)
    nd = _cdf_kernel(pp, pd, qp, pos, tids, docs, ptr, cpos, cterm)
    return docs[:nd], ptr[:nd + 1], cpos, cterm


@jit
def _cdf_kernel(pp, pd, qp, pos, tids, docs, ptr, cpos, cterm):
    m = tids.size
    cur, end = term_cursors(pp, tids)
    nd = 0
    T = 0
    ptr[0] = 0
    big = np.int64(2**62)
    while True:
        d = big
        for i in range(m):
            if cur[i] < end[i] and pd[cur[i]] < d:
                d = pd[cur[i]]
        if d == big:
            break
        start = T
        for i in range(m):
            if cur[i] < end[i] and pd[cur[i]] == d:
                j = cur[i]
                for e in range(qp[j], qp[j + 1]):
                    cpos[T] = pos[e]
                    cterm[T] = i
                    T += 1
                cur[i] += 1
        # insertion sort of the document's occurrences by position (few per document)
        for a in range(start + 1, T):
            p, t = cpos[a], cterm[a]
            b = a - 1
            while b >= start and cpos[b] > p:
                cpos[b + 1] = cpos[b]
                cterm[b + 1] = cterm[b]
                b -= 1
            cpos[b + 1] = p
            cterm[b + 1] = t
        docs[nd] = d
        nd += 1
        ptr[nd] = T
    return nd


@jit
def _bctp_kernel(ptr, pos, term, w, knorm_d, k1, out):
    nq = w.size
    acc = np.zeros(nq)
    for i in range(ptr.size - 1):
        acc[:] = 0.0
        for e in range(ptr[i] + 1, ptr[i + 1]):
            t, tp = term[e], term[e - 1]
            if t != tp:
                d = np.float64(pos[e] - pos[e - 1])
                acc[t] += w[tp] / (d * d)
                acc[tp] += w[t] / (d * d)
        s = 0.0
        for t in range(nq):
            if acc[t] > 0.0:
                s += min(1.0, w[t]) * acc[t] * (k1 + 1.0) / (acc[t] + knorm_d[i])
        out[i] = s


@jit
def _rs_kernel(ptr, pos, term, w, knorm_d, k1, window, out):
    nq = w.size
    tpi = np.zeros((nq, nq))
    for i in range(ptr.size - 1):
        tpi[:, :] = 0.0
        a, b = ptr[i], ptr[i + 1]
        for e in range(a, b):
            for f in range(e + 1, b):
                d = pos[f] - pos[e]
                if d > window:
                    break
                if term[f] != term[e]:
                    x, y = min(term[e], term[f]), max(term[e], term[f])
                    tpi[x, y] += 1.0 / (np.float64(d) * d)
        s = 0.0
        for x in range(nq):
            for y in range(x + 1, nq):
                if tpi[x, y] > 0.0:
                    s += min(w[x], w[y]) * tpi[x, y] * (k1 + 1.0) / (tpi[x, y] + knorm_d[i])
        out[i] = s


@jit
def _pbil(pf, doclen, window, avgdl, norm2):
    """Terrier's pBiL (``norm2`` False) / pBiL2 (True) score of ``pf`` matching windows in a
    document of ``doclen`` tokens (Peng et al. 2007; module docstring of :func:`pdfr`)."""
    n = 1.0 if (doclen > 0 and doclen < window) else doclen - window + 1.0
    if pf >= n:
        pf = n - 0.1
    x = pf * np.log2(1.0 + avgdl / n) if norm2 else pf
    bg = avgdl if norm2 else n
    if bg <= 1.0:   # p = 1 / bg >= 1 has no binomial (a one-token window, or, ours, a collection
        bg = 2.0    # of mostly empty documents whose avgdl <= 1): the Laplace background of 2
    p = 1.0 / bg
    ln2 = np.log(2.0)
    sc = (-math.lgamma(bg + 1.0) + math.lgamma(x + 1.0) + math.lgamma(bg - x + 1.0)) / ln2 \
        - x * np.log2(p) - (bg - x) * np.log2(1.0 - p)
    return sc / (1.0 + x)


@jit
def _interval_kernel(ptr, pos, term, nprox, mode, p1, p2, lam, w, knorm_d, k1, out,
                     dl, avgdl):
    """Proximity part of the interval models (module docstring) for every document. Modes 8
    and 9 (pdfr, bdfr): pairs only (adjacent ones when ``p2`` is 1), intervals longer than the
    window ``p1`` dropped before the non-overlap selection, pBiL / pBiL2 of the count."""
    nmask = 1 << nprox
    cap = 0
    for i in range(ptr.size - 1):
        cap = max(cap, ptr[i + 1] - ptr[i])
    out_l = np.empty(cap + 1, np.int32)
    out_r = np.empty(cap + 1, np.int32)
    acc = np.zeros(nprox)
    sub_pos = np.empty(cap + 1, np.int32)
    sub_term = np.empty(cap + 1, np.int32)
    for i in range(ptr.size - 1):
        # the occurrences of the proximity terms only
        n = 0
        present = 0
        for e in range(ptr[i], ptr[i + 1]):
            if term[e] < nprox:
                sub_pos[n] = pos[e]
                sub_term[n] = term[e]
                present |= 1 << term[e]
                n += 1
        acc[:] = 0.0
        s = 0.0
        for mask in range(3, nmask):
            if (mask & present) != mask:
                continue
            m = 0
            for j in range(nprox):
                if (mask >> j) & 1:
                    m += 1
            if m < 2:
                continue
            if mode >= 8:
                if m != 2:
                    continue
                if p2 == 1.0:
                    lo = 0
                    while not (mask >> lo) & 1:
                        lo += 1
                    if not (mask >> (lo + 1)) & 1:
                        continue          # not an adjacent pair
            ni = lps_kernel(sub_pos[:n], sub_term[:n], mask, out_l, out_r)
            last = -1
            cnt = 0
            mn = 1e300
            mx = 0.0
            tot = 0.0
            for r in range(ni):
                if mode >= 8 and out_r[r] - out_l[r] + 1 > p1:
                    continue          # #uwN: the length filter first, then the selection
                if out_l[r] <= last:
                    continue          # greedy non-overlap (spec §2.4)
                last = out_r[r]
                L = np.float64(out_r[r] - out_l[r] + 1)
                cnt += 1
                mn = min(mn, L)
                mx = max(mx, L)
                tot += L
                if mode == 0:
                    s += lam / (np.sqrt(L - 1.0) if p1 == 1.0 else (L - 1.0))
                elif mode == 1:
                    s += lam * (p1 / L if L > p1 else 1.0)
                elif mode == 2:
                    s += lam * (m - 1.0) / (L - 1.0)
                elif mode == 6:
                    s += lam / (np.sqrt(L) if p1 == 1.0 else L)
                elif mode == 7:
                    c = np.float64(m) ** p1 / L ** p2
                    for j in range(nprox):
                        if (mask >> j) & 1:
                            acc[j] += c
            if cnt > 0 and mode >= 8:
                s += lam * _pbil(np.float64(cnt), dl[i], p1, avgdl, mode == 9)
            if cnt > 0:
                if mode == 3:
                    s += np.log1p(np.exp(-mn) / p1)
                elif mode == 4:
                    s += np.log1p(np.exp(-mx) / p1)
                elif mode == 5:
                    s += np.log1p(np.exp(-(tot / cnt)) / p1)
        if mode == 7:
            for j in range(nprox):
                if acc[j] > 0.0:
                    s += w[j] * acc[j] * (k1 + 1.0) / (acc[j] + knorm_d[i])
        out[i] = s


def bm25_base(index, tids, qtf, k1, b, idf) -> np.ndarray:
    """BM25 score of every document for the query terms ``tids`` (int (m,)) with frequencies
    ``qtf``: float64 (num_docs,), each term's weighted impacts added in query order (0 for a
    document without a query term). The bag-of-words part of the proximity models."""
    return term_base(index, tids, qtf, BM25Scorer(k1=float(k1), b=float(b), idf=idf))


def term_base(index, tids, qtf, scorer) -> np.ndarray:
    """The score of every document under the term scorer ``scorer`` (a
    :class:`tiebreak.retrieval.weights.TermScorer` without a document prior) for the query
    terms ``tids`` (int (m,)) with frequencies ``qtf``: float64 (num_docs,), each term's
    weighted impacts added in query order (0 for a document without a query term)."""
    _, imp, prior = scorer.impacts(index)
    if prior is not None:
        raise ValueError(f"{scorer.name}: a base with a document prior is not supported")
    w_base, _ = scorer.weights(index, tids, qtf)
    pp = np.asarray(index.post_ptr)
    pd = np.asarray(index.post_docid)
    acc = np.zeros(index.num_docs)
    for i, t in enumerate(tids):
        a, z = int(pp[t]), int(pp[t + 1])
        acc[pd[a:z]] += w_base[i] * imp[a:z]
    return acc


#: unigram bases of :func:`pdfr` / :func:`bdfr` besides BM25 (DFR models, their own family)
DFR_BASES = ("pl2", "dph", "dfr_bm25")


def _prepare(index, query_terms, k1, b, idf, max_prox_terms=None, base_model="bm25"):
    """(tids, qtf, nprox, docs, ptr, pos, term, base, knorm_d, w) of one query, or None.
    ``base_model``: ``"bm25"`` (k1, b, idf) or one of :data:`DFR_BASES`."""
    tids, qtf = query_term_ids(index, query_terms)
    if tids.size == 0 or index.num_docs == 0:
        return None
    st = collection_stats(index)
    if max_prox_terms is not None:
        from .dependency import proximity_terms

        order = proximity_terms(np.asarray(st.df)[tids], int(max_prox_terms))
        tids, qtf = tids[order], qtf[order]
        nprox = min(tids.size, int(max_prox_terms))
    else:
        nprox = tids.size
    docs, ptr, pos, term = cdf_of(index, tids)
    if base_model == "bm25":
        base = bm25_base(index, tids, qtf, k1, b, idf)[docs]
    else:
        from .weights import DFRScorer

        base = term_base(index, tids, qtf, DFRScorer(model=base_model))[docs]
    knorm_d = index._cache[_knorm(index, float(k1), float(b), "exact")][docs]
    w = idf_weights(index, tids, idf)
    return tids, qtf, nprox, docs, ptr, pos, term, base, knorm_d, w


def _finish(index, docs, score, k):
    """Top ``k`` of the candidates in trec_eval order (score desc, docno desc); every document
    tied with the k-th score is sorted before the cut."""
    from .kernels import sort_result

    k = int(k)
    if docs.size > k:
        kth = np.partition(score, docs.size - k)[docs.size - k]
        keep = score >= kth
        docs, score = docs[keep], score[keep]
    c = index._cache
    if "rank" not in c:
        c["rank"] = np.ascontiguousarray(index.docno_rank)
    d, s = sort_result(docs.astype(np.int32), score.astype(np.float64), c["rank"])
    return d[:k].astype(np.int32), s[:k]


def _empty():
    return np.zeros(0, np.int32), np.zeros(0, np.float64)


def bctp(index, query_terms, k: int = 1000, k1: float = 0.9, b: float = 0.4, idf: str = "rw"):
    """BCTP (module docstring). Returns the top ``k`` as ``(docids int32, scores float64)``."""
    p = _prepare(index, query_terms, k1, b, idf)
    if p is None or int(k) <= 0:
        return _empty()
    tids, qtf, nprox, docs, ptr, pos, term, base, knorm_d, w = p
    out = np.zeros(docs.size)
    _bctp_kernel(ptr, pos, term, w, knorm_d, float(k1), out)
    return _finish(index, docs, base + out, k)


def rs(index, query_terms, k: int = 1000, k1: float = 0.9, b: float = 0.4, idf: str = "rw",
       window: int = 5):
    """Rasolofo & Savoy (module docstring). Returns ``(docids int32, scores float64)``."""
    p = _prepare(index, query_terms, k1, b, idf)
    if p is None or int(k) <= 0:
        return _empty()
    tids, qtf, nprox, docs, ptr, pos, term, base, knorm_d, w = p
    out = np.zeros(docs.size)
    _rs_kernel(ptr, pos, term, w, knorm_d, float(k1), int(window), out)
    return _finish(index, docs, base + out, k)


def _interval_model(name, index, query_terms, k, k1, b, idf, max_prox_terms, p1=0.0, p2=0.0,
                    lam=1.0, max_terms=16, base="bm25"):
    if not 2 <= int(max_prox_terms) <= max_terms:
        raise ValueError(f"{name}: max_prox_terms must be in [2, {max_terms}], got "
                         f"{max_prox_terms!r}")
    p = _prepare(index, query_terms, k1, b, idf, max_prox_terms, base)
    if p is None or int(k) <= 0:
        return _empty()
    tids, qtf, nprox, docs, ptr, pos, term, base, knorm_d, w = p
    out = np.zeros(docs.size)
    if nprox >= 2:
        dl = np.asarray(index.doclen, np.float64)[docs]
        _interval_kernel(ptr, pos, term, nprox, _MODES[name], float(p1), float(p2), float(lam),
                         np.ascontiguousarray(w[:nprox]), knorm_d, float(k1), out, dl,
                         float(collection_stats(index).avgdl))
    return _finish(index, docs, base + out, k)


def ht(index, query_terms, k: int = 1000, k1: float = 0.9, b: float = 0.4, idf: str = "rw",
       lam: float = 1.0, max_prox_terms: int = 6, root: int = 0):
    """Hawking & Thistlewaite (module docstring)."""
    return _interval_model("ht", index, query_terms, k, k1, b, idf, max_prox_terms,
                           p1=float(root), lam=lam)


def cdr(index, query_terms, k: int = 1000, k1: float = 0.9, b: float = 0.4, idf: str = "rw",
        lam: float = 1.0, max_prox_terms: int = 6, w: int = 16):
    """Cover density ranking contributions (module docstring)."""
    return _interval_model("cdr", index, query_terms, k, k1, b, idf, max_prox_terms,
                           p1=float(w), lam=lam)


def vdv(index, query_terms, k: int = 1000, k1: float = 0.9, b: float = 0.4, idf: str = "rw",
        lam: float = 1.0, max_prox_terms: int = 6):
    """Vuurens & de Vries contributions (module docstring)."""
    return _interval_model("vdv", index, query_terms, k, k1, b, idf, max_prox_terms, lam=lam)


def mindist(index, query_terms, k: int = 1000, k1: float = 0.9, b: float = 0.4,
            idf: str = "rw", alpha: float = 0.3, max_prox_terms: int = 6):
    """MinDist (Table 4.1) with Tao & Zhai's transform (module docstring)."""
    return _interval_model("mindist", index, query_terms, k, k1, b, idf, max_prox_terms,
                           p1=alpha)


def maxdist(index, query_terms, k: int = 1000, k1: float = 0.9, b: float = 0.4,
            idf: str = "rw", alpha: float = 0.3, max_prox_terms: int = 6):
    """MaxDist (Table 4.1) with Tao & Zhai's transform (module docstring)."""
    return _interval_model("maxdist", index, query_terms, k, k1, b, idf, max_prox_terms,
                           p1=alpha)


def avgdist(index, query_terms, k: int = 1000, k1: float = 0.9, b: float = 0.4,
            idf: str = "rw", alpha: float = 0.3, max_prox_terms: int = 6):
    """AvgDist (Table 4.1) with Tao & Zhai's transform (module docstring)."""
    return _interval_model("avgdist", index, query_terms, k, k1, b, idf, max_prox_terms,
                           p1=alpha)


def sumdist(index, query_terms, k: int = 1000, k1: float = 0.9, b: float = 0.4,
            idf: str = "rw", lam: float = 1.0, max_prox_terms: int = 6, root: int = 0):
    """Summation^1 (``root=0``) or Summation^2 (``root=1``) of Table 4.1 (module docstring)."""
    return _interval_model("sumdist", index, query_terms, k, k1, b, idf, max_prox_terms,
                           p1=float(root), lam=lam)


def amortized(index, query_terms, k: int = 1000, k1: float = 0.9, b: float = 0.4,
              idf: str = "rw", lam_q: float = 2.0, gamma: float = 1.0, max_prox_terms: int = 6):
    """Amortized (Table 4.1; Song et al. 2008) (module docstring)."""
    return _interval_model("amortized", index, query_terms, k, k1, b, idf, max_prox_terms,
                           p1=lam_q, p2=gamma)


def pdfr(index, query_terms, k: int = 1000, k1: float = 0.9, b: float = 0.4, idf: str = "rw",
         lam: float = 1.0, window: int = 5, pairs: str = "adjacent", max_prox_terms: int = 12,
         base: str = "bm25"):
    """BM25 + the DFR term-dependence score of Peng et al. (J. Peng, C. Macdonald, B. He, V.
    Plachouras and I. Ounis, "Incorporating term dependency in the DFR framework", SIGIR 2007)
    with Terrier's ``pBiL`` (binomial randomness, Laplace after-effect, the document as the
    background): for each pair of query terms -- adjacent ones (``pairs="adjacent"``, their
    SD) or every pair (``"all"``, FD) -- ``pf`` is the number of windows of at most ``window``
    tokens holding both (non-overlapping, Indri's ``#uwN`` count), ``n = |D| - window + 1``
    (1 when |D| < window; ``pf`` capped at ``n - 0.1``), ``p = 1/n``:
    ``(-lg Gamma(n+1) + lg Gamma(pf+1) + lg Gamma(n-pf+1) - pf log2 p - (n-pf) log2(1-p))
    / (pf + 1)`` (lg = log2), summed over the pairs, times ``lam``, added to the unigram
    ``base``: BM25 (``k1``, ``b``, ``idf``; the default) or, as Peng et al. do, a DFR model of
    the same family (``"pl2"``, ``"dph"``, ``"dfr_bm25"`` at their defaults;
    :class:`tiebreak.retrieval.weights.DFRScorer`)."""
    _check_dfr(pairs, base)
    return _interval_model("pdfr", index, query_terms, k, k1, b, idf, max_prox_terms,
                           p1=float(window), p2=1.0 if pairs == "adjacent" else 0.0, lam=lam,
                           base=base)


def _check_dfr(pairs, base):
    if pairs not in ("adjacent", "all"):
        raise ValueError(f"pairs: adjacent or all, not {pairs!r}")
    if base != "bm25" and base not in DFR_BASES:
        raise ValueError(f"base: bm25 or one of {', '.join(DFR_BASES)}, not {base!r}")


def bdfr(index, query_terms, k: int = 1000, k1: float = 0.9, b: float = 0.4, idf: str = "rw",
         lam: float = 1.0, window: int = 5, pairs: str = "adjacent", max_prox_terms: int = 12,
         base: str = "bm25"):
    """:func:`pdfr` with Terrier's ``pBiL2``: the count normalised by Norm2,
    ``pf' = pf log2(1 + avgdl / n)``, against the average document length as the background
    (``p = 1 / avgdl``) -- Peng et al.'s binomial model with length normalisation; ``base``
    as for :func:`pdfr`."""
    _check_dfr(pairs, base)
    return _interval_model("bdfr", index, query_terms, k, k1, b, idf, max_prox_terms,
                           p1=float(window), p2=1.0 if pairs == "adjacent" else 0.0, lam=lam,
                           base=base)


# ------------------------------------------------------------------ positional language model
#: PLM kernel codes (Lv & Zhai 2009, Section 3.1)
PLM_KERNELS = {"gaussian": 0, "triangle": 1, "cosine": 2, "circle": 3, "passage": 4}


@jit
def _plm_k(kind, d, sigma):
    """Lv & Zhai's propagation kernel ``k(i, j)`` at distance ``d = |i - j|`` (float)."""
    if kind == 0:
        return np.exp(-d * d / (2.0 * sigma * sigma))
    if d > sigma:
        return 0.0
    u = d / sigma
    if kind == 1:
        return 1.0 - u
    if kind == 2:
        return 0.5 * (1.0 + np.cos(np.pi * u))
    if kind == 3:
        return np.sqrt(1.0 - u * u)
    return 1.0


@jit
def _plm_kernel(ptr, pos, term, qw, pc, dl, sigma, mu, kind, top, beta, out):
    """PLM score of every document (see :func:`plm`): the mean of the ``top`` best position
    scores, mixed with the whole-document Dirichlet score (sigma = infinity) by ``beta``."""
    nq = qw.size
    root = np.sqrt(2.0 * np.pi) * sigma
    cnt = np.zeros(nq)
    tf = np.zeros(nq)
    cap = 1
    for i in range(ptr.size - 1):
        cap = max(cap, ptr[i + 1] - ptr[i])
    best = np.empty(cap)
    for i in range(ptr.size - 1):
        a, b = ptr[i], ptr[i + 1]
        L = np.float64(dl[i])
        n = 0
        for e in range(a, b):
            x = np.float64(pos[e])
            cnt[:] = 0.0
            for f in range(a, b):
                cnt[term[f]] += _plm_k(kind, abs(np.float64(pos[f]) - x), sigma)
            if kind == 0:
                # the Gaussian's mass inside positions 0 .. |D|-1 (Lv & Zhai's approximation)
                z = root * 0.5 * (math.erf((L - 1.0 - x) / (sigma * np.sqrt(2.0)))
                                  - math.erf((0.0 - x) / (sigma * np.sqrt(2.0))))
            else:
                z = 0.0
                lo = max(0.0, np.ceil(x - sigma))
                hi = min(L - 1.0, np.floor(x + sigma))
                j = lo
                while j <= hi:
                    z += _plm_k(kind, abs(j - x), sigma)
                    j += 1.0
            sc = 0.0
            for t in range(nq):
                sc += qw[t] * np.log((cnt[t] + mu * pc[t]) / (z + mu))
            best[n] = sc
            n += 1
        srt = np.sort(best[:n])
        m = min(top, n)
        s = 0.0
        for r in range(m):
            s += srt[n - 1 - r]
        s /= m
        if beta > 0.0:
            tf[:] = 0.0
            for e in range(a, b):
                tf[term[e]] += 1.0
            whole = 0.0
            for t in range(nq):
                whole += qw[t] * np.log((tf[t] + mu * pc[t]) / (L + mu))
            s = (1.0 - beta) * s + beta * whole
        out[i] = s


def plm(index, query_terms, k: int = 1000, sigma: float = 175.0, mu: float = 2000.0,
        kernel: str = "gaussian", top: int = 1, beta: float = 0.0):
    """Positional language model (Y. Lv and C. Zhai, "Positional language models for
    information retrieval", SIGIR 2009; Lu 2018 §2.2.3).

    At position i of D, the propagated count ``c'(w, i) = sum_j c(w, j) k(i, j)`` with the
    ``kernel`` of distance ``d = |i - j|``: ``gaussian`` ``exp(-d^2 / (2 sigma^2))``, and for
    ``d <= sigma`` (0 beyond) ``triangle`` ``1 - d/sigma``, ``cosine`` (Hamming)
    ``(1 + cos(pi d / sigma)) / 2``, ``circle`` ``sqrt(1 - (d/sigma)^2)``, ``passage`` 1.
    ``Z_i = sum_{j=0}^{|D|-1} k(i, j)``, summed exactly for the bounded kernels and, for the
    Gaussian, approximated by its integral over ``[0, |D|-1]`` (``sqrt(2 pi) sigma
    (Phi((|D|-1-i)/sigma) - Phi(-i/sigma))``, Lv & Zhai's own approximation).
    ``p(w | D, i) = (c'(w, i) + mu p(w | C)) / (Z_i + mu)`` (Dirichlet) and a position scores
    ``S_i = sum_q f_{q,Q} log p(q | D, i)`` (rank-equivalent to the negative KL divergence).

    Document scores (Lv & Zhai's three strategies): ``top = 1`` best position ``max_i S_i``
    (the default); ``top = k`` multi-position, the mean of the k best ``S_i``; ``beta > 0``
    multi-sigma over ``R = {sigma, infinity}``, ``(1 - beta) S(sigma) + beta S(infinity)``,
    where sigma = infinity is the whole-document Dirichlet model
    ``sum_q f_{q,Q} log((c(q, D) + mu p(q | C)) / (|D| + mu))`` (the combination Lv & Zhai
    found best). **Deviation**: positions are those of query-term occurrences only (the best
    position is almost always one; the paper scans every position). Defaults sigma 175,
    mu 2000. Returns ``(docids int32, scores float64)``. Raises ValueError for a bad kernel,
    ``sigma``/``mu`` <= 0, ``top`` < 1 or ``beta`` outside [0, 1]."""
    if kernel not in PLM_KERNELS:
        raise ValueError(f"plm: kernel must be one of {', '.join(PLM_KERNELS)}, got {kernel!r}")
    if not sigma > 0 or not mu > 0:
        raise ValueError("plm: sigma and mu must be > 0")
    if int(top) < 1 or not 0.0 <= float(beta) <= 1.0:
        raise ValueError("plm: top must be >= 1 and beta in [0, 1]")
    tids, qtf = query_term_ids(index, query_terms)
    if tids.size == 0 or index.num_docs == 0 or int(k) <= 0:
        return _empty()
    st = collection_stats(index)
    pc = np.asarray(st.cf, np.float64)[tids] / float(st.collection_length)
    docs, ptr, pos, term = cdf_of(index, tids)
    dl = np.asarray(index.doclen, np.int64)[docs]
    out = np.zeros(docs.size)
    _plm_kernel(ptr, pos, term, qtf, pc, dl, float(sigma), float(mu),
                np.int64(PLM_KERNELS[kernel]), np.int64(top), float(beta), out)
    return _finish(index, docs, out, k)


# ------------------------------------------------------------------ Table 4.1 on interval lengths
def aggregate(lengths, method: str, n_terms: int = 2, w_q: float = 1.0, w_i: float = 1.0,
              lam_q: float = 2.0, gamma: float = 1.0) -> float:
    """Table 4.1's aggregate of one subquery's interval lengths ``lengths`` (|I| each):
    ``min``, ``max``, ``avg``, ``sum1`` (``w_q sum w_i/|I|``), ``sum2`` (``w_q sum
    w_i/sqrt|I|``) or ``amortized`` (``sum_{q in Q'} sum_I |Q'|^lam_q/|I|^gamma`` for a
    subquery of ``n_terms`` terms). Raises ValueError for another method or no lengths."""
    L = np.asarray(lengths, np.float64)
    if L.size == 0:
        raise ValueError("aggregate: no interval lengths")
    if method == "min":
        return float(L.min())
    if method == "max":
        return float(L.max())
    if method == "avg":
        return float(L.mean())
    if method == "sum1":
        return float(w_q * (w_i / L).sum())
    if method == "sum2":
        return float(w_q * (w_i / np.sqrt(L)).sum())
    if method == "amortized":
        return float(n_terms * (n_terms ** lam_q / L ** gamma).sum())
    raise ValueError(f"aggregate: unknown method {method!r}")
