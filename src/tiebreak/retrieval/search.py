"""Batch search and TREC run output.

>>> from tiebreak.index import open_index
>>> from tiebreak.retrieval.search import search, write_run
>>> idx = open_index("cran.idx")
>>> res = search(idx, [("1", "flow past a cylinder")], "bm25", k=1000, idf="lucene")
>>> write_run(sys.stdout, idx, res, tag="bm25")

Run lines are ``qid Q0 docno rank score tag``. Scores are written with ``repr(float)`` (the
shortest text that reads back as the same float64), so documents with equal scores are written
with equal text and stay tied for trec_eval; the models return them in trec_eval's order (score
descending, then docno descending in byte order), so file order equals trec_eval order.

Inputs are checked before any scoring: model parameters must be finite and in range
(:func:`check_params`), topic ids and the run tag must be non-empty and free of whitespace (a run
line is split on whitespace). A topic that retrieves nothing (empty or stopword-only text, or no
term in the index) keeps its :class:`Result` with an explanatory ``note``; the CLI warns about it.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np

from .registry import _K1, in_range, integer, weights3

__all__ = ["search", "write_run", "format_run", "Result", "get_model", "check_params",
           "PARAM_RULES", "empty_note"]


@dataclass
class Result:
    qid: str
    docids: np.ndarray   # int32, best first
    scores: np.ndarray   # float64
    note: str = ""       # why nothing was retrieved (empty when documents were)


#: parameter name -> check(name, value) raising ValueError; applied to every model's parameters
PARAM_RULES = {
    "k1": _K1.check, "b": in_range(0.0, 1.0),
    "mu": in_range(0.0, math.inf, lo_open=True), "lam": in_range(0.0, 1.0),
    "window": integer(1), "max_prox_terms": integer(2), "weights": weights3,
}


def check_params(model: str, params: dict) -> dict:
    """Check model parameters before searching (:func:`tiebreak.retrieval.registry.check`);
    returns the parameters to call the model with (an alias's fixed ones added).

    Raises
    ------
    ValueError
        An unknown model, a parameter the model does not take, or a value out of range:
        ``k1`` finite >= 0, ``b`` and ``lam`` in [0, 1], ``mu`` finite > 0, ``window`` an integer
        >= 1, ``max_prox_terms`` an integer >= 2, ``weights`` finite numbers >= 0 (NaN and
        infinity are always rejected); each model's own checks in the registry.
    """
    from .registry import check

    out = check(model, params)
    for name, v in params.items():
        rule = PARAM_RULES.get(name)
        if rule is not None and v is not None:
            rule(name, v)
    return out


def get_model(name: str):
    """The function of model ``name`` (a registered name or alias)."""
    from .registry import get

    return get(name).function()


def search(index, topics, model: str = "bm25", k: int = 1000, progress: bool = False,
           **params) -> list[Result]:
    """Run every ``(qid, text)`` topic; text is analysed with the index's analyser.

    Returns one :class:`Result` per topic, in topic order; a topic that retrieves nothing keeps
    its place with empty arrays and a ``note`` saying why. ``bm25`` and ``ql`` on an
    :class:`~tiebreak.index.Index` score the whole topic set in compiled batches
    (:func:`tiebreak.retrieval.traversal.retrieve_many`), with the results of one model call per
    topic; a handful of such topics on a small part of the index (a script searching one query
    at a time) are scored in numpy without importing numba
    (:func:`tiebreak.retrieval.onequery.worth_it`), with the same results bit for bit; other
    models are called topic by topic.

    Raises
    ------
    ValueError
        Bad parameters (:func:`check_params`), a topic id that is empty or contains whitespace.
    """
    from ..index.readers import check_docno

    params = check_params(model, params)
    from .registry import get

    spec = get(model)
    analyze = index.analyzer.analyze
    topics = list(topics)
    for qid, _ in topics:
        check_docno(str(qid), f"topic {str(qid)!r}", "topic id")
    out = []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(topics), desc=f"searching ({model})", unit=" q", file=sys.stderr,
                   mininterval=0.5)
    from . import onequery

    if spec.kind == "term weights" and int(k) >= 1 and hasattr(index, "post_ptr") \
            and onequery.worth_it(index, spec.name, params, topics, analyze):
        # a handful of topics on a few terms: numpy on those terms' postings only (no numba
        # import, no decoding of the whole index); the compiled path's documents, scores and
        # order, bit for bit
        for qid, text in topics:
            terms = analyze(text)
            d, s = onequery.score(index, terms, k, spec.name, **params)
            out.append(Result(str(qid), d, s, empty_note(index, terms) if len(d) == 0 else ""))
            if bar is not None:
                bar.update(1)
    elif spec.kind == "term weights" and int(k) >= 1 and hasattr(index, "post_ptr") \
            and not (spec.name == "vsm" and params.get("quantize") is not None):
        # the whole topic set in compiled calls (chunks only to move the progress bar); the
        # same documents, scores and order as one call of the model per topic
        from .traversal import retrieve_many

        step = 2048 if bar is not None else max(len(topics), 1)
        for a in range(0, len(topics), step):
            chunk = topics[a:a + step]
            terms = [analyze(text) for _, text in chunk]
            for (qid, _), t, (d, s) in zip(chunk, terms,
                                           retrieve_many(index, terms, k, spec.name,
                                                         **params)):
                out.append(Result(str(qid), d, s, empty_note(index, t) if len(d) == 0 else ""))
            if bar is not None:
                bar.update(len(chunk))
    else:
        fn = spec.function()
        for qid, text in topics:
            terms = analyze(text)
            d, s = fn(index, terms, k, **params)
            out.append(Result(str(qid), d, s, empty_note(index, terms) if len(d) == 0 else ""))
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    for r in out:
        bad = np.flatnonzero(~np.isfinite(r.scores))
        if len(bad):
            shown = ", ".join(f"{k}={v}" for k, v in params.items()
                              if v != spec.defaults().get(k)) or "defaults"
            raise ValueError(f"model {model} ({shown}) gave the non-finite score "
                             f"{float(r.scores[bad[0]])!r} "
                             f"in topic {r.qid}: choose parameters that keep the scores "
                             "finite")
    return out


def format_scores(index, results, fmt) -> tuple[list[Result], dict[str, int]]:
    """The engine's final scores stored in a score format (:mod:`tiebreak.ranking.formats`):
    each topic's scores rounded (``int8``: the topic's min–max scale; ``int8-global``: one
    scale over every topic), then its documents put back in trec_eval order (score
    descending, docno descending among the ties the rounding made). The documents retrieved are
    those of the exact scores. Returns the new results and the format's warnings (overflow,
    NaN, topics merged into one score), summed over topics.

    Raises
    ------
    ValueError
        ``fmt`` names no score format.
    """
    from ..ranking.formats import parse_format, round_scores

    f = parse_format(fmt, "--score-precision")
    if f.identity:
        return list(results), {}
    sizes = [len(r.scores) for r in results]
    allsc = np.concatenate([r.scores for r in results]) if results else np.zeros(0)
    topic = np.repeat(np.arange(len(results)), sizes)
    rounded, warn = round_scores(allsc, f, topic, len(results))
    out = []
    a = 0
    for r, n in zip(results, sizes):
        s = rounded[a:a + n]
        a += n
        names = index.docnos[r.docids] if n else np.zeros(0, str)
        inv = np.unique(names, return_inverse=True)[1] if n else np.zeros(0, np.int64)
        o = np.lexsort((-inv, -s))
        out.append(Result(r.qid, r.docids[o], s[o], r.note))
    return out, warn


def empty_note(index, terms) -> str:
    """Why a topic with analysed ``terms`` retrieved nothing from ``index`` (a
    :class:`Result` note)."""
    if not terms:
        return "no query terms after analysis (empty text, or only stopwords or punctuation)"
    if all(index.term_id(t) < 0 for t in terms):
        return f"none of its terms ({' '.join(terms[:8])}) occurs in the index"
    return "no document matched"


def format_run(index, results, tag: str = "tiebreak") -> str:
    """TREC run text of ``results`` (list of :class:`Result`).

    Raises
    ------
    ValueError
        A topic id, ``tag`` or retrieved docno that is empty or contains whitespace.
    """
    from ..index.readers import check_docno, find_bad_docno

    check_docno(tag, "run tag", "tag")
    docnos = index.docnos
    lines = []
    for r in results:
        check_docno(r.qid, f"topic {r.qid!r}", "topic id")
        names = docnos[r.docids].tolist() if len(r.docids) else []
        bad = find_bad_docno(names)
        if bad is not None:   # an index built before docnos were checked
            raise ValueError(f"topic {r.qid}: index {bad[1]}; it cannot be written into a run "
                             "(rebuild the index: tiebreak index now rejects such docnos)")
        for rank, (dn, sc) in enumerate(zip(names, r.scores.tolist()), 1):
            lines.append(f"{r.qid} Q0 {dn} {rank} {sc!r} {tag}\n")
    return "".join(lines)


def write_run(fh, index, results, tag: str = "tiebreak") -> None:
    """Write a TREC run to the text stream ``fh``."""
    fh.write(format_run(index, results, tag))
