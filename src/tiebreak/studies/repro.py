"""Is a reproduction's difference real, or ties? The measures of Breuer, Ferro, Fuhr, Maistro,
Sakai, Schaer & Soboroff, "How to measure the reproducibility of system-oriented IR experiments"
(SIGIR 2020), computed under every tie regime, with the share of the gap that ties explain.

For an original run O and its reproduction R (same topics, same qrels):

* document order, per topic (then averaged): Kendall's tau Union (KTU) and RBO of the two
  rankings;
* effectiveness, per measure: RMSE = sqrt(mean_t (O_t - R_t)^2) and nRMSE = RMSE divided by the
  RMSE of the farthest possible reproduction, sqrt(mean_t max(O_t, 1 - O_t)^2) (measures in
  [0, 1]); the two-sided paired t-test of O against R (reproducibility);
* overall effect of an advanced run a over a baseline b: the Effect Ratio
  ``ER = mean_t(R^a_t - R^b_t) / mean_t(O^a_t - O^b_t)`` and the Delta Relative Improvement
  ``DeltaRI = RI_O - RI_R`` with ``RI = (mean(a) - mean(b)) / mean(b)``. Replicability (R scored
  on another collection, ``rep_qrels``): ER, DeltaRI and the unpaired two-sided t-test (Student,
  equal variances) only, since topics differ.

Tie treatment. Scores are computed in each requested regime. The document-order measures use the
ranking trec_eval evaluates (score descending, then docno descending), which is what repro_eval
forces with its ``break_ties``; they are also given with ties kept (``_ties`` columns):

* ``KTU`` follows repro_eval 0.5 exactly: the documents of the two top-n lists (n = the shorter
  length, at most ``depth``) are numbered by their position in the sorted union, and Kendall's
  tau-b is taken between the two sequences of numbers, rank by rank. This is not Kendall's tau
  between the two rankings (it depends on the docnos: reproducing [a, c, b, d] as [a, c, d, b]
  gives 0, the rank tau 2/3); it is kept for comparability with published values.
  ``KTU_ties`` is Kendall's tau-b between the two rank vectors over the union of documents, a
  document's rank being its tie group's mid-rank (a document missing from a list ranks, tied,
  after its last document): a reordering inside a tie group costs nothing.
* ``RBO`` is :func:`tiebreak.stats.overlap.rbo_at` (p = 0.95 to depth 1000 by default, as
  repro_eval); ``RBO_ties`` passes the tie groups (Webber et al. 2010, Section 4.3).

The tie share of the gap. Each run's value on a topic can be anything in its tie range
[``realistic``, ``optimistic``] (its value under the worst and the best order of every tied
group). Per topic, the gap ties cannot explain is the distance between the two ranges (0 when
they overlap), i.e. the difference left when each run is scored at the point of its range
closest to the other;
``RMSE_beyond_ties`` is the RMSE of those gaps, and ``tie_share = 1 - RMSE_beyond_ties / RMSE``
(the RMSE of the row's regime). Every regime's value lies inside its range, so
``RMSE_beyond_ties <= RMSE`` in every regime.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..evaluation import Evaluator
from ..io import Qrels, Run
from ..stats.overlap import rbo_at
from ..stats.significance import paired_t

__all__ = ["ReproResult", "reproduction", "ktu", "ktu_ties", "rmse", "nrmse", "effect_ratio",
           "delta_ri", "tie_gap", "pair_runs", "rankings"]

#: The two regimes that bound a tie range: the worst and the best order of every tied group,
#: unjudged documents non-relevant (the YMT ``lower``/``upper`` bounds would also count unjudged
#: documents as relevant, which is a judgment range, not a tie range).
RANGE = ("realistic", "optimistic")


def rmse(orig, rep) -> float:
    """Root mean square error of per-topic scores, shape (n_topics,) each (NaN if empty)."""
    d = np.asarray(orig, float) - np.asarray(rep, float)
    return float(np.sqrt(np.mean(d * d))) if d.size else math.nan


def nrmse(orig, rep) -> float:
    """RMSE over the largest RMSE a reproduction of ``orig`` can have for a measure in [0, 1]
    (each topic at the far end: max(O_t, 1 - O_t)), as Breuer et al. 2020 and repro_eval."""
    o = np.asarray(orig, float)
    return rmse(orig, rep) / rmse(np.maximum(o, 1.0 - o), np.zeros_like(o))


def effect_ratio(orig_a, orig_b, rep_a, rep_b) -> float:
    """ER = mean(rep_a - rep_b) / mean(orig_a - orig_b) (per-topic arrays; each pair on its
    own topics). 1: the reproduction shows the same improvement; NaN/inf when the original
    shows none."""
    num = float(np.mean(np.asarray(rep_a, float) - np.asarray(rep_b, float)))
    den = float(np.mean(np.asarray(orig_a, float) - np.asarray(orig_b, float)))
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(num) / np.float64(den))


def delta_ri(orig_a, orig_b, rep_a, rep_b) -> float:
    """DeltaRI = RI_orig - RI_rep with RI = (mean(a) - mean(b)) / mean(b). 0: the same relative
    improvement."""
    def ri(a, b):
        ma, mb = np.float64(np.mean(a)), np.float64(np.mean(b))
        with np.errstate(divide="ignore", invalid="ignore"):
            return (ma - mb) / mb
    return float(ri(orig_a, orig_b) - ri(rep_a, rep_b))


def tie_gap(orig_lo, orig_hi, rep_lo, rep_hi) -> np.ndarray:
    """Per topic, the distance between the tie ranges [orig_lo, orig_hi] and [rep_lo, rep_hi]
    (0 where they overlap): the smallest |O - R| over every ordering of either run's ties.
    Arrays of shape (n_topics,); returns float64 (n_topics,)."""
    lo_o, hi_o = np.asarray(orig_lo, float), np.asarray(orig_hi, float)
    lo_r, hi_r = np.asarray(rep_lo, float), np.asarray(rep_hi, float)
    return np.maximum(np.maximum(lo_o - hi_r, lo_r - hi_o), 0.0)


def ktu(orig_docs, rep_docs, depth: int = 1000) -> float:
    """Kendall's tau Union of two rankings (lists of docnos, best first) as repro_eval 0.5
    computes it (see the module docstring); both lists are cut to the shorter length and at
    most ``depth``. NaN when a sequence is constant (one document)."""
    from scipy.stats import kendalltau

    n = min(len(orig_docs), len(rep_docs), depth)
    o, r = list(orig_docs[:n]), list(rep_docs[:n])
    union = {d: i for i, d in enumerate(sorted(set(o) | set(r)))}
    if n < 2:
        return math.nan
    return float(kendalltau([union[d] for d in o], [union[d] for d in r]).statistic)


def _mid_ranks(docs, groups, union) -> np.ndarray:
    """Mid-rank of every union document in one list (tie groups share theirs; a missing document
    ranks after the list, all missing ones tied)."""
    n = len(docs)
    g = np.asarray(groups)
    new = np.r_[True, g[1:] != g[:-1]] if n else np.zeros(0, bool)
    gid = np.cumsum(new) - 1
    start = np.flatnonzero(new)
    size = np.diff(np.r_[start, n])
    mid = start[gid] + (size[gid] + 1) / 2.0
    out = np.full(len(union), n + 1.0 + (len(union) - n - 1) / 2.0 if len(union) > n else n + 1.0)
    for d, m in zip(docs, mid, strict=True):
        out[union[d]] = m
    return out


def ktu_ties(orig_docs, orig_groups, rep_docs, rep_groups, depth: int = 1000) -> float:
    """Kendall's tau-b between the mid-rank vectors of the two top-``depth`` lists over the
    union of their documents (ties kept: see the module docstring). NaN when a vector is
    constant."""
    from scipy.stats import kendalltau

    o, r = list(orig_docs[:depth]), list(rep_docs[:depth])
    union = {d: i for i, d in enumerate(sorted(set(o) | set(r)))}
    if len(union) < 2:
        return math.nan
    a = _mid_ranks(o, list(orig_groups[:depth]), union)
    b = _mid_ranks(r, list(rep_groups[:depth]), union)
    return float(kendalltau(a, b).statistic)


def rankings(run: Run) -> dict[str, tuple[list[str], np.ndarray]]:
    """Per topic of ``run``: its docnos in trec_eval's order (score descending, then docno
    descending) and each one's tie group (int64, equal for equal scores)."""
    order = np.lexsort((-run.docid, -run.score, run.topic))
    t, s = run.topic[order], run.score[order]
    docs = run.docnos[run.docid[order]]
    new = np.r_[True, (t[1:] != t[:-1]) | (s[1:] != s[:-1])] if len(t) else np.zeros(0, bool)
    grp = np.cumsum(new)
    cut = np.flatnonzero(np.r_[True, t[1:] != t[:-1]]) if len(t) else np.zeros(0, np.int64)
    out = {}
    for a, b in zip(cut, np.r_[cut[1:], len(t)], strict=True):
        out[run.topics[t[a]]] = ([str(d) for d in docs[a:b]], grp[a:b])
    return out


def pair_runs(originals: list[Run], reproduced: list[Run]) -> list[tuple[int, int]]:
    """Pairs (index into ``originals``, index into ``reproduced``): by run name when every
    original's name is among the reproduced runs' names, else by position (equal counts).
    Raises ValueError when neither applies."""
    names = [r.name for r in reproduced]
    if len(set(names)) == len(names) and all(o.name in names for o in originals):
        return [(i, names.index(o.name)) for i, o in enumerate(originals)]
    if len(originals) != len(reproduced):
        raise ValueError(f"{len(originals)} original runs and {len(reproduced)} reproduced runs, "
                         "and the names do not match: give as many reproduced runs as originals, "
                         "in the same order")
    return [(i, i) for i in range(len(originals))]


@dataclass
class ReproResult:
    """What :func:`reproduction` finds.

    ``rows``: one dict per (pair, measure, regime): ``original``, ``reproduced``, ``measure``,
    ``regime``, ``orig_mean``, ``rep_mean``, then (reproducibility) ``RMSE``, ``nRMSE``,
    ``p_paired``, ``KTU``, ``KTU_ties``, ``RBO``, ``RBO_ties`` (topic means), ``overlap``
    (topics whose tie ranges overlap), ``topics``, ``RMSE_beyond_ties``, ``tie_share``; or
    (replicability) ``p_unpaired``.
    ``effects``: one dict per (advanced pair, measure, regime): ``baseline``, ``advanced``,
    ``ER``, ``DeltaRI``. ``per_topic``: one dict per (pair, topic, measure): the trec_eval value
    and tie range of each run, ``overlap``, ``gap``; and ``KTU``/``RBO`` per (pair, topic).
    """

    rows: list[dict] = field(default_factory=list)
    effects: list[dict] = field(default_factory=list)
    per_topic: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _doc_order(o: Run, r: Run, p: float, depth: int):
    """Per-topic KTU, KTU_ties, RBO, RBO_ties over the topics both runs have."""
    ro, rr = rankings(o), rankings(r)
    out = {}
    for q in ro:
        if q not in rr:
            continue
        (od, og), (rd, rg) = ro[q], rr[q]
        od, og, rd, rg = od[:depth], og[:depth], rd[:depth], rg[:depth]
        out[q] = (ktu(od, rd, depth), ktu_ties(od, og, rd, rg, depth),
                  rbo_at(rd, od, p, depth), rbo_at(rd, od, p, depth, rg, og))
    return out


def reproduction(qrels: Qrels, originals: list[Run], reproduced: list[Run],
                 measures=None, regimes=("trec_eval",), *, rep_qrels: Qrels | None = None,
                 baseline: str | None = None, p: float = 0.95, depth: int = 1000,
                 average: str = "qrels") -> ReproResult:
    """Compare original runs with their reproductions (see the module docstring).

    Parameters
    ----------
    qrels : Qrels
        Judgments of the original runs (and of the reproduced ones unless ``rep_qrels``).
    originals, reproduced : list of Run
        Paired by :func:`pair_runs`.
    measures : list of str, optional
        Measure names (default ``AP, nDCG@10, P@10``).
    regimes : sequence of str
        Regimes the scores are computed in (those of :data:`RANGE` are always computed too).
    rep_qrels : Qrels, optional
        Another collection's judgments for the reproduced runs: replicability.
    baseline : str, optional
        Name of the original run that is the baseline of ER and DeltaRI (every other pair is an
        advanced run against it); default none (no ER/DeltaRI) unless there are exactly two
        pairs, then the first.
    p, depth : RBO persistence and depth (also the KTU depth).
    average : {"qrels", "run-topics"}
        As :class:`tiebreak.evaluation.Evaluator`.

    Returns :class:`ReproResult`. Raises ValueError (pairing, unknown baseline, bad options) and
    the evaluator's errors.
    """
    pairs = pair_runs(originals, reproduced)
    measures = list(measures) if measures else ["AP", "nDCG@10", "P@10"]
    regs = list(dict.fromkeys([*regimes, *RANGE]))
    ev = Evaluator(qrels, measures, regs, average=average)
    eo = ev.evaluate(list(originals))
    er = (Evaluator(rep_qrels, measures, regs, average=average) if rep_qrels is not None
          else ev).evaluate(list(reproduced))
    out = ReproResult()
    rpd = rep_qrels is None
    lo, hi = eo.regimes.index(RANGE[0]), eo.regimes.index(RANGE[1])
    # tie ranges [low, high] per run, measure and topic (for a lower-is-better measure such as
    # an RBP residual, realistic is the larger end)
    rng_o = np.stack([np.fmin(eo.per_topic[:, :, lo], eo.per_topic[:, :, hi]),
                      np.fmax(eo.per_topic[:, :, lo], eo.per_topic[:, :, hi])], axis=2)
    rng_r = np.stack([np.fmin(er.per_topic[:, :, lo], er.per_topic[:, :, hi]),
                      np.fmax(er.per_topic[:, :, lo], er.per_topic[:, :, hi])], axis=2)
    for i, j in pairs:
        o, r = originals[i], reproduced[j]
        order = _doc_order(o, r, p, depth) if rpd else {}
        for q, (k1, k2, b1, b2) in order.items():
            out.per_topic.append({"original": o.name, "reproduced": r.name, "qid": q,
                                  "measure": "-", "KTU": k1, "KTU_ties": k2, "RBO": b1,
                                  "RBO_ties": b2})
        dm = {k: float(np.nanmean([v[n] for v in order.values()])) if order else math.nan
              for n, k in enumerate(("KTU", "KTU_ties", "RBO", "RBO_ties"))}
        for m, mname in enumerate(eo.measures):
            ov = eo.per_topic[i, m]
            rv = er.per_topic[j, m]
            if rpd:
                ok = ~(np.isnan(ov[0]) | np.isnan(rv[0]))
                (olo, ohi), (rlo, rhi) = rng_o[i, m], rng_r[j, m]
                gap = tie_gap(olo[ok], ohi[ok], rlo[ok], rhi[ok])
                beyond = rmse(gap, np.zeros_like(gap))
                te = eo.regimes.index(regs[0])
                for t, q in zip(np.flatnonzero(ok), np.array(eo.topics)[ok], strict=True):
                    out.per_topic.append({
                        "original": o.name, "reproduced": r.name, "qid": str(q),
                        "measure": mname, "orig": float(ov[te, t]), "orig_low": float(olo[t]),
                        "orig_high": float(ohi[t]), "rep": float(rv[te, t]),
                        "rep_low": float(rlo[t]), "rep_high": float(rhi[t]),
                        "overlap": bool(olo[t] <= rhi[t] and rlo[t] <= ohi[t]),
                        "gap": float(tie_gap(olo[t], ohi[t], rlo[t], rhi[t]))})
            for g in regimes:
                k = eo.regimes.index(g)
                row = {"original": o.name, "reproduced": r.name, "measure": mname, "regime": g,
                       "orig_mean": float(eo.mean[i, m, k]), "rep_mean": float(er.mean[j, m, k])}
                if rpd:
                    a, b = ov[k, ok], rv[k, ok]
                    e = rmse(a, b)
                    row.update({
                        "RMSE": e, "nRMSE": nrmse(a, b),
                        "p_paired": paired_t(a, b).pvalue if a.size >= 2 else math.nan,
                        **dm, "overlap": int(np.sum(gap == 0)), "topics": int(ok.sum()),
                        "RMSE_beyond_ties": beyond,
                        "tie_share": (1.0 - beyond / e) if e > 0 else math.nan})
                else:
                    from scipy.stats import ttest_ind

                    a, b = ov[k][~np.isnan(ov[k])], rv[k][~np.isnan(rv[k])]
                    row["p_unpaired"] = float(ttest_ind(a, b).pvalue)
                out.rows.append(row)
    names = [originals[i].name for i, _ in pairs]
    if baseline is None and len(pairs) == 2:
        baseline = names[0]
    if baseline is not None:
        if baseline not in names:
            raise ValueError(f"baseline {baseline!r} is not an original run; runs: "
                             f"{', '.join(names)}")
        bi, bj = pairs[names.index(baseline)]
        for i, j in pairs:
            if i == bi:
                continue
            for m, mname in enumerate(eo.measures):
                for g in regimes:
                    k = eo.regimes.index(g)
                    oa, ob = _valid(eo.per_topic[i, m, k]), _valid(eo.per_topic[bi, m, k])
                    ra, rb = _valid(er.per_topic[j, m, k]), _valid(er.per_topic[bj, m, k])
                    out.effects.append({
                        "baseline": baseline, "advanced": originals[i].name, "measure": mname,
                        "regime": g, "ER": effect_ratio(oa, ob, ra, rb),
                        "DeltaRI": delta_ri(oa, ob, ra, rb)})
    return out


def _valid(v: np.ndarray) -> np.ndarray:
    """Per-topic values without the NaN of topics left out under ``average="run-topics"``."""
    return v[~np.isnan(v)]


def plot(res: ReproResult, path, measure: str | None = None) -> None:
    """Per-topic differences (reproduced - original, trec_eval order) of every pair for one
    measure (default: the first), with both tie ranges drawn as the span of possible
    differences [rep_low - orig_high, rep_high - orig_low]. Needs matplotlib."""
    from . import pyplot

    plt = pyplot()
    rows = [r for r in res.per_topic if r["measure"] != "-"]
    if measure is None and rows:
        measure = rows[0]["measure"]
    rows = [r for r in rows if r["measure"] == measure]
    pairs = list(dict.fromkeys((r["original"], r["reproduced"]) for r in rows))
    fig, axes = plt.subplots(len(pairs) or 1, 1, figsize=(10, 3 * max(len(pairs), 1)),
                             squeeze=False)
    for ax, pr in zip(axes[:, 0], pairs, strict=False):
        rr = sorted((r for r in rows if (r["original"], r["reproduced"]) == pr),
                    key=lambda r: r["rep"] - r["orig"])
        x = np.arange(len(rr))
        d = np.array([r["rep"] - r["orig"] for r in rr])
        lo = np.array([r["rep_low"] - r["orig_high"] for r in rr])
        hi = np.array([r["rep_high"] - r["orig_low"] for r in rr])
        ax.vlines(x, lo, hi, color="0.6", lw=3, label="range over both runs' tie orders")
        col = ["tab:blue" if r["overlap"] else "tab:red" for r in rr]
        ax.scatter(x, d, c=col, s=12, zorder=3, label="trec_eval order")
        ax.axhline(0, color="k", lw=0.5)
        ax.set_title(f"{pr[1]} - {pr[0]}: {measure} per topic (red: tie ranges disjoint)")
        ax.set_xlabel("topics, sorted by difference")
        ax.set_ylabel(f"delta {measure}")
        ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
