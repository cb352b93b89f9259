"""BM25P with window-based n-gram counting (He, Huang & Zhou 2011), the window-counting
dependence model of Lu (2018) §2.2.3 and Table 2.1.

Source: B. He, J. X. Huang and X. Zhou, "Modeling term proximity for probabilistic information
retrieval models", *Information Sciences* 181(14), 3017-3031, 2011. The paper's abstract names
four proximity estimates added to BM25 ("BM25P"): window-based N-gram Counting (NC) and
survival analysis under a Poisson process, an exponential distribution or an empirical
function. Lu (2018) describes NC as counting the fixed-size windows that hold a subquery and
scoring the count like a term in BM25. The paper's own equations could not be read here.
What follows was taken from the first author's public research code for these experiments
(the Terrier 3 ``proximity`` models ``NC``/``SurvExp``/``SurvHPP``/``SurvEmp`` and the score
modifier that adds them to BM25, GitHub ``azizisya/benhesrc``, 2010). It was read, not copied.
Everything marked *interpreted* is our choice where that code left a choice or has a quirk.

For a query with distinct (analysed, in-vocabulary) terms q_1..q_m in first-occurrence order,
and a document D of |D| tokens at positions 0..|D|-1:

* the windows of D are the ``M(D) = |D| - w + 1`` runs of ``w`` consecutive positions
  ``[s, s + w - 1]``, ``s = 0 .. M(D) - 1`` (one window, ``M(D) = 1``, when |D| < w);
* ``n_ij(D)`` = the number of those windows holding at least one occurrence of q_i *and* one
  of q_j (overlapping windows all count: an adjacent occurrence pair lies in ``w - 1`` of them
  in the middle of a long document);
* the pairs are the adjacent ones (q_i, q_{i+1}) (``pairs="adjacent"``, the code's default
  ``SD``) or every pair (``"all"``, its ``FD``);
* each pair is scored as a BM25 term with ``n_ij`` as its term frequency and ``M(D)`` as the
  document length:

      score(Q, D) = BM25(Q, D) + lam * sum_{(i,j)} f_ij * idf(df_ij) * (k1 + 1) n_ij(D)
                                                   / (n_ij(D) + k1 (1 - b + b M(D) / avgdl))

  with ``BM25(Q, D) = sum_i f_i idf(df_i) (k1 + 1) tf_i / (tf_i + k1 (1 - b + b |D| / avgdl))``
  (the same ``k1``, ``b``, idf variant and average document length ``avgdl = |C| / N`` in
  both parts), ``df_ij`` the number of documents of the collection with ``n_ij > 0``, and
  ``f_ij = (f_i + f_j) / 2`` the mean query frequency of the two terms (the code's default
  combination of the two query-term weights).

Interpreted: (1) the code's BM25 (Terrier's) leaves out the ``(k1 + 1)`` factor, uses log2 and
multiplies by ``(k3 + 1) f / (k3 + f)``; both parts share these, so with single-occurrence
query terms our score is the code's times a constant (rank-equivalent), and ``f`` enters
linearly as in this project's BM25. (2) The code computes ``df_ij`` over the documents
retrieved for the query; every document with ``n_ij > 0`` holds both terms and is retrieved,
so it is the collection's count. (3) The code sets a window-adjusted average length and then
replaces it with the collection's; we use the collection's. (4) The code's adjacent pairs
follow a hash set's order of the query terms; we use the query order. (5) ``w = 5`` is our
default (the code's is 2, the paper's tuned values are not known here). Defaults ``k1 = 1.2``,
``b = 0.75`` and the Robertson-Spaerck Jones idf ``log((N - df + 0.5)/(df + 0.5))`` are
Terrier's BM25, the one the code adds the proximity part to.

Not implemented: the three survival-analysis estimates. In that code each occurrence of q_j
with an occurrence of q_i closer than ``w`` would add ``g(w - d)`` (``d`` the distance), with
``g`` the exponential ``e^(-lam x)``, a Poisson sum or ``1/(x + 1)``: a weight that *grows*
with the distance, and the exponential and Poisson versions never take effect there (the
first does not override the base method, which returns 1; the second's sum starts at 1 and
returns 0). With no equation from the paper, no definition could be stated; see
docs/proximity.md.
"""

from __future__ import annotations

import numpy as np

from .intervals import jit

__all__ = ["bm25p", "window_counts"]


@jit
def _count_kernel(ptr, pos, term, dl, nterms, pi, pj, w, out):
    """``out[d, p]`` = windows of document ``d`` holding both terms of pair ``p``. One pass
    over the document's occurrences (ascending positions) turns each term's occurrences into
    disjoint sorted runs of windows ``[rs, re]``, then each pair intersects two run lists."""
    cap = 1
    for i in range(ptr.size - 1):
        cap = max(cap, ptr[i + 1] - ptr[i])
    rs = np.empty(cap, np.int64)
    re = np.empty(cap, np.int64)
    off = np.empty(nterms + 1, np.int64)
    nrun = np.empty(nterms, np.int64)
    for d in range(ptr.size - 1):
        lo, hi = ptr[d], ptr[d + 1]
        m = dl[d] - w + 1
        if m < 1:
            m = 1
        off[:] = 0
        for e in range(lo, hi):
            off[term[e] + 1] += 1
        for t in range(nterms):
            off[t + 1] += off[t]
        nrun[:] = 0
        for e in range(lo, hi):
            t = term[e]
            a = pos[e]
            s = a - w + 1
            if s < 0:
                s = 0
            f = a if a < m - 1 else m - 1
            if s > f:
                continue
            r = off[t] + nrun[t]
            if nrun[t] > 0 and s <= re[r - 1] + 1:
                if f > re[r - 1]:
                    re[r - 1] = f
            else:
                rs[r] = s
                re[r] = f
                nrun[t] += 1
        for p in range(pi.size):
            x, xe = off[pi[p]], off[pi[p]] + nrun[pi[p]]
            y, ye = off[pj[p]], off[pj[p]] + nrun[pj[p]]
            c = 0
            while x < xe and y < ye:
                s = max(rs[x], rs[y])
                f = min(re[x], re[y])
                if f >= s:
                    c += f - s + 1
                if re[x] < re[y]:
                    x += 1
                else:
                    y += 1
            out[d, p] = c


def window_counts(index, query_terms, window: int = 5, pairs: str = "adjacent"):
    """The window counts of every candidate document.

    Returns ``(docs int64 (n,), pairs int (P, 2) local term ids, counts int64 (n, P), tids
    int64 (m,), qtf float64 (m,))``: ``counts[d, p]`` is ``n_ij`` (module docstring) of
    document ``docs[d]`` (ascending; the documents holding at least one query term) and pair
    ``pairs[p]`` of the query's distinct terms ``tids``. Raises ValueError for a window < 2
    or ``pairs`` other than adjacent/all."""
    from .positional import cdf_of
    from .weights import query_term_ids

    if isinstance(window, bool) or int(window) != window or window < 2:
        raise ValueError(f"window must be an integer >= 2, got {window!r}")
    if pairs not in ("adjacent", "all"):
        raise ValueError(f"pairs: adjacent or all, not {pairs!r}")
    tids, qtf = query_term_ids(index, query_terms)
    m = tids.size
    if pairs == "adjacent":
        pl = [(i, i + 1) for i in range(m - 1)]
    else:
        pl = [(i, j) for i in range(m) for j in range(i + 1, m)]
    pr = np.asarray(pl, np.int64).reshape(-1, 2)
    if m == 0 or index.num_docs == 0:
        return np.zeros(0, np.int64), pr, np.zeros((0, len(pl)), np.int64), tids, qtf
    docs, ptr, pos, term = cdf_of(index, tids)
    counts = np.zeros((docs.size, len(pl)), np.int64)
    if pl:
        dl = np.asarray(index.doclen, np.int64)[docs]
        _count_kernel(ptr, pos, term, dl, int(m), np.ascontiguousarray(pr[:, 0]),
                      np.ascontiguousarray(pr[:, 1]), int(window), counts)
    return docs, pr, counts, tids, qtf


def bm25p(index, query_terms, k: int = 1000, k1: float = 1.2, b: float = 0.75,
          idf: str = "rsj", lam: float = 1.0, window: int = 5, pairs: str = "adjacent"):
    """BM25P with window-based n-gram counting (module docstring for the formula, its source
    and what was interpreted).

    Parameters: ``k1``, ``b``, ``idf`` (rsj | rw | lucene) of both BM25 parts; ``lam`` the
    weight of the proximity part; ``window`` the window length ``w`` in tokens (>= 2);
    ``pairs`` adjacent | all. Returns the top ``k`` among the documents holding a query term as
    ``(docids int32, scores float64)`` in trec_eval order.

    Raises
    ------
    ValueError
        A bad parameter, or a shard of a sharded index (the pair document frequency ``df_ij``
        is a count over the whole collection, which a shard does not carry).
    """
    from .positional import _empty, _finish, bm25_base
    from .weights import collection_stats

    if getattr(index, "global_stats", None) is not None:
        raise ValueError("bm25p: a shard of a sharded index cannot be scored alone (the pair "
                         "document frequency needs the whole collection); search the "
                         "unsharded index")
    docs, pr, counts, tids, qtf = window_counts(index, query_terms, window, pairs)
    if docs.size == 0 or int(k) <= 0:
        return _empty()
    st = collection_stats(index)
    N = float(st.num_docs)
    score = bm25_base(index, tids, qtf, k1, b, idf)[docs]
    if pr.shape[0] and float(lam) != 0.0:
        df = (counts > 0).sum(axis=0).astype(np.float64)
        if idf == "rsj":
            w_pair = np.log((N - df + 0.5) / (df + 0.5))
        elif idf == "rw":
            with np.errstate(divide="ignore"):
                w_pair = np.log(N / np.maximum(df, 1.0))
        else:
            w_pair = np.log(1.0 + (N - df + 0.5) / (df + 0.5))
        w_pair = w_pair * (qtf[pr[:, 0]] + qtf[pr[:, 1]]) / 2.0
        dl = np.asarray(index.doclen, np.float64)[docs]
        M = np.maximum(dl - int(window) + 1.0, 1.0)
        K = float(k1) * (1.0 - float(b) + float(b) * M / float(st.avgdl))
        n = counts.astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            part = np.where(n > 0, n * (float(k1) + 1.0) / (n + K[:, None]), 0.0)
        score = score + float(lam) * (part * w_pair[None, :]).sum(axis=1)
    return _finish(index, docs, score, k)
