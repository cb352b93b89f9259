"""Pseudo-relevance feedback: RM3 as Anserini defines it and Bo1 as Terrier defines it, on any
first-stage model.

A first-stage model (any registered model) ranks the collection; its top ``fb_docs`` documents
give an expanded, weighted query, which a term-weight model (:mod:`tiebreak.retrieval.weights`:
``bm25``, ``ql``, ``vsm``; by default the first-stage model itself when it is one, else BM25)
scores in a second retrieval. The expanded query is a mapping term -> weight; its weights take
the place of the query term frequencies ``f_{q,Q}``.

**RM3** (V. Lavrenko and W. B. Croft, "Relevance-based language models", SIGIR 2001; N. Abdul-
Jaleel et al., "UMass at TREC 2004", TREC 2004), following Anserini's ``Rm3Reranker``
(J. Lin et al., "Anserini", SIGIR 2017): every feedback document is a vector of term
frequencies over the terms of 2-20 characters from ``[a-z0-9]`` whose document frequency is at
most 10% of N, cut to its ``fb_terms`` most frequent terms (ties: the term's byte order) and
divided by its L1 norm; term t gets ``sum_d vec_d(t) score_d`` over the feedback documents,
the ``fb_terms`` best are kept and L1-normalised, and the query vector (analysed query term
counts, L1-normalised over all analysed terms, those absent from the index included: they keep
their share of the weight and match nothing) is mixed in:
``w(t) = orig_weight q(t) + (1 - orig_weight) rm(t)``.
Defaults fb_docs = 10, fb_terms = 10, orig_weight = 0.5. ``score_d`` is the first-stage score
when the model's scores are non-negative (BM25, as in Anserini); for log-likelihood scores
(query likelihood) it is the likelihood ``exp(score - max score)``, RM's own weighting.

**Bo1** (G. Amati, PhD thesis, University of Glasgow, 2003; Terrier's ``Bo1``
``QueryExpansion``): over the top ``fb_docs`` (default 3) documents, for every term occurring
in at least ``min_docs`` of them (default 2), ``tfx`` its frequency in the feedback documents,
``Pn = F / N`` (collection frequency over number of documents):
``w(t) = tfx log2((1 + Pn) / Pn) + log2(1 + Pn)``; the ``fb_terms`` (default 10) best are kept,
divided by the largest; an original query term keeps ``f_{q,Q} / max f_{q,Q}`` and adds its
expansion weight.
"""

from __future__ import annotations

import re

import numpy as np

from ..index.direct import direct_file

__all__ = ["expand", "search_prf", "PRF_METHODS", "DEFAULTS", "direct_file"]

PRF_METHODS = ("rm3", "bo1")
#: method -> (fb_docs, fb_terms, orig_weight)
DEFAULTS = {"rm3": (10, 10, 0.5), "bo1": (3, 10, None)}
_TERM_OK = re.compile(r"[a-z0-9]{2,20}")


def _top(weights: dict, n: int) -> dict:
    return dict(sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))[:n])


def expand(index, query_terms, docids, scores, method: str = "rm3", fb_docs: int | None = None,
           fb_terms: int | None = None, orig_weight: float | None = None,
           min_docs: int = 2, max_df_ratio: float = 0.1) -> dict[str, float]:
    """The expanded query of ``query_terms`` (analysed) from the first-stage ranking
    ``docids`` (int, best first) with ``scores``: term -> weight (module docstring).

    Raises
    ------
    ValueError
        An unknown method, fb_docs or fb_terms < 1, orig_weight outside [0, 1].
    """
    if method not in PRF_METHODS:
        raise ValueError(f"prf: expected one of {', '.join(PRF_METHODS)}, got {method!r}")
    d_docs, d_terms, d_w = DEFAULTS[method]
    fb_docs = d_docs if fb_docs is None else int(fb_docs)
    fb_terms = d_terms if fb_terms is None else int(fb_terms)
    if fb_docs < 1 or fb_terms < 1:
        raise ValueError("fb_docs and fb_terms must be >= 1")
    q = {}
    for t in query_terms:
        if method == "rm3" or index.term_id(t) >= 0:
            # RM3: every analysed query term counts in the query vector's L1 norm, as in
            # Anserini (a term absent from the index keeps its share and matches nothing)
            q[t] = q.get(t, 0) + 1
    docids = np.asarray(docids)[:fb_docs]
    if len(docids) == 0 or not q:
        return {t: float(v) for t, v in q.items()}
    ptr, tids, tf = direct_file(index)
    if method == "rm3":
        w0 = d_w if orig_weight is None else float(orig_weight)
        if not 0.0 <= w0 <= 1.0:
            raise ValueError(f"orig_weight must be in [0, 1], got {orig_weight!r}")
        s = np.asarray(scores, np.float64)[:len(docids)]
        if s.min() < 0:
            s = np.exp(s - s.max())
        df = np.asarray(index.df)
        N = float(index.num_docs)
        rm: dict[str, float] = {}
        for d, sd in zip(docids.tolist(), s.tolist()):
            a, b = ptr[d], ptr[d + 1]
            vec = {}
            for t, f in zip(tids[a:b].tolist(), tf[a:b].tolist()):
                name = index.term(t)
                if _TERM_OK.fullmatch(name) and df[t] / N <= max_df_ratio:
                    vec[name] = float(f)
            vec = _top(vec, fb_terms)
            norm = sum(vec.values())
            if norm <= 0.001:
                continue
            for name, f in vec.items():
                rm[name] = rm.get(name, 0.0) + f / norm * sd
        rm = _top(rm, fb_terms)
        z = sum(rm.values())
        rm = {t: v / z for t, v in rm.items()} if z > 0 else {}
        qn = sum(q.values())
        out = {t: w0 * v / qn for t, v in q.items()}
        for t, v in rm.items():
            out[t] = out.get(t, 0.0) + (1.0 - w0) * v
        return out
    # bo1
    N = float(index.num_docs)
    cf = np.asarray(index.cf)
    tfx: dict[int, float] = {}
    ndoc: dict[int, int] = {}
    for d in docids.tolist():
        for t, f in zip(tids[ptr[d]:ptr[d + 1]].tolist(), tf[ptr[d]:ptr[d + 1]].tolist()):
            tfx[t] = tfx.get(t, 0.0) + f
            ndoc[t] = ndoc.get(t, 0) + 1
    need = min(int(min_docs), len(docids))
    w = {}
    for t, x in tfx.items():
        if ndoc[t] < need:
            continue
        pn = cf[t] / N
        w[index.term(t)] = x * np.log2((1.0 + pn) / pn) + np.log2(1.0 + pn)
    w = _top(w, fb_terms)
    wmax = max(w.values()) if w else 1.0
    qmax = max(q.values())
    out = {t: v / qmax for t, v in q.items()}
    for t, v in w.items():
        out[t] = out.get(t, 0.0) + float(v) / wmax
    return out


def search_prf(index, topics, model: str = "bm25", k: int = 1000, prf: str = "rm3",
               fb_docs: int | None = None, fb_terms: int | None = None,
               orig_weight: float | None = None, second: str | None = None, **params):
    """Search ``topics`` (``(qid, text)`` pairs) with ``model``, expand every query with
    ``prf`` from the first ranking and search again with the term-weight model ``second``
    (default: ``model`` when it is a term-weight model, else ``bm25``; it gets ``params`` when
    it is ``model``). Returns :class:`tiebreak.retrieval.search.Result` per topic.

    Raises
    ------
    ValueError
        Bad parameters, an unknown method, or a ``second`` that is not a term-weight model.
    """
    from .registry import check, get
    from .search import Result, empty_note, search
    from .traversal import retrieve

    first = search(index, topics, model, max(int(k), DEFAULTS[prf][0] if fb_docs is None
                                             else int(fb_docs)), **params)
    spec = get(model)
    if second is None:
        second = spec.name if spec.kind == "term weights" else "bm25"
    sspec = get(second)
    if sspec.kind != "term weights":
        raise ValueError(f"prf: the second retrieval needs a term-weight model (bm25, ql, lmds, "
                         f"vsm), not {second}")
    sparams = check(second, params if sspec.name == spec.name else {})
    sparams = {n: v for n, v in sparams.items() if n in sspec.param_names()}
    out = []
    analyze = index.analyzer.analyze
    for (qid, text), r in zip(topics, first):
        terms = analyze(text)
        qw = expand(index, terms, r.docids, r.scores, prf, fb_docs, fb_terms, orig_weight)
        if not qw:
            out.append(Result(str(qid), r.docids[:0], r.scores[:0], empty_note(index, terms)))
            continue
        d, s = retrieve(index, qw, int(k), sspec.name, **sparams)
        out.append(Result(str(qid), d, s, "" if len(d) else empty_note(index, terms)))
    return out
