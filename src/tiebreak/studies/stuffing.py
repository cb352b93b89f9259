"""The 'stuffing' phenomenon of Cabanac et al. (2010), §6: how much of a run's score comes from
the documents it appended, tied at a null score, after its real results.

G. Cabanac, G. Hubert, M. Boughanem and C. Chrisment, "Tie-breaking bias: effect of an
uncontrolled parameter on information retrieval evaluation", CLEF 2010, LNCS 6360,
pp. 112-123, §6: 10.5 % of the TREC runs they studied retrieve fewer than 1,000 documents for a
topic and fill their lists with documents of ``sim = 0``; under trec_eval's reordering a
relevant one of those can be placed first among them, so it "unduly" contributes. Their
conclusion proposes to "quantify the proportion of scores obtained" this way; this module does.

Definition used here. A topic's **stuffed tail** is the set of its documents whose score is
exactly ``stuff_score`` (default 0, the paper's ``sim = 0``) when that score is the lowest the
run gives for the topic -- the last tie group of the topic's list, appended after the real
results (every document of a topic whose only score is ``stuff_score`` is all tail). A run
without such documents has no tail. For each measure and tie regime, the run is evaluated as
it is and with every tail removed; the **stuffed share** of the run is

    share = (M(run) - M(run without tails)) / M(run)

with ``M`` the mean over the qrels' topics (a topic the run lacks scores 0; NaN when
``M(run) = 0``). A negative share means the tail lowered the score (e.g. a measure with a
penalty for non-relevant documents, or the realistic regime's worst case).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

__all__ = ["stuffed_mask", "strip_tails", "stuffing_table"]


def stuffed_mask(run, stuff_score: float = 0.0) -> np.ndarray:
    """bool (n,), in the run's line order: True for the lines of a stuffed tail (module
    docstring) of ``run`` (a :class:`tiebreak.io.Run`)."""
    topic = np.asarray(run.topic)
    score = np.asarray(run.score, np.float64)
    if topic.size == 0:
        return np.zeros(0, bool)
    nt = int(topic.max()) + 1
    lowest = np.full(nt, np.inf)
    np.minimum.at(lowest, topic, score)
    return (score == float(stuff_score)) & (lowest[topic] == float(stuff_score))


def strip_tails(run, stuff_score: float = 0.0):
    """``run`` without its stuffed tails (a new Run; the other lines keep their order)."""
    keep = ~stuffed_mask(run, stuff_score)
    exp = None if run.exponent is None else np.asarray(run.exponent)[keep]
    return replace(run, topic=np.asarray(run.topic)[keep], docid=np.asarray(run.docid)[keep],
                   score=np.asarray(run.score)[keep], rank=np.asarray(run.rank)[keep],
                   lineno=np.asarray(run.lineno)[keep], exponent=exp)


def stuffing_table(qrels, runs, measures=("AP", "P@10", "RR"),
                   regimes=("trec_eval", "realistic", "optimistic"), stuff_score: float = 0.0,
                   min_rel: int = 1):
    """Per run, measure and regime, the share of the mean score that comes from stuffed tails.

    Parameters
    ----------
    qrels : tiebreak.io.Qrels
    runs : list of tiebreak.io.Run
    measures, regimes : names the evaluator accepts (``tiebreak measures``; regimes of
        :class:`tiebreak.Evaluator`).
    stuff_score : float
        The score of the appended documents (Cabanac et al.: 0).
    min_rel : int
        Relevance level from which a stuffed document counts as relevant in ``rel_stuffed``.

    Returns
    -------
    pandas.DataFrame
        One row per (run, measure, regime): ``run``, ``topics_stuffed`` (topics with a tail),
        ``docs_stuffed``, ``rel_stuffed`` (judged relevant stuffed documents), ``measure``,
        ``regime``, ``mean`` (the run as submitted), ``mean_without`` (tails removed),
        ``stuffed`` (their difference) and ``share`` (the difference over ``mean``; NaN when
        ``mean`` is 0).
    """
    import pandas as pd

    from ..evaluation import Evaluator

    runs = list(runs)
    ev = Evaluator(qrels, list(measures), list(regimes))
    full = ev.evaluate(runs)
    stripped = [strip_tails(r, stuff_score) for r in runs]
    bare = ev.evaluate(stripped)
    rel = _relevant_pairs(qrels, min_rel)
    rows = []
    for i, r in enumerate(runs):
        mask = stuffed_mask(r, stuff_score)
        tnames = np.asarray(r.topics, dtype=object)[np.asarray(r.topic)[mask]]
        dnames = np.asarray(r.docnos, dtype=object)[np.asarray(r.docid)[mask]]
        nrel = sum((t, d) in rel for t, d in zip(tnames, dnames))
        ntop = len(set(tnames.tolist()))
        for j, m in enumerate(full.measures):
            for g, reg in enumerate(full.regimes):
                a = float(np.nan_to_num(full.per_topic[i, j, g]).mean())
                b = float(np.nan_to_num(bare.per_topic[i, j, g]).mean())
                rows.append({"run": r.name, "topics_stuffed": ntop, "docs_stuffed": int(mask.sum()),
                             "rel_stuffed": int(nrel), "measure": m, "regime": reg, "mean": a,
                             "mean_without": b, "stuffed": a - b,
                             "share": (a - b) / a if a != 0 else float("nan")})
    return pd.DataFrame(rows)


def _relevant_pairs(qrels, min_rel: int) -> set:
    """{(topic, docno)} judged at ``min_rel`` or above in ``qrels`` (a Qrels)."""
    keep = np.asarray(qrels.value) >= min_rel
    t = np.asarray(qrels.topics, dtype=object)[np.asarray(qrels.topic)[keep]]
    d = np.asarray(qrels.docnos, dtype=object)[np.asarray(qrels.docid)[keep]]
    return set(zip(t.tolist(), d.tolist()))
