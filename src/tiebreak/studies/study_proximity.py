"""``tiebreak study proximity``: where does term proximity help? (Lu 2018, ch. 3 Tables 3.1,
3.3, 3.4, Figs 3.3, 3.4; ch. 4 Table 4.5, Figs 4.5-4.7).

Every model ranks the ``--topics`` over ``--index`` (top ``-k``) and is evaluated against
``--qrels`` with :class:`tiebreak.evaluation.Evaluator` (trec_eval regime; a topic the run lacks
scores 0) for AP, nDCG@10, P@10 and RBP(p=0.95) with its residual.

Models (:mod:`tiebreak.retrieval.dependency`, :mod:`tiebreak.retrieval.models`):

* ``BM25`` -- BM25^(2) (idf ``ln(N/df)``, k1 0.9, b 0.3), the bag-of-words part of Lkp;
* Table 3.1 ablations of the MRF family (Dirichlet mu 2500, Indri semantics), by default this
  project's earlier choice: ``BOW`` (unigrams only: weights (1, 0, 0), = query likelihood),
  ``BOW+OW`` (SDM's adjacent-pair ordered windows: (0.85, 0.15, 0)), ``BOW+UW`` (SDM's
  adjacent-pair ``#uw8``: (0.95, 0, 0.05)), ``SDM`` (0.8, 0.15, 0.05), ``FDM`` (0.8, 0.1, 0.1)
  (Table 4.3's weights); ``--table31 thesis`` uses Table 3.1 as the thesis states it
  (:data:`tiebreak.retrieval.configs.TABLE_3_1`: BOW+OW over every contiguous sub-sequence,
  BOW+UW over every subset with ``#uw(4|Q'|)``, both 0.85/0.15; SDM (0.8, 0.1, 0.1), FDM
  (0.8, 0.15, 0.05));
* ``--models NAME,...``: any other registered model (``tiebreak models``) with its defaults;
* Lkp variants: ``L2p``, ``Lkp``, ``Lkpf`` (lambda 0.4), and ``Lkp-cv``: lambda chosen by
  ``--folds``-fold cross-validation over topics (grid ``--lams``; each fold's lambda maximises the
  mean AP of the *other* folds' topics and is applied to this fold's; never tuned on test topics).

Outputs (in ``--out``):

* ``summary.tsv``: per model the mean of each measure, the RBP residual, and the paired t-test
  of AP against FDM (two-sided; p Holm-corrected over the family of all models, Lkp-cv and
  the mu-cross-validated models against FDM; ``sig`` ``+``/``-`` = adjusted p < alpha,
  better/worse than FDM);
* ``deltas.tsv`` / ``deltas.png`` (Figs 3.3, 3.4, 4.7): per model and baseline (BM25, SDM) the
  number of topics in each bucket of the per-topic AP change ``100 (AP - AP_base) / AP_base``
  (``base=0`` when the baseline has AP 0 and the model does not);
* ``extremes.tsv`` (Tables 3.3, 3.4, 4.5): per model the ``--top`` worst and best topics by AP
  change against BM25, with the topic text;
* ``lambda_cv.tsv``: per fold the chosen lambda and the test topics' mean AP, and the same for
  the models of :data:`MU_CV` (``BOW-cv``: query likelihood, ``SDM-cv``, ``FDM-cv``) with the
  Dirichlet mu chosen by the same folds (grid :data:`DEFAULT_MUS`; SDM and FDM use that mu for
  every feature, unigrams and windows alike); ``ql_mu.tsv``: the MAP of QL, SDM and FDM at
  every mu of the grid (for reading only: choosing from it would tune on the test topics);
* ``heatmap.tsv`` / ``heatmap.png`` (Figs 4.5, 4.6): over the Lkp top ``-k`` of every topic,
  P(relevant) (unjudged = not relevant) in bins of (BM25^(2) score, Lkp proximity part) -- the
  two parts of Eq. 4.3 -- with the row and column projections; bins are deciles of the pooled
  values (the proximity part's zero as a bin of its own).

``--select`` runs instead the per-query choice of proximity of Lu (2018) §7.2
(:mod:`tiebreak.studies.proximity_select`): ``--never`` / ``--always`` models, the per-topic
oracle and a cross-validated pre-retrieval predictor; ``select.tsv``, ``select_topics.tsv``,
``select_rules.tsv``.

Reference: Lu, X. (2018). *Efficient and Effective Retrieval Using Higher-Order Proximity
Models*. PhD thesis, RMIT University.
"""

from __future__ import annotations

import io
import os

import numpy as np

__all__ = ["MODELS", "MU_CV", "run_study", "study_models", "delta_buckets", "topic_folds",
           "cv_lambda", "cv_mu"]

#: name -> (model, parameters)
MODELS: dict[str, tuple[str, dict]] = {
    "BM25": ("bm25", {"idf": "rw", "k1": 0.9, "b": 0.3}),
    "BOW": ("sdm", {"weights": (1.0, 0.0, 0.0)}),
    "BOW+OW": ("sdm", {"weights": (0.85, 0.15, 0.0)}),
    "BOW+UW": ("sdm", {"weights": (0.95, 0.0, 0.05)}),
    "SDM": ("sdm", {}),
    "FDM": ("fdm", {}),
    "L2p": ("l2p", {}),
    "Lkp": ("lkp", {}),
    "Lkpf": ("lkpf", {}),
}
MEASURES = ("AP", "nDCG@10", "P@10", "RBP(p=0.95)")
#: bucket edges of the per-topic AP change in percent (Figs 3.3, 3.4, 4.7)
EDGES = (-100.0, -50.0, -10.0, 0.0, 10.0, 50.0, 100.0)
DEFAULT_LAMS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
#: Dirichlet mu grid of the cross-validated models of :data:`MU_CV`
DEFAULT_MUS = (25.0, 50.0, 100.0, 250.0, 500.0, 1000.0, 1500.0, 2000.0, 2500.0, 3500.0, 5000.0)
#: name -> (model, column of ``ql_mu.tsv``): models whose Dirichlet mu is chosen per fold
MU_CV: dict[str, tuple[str, str]] = {
    "BOW-cv": ("ql", "QL"),
    "SDM-cv": ("sdm", "SDM"),
    "FDM-cv": ("fdm", "FDM"),
}


def delta_buckets(ap, base) -> tuple[list[str], np.ndarray]:
    """(labels, counts) of the per-topic change ``100 (ap - base) / base`` in the buckets of
    :data:`EDGES`: ``<= -50``, ``(-50, -10]``, ``(-10, 0)``, ``= 0``, ``(0, 10)``, ``[10, 50)``,
    ``[50, 100)``, ``>= 100``, plus ``base=0`` (base 0, ap > 0). ``ap``, ``base``: float (n,)."""
    ap = np.asarray(ap, float)
    base = np.asarray(base, float)
    labels = ["<=-50", "(-50,-10]", "(-10,0)", "=0", "(0,10)", "[10,50)", "[50,100)", ">=100",
              "base=0"]
    counts = np.zeros(len(labels), int)
    for a, b in zip(ap, base):
        if b == 0:
            counts[3 if a == 0 else 8] += 1
            continue
        d = 100.0 * (a - b) / b
        if d == 0:
            counts[3] += 1
        elif d < 0:
            counts[0 if d <= -50 else 1 if d <= -10 else 2] += 1
        else:
            counts[4 if d < 10 else 5 if d < 50 else 6 if d < 100 else 7] += 1
    return labels, counts


def topic_folds(n: int, folds: int, seed: int = 0) -> np.ndarray:
    """Fold of each of ``n`` topics (int (n,)): a seeded random permutation dealt round-robin
    into ``folds`` folds (the folds :func:`cv_lambda` and
    :func:`tiebreak.studies.proximity_select.cv_select` use).
    Raises ValueError when ``n < folds`` or ``folds < 2``."""
    if folds < 2 or n < folds:
        raise ValueError(f"cross-validation needs 2 <= folds <= topics, got {folds} folds and "
                         f"{n} topics")
    rng = np.random.default_rng(seed)
    fold = np.empty(n, int)
    fold[rng.permutation(n)] = np.arange(n) % folds
    return fold


def cv_lambda(ap_by_lam: np.ndarray, lams, folds: int, seed: int = 0):
    """Cross-validated lambda: ``ap_by_lam`` (n_lams, n_topics) per-topic AP; topics are split
    into ``folds`` seeded random folds; each fold gets the lambda with the best mean AP over the
    other folds' topics (ties to the smaller lambda). Returns (fold of each topic (n_topics,)
    int, chosen lambda index per fold (folds,) int, cross-validated per-topic AP (n_topics,)).
    Raises ValueError when there are fewer topics than folds or fewer than 2 folds."""
    n_l, n = ap_by_lam.shape
    fold = topic_folds(n, folds, seed)
    chosen = np.empty(folds, int)
    out = np.empty(n)
    for f in range(folds):
        train = fold != f
        chosen[f] = int(np.argmax(ap_by_lam[:, train].mean(axis=1)))
        out[~train] = ap_by_lam[chosen[f], ~train]
    return fold, chosen, out


def _evaluate(qrels, runs: dict):
    """EvalResult of {name: [Result]} runs."""
    from ..evaluation import Evaluator
    from ..io import read_run
    from ..retrieval.search import format_run

    objs = []
    for name, (idx, res) in runs.items():
        text = format_run(idx, res, "x")
        objs.append(read_run(io.BytesIO(text.encode()), name=name))
    return Evaluator(qrels, list(MEASURES), ["trec_eval"]).evaluate(objs)


def cv_mu(index, topics, qrels, model: str, mus=DEFAULT_MUS, folds: int = 5, seed: int = 0,
          k: int = 1000, **params) -> dict:
    """Dirichlet mu of ``model`` (``ql``, ``sdm``, ``fdm``) chosen by cross-validation over
    topics: every mu of ``mus`` ranks all ``topics`` (top ``k``, other ``params`` fixed), the
    per-topic AP (trec_eval regime) goes to :func:`cv_lambda` with the same seeded folds as the
    lambda of Lkp-cv, so each fold's mu maximises the mean AP of the *other* folds' topics.

    Returns a dict: ``chosen`` (mu per fold), ``fold`` (fold of each topic, int (n,)),
    ``cv_ap`` (cross-validated per-topic AP, float (n,)), ``ap_by_mu`` (per-topic AP at every
    mu, float (len(mus), n)), ``by_mu`` (MAP at every mu, for reading only), ``topics`` (topic
    ids in the order of the arrays). Raises ValueError as :func:`cv_lambda` does, or for a bad
    model parameter."""
    from ..retrieval.search import search

    runs = {f"mu={mu:g}": (index, search(index, topics, model, k, mu=float(mu), **params))
            for mu in mus}
    res = _evaluate(qrels, runs)
    ap = res.per_topic[:, res.measures.index("AP"), 0, :]
    fold, ch, cv = cv_lambda(ap, mus, folds, seed)
    return {"chosen": [mus[c] for c in ch], "fold": fold, "cv_ap": cv, "ap_by_mu": ap,
            "by_mu": ap.mean(axis=1), "topics": list(res.topics)}


def study_models(table31: str = "ours", extra=()) -> dict[str, tuple[str, dict]]:
    """The study's models: :data:`MODELS`, its Table 3.1 rows replaced by the thesis's
    (:data:`tiebreak.retrieval.configs.TABLE_3_1`) when ``table31="thesis"``, plus the
    registered models named in ``extra`` with their defaults.

    Raises
    ------
    ValueError
        ``table31`` not ours/thesis, or an unknown model in ``extra``.
    """
    from ..retrieval.configs import TABLE_3_1
    from ..retrieval.registry import get

    if table31 not in ("ours", "thesis"):
        raise ValueError(f"table31: ours or thesis, not {table31!r}")
    out = dict(MODELS)
    if table31 == "thesis":
        out.update(TABLE_3_1)
    for name in extra:
        get(name)
        out.setdefault(name, (name, {}))
    return out


def run_study(index, topics, qrels, k: int = 1000, folds: int = 5, lams=DEFAULT_LAMS,
              seed: int = 0, progress: bool = False, mus=DEFAULT_MUS, models=None):
    """All runs and evaluations of the study; returns a dict of the pieces the outputs use.
    ``models``: name -> (registered model, parameters), default :data:`MODELS`."""
    from ..retrieval.search import search

    models = MODELS if models is None else models
    runs = {}
    names = list(models)
    from ..evaluation.output import Progress

    with Progress(len(names), "study proximity: searching", "models", enabled=progress) as bar:
        for name in names:
            model, params = models[name]
            runs[name] = (index, search(index, topics, model, k, **params))
            bar.update(1)
    lam_runs = {f"lam={lam:g}": (index, search(index, topics, "lkp", k, lam=float(lam)))
                for lam in lams}
    res = _evaluate(qrels, {**runs, **lam_runs})
    topics_q = res.topics
    ap = res.per_topic[:, res.measures.index("AP"), 0, :]
    n_m, n_l = len(names), len(lams)
    fold, chosen, cv_ap = cv_lambda(ap[n_m:n_m + n_l], lams, folds, seed)
    mu_cv = {}
    for name, (model, _) in MU_CV.items():
        c = cv_mu(index, topics, qrels, model, mus, folds, seed, k)
        if c["topics"] != list(topics_q):  # the same topics, so the same folds
            raise RuntimeError("topic order differs between evaluations")
        mu_cv[name] = c
    return {"res": res, "names": names, "ap": ap[:n_m], "cv_ap": cv_ap, "fold": fold,
            "chosen": [lams[c] for c in chosen], "lams": list(lams), "topics": topics_q,
            "runs": runs, "mu_cv": mu_cv, "cv_ql": mu_cv["BOW-cv"]["cv_ap"],
            "chosen_mu": mu_cv["BOW-cv"]["chosen"], "ql_by_mu": mu_cv["BOW-cv"]["by_mu"],
            "mus": list(mus)}


def _heatmap(index, topics, qrels, k: int, bins: int = 10):
    """(bm25 edges, prox edges, P(rel) (bins, bins+1), counts) over the Lkp top k."""
    from ..retrieval import dependency as dep
    from ..retrieval.models import bm25

    an = index.analyzer.analyze
    rel = {}
    for t, d, g in zip(*_qrels_triples(qrels)):
        rel[(t, d)] = g > 0
    xs, ys, zs = [], [], []
    for qid, text in topics:
        q = an(text)
        top, _ = dep.lkp(index, q, k)
        if len(top) == 0:
            continue
        n_all = index.num_docs
        bd, bs = bm25(index, q, n_all, idf="rw", k1=dep.K1, b=dep.B)
        pd, ps = dep.lkp(index, q, n_all, lam=1.0)
        bmap = dict(zip(bd.tolist(), bs.tolist()))
        pmap = dict(zip(pd.tolist(), ps.tolist()))
        names = index.docnos[top]
        for d, name in zip(top.tolist(), names.tolist()):
            xs.append(bmap.get(d, 0.0))
            ys.append(pmap.get(d, 0.0))
            zs.append(rel.get((qid, name), False))
    x, y, z = np.array(xs), np.array(ys), np.array(zs, float)
    xe = np.unique(np.quantile(x, np.linspace(0, 1, bins + 1)))
    pos = y[y > 0]
    ye = np.unique(np.quantile(pos, np.linspace(0, 1, bins + 1))) if len(pos) else np.array([0.0])
    xi = np.clip(np.searchsorted(xe, x, side="right") - 1, 0, len(xe) - 2)
    yi = np.where(y > 0, np.clip(np.searchsorted(ye, y, side="right") - 1, 0,
                                 max(len(ye) - 2, 0)) + 1, 0)
    ny = max(len(ye) - 1, 0) + 1
    cnt = np.zeros((len(xe) - 1, ny))
    hit = np.zeros((len(xe) - 1, ny))
    np.add.at(cnt, (xi, yi), 1)
    np.add.at(hit, (xi, yi), z)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = hit / cnt
    return xe, ye, p, cnt, hit


def _qrels_triples(qrels):
    """(topic ids, docnos, relevance values) lists of a Qrels."""
    t = [qrels.topics[i] for i in qrels.topic.tolist()]
    d = qrels.docnos[qrels.docid].tolist()
    return t, d, qrels.value.tolist()


def _write_tsv(path, header, rows):
    with open(path, "w") as fh:
        fh.write("\t".join(header) + "\n")
        for r in rows:
            fh.write("\t".join(f"{x:.4f}" if isinstance(x, float) else str(x) for x in r)
                     + "\n")


def _outputs(study, index, topics, qrels, k, out_dir, top: int, alpha: float):
    from ..stats import holm, paired_t
    from . import pyplot

    res, names = study["res"], study["names"]
    ap = study["ap"]
    mi = {m: i for i, m in enumerate(res.measures)}
    text = dict(topics)
    tq = study["topics"]
    # summary
    fdm = ap[names.index("FDM")]
    cv = study["cv_ap"]
    # the family of comparisons against FDM: every other model and the cross-validated ones,
    # Holm-corrected
    mu_cv = study["mu_cv"]
    cvs = {"Lkp-cv": cv, **{n: mu_cv[n]["cv_ap"] for n in MU_CV}}
    others = [(n, ap[i]) for i, n in enumerate(names) if n != "FDM"] + list(cvs.items())
    pv = np.array([paired_t(x, fdm).pvalue for _, x in others])
    adj = dict(zip([n for n, _ in others], holm(pv)))
    raw = dict(zip([n for n, _ in others], pv))
    hdr = ["model"] + list(res.measures) + ["p_vs_FDM", "p_holm", "sig"]
    rows = []
    for i, n in enumerate(names + list(cvs)):
        if n in cvs:
            x = cvs[n]
            vals = [float(x.mean())] + [""] * (len(res.measures) - 1)
            mean = x.mean()
        else:
            vals = [float(res.mean[i, mi[m], 0]) for m in res.measures]
            mean = ap[i].mean()
        if n == "FDM":
            rows.append([n, *vals, "", "", ""])
            continue
        sig = ("+" if mean > fdm.mean() else "-") if adj[n] < alpha else ""
        rows.append([n, *vals, float(raw[n]), float(adj[n]), sig])
    _write_tsv(os.path.join(out_dir, "summary.tsv"), hdr, rows)
    # deltas
    drows = []
    fig, axes = pyplot().subplots(1, 2, figsize=(12, 4), sharey=True)
    for ax, base in zip(axes, ("BM25", "SDM")):
        b = ap[names.index(base)]
        width = 0.8 / (len(names) - 1)
        for j, n in enumerate([x for x in names if x != base]):
            labels, counts = delta_buckets(ap[names.index(n)], b)
            drows.append([n, base, *counts.tolist()])
            ax.bar(np.arange(len(labels)) + j * width, counts, width, label=n)
        labels, counts = delta_buckets(cv, b)
        drows.append(["Lkp-cv", base, *counts.tolist()])
        ax.set_xticks(np.arange(len(labels)) + 0.4, labels, rotation=45, fontsize=7)
        ax.set_title(f"per-topic AP change against {base} (%)")
        ax.set_ylabel("topics")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "deltas.png"), dpi=120)
    _write_tsv(os.path.join(out_dir, "deltas.tsv"), ["model", "baseline", *labels], drows)
    # extremes
    b = ap[names.index("BM25")]
    erows = []
    for i, n in enumerate(names):
        if n == "BM25":
            continue
        d = ap[i] - b
        order = np.argsort(d, kind="stable")
        for kind, sel in (("worst", order[:top]), ("best", order[::-1][:top])):
            for t in sel:
                erows.append([n, kind, tq[t], float(b[t]), float(ap[i, t]), float(d[t]),
                              " ".join(text.get(tq[t], "").split()[:20])])
    _write_tsv(os.path.join(out_dir, "extremes.tsv"),
               ["model", "kind", "topic", "AP_BM25", "AP_model", "delta", "text"], erows)
    # lambda CV
    fold = study["fold"]
    lrows = [[f, study["chosen"][f], int((fold == f).sum()), float(cv[fold == f].mean())]
             + [x for n in MU_CV for x in (mu_cv[n]["chosen"][f],
                                          float(mu_cv[n]["cv_ap"][fold == f].mean()))]
             for f in range(len(study["chosen"]))]
    cols = [c for _, c in MU_CV.values()]
    _write_tsv(os.path.join(out_dir, "lambda_cv.tsv"),
               ["fold", "lambda", "topics", "AP_test_Lkp"]
               + [x for c in cols for x in (f"mu_{c}", f"AP_test_{c}")], lrows)
    _write_tsv(os.path.join(out_dir, "ql_mu.tsv"), ["mu", *cols],
               [[float(m), *(float(mu_cv[n]["by_mu"][i]) for n in MU_CV)]
                for i, m in enumerate(study["mus"])])
    # heat map
    xe, ye, p, cnt, hit = _heatmap(index, topics, qrels, k)
    hrows = []
    for i in range(p.shape[0]):
        for j in range(p.shape[1]):
            ylo = 0.0 if j == 0 else ye[j - 1]
            yhi = 0.0 if j == 0 else ye[j]
            hrows.append([float(xe[i]), float(xe[i + 1]), ylo, yhi, int(cnt[i, j]),
                          int(hit[i, j]), float(p[i, j]) if cnt[i, j] else ""])
    _write_tsv(os.path.join(out_dir, "heatmap.tsv"),
               ["bm25_lo", "bm25_hi", "prox_lo", "prox_hi", "docs", "relevant", "P_rel"],
               hrows)
    plt = pyplot()
    fig = plt.figure(figsize=(7, 6))
    gs = fig.add_gridspec(2, 2, width_ratios=(4, 1), height_ratios=(1, 4))
    ax = fig.add_subplot(gs[1, 0])
    im = ax.imshow(np.ma.masked_invalid(p.T), origin="lower", aspect="auto", cmap="viridis")
    ax.set_xlabel("BM25^(2) score (decile bins)")
    ax.set_ylabel("Lkp proximity part (bin 0: none; then decile bins)")
    fig.colorbar(im, ax=ax, label="P(relevant)")
    with np.errstate(invalid="ignore", divide="ignore"):
        top_ax = fig.add_subplot(gs[0, 0], sharex=ax)
        top_ax.plot(np.arange(p.shape[0]), hit.sum(1) / cnt.sum(1), "o-")
        top_ax.set_ylabel("P(rel | BM25)")
        side = fig.add_subplot(gs[1, 1], sharey=ax)
        side.plot(hit.sum(0) / cnt.sum(0), np.arange(p.shape[1]), "o-")
        side.set_xlabel("P(rel | prox)")
    fig.savefig(os.path.join(out_dir, "heatmap.png"), dpi=120)
    plt.close("all")
    return rows
