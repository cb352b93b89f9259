"""Reproduction items of Yang, Moffat & Turpin (2016): Tables 1-3, Figs. 1-4 and the p-value
figure of the draft of its Section 4.

F. Yang, A. Moffat and A. Turpin, "How precise does document scoring need to be?", Proc. AIRS
2016, LNCS 9994, pp. 279-291.

The paper's runs are the 103 TREC-7 ad hoc submissions (80 kept for Sections 3-4), which the
shared data does not hold. The substitute is the 17 TREC 2003 Robust track runs (100 topics, half
of them from TREC-6 to TREC-8, the same newswire documents): the paper's TREC-7 cells are
``not-reproducible-here`` and the paper's claims about them are checked on the substitute as
shapes (``shape-holds`` or ``differs``, with the numbers).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import Cell, Context, Item, compare_number, register

PAPER = "Yang, Moffat & Turpin (AIRS 2016)"
TREC7 = "the 103 TREC-7 ad hoc runs are not in the shared data"
SUBST = "substitute data: 17 TREC 2003 Robust runs, 100 topics"
RHOS = ("1.0", "1.1", "1.2", "1.4", "1.7", "2.0")
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


def _shape(name: str, ok: bool, ours, claim: str) -> Cell:
    return Cell(name, "", ours, "shape-holds" if ok else "differs",
                f"claim: {claim}; {SUBST}" + ("" if ok else " (the claim does not hold here)"))


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


def _table1(ctx: Context) -> list[Cell]:
    from ...io import read_qrels
    from ..ties import runs_stats, yang_table

    q, runs = _robust(ctx)
    per_run, per_topic = runs_stats(runs, read_qrels(q))
    t = yang_table(per_run, per_topic).set_index("property")
    cells = []
    paper = {"tied scores": ("95.2", "91.0", "14.0"),
             "rank/score contradictions": ("6.8", "4.2", "1.4")}
    cols = ("systems_%", "system_topics_%", "documents_%")
    for prop, vals in paper.items():
        for col, pv in zip(cols, vals):
            cells.append(Cell(f"TREC-7: {prop}, {col}", pv, None, "not-reproducible-here",
                              TREC7))
    tied, contra = t.loc["tied scores"], t.loc["rank/score contradictions"]
    cells.append(_shape("substitute: tied scores, systems_%", tied["systems_%"] > 50,
                        float(tied["systems_%"]), "most systems have tied scores"))
    cells.append(_shape("substitute: tied scores, documents_%", tied["documents_%"] > 1,
                        float(tied["documents_%"]),
                        "a sizeable share of documents (14 %) ties its predecessor"))
    cells.append(_shape("substitute: contradictions, documents_%",
                        contra["documents_%"] < tied["documents_%"],
                        float(contra["documents_%"]),
                        "rank/score contradictions are rarer than ties"))
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
        Cell("TREC-7 (80 runs): every system's AP range", "", None, "not-reproducible-here",
             TREC7),
        _shape("substitute: share of systems with AP range < 1e-4", small >= 0.5, small,
               "for most systems the optimal-to-pessimal AP range is below 1e-4"),
        _shape("substitute: widest AP range", float(rng.max()) > 1e-2, float(rng.max()),
               "some systems have wide score ranges"),
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


def _fig3(ctx: Context) -> list[Cell]:
    st = _band_study(str(ctx.need()))
    d = st.original[None] - st.banded  # the paper's direction: original - banded
    cells = []
    for j, m in enumerate(st.metrics):
        cells.append(Cell(f"TREC-7 mean original {m}", FIG3_MEANS[m],
                          float(st.original[:, j, :].mean()), "not-reproducible-here",
                          f"{TREC7}; ours is the substitute's mean"))
    k = st.rhos.index("1.4")
    rr = d[:, :, st.metrics.index("RR"), :].reshape(len(st.rhos), -1)
    q1, q3 = np.percentile(rr, [25, 75], axis=1)
    cells.append(_shape("RR quartiles at every rho", bool(np.all(q1 == 0) and np.all(q3 == 0)),
                        f"max |quartile| {max(np.abs(q1).max(), np.abs(q3).max()):.4g}",
                        "most RR values are unaffected: both quartiles are zero at every rho"))
    k17 = st.rhos.index("1.7")
    mad = {m: float(np.abs(d[k17, :, j, :]).mean()) for j, m in enumerate(st.metrics)}
    worst = max(mad, key=mad.get)
    cells.append(_shape("metric with the largest mean |original - banded| at rho=1.7",
                        worst == "RBP(p=0.5)",
                        ", ".join(f"{m} {v:.4f}" for m, v in mad.items()),
                        "the shallow metric RBP0.5 suffers the most, once rho > 1.5 ties "
                        "ranks 2 and 3"))
    x = d[k].ravel()
    gain, lose = float(np.mean(x < 0)), float(np.mean(x > 0))
    cells.append(_shape("share of system-topics that gain / lose at rho=1.4",
                        min(gain, lose) > 0 and max(gain, lose) / max(min(gain, lose), 1e-12) < 3,
                        f"{gain:.3f} / {lose:.3f}",
                        "nearly as many system-topic combinations gain as lose"))
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
                cells.append(Cell(f"rho={rho} {ratio} {m}", f"{pv}/80", f"{ours}/{n}",
                                  "not-reproducible-here", f"{TREC7}; ours: {SUBST}"))
    mono = True
    for m in METRICS:
        for ratio in ("99%", "97%"):
            col = t[(t.metric == m) & (t.rho != "1.0")][f">={ratio}"].to_numpy()
            mono &= bool(np.all(np.diff(col) <= 1))  # allow one system of noise
    cells.append(_shape("counts fall as rho grows (every metric, 99 % and 97 %)", mono,
                        "monotone" if mono else "not monotone",
                        "the counts decrease down each column"))
    all95 = int(t[t.rho != "1.0"][">=95%"].min())
    cells.append(_shape("fewest systems at 95 % over all metrics and rho", all95 == n,
                        f"{all95}/{n}", "at 95 % every entry is every system (80 of 80)"))
    return cells


register(Item(
    id="ymt2016:table3", title="Systems whose banded score is >= 99 % / 97 % of the original",
    where="Sect. 4, Table 3",
    command="tiebreak study bands --order score-rank --ratio 0.99,0.97,0.95 "
            "../shared/data/robust03_trectools/qrels/robust03_qrels.txt.gz "
            "../shared/data/robust03_trectools/runs/",
    compute=_table3, data=("robust03_trectools",)))


# --------------------------------------------------------------------------------------- Fig. 4


def _fig4(ctx: Context) -> list[Cell]:
    from ..study_bands import fig4_pvalues, fig4_quadrants

    st = _band_study(str(ctx.need()))
    t = fig4_quadrants(fig4_pvalues(st, "1.4")).set_index("metric")
    ap = t.loc["AP"]
    cells = [
        Cell("TREC-7 AP discrimination at rho=1.0", "62.2 %", float(ap.disc_before),
             "not-reproducible-here", f"{TREC7}; ours: {SUBST}"),
        Cell("TREC-7 AP discrimination at rho=1.4", "62.1 %", float(ap.disc_after),
             "not-reproducible-here", f"{TREC7}; ours: {SUBST}"),
        Cell("TREC-7 AP false positives at rho=1.4", "0.1 %", float(ap.false_pos),
             "not-reproducible-here", f"{TREC7}; ours: {SUBST}"),
        Cell("TREC-7 AP false negatives at rho=1.4", "0.2 %", float(ap.false_neg),
             "not-reproducible-here", f"{TREC7}; ours: {SUBST}"),
    ]
    change = float((t.disc_after - t.disc_before).abs().max())
    cells.append(_shape("largest change of discrimination ratio over the 4 metrics (points)",
                        change <= 2.0, change,
                        "banding at rho=1.4 has almost no effect on discrimination"))
    flips = float((t.false_pos + t.false_neg).max())
    cells.append(_shape("largest share of pairs that flip significance (%)", flips <= 5.0, flips,
                        "only a small fraction of false positives and negatives"))
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


# ------------------------------------------------------------------- the draft's p-value figure


def _fig_draft(ctx: Context) -> list[Cell]:
    from ...stats import paired_pvalues_rows

    st = _band_study(str(ctx.need()))
    k = st.rhos.index("1.7")
    med = {}
    for j, m in enumerate(st.metrics):
        d = st.original[:, j, :] - st.banded[k, :, j, :]
        p = paired_pvalues_rows(d, "t")
        med[m] = float(np.nanmedian(np.where(np.isnan(p), 1.0, p)))
    shallow = min(med["RR"], med["RBP(p=0.5)"])
    deep = max(med["RBP(p=0.85)"], med["AP"])
    return [
        Cell("TREC (98 runs) p values per metric and rho", "", None, "not-reproducible-here",
             "the draft's figure has no numbers in the text and its runs are not here"),
        _shape("median two-tailed p (original vs banded) at rho=1.7, per metric",
               med["RBP(p=0.5)"] <= deep and shallow <= deep,
               ", ".join(f"{m} {v:.3g}" for m, v in med.items()),
               "the shallow metrics (RR, RBP0.5) are more affected than the deep ones "
               "(RBP0.85, AP)"),
    ]


register(Item(
    id="ymt2016:fig-draft", title="Draft of Sect. 4: p values of original against grouped runs",
    where="LaTeX draft of Sect. 4, figure fig-rho-p-value",
    command="tiebreak study bands --order score-rank ../shared/data/robust03_trectools/"
            "qrels/robust03_qrels.txt.gz ../shared/data/robust03_trectools/runs/",
    description="The draft plots, per metric and rho, the two-tailed paired t-test p value of "
                "each original run against its grouped run over 50 topics.",
    compute=_fig_draft, kind="figure", data=("robust03_trectools",)))
