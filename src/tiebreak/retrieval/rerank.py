"""Two-stage proximity ranking: a bag-of-words first pass picks the top-K candidates, the Lkp
family (Lu 2018, ch. 4, Eq. 4.3) scores only those.

``rerank(index, query_terms, k, first="bm25", first_k=1000, model="lkp", ...)``:

1. first pass: ``first`` (a model of :data:`tiebreak.retrieval.models.MODELS`, BM25 by default,
   called with Lkp's BM25^(2) settings ``idf="rw", k1, b`` when it is ``bm25``) returns its top
   ``first_k`` documents;
2. second pass: the full Eq. 4.3 score of :func:`tiebreak.retrieval.dependency.lkp` (``lkpf``,
   ``l2p``) of each candidate -- the same kernel pieces, the same set-up, the same scores --
   computed only for the candidates (their postings are found by binary search);
3. the top ``k`` of the candidates by that score, in trec_eval order.

With ``first_k`` at least the number of documents containing a query term, the result equals
the full model's (the tests check it). The proximity part of Eq. 4.3 is never negative, so a
document outside the first pass can only be missed when its BM25 score is below the K-th one
and its proximity lifts it above; ``benchmarks/bench_models.py`` measures what this costs in MAP.

Reference: Lu, X. (2018). *Efficient and Effective Retrieval Using Higher-Order Proximity
Models*. PhD thesis, RMIT University, ch. 4.
"""

from __future__ import annotations

import numpy as np

from . import dependency as dep
from .intervals import jit
from .models import collection_stats

__all__ = ["rerank", "RERANK_MODELS"]

RERANK_MODELS = ("lkp", "lkpf", "l2p")


@jit
def _rerank_kernel(
    post_ptr, post_docid, pos_ptr, pos, rank, maxdl, sat, df_all, cf_all,
    cands, tids, qtf, nq, topk, variant, method, lam, k1, b, avgdl, doclen_arr, n_docs,
    slot_of_mask, pair_slot, ph_slot, pop,
):  # fmt: skip
    """Eq. 4.3 scores of the documents ``cands`` (int32, any order) and their top ``topk``."""
    w, slot_maxlen, slot_sumw, slot_inc, use_eps, maxp = dep._lkp_setup(
        df_all, cf_all, tids, nq, variant, method, avgdl, n_docs, ph_slot, pop)
    pairs_only = variant == 2
    k = len(tids)
    P = nq
    m = len(cands)
    nslots = len(slot_maxlen)
    # candidates in docid order; posting index of (candidate i, term j), -1 when absent, by a
    # merge of each term's postings (docid-sorted) with the sorted candidates
    cands = np.sort(cands)
    where = np.full((m, k), -1, np.int64)
    for j in range(k):
        t = tids[j]
        p = post_ptr[t]
        hi = post_ptr[t + 1]
        for i in range(m):
            d = cands[i]
            while p < hi and post_docid[p] < d:
                p += 1
            if p == hi:
                break
            if post_docid[p] == d:
                where[i, j] = p
    starts = np.zeros(P, np.int64)
    ends = np.zeros(P, np.int64)
    mcur = np.empty(P, np.int64)
    latest = np.empty(P, np.int64)
    cdf_pos = np.empty(maxdl, np.int32)
    cdf_term = np.empty(maxdl, np.int32)
    cap = 1024
    em = (
        np.empty(cap, np.int64),
        np.empty(cap, np.int32),
        np.empty(cap, np.int32),
        np.empty(cap, np.int32),
        np.empty(cap, np.int32),
    )
    stamp = np.full(nslots, -1, np.int64)
    last = np.empty(nslots, np.int64)
    acc = np.zeros(nslots, np.float64)
    touched = np.empty(nslots, np.int64)
    sc = np.empty(m, np.float64)
    multi = np.empty(m, np.int64)
    nm = 0
    for i in range(m):
        bm = 0.0
        npx = 0
        for j in range(k):
            p = where[i, j]
            if p >= 0:
                bm += qtf[j] * w[j] * (k1 + 1.0) * sat[p]
                if j < P:
                    npx += 1
        sc[i] = (1.0 - lam) * bm
        if npx >= 2:
            multi[nm] = i
            nm += 1
    # proximity only for the candidates with >= 2 proximity terms, in a compact loop (the
    # emission buffers are carried through this loop only)
    for x in range(nm):
        i = multi[x]
        d = cands[i]
        for j in range(P):
            p = where[i, j]
            if p >= 0:
                starts[j] = pos_ptr[p]
                ends[j] = pos_ptr[p + 1]
            else:
                starts[j] = 0
                ends[j] = 0
        nt, em = dep._proximity(
            pos, starts, ends, cdf_pos, cdf_term, mcur, latest, P, 0, use_eps,
            pairs_only, slot_of_mask, pair_slot, slot_maxlen, slot_sumw, ph_slot,
            maxp, slot_inc, w, stamp, last, acc, touched, x, em,
        )  # fmt: skip
        Kd = k1 * (1.0 - b + b * doclen_arr[d] / avgdl) if avgdl > 0 else k1 * (1.0 - b)
        prox = 0.0
        for t in range(nt):
            S = acc[touched[t]]
            if S > 0.0:
                prox += S * (1.0 + k1) / (S + Kd)
        sc[i] += lam * prox
    return dep._select_topk(sc, cands, rank, topk)


def rerank(index, query_terms, k: int = 1000, first: str = "bm25", first_k: int = 1000,
           model: str = "lkp", lam: float = dep.LAMBDA, k1: float = dep.K1, b: float = dep.B,
           method: str = "auto", max_prox_terms: int | None = dep.MAX_PROX_TERMS,
           **first_params):  # fmt: skip
    """Two-stage Lkp: the top ``first_k`` of ``first``, rescored by ``model`` (Eq. 4.3).

    Parameters
    ----------
    index : tiebreak.index.Index
    query_terms : list of str
        Analysed query terms.
    k : int
        Documents returned (at most ``first_k``).
    first : str
        First-pass model name in :data:`tiebreak.retrieval.models.MODELS`. ``bm25`` is called
        with ``idf="rw"`` and this function's ``k1``, ``b`` (the BM25^(2) of Lkp) unless
        ``first_params`` says otherwise.
    first_k : int
        Candidates taken from the first pass (K); >= 1.
    model : {"lkp", "lkpf", "l2p"}
        Second-pass model; ``lam``, ``k1``, ``b``, ``method``, ``max_prox_terms`` as in
        :func:`tiebreak.retrieval.dependency.lkp` (``max_prox_terms=None`` is 62 for ``l2p``).

    Returns
    -------
    (docids int32 (k',), scores float64 (k',))
        Best first, trec_eval order (score descending, then docno descending);
        k' = min(k, number of candidates).

    Raises
    ------
    ValueError
        An unknown model, ``first_k < 1``, or a bad model parameter.
    """
    from .search import get_model

    if model not in RERANK_MODELS:
        raise ValueError(f"model: expected one of {', '.join(RERANK_MODELS)}, got {model!r}")
    if isinstance(first_k, bool) or int(first_k) != first_k or first_k < 1:
        raise ValueError(f"first_k must be an integer >= 1, got {first_k!r}")
    plan = dep._lkp_prepare(index, query_terms, k, model, lam, k1, b, method, max_prox_terms)
    fn = get_model(first)
    if first == "bm25":
        first_params = {"idf": "rw", "k1": k1, "b": b, **first_params}
    if plan is None:
        return dep._empty()
    cands, _ = fn(index, query_terms, int(first_k), **first_params)
    cands = np.asarray(cands, np.int32)
    if len(cands) == 0:
        return dep._empty()
    tids, qtf, nq, (tables, ph_slot, _, pop) = plan
    pp, pd, _, qp, pos, dl, rank, maxdl, df_all, cf_all = dep._arrays(index)
    st = collection_stats(index)
    return _rerank_kernel(
        pp, pd, qp, pos, rank, maxdl, dep._saturation(index, k1, b), df_all, cf_all,
        cands, tids, qtf, nq, int(k), dep._VARIANT_CODE[model], dep._METHOD_CODE[method],
        float(lam), float(k1), float(b), float(st.avgdl), dl, float(st.num_docs),
        tables[0], tables[1], ph_slot, dep._ZERO1 if pop is None else pop,
    )  # fmt: skip


def search_rerank(index, topics, k: int = 1000, model: str = "lkp", first: str = "bm25",
                  first_k: int | None = None, progress: bool = False, **params):
    """:func:`rerank` over ``(qid, text)`` topics, as :func:`tiebreak.retrieval.search.search`
    does for one model: a list of :class:`~tiebreak.retrieval.search.Result` in topic order (an
    empty result keeps its place, with a ``note``). ``first_k`` defaults to ``k``. ``params`` go
    to :func:`rerank` (``lam``, ``k1``, ``b``, ``method``, ``max_prox_terms``) after the checks
    of :func:`~tiebreak.retrieval.search.check_params` for ``model``.

    Raises
    ------
    ValueError
        A bad parameter or topic id.
    """
    import sys

    from ..index.readers import check_docno
    from .search import Result, check_params

    check_params(model, params)
    first_k = k if first_k is None else first_k
    topics = list(topics)
    for qid, _ in topics:
        check_docno(str(qid), f"topic {str(qid)!r}", "topic id")
    it = topics
    if progress:
        from tqdm import tqdm

        it = tqdm(topics, desc=f"searching ({first} -> {model})", unit=" q", file=sys.stderr,
                  mininterval=0.5)
    analyze = index.analyzer.analyze
    out = []
    for qid, text in it:
        terms = analyze(text)
        d, s = rerank(index, terms, k, first=first, first_k=first_k, model=model, **params)
        note = ""
        if len(d) == 0:
            note = ("no query terms after analysis" if not terms else
                    "none of its terms occurs in the index"
                    if all(index.term_id(t) < 0 for t in terms) else "no document matched")
        out.append(Result(str(qid), d, s, note))
    return out
