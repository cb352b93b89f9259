"""Learning the weighted sequential and full dependence models (WSDM, WFDM): coordinate ascent on
MAP under k-fold cross-validation over topics (``tiebreak study proximity --learn``).

WSDM (M. Bendersky, D. Metzler and W. B. Croft, "Learning concept importance using a weighted
dependence model", WSDM 2010; :func:`tiebreak.retrieval.wsdm.wsdm`) weights each query unigram
q by ``u . f(q)`` and each adjacent pair b by ``v . f(b)``, ``f = (1, ln cf, ln df)``:

    score(D) = sum_q (u . f(q)) phi_T(q, D) + sum_b (v . f(b)) (phi_O(b, D) + phi_U(b, D)),

which is linear in the six weights: ``score(D) = F(D) . (u, v)`` with ``F_i(D)`` the score of
WSDM with the i-th unit weight vector. The features of every candidate are therefore computed
once per topic (six runs of :func:`~tiebreak.retrieval.wsdm.wsdm` over all candidates) and any
weight vector ranks them by a matrix product.

The weights are learned as Bendersky et al. learn them, by D. Metzler's coordinate ascent
(D. Metzler and W. B. Croft, "Linear feature-based models for information retrieval",
Information Retrieval 10(3), 2007): from a start vector, each weight in turn is moved along a
grid of steps, the move with the best mean AP over the training topics is kept (ties keep the
current value), and the sweeps repeat until one changes nothing (at most ``rounds``).
Rankings are invariant to a positive scale of the weights; the vector is kept as found.

Cross-validation: the topics are dealt into ``folds`` seeded folds (the folds of the study's
other cross-validated rows, :func:`tiebreak.studies.study_proximity.topic_folds`); each
fold's weights are learned on the other folds' topics and used, through the registered
``wsdm`` model, to rank the fold's own topics. The union of those rankings is the
cross-validated WSDM run. The weights (per fold, and learned on all topics) are saved as JSON
(:func:`save_weights`) and read back by :func:`load_weights`.

Only the three features the index holds are used (the paper adds Google n-gram, query-log and
Wikipedia-title features, which are not available here).

WFDM (:func:`tiebreak.retrieval.wfdm.wfdm`: the same six weights on every FDM subquery) is
linear in its weights in the same way and is learned by the same code (``model="wfdm"``).
"""

from __future__ import annotations

import json
import math

import numpy as np

__all__ = ["concept_features", "average_precision", "coordinate_ascent", "learn_cv",
           "learn_table", "save_weights", "load_weights", "START", "STEPS", "LEARNED"]

#: start vector (u0, u1, u2, v0, v1, v2): SDM-like constant weights
START = (0.8, 0.0, 0.0, 0.1, 0.0, 0.0)
#: step grid of one coordinate move, as multiples of max(|w_i|, 0.01)
STEPS = (-2.0, -1.0, -0.5, -0.2, -0.1, -0.05, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0)


#: the learnable models (registered names) and their rows in the study's table
LEARNED = {"wsdm": "WSDM-cv", "wfdm": "WFDM-cv"}


def concept_features(index, terms, mu: float = 2500.0, model: str = "wsdm"):
    """``(docids int64 (n,), F float64 (n, 6))`` for one query of analysed ``terms``: every
    candidate (a document holding a query term) and its six feature scores of ``model``
    (``wsdm`` or ``wfdm``: the model with each unit weight vector; module docstring), in
    ascending docid order."""
    from ..retrieval.registry import run

    N = int(index.num_docs)
    cols = []
    docs = None
    for i in range(6):
        e = [0.0] * 6
        e[i] = 1.0
        d, s = run(index, terms, N, model, uni=tuple(e[:3]), bi=tuple(e[3:]), mu=mu)
        d = np.asarray(d, np.int64)
        order = np.argsort(d, kind="stable")
        if docs is None:
            docs = d[order]
        elif not np.array_equal(docs, d[order]):
            raise RuntimeError(f"{model} candidates differ between feature runs")
        cols.append(np.asarray(s, np.float64)[order])
    if docs is None or len(docs) == 0:
        return np.zeros(0, np.int64), np.zeros((0, 6))
    return docs, np.stack(cols, axis=1)


def average_precision(scores, rel, tiekey, R: int) -> float:
    """AP of one ranking: candidates sorted by ``scores`` descending, ties by ``tiekey``
    descending (the docno rank: trec_eval's order); ``rel`` bool (n,); ``R`` the topic's
    relevant documents in the qrels (0: AP 0)."""
    if R <= 0 or len(scores) == 0:
        return 0.0
    order = np.lexsort((-np.asarray(tiekey), -np.asarray(scores)))[:1000]
    hit = np.asarray(rel)[order]
    if not hit.any():
        return 0.0
    ranks = np.flatnonzero(hit) + 1.0
    return float((np.arange(1, len(ranks) + 1) / ranks).sum() / R)


def _mean_ap(w, data) -> float:
    return float(np.mean([average_precision(F @ w, rel, key, R) for F, rel, key, R in data]))


def coordinate_ascent(data, start=START, rounds: int = 5, steps=STEPS):
    """Weights (6,) maximising the mean AP over ``data`` (a list of ``(F (n, 6), rel bool (n,),
    tiekey (n,), R)`` per training topic) by coordinate ascent (module docstring); returns
    ``(weights float64 (6,), mean AP)``."""
    w = np.asarray(start, np.float64).copy()
    best = _mean_ap(w, data)
    for _ in range(rounds):
        moved = False
        for i in range(6):
            scale = max(abs(w[i]), 0.01)
            for s in steps:
                c = w.copy()
                c[i] += s * scale
                m = _mean_ap(c, data)
                if m > best + 1e-12:
                    best, w, moved = m, c, True
        if not moved:
            break
    return w, best


def _topic_data(index, topics, qrels, mu, model="wsdm"):
    """Per topic ``(F, rel, tiekey, R)`` and its candidates' docids."""
    an = index.analyzer.analyze
    rel_by = {}
    for t, d, v in zip([qrels.topics[i] for i in qrels.topic.tolist()],
                       qrels.docnos[qrels.docid].tolist(), qrels.value.tolist()):
        if v >= 1:
            rel_by.setdefault(t, set()).add(d)
    rank = np.asarray(index.docno_rank)
    out = []
    for qid, text in topics:
        docs, F = concept_features(index, an(text), mu, model)
        rs = rel_by.get(str(qid), set())
        rel = np.array([str(x) in rs for x in index.docnos[docs]], bool) if len(docs) else \
            np.zeros(0, bool)
        out.append((F, rel, rank[docs], len(rs)))
    return out


def learn_cv(index, topics, qrels, folds: int = 5, seed: int = 0, mu: float = 2500.0,
             rounds: int = 5, k: int = 1000, model: str = "wsdm") -> dict:
    """``model`` (``wsdm`` or ``wfdm``) learned by coordinate ascent under ``folds``-fold
    cross-validation over ``topics`` (``(qid, text)`` pairs with judgments in ``qrels``).

    Returns a dict: ``fold`` (fold of each topic, int (n,)), ``weights`` (per fold, the learned
    ``(u, v)`` as 6 floats), ``train_map`` (per fold), ``all`` (weights learned on every topic)
    and ``all_map``, ``results`` (the cross-validated run: one
    :class:`tiebreak.retrieval.search.Result` per topic, in topic order, each ranked by its
    fold's weights through the registered model), ``model``, ``mu`` and ``topics``.
    Raises ValueError when there are fewer topics than folds or for another model."""
    from ..retrieval.search import search
    from .study_proximity import topic_folds

    if model not in LEARNED:
        raise ValueError(f"learnable models: {', '.join(LEARNED)}, not {model!r}")
    topics = list(topics)
    fold = topic_folds(len(topics), folds, seed)
    data = _topic_data(index, topics, qrels, mu, model)
    weights, train = [], []
    results = [None] * len(topics)
    for f in range(folds):
        tr = [data[i] for i in range(len(topics)) if fold[i] != f]
        w, m = coordinate_ascent(tr, rounds=rounds)
        weights.append([float(x) for x in w])
        train.append(m)
        idx_f = [i for i in range(len(topics)) if fold[i] == f]
        res = search(index, [topics[i] for i in idx_f], model, k, uni=tuple(w[:3]),
                     bi=tuple(w[3:]), mu=mu)
        for i, r in zip(idx_f, res):
            results[i] = r
    w_all, m_all = coordinate_ascent(data, rounds=rounds)
    return {"fold": fold, "weights": weights, "train_map": train,
            "all": [float(x) for x in w_all], "all_map": m_all, "results": results,
            "model": model, "mu": mu, "topics": [str(t) for t, _ in topics]}


def save_weights(path, learned: dict) -> None:
    """Write the learned weights of :func:`learn_cv` as JSON: ``{"model", "mu",
    "features": [...], "folds": [{"topics": [...], "uni": [3], "bi": [3], "train_map"}],
    "all": {"uni", "bi", "train_map"}}``."""
    folds = []
    for f, w in enumerate(learned["weights"]):
        folds.append({"topics": [t for t, g in zip(learned["topics"], learned["fold"])
                                 if g == f],
                      "uni": w[:3], "bi": w[3:], "train_map": learned["train_map"][f]})
    doc = {"model": learned.get("model", "wsdm"), "mu": learned["mu"],
           "features": ["1", "ln cf", "ln df"],
           "folds": folds,
           "all": {"uni": learned["all"][:3], "bi": learned["all"][3:],
                   "train_map": learned["all_map"]}}
    with open(path, "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")


def load_weights(path, which: str | int = "all", model: str | None = None) -> dict:
    """The parameters of the model (``wsdm`` / ``wfdm``, the file's ``"model"``) saved by
    :func:`save_weights`: ``{"uni": (3,), "bi": (3,), "mu"}`` of the weights learned on all
    topics (``which="all"``) or of fold ``which`` (0-based). ``model``: when given, the file
    must hold that model's weights.

    Raises
    ------
    ValueError
        Naming the file (and the field): an unreadable file, not JSON (with its line), not
        such a document (``model`` not wsdm / wfdm, or not ``model``; ``mu`` not a finite
        number > 0; ``uni`` / ``bi`` not 3 finite numbers), or no fold ``which``.
    """
    label = model.upper() if model else "WSDM or WFDM"

    def bad(msg):
        return ValueError(f"{path}: not a {label} weights file ({msg})")

    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except OSError as e:
        raise ValueError(f"{path}: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise bad(f"line {e.lineno} column {e.colno}: {e.msg}") from None
    except ValueError as e:                         # not UTF-8
        raise bad(str(e)) from None
    if not isinstance(doc, dict):
        raise bad(f"expected a JSON object, got {type(doc).__name__}")
    got = doc.get("model")
    if not isinstance(got, str) or got not in LEARNED:
        raise bad(f"model: expected one of {', '.join(LEARNED)}, got {got!r}")
    if model is not None and got != model:
        raise ValueError(f"{path}: the weights of {got}, not of {model}")

    def num(x):
        if isinstance(x, bool) or not isinstance(x, int | float):
            return None
        try:
            v = float(x)
        except OverflowError:
            return None
        return v if math.isfinite(v) else None

    mu = num(doc.get("mu"))
    if mu is None or mu <= 0:
        raise bad(f"mu: expected a finite number > 0, got {doc.get('mu')!r}")
    if which == "all":
        where, entry = "all", doc.get("all")
    else:
        folds = doc.get("folds")
        try:
            f = int(which)
        except (TypeError, ValueError):
            raise ValueError(f"fold {which!r}: expected 'all' or a fold number") from None
        if not isinstance(folds, list) or not 0 <= f < len(folds):
            n = len(folds) if isinstance(folds, list) else 0
            raise bad(f"no fold {which} (folds: {n})")
        where, entry = f"folds[{f}]", folds[f]
    if not isinstance(entry, dict):
        raise bad(f"{where}: expected an object, got {entry!r}")
    out = {}
    for key in ("uni", "bi"):
        v = entry.get(key)
        w = [num(x) for x in v] if isinstance(v, list) else []
        if len(w) != 3 or None in w:
            raise bad(f"{where}.{key}: expected 3 finite numbers, got {v!r}")
        out[key] = tuple(w)
    out["mu"] = mu
    return out


#: the study models the learned rows are compared with
BASELINES = ("BOW", "SDM", "FDM")
#: the segmented models beside them (registered names, defaults: PMI threshold 0)
SEGMENTED = {"SDM-seg": "sdm-seg", "FDM-seg": "fdm-seg"}


def learn_table(index, topics, qrels, folds: int = 5, seed: int = 0, k: int = 1000,
                rounds: int = 5, models=("wsdm", "wfdm")) -> dict:
    """Cross-validated WSDM and WFDM (``models``, a subset of :data:`LEARNED`) beside the
    study's BOW, SDM and FDM rows (:data:`tiebreak.studies.study_proximity.MODELS`) and the
    segmented SDM and FDM (:data:`SEGMENTED`) on ``topics``: returns ``{"learned": {model:
    learn_cv's dict}, "rows": [(row, MAP, nDCG@10, P@10, p of AP against SDM (two-sided
    paired t; "" for SDM))], "ap": {row: per-topic AP (n,)}, "topics"}``. All learned models
    use the same folds."""
    from ..retrieval.search import search
    from ..stats import paired_t
    from .study_proximity import MODELS, _evaluate

    learned = {m: learn_cv(index, topics, qrels, folds, seed, rounds=rounds, k=k, model=m)
               for m in models}
    runs = {}
    for name in BASELINES:
        model, params = MODELS[name]
        runs[name] = (index, search(index, topics, model, k, **params))
        seg = f"{name}-seg"
        if seg in SEGMENTED:
            runs[seg] = (index, search(index, topics, SEGMENTED[seg], k))
    for m in models:
        runs[LEARNED[m]] = (index, learned[m]["results"])
    res = _evaluate(qrels, runs)
    mi = {m: i for i, m in enumerate(res.measures)}
    ap = {n: res.per_topic[i, mi["AP"], 0, :] for i, n in enumerate(res.runs)}
    rows = []
    for i, n in enumerate(res.runs):
        p = "" if n == "SDM" else float(paired_t(ap[n], ap["SDM"]).pvalue)
        rows.append((n, float(res.mean[i, mi["AP"], 0]), float(res.mean[i, mi["nDCG@10"], 0]),
                     float(res.mean[i, mi["P@10"], 0]), p))
    return {"learned": learned, "rows": rows, "ap": ap, "topics": list(res.topics)}
