"""Bag-of-words retrieval models and the model registry.

Every model has the signature ``model(index, query_terms, k, **params) -> (docids, scores)``:
``query_terms`` are analysed index terms (``index.analyzer.analyze(text)``), repeats count as query
term frequency ``f_{q,Q}``, terms outside the vocabulary are dropped. The result is the top ``k``
documents that contain at least one query term, as ``int32`` docids and ``float64`` scores sorted
by score descending, then docno descending in byte order -- trec_eval's order, so a run written in
this order is evaluated in file order.

Scoring is term-at-a-time in numba: each query term's postings are added into a dense float64
accumulator, the touched documents are remembered in a list, and the top ``k`` are selected from
the touched ones only (a partition plus a sort of the candidates; nothing is done over all N). The
scratch arrays live on the index object, so an :class:`~tiebreak.index.Index` must not be searched
from two threads at once.

Models here: :func:`bm25`, :func:`ql`. ``sdm``, ``fdm``, ``lkp``, ``lkpf`` and ``l2p`` are
registered lazily: calling them imports :mod:`tiebreak.retrieval.dependency` and calls its function
of the same name.
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable

import numpy as np

from .._numba import njit
from .kernels import _topk_of  # top k of the touched documents, in trec_eval order

__all__ = ["MODELS", "bm25", "ql", "idf_weights", "query_term_ids", "topk_from_scores",
           "lucene_doclen", "bm25_impacts", "ql_impacts", "collection_stats"]

IDF_VARIANTS = ("rsj", "rw", "lucene")


# ---------------------------------------------------------------- numba kernels
@njit(cache=True)
def _impact_accumulate(post_ptr, post_docid, imp, tids, weights, acc, seen, touched):
    """Term-at-a-time accumulation of precomputed per-posting BM25 impacts."""
    n = 0
    for qi in range(tids.size):
        t = tids[qi]
        w = weights[qi]
        for j in range(post_ptr[t], post_ptr[t + 1]):
            d = post_docid[j]
            if not seen[d]:
                seen[d] = True
                touched[n] = d
                n += 1
            acc[d] += w * imp[j]
    return n


@njit(cache=True)
def _impact_accumulate_dense(post_ptr, post_docid, imp, tids, weights, acc, seen, touched):
    """Dense variant for queries whose postings cover much of the collection and whose weights
    are all positive: no per-posting bookkeeping; touched documents are those with acc > 0."""
    for qi in range(tids.size):
        t = tids[qi]
        w = weights[qi]
        for j in range(post_ptr[t], post_ptr[t + 1]):
            acc[post_docid[j]] += w * imp[j]
    n = 0
    for d in range(acc.size):
        if acc[d] > 0.0:
            seen[d] = True
            touched[n] = d
            n += 1
    return n


@njit(cache=True)
def _bm25_impact_topk(post_ptr, post_docid, imp, tids, weights, acc, seen, touched, rank, k):
    total = 0
    positive = True
    for qi in range(tids.size):
        total += post_ptr[tids[qi] + 1] - post_ptr[tids[qi]]
        if weights[qi] <= 0.0:
            positive = False
    if positive and total * 4 > acc.size:
        n = _impact_accumulate_dense(post_ptr, post_docid, imp, tids, weights, acc, seen,
                                     touched)
    else:
        n = _impact_accumulate(post_ptr, post_docid, imp, tids, weights, acc, seen, touched)
    return _topk_of(acc, seen, touched, n, rank, k)


@njit(cache=True)
def _ql_accumulate(post_ptr, post_docid, post_tf, tids, qtf, cf, coll_len, mu, doclen, nq, acc,
                   seen, touched):
    n = 0
    for qi in range(tids.size):
        t = tids[qi]
        w = qtf[qi]
        c = coll_len / (mu * np.float64(cf[t]))
        for j in range(post_ptr[t], post_ptr[t + 1]):
            d = post_docid[j]
            if not seen[d]:
                seen[d] = True
                touched[n] = d
                n += 1
            acc[d] += w * np.log(1.0 + np.float64(post_tf[j]) * c)
    for i in range(n):
        d = touched[i]
        acc[d] += nq * np.log(mu / (np.float64(doclen[d]) + mu))
    return n


@njit(cache=True)
def _ql_topk(post_ptr, post_docid, post_tf, tids, qtf, cf, coll_len, mu, doclen, nq, acc, seen,
             touched, rank, k):
    n = _ql_accumulate(post_ptr, post_docid, post_tf, tids, qtf, cf, coll_len, mu, doclen, nq,
                       acc, seen, touched)
    return _topk_of(acc, seen, touched, n, rank, k)


# ---------------------------------------------------------------- helpers
def collection_stats(index):
    """The collection statistics the models score ``index`` with.

    ``index.global_stats`` when it is set, else ``index`` itself. A shard of a sharded index
    carries the whole collection's statistics there
    (:class:`tiebreak.index.shards.CollectionStats`), so its documents score exactly as in one
    index of the whole collection; set it before the first search of the shard (scoring caches
    on the index depend on it). The attributes read are
    ``num_docs`` (N), ``collection_length`` (|C|), ``avgdl`` (|C| / N as a Python float
    division), ``df`` and ``cf`` (per term id of ``index``). Everything else a model reads
    (postings, positions, ``doclen``, ``docno_rank``, array sizes) stays the index's own.
    """
    st = getattr(index, "global_stats", None)
    return index if st is None else st


def _scratch(index):
    c = index._cache
    if "acc" not in c:
        N = index.num_docs
        c["acc"] = np.zeros(N, np.float64)
        c["seen"] = np.zeros(N, np.bool_)
        c["touched"] = np.empty(N, np.int32)
        c["rank"] = np.ascontiguousarray(index.docno_rank)
    return c["acc"], c["seen"], c["touched"], c["rank"]


def _flat(index):
    c = index._cache
    if "flat" not in c:
        # np.asarray of a memmap is a plain ndarray view; numba accepts it without copying
        c["flat"] = (np.asarray(index.post_ptr), np.asarray(index.post_docid),
                     np.asarray(index.post_tf))
    return c["flat"]


def query_term_ids(index, query_terms) -> tuple[np.ndarray, np.ndarray]:
    """Distinct in-vocabulary term ids (first-occurrence order) and their query frequencies."""
    cnt = Counter(query_terms)
    tids, qtf = [], []
    for t, f in cnt.items():
        tid = index.term_id(t)
        if tid >= 0:
            tids.append(tid)
            qtf.append(f)
    return np.asarray(tids, np.int64), np.asarray(qtf, np.float64)


def idf_weights(index, tids: np.ndarray, idf: str = "lucene") -> np.ndarray:
    """BM25 term weights (natural log), spec ``proximity-retrieval.md`` Eq. 2.4.

    * ``rsj``: Robertson--Spaerck Jones ``log((N - df + 0.5) / (df + 0.5))`` (negative when
      df > N/2; BM25^(1) of Lu 2018, Table 4.3),
    * ``rw``: Robertson--Walker ``log(N / df)`` (BM25^(2)),
    * ``lucene`` (the default): ``log(1 + (N - df + 0.5) / (df + 0.5))``, never negative
      (Lucene/Anserini, bm25s).
    """
    st = collection_stats(index)
    N = float(st.num_docs)
    df = np.asarray(st.df)[tids].astype(np.float64)
    if idf == "rsj":
        return np.log((N - df + 0.5) / (df + 0.5))
    if idf == "rw":
        return np.log(N / df)
    if idf == "lucene":
        return np.log(1.0 + (N - df + 0.5) / (df + 0.5))
    raise ValueError(f"idf: expected one of {', '.join(IDF_VARIANTS)}, got {idf!r}")


def _empty():
    return np.zeros(0, np.int32), np.zeros(0, np.float64)


def topk_from_scores(index, docids: np.ndarray, scores: np.ndarray, k: int):
    """Top k of arbitrary (docid, score) pairs in trec_eval order -- for models written in numpy.
    Sorts only the candidates given (use it on the touched documents, not all N)."""
    docids = np.asarray(docids, np.int64)
    scores = np.asarray(scores, np.float64)
    rank = np.asarray(index.docno_rank)[docids]
    order = np.lexsort((-rank, -scores))[:k]
    return docids[order].astype(np.int32), scores[order]


# ---------------------------------------------------------------- models
def lucene_doclen(doclen: np.ndarray) -> np.ndarray:
    """Document lengths as Lucene's BM25 sees them: encoded into one byte (``SmallFloat``
    ``intToByte4``: exact below 24, then 4 significant bits) and decoded again."""
    dl = np.asarray(doclen, np.int64)
    free = 24  # 255 - intToByte4's code of Integer.MAX_VALUE (231)
    out = dl.copy()
    big = dl >= free
    x = dl[big] - free
    nbits = np.zeros_like(x)
    nz = x > 0
    nbits[nz] = np.floor(np.log2(x[nz])).astype(np.int64) + 1
    shift = np.maximum(nbits - 4, 0)
    mant = np.where(nbits < 4, x, (x >> shift) & 7)
    code = np.where(nbits < 4, x, mant | ((shift + 1) << 3))
    # decode
    s = (code >> 3) - 1
    bits = code & 7
    dec = np.where(s < 0, bits, (bits | 8) << np.maximum(s, 0))
    out[big] = free + dec
    return out


def bm25(index, query_terms, k: int = 1000, k1: float = 0.9, b: float = 0.4,
         idf: str = "lucene", doclen: str = "exact", **traversal) -> tuple[np.ndarray, np.ndarray]:
    """Okapi BM25, spec ``proximity-retrieval.md`` §1.2, Eq. 2.3 with the IDF of Eq. 2.4.

    ``score(Q, D) = sum_q f_{q,Q} w_q (k1 + 1) f_{q,D} / (K_D + f_{q,D})``,
    ``K_D = k1 ((1 - b) + b |D| / avgdl)``

    The k3 query factor is dropped as in the spec (it becomes ``f_{q,Q}``). Defaults k1 = 0.9,
    b = 0.4 and ``idf="rsj"`` are the spec's BM25^(1) (Table 4.3); ``idf="rw"`` with b = 0.3 is
    BM25^(2); ``idf="lucene"`` gives Lucene's weights (its scores lack the constant ``k1 + 1``
    factor, which does not change the ranking).

    ``doclen="lucene"`` replaces |D| by Lucene's lossy one-byte length (:func:`lucene_doclen`),
    to reproduce Lucene/Anserini rankings; ``avgdl`` stays exact, as in Lucene.

    ``traversal`` options (``algorithm``, ``quantize``, ``quantizer``, ``rho``, ``budget``)
    select pruned, quantised, band-safe or anytime retrieval through
    :func:`tiebreak.retrieval.traversal.retrieve`; without them scoring is exhaustive.
    """
    if _wants_traversal(traversal):
        from .traversal import retrieve

        return retrieve(index, query_terms, k, "bm25", k1=k1, b=b, idf=idf, doclen=doclen,
                        **traversal)
    k = int(k)
    k1 = float(k1)
    b = float(b)
    tids, qtf = query_term_ids(index, query_terms)
    if tids.size == 0 or k <= 0 or index.num_docs == 0:
        return _empty()
    w = idf_weights(index, tids, idf) * qtf
    if doclen not in ("exact", "lucene"):
        raise ValueError(f"doclen: expected exact or lucene, got {doclen!r}")
    key = _knorm(index, k1, b, doclen)
    acc, seen, touched, rank = _scratch(index)
    pp, pd, pt = _flat(index)
    imp = _impacts(index, key, tids, k1, pp, pd, pt)
    return _bm25_impact_topk(pp, pd, imp, tids, w, acc, seen, touched, rank, k)


def _impacts(index, key, tids, k1, pp, pd, pt) -> np.ndarray:
    """Per-posting BM25 term-frequency factors ``(k1 + 1) tf / (K_D + tf)`` for (k1, b, doclen),
    float64, filled lazily term by term (a term's postings are computed the first time a query
    uses it, so repeated queries only add precomputed impacts, as impact-ordered engines do)."""
    ik = ("impact",) + key[1:]
    entry = index._cache.get(ik)
    if entry is None:
        entry = index._cache[ik] = (np.empty(len(pd), np.float64),
                                    np.zeros(index.vocab_size, bool))
    imp, done = entry
    knorm = index._cache[key]
    for t in tids[~done[tids]]:
        a, b = pp[t], pp[t + 1]
        tf = np.asarray(pt[a:b], np.float64)
        imp[a:b] = (tf * (k1 + 1.0)) / (tf + knorm[pd[a:b]])
        done[t] = True
    return imp


def ql(index, query_terms, k: int = 1000, mu: float = 2500.0,
       **traversal) -> tuple[np.ndarray, np.ndarray]:
    """Query likelihood with Dirichlet smoothing, spec ``proximity-retrieval.md`` §1.3, Eq. 2.5
    in its rank-equivalent form:

    ``score(Q, D) = |Q| log(mu / (|D| + mu)) + sum_q f_{q,Q} log(1 + f_{q,D} |C| / (mu f_{q,C}))``

    ``|Q|`` counts the in-vocabulary query tokens (with repeats); out-of-vocabulary terms are
    dropped (their ``f_{q,C}`` is 0). Only documents containing a query term are ranked.
    ``traversal`` options as for :func:`bm25`.
    """
    if _wants_traversal(traversal):
        from .traversal import retrieve

        return retrieve(index, query_terms, k, "ql", mu=mu, **traversal)
    k = int(k)
    mu = float(mu)
    if mu <= 0:
        raise ValueError("mu must be > 0")
    tids, qtf = query_term_ids(index, query_terms)
    if tids.size == 0 or k <= 0 or index.num_docs == 0:
        return _empty()
    acc, seen, touched, rank = _scratch(index)
    pp, pd, pt = _flat(index)
    st = collection_stats(index)
    cf = np.asarray(st.cf)
    return _ql_topk(pp, pd, pt, tids, qtf, cf, float(st.collection_length), mu,
                    np.asarray(index.doclen), float(qtf.sum()), acc, seen, touched, rank, k)


TRAVERSAL_OPTIONS = ("algorithm", "quantize", "quantizer", "rho", "budget", "stats",
                     "band_method")


def _wants_traversal(opts: dict) -> bool:
    bad = set(opts) - set(TRAVERSAL_OPTIONS)
    if bad:
        raise TypeError(f"unexpected parameter(s): {', '.join(sorted(bad))}")
    return any(v is not None and not (n == "algorithm" and v == "exhaustive")
               and not (n == "quantizer" and v == "linear")
               and not (n == "band_method" and v == "exact") for n, v in opts.items())


def _knorm(index, k1: float, b: float, doclen: str):
    key = ("knorm", k1, b, doclen)
    if key not in index._cache:
        dl = np.asarray(index.doclen, np.float64)
        if doclen == "lucene":
            dl = lucene_doclen(index.doclen).astype(np.float64)
        avgdl = collection_stats(index).avgdl
        index._cache[key] = k1 * ((1.0 - b) + b * dl / avgdl) if avgdl > 0 else \
            np.full(index.num_docs, k1 * (1.0 - b))
    return key


def bm25_impacts(index, k1: float = 0.9, b: float = 0.4, doclen: str = "exact") -> np.ndarray:
    """BM25 term-frequency factors ``(k1 + 1) tf / (K_D + tf)`` of every posting, float64 (P,),
    bit-identical to the ones :func:`bm25` computes lazily (it shares the cache)."""
    if doclen not in ("exact", "lucene"):
        raise ValueError(f"doclen: expected exact or lucene, got {doclen!r}")
    key = _knorm(index, float(k1), float(b), doclen)
    pp, pd, pt = _flat(index)
    ik = ("impact",) + key[1:]
    entry = index._cache.get(ik)
    if entry is None:
        entry = index._cache[ik] = (np.empty(len(pd), np.float64),
                                    np.zeros(index.vocab_size, bool))
    imp, done = entry
    if not done.all():
        knorm = index._cache[key]
        step = 1 << 22
        for a in range(0, len(pd), step):
            tf = np.asarray(pt[a:a + step], np.float64)
            imp[a:a + step] = (tf * (float(k1) + 1.0)) / (tf + knorm[pd[a:a + step]])
        done[:] = True
    return imp


@njit(cache=True)
def _ql_impacts(post_ptr, post_tf, cf, coll_len, mu, doclen):
    V = post_ptr.size - 1
    imp = np.empty(post_tf.size, np.float64)
    for t in range(V):
        if post_ptr[t + 1] == post_ptr[t]:
            continue        # no postings (a shard's vocabulary can hold terms with cf 0)
        c = coll_len / (mu * np.float64(cf[t]))
        for j in range(post_ptr[t], post_ptr[t + 1]):
            imp[j] = np.log(1.0 + np.float64(post_tf[j]) * c)
    prior = np.empty(doclen.size, np.float64)
    for d in range(doclen.size):
        prior[d] = np.log(mu / (np.float64(doclen[d]) + mu))
    return imp, prior


def ql_impacts(index, mu: float = 2500.0) -> tuple[np.ndarray, np.ndarray]:
    """Query-likelihood impacts ``log(1 + tf |C| / (mu f_{q,C}))`` of every posting, float64
    (P,), and the per-document prior ``log(mu / (|D| + mu))``, float64 (N,), computed as
    :func:`ql` computes them (so sums are bit-identical)."""
    pp, pd, pt = _flat(index)
    st = collection_stats(index)
    return _ql_impacts(pp, pt, np.asarray(st.cf), float(st.collection_length), float(mu),
                       np.asarray(index.doclen))


def _lazy(name: str) -> Callable:
    def model(index, query_terms, k: int = 1000, **params):
        try:
            mod = importlib.import_module("tiebreak.retrieval.dependency")
        except ModuleNotFoundError as e:
            if e.name not in ("tiebreak.retrieval.dependency",):
                raise
            raise NotImplementedError(
                f"model {name!r} is not available yet: tiebreak.retrieval.dependency is "
                "missing") from None
        fn = getattr(mod, name, None)
        if fn is None:
            raise NotImplementedError(f"model {name!r} is not available yet: "
                                      f"tiebreak.retrieval.dependency has no {name}()")
        return fn(index, query_terms, k, **params)

    model.__name__ = model.__qualname__ = name
    model.__doc__ = f"{name.upper()}: lazily calls tiebreak.retrieval.dependency.{name}."
    return model


#: name -> model(index, query_terms, k, **params) -> (docids int32, scores float64)
MODELS: dict[str, Callable] = {"bm25": bm25, "ql": ql}
for _name in ("sdm", "fdm", "lkp", "lkpf", "l2p"):
    MODELS[_name] = _lazy(_name)
del _name
