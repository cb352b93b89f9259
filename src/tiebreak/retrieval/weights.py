"""Term weights: the collection statistics, per-posting impacts and query-term weights every
bag-of-words model is scored with, and the *term scorers* the traversal runs.

A term scorer states a model as PISA does: a document's score is ``sum_q w_q * imp[q, d]`` over
the query terms ``q`` it contains, plus ``pw * prior[d]`` for models with a document prior
(query likelihood's length part). ``imp`` is one float64 per posting (P,), cached on the index;
``w`` one float64 per distinct query term. :mod:`tiebreak.retrieval.traversal` takes a scorer
object and knows no model; the model registry (:mod:`tiebreak.retrieval.registry`) builds the
scorers from a model's parameters.

* bm25: ``imp = (k1+1) tf / (K_D + tf)``, ``w_q = f_{q,Q} idf_q``;
* ql, Dirichlet: ``imp = log(1 + tf |C| / (mu cf))``, ``w_q = f_{q,Q}``,
  ``prior = log(mu / (|D| + mu))``;
* ql, Jelinek-Mercer: ``imp = log(1 + (1-lam) tf |C| / (lam |D| cf))``, ``w_q = f_{q,Q}``;
* ql, absolute discount: ``imp = log(1 + (tf-delta) |C| / (delta u_D cf))``,
  ``w_q = f_{q,Q}``, ``prior = log(delta u_D / |D|)``;
* vsm: ``imp = (1 + ln tf) / ||D||``, ``w_q = (1 + ln f_{q,Q}) idf_q^2 / ||Q||``.

(``u_D``: distinct terms of D; ``pw = |Q|`` for the priors.) References are in each class.

Size: one module because every model's impacts, weights and term scorer are stated here once,
and Dirichlet query likelihood's arithmetic (:func:`ql_dirichlet_impact`, ...) is shared by the
compiled impacts kernel and the numpy one-query path, which must not import numba.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from .quantize import Quantizer

__all__ = ["collection_stats", "query_term_ids", "idf_weights", "lucene_doclen", "bm25_impacts",
           "ql_impacts", "ql_dirichlet_factor", "ql_dirichlet_impact", "ql_dirichlet_prior",
           "IDF_VARIANTS", "TermScorer", "BM25Scorer", "QLScorer", "VSMScorer", "DFRScorer",
           "term_scorer", "TERM_SCORERS"]

IDF_VARIANTS = ("rsj", "rw", "lucene")


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
        c["touched"] = np.empty(N + 1, np.int32)     # N + 1: kernels.accumulate
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



def bm25_tf_part(tf: np.ndarray, knorm: np.ndarray, k1: float) -> np.ndarray:
    """BM25's term-frequency factor ``(k1 + 1) tf / (K_D + tf)`` of postings with frequencies
    ``tf`` (int, (n,)) in documents whose ``K_D`` is ``knorm`` (float64 (n,), from
    :func:`_knorm`); float64 (n,). The one definition of the bm25 model's per-posting impacts,
    shared by :func:`tiebreak.retrieval.models.bm25`, the traversal layer
    (:func:`bm25_impacts`) and :mod:`tiebreak.retrieval.onequery`; the positional and
    dependency models' compiled kernels compute their BM25 parts themselves."""
    tf = np.asarray(tf, np.float64)
    return (tf * (k1 + 1.0)) / (tf + knorm)


def _impact_cache(index, key, npost: int) -> tuple[np.ndarray, np.ndarray]:
    """The index's cached BM25 impacts for ``key`` (float64 (P,)) and which terms are filled
    (bool (vocab,)), created empty on first use; shared by the lazy and the whole-index path."""
    ik = ("impact",) + key[1:]
    entry = index._cache.get(ik)
    if entry is None:
        entry = index._cache[ik] = (np.empty(npost, np.float64),
                                    np.zeros(index.vocab_size, bool))
    return entry


def _impacts(index, key, tids, k1, pp, pd, pt) -> np.ndarray:
    """Per-posting BM25 term-frequency factors ``(k1 + 1) tf / (K_D + tf)`` for (k1, b, doclen),
    float64, filled lazily term by term (a term's postings are computed the first time a query
    uses it, so repeated queries only add precomputed impacts, as impact-ordered engines do)."""
    imp, done = _impact_cache(index, key, len(pd))
    knorm = index._cache[key]
    for t in tids[~done[tids]]:
        a, b = pp[t], pp[t + 1]
        imp[a:b] = bm25_tf_part(pt[a:b], knorm[pd[a:b]], k1)
        done[t] = True
    return imp


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
    imp, done = _impact_cache(index, key, len(pd))
    if not done.all():
        knorm = index._cache[key]
        step = 1 << 22
        for a in range(0, len(pd), step):
            imp[a:a + step] = bm25_tf_part(pt[a:a + step], knorm[pd[a:a + step]], float(k1))
        done[:] = True
    return imp


# ---------------------------------------------------------------- Dirichlet ql, one definition
# The three scalar pieces below are the only statement of Dirichlet query likelihood's
# arithmetic: :func:`_ql_impacts_kernel` (compiled by numba) calls them per posting and per
# document, and :mod:`tiebreak.retrieval.onequery` (numpy, no numba) per distinct value, so the
# two paths perform the same floating-point operations (``math.log`` is the C library's in
# both) and their scores are bit-identical.
def ql_dirichlet_factor(coll_len: float, mu: float, cf: float) -> float:
    """``|C| / (mu f_{q,C})``: the per-term factor of Dirichlet query likelihood (Zhai &
    Lafferty, ACM TOIS 22(2), 2004, Eq. 2.5 of the spec in rank-equivalent form)."""
    return coll_len / (mu * cf)


def ql_dirichlet_impact(tf: float, c: float) -> float:
    """``log(1 + tf c)`` with ``c`` = :func:`ql_dirichlet_factor`: one posting's impact."""
    return math.log(1.0 + tf * c)


def ql_dirichlet_prior(doclen: float, mu: float) -> float:
    """``log(mu / (|D| + mu))``: the per-document part (weighted by ``|Q|``)."""
    return math.log(mu / (doclen + mu))


# what the kernel calls: the Python functions above, rebound to their compiled forms before
# the kernel is compiled (numba inlines them; same file, so numba's cache sees their edits)
_ql_factor, _ql_impact, _ql_prior = ql_dirichlet_factor, ql_dirichlet_impact, ql_dirichlet_prior


def _ql_impacts_kernel(post_ptr, post_tf, cf, coll_len, mu, doclen):
    V = post_ptr.size - 1
    imp = np.empty(post_tf.size, np.float64)
    for t in range(V):
        if post_ptr[t + 1] == post_ptr[t]:
            continue        # no postings (a shard's vocabulary can hold terms with cf 0)
        c = _ql_factor(coll_len, mu, np.float64(cf[t]))
        for j in range(post_ptr[t], post_ptr[t + 1]):
            imp[j] = _ql_impact(np.float64(post_tf[j]), c)
    prior = np.empty(doclen.size, np.float64)
    for d in range(doclen.size):
        prior[d] = _ql_prior(np.float64(doclen[d]), mu)
    return imp, prior


_QL_KERNEL = None


def _ql_impacts(*args):
    """:func:`_ql_impacts_kernel` compiled by numba, on first use (so this module imports
    without numba: :mod:`tiebreak.retrieval.onequery` scores without it)."""
    global _QL_KERNEL, _ql_factor, _ql_impact, _ql_prior
    if _QL_KERNEL is None:
        from .._native.jit import njit

        inl = njit(inline="always")
        _ql_factor, _ql_impact, _ql_prior = (inl(ql_dirichlet_factor), inl(ql_dirichlet_impact),
                                             inl(ql_dirichlet_prior))
        _QL_KERNEL = njit(cache=True)(_ql_impacts_kernel)
    return _QL_KERNEL(*args)


def ql_impacts(index, mu: float = 2500.0) -> tuple[np.ndarray, np.ndarray]:
    """Query-likelihood impacts ``log(1 + tf |C| / (mu f_{q,C}))`` of every posting, float64
    (P,), and the per-document prior ``log(mu / (|D| + mu))``, float64 (N,)
    (:func:`ql_dirichlet_impact`, :func:`ql_dirichlet_prior`). Every Dirichlet ql score is a
    sum of these (:func:`tiebreak.retrieval.models.ql`, the traversal)."""
    pp, pd, pt = _flat(index)
    st = collection_stats(index)
    return _ql_impacts(pp, pt, np.asarray(st.cf), float(st.collection_length), float(mu),
                       np.asarray(index.doclen))




# ---------------------------------------------------------------- term scorers
class TermScorer:
    """A model scored as ``sum_q w_q imp[j_q] (+ pw prior[d])`` (module docstring).

    Subclasses set ``name`` and ``PARAMS`` (parameter -> default) and implement
    :meth:`_full` (the float64 per-posting impacts and the prior, or None) and
    :meth:`weights`. The traversal calls :meth:`impacts`, :meth:`quantized`, :meth:`weights`
    and :meth:`batch_weights`; impacts are cached on the index under :attr:`key`.
    """

    name = ""
    PARAMS: dict = {}
    #: whether impacts may be quantised (the per-term factor is folded in first when set)
    quantizable = True

    def __init__(self, **params):
        bad = set(params) - set(self.PARAMS)
        if bad:
            raise ValueError(f"unknown parameter(s) for {self.name}: {', '.join(sorted(bad))}")
        self.params = {**self.PARAMS, **params}

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.params.items())})"

    @property
    def key(self) -> tuple:
        raise NotImplementedError

    def _full(self, index) -> tuple[np.ndarray, np.ndarray | None]:
        raise NotImplementedError

    def impacts(self, index) -> tuple[tuple, np.ndarray, np.ndarray | None]:
        """``(key, imp (P,) float64, prior (N,) float64 or None)``, cached on ``index``."""
        c = index._cache
        if self.key not in c:
            c[self.key] = self._full(index)
        imp, prior = c[self.key]
        return self.key, imp, prior

    def term_factor(self, index) -> np.ndarray | None:
        """A per-term factor (V,) folded into the impacts before quantisation, or None."""
        return None

    def quantized(self, index, bits: int, quantizer: str = "linear"):
        """``(key, imp int32 (P,), prior int64 (N,) or None)`` quantised to ``bits`` bits
        (:class:`tiebreak.retrieval.quantize.Quantizer` fitted to the whole index)."""
        if not self.quantizable:
            raise ValueError(f"{self.name}: quantised impacts are not available")
        _, imp, prior = self.impacts(index)
        qkey = self.key + self._qextra() + (int(bits), quantizer)
        c = index._cache
        if qkey not in c:
            tf = self.term_factor(index)      # (V,): computed once, not per query
            if tf is not None:
                pp = np.asarray(_flat(index)[0])
                x = imp * np.repeat(tf, np.diff(pp))
                qz = Quantizer.fit(x, bits, quantizer)
                c[qkey] = (qz(x), None, qz)
            else:
                qz = Quantizer.fit(imp, bits, quantizer)
                c[qkey] = (qz(imp), qz.additive(prior), qz)
        return qkey, c[qkey][0], c[qkey][1]

    def _qextra(self) -> tuple:
        return ()

    def weights(self, index, tids, qtf, integer: bool = False):
        """Per-term weights ``w`` (m,) and the prior's weight ``pw`` of one query (distinct
        term ids ``tids`` int64 and query frequencies ``qtf`` float64)."""
        if integer:
            return qtf.astype(np.int64), (int(qtf.sum()) if self.has_prior else 0)
        return qtf.astype(np.float64), (float(qtf.sum()) if self.has_prior else 0.0)

    def batch_weights(self, index, q_tids, qtf, qid, nq, integer: bool = False):
        """:meth:`weights` of a batch: ``q_w`` (sum m,) and ``q_pw`` (nq,)."""
        nqt = np.bincount(qid, weights=qtf, minlength=nq)
        if integer:
            return qtf.astype(np.int64), (nqt.astype(np.int64) if self.has_prior
                                          else np.zeros(nq, np.int64))
        return qtf, (nqt if self.has_prior else np.zeros(nq))

    has_prior = False


class BM25Scorer(TermScorer):
    """Okapi BM25 (Robertson et al., "Okapi at TREC-3", TREC 1994; Lu 2018 Eq. 2.3-2.4):
    ``imp = (k1+1) tf / (K_D + tf)``, ``w_q = f_{q,Q} idf_q``."""

    name = "bm25"
    PARAMS = {"k1": 0.9, "b": 0.4, "idf": "lucene", "doclen": "exact"}

    @property
    def key(self):
        p = self.params
        return ("full-bm25", float(p["k1"]), float(p["b"]), str(p["doclen"]))

    def impacts(self, index):
        c = index._cache
        k = self.key
        if k not in c:
            c[k] = bm25_impacts(index, k[1], k[2], k[3])
        return k, c[k], None

    def _qextra(self):
        return (str(self.params["idf"]),)

    def term_factor(self, index):
        return idf_weights(index, np.arange(index.vocab_size), str(self.params["idf"]))

    def weights(self, index, tids, qtf, integer=False):
        if integer:
            return qtf.astype(np.int64), 0
        return idf_weights(index, tids, str(self.params["idf"])) * qtf, 0

    def batch_weights(self, index, q_tids, qtf, qid, nq, integer=False):
        if integer:
            return qtf.astype(np.int64), np.zeros(nq, np.int64)
        idf = str(self.params["idf"])
        idf_all = index._cache.get(("idf-all", idf))
        if idf_all is None:
            idf_all = index._cache[("idf-all", idf)] = idf_weights(
                index, np.arange(index.vocab_size), idf)
        return idf_all[q_tids] * qtf, np.zeros(nq)


SMOOTHINGS = ("dirichlet", "jm", "ad")


class QLScorer(TermScorer):
    """Query likelihood (Ponte & Croft, SIGIR 1998) with the smoothings of C. Zhai and
    J. Lafferty, "A study of smoothing methods for language models applied to information
    retrieval", ACM TOIS 22(2), 2004, in rank-equivalent form (a document-independent constant
    dropped; Lu 2018 Eq. 2.5 for Dirichlet):

    * ``dirichlet`` (``mu``, default 2500): ``sum_q f_{q,Q} log(1 + tf |C|/(mu cf))
      + |Q| log(mu/(|D|+mu))``;
    * ``jm`` Jelinek-Mercer (``lam``, the collection model's weight, default 0.1):
      ``sum_q f_{q,Q} log(1 + (1-lam) tf |C| / (lam |D| cf))``;
    * ``ad`` absolute discounting (``delta``, default 0.7): ``sum_q f_{q,Q}
      log(1 + (tf - delta)|C| / (delta u_D cf)) + |Q| log(delta u_D / |D|)``, ``u_D`` the
      number of distinct terms of D.
    """

    name = "ql"
    PARAMS = {"smoothing": "dirichlet", "mu": 2500.0, "lam": 0.1, "delta": 0.7}

    def __init__(self, **params):
        super().__init__(**params)
        p = self.params
        s = p["smoothing"]
        if s not in SMOOTHINGS:
            raise ValueError(f"smoothing: expected one of {', '.join(SMOOTHINGS)}, got {s!r}")
        if s == "dirichlet" and not float(p["mu"]) > 0:
            raise ValueError("mu must be > 0")
        if s == "jm" and not 0.0 < float(p["lam"]) < 1.0:
            raise ValueError(f"lam must be in (0, 1) for jm smoothing, got {p['lam']!r}")
        if s == "ad" and not 0.0 < float(p["delta"]) < 1.0:
            raise ValueError(f"delta must be in (0, 1), got {p['delta']!r}")
        self.has_prior = s in ("dirichlet", "ad")

    @property
    def key(self):
        p = self.params
        s = p["smoothing"]
        if s == "dirichlet":
            return ("full-ql", float(p["mu"]))
        return ("full-ql-" + s, float(p["lam"] if s == "jm" else p["delta"]))

    def _full(self, index):
        s = self.params["smoothing"]
        if s == "dirichlet":
            return ql_impacts(index, float(self.params["mu"]))
        pp, pd, pt = _flat(index)
        st = collection_stats(index)
        C = float(st.collection_length)
        cf = np.repeat(np.asarray(st.cf, np.float64), np.diff(np.asarray(pp)))
        tf = np.asarray(pt, np.float64)
        dl = np.asarray(index.doclen, np.float64)
        if s == "jm":
            lam = float(self.params["lam"])
            with np.errstate(divide="ignore", invalid="ignore"):
                imp = np.log1p((1.0 - lam) * tf * C / (lam * dl[np.asarray(pd)] * cf))
            return imp, None
        delta = float(self.params["delta"])
        u = np.bincount(np.asarray(pd), minlength=index.num_docs).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            imp = np.log1p((tf - delta) * C / (delta * u[np.asarray(pd)] * cf))
            prior = np.where(u > 0, np.log(delta * u / np.where(dl > 0, dl, 1.0)), 0.0)
        return imp, prior


class VSMScorer(TermScorer):
    """The vector space model with TF x IDF weights and cosine similarity (G. Salton, A. Wong
    and C. S. Yang, "A vector space model for automatic indexing", CACM 18(11), 1975; Lu 2018
    Eq. 2.1-2.2): ``w_{t,X} = (1 + ln f_{t,X}) ln(N / f_t)`` for documents and queries alike,
    ``score = sum_q w_{q,Q} w_{q,D} / (||Q||_2 ||D||_2)`` with ``||D||_2`` over every term of D
    (one pass over the whole index, cached) and ``||Q||_2`` over the in-vocabulary query terms.
    """

    name = "vsm"
    PARAMS: dict = {}
    quantizable = False

    @property
    def key(self):
        return ("full-vsm",)

    def inverse_norms(self, index) -> np.ndarray:
        """``1 / ||D||_2`` of every document (0 for a document without a weighted term),
        float64 (N,), cached on ``index``."""
        c = index._cache
        if ("vsm-inv-norm",) not in c:
            pp, pd, pt = _flat(index)
            st = collection_stats(index)
            N = float(st.num_docs)
            df = np.asarray(st.df)
            with np.errstate(divide="ignore"):
                idf = np.where(df > 0, np.log(N / np.maximum(df, 1)), 0.0)
            w = (1.0 + np.log(np.asarray(pt, np.float64))) * np.repeat(idf, np.diff(np.asarray(pp)))
            norm = np.sqrt(np.bincount(np.asarray(pd), weights=w * w, minlength=index.num_docs))
            c[("vsm-inv-norm",)] = np.where(norm > 0, 1.0 / np.where(norm > 0, norm, 1.0), 0.0)
        return c[("vsm-inv-norm",)]

    def _full(self, index):
        _, pd, pt = _flat(index)
        tfw = 1.0 + np.log(np.asarray(pt, np.float64))
        return tfw * self.inverse_norms(index)[np.asarray(pd)], None

    def _query(self, index, tids, qtf):
        st = collection_stats(index)
        idf = np.log(float(st.num_docs) / np.asarray(st.df)[tids].astype(np.float64))
        return (1.0 + np.log(qtf)) * idf, idf

    def weights(self, index, tids, qtf, integer=False):
        # the batch form on one query: the same sums in the same order, bit for bit
        w, _ = self.batch_weights(index, tids, qtf, np.zeros(len(tids), np.int64), 1)
        return w, 0.0

    def batch_weights(self, index, q_tids, qtf, qid, nq, integer=False):
        wq, idf = self._query(index, q_tids, qtf)
        norm = np.sqrt(np.bincount(qid, weights=wq * wq, minlength=nq))[qid]
        return np.where(norm > 0, wq * idf / np.where(norm > 0, norm, 1.0), 0.0), np.zeros(nq)


class DFRScorer(TermScorer):
    """Divergence-from-randomness term weights (G. Amati and C. J. van Rijsbergen,
    "Probabilistic models of information retrieval based on measuring the divergence from
    randomness", ACM TOIS 20(4), 2002; G. Amati, PhD thesis, University of Glasgow, 2003),
    in the forms Terrier implements (log2 throughout, ``lg``):

    * ``pl2`` (Poisson randomness, Laplace after-effect, Normalisation 2):
      ``tfn = tf lg(1 + c avgdl / |D|)``, ``lam = cf / N``,
      ``imp = (tfn lg(tfn / lam) + (lam - tfn) lg e + 0.5 lg(2 pi tfn)) / (tfn + 1)``,
      ``w_q = f_{q,Q}``; ``c`` default 1.
    * ``dph`` (the parameter-free hypergeometric model with Popper's normalisation; G. Amati,
      E. Ambrosi, M. Bianchi, C. Gaibisso and G. Gambosi, "FUB, IASI-CNR and University of Tor
      Vergata at TREC 2007 Blog Track", TREC 2007): ``f = tf / |D|``,
      ``imp = (1 - f)^2 / (tf + 1) (tf lg((tf avgdl / |D|) (N / cf)) + 0.5 lg(2 pi tf (1 - f)))``
      (0 when ``f = 1``, where the first factor is 0), ``w_q = f_{q,Q}``.
    * ``dfr_bm25`` (Amati's DFR reading of BM25, with Normalisation 2):
      ``tfn = tf lg(1 + c avgdl / |D|)``, ``imp = tfn / (tfn + k1) lg((N - df + 0.5) /
      (df + 0.5))`` (k1 1.2), ``w_q = (k3 + 1) f_{q,Q} / (k3 + f_{q,Q})`` (k3 1000).

    ``imp`` depends on the term's statistics, so each posting's value is stored; impacts can be
    negative (PL2 for small ``tfn``, the RSJ idf of frequent terms), and quantisation is not
    offered. Float64 (P,); no document prior.
    """

    name = "dfr"
    PARAMS = {"model": "pl2", "c": 1.0, "k1": 1.2, "k3": 1000.0}
    quantizable = False
    MODELS = ("pl2", "dph", "dfr_bm25")

    def __init__(self, **params):
        super().__init__(**params)
        if self.params["model"] not in self.MODELS:
            raise ValueError(f"model: expected one of {', '.join(self.MODELS)}, got "
                             f"{self.params['model']!r}")
        if not float(self.params["c"]) > 0:
            raise ValueError(f"c must be > 0, got {self.params['c']!r}")

    @property
    def key(self):
        p = self.params
        return ("full-dfr", p["model"], float(p["c"]), float(p["k1"]))

    def _full(self, index):
        pp, pd, pt = _flat(index)
        st = collection_stats(index)
        N = float(st.num_docs)
        avgdl = float(st.avgdl)
        counts = np.diff(np.asarray(pp))
        tf = np.asarray(pt, np.float64)
        dl = np.asarray(index.doclen, np.float64)[np.asarray(pd)]
        m, c = self.params["model"], float(self.params["c"])
        lg = np.log2
        with np.errstate(divide="ignore", invalid="ignore"):
            if m == "dph":
                cf = np.repeat(np.asarray(st.cf, np.float64), counts)
                f = tf / dl
                imp = (1.0 - f) ** 2 / (tf + 1.0) * (
                    tf * lg((tf * avgdl / dl) * (N / cf))
                    + 0.5 * lg(2.0 * np.pi * tf * (1.0 - f)))
                return np.where(f < 1.0, imp, 0.0), None
            tfn = tf * lg(1.0 + c * avgdl / dl)
            if m == "pl2":
                lam = np.repeat(np.asarray(st.cf, np.float64) / N, counts)
                imp = (tfn * lg(tfn / lam) + (lam - tfn) * np.log2(np.e)
                       + 0.5 * lg(2.0 * np.pi * tfn)) / (tfn + 1.0)
                return imp, None
            df = np.repeat(np.asarray(st.df, np.float64), counts)
            k1 = float(self.params["k1"])
            return tfn / (tfn + k1) * lg((N - df + 0.5) / (df + 0.5)), None

    def weights(self, index, tids, qtf, integer=False):
        if integer:
            raise ValueError(f"{self.params['model']}: quantised impacts are not available")
        if self.params["model"] == "dfr_bm25":
            k3 = float(self.params["k3"])
            return (k3 + 1.0) * qtf / (k3 + qtf), 0.0
        return qtf.astype(np.float64), 0.0

    def batch_weights(self, index, q_tids, qtf, qid, nq, integer=False):
        return self.weights(index, q_tids, qtf, integer)[0], np.zeros(nq)


#: name -> term scorer class (the models the traversal layer can run)
TERM_SCORERS = {"bm25": BM25Scorer, "ql": QLScorer, "vsm": VSMScorer, "dfr": DFRScorer}


def term_scorer(model, **params) -> TermScorer:
    """The :class:`TermScorer` of ``model`` (a name of :data:`TERM_SCORERS` or a scorer,
    returned as it is when no ``params`` are given).

    Raises
    ------
    ValueError
        An unknown model or parameter, or a bad parameter value.
    """
    if isinstance(model, TermScorer):
        if params:
            raise ValueError("parameters go into the scorer, not beside it")
        return model
    if model in DFRScorer.MODELS:      # pl2, dph, dfr_bm25: the registry's names
        return DFRScorer(model=model, **params)
    cls = TERM_SCORERS.get(model)
    if cls is None:
        raise ValueError(f"traversal supports models {', '.join(TERM_SCORERS)}, got {model!r}")
    return cls(**params)
