"""Early term-dependence models of Lu (2018) Table 2.1 over a positional index: Fagan's phrase
weighting, Song & Croft's bigram language model, Srikanth & Srihari's biterm language model and
de Kretser & Moffat's locality (kernel) model.

Every model has the registry signature ``model(index, query_terms, k, **params) -> (docids
int32, scores float64)``: the top ``k`` of the documents holding at least one query term, in
trec_eval order (score descending, then docno descending). Query terms are the distinct
in-vocabulary terms ``t_1..t_m`` in first-occurrence order with query frequencies
``f_{t,Q}``; adjacency refers to that sequence and to index positions (stopwords take none).
Each is scored on the candidates' condensed direct files (:func:`.positional.cdf_of`) by one
numba kernel compiled for one signature.

**Sources.** None of the four papers' texts could be read while this was written (Lu 2018 names
them in Table 2.1 and §2.2.3 without formulas); the definitions below are the models as they
are usually restated, and every choice the restatement leaves open is marked *choice*. They
are tested against hand computations (``tests/test_retrieval_termpairs.py``), not against
the papers' numbers.

* ``fagan`` -- J. L. Fagan, "Experiments in automatic phrase indexing for document retrieval:
  a comparison of syntactic and non-syntactic methods", PhD thesis, Cornell University, 1987.
  Statistical phrases: every pair of distinct query terms (``pairs="adjacent"``: the adjacent
  pairs only) is an extra dimension of the tf x idf cosine model of
  :class:`tiebreak.retrieval.weights.VSMScorer`. A phrase occurs in D once per pair of
  occurrences of its two terms at most ``window`` positions apart (*choice*: Fagan's sentence
  bound is not available in the index), ``tf_p``; ``df_p`` counts the documents with
  ``tf_p > 0``. ``score = cos(Q, D) + lam sum_p idf_p (1 + ln tf_p) idf_p / (||Q|| ||D||)``,
  ``idf_p = ln(N / df_p)``, norms over the single terms only (*choice*, as SMART's phrase runs
  kept the single-term norms).
* ``bigram_lm`` -- F. Song and W. B. Croft, "A general language model for information
  retrieval", CIKM 1999. ``log P(Q|D) = f_1 log P(t_1|D) + sum_{i>=2} f_i log((1 - lam)
  P(t_i|D) + lam P(t_i|t_{i-1}, D))`` with ``P(t_i|t_{i-1}, D) = c(t_{i-1} t_i; D) /
  c(t_{i-1}; D)`` (0 when ``c(t_{i-1}; D) = 0``), ``c(a b; D)`` the positions p holding a with
  b at p + 1. *Choice*: the unigram model is Dirichlet-smoothed
  ``(c(t; D) + mu c(t; C)/|C|) / (|D| + mu)``, where the paper smooths with Good-Turing
  estimates and the corpus model.
* ``biterm_lm`` -- M. Srikanth and R. Srihari, "Biterm language models for document
  retrieval", SIGIR 2002. As ``bigram_lm`` with the order-free biterm probability
  ``P_BT(t_i|t_{i-1}, D) = min(1, (c(t_{i-1} t_i; D) + c(t_i t_{i-1}; D)) /
  min(c(t_{i-1}; D), c(t_i; D)))`` (*choice*: the cap at 1 keeps the mixture a probability
  when repeated terms make adjacent pairs outnumber the rarer term).
* ``locality`` -- O. de Kretser and A. Moffat, "Effective document presentation with a
  locality-based similarity heuristic", SIGIR 1999. Each occurrence of query term t at x
  spreads ``h_t K(|x - y| / s)`` to the positions y with ``|x - y| <= s``,
  ``h_t = f_{t,Q} ln(N / df_t)``; the document scores the largest total at a query-term
  position (*choice*: the paper scores every position and also ranks by several regions).
  Kernels on ``u = d / s``: ``triangle`` ``1 - u``, ``cosine`` ``(1 + cos(pi u)) / 2``,
  ``circle`` ``sqrt(1 - u^2)``, ``arc`` ``1 - sqrt(1 - (1 - u)^2)`` (the circle's concave
  mirror; *choice*). *Choice*: one spread ``s`` for every term (default 25 positions).
"""

from __future__ import annotations

import numpy as np

from .intervals import jit
from .positional import _empty, _finish, cdf_of, term_base
from .weights import VSMScorer, collection_stats, query_term_ids

__all__ = ["fagan", "bigram_lm", "biterm_lm", "locality", "LOCALITY_KERNELS", "pair_counts"]

#: de Kretser & Moffat kernel codes
LOCALITY_KERNELS = {"triangle": 0, "cosine": 1, "circle": 2, "arc": 3}


@jit
def _adjacent_kernel(ptr, pos, term, m, tf, fw, bw):
    """Per document i: ``tf[i, t]`` occurrences of local term t, ``fw[i, j]`` the positions
    p with t_j at p and t_{j+1} at p + 1, ``bw[i, j]`` the reverse order."""
    for i in range(ptr.size - 1):
        for e in range(ptr[i], ptr[i + 1]):
            t = term[e]
            tf[i, t] += 1.0
            if e + 1 < ptr[i + 1] and pos[e + 1] == pos[e] + 1:
                u = term[e + 1]
                if u == t + 1:
                    fw[i, t] += 1.0
                elif t == u + 1:
                    bw[i, u] += 1.0
    return m


@jit
def _window_pairs_kernel(ptr, pos, term, m, window, adjacent, out):
    """``out[i, a * m + b]`` (a < b): occurrence pairs of t_a and t_b at most ``window``
    positions apart in document i (only b = a + 1 when ``adjacent``)."""
    for i in range(ptr.size - 1):
        lo, hi = ptr[i], ptr[i + 1]
        for e in range(lo, hi):
            for f in range(e + 1, hi):
                if pos[f] - pos[e] > window:
                    break
                a, b = term[e], term[f]
                if a == b:
                    continue
                if a > b:
                    a, b = b, a
                if adjacent and b != a + 1:
                    continue
                out[i, a * m + b] += 1.0
    return m


@jit
def _loc_k(kind, u):
    if kind == 0:
        return 1.0 - u
    if kind == 1:
        return 0.5 * (1.0 + np.cos(np.pi * u))
    if kind == 2:
        return np.sqrt(1.0 - u * u)
    v = 1.0 - u
    return 1.0 - np.sqrt(1.0 - v * v)


@jit
def _locality_kernel(ptr, pos, term, h, spread, kind, out):
    for i in range(ptr.size - 1):
        lo, hi = ptr[i], ptr[i + 1]
        best = -1.0
        for e in range(lo, hi):
            y = np.float64(pos[e])
            c = 0.0
            for f in range(lo, hi):
                d = abs(np.float64(pos[f]) - y)
                if d <= spread:
                    c += h[term[f]] * _loc_k(kind, d / spread)
            if c > best:
                best = c
        out[i] = best


def pair_counts(index, query_terms):
    """The adjacency statistics of the candidates of one query: ``(tids, qtf, docs, tf, fw,
    bw)`` with ``tf`` (n, m) float64 the occurrences per document and term, ``fw[:, j]`` /
    ``bw[:, j]`` (n, m) the adjacent occurrences of ``t_j t_{j+1}`` / ``t_{j+1} t_j``; None
    when no query term is in the vocabulary."""
    tids, qtf = query_term_ids(index, query_terms)
    if tids.size == 0 or index.num_docs == 0:
        return None
    docs, ptr, pos, term = cdf_of(index, tids)
    m = tids.size
    tf = np.zeros((docs.size, m))
    fw = np.zeros((docs.size, m))
    bw = np.zeros((docs.size, m))
    _adjacent_kernel(ptr, pos, term, np.int64(m), tf, fw, bw)
    return tids, qtf, docs, tf, fw, bw


def _ngram_lm(index, query_terms, k, mu, lam, biterm):
    if not mu > 0 or not 0.0 <= lam < 1.0:
        raise ValueError("mu must be > 0 and lam in [0, 1)")
    p = pair_counts(index, query_terms)
    if p is None or int(k) <= 0:
        return _empty()
    tids, qtf, docs, tf, fw, bw = p
    st = collection_stats(index)
    pc = np.asarray(st.cf, np.float64)[tids] / float(st.collection_length)
    dl = np.asarray(index.doclen, np.float64)[docs][:, None]
    uni = (tf + mu * pc[None, :]) / (dl + mu)
    score = qtf[0] * np.log(uni[:, 0])
    for i in range(1, tids.size):
        prev, cur = tf[:, i - 1], tf[:, i]
        with np.errstate(divide="ignore", invalid="ignore"):
            if biterm:
                den = np.minimum(prev, cur)
                pb = np.where(den > 0, np.minimum(1.0, (fw[:, i - 1] + bw[:, i - 1])
                                                  / np.where(den > 0, den, 1.0)), 0.0)
            else:
                pb = np.where(prev > 0, fw[:, i - 1] / np.where(prev > 0, prev, 1.0), 0.0)
        score = score + qtf[i] * np.log((1.0 - lam) * uni[:, i] + lam * pb)
    return _finish(index, docs, score, k)


def bigram_lm(index, query_terms, k: int = 1000, mu: float = 2000.0, lam: float = 0.1):
    """Song & Croft's bigram language model (module docstring): the top ``k`` as ``(docids
    int32, scores float64)``, the scores ``log P(Q|D)``. ``lam``: the bigram's weight in the
    mixture, ``mu``: the unigram's Dirichlet prior. Raises ValueError for ``mu`` <= 0 or
    ``lam`` outside [0, 1) (at 1 a document without the bigram has probability 0);
    ``lam = 0`` is query likelihood with Dirichlet smoothing."""
    return _ngram_lm(index, query_terms, k, float(mu), float(lam), False)


def biterm_lm(index, query_terms, k: int = 1000, mu: float = 2000.0, lam: float = 0.1):
    """Srikanth & Srihari's biterm language model (module docstring); parameters, result and
    errors as :func:`bigram_lm`."""
    return _ngram_lm(index, query_terms, k, float(mu), float(lam), True)


def fagan(index, query_terms, k: int = 1000, lam: float = 1.0, window: int = 5,
          pairs: str = "all"):
    """Fagan's statistical phrases in the tf x idf cosine model (module docstring): ``(docids
    int32, scores float64)``. ``window``: the largest position difference of a phrase's two
    terms; ``pairs``: ``"all"`` pairs of distinct query terms or ``"adjacent"`` ones. A
    phrase with ``df_p = N`` has idf 0. Raises ValueError for ``pairs`` or ``window`` < 1,
    and on a shard of a sharded index (a phrase's document frequency is the whole
    collection's, which a shard does not carry)."""
    if getattr(index, "global_stats", None) is not None:
        raise ValueError("fagan: a shard of a sharded index cannot be scored alone (a phrase's "
                         "document frequency needs the whole collection); search the "
                         "unsharded index")
    if pairs not in ("all", "adjacent"):
        raise ValueError(f"pairs: all or adjacent, not {pairs!r}")
    if int(window) < 1:
        raise ValueError(f"window must be >= 1, got {window!r}")
    tids, qtf = query_term_ids(index, query_terms)
    if tids.size == 0 or index.num_docs == 0 or int(k) <= 0:
        return _empty()
    vsm = VSMScorer()
    docs, ptr, pos, term = cdf_of(index, tids)
    score = term_base(index, tids, qtf, vsm)[docs]
    m = tids.size
    if m >= 2 and lam != 0.0:
        cnt = np.zeros((docs.size, m * m))
        _window_pairs_kernel(ptr, pos, term, np.int64(m), np.int64(window), pairs == "adjacent",
                             cnt)
        st = collection_stats(index)
        N = float(st.num_docs)
        wq, _ = vsm._query(index, tids, qtf)
        qnorm = float(np.sqrt((wq * wq).sum()))
        inv = vsm.inverse_norms(index)[docs]
        df = (cnt > 0).sum(axis=0).astype(np.float64)
        with np.errstate(divide="ignore"):
            idf = np.where(df > 0, np.log(N / np.where(df > 0, df, 1.0)), 0.0)
        with np.errstate(divide="ignore"):
            wd = np.where(cnt > 0, 1.0 + np.log(np.where(cnt > 0, cnt, 1.0)), 0.0)
        if qnorm > 0:
            score = score + float(lam) * (wd @ (idf * idf)) * inv / qnorm
    return _finish(index, docs, score, k)


def locality(index, query_terms, k: int = 1000, kernel: str = "triangle",
             spread: float = 25.0):
    """de Kretser & Moffat's locality model (module docstring): ``(docids int32, scores
    float64)``, each document's score its largest locality value at a query-term position.
    Raises ValueError for an unknown ``kernel`` or ``spread`` <= 0."""
    if kernel not in LOCALITY_KERNELS:
        raise ValueError(f"kernel must be one of {', '.join(LOCALITY_KERNELS)}, got {kernel!r}")
    if not float(spread) > 0:
        raise ValueError(f"spread must be > 0, got {spread!r}")
    tids, qtf = query_term_ids(index, query_terms)
    if tids.size == 0 or index.num_docs == 0 or int(k) <= 0:
        return _empty()
    st = collection_stats(index)
    h = qtf * np.log(float(st.num_docs) / np.asarray(st.df, np.float64)[tids])
    docs, ptr, pos, term = cdf_of(index, tids)
    out = np.zeros(docs.size)
    _locality_kernel(ptr, pos, term, h, float(spread), np.int64(LOCALITY_KERNELS[kernel]), out)
    return _finish(index, docs, out, k)
