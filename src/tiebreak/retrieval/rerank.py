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

When fewer than K candidates are returned (``k < first_k``), step 2 stops early and stays
exact: every candidate gets its BM25 part and an upper bound of its Eq. 4.3 score (each Eq.
4.2 term ``S (1 + k1) / (S + K_D)`` is below ``1 + k1``, and a candidate can only touch the
subqueries and phrases made of its own proximity terms); the proximity part is computed in
decreasing bound order and stops once the k-th exact score is above the next bound (a
candidate left out scores at most its bound, below k scored ones). The tests check it against
scoring every candidate, ties included.

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
from .dependency._kernels import _saturation
from .dependency.lkp_family import _lkp_prepare
from .dependency.plan import _VARIANT_CODE, _ZERO1, _arrays, _empty, _method_code
from .dependency.rerank import _rerank_kernel, _rerank_query
from .weights import collection_stats

__all__ = ["rerank", "RERANK_MODELS"]

RERANK_MODELS = ("lkp", "lkpf", "l2p")
_NO_DIRECT = (np.zeros(0, np.int32), np.zeros(0, np.int64), np.zeros(0, np.int32))


def _use_direct(index, direct: bool | None) -> bool:
    has = bool(getattr(index, "has_direct", False))
    if direct and not has:
        raise ValueError(f"{getattr(index, 'path', 'the index')}: direct=True but the index has "
                         "no direct file (build it with 'tiebreak index --direct')")
    return has if direct is None else bool(direct)


def _arrays_direct(index):
    """The arrays of :func:`~tiebreak.retrieval.dependency.plan._arrays` the two-stage kernel
    reads when candidates' CDFs come from the direct file: the positions are left out (empty
    arrays of their dtypes), so a version-2 index does not decode them."""
    c = index._cache
    if "dep_arrays" in c:
        pp, pd, _, _, _, dl, rank, maxdl, df_all, cf_all = c["dep_arrays"]
    elif "dep_arrays_direct" in c:
        return c["dep_arrays_direct"]
    else:
        pp = np.asarray(index.post_ptr, np.int64)
        pd = np.asarray(index.post_docid, np.int32)
        dl = np.asarray(index.doclen, np.int32)
        rank = np.asarray(index.docno_rank, np.int32)
        maxdl = int(max(int(dl.max()) if len(dl) else 1, 1))
        st = collection_stats(index)
        df_all, cf_all = np.asarray(st.df), np.asarray(st.cf)
    out = (pp, pd, np.zeros(1, np.int64), np.zeros(0, np.int32), dl, rank, maxdl, df_all,
           cf_all)
    c["dep_arrays_direct"] = out
    return out


def _direct_arrays(index, prox_tids):
    """(direct int32, doc_start int64, local int32 (V,)) with ``local[prox_tids[j]] = j`` (the
    caller resets those entries to -1 afterwards; the table is cached on the index)."""
    c = index._cache
    if "direct_lut" not in c:
        c["direct_lut"] = np.full(index.vocab_size, -1, np.int32)
    local = c["direct_lut"]
    local[np.asarray(prox_tids, np.int64)] = np.arange(len(prox_tids), dtype=np.int32)
    return np.asarray(index.direct, np.int32), index.doc_start(), local


def rerank(index, query_terms, k: int = 1000, first: str = "bm25", first_k: int = 1000,
           model: str = "lkp", lam: float = dep.LAMBDA, k1: float = dep.K1, b: float = dep.B,
           method: str = "auto", max_prox_terms: int | None = dep.MAX_PROX_TERMS,
           tail: bool = False, direct: bool | None = None, **first_params):  # fmt: skip
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
        ``first_params`` says otherwise. ``first_params`` may hold ``algorithm="maxscore"`` or
        ``"bmw"`` for a bm25/ql first pass: rank-safe pruning
        (:func:`tiebreak.retrieval.traversal.retrieve`), the same candidates and scores as
        exhaustive scoring, so the same result.
    first_k : int
        Candidates taken from the first pass (K); >= 1.
    tail : bool
        With ``tail=True`` and ``k > first_k``, the first pass's documents ``K+1 .. k`` follow,
        each scored with the BM25 part of Eq. 4.3 alone (``(1 - lam)`` times its first-pass
        BM25^(2) score; its proximity part is not computed). That is a lower bound of its Eq.
        4.3 score and not above a reranked document's score (those have a BM25 part at least
        as high, up to rounding, and a proximity part >= 0), so the run keeps depth ``k`` and
        its scores stay lower bounds. Needs the BM25^(2) first pass (``first="bm25"`` with the
        model's ``k1``, ``b`` and idf ``rw``). Default False: only the K candidates are
        returned.
    model : {"lkp", "lkpf", "l2p"}
        Second-pass model; ``lam``, ``k1``, ``b``, ``method``, ``max_prox_terms`` as in
        :func:`tiebreak.retrieval.dependency.lkp` (``max_prox_terms=None`` is 62 for ``l2p``).
    direct : bool or None
        Where a candidate's condensed direct file comes from: the index's stored direct file
        (``True``; see :mod:`tiebreak.index.store`, built with ``tiebreak index --direct``) or
        a merge of the query terms' positional postings (``False``). ``None`` (default): the
        direct file when the index has one. The scores are the same either way (the CDF is
        the same sequence; tested bit for bit); with the direct file the positions are not
        read (a version-2 index does not decode them).

    Returns
    -------
    (docids int32 (k',), scores float64 (k',))
        Best first, trec_eval order (score descending, then docno descending);
        k' = min(k, number of candidates) (candidates: ``first_k``, or ``max(k, first_k)``
        with ``tail``).

    Raises
    ------
    ValueError
        An unknown model, ``first_k < 1``, a bad model parameter, ``tail`` with another
        first pass, or ``direct=True`` on an index without a direct file.
    """
    from .search import get_model

    if model not in RERANK_MODELS:
        raise ValueError(f"model: expected one of {', '.join(RERANK_MODELS)}, got {model!r}")
    if isinstance(first_k, bool) or int(first_k) != first_k or first_k < 1:
        raise ValueError(f"first_k must be an integer >= 1, got {first_k!r}")
    qplan = dep.query_plan(index, query_terms)
    plan = _lkp_prepare(index, query_terms, k, model, lam, k1, b, method, max_prox_terms,
                        qplan)  # fmt: skip
    fused = first == "bm25" and not first_params
    fn = None if fused else get_model(first)
    if first == "bm25":
        first_params = {"idf": "rw", "k1": k1, "b": b, **first_params}
    if tail and (first != "bm25" or set(first_params) - {"idf", "k1", "b", "algorithm"}
                 or (first_params["idf"], first_params["k1"], first_params["b"])
                 != ("rw", k1, b)):
        raise ValueError("tail needs the BM25^(2) first pass (first='bm25' with idf 'rw' and "
                         "the model's k1 and b): its scores are the BM25 part of Eq. 4.3")
    if plan is None:
        return _empty()
    n_first = max(int(k), int(first_k)) if tail else int(first_k)
    tids, qtf, nq, (tables, ph_slot, _, pop) = plan
    use_direct = _use_direct(index, direct)
    if use_direct:
        pp, pd, qp, pos, dl, rank, maxdl, df_all, cf_all = _arrays_direct(index)
        dfile, dstart, local = _direct_arrays(index, tids[:nq])
    else:
        pp, pd, _, qp, pos, dl, rank, maxdl, df_all, cf_all = _arrays(index)
        dfile, dstart, local = _NO_DIRECT
    st = collection_stats(index)
    rest = (int(first_k), 1.0 - float(lam), tids, qtf, nq, int(k), _VARIANT_CODE[model],
            _method_code(index, tids, nq, method, model != "l2p", (df_all, cf_all)), float(lam),
            float(k1),
            float(b), float(st.avgdl), dl,
            float(st.num_docs), tables[0], tables[1], ph_slot,
            _ZERO1 if pop is None else pop, dfile, dstart, local)  # fmt: skip
    try:
        return _rerank_run(index, query_terms, k1, b, fused, fn, first_params, qplan, n_first,
                           pp, pd, qp, pos, rank, maxdl, df_all, cf_all, rest)
    finally:
        if use_direct:
            local[tids[:nq]] = -1     # the lookup table is kept on the index, all -1


def _rerank_run(index, query_terms, k1, b, fused, fn, first_params, qplan, n_first, pp, pd, qp,
                pos, rank, maxdl, df_all, cf_all, rest):
    sat = _saturation(index, k1, b)
    if fused:
        # the default BM25^(2) first pass inside the same compiled call: exactly
        # tiebreak.retrieval.models.bm25(index, terms, n_first, idf="rw", k1=k1, b=b)
        from .weights import _flat, _impacts, _knorm, idf_weights
        from .weights import _scratch as bm25_scratch

        tids0, qtf0 = qplan
        key = _knorm(index, float(k1), float(b), "exact")
        bpp, bpd, bpt = _flat(index)
        imp = _impacts(index, key, tids0, float(k1), bpp, bpd, bpt)
        return _rerank_query(
            bpp, bpd, imp, tids0, idf_weights(index, tids0, "rw") * qtf0,
            *bm25_scratch(index), n_first, pp, pd, qp, pos, rank, maxdl, sat, df_all, cf_all,
            *rest,
        )  # fmt: skip
    cands, first_sc = fn(index, query_terms, n_first, **first_params)
    cands = np.asarray(cands, np.int32)
    first_sc = np.asarray(first_sc, np.float64)
    if len(cands) == 0:
        return _empty()
    return _rerank_kernel(pp, pd, qp, pos, rank, maxdl, sat, df_all, cf_all, cands, first_sc,
                      *rest)  # fmt: skip


def search_rerank(index, topics, k: int = 1000, model: str = "lkp", first: str = "bm25",
                  first_k: int | None = None, progress: bool = False, tail: bool = False,
                  algorithm: str = "exhaustive", **params):
    """:func:`rerank` over ``(qid, text)`` topics, as :func:`tiebreak.retrieval.search.search`
    does for one model: a list of :class:`~tiebreak.retrieval.search.Result` in topic order (an
    empty result keeps its place, with a ``note``). ``first_k`` defaults to ``k``; ``tail`` as
    in :func:`rerank`; ``algorithm`` is the first pass's traversal (``exhaustive``,
    ``maxscore`` or ``bmw``, rank-safe: the same result; bm25 and ql only). ``params`` go
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
    from .traversal import ALGORITHMS

    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm: expected one of {', '.join(ALGORITHMS)}, got "
                         f"{algorithm!r}")
    if algorithm != "exhaustive":
        if first not in ("bm25", "ql"):
            raise ValueError(f"algorithm {algorithm!r} needs a bm25 or ql first pass, not "
                             f"{first!r}")
        params = {**params, "algorithm": algorithm}
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
        d, s = rerank(index, terms, k, first=first, first_k=first_k, model=model, tail=tail,
                      **params)
        note = ""
        if len(d) == 0:
            note = ("no query terms after analysis" if not terms else
                    "none of its terms occurs in the index"
                    if all(index.term_id(t) < 0 for t in terms) else "no document matched")
        out.append(Result(str(qid), d, s, note))
    return out
