"""Query segmentation by the pointwise mutual information of adjacent query terms, from the
collection's own phrase counts, for choosing the subqueries of the dependence models.

Lu (2018, ch. 3 and §7.2.1) notes that "not all subqueries should be considered as valid
dependencies among query terms". The unsupervised segmenter used here is the mutual-information
baseline of query segmentation (R. Jones, B. Rey, O. Madani and W. Greiner, "Generating query
substitutions", WWW 2006; the "MI" baseline of S. Bergsma and Q. I. Wang, "Learning noun
phrase query segmentation", EMNLP-CoNLL 2007): a segment boundary is placed between two
adjacent query terms whose pointwise mutual information is below a threshold. Those papers
estimate the probabilities from query logs or web n-grams; here they come from the index:

``PMI(a, b) = ln( P(#1 a b) / (P(a) P(b)) )``, ``P(#1 a b) = cf(#1 a b) / |C|``,
``P(a) = cf(a) / |C|``

with ``cf(#1 a b)`` the collection count of the exact phrase (:func:`tiebreak.retrieval.wsdm.
phrase_masks`) and ``|C|`` the collection length in tokens. A pair that never occurs as a
phrase has PMI -inf and is always cut.

Choices the sources leave open, marked *choice*:

* *choice*: the probabilities of the phrase and of the terms are both divided by ``|C|`` (not
  by the number of adjacent position pairs), so a pair's PMI is ``ln(cf(#1) |C| / (cf(a)
  cf(b)))``;
* *choice*: the default threshold is 0 (cut where the pair is no more frequent as a phrase
  than under independence); Bergsma & Wang tune it on held-out queries;
* *choice*: "adjacent" refers to the sequence the dependence models use: the distinct
  in-vocabulary query terms in first-occurrence order (stopwords already removed by the
  analyser), restricted to the proximity terms when ``max_prox_terms`` applies.
"""

from __future__ import annotations

import math

import numpy as np

from .weights import collection_stats

__all__ = ["adjacent_pmi", "segment_ids", "segment"]

#: default PMI threshold (module docstring, *choice*)
PMI_THRESHOLD = 0.0


def adjacent_pmi(index, tids) -> np.ndarray:
    """PMI (float64 (len(tids) - 1,), natural log; -inf for a pair never seen as a phrase) of
    each adjacent pair of the term ids ``tids`` (module docstring)."""
    from .wsdm import phrase_masks

    tids = np.asarray(tids, np.int64)
    n = len(tids)
    if n < 2:
        return np.zeros(0)
    pc, _ = phrase_masks(index, tids, np.array([3 << i for i in range(n - 1)], np.int64))
    cf = np.asarray(collection_stats(index).cf, np.float64)[tids]
    C = float(max(collection_stats(index).collection_length, 1))
    out = np.full(n - 1, -math.inf)
    for i in range(n - 1):
        if pc[i] > 0:
            out[i] = math.log(pc[i] * C / (cf[i] * cf[i + 1]))
    return out


def segment_ids(index, tids, threshold: float = PMI_THRESHOLD) -> np.ndarray:
    """Segment number (int64 (len(tids),), from 0, non-decreasing) of each term id of
    ``tids``: a new segment starts after each adjacent pair whose PMI is below ``threshold``
    (module docstring). Raises ValueError for a threshold that is not a number (NaN)."""
    t = float(threshold)
    if math.isnan(t):
        raise ValueError("segment threshold must be a number, got NaN")
    pmi = adjacent_pmi(index, tids)
    out = np.zeros(len(tids), np.int64)
    if len(pmi):
        out[1:] = np.cumsum(pmi < t)
    return out


def segment(index, query_terms, threshold: float = PMI_THRESHOLD) -> list[list[str]]:
    """The segments of one query of analysed terms: lists of its distinct in-vocabulary terms
    in first-occurrence order, cut where the adjacent PMI is below ``threshold`` (module
    docstring; Jones et al. 2006's mutual-information segmentation over the index)."""
    from .dependency.plan import query_plan

    tids, _ = query_plan(index, query_terms)
    terms = [index.term(int(t)) for t in tids]
    seg = segment_ids(index, tids, threshold)
    out: list[list[str]] = []
    for s, t in zip(seg.tolist(), terms):
        if s == len(out):
            out.append([])
        out[s].append(t)
    return out
