"""The weighted full dependence model (WFDM) and the segmented dependence models (SDM and FDM
whose subqueries are restricted to one query segment).

**WFDM** generalises WSDM (M. Bendersky, D. Metzler and W. B. Croft, "Learning concept
importance using a weighted dependence model", WSDM 2010; :mod:`tiebreak.retrieval.wsdm`) from
adjacent pairs to the full dependence model's subqueries (D. Metzler and W. B. Croft, "A Markov
random field model for term dependencies", SIGIR 2005; :func:`tiebreak.retrieval.dependency.fdm`),
as Lu (2018, §7.2.1) proposes ("it would also be interesting if we can generalize it to a full
dependency model"):

``score = sum_q lambda(q) phi_T(q) + sum_{c contiguous} lambda(c) phi_O(c)
+ sum_{c, |c| >= 2} lambda(c) phi_U(c)``

with FDM's potentials (Dirichlet ``mu``; ``#1`` over every contiguous sub-sequence c of >= 2
proximity terms, ``#uwN`` with ``N = 4 |c|`` over every subset c of >= 2 proximity terms, Indri
semantics, the same kernel as ``fdm``), ``lambda(q) = u . f(q)`` and ``lambda(c) = v . f(c)``,
``f = (1, ln cf, ln df)`` (0 for a count of 0, as in WSDM). Choices Bendersky et al. do not
make because WSDM has only adjacent pairs, marked *choice*:

* *choice*: one weight vector ``v`` for every concept of >= 2 terms (WSDM's bigram vector),
  applied to its ordered and its unordered potential alike (as WSDM applies ``v . f(b)`` to
  both ``phi_O(b)`` and ``phi_U(b)``), so WFDM has WSDM's six weights;
* *choice*: a concept's features are the collection and document counts of its terms as an
  exact phrase in query order (WSDM's bigram features are those of ``#1 b``); for a subset
  that is not contiguous in the query this measures how often its terms form a phrase;
* the weights are used as given, not divided by the number of concepts (as :func:`wsdm`); with
  ``u = (a, 0, 0)`` and ``v = (c, 0, 0)`` WFDM scores exactly as FDM with weights ``(a |Q|,
  c n_o, c n_u)`` (``n_o``, ``n_u`` the numbers of ordered and unordered concepts; tested);
* ``max_prox_terms`` as FDM's (default 12, at most 20).

**Segmented models** (``sdm-seg``, ``fdm-seg``, and ``wfdm -p segment=T``): the proximity
terms are segmented by :func:`tiebreak.retrieval.segment.segment_ids` (adjacent PMI below the
threshold starts a new segment) and only the subqueries whose terms all lie in one segment
keep their potentials. *choice*: ``sdm-seg`` / ``fdm-seg`` divide each group's weight by the
number of subqueries it keeps (Indri's ``#combine`` over the kept children), so with no cut they
score exactly as ``sdm`` / ``fdm``; a group with no subquery left is empty (the score is the
unigram part). WFDM's concept weights are not normalised, so a cut concept is simply dropped.

All raise ValueError on a shard of a sharded index (the phrase counts and PMI must be the whole
collection's) and for bad parameters.
"""

from __future__ import annotations

import math

import numpy as np

from .dependency.plan import (
    _NOLIMIT,
    FDM_WEIGHTS,
    K1,
    MAX_PROX_TERMS,
    MU,
    SDM_WEIGHTS,
    SDM_WINDOW,
    WINDOW_PER_TERM,
    B,
    _arrays,
    _empty,
    _method,
    _prox_plan,
    _structure,
)
from .intervals import MAX_ALL_TERMS, MAX_TERMS
from .segment import PMI_THRESHOLD, segment_ids
from .wsdm import _check3, _ln, phrase_masks

__all__ = ["wfdm", "sdm_seg", "fdm_seg", "concept_phrases"]


def _no_shard(index, name):
    if getattr(index, "global_stats", None) is not None:
        raise ValueError(f"{name}: a shard of a sharded index cannot be scored alone (its phrase "
                         "counts must be the whole collection's); search the unsharded index")


def _check_common(mu, method):
    if not mu > 0:
        raise ValueError("mu must be > 0")
    if method not in ("auto", "lps_if_all", "eps_cdf_all"):
        raise ValueError(f"method: expected auto, lps_if_all or eps_cdf_all, got {method!r}")


def concept_phrases(index, tids) -> tuple[np.ndarray, np.ndarray]:
    """Phrase collection and document counts (int64 (2^P,) each) of every subset (bitmask) of
    the P proximity term ids ``tids`` (the 0 and one-term masks included); cached on the index
    per term sequence (learning scores a query many times)."""
    key = ("wfdm-phrases", tuple(int(t) for t in tids))
    cache = getattr(index, "_cache", None)
    if cache is not None and key in cache:
        return cache[key]
    out = phrase_masks(index, tids, np.arange(1 << len(tids), dtype=np.int64))
    if cache is not None:
        cache[key] = out
    return out


def _in_one_segment(seg, npx: int) -> np.ndarray:
    """bool (2^npx,): every term of the mask in one segment (segments are runs of terms)."""
    m = np.arange(1 << npx)
    ok = np.ones(1 << npx, bool)
    for i in range(npx - 1):
        if seg[i + 1] != seg[i]:            # a cut between i and i+1: no mask spans it
            lo = (m & ((1 << (i + 1)) - 1)) != 0
            hi = (m >> (i + 1)) != 0
            ok &= ~(lo & hi)
    return ok


def _score(index, tids, qtf, npx, k, full, uni_gw, lam_o, lam_u, mu, window, method):
    """SDM / FDM potentials with the given weights per slot: ``uni_gw`` (nq,) of the unigrams,
    ``lam_o`` of the ordered features (FDM: one per contiguous sub-sequence in the order of
    :func:`~tiebreak.retrieval.dependency.plan._contiguous`; SDM: one per adjacent pair),
    ``lam_u`` of the unordered ones (FDM: (2^npx,) by mask; SDM: one per adjacent pair).
    A weight 0 drops a potential exactly."""
    from .dependency._kernels import _run

    nq = len(tids)
    tables, ph_slot, phrases, pop = _structure(npx, "fdm" if full else "sdm", nq)
    n_o = len(phrases)
    slot_gw = np.concatenate([uni_gw, lam_o, lam_u]).astype(np.float64)
    nslot = len(slot_gw)
    if full:
        umax = (WINDOW_PER_TERM * pop).astype(np.int32)
    else:
        umax = np.full(len(lam_u), int(window), np.int32)
    slot_maxlen = np.concatenate([np.full(nq + n_o, _NOLIMIT, np.int32), umax])
    arrs = _arrays(index)
    df, cf = arrs[8], arrs[9]
    uni_cf = np.zeros(nslot)
    uni_cf[:nq] = cf[tids]
    use_eps = _method(index, df[tids[:npx]].tolist(), uni_cf[:npx].tolist(), method, full)
    return _run(index, tids, npx, k, 1, use_eps, not full, tables, slot_maxlen,
                np.zeros(nslot), ph_slot, npx if full else 2, np.ones(nslot), np.zeros(nq),
                qtf, K1, B, 0.0, slot_gw, uni_cf, mu)


def _contig_masks(phrases) -> np.ndarray:
    return np.array([((1 << L) - 1) << i for i, L in phrases], np.int64)


def wfdm(index, query_terms, k: int = 1000, uni=None, bi=None, mu: float = MU,
         method: str = "auto", max_prox_terms: int = MAX_PROX_TERMS,
         segment: float | None = None):
    """Top ``k`` of the weighted full dependence model (module docstring) for one query of
    analysed terms: ``(docids int32, scores float64)`` in trec_eval order; every document with
    a query term is a candidate. ``uni``, ``bi``: the unigram and concept weight vectors (3
    numbers each: constant, ln cf, ln df), required (learned: :mod:`tiebreak.studies.
    wsdm_learn`). ``segment``: a PMI threshold; only the concepts within one segment
    (:func:`tiebreak.retrieval.segment.segment_ids`) are kept (default None: all).

    Raises
    ------
    ValueError
        ``uni`` / ``bi`` missing or not 3 finite numbers, ``mu <= 0``, a bad ``method``,
        ``max_prox_terms`` or ``segment``, or a shard of a sharded index.
    """
    _no_shard(index, "wfdm")
    u = _check3("uni", uni, "wfdm")
    v = _check3("bi", bi, "wfdm")
    _check_common(mu, method)
    tids, qtf, npx = _prox_plan(index, query_terms, max_prox_terms, MAX_ALL_TERMS, "wfdm")
    nq = len(tids)
    if nq == 0 or int(k) <= 0 or index.num_docs == 0:
        return _empty()
    arrs = _arrays(index)
    df, cf = arrs[8], arrs[9]
    uni_w = np.array([u[0] + u[1] * _ln(cf[t]) + u[2] * _ln(df[t]) for t in tids.tolist()])
    pcf, pdf = concept_phrases(index, tids[:npx])
    lnc = np.log(np.maximum(pcf, 1).astype(np.float64))   # ln of a count 0 -> feature 0
    lnd = np.log(np.maximum(pdf, 1).astype(np.float64))
    with np.errstate(over="ignore", invalid="ignore"):   # huge weights: the search's
        lam = v[0] + v[1] * lnc + v[2] * lnd              # non-finite-score error names them
    _, _, phrases, pop = _structure(npx, "fdm", nq)
    keep = pop >= 2
    if segment is not None:
        keep &= _in_one_segment(segment_ids(index, tids[:npx], segment), npx)
    lam_u = np.where(keep, lam, 0.0)
    cm = _contig_masks(phrases)
    lam_o = lam_u[cm] if len(cm) else np.zeros(0)
    return _score(index, tids, qtf, npx, k, True, uni_w * qtf, lam_o, lam_u, float(mu), 0,
                  method)


def _seg_model(index, query_terms, k, full, weights, mu, window, method, max_prox_terms, pmi,
               name):
    _no_shard(index, name)
    lt, lo, lu = (float(x) for x in weights)
    if min(lt, lo, lu) < 0:
        raise ValueError("weights must be >= 0")
    _check_common(mu, method)
    if pmi is None or math.isnan(float(pmi)):
        raise ValueError(f"{name}: pmi must be a number")
    limit = MAX_ALL_TERMS if full else MAX_TERMS
    tids, qtf, npx = _prox_plan(index, query_terms, max_prox_terms, limit, name)
    nq = len(tids)
    if nq == 0 or int(k) <= 0 or index.num_docs == 0:
        return _empty()
    seg = segment_ids(index, tids[:npx], pmi)
    uni = lt * qtf / qtf.sum()
    if full:
        _, _, phrases, pop = _structure(npx, "fdm", nq)
        keep_u = (pop >= 2) & _in_one_segment(seg, npx)
        cm = _contig_masks(phrases)
        keep_o = keep_u[cm] if len(cm) else np.zeros(0, bool)
    else:
        keep_o = keep_u = (seg[1:] == seg[:-1]) if npx >= 2 else np.zeros(0, bool)
    lam_o = np.where(keep_o, lo / max(int(keep_o.sum()), 1), 0.0)
    lam_u = np.where(keep_u, lu / max(int(keep_u.sum()), 1), 0.0)
    return _score(index, tids, qtf, npx, k, full, uni, lam_o, lam_u, float(mu),
                  int(window), method)


def sdm_seg(index, query_terms, k: int = 1000, weights=SDM_WEIGHTS, mu: float = MU,
            window: int = SDM_WINDOW, method: str = "auto", max_prox_terms: int | None = None,
            pmi: float = PMI_THRESHOLD):
    """SDM (:func:`tiebreak.retrieval.dependency.sdm`) over the adjacent pairs within one
    segment only (module docstring; segments by adjacent PMI below ``pmi``, Jones et al.
    2006): ``(docids int32, scores float64)`` of the top ``k``. With no cut it scores exactly
    as ``sdm``. Raises ValueError for bad parameters or on a shard."""
    if int(window) < 1:
        raise ValueError("window must be >= 1")
    return _seg_model(index, query_terms, k, False, weights, mu, window, method,
                      max_prox_terms, pmi, "sdm-seg")


def fdm_seg(index, query_terms, k: int = 1000, weights=FDM_WEIGHTS, mu: float = MU,
            method: str = "auto", max_prox_terms: int = MAX_PROX_TERMS,
            pmi: float = PMI_THRESHOLD):
    """FDM (:func:`tiebreak.retrieval.dependency.fdm`) over the subqueries within one segment
    only (module docstring): ``(docids int32, scores float64)`` of the top ``k``. With no cut
    it scores exactly as ``fdm``. Raises ValueError for bad parameters or on a shard."""
    return _seg_model(index, query_terms, k, True, weights, mu, 0, method, max_prox_terms,
                      pmi, "fdm-seg")
