"""Reproduction items of Yang, Moffat & Turpin (2016): Tables 1-3, Figs. 1-4 and the three
figures of the draft of its Section 4.

F. Yang, A. Moffat and A. Turpin, "How precise does document scoring need to be?", Proc. AIRS
2016, LNCS 9994, pp. 279-291.

The paper's runs are the 103 TREC-7 ad hoc submissions (80 kept for Sections 3-4), which the
shared data does not hold. The substitute is the 17 TREC 2003 Robust track runs (100 topics, half
of them from TREC-6 to TREC-8, the same newswire documents): the paper's TREC-7 cells are
``not-reproducible-here`` (ours shown beside them, never compared) and the paper's claims,
quoted, are tested on the substitute (``substitute-holds`` / ``substitute-differs``) by the
predicates defined here and in :mod:`.claims`. The draft of Sect. 4 has three figures:
fig-score-variation, fig-rho-p-value and fig-pair-variation (an empty frame).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import Cell, Context, Item, check, claims, compare_number, missing, register

PAPER = "Yang, Moffat & Turpin (AIRS 2016)"
TREC7 = "the 103 TREC-7 ad hoc runs are not in the shared data"
SUBST = "substitute data: 17 TREC 2003 Robust runs, 100 topics"
RHOS = ("1.0", "1.1", "1.2", "1.4", "1.5", "1.6", "1.7", "2.0")
METRICS = ("RR", "RBP(p=0.5)", "RBP(p=0.85)", "AP")


def _robust(ctx: Context) -> tuple[str, list[str]]:
    base = ctx.need("robust03_trectools")
    qrels = str(base / "qrels" / "robust03_qrels.txt.gz")
    runs = sorted(str(p) for p in (base / "runs").iterdir() if p.name.startswith("input."))
    return qrels, runs


@lru_cache(maxsize=2)
def _band_study(data: str):
    from ...io import read_qrels
    from ..study_bands import run_study

    ctx = Context(Path(data))
    q, runs = _robust(ctx)
    # the paper cuts the bands from its re-sorted runs: score descending, then rank ascending
    return run_study(read_qrels(q), runs, rhos=RHOS, metrics=METRICS, order="score-rank")




# ------------------------------------------------------------------------------------- Fig. 1


def _fig1(ctx: Context) -> list[Cell]:
    from importlib.resources import files

    from ...evaluation import evaluate
    from ...io import read_qrels, read_run

    base = files("tiebreak") / "data"
    q = read_qrels(str(base / "ymt2016.qrels"))
    r = read_run(str(base / "ymt2016.run"))
    res = evaluate(q, [r], ["P@5", "RR", "RBP(p=0.5)"], ["file", "lower", "upper", "expected"])

    def v(measure, regime):
        return float(res.value(r.name, measure, regime, "1"))

    # Sect. 2's expression for expected RBP0.5: the average gain of each tied group at each of
    # its ranks, groups {D}, {H,A,C}, {M,S}, {W}, {B,E,J} with gains 0, 2/3, 1/2, 1, 1/3
    gains = [Fraction(0)] + [Fraction(2, 3)] * 3 + [Fraction(1, 2)] * 2 + [Fraction(1)] \
        + [Fraction(1, 3)] * 3
    rbp = float(sum(Fraction(1, 2) ** k * g for k, g in enumerate(gains, 1)))
    note_rbp = "the paper prints the expression, evaluated here to 4 decimals"
    return [
        compare_number("P@5, file order", "0.4", v("P@5", "file")),
        compare_number("P@5, M and S swapped (upper bound)", "0.6", v("P@5", "upper")),
        compare_number("RR, file order (= lower bound)", "0.333", v("RR", "lower")),
        compare_number("RR, best order of H, A, C (upper bound)", "0.5", v("RR", "upper")),
        compare_number("expected RBP0.5", f"{rbp:.4f}", v("RBP(p=0.5)", "expected"),
                       note=note_rbp),
    ]


register(Item(
    id="ymt2016:fig1", title="Example run with five equi-score groups (and Sect. 2's values)",
    where="Sect. 2, Fig. 1 and the text around it",
    command="tiebreak eval $(tiebreak example) -m P@5 -m RR -m 'RBP(p=0.5)' --regime all -q",
    compute=_fig1, quick=True, kind="figure"))


# ------------------------------------------------------------------------------------ Table 1

#: Table 1 as printed: property -> (systems %, system-topics %, documents %)
TABLE1 = {"tied scores": ("95.2", "91.0", "14.0"),
          "rank/score contradictions": ("6.8", "4.2", "1.4")}
CLAIM_T1 = ("'We carried out the same analysis on several other TREC rounds, and found similar "
            "rates of tied scores in general (Table 1)' (Sect. 3, Ties in Other Years)")


def similar_rate(paper_pct: float, interval: tuple[float, float]) -> bool:
    """Table 1's claim of other years: the paper's TREC-7 rate (percent) lies inside the
    substitute's 95 % sampling interval (fractions)."""
    return claims.inside(paper_pct / 100.0, interval)


def _table1(ctx: Context) -> list[Cell]:
    from ...io import read_qrels
    from ..ties import runs_stats, yang_table

    q, runs = _robust(ctx)
    per_run, per_topic = runs_stats(runs, read_qrels(q))
    t = yang_table(per_run, per_topic).set_index("property")
    cells = []
    cols = ("systems_%", "system_topics_%", "documents_%")
    for prop, vals in TABLE1.items():
        for col, pv in zip(cols, vals):
            cells.append(missing(f"TREC-7: {prop}, {col}", pv, f"{TREC7}; ours: {SUBST}",
                                 float(t.loc[prop, col])))
    # "similar rates": TREC-7's rate inside the substitute's 95 % sampling interval
    n_sys = len(per_run)
    k_sys = int((per_run["tied_docs"] > 0).sum())
    g = per_topic.groupby("run", sort=False)
    tied_lists = g["tied_docs"].apply(lambda c: int((c > 0).sum())).to_numpy(float)
    lists = g.size().to_numpy(float)
    iv = {"systems_%": (claims.wilson(k_sys, n_sys), f"Wilson interval of {k_sys}/{n_sys}"),
          "system_topics_%": (claims.boot_ratio(tied_lists, lists),
                              "bootstrap over the 17 runs"),
          "documents_%": (claims.boot_ratio(g["tied_docs"].sum().to_numpy(float),
                                            g["docs"].sum().to_numpy(float)),
                          "bootstrap over the 17 runs")}
    for col, pv in zip(cols, TABLE1["tied scores"]):
        (lo, hi), how = iv[col]
        cells.append(check(f"substitute: tied scores, {col} (95 % interval)", pv,
                           f"{float(t.loc['tied scores', col]):.1f} [{100 * lo:.1f}, "
                           f"{100 * hi:.1f}]", similar_rate(float(pv), (lo, hi)), CLAIM_T1,
                           SUBST, f"'similar' read as TREC-7's rate inside the substitute's "
                           f"95 % sampling interval ({how})"))
    return cells


register(Item(
    id="ymt2016:table1", title="Ties and rank/score contradictions in TREC runs",
    where="Sect. 3, Table 1",
    command="tiebreak ties ../shared/data/robust03_trectools/runs/ --qrels "
            "../shared/data/robust03_trectools/qrels/robust03_qrels.txt.gz",
    compute=_table1, data=("robust03_trectools",)))


# ------------------------------------------------------------------------------------ Table 2

TABLE2 = {  # rho: (RR, RBP0.5, RBP0.85) as printed
    "1.1": ("0.0038", "0.0002", "0.0087"),
    "1.2": ("0.0119", "0.0052", "0.0231"),
    "1.4": ("0.0417", "0.0429", "0.0482"),
    "1.7": ("0.0833", "0.0945", "0.0777"),
    "2.0": ("0.0833", "0.1016", "0.0971"),
}


def _table2(ctx: Context) -> list[Cell]:
    from ...ranking.bands import bounds_table

    t = bounds_table(list(TABLE2), ["RR", "RBP(p=0.5)", "RBP(p=0.85)"], depth=1000)
    cells = []
    for i, (rho, row) in enumerate(TABLE2.items()):
        for j, (m, pv) in enumerate(zip(t.metrics, row)):
            cells.append(compare_number(f"rho={rho} {m}", pv, float(t.values[i, j])))
    return cells


register(Item(
    id="ymt2016:table2", title="Worst-case score differences of geometric banding",
    where="Sect. 4, Table 2", command="tiebreak bounds", compute=_table2, quick=True))


# --------------------------------------------------------------------------------------- Fig. 2


CLAIM_F2_MOST = ("'for most evaluations the ties that do exist do not result in any appreciable "
                 "score range, with optimal-to-pessimal ranges less than 10^-4 when averaged "
                 "across topics' (Sect. 3, text of Fig. 2)")
CLAIM_F2_WIDE = ("'for some systems the optimal-to-pessimal spread is wide' (Sect. 3, text of "
                 "Fig. 2; 'instances of systems with wide potential score ranges' in other years)")


def most_ranges_small(ranges: Sequence[float], bound: float = 1e-4) -> bool:
    """Fig. 2: more than half of the systems' mean AP ranges are below ``bound``."""
    return float(np.mean(np.asarray(ranges) < bound)) > 0.5


def some_range_wide(ranges: Sequence[float], wide: float = 1e-2) -> bool:
    """Fig. 2: some system's mean AP range is at least ``wide`` (100 x the paper's 'no
    appreciable range' line of 1e-4)."""
    return float(np.max(ranges)) >= wide


def _fig2(ctx: Context) -> list[Cell]:
    from ...evaluation import evaluate
    from ...io import read_qrels

    q, runs = _robust(ctx)
    res = evaluate(read_qrels(q), runs, ["AP"], ["trec_eval", "lower", "upper", "expected"])
    lo = np.array([res.value(n, "AP", "lower") for n in res.runs], dtype=float)
    hi = np.array([res.value(n, "AP", "upper") for n in res.runs], dtype=float)
    rng = hi - lo
    small = float(np.mean(rng < 1e-4))
    return [
        missing("TREC-7 (80 runs): every system's AP range", "", TREC7),
        check("substitute: share of systems with mean AP range < 1e-4", "most", small,
              most_ranges_small(rng), CLAIM_F2_MOST, SUBST, "'most' read as more than half"),
        check("substitute: widest mean AP range", "wide", float(rng.max()),
              some_range_wide(rng), CLAIM_F2_WIDE, SUBST,
              "'wide' read as >= 1e-2, 100 x the paper's 'no appreciable range' line 1e-4"),
    ]


register(Item(
    id="ymt2016:fig2", title="Imprecision in AP scores caused by ties",
    where="Sect. 3, Fig. 2",
    command="tiebreak eval ../shared/data/robust03_trectools/qrels/robust03_qrels.txt.gz "
            "../shared/data/robust03_trectools/runs/ -m AP --regime trec_eval,lower,upper,"
            "expected",
    description="The paper plots, per system, the pessimistic-to-optimistic AP range against "
                "the trec_eval MAP, with a log vertical axis truncated at 1e-6.",
    compute=_fig2, kind="figure", data=("robust03_trectools",)))


# ------------------------------------------------------------------------ Fig. 3 and Table 3

FIG3_MEANS = {"RR": "0.6939", "RBP(p=0.5)": "0.5556", "RBP(p=0.85)": "0.4677", "AP": "0.2311"}


CLAIM_F3_RR = ("'Most RR values are unaffected (both quartiles are zero, for all of the rho "
               "values tested)' (Sect. 4, text of Fig. 3)")
CLAIM_F3_RBP = ("'The shallow metric RBP0.5 suffers the most from the score grouping process; "
                "even so, it is only when rho > 1.5 ... that the differences are large' (Sect. 4)")
CLAIM_F3_BAL = ("'there are nearly as many system-topic combinations that gain from the "
                "approximation process as there are that lose from it' (Sect. 4, text of Fig. 3)")
#: "nearly as many": the larger share at most this multiple of the smaller (the paper gives no
#: number; ours)
NEARLY = 1.5


def rr_quartiles_zero(diffs_by_rho: Sequence[np.ndarray]) -> bool:
    """Fig. 3: the 25th and 75th percentiles of RR's original - banded are 0 at every rho."""
    return all(np.all(np.percentile(d, [25, 75]) == 0) for d in diffs_by_rho)


def first_group_single(rhos: Sequence[str]) -> bool:
    """'When rho <= 2 the first group always contains a single document': the second band of
    the geometric banding starts at rank 2 (b_2 = ceil(rho * 1) = 2 for 1 < rho <= 2)."""
    from ...ranking.bands import band_starts

    return all(int(band_starts(r, 3)[1]) == 2 for r in rhos if 1 < float(r) <= 2)


def _mad(st, rho: str) -> dict[str, float]:
    k = st.rhos.index(rho)
    d = st.original - st.banded[k]
    return {m: float(np.abs(d[:, j, :]).mean()) for j, m in enumerate(st.metrics)}


def _fig3(ctx: Context) -> list[Cell]:
    st = _band_study(str(ctx.need()))
    d = st.original[None] - st.banded  # the paper's direction: original - banded
    cells = []
    for j, m in enumerate(st.metrics):
        cells.append(missing(f"TREC-7 mean original {m}", FIG3_MEANS[m],
                             f"{TREC7}; ours is the substitute's mean",
                             float(st.original[:, j, :].mean())))
    j_rr = st.metrics.index("RR")
    rr = [d[k, :, j_rr, :].ravel() for k in range(1, len(st.rhos))]
    q = np.percentile(np.stack(rr), [25, 75], axis=1)
    cells.append(check("RR quartiles at every rho > 1", "0, 0",
                       f"max |quartile| {np.abs(q).max():.4g}", rr_quartiles_zero(rr),
                       CLAIM_F3_RR, SUBST))
    mad = _mad(st, "1.7")
    cells.append(check("metric with the largest mean |original - banded| at rho=1.7",
                       "RBP0.5", ", ".join(f"{m} {v:.4f}" for m, v in mad.items()),
                       claims.is_max(mad, "RBP(p=0.5)"), CLAIM_F3_RBP, SUBST))
    x = d[st.rhos.index("1.4")].ravel()
    gain, lose = float(np.mean(x < 0)), float(np.mean(x > 0))
    cells.append(check("share of system-topic-metrics that gain / lose at rho=1.4",
                       "nearly as many", f"{gain:.3f} / {lose:.3f}",
                       claims.balanced(gain, lose, NEARLY), CLAIM_F3_BAL, SUBST,
                       f"'nearly as many' read as within a factor {NEARLY} (ours)"))
    cells.append(Cell("the first band is one document for every rho <= 2", "single document",
                      str(first_group_single(st.rhos)), "by-definition",
                      "b_2 = ceil(rho) = 2 for 1 < rho <= 2: a property of the banding, "
                      "not a finding"))
    return cells


def _fig3_draw(ctx: Context, path: Path) -> None:
    from .. import pyplot

    st = _band_study(str(ctx.need()))
    d = st.original[None] - st.banded
    plt = pyplot()
    fig, axes = plt.subplots(1, len(st.metrics), figsize=(3.2 * len(st.metrics), 3.6))
    for j, (ax, m) in enumerate(zip(axes, st.metrics)):
        ax.boxplot([d[k, :, j, :].ravel() for k in range(len(st.rhos))], showfliers=True,
                   flierprops={"markersize": 2, "alpha": 0.3})
        ax.set_xticks(range(1, len(st.rhos) + 1), st.rhos)
        ax.axhline(0, color="grey", lw=0.6)
        ax.set_title(m)
        ax.set_xlabel("rho")
    axes[0].set_ylabel("original - banded (expected)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


register(Item(
    id="ymt2016:fig3", title="Score change from banding, per metric and rho",
    where="Sect. 4, Fig. 3",
    command="tiebreak study bands --order score-rank ../shared/data/robust03_trectools/"
            "qrels/robust03_qrels.txt.gz ../shared/data/robust03_trectools/runs/",
    description="The paper draws box plots of original minus banded (expected over the "
                "permutations of each band) per system-topic for rho 1.1-2.0 and RR, RBP0.5, "
                "RBP0.85, AP on 80 TREC-7 runs x 50 topics; ours has the same axes and "
                "direction on the substitute.",
    compute=_fig3, figure=_fig3_draw, kind="figure", data=("robust03_trectools",)))

TABLE3 = {  # rho: counts at 99 % (RR, RBP0.5, RBP0.85, AP) then at 97 %
    "1.1": ("80 80 80 80", "80 80 80 80"),
    "1.2": ("80 80 80 80", "80 80 80 80"),
    "1.4": ("77 44 65 44", "80 80 80 80"),
    "1.7": ("37 11 14 0", "80 67 80 77"),
    "2.0": ("38 10 3 0", "80 61 71 20"),
}


CLAIM_T3_FALL = ("'The relationship between rho and score fidelity is reflected by the "
                 "decreasing numbers down each column of the table' (Sect. 4, text of Table 3)")
CLAIM_T3_95 = ("'When the tolerable degradation limit was further reduced to 95%, all 16 entries "
               "for metric and rho were 80' (Sect. 4)")


def columns_fall(columns: Sequence[Sequence[int]], slack: int = 1) -> bool:
    """Table 3: every column's counts fall as rho grows, up by at most ``slack`` systems (the
    paper's own RR column at 99 % rises from 37 to 38)."""
    return all(claims.decreasing(c, slack=slack) for c in columns)


def _table3(ctx: Context) -> list[Cell]:
    from ..study_bands import table3

    st = _band_study(str(ctx.need()))
    t = table3(st, ratios=(0.99, 0.97, 0.95))
    n = len(st.systems)
    cells = []
    for rho, (a, b) in TABLE3.items():
        for ratio, row in (("99%", a), ("97%", b)):
            for m, pv in zip(METRICS, row.split()):
                ours = int(t[(t.metric == m) & (t.rho == rho)][f">={ratio}"].iloc[0])
                cells.append(missing(f"rho={rho} {ratio} {m}", f"{pv}/80",
                                     f"{TREC7}; ours: {SUBST}", f"{ours}/{n}"))
    cols = [t[(t.metric == m) & t.rho.isin(list(TABLE3))][f">={r}"].to_numpy()
            for m in METRICS for r in ("99%", "97%")]
    cells.append(check("counts fall as rho grows (every metric, 99 % and 97 %)",
                       "decreasing", "; ".join(" ".join(map(str, c)) for c in cols),
                       columns_fall(cols), CLAIM_T3_FALL, SUBST,
                       "a rise of one system allowed, as in the paper's own RR column"))
    all95 = int(t[t.rho.isin(list(TABLE3))][">=95%"].min())
    cells.append(check("fewest systems at 95 % over all metrics and rho", "80/80",
                       f"{all95}/{n}", all95 == n, CLAIM_T3_95, SUBST))
    return cells


register(Item(
    id="ymt2016:table3", title="Systems whose banded score is >= 99 % / 97 % of the original",
    where="Sect. 4, Table 3",
    command="tiebreak study bands --order score-rank --ratio 0.99,0.97,0.95 "
            "../shared/data/robust03_trectools/qrels/robust03_qrels.txt.gz "
            "../shared/data/robust03_trectools/runs/",
    compute=_table3, data=("robust03_trectools",)))


# --------------------------------------------------------------------------------------- Fig. 4


CLAIM_F4 = ("'score grouping has almost no effect at all on the ability to distinguish between "
            "systems ... only a small fraction of false positives and negatives' (Sect. 4, text "
            "of Fig. 4)")


def discrimination_kept(change_points: float, flips_points: float, n_pairs: int) -> bool:
    """Fig. 4 on ``n_pairs`` system pairs: the discrimination ratio moves by, and the
    significance flips (false positives + negatives) cover, at most two pairs' worth of
    percentage points each (the paper: 0.1 and 0.3 points of 3,160 pairs; the substitute's
    resolution is one pair = 100 / n_pairs points)."""
    tol = 2 * 100.0 / n_pairs
    return change_points <= tol + 1e-9 and flips_points <= tol + 1e-9


def _fig4(ctx: Context) -> list[Cell]:
    from ..study_bands import fig4_pvalues, fig4_quadrants

    st = _band_study(str(ctx.need()))
    t = fig4_quadrants(fig4_pvalues(st, "1.4")).set_index("metric")
    ap = t.loc["AP"]
    n = len(st.systems)
    pairs = n * (n - 1) // 2
    cells = [
        missing("TREC-7 AP discrimination at rho=1.0", "62.2 %", f"{TREC7}; ours: {SUBST}",
                float(ap.disc_before)),
        missing("TREC-7 AP discrimination at rho=1.4", "62.1 %", f"{TREC7}; ours: {SUBST}",
                float(ap.disc_after)),
        missing("TREC-7 AP false positives at rho=1.4", "0.1 %", f"{TREC7}; ours: {SUBST}",
                float(ap.false_pos)),
        missing("TREC-7 AP false negatives at rho=1.4", "0.2 %", f"{TREC7}; ours: {SUBST}",
                float(ap.false_neg)),
    ]
    change = float((t.disc_after - t.disc_before).abs().max())
    flips = float((t.false_pos + t.false_neg).max())
    cells.append(check("largest change of discrimination / largest flips, over the 4 metrics "
                       "(points)", "0.1 / 0.3 (AP)", f"{change:.3f} / {flips:.3f}",
                       discrimination_kept(change, flips, pairs), CLAIM_F4, SUBST,
                       f"two pairs' worth of the {pairs} pairs ({200.0 / pairs:.2f} points)"))
    return cells


register(Item(
    id="ymt2016:fig4", title="p values of all system pairs, original against banded (rho=1.4)",
    where="Sect. 4, Fig. 4",
    command="tiebreak study bands --order score-rank ../shared/data/robust03_trectools/"
            "qrels/robust03_qrels.txt.gz ../shared/data/robust03_trectools/runs/ --fig4-rho 1.4",
    description="The paper plots, for each metric, the paired t-test p value of every system "
                "pair on the original scores (x) against the banded scores (y), with the "
                "quadrant shares at p = 0.05.",
    compute=_fig4, kind="figure", data=("robust03_trectools",)))


# -------------------------------------------------------- the draft's figures (Sect. 4)

DRAFT = "LaTeX draft of Sect. 4"
CLAIM_SV_SHALLOW = ("'The two shallow metrics (RR and RBP0.5) are more affected than the two "
                    "deep-evaluation metrics (RBP0.85 and AP)' (draft, text of "
                    "fig-score-variation)")
CLAIM_SV_BAL = ("'there are nearly as many rankings that gain from the approximation process as "
                "there are that lose from it' (draft, text of fig-score-variation)")
CLAIM_SV_JUMP = ("'note that difference in the RBP0.5 as rho shifts from 1.5 to 1.6, and the "
                 "second group expands from containing one document to two documents' (draft)")


def shallow_more_affected(mad: Mapping[str, float]) -> bool:
    """The draft: each shallow metric (RR, RBP0.5) moves more (mean |original - banded|) than
    each deep one (RBP0.85, AP)."""
    return min(mad["RR"], mad["RBP(p=0.5)"]) > max(mad["RBP(p=0.85)"], mad["AP"])


def largest_step_at(values: Sequence[float], rhos: Sequence[str], at: str) -> bool:
    """The draft: RBP0.5's mean |original - banded| grows most (per 0.1 of rho) on the step
    that ends at rho = ``at``."""
    r = np.asarray([float(x) for x in rhos])
    steps = np.diff(np.asarray(values, dtype=float)) / (np.diff(r) / 0.1)
    return int(np.argmax(steps)) == list(rhos).index(at) - 1


def _fig_score_variation(ctx: Context) -> list[Cell]:
    st = _band_study(str(ctx.need()))
    rhos = [r for r in st.rhos if r != "1.0"]
    mad = {m: float(np.mean([_mad(st, r)[m] for r in rhos])) for m in st.metrics}
    d = (st.original[None] - st.banded)[1:]
    gain, lose = float(np.mean(d < 0)), float(np.mean(d > 0))
    rbp = [_mad(st, r)["RBP(p=0.5)"] for r in st.rhos]
    return [
        missing("the draft's 98 TREC-7 runs x 50 topics, 11 values of rho", "", TREC7),
        check("mean |original - banded| over rho > 1, per metric", "RR, RBP0.5 > RBP0.85, AP",
              ", ".join(f"{m} {v:.4f}" for m, v in mad.items()), shallow_more_affected(mad),
              CLAIM_SV_SHALLOW, SUBST),
        check("share of rankings that gain / lose, every rho > 1 and metric", "nearly as many",
              f"{gain:.3f} / {lose:.3f}", claims.balanced(gain, lose, NEARLY), CLAIM_SV_BAL,
              SUBST, f"'nearly as many' read as within a factor {NEARLY} (ours)"),
        check("RBP0.5 mean |original - banded| by rho", "largest step 1.5 -> 1.6",
              ", ".join(f"{r}: {v:.4f}" for r, v in zip(st.rhos, rbp)),
              largest_step_at(rbp, st.rhos, "1.6"), CLAIM_SV_JUMP, SUBST,
              "steps compared per 0.1 of rho"),
    ]


register(Item(
    id="ymt2016:fig-score-variation",
    title="Draft of Sect. 4: score variation from banding, per metric and rho",
    where=f"{DRAFT}, figure fig-score-variation and the text after it",
    command="tiebreak study bands --order score-rank ../shared/data/robust03_trectools/"
            "qrels/robust03_qrels.txt.gz ../shared/data/robust03_trectools/runs/",
    description="The draft's earlier form of Fig. 3: box plots of original minus banded per "
                "system-topic for eleven values of rho on 98 TREC-7 runs; ours on the "
                "substitute, at the eight values of rho computed here.",
    compute=_fig_score_variation, figure=_fig3_draw, kind="figure", data=("robust03_trectools",)))


def _fig_rho_p_value(ctx: Context) -> list[Cell]:
    from ...stats import paired_pvalues_rows

    st = _band_study(str(ctx.need()))
    k = st.rhos.index("1.7")
    cells = []
    for j, m in enumerate(st.metrics):
        p = paired_pvalues_rows(st.original[:, j, :] - st.banded[k, :, j, :], "t")
        cells.append(missing(f"median two-tailed p, original vs banded, rho=1.7, {m}", "",
                             f"{TREC7} (the draft's 98 runs); the draft states no result of "
                             "this figure ('As can be seen, more...'); ours: " + SUBST,
                             float(np.nanmedian(np.where(np.isnan(p), 1.0, p)))))
    return cells


register(Item(
    id="ymt2016:fig-rho-p-value",
    title="Draft of Sect. 4: p values of original against grouped runs",
    where=f"{DRAFT}, figure fig-rho-p-value",
    command="tiebreak study bands --order score-rank ../shared/data/robust03_trectools/"
            "qrels/robust03_qrels.txt.gz ../shared/data/robust03_trectools/runs/",
    description="The draft plots, per metric and rho, the two-tailed paired t-test p value of "
                "each original run against its grouped run over 50 topics.",
    compute=_fig_rho_p_value, kind="figure", data=("robust03_trectools",)))


register(Item(
    id="ymt2016:fig-pair-variation",
    title="Draft of Sect. 4: p values across system pairs (a placeholder)",
    where=f"{DRAFT}, figure fig-pair-variation",
    command="(none: the draft's figure is an empty frame)",
    compute=lambda ctx: [Cell("figure", "", None, "descriptive",
                              "a placeholder in the draft: a vertical rule and the authors' "
                              "notes on what to plot; no data, no number, no claim (the paper "
                              "drew Fig. 4 instead: ymt2016:fig4)")],
    quick=True, kind="figure"))
