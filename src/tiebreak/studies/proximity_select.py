"""``tiebreak study proximity --select``: should proximity be applied to this query? (the
proposal of Lu 2018, §7.2: "a dynamic mechanism where we can choose which queries to apply
proximity-based models to").

Two runs of the same topics: *never* (a bag-of-words model, by default BM25^(2)) and *always*
(its proximity counterpart, by default Lkp, lambda 0.4, whose bag-of-words part is that same
BM25^(2)). Four per-topic choices are compared:

* ``never`` and ``always``: one run for every topic;
* ``oracle``: per topic the better of the two by the selection measure (``--select-by``, AP by
  default) -- an upper bound no predictor can pass;
* ``predictor``: a one-feature threshold rule over pre-retrieval query features, chosen by
  cross-validation over topics (the folds of ``--folds`` / ``--seed``, as Lkp-cv's lambda):
  each fold's rule maximises the mean selection measure of the *other* folds' topics and is
  applied to this fold's topics, so no topic's own judgments choose its rule.

Pre-retrieval features (:func:`query_features`; computed from the index statistics and the
postings, never from a ranking): ``terms`` (distinct in-vocabulary query terms), ``idf_mean``
and ``idf_spread`` (mean and max - min of ``ln(N / df)``), ``cooc`` (mean over adjacent pairs of
distinct terms of ``|D(a) & D(b)| / min(df_a, df_b)``, the share of the rarer term's documents
that also hold the other term) and ``pmi`` (mean over the same pairs of
``ln(N (|D(a) & D(b)| + 0.5) / (df_a df_b))``); a query with one term has 0 for the pair
features.

Rules (:func:`fit_rule`): ``never``, ``always``, and for every feature and every threshold among
the training topics' values ``apply if x > t`` / ``apply if x <= t``. Ties go to the earlier rule
in that order (so to ``never``, the cheaper run, first).

Reference: Lu, X. (2018). *Efficient and Effective Retrieval Using Higher-Order Proximity
Models*. PhD thesis, RMIT University, §7.2.
"""

from __future__ import annotations

import math

import numpy as np

from .study_proximity import topic_folds

__all__ = ["FEATURES", "query_features", "topic_folds", "fit_rule", "apply_rule",
           "cv_select", "run_select", "select_rows"]

FEATURES = ("terms", "idf_mean", "idf_spread", "cooc", "pmi")
STRATEGIES = ("never", "always", "oracle", "predictor")


def query_features(index, terms) -> np.ndarray:
    """The pre-retrieval features of :data:`FEATURES` for one query of analysed ``terms``
    (module docstring): float64 (len(FEATURES),). Terms outside the vocabulary are ignored; a
    query with none has all features 0."""
    seen, tids = set(), []
    for t in terms:
        tid = index.term_id(t)
        if tid >= 0 and tid not in seen:
            seen.add(tid)
            tids.append(tid)
    out = np.zeros(len(FEATURES))
    if not tids:
        return out
    n = float(index.num_docs)
    df = np.asarray(index.df, np.float64)[tids]
    idf = np.log(n / df)
    out[0] = len(tids)
    out[1] = idf.mean()
    out[2] = idf.max() - idf.min()
    if len(tids) > 1:
        cooc, pmi = [], []
        docs = [index.postings(t)[0] for t in tids]
        for i in range(len(tids) - 1):
            both = len(np.intersect1d(docs[i], docs[i + 1], assume_unique=True))
            cooc.append(both / min(df[i], df[i + 1]))
            pmi.append(math.log(n * (both + 0.5) / (df[i] * df[i + 1])))
        out[3] = float(np.mean(cooc))
        out[4] = float(np.mean(pmi))
    return out


def _rules(x: np.ndarray):
    """Candidate rules over feature matrix ``x`` (n, f): (feature index or -1, op, threshold),
    op in never / always / gt / le."""
    yield (-1, "never", 0.0)
    yield (-1, "always", 0.0)
    for j in range(x.shape[1]):
        for t in np.unique(x[:, j]):
            yield (j, "gt", float(t))
            yield (j, "le", float(t))


def apply_rule(rule, x: np.ndarray) -> np.ndarray:
    """Bool (n,): apply proximity to each topic of feature matrix ``x`` (n, f) under
    ``rule`` = (feature index, op, threshold)."""
    j, op, t = rule
    if op == "never":
        return np.zeros(len(x), bool)
    if op == "always":
        return np.ones(len(x), bool)
    return x[:, j] > t if op == "gt" else x[:, j] <= t


def fit_rule(x: np.ndarray, never: np.ndarray, always: np.ndarray):
    """The rule (:func:`apply_rule`) with the best mean of the chosen run's per-topic measure
    over the topics of ``x`` (n, f), ``never``, ``always`` (n,); ties to the earlier rule of
    the module docstring's order. Returns (rule, mean)."""
    gain = np.asarray(always, float) - np.asarray(never, float)
    base = float(np.mean(never))
    best, best_v = None, -math.inf
    for r in _rules(x):
        v = base + float(gain[apply_rule(r, x)].sum()) / len(x)
        if v > best_v + 1e-12:
            best, best_v = r, v
    return best, best_v


def rule_text(rule) -> str:
    j, op, t = rule
    if op in ("never", "always"):
        return op
    return f"{FEATURES[j]} {'>' if op == 'gt' else '<='} {t:.6g}"


def cv_select(x, never, always, folds: int, seed: int = 0):
    """Cross-validated selection: per fold the :func:`fit_rule` of the other folds' topics,
    applied to this fold's. Returns (fold (n,) int, rules per fold, choice (n,) bool: apply
    proximity). Raises ValueError as :func:`topic_folds`."""
    x = np.asarray(x, float)
    fold = topic_folds(len(x), folds, seed)
    choice = np.zeros(len(x), bool)
    rules = []
    for f in range(folds):
        tr = fold != f
        r, v = fit_rule(x[tr], np.asarray(never)[tr], np.asarray(always)[tr])
        rules.append((r, v))
        choice[~tr] = apply_rule(r, x[~tr])
    return fold, rules, choice


def run_select(index, topics, qrels, never=None, always=None, k: int = 1000, folds: int = 5,
               seed: int = 0, select_by: str = "AP"):
    """Rank ``topics`` with the ``never`` and ``always`` models ((registered name, parameters);
    default the study's ``BM25`` = BM25^(2) and ``Lkp`` of
    :data:`tiebreak.studies.study_proximity.MODELS`), evaluate them (trec_eval regime, the
    study's ``MEASURES``), compute the features and the cross-validated choice.

    Returns a dict: ``topics`` (ids), ``x`` (features (n, f)), ``per`` ({measure: {strategy:
    per-topic values (n,)}}), ``choice`` ({strategy: bool (n,)}), ``fold``, ``rules``.

    Raises
    ------
    ValueError
        A bad model parameter, a measure not evaluated, or fewer topics than folds.
    """
    from ..retrieval.search import search
    from .study_proximity import MEASURES, MODELS, _evaluate

    never = MODELS["BM25"] if never is None else never
    always = MODELS["Lkp"] if always is None else always
    if select_by not in MEASURES:
        raise ValueError(f"select_by: one of {', '.join(MEASURES)}, not {select_by!r}")
    runs = {"never": (index, search(index, topics, never[0], k, **never[1])),
            "always": (index, search(index, topics, always[0], k, **always[1]))}
    res = _evaluate(qrels, runs)
    tq = list(res.topics)
    text = dict(topics)
    an = index.analyzer.analyze
    # a judged topic without text (absent from the topics) scores 0 in both runs, features 0
    x = np.array([query_features(index, an(text.get(t, ""))) for t in tq]).reshape(
        len(tq), len(FEATURES))
    vals = {m: res.per_topic[:, res.measures.index(m), 0, :] for m in res.measures}
    sel = vals[select_by]
    fold, rules, pred = cv_select(x, sel[0], sel[1], folds, seed)
    choice = {"never": np.zeros(len(tq), bool), "always": np.ones(len(tq), bool),
              "oracle": sel[1] > sel[0], "predictor": pred}
    per = {m: {s: np.where(c, v[1], v[0]) for s, c in choice.items()} for m, v in vals.items()}
    return {"topics": tq, "x": x, "per": per, "choice": choice, "fold": fold, "rules": rules,
            "select_by": select_by}


def select_rows(sel, measures=("AP", "nDCG@10")):
    """Rows of ``select.tsv``: per strategy the share of topics given proximity, the mean of
    each measure, and the two-sided paired t-test p of that measure against ``never`` and
    against ``always`` (:func:`tiebreak.stats.paired_t`; empty for a strategy against
    itself)."""
    from ..stats import paired_t

    rows = []
    for s in STRATEGIES:
        r = [s, float(np.mean(sel["choice"][s]))]
        for m in measures:
            v = sel["per"][m]
            r.append(float(np.mean(v[s])))
            for b in ("never", "always"):
                r.append("" if b == s else float(paired_t(v[s], v[b]).pvalue))
        rows.append(r)
    return rows


def select_header(measures=("AP", "nDCG@10")):
    h = ["strategy", "proximity_share"]
    for m in measures:
        name = "MAP" if m == "AP" else m
        h += [name, f"p_{name}_vs_never", f"p_{name}_vs_always"]
    return h
