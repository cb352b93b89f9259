"""Bag-of-words retrieval models: BM25, query likelihood (three smoothings) and the vector space
model.

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

Models here: :func:`bm25`, :func:`ql`, :func:`vsm`; their term weights are defined once, in
:mod:`tiebreak.retrieval.weights`. Every model is declared in
:mod:`tiebreak.retrieval.registry`.
"""

from __future__ import annotations

import numpy as np

from .._native.jit import njit

# term-at-a-time sums; top k in trec_eval order; the bm25 impact pass (shared with the
# two-stage kernel of dependency/rerank.py)
from .kernels import _bm25_impact_topk, _topk_of, accumulate
from .weights import (  # noqa: F401  (re-exported: the helpers lived here before)
    IDF_VARIANTS,
    QLScorer,
    _flat,
    _impacts,
    _knorm,
    _scratch,
    bm25_impacts,
    collection_stats,
    idf_weights,
    lucene_doclen,
    ql_impacts,
    query_term_ids,
)

__all__ = ["bm25", "ql", "vsm", "pl2", "dph", "dfr_bm25", "idf_weights", "query_term_ids",
           "topk_from_scores",
           "lucene_doclen", "bm25_impacts", "ql_impacts", "collection_stats"]

# ---------------------------------------------------------------- numba kernels
@njit(cache=True)
def _ql_topk(post_ptr, post_docid, imp, prior, tids, qtf, nq, acc, seen, touched, rank, k):
    """Dirichlet ql from the cached impacts and prior (:func:`ql_impacts`): the query terms'
    impacts weighted by ``f_{q,Q}``, then ``|Q| prior[d]`` for each touched document."""
    n = accumulate(post_ptr, post_docid, imp, tids, qtf, acc, seen, touched)
    for i in range(n):
        d = touched[i]
        acc[d] += nq * prior[d]
    return _topk_of(acc, seen, touched, n, rank, k)


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


def ql(index, query_terms, k: int = 1000, mu: float = 2500.0, smoothing: str = "dirichlet",
       lam: float = 0.1, delta: float = 0.7, **traversal) -> tuple[np.ndarray, np.ndarray]:
    """Query likelihood with Dirichlet smoothing, spec ``proximity-retrieval.md`` §1.3, Eq. 2.5
    in its rank-equivalent form:

    ``score(Q, D) = |Q| log(mu / (|D| + mu)) + sum_q f_{q,Q} log(1 + f_{q,D} |C| / (mu f_{q,C}))``

    ``|Q|`` counts the in-vocabulary query tokens (with repeats); out-of-vocabulary terms are
    dropped (their ``f_{q,C}`` is 0). Only documents containing a query term are ranked.
    ``traversal`` options as for :func:`bm25`.

    ``smoothing="jm"`` (Jelinek-Mercer, collection weight ``lam``) and ``smoothing="ad"``
    (absolute discounting, ``delta``) follow Zhai & Lafferty (ACM TOIS 22(2), 2004), in the
    rank-equivalent forms of :class:`tiebreak.retrieval.weights.QLScorer`; they are scored
    through the traversal layer.
    """
    if smoothing != "dirichlet":
        from .traversal import retrieve
        return retrieve(index, query_terms, k, QLScorer(smoothing=smoothing, lam=lam,
                                                        delta=delta), **traversal)
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
    pp, pd, _ = _flat(index)
    _, imp, prior = QLScorer(mu=mu).impacts(index)      # cached on the index
    return _ql_topk(pp, pd, imp, prior, tids, qtf, float(qtf.sum()), acc, seen, touched, rank,
                    k)


TRAVERSAL_OPTIONS = ("algorithm", "quantize", "quantizer", "rho", "budget", "stats",
                     "band_method")


def _wants_traversal(opts: dict) -> bool:
    bad = set(opts) - set(TRAVERSAL_OPTIONS)
    if bad:
        raise TypeError(f"unexpected parameter(s): {', '.join(sorted(bad))}")
    return any(v is not None and not (n == "algorithm" and v == "exhaustive")
               and not (n == "quantizer" and v == "linear")
               and not (n == "band_method" and v == "exact") for n, v in opts.items())


def vsm(index, query_terms, k: int = 1000, **traversal) -> tuple[np.ndarray, np.ndarray]:
    """The TF x IDF cosine vector space model (Salton, Wong & Yang, CACM 18(11), 1975; Lu 2018
    Eq. 2.1-2.2): :class:`tiebreak.retrieval.weights.VSMScorer` through the traversal layer
    (exhaustive by default; ``algorithm="maxscore"|"bmw"`` are rank-safe). Returns the top
    ``k`` as ``(docids int32, scores float64)``, scores the cosines."""
    from .traversal import retrieve
    from .weights import VSMScorer

    if traversal.get("quantize") is not None:
        raise ValueError("vsm: quantised impacts are not available")
    k = int(k)
    if k <= 0:
        return _empty()
    return retrieve(index, query_terms, k, VSMScorer(), **traversal)


def _dfr(model: str, index, query_terms, k, traversal, **params):
    from .traversal import retrieve
    from .weights import DFRScorer

    if traversal.get("quantize") is not None:
        raise ValueError(f"{model}: quantised impacts are not available")
    k = int(k)
    if k <= 0:
        return _empty()
    return retrieve(index, query_terms, k, DFRScorer(model=model, **params), **traversal)


def pl2(index, query_terms, k: int = 1000, c: float = 1.0,
        **traversal) -> tuple[np.ndarray, np.ndarray]:
    """PL2, divergence from randomness (G. Amati and C. J. van Rijsbergen, ACM TOIS 20(4),
    2002): :class:`tiebreak.retrieval.weights.DFRScorer` ``model="pl2"`` through the traversal
    layer (exhaustive unless ``algorithm`` says otherwise). ``(docids int32, scores
    float64)``."""
    return _dfr("pl2", index, query_terms, k, traversal, c=c)


def dph(index, query_terms, k: int = 1000, **traversal) -> tuple[np.ndarray, np.ndarray]:
    """DPH, the parameter-free DFR model (Amati et al., TREC 2007):
    :class:`tiebreak.retrieval.weights.DFRScorer` ``model="dph"``."""
    return _dfr("dph", index, query_terms, k, traversal)


def dfr_bm25(index, query_terms, k: int = 1000, c: float = 1.0, k1: float = 1.2,
             k3: float = 1000.0, **traversal) -> tuple[np.ndarray, np.ndarray]:
    """DFR_BM25 (Amati 2003's DFR form of BM25 with Normalisation 2):
    :class:`tiebreak.retrieval.weights.DFRScorer` ``model="dfr_bm25"``."""
    return _dfr("dfr_bm25", index, query_terms, k, traversal, c=c, k1=k1, k3=k3)


def _lazy(name: str):
    """A dependency model's function that imports :mod:`tiebreak.retrieval.dependency` only when
    called (NotImplementedError when that module or the function is missing)."""
    import importlib

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


class _Models(dict):
    """name -> model(index, query_terms, k, **params): a view of
    :data:`tiebreak.retrieval.registry.MODELS` (every name and alias), filled on first use."""

    def _fill(self):
        if not dict.__len__(self):
            from functools import partial

            from .registry import ALIASES, get, names

            for n in names():
                m = get(n)
                fn = _lazy(m.name) if m.kind == "dependency" else m.function()
                fixed = ALIASES[n][1] if n in ALIASES else {}
                dict.__setitem__(self, n, partial(fn, **fixed) if fixed else fn)

    def __getitem__(self, name):
        self._fill()
        return dict.__getitem__(self, name)

    def __iter__(self):
        self._fill()
        return dict.__iter__(self)

    def __len__(self):
        self._fill()
        return dict.__len__(self)

    def __contains__(self, name):
        self._fill()
        return dict.__contains__(self, name)

    def keys(self):
        self._fill()
        return dict.keys(self)


#: name -> model(index, query_terms, k, **params) -> (docids int32, scores float64)
MODELS = _Models()
