"""``tiebreak study ties``: how much do ties move scores? (YMT 2016 Fig. 2, Cabanac et al. 2010
Tables 2-5).

Every run is evaluated once for AP and RR (plus any ``--metric``) under the regimes
``trec_eval`` (Cabanac's *conventional* order), ``realistic``, ``optimistic``, ``lower``,
``upper`` and ``expected``; unjudged documents count as non-relevant and a topic the run lacks
scores 0.

Outputs (in ``--out``):

* Fig. 2 (``fig2_ranges.png`` / ``.svg``): left, per system (by trec_eval MAP) the MAP interval
  [lower, upper] with the trec_eval and expected MAP marked; right, trec_eval MAP (x) against
  the mean per-topic AP range ``upper - lower`` (y, log axis; zero ranges are drawn at a floor
  stated in the legend), expected MAP as hollow markers at the same height. Colour = documents in
  tied groups. Top ``--top`` systems whose MAP intervals overlap are flagged.
* ``result_lists.tsv`` (Cabanac Tables 2-3): the ``--top`` (run, topic) result lists with the
  largest gain per metric and regime pair (realistic -> trec_eval, realistic -> optimistic,
  trec_eval -> optimistic), with the delta and percent (inf when the lower value is 0).
* ``system_gains.tsv`` (Tables 4-5): the ``--top`` systems with the largest gain in the mean
  (MAP, MRR, ...) per metric and regime pair, with the one-tailed paired t p-value of the gain.
* ``summary.tsv``: per metric and regime pair (A, B): systems with a one-tailed paired t-test
  ``B > A`` (and ``A > B``) at ``p < alpha``; Pearson r of the system means; Kendall tau and
  tau_AP (reference = A) of the system orderings; percent of system pairs whose two-sided paired
  t significance flips between A and B; percent of systems whose rank changes.
* ``overlaps.tsv``: the top ``--top`` systems by trec_eval MAP, their MAP intervals and which of
  the others' intervals they overlap.

Cabanac et al.'s own definitions, one option away (the defaults above are kept):

* ``--rr-order delta-rc`` writes ``table2_delta_rc.tsv`` (:func:`rr_delta_rc`): result lists
  ranked by δ_RC = 1/RR_R - 1/RR_C, the rank displacement of the first relevant document between
  the realistic and the conventional (trec_eval) order (Cabanac et al. 2010, Table 2), instead
  of by the RR gain.
* ``--pooled`` writes ``table5_pooled.tsv`` (:func:`pooled_table`): one one-tailed paired
  Student t-test of M_C > M_R over every result list of every system (RR, AP) and over the
  systems' means (MAP), with δ_RC (%) and Pearson's r (Table 5), instead of one test per system.
* ``--gain-order pct`` ranks ``result_lists.tsv`` and ``system_gains.tsv`` by the percent gain
  ``100 (B - A) / A`` (Tables 3-4) instead of the difference ``B - A``.
* ``--drop-worst FRAC`` computes ``summary.tsv`` without the worst FRAC of the systems by
  trec_eval mean of each metric (Cabanac et al. §5.2: "When removing the 25% worst systems,
  there is still 17% of affected systems").

Reference: G. Cabanac, G. Hubert, M. Boughanem and C. Chrisment, "Tie-breaking bias: effect of
an uncontrolled parameter on information retrieval evaluation", CLEF 2010, LNCS 6360,
pp. 112-123.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..evaluation.compute import WARN_TIED
from ..stats import paired_t_rows
from . import pyplot

__all__ = ["TieStudy", "delta_rc", "drop_worst", "fig2", "overlaps", "pooled_table", "pooled_test",
           "result_list_gains", "rr_delta_rc", "run_study", "summary", "system_gains"]

BASE_METRICS = ("AP", "RR")
REGIMES = ("trec_eval", "realistic", "optimistic", "lower", "upper", "expected")
GAIN_PAIRS = (("realistic", "trec_eval"), ("realistic", "optimistic"),
              ("trec_eval", "optimistic"))
SUMMARY_PAIRS = (("realistic", "trec_eval"), ("trec_eval", "optimistic"), ("lower", "upper"),
                 ("trec_eval", "expected"))
TIED_KEY = WARN_TIED


@dataclass
class TieStudy:
    """Scores of every run under the study's regimes.

    Attributes
    ----------
    systems : list[str]
        Run names, shape (n_sys,).
    metrics : list[str]
        Metric names, shape (n_met,); AP and RR first.
    regimes : list[str]
        :data:`REGIMES`, shape (n_reg,).
    topics : list[str]
        Qrels topics, shape (n_top,).
    scores : ndarray (n_sys, n_met, n_reg, n_top)
        Per-topic values.
    tied : ndarray int (n_sys,)
        Documents in tied groups per run (the evaluator's warning count).
    """

    systems: list[str]
    metrics: list[str]
    regimes: list[str]
    topics: list[str]
    scores: np.ndarray
    tied: np.ndarray

    def get(self, metric: str, regime: str) -> np.ndarray:
        """Per-topic scores (n_sys, n_top) of one metric and regime."""
        return self.scores[:, self.metrics.index(metric), self.regimes.index(regime), :]

    def means(self, metric: str, regime: str) -> np.ndarray:
        """Mean over topics (n_sys,)."""
        return self.get(metric, regime).mean(axis=1)


def run_study(qrels, runs, metrics=(), jobs: int = 1, progress: bool = False,
              client=None) -> TieStudy:
    """Evaluate ``runs`` (Run objects or paths) once for AP, RR and ``metrics`` under
    :data:`REGIMES`; ``jobs`` and ``client`` (a Dask client) are passed to
    :meth:`tiebreak.Evaluator.evaluate`."""
    from ..evaluation import Evaluator

    names = list(BASE_METRICS) + [m for m in metrics if m not in BASE_METRICS]
    runs = list(runs)
    if not runs:
        raise ValueError("no runs")
    ev = Evaluator(qrels, names, list(REGIMES))
    from .._native.parallel import cpus

    jobs = jobs if jobs > 0 else cpus()
    from ..evaluation.output import Progress

    with Progress(len(runs), "study ties: evaluating", "runs", enabled=progress) as bar:
        res = ev.evaluate(runs, jobs=jobs, progress=lambda _name: bar.update(1), client=client)
    tied = np.array([int(res.warnings.get(r, {}).get(TIED_KEY, 0) or 0) for r in res.runs],
                    dtype=np.int64)
    return TieStudy(list(res.runs), list(res.measures), list(res.regimes), list(res.topics),
                    np.nan_to_num(res.per_topic), tied)


# ----------------------------------------------------------------------------- analyses


def _pct(frm: np.ndarray, delta: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(frm > 0, 100.0 * delta / np.where(frm > 0, frm, 1.0),
                        np.where(delta > 0, np.inf, 0.0))


def result_list_gains(study: TieStudy, top: int = 10, metrics=BASE_METRICS, pairs=GAIN_PAIRS,
                      rank_by: str = "delta"):
    """Cabanac Tables 2-3: per metric and regime pair (A, B), the ``top`` (run, topic) result
    lists with the largest ``B - A`` (``rank_by="delta"``, the default) or the largest percent
    gain ``100 (B - A) / A`` (``rank_by="pct"``, the order of Cabanac et al.'s Tables 3-4).
    DataFrame: metric, from, to, rank, run, topic, from_value, to_value, delta, pct."""
    import pandas as pd

    rows = []
    for m in metrics:
        for a, b in pairs:
            va, vb = study.get(m, a), study.get(m, b)
            d = vb - va
            key = _pct(va, d) if rank_by == "pct" else d
            flat = np.argsort(-key, axis=None, kind="stable")[:top]
            for k, f in enumerate(flat, 1):
                i, t = np.unravel_index(f, d.shape)
                rows.append({"metric": m, "from": a, "to": b, "rank": k,
                             "run": study.systems[i], "topic": study.topics[t],
                             "from_value": va[i, t], "to_value": vb[i, t], "delta": d[i, t],
                             "pct": float(_pct(va[i, t], d[i, t]))})
    return pd.DataFrame(rows)


def system_gains(study: TieStudy, top: int = 10, metrics=BASE_METRICS, pairs=GAIN_PAIRS,
                 rank_by: str = "delta"):
    """Cabanac Tables 4-5: per metric and regime pair (A, B), the ``top`` systems with the
    largest gain of the mean over topics (``rank_by`` as in :func:`result_list_gains`; "pct" is
    Cabanac et al.'s Table 4 order). DataFrame: metric, from, to, rank, run, from_mean,
    to_mean, delta, pct, p (one-tailed paired t, H1: B > A), tied_docs."""
    import pandas as pd

    rows = []
    for m in metrics:
        for a, b in pairs:
            ma, mb = study.means(m, a), study.means(m, b)
            d = mb - ma
            p = paired_t_rows(study.get(m, b), study.get(m, a))
            key = _pct(ma, d) if rank_by == "pct" else d
            for k, i in enumerate(np.argsort(-key, kind="stable")[:top], 1):
                rows.append({"metric": m, "from": a, "to": b, "rank": k,
                             "run": study.systems[i], "from_mean": ma[i], "to_mean": mb[i],
                             "delta": d[i], "pct": float(_pct(ma[i], d[i])), "p": p[i],
                             "tied_docs": int(study.tied[i])})
    return pd.DataFrame(rows)


def _ranks(x: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return rankdata(-x, method="min").astype(int)


def delta_rc(rr_r, rr_c) -> np.ndarray:
    """Cabanac et al.'s δ_RC = 1/RR_R - 1/RR_C (Table 2): how many ranks the first relevant
    document moves up from the realistic to the conventional order. Arrays of any (equal)
    shape, float64; 0 where RR_R = 0 (no relevant document retrieved, so RR_C = 0 too)."""
    r = np.asarray(rr_r, np.float64)
    c = np.asarray(rr_c, np.float64)
    with np.errstate(divide="ignore"):
        return np.where(r > 0, 1.0 / np.where(r > 0, r, 1.0) - 1.0 / np.where(c > 0, c, 1.0), 0.0)


def rr_delta_rc(study: TieStudy, top: int = 10):
    """Cabanac Table 2: the ``top`` (run, topic) result lists by descending δ_RC (ties: file
    order of runs, then topics). DataFrame: rank, run, topic, RR_R, RR_C, RR_O, 1/RR_R, 1/RR_C,
    1/RR_O (inf where RR is 0), delta_RC."""
    import pandas as pd

    rr = {k: study.get("RR", reg) for k, reg in (("R", "realistic"), ("C", "trec_eval"),
                                                   ("O", "optimistic"))}
    d = delta_rc(rr["R"], rr["C"])
    rows = []
    for k, f in enumerate(np.argsort(-d, axis=None, kind="stable")[:top], 1):
        i, t = np.unravel_index(f, d.shape)
        row = {"rank": k, "run": study.systems[i], "topic": study.topics[t]}
        row.update({f"RR_{x}": float(v[i, t]) for x, v in rr.items()})
        row.update({f"1/RR_{x}": (1.0 / v[i, t] if v[i, t] > 0 else np.inf)
                    for x, v in rr.items()})
        row["delta_RC"] = float(d[i, t])
        rows.append(row)
    return pd.DataFrame(rows)


def pooled_test(m_c, m_r) -> dict:
    """One paired one-tailed Student t-test of ``m_c > m_r`` over all pairs pooled (Cabanac et
    al. Table 5: every result list of every system of a track, or every system's mean for MAP).

    ``m_c``, ``m_r``: arrays of equal shape (flattened). Returns a dict: n, mean_C, mean_R,
    delta_RC_pct = 100 (mean_C - mean_R) / mean_R (the relative difference; the paper's
    "δ_RC (%)" does not say relative to what, this reading is ours), delta_pp = 100 (mean_C -
    mean_R) (percentage points), t, p (one-tailed), pearson_r (NaN when either side is
    constant). ValueError as :func:`tiebreak.stats.paired_t` (e.g. fewer than 2 pairs)."""
    from scipy.stats import pearsonr

    from ..stats import paired_t

    c = np.asarray(m_c, np.float64).ravel()
    r = np.asarray(m_r, np.float64).ravel()
    res = paired_t(c, r, alternative="greater")
    mc, mr = float(c.mean()), float(r.mean())
    const = np.ptp(c) == 0 or np.ptp(r) == 0
    return {"n": int(c.size), "mean_C": mc, "mean_R": mr,
            "delta_RC_pct": 100.0 * (mc - mr) / mr if mr > 0 else np.nan,
            "delta_pp": 100.0 * (mc - mr), "t": float(res.statistic), "p": float(res.pvalue),
            "pearson_r": np.nan if const else float(pearsonr(c, r)[0])}


def pooled_table(study: TieStudy):
    """Cabanac Table 5 on one set of runs: :func:`pooled_test` of trec_eval (C) against
    realistic (R) for RR and AP over every (system, topic) result list, and for MAP over the
    systems' means. DataFrame: measure, level, n, mean_C, mean_R, delta_RC_pct, delta_pp, t, p,
    pearson_r. A topic a run lacks counts as a result list scoring 0 under both orders."""
    import pandas as pd

    rows = []
    for name, m, level in (("RR", "RR", "result lists"), ("AP", "AP", "result lists"),
                           ("MAP", "AP", "systems")):
        c, r = study.get(m, "trec_eval"), study.get(m, "realistic")
        if level == "systems":
            c, r = c.mean(axis=1), r.mean(axis=1)
        rows.append({"measure": name, "level": level, **pooled_test(c, r)})
    return pd.DataFrame(rows)


def drop_worst(study: TieStudy, frac: float, metric: str = "AP",
               regime: str = "trec_eval") -> np.ndarray:
    """Indices (ascending) of the systems kept after dropping the worst ``frac`` (0 <= frac < 1)
    of them by mean ``metric`` under ``regime`` (floor(frac * n) systems dropped; ties among
    equal means: the later run is dropped first). ValueError for frac outside [0, 1)."""
    if not 0.0 <= frac < 1.0:
        raise ValueError(f"drop fraction {frac} not in [0, 1)")
    n = len(study.systems)
    k = int(np.floor(frac * n + 1e-9))
    order = np.argsort(-study.means(metric, regime), kind="stable")
    return np.sort(order[:n - k])


def summary(study: TieStudy, alpha: float = 0.05, metrics=None, pairs=SUMMARY_PAIRS,
            drop: float = 0.0):
    """Per metric and regime pair (A, B). DataFrame: metric, A, B, systems, sig_B>A, sig_A>B
    (systems with one-tailed paired t p < alpha), pearson_r, kendall_tau, tau_ap (reference A),
    sig_flips_pct (system pairs whose two-sided paired t significance differs between A and B,
    percent of all pairs), rank_changes_pct (percent of systems whose rank by mean changes).

    ``drop``: leave out the worst ``drop`` fraction of systems by the metric's trec_eval mean
    first (:func:`drop_worst`; Cabanac et al.'s 25 % variant is ``drop=0.25``)."""
    import pandas as pd
    from scipy.stats import pearsonr

    from ..stats import all_pairs, kendall_tau, tau_ap

    rows = []
    for m in metrics or study.metrics:
        keep = drop_worst(study, drop, m) if drop else np.arange(len(study.systems))
        n = len(keep)
        iu = np.triu_indices(n, 1)
        for a, b in pairs:
            sa, sb = study.get(m, a)[keep], study.get(m, b)[keep]
            ma, mb = sa.mean(axis=1), sb.mean(axis=1)
            row = {"metric": m, "A": a, "B": b, "systems": n,
                   "sig_B>A": int(np.sum(paired_t_rows(sb, sa) < alpha)),
                   "sig_A>B": int(np.sum(paired_t_rows(sa, sb) < alpha))}
            const = n < 2 or np.ptp(ma) == 0 or np.ptp(mb) == 0
            row["pearson_r"] = np.nan if const else float(pearsonr(ma, mb)[0])
            row["kendall_tau"] = kendall_tau(ma, mb) if n >= 2 else np.nan
            row["tau_ap"] = np.nan if const else tau_ap(ma, mb)
            if study.scores.shape[-1] >= 2 and n >= 2:
                pa = all_pairs(sa)[0][iu] < alpha
                pb = all_pairs(sb)[0][iu] < alpha
                row["sig_flips_pct"] = 100.0 * float(np.mean(pa != pb))
            else:
                row["sig_flips_pct"] = np.nan
            row["rank_changes_pct"] = 100.0 * float(np.mean(_ranks(ma) != _ranks(mb)))
            rows.append(row)
    return pd.DataFrame(rows)


def overlaps(study: TieStudy, top: int = 10):
    """The ``top`` systems by trec_eval MAP with their MAP intervals [lower, upper] and the other
    top systems whose intervals overlap. DataFrame: rank, run, map_trec_eval, map_lower,
    map_upper, map_expected, tied_docs, n_overlaps, overlaps_with."""
    import pandas as pd

    conv = study.means("AP", "trec_eval")
    lo, hi = study.means("AP", "lower"), study.means("AP", "upper")
    ex = study.means("AP", "expected")
    best = np.argsort(-conv, kind="stable")[:top]
    rows = []
    for k, i in enumerate(best, 1):
        other = [j for j in best if j != i and lo[i] <= hi[j] and lo[j] <= hi[i]]
        rows.append({"rank": k, "run": study.systems[i], "map_trec_eval": conv[i],
                     "map_lower": lo[i], "map_upper": hi[i], "map_expected": ex[i],
                     "tied_docs": int(study.tied[i]), "n_overlaps": len(other),
                     "overlaps_with": ",".join(study.systems[j] for j in other)})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- figure


def fig2(study: TieStudy, stem: str, top: int = 10) -> tuple[list[str], float | None]:
    """YMT Fig. 2. Writes ``<stem>.png`` / ``.svg``; returns (paths, floor) where floor is the
    y value zero ranges were drawn at (None when no range is zero)."""
    from matplotlib.colors import Normalize

    plt = pyplot()
    conv = study.means("AP", "trec_eval")
    lo, hi = study.means("AP", "lower"), study.means("AP", "upper")
    ex = study.means("AP", "expected")
    rng = (study.get("AP", "upper") - study.get("AP", "lower")).mean(axis=1)
    ov = overlaps(study, top)
    flagged = set(ov.loc[ov["n_overlaps"] > 0, "run"])
    pos = rng[rng > 0]
    floor = None
    if np.any(rng <= 0):
        floor = float(10 ** np.floor(np.log10(pos.min()))) / 10 if pos.size else 1e-6
    y = np.where(rng > 0, rng, floor if floor is not None else 1.0)
    tied = study.tied.astype(float)
    norm = Normalize(vmin=tied.min(), vmax=max(tied.max(), tied.min() + 1))
    cmap = plt.get_cmap("viridis")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    order = np.argsort(-conv, kind="stable")
    xs = np.arange(1, len(order) + 1)
    for x, i in zip(xs, order):
        c = cmap(norm(tied[i]))
        ax1.vlines(x, lo[i], hi[i], color=c, lw=1.5)
        if study.systems[i] in flagged:
            ax1.plot(x, hi[i], marker="v", color="red", ms=4, ls="none")
    ax1.scatter(xs, conv[order], s=10, c="black", label="trec_eval", zorder=3)
    ax1.scatter(xs, ex[order], s=18, marker="x", c="tab:orange", label="expected", zorder=3)
    ax1.set_xlabel("system (by trec_eval MAP)")
    ax1.set_ylabel("MAP [lower, upper]")
    ax1.legend(fontsize=7, loc="upper right",
               title=f"red v: overlaps in top {top}" if flagged else None, title_fontsize=7)
    sc = ax2.scatter(conv, y, c=tied, cmap=cmap, norm=norm, s=16, label="trec_eval MAP")
    ax2.scatter(ex, y, s=22, facecolors="none", edgecolors="tab:orange", lw=0.8,
                label="expected MAP")
    for i, n in enumerate(study.systems):
        if n in flagged:
            ax2.annotate(n, (conv[i], y[i]), fontsize=5, color="red")
    ax2.set_yscale("log")
    if floor is not None:
        ax2.axhline(floor, color="grey", lw=0.6, ls=":")
        ax2.plot([], [], color="grey", ls=":", label=f"zero range drawn at {floor:.0e}")
    ax2.set_xlabel("MAP (trec_eval)")
    ax2.set_ylabel("mean AP range (upper - lower)")
    ax2.legend(fontsize=7, loc="best")
    fig.colorbar(sc, ax=ax2, label="documents in tied groups")
    fig.suptitle(f"How much ties move AP ({len(study.systems)} systems x "
                 f"{len(study.topics)} topics)")
    fig.tight_layout()
    paths = [f"{stem}.png", f"{stem}.svg"]
    try:
        for p in paths:
            fig.savefig(p, dpi=150 if p.endswith(".png") else None, bbox_inches="tight")
    finally:
        plt.close(fig)
    return paths, floor
