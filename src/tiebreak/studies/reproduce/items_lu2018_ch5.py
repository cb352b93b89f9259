"""Lu (2018) chapter 5, "The effect of pooling and evaluation depth on IR metrics": Tables 5.3,
5.7 and Figs. 5.2-5.5, 5.8, 5.10 beside our numbers.

The thesis's collections (Robust04 topics 651-700 with 42 runs, TREC-9, CW09A-2009/2010) are
not in the reference data; Robust 2003 (topics 601-650, 17 runs) stands in for Robust04, with
shallow pools simulated from its qrels by the same procedure (Section 5.3.1). Cells whose value
is a property of the definition (the RBP residual of a fully judged top k is p^k) are compared
exactly; cells on substitute data check the shape the text states.

Size: one module per thesis chapter, as the other reproduction items; each item is a small function
beside its registration.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import Cell, Context, Item, check, claims, missing, register

ROBUST = ("robust03_trectools", "qrels", "robust03_qrels.txt.gz")
SUB = "Robust 2003 (601-650, 17 runs) in place of Robust04 (651-700, 42 runs)"
METRICS = ("AP_b", "AP", "nDCG", "RBP(p=0.95)", "RBP(p=0.8)", "ERR")
_CACHE: dict = {}


def _robust(ctx: Context):
    from ...io import read_qrels, read_run, run_paths
    from ...judgments.pool import subset_topics

    if "data" not in _CACHE:
        qr = read_qrels(str(ctx.need(*ROBUST)))
        qr = subset_topics(qr, [t for t in qr.topics if 601 <= int(t) <= 650])
        runs = [read_run(p) for p in run_paths([str(ctx.need("robust03_trectools", "runs"))])]
        _CACHE["data"] = (qr, runs)
    return _CACHE["data"]


def _study(ctx: Context, d: int | None):
    """d: simulated pool depth (10, 20), or None for the qrels as they are, reference k = 100."""
    from ..depth import run_depth_study

    if d not in _CACHE:
        qr, runs = _robust(ctx)
        _CACHE[d] = run_depth_study(
            qr, runs, d, metrics=METRICS, reference_depth=None if d else 100,
            vol_depths=tuple(range(1, 51)), leave_one_out=d == 10, jobs=ctx.jobs)
    return _CACHE[d]


def _shape(name: str, holds: bool, what: str, ours=None, paper: str = "") -> Cell:
    """A claim of the thesis (``what`` quotes or states it, with its section) tested on the
    Robust 2003 substitute."""
    return check(name, paper, ours if ours is not None else str(bool(holds)), holds, what, SUB)


def _curves(st, metric):
    """(n_contributing, n_k) mean scores over k = 1..50."""
    return st.vol_means[st.contributing, st.metrics.index(metric), :, 0]


def _crossovers(Y) -> int:
    """System pairs whose order at k = 50 differs from their order at some smaller k."""
    n = 0
    for i in range(len(Y)):
        for j in range(i + 1, len(Y)):
            s = np.sign(Y[i] - Y[j])
            n += int(np.any(s[:-1] * s[-1] < 0))
    return n


def _draw_curves(ctx, path, d, metrics, title):
    from .. import pyplot

    st = _study(ctx, d)
    plt = pyplot()
    fig, axes = plt.subplots(1, len(metrics), figsize=(3.6 * len(metrics), 3.0), squeeze=False)
    k = np.asarray(st.vol_depths)
    for ax, m in zip(axes[0], metrics):
        for y in _curves(st, m):
            ax.plot(k, y, lw=0.8)
        if d:
            ax.axvline(d, color="grey", ls=":", lw=1)
        ax.set_title(f"{m}@k, {title}", fontsize=8)
        ax.set_xlabel("k")
    axes[0, 0].set_ylabel("mean score")
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


# ------------------------------------------------------------------------- Figs. 5.2-5.5


CLAIM_CROSS = ("'when using AP_a@k, the scores will not decrease at all, but the same density of "
               "cross-overs arise' (Section 5.4, text of Fig. 5.2)")


def _fig52(ctx: Context) -> list[Cell]:
    st = _study(ctx, 20)
    A, B = _curves(st, "AP"), _curves(st, "AP_b")
    mono_a = bool(np.all(np.diff(A, axis=1) >= -1e-12))
    mono_b = bool(np.all(np.diff(B, axis=1) >= -1e-12))
    return [Cell("AP_a@k never decreases in k (every system)", "rises monotonically",
                 str(mono_a), "by-definition",
                 "AP_a@k (Eq. 2.31) divides by R, fixed in k, and adds a non-negative term per "
                 "rank: monotone on any data" + ("" if mono_a else " -- VIOLATED: our defect")),
            _shape("AP_b@k is not monotone in k", not mono_b, "AP_b@k, unlike AP_a@k, can "
                   "decrease as k grows (Section 5.4, Fig. 5.2)", str(not mono_b)),
            _shape("AP_a@k still crosses over (pairs whose order changes)", _crossovers(A) > 0,
                   CLAIM_CROSS, _crossovers(A), "> 0"),
            _shape("AP_b@k crosses over", _crossovers(B) > 0, CLAIM_CROSS, _crossovers(B),
                   "> 0")]


register(Item("lu2018:fig5.2", "Per-system AP_a@k and AP_b@k against k", "Section 5.4, Fig. 5.2",
              "tiebreak study depth robust03_qrels.txt.gz --topics 601-650 "
              "--pool-depth 20 --volatility-depths 1-50 --out dir runs/", _fig52,
              kind="figure", data=ROBUST,
              figure=lambda ctx, p: _draw_curves(ctx, p, 20, ("AP", "AP_b"), "d = 20"),
              description="Mean AP_a@k and AP_b@k of each contributing system (y) against "
                          "k = 1..50 (x), Robust04 and CW09A-2010: AP_a rises monotonically, "
                          "AP_b does not; both cross over."))


def _fig53(ctx: Context) -> list[Cell]:
    st = _study(ctx, 20)
    N = _curves(st, "nDCG")
    return [_shape("NDCG_a@k crosses over even for k <= d", _crossovers(N[:, :20]) > 0,
                   "'the cross-overs in both recall-based metrics occur regardless of whether "
                   "k <= d' (Section 5.4); QM is not computed here", _crossovers(N[:, :20]),
                   "> 0")]


register(Item("lu2018:fig5.3", "Per-system NDCG_a@k against k", "Section 5.4, Fig. 5.3",
              "tiebreak study depth ... --out dir", _fig53, kind="figure", data=ROBUST,
              figure=lambda ctx, p: _draw_curves(ctx, p, 20, ("nDCG",), "d = 20"),
              description="NDCG_a@k and QM@k per system against k; both cross over."))


def _settle(Y, frac=0.99) -> int:
    """The smallest k at which the mean over systems reaches ``frac`` of its k = 50 value."""
    m = Y.mean(axis=0)
    return int(np.argmax(m >= frac * m[-1]) + 1)


def _fig54(ctx: Context) -> list[Cell]:
    st = _study(ctx, 20)
    r, e = _settle(_curves(st, "RBP(p=0.95)")), _settle(_curves(st, "ERR"))
    return [_shape("k where the mean reaches 99 % of its k = 50 value: RBP(0.95) deeper than ERR",
                   r > e, "'RBP(0.95)@k settles at greater depths than ERR@k' (Section 5.4, "
                   "text of Fig. 5.4)", f"RBP(0.95) k = {r}, ERR k = {e}")]


register(Item("lu2018:fig5.4", "Per-system RBP(0.95)@k and ERR@k against k",
              "Section 5.4, Fig. 5.4", "tiebreak study depth ... --out dir", _fig54,
              kind="figure", data=ROBUST,
              figure=lambda ctx, p: _draw_curves(ctx, p, 20, ("RBP(p=0.95)", "ERR"), "d = 20"),
              description="RBP(0.95)@k settles at greater depths than ERR@k; orderings steady."))


def _fig55(ctx: Context) -> list[Cell]:
    s10, s20 = _study(ctx, 10), _study(ctx, 20)
    out = []
    for m in ("AP_b", "nDCG", "RBP(p=0.8)"):
        c10, c20 = _crossovers(_curves(s10, m)), _crossovers(_curves(s20, m))
        out.append(_shape(f"{m}: crossing pairs at d = 10 >= at d = 20", c10 >= c20,
                          "'a shallower pooling depth results in more volatile system rankings' "
                          "(Section 5.4, Figs. 5.2, 5.3 and 5.5)", f"{c10} vs {c20}", ">="))
    return out


register(Item("lu2018:fig5.5", "AP_b@k, NDCG_a@k, RBP(0.8)@k with d = 10 pools",
              "Section 5.4, Fig. 5.5", "tiebreak study depth --pool-depth 10 ... --out dir",
              _fig55, kind="figure", data=ROBUST,
              figure=lambda ctx, p: _draw_curves(ctx, p, 10, ("AP_b", "nDCG", "RBP(p=0.8)"),
                                                 "d = 10"),
              description="The Fig. 5.2-5.4 curves with pools of depth 10: more cross-overs."))


# ------------------------------------------------------------------------------ Table 5.3

#: Table 5.3(a): metric -> Robust04 (Delta%, Delta Rank), CW09A-2009 (...), CW09A-2010 (...)
T53 = {"AP_b": (("-1.31", "0.67"), ("-23.30", "4.13"), ("-17.50", "2.43")),
       "nDCG": (("-1.06", "0.60"), ("-18.54", "4.03"), ("-13.98", "2.10")),
       "RBP(p=0.8)": (("-0.90", "0.38"), ("-17.12", "3.66"), ("-12.75", "1.61")),
       "RBP(p=0.95)": (("-1.25", "0.76"), ("-20.51", "4.56"), ("-15.33", "2.19"))}
CLAIM_53 = ("the newswire pool barely moves a left-out run while the web pools move it a lot "
            "(Section 5.3.2, Table 5.3(a): Robust04 -0.90 to -1.31 %, CW09A-2009 -17.12 to "
            "-23.30 %, CW09A-2010 -12.75 to -17.50 %)")


def nearer_newswire(ours: float, newswire: float, web: Sequence[float]) -> bool:
    """Table 5.3: ``ours`` is nearer to the thesis's Robust04 value than to every CW09A value
    (the midpoint between the columns is the tolerance)."""
    return all(abs(ours - newswire) < abs(ours - w) for w in web)


def _table53(ctx: Context) -> list[Cell]:
    st = _study(ctx, 10)
    lo = st.loo
    cells = []
    for m, (rob, c09, c10) in T53.items():
        j = st.metrics.index(m)
        pct = float(np.nanmean(lo["delta_pct"][:, j]))
        rk = float(np.mean(lo["delta_rank"][:, j]))
        cells.append(missing(f"{m} Delta% (Robust04)", rob[0], "Robust04's 42 runs and "
                             "qrels are not in the shared data; ours: " + SUB, pct))
        cells.append(missing(f"{m} Delta rank (Robust04)", rob[1], "as above", rk))
        cells.append(_shape(f"{m} Delta%: nearer Robust04's than CW09A's", nearer_newswire(
            pct, float(rob[0]), (float(c09[0]), float(c10[0]))), CLAIM_53, pct,
            f"{rob[0]} (CW09A {c09[0]}, {c10[0]})"))
        cells.append(_shape(f"{m} Delta rank: nearer Robust04's than CW09A's", nearer_newswire(
            rk, float(rob[1]), (float(c09[1]), float(c10[1]))), CLAIM_53 + "; 17 runs here "
            "against 42 bound the rank changes lower", rk,
            f"{rob[1]} (CW09A {c09[1]}, {c10[1]})"))
    return cells


register(Item("lu2018:table5.3", "Leave one run out at k = d = 10",
              "Section 5.3.2, Table 5.3(a) (Robust04 column)",
              "tiebreak study depth robust03_qrels.txt.gz --topics 601-650 "
              "--pool-depth 10 runs/", _table53, data=ROBUST))


# ------------------------------------------------------------------------------ Table 5.7

T57 = {1: ("0.950", "0.800"), 4: ("0.815", "0.410"), 10: ("0.599", "0.107"),
       40: ("0.129", "0.000")}


def _table57(ctx: Context) -> list[Cell]:
    from ...judgments.pool import infer_contributing, run_lists
    from ...judgments.scoring import score_runs

    qr, runs = _robust(ctx)
    ks = list(T57)
    judged = set(infer_contributing(run_lists(runs, qr), qr, max(ks)))
    runs = [r for r in runs if r.name in judged]  # the thesis averages over contributing runs
    sc = score_runs(qr, runs, ["RBP(p=0.95)", "RBP(p=0.8)"], ks)
    res = np.nanmean(sc["residual"], axis=(0, 4))  # (metric, k)
    cells = []
    for b, k in enumerate(ks):
        for a, (m, p) in enumerate(zip(("RBP(0.95)", "RBP(0.8)"), T57[k])):
            pk = (0.95, 0.8)[a] ** k
            cells.append(Cell(f"k={k} {m} residual", p, float(res[a, b, 0]), "by-definition",
                              f"p^k = {pk:.4f} whenever the top k is judged, as Robust04's d = "
                              "100 pool judges it: the column restates the definition of the "
                              f"residual. Ours over the {len(runs)} Robust 2003 runs whose top "
                              f"{max(ks)} the qrels judge on every topic; runs returning n < k "
                              "documents on a topic keep p^n"))
    cells.append(missing("run scores (RBP(0.95), RBP(0.8), ERR) at each k; the CW09A-2010 "
                         "block", "0.031 ... 0.470", "Robust04's runs and qrels and the "
                         "ClueWeb09 runs and qrels are not in the shared data"))
    return cells


register(Item("lu2018:table5.7", "RBP residuals against k (Robust04 d = 100)",
              "Section 5.5, Table 5.7 (Robust04 residual columns)",
              "tiebreak study depth robust03_qrels.txt.gz --reference-depth 100 runs/",
              _table57, data=ROBUST))


# ------------------------------------------------------------------------ Figs. 5.8, 5.10


def _vol(ctx, a, b=None, stat="tau"):
    from ..depth import volatility

    return volatility(_study(ctx, 20), a, b, stat=stat)


CLAIM_58 = ("on Robust04 the system orderings barely depend on k except for very small k "
            "(Section 5.6, Fig. 5.8; the same with tau_AP and RBO)")
#: the correlation read as "stable" in the volatility heat maps (ours; the thesis gives none)
STABLE = 0.7


def _fig58(ctx: Context) -> list[Cell]:
    out = []
    for m in ("AP_b", "nDCG"):
        for stat in ("tau", "tau_ap", "rbo"):
            T = _vol(ctx, m, stat=stat)
            v = float(np.nanmin(T[4:, 4:]))
            out.append(_shape(f"{m}: least {stat} among k1, k2 >= 5", v >= STABLE, CLAIM_58 +
                              f"; 'stable' read as {stat} >= {STABLE} (ours: the thesis reads "
                              "the heat maps by eye)", v))
    return out


def _draw_vol(ctx, path, pairs, stat="tau"):
    from ..plots import plot_volatility

    st = _study(ctx, 20)
    mats = {(a if b is None else f"{a} vs {b}"): _vol(ctx, a, b, stat) for a, b in pairs}
    stem = str(path)[:-4] if str(path).endswith(".png") else str(path)
    plot_volatility(mats, st.vol_depths, stem, 20)


register(Item("lu2018:fig5.8", "Volatility of AP_b@k and NDCG_a@k over k = 1..50 (d = 20)",
              "Section 5.6, Fig. 5.8", "tiebreak study depth --pool-depth 20 "
              "--volatility-stat tau --volatility-stat tau_ap --volatility-stat rbo --out dir",
              _fig58, kind="figure", data=ROBUST,
              figure=lambda ctx, p: _draw_vol(ctx, p, [("AP_b", None), ("nDCG", None)]),
              description="Kendall tau heat maps over (k1, k2) in 1..50; Robust04 is dark "
                          "(stable) except at very small k, CW09A-2010 light except near k = d."))


def _fig510(ctx: Context) -> list[Cell]:
    out = []
    for a, b in (("AP_b", "AP"), ("nDCG", "AP_b"), ("RBP(p=0.95)", "nDCG"),
                 ("RBP(p=0.95)", "AP_b")):
        T = _vol(ctx, a, b)
        diag = float(np.nanmean(np.diag(T)[9:]))
        out.append(_shape(f"{a} vs {b}: mean tau on the diagonal, k >= 10", diag >= STABLE,
                          "metrics compared at the same depth order the systems alike (Section "
                          "5.6, Fig. 5.10, CW09A-2010 in the thesis); AP_c and the Zipf-discount "
                          f"NDCG panels are not drawn; threshold {STABLE} ours", diag))
    T = _vol(ctx, "RBP(p=0.95)", "nDCG")
    out.append(_shape("RBP(0.95) vs NDCG_a: the band is symmetric",
                      bool(np.nanmax(np.abs(T - T.T)) < 0.2), "RBP(0.95) and NDCG_a show a "
                      "strong symmetric band (Section 5.6, Fig. 5.10); 'symmetric' read as "
                      "|tau(k1, k2) - tau(k2, k1)| < 0.2 everywhere (ours)",
                      float(np.nanmax(np.abs(T - T.T)))))
    return out


register(Item("lu2018:fig5.10", "Cross-metric volatility (d = 20)", "Section 5.6, Fig. 5.10",
              "tiebreak study depth --pool-depth 20 --cross AP_b,AP --cross nDCG,AP_b ...",
              _fig510, kind="figure", data=ROBUST,
              figure=lambda ctx, p: _draw_vol(ctx, p, [("AP_b", "AP"), ("nDCG", "AP_b"),
                                                       ("RBP(p=0.95)", "nDCG"),
                                                       ("RBP(p=0.95)", "AP_b")]),
              description="tau between metric 1 at k1 (rows) and metric 2 at k2 (columns); "
                          "RBP(0.95) and NDCG_a show a strong symmetric band."))


# ------------------------------------------------------------------------------------- Fig. 5.1

FIG51_DEPTHS = (1, 2, 5, 10, 20, 30, 50, 100)


def _fig51_rows(ctx: Context):
    from ...io import read_qrels, read_run
    from .items_lu2018_ch2 import fig29_delta_r

    base = ctx.need("robust03_trectools")
    qrels = read_qrels(base / "qrels" / "robust03_qrels.txt.gz")
    runs = [read_run(p) for p in sorted((base / "runs").iterdir())]
    return fig29_delta_r(qrels, runs, FIG51_DEPTHS)


def _fig51(ctx: Context) -> list[Cell]:
    rows = _fig51_rows(ctx)
    shares = [s for _, s, _ in rows]
    rising = all(b >= a for a, b in zip(shares, shares[1:]))
    per_rank, prev = [], 0
    for d, _, dr in rows:
        per_rank.append(dr / (d - prev))
        prev = d
    falling = claims.decreasing(per_rank[1:])
    note = ("substitute data: the 17 Robust 2003 runs for the thesis's Robust04 and TREC-9 "
            "(newswire) curves; the thesis prints curves, no numbers")
    return [
        Cell("(a) relevant documents found, % of the qrels', by pool depth", "rises",
             "; ".join(f"d={d}: {s:.1f}%" for d, s, _ in rows), "by-definition",
             "a deeper pool contains the shallower one, so the count cannot fall: "
             + ("holds" if rising else "VIOLATED (our defect)") + f"; {note}"),
        check("(b) ΔR% per added rank, by pool depth", "falling",
              "; ".join(f"d={d}: {x:.2f}" for (d, _, _), x in zip(rows, per_rank)), falling,
              "on the newswire collections deeper pools add ever fewer relevant documents "
              "(Section 5.3, Fig. 5.1(b), read from the curves)", note,
              "ours per added rank of depth, as in lu2018:fig2.9"),
        Cell("CW09A/CW09B panels", "", None, "not-reproducible-here",
             "the ClueWeb09 runs and qrels are not in the shared data"),
    ]


def _fig51_draw(ctx: Context, path) -> None:
    from .. import pyplot

    rows = _fig51_rows(ctx)
    plt = pyplot()
    fig, (a, b) = plt.subplots(1, 2, figsize=(8, 3.2))
    ds = [d for d, _, _ in rows]
    a.plot(ds, [s for _, s, _ in rows], marker="o", label="Robust 2003 (17 runs)")
    per_rank, prev = [], 0
    for d, _, dr in rows:
        per_rank.append(dr / (d - prev))
        prev = d
    b.plot(ds, per_rank, marker="o", label="Robust 2003 (17 runs)")
    for ax, y in ((a, "relevant found, % of qrels"), (b, "ΔR% per added rank")):
        ax.set_xscale("log")
        ax.set_xlabel("pooling depth d")
        ax.set_ylabel(y)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


register(Item(
    "lu2018:fig5.1", "Relevant documents found against the pooling depth, and ΔR%",
    "Section 5.3, Fig. 5.1",
    "tiebreak pool ../shared/data/robust03_trectools/qrels/robust03_qrels.txt.gz "
    "../shared/data/robust03_trectools/runs/ --depth D > /dev/null  # D = 1 .. 100",
    _fig51, kind="figure", figure=_fig51_draw, data=("robust03_trectools",),
    description="(a) the cumulative number of relevant documents a depth-d pool finds and (b) "
                "the additional percent found as d grows, both against d on log scales, for "
                "Robust04, TREC-9 and the ClueWeb09 collections. Ours: the newswire shape on "
                "Robust 2003."))


# ------------------------------------------------------------------------------ Table 5.4

#: substitute sets of runs: label -> (qrels, runs folder) under the data folder
T54_SETS = {
    "Robust 2003": ("robust03_trectools/qrels/robust03_qrels.txt.gz", "robust03_trectools/runs"),
    "TREC-COVID r1": ("trec_covid/round1/qrels-rnd1.txt", "trec_covid/round1/runs"),
    "TREC-COVID r5": ("trec_covid/round5/qrels.covid-round5.txt", "trec_covid/round5/runs"),
    "DL 2020 (BIT.UA)": ("trec_dl2020_bitua/qrels.dl20-doc.txt", "trec_dl2020_bitua/runs"),
}
#: "high" correlation: the thesis's 18 tasks have tau 0.742-1.000; the four below 0.9 (TREC-2,
#: -3, -4, CW09A-2009) are the exceptions its "most of the tasks" leaves out
T54_HIGH = 0.9
CLAIM_54 = ("'in most of the tasks, Kendall's tau values indicate a high correlation between "
            "the two different approaches' (Section 5.3.3, Table 5.4: tau 0.742-1.000 over 18 "
            "TREC tasks, median 0.990)")


def top_tie_pct(run, k: int = 20) -> np.ndarray:
    """Per topic of ``run``: the percentage of its top ``k`` documents (score descending) whose
    score equals the previous document's -- Table 5.4's "% of tied scores" (the thesis does not
    define it; the successor count of Yang et al. is ours). Shape ``(n_topics,)``, float."""
    t, s = run.topic, run.score
    n = len(s)
    o = np.lexsort((np.arange(n), -s, t))
    ts, ss = t[o], s[o]
    nt = len(run.topics)
    docs = np.bincount(ts, minlength=nt)
    pos = np.arange(n) - np.r_[0, np.cumsum(docs)[:-1]][ts]
    tied = np.r_[False, (ts[1:] == ts[:-1]) & (ss[1:] == ss[:-1])]
    top = pos < k
    num = np.bincount(ts[top & tied], minlength=nt)
    den = np.bincount(ts[top], minlength=nt)
    return 100.0 * num[den > 0] / den[den > 0]


def high_tau(tau: float) -> bool:
    """Table 5.4: the two tie-breaking orders give a high correlation (tau >= 0.9)."""
    return float(tau) >= T54_HIGH


def _table54_rows(ctx: Context):
    if "t54" not in _CACHE:
        from ...evaluation import evaluate
        from ...io import read_qrels, read_run, run_paths
        from ...stats import kendall_tau

        rows = {}
        for name, (q, r) in T54_SETS.items():
            qr = read_qrels(str(ctx.need(*q.split("/"))))
            runs = [read_run(p) for p in run_paths([str(ctx.need(*r.split("/")))])]
            ties = np.concatenate([top_tie_pct(x) for x in runs])
            res = evaluate(qr, runs, ["RBP(p=0.8)"], ["trec_eval", "file"])
            a = np.array([res.value(x, "RBP(p=0.8)", "trec_eval") for x in res.runs])
            b = np.array([res.value(x, "RBP(p=0.8)", "file") for x in res.runs])
            rows[name] = (float(np.median(ties)), kendall_tau(a, b), len(runs))
        _CACHE["t54"] = rows
    return _CACHE["t54"]


def _table54(ctx: Context) -> list[Cell]:
    cells = [missing("the thesis's 18 tasks (TREC-2 to TREC-10, Robust04/05, TB 2004-06, "
                     "CW09A-2009 to 2012): median % of tied scores, tau", "9 ... 64 %, "
                     "0.742 ... 1.000", "their runs are not in the shared data (Robust04: "
                     "9 %, 0.997)")]
    for name, (med, tau, n) in _table54_rows(ctx).items():
        cells.append(check(f"set={name} ({n} runs): tau of trec_eval vs file-order tie "
                           "breaking, RBP(0.8)", ">= 0.9 in most tasks",
                           f"tau {tau:.3f}, median {med:.0f} % tied in the top 20",
                           high_tau(tau), CLAIM_54, "substitute data: " + name,
                           f"'high' read as tau >= {T54_HIGH} (ours: the thesis's four tasks "
                           "below it are its exceptions)"))
    return cells


register(Item("lu2018:table5.4", "Median % of tied scores in the top 20, and Kendall's tau "
              "between trec_eval's and file-order tie breaking (RBP(0.8))",
              "Section 5.3.3, Table 5.4",
              "tiebreak ties RUNS; tiebreak eval QRELS RUNS -m 'RBP(p=0.8)' --regime "
              "trec_eval,file", _table54,
              data=tuple(q.split("/")[0] for q, _ in T54_SETS.values())))


# ------------------------------------------------------------------------------ Fig. 5.6

CLAIM_56_P = ("'In general, the median p-value decreases as the evaluation depth increases "
              "towards the pooling depth d' (Section 5.5.1, Fig. 5.6(a))")
CLAIM_56_COV = ("'as k increases towards d, coverage increases, and the at-k evaluation "
                "converges towards the at-d coverage measurements' (Section 5.5.1, Fig. 5.6(c))")
CLAIM_56_INV = ("'the two earlier TREC collections, even when shallow-pooled to d = 10, do not "
                "... give rise to the same high levels of inversions' (Section 5.5.1, Fig. "
                "5.6(d))")
CLAIM_56_COR = ("'a substantial decrease in measured system order correlation, using both "
                "Kendall's tau and Pearson's r when extended evaluation is used with the two "
                "ClueWeb collections' -- and not, by contrast, on newswire (Section 5.5.1, Fig. "
                "5.6(e), (f))")
#: inversions (%) read as "not high" on newswire; correlation read as kept (ours: the thesis
#: prints no numbers for Fig. 5.6)
LOW_INV, KEPT_CORR = 5.0, 0.9


def _fig56_rows(ctx: Context):
    """d -> rows (k, median p, coverage %, inversion %, tau, Pearson r) of NDCG_a@k against
    NDCG_a@d, over the contributing runs (d = 10 simulated, d = 100 the qrels as they are)."""
    if "f56" not in _CACHE:
        from ...stats import kendall_tau
        from ..depth import coverage_inversion, significant_pairs

        out = {}
        for d, st in ((10, _study(ctx, 10)), (100, _study(ctx, None))):
            a, sel = st.metrics.index("nDCG"), st.contributing
            ref = st.reference[sel, a, 0]
            Sr = significant_pairs(ref, st.alpha)[0]
            rows = []
            for b, k in enumerate(st.depths):
                new = st.scores[sel, a, b, 0]
                ci = coverage_inversion(ref, new, st.alpha, Sr)
                rm, nm = ref.mean(1), new.mean(1)
                rows.append((k, ci["median_p"], 100 * ci["coverage"], 100 * ci["inversion"],
                             kendall_tau(rm, nm), float(np.corrcoef(rm, nm)[0, 1])))
            out[d] = rows
        _CACHE["f56"] = out
    return _CACHE["f56"]


def _fig56(ctx: Context) -> list[Cell]:
    cells = [missing("Robust04, TREC-9 (d = 10, 100) and CW09A-2009/2010 (d = 10) curves", "",
                     "the thesis prints curves only; the Robust04 and TREC-9 runs and the "
                     "ClueWeb09 runs are not in the shared data")]
    for d, rows in _fig56_rows(ctx).items():
        upto = [r for r in rows if r[0] <= d]
        beyond = [r for r in rows if r[0] > d]
        fmt = "; ".join
        cells.append(_shape(f"d = {d}: median p falls as k grows to d",
                            claims.decreasing([r[1] for r in upto]), CLAIM_56_P,
                            fmt(f"k={r[0]}: {r[1]:.3g}" for r in upto), "falls"))
        cells.append(_shape(f"d = {d}: coverage rises as k grows to d",
                            claims.increasing([r[2] for r in upto]), CLAIM_56_COV,
                            fmt(f"k={r[0]}: {r[2]:.1f}" for r in upto), "rises"))
        if beyond:
            inv = max(r[3] for r in beyond)
            cells.append(_shape(f"d = {d}: largest inversion % for k > d", inv <= LOW_INV,
                                CLAIM_56_INV + f"; 'not high' read as <= {LOW_INV} % (ours)",
                                inv, "low"))
            low = min(min(r[4], r[5]) for r in beyond)
            cells.append(_shape(f"d = {d}: least tau / Pearson r against NDCG_a@d for k > d",
                                low >= KEPT_CORR, CLAIM_56_COR + f"; kept read as >= "
                                f"{KEPT_CORR} (ours)", fmt(f"k={r[0]}: {r[4]:.3f} / {r[5]:.3f}"
                                                           for r in beyond), "kept"))
    return cells


register(Item("lu2018:fig5.6", "NDCG_a@k against NDCG_a@d: median p, coverage, inversions, "
              "tau and Pearson r", "Section 5.5.1, Fig. 5.6",
              "tiebreak study depth --qrels robust03_qrels.txt.gz --topics 601-650 "
              "--pool-depth 10 runs/ (and --reference-depth 100 without --pool-depth)",
              _fig56, kind="figure", data=ROBUST,
              description="Six panels against k: (a) median p, (b) discrimination, (c) "
                          "coverage, (d) inversions, (e) Kendall's tau, (f) Pearson's r of "
                          "NDCG_a@k against NDCG_a@d, for Robust04 and TREC-9 (d = 10, 100) "
                          "and CW09A-2009/2010 (d = 10). Ours: the newswire claims on Robust "
                          "2003 at d = 10 and d = 100."))


# ------------------------------------------------------------------------------ Table 5.2


def _table52(ctx: Context) -> list[Cell]:
    from ..depth import counts_table

    cells = [missing("CW09A-2009 (d = 10, 12) and CW09A-2010 (d = 10, 20): RelInPool, RankUnj, "
                     "NumRelPast", "2.4 ... 29.1", "the ClueWeb09 runs and qrels are not in "
                     "the shared data (the table has no newswire rows)")]
    for d in (10, 20):
        st = _study(ctx, d)
        t = counts_table(st).set_index("runs").loc["contributing"]
        shown = ", ".join(f"{k} {t[k]:.1f}±{t[k + '_sd']:.1f}" for k in
                          ("rel_in_pool", "rank_unjudged", "num_rel_past"))
        cells.append(missing(f"Robust 2003, simulated d = {d}, contributing runs", "",
                             "no newswire row in the thesis's table to compare with; ours "
                             "shown: " + SUB, shown))
    return cells


register(Item("lu2018:table5.2", "Pooling outcomes: RelInPool, RankUnj, NumRelPast",
              "Section 5.3.1, Table 5.2",
              "tiebreak study depth --qrels robust03_qrels.txt.gz --topics 601-650 "
              "--pool-depth 10 --out dir runs/  (counts.tsv)", _table52, data=ROBUST))


# ------------------------------------------------------------------------------ Table 5.5

CLAIM_55_STABLE = ("'for k > 100 the coverage ratios are close to 100, while inversion ratios "
                   "are very close to zero' (Section 5.5, Table 5.5(a), Robust04 d = 100)")
CLAIM_55_DISC = ("'NDCG_a@k and AP_b@k both have discrimination ratios of around 65%, which is "
                 "similar to RBP(0.95)@k but more than ten points higher than RBP(0.8)@k. Not "
                 "surprisingly, ERR@k is even less discriminative than RBP(0.8)@k' (Section 5.5)")
#: "close to 100" / "very close to zero" read as coverage >= 95 % and inversion <= 1 % (ours)
CLOSE_COV, CLOSE_INV = 95.0, 1.0


def stable_beyond_d(cov: Sequence[float], inv: Sequence[float]) -> bool:
    """Table 5.5(a): past the pool depth, every coverage >= 95 % and inversion <= 1 %."""
    return min(cov) >= CLOSE_COV and max(inv) <= CLOSE_INV


def discrimination_order(disc: dict[str, float]) -> bool:
    """Table 5.5(a) at k = d: NDCG_a and AP_b each more than 10 points above RBP(0.8), and ERR
    below RBP(0.8)."""
    r8 = disc["RBP(p=0.8)"]
    return disc["nDCG"] > r8 + 10 and disc["AP_b"] > r8 + 10 and disc["ERR"] < r8


def _table55(ctx: Context) -> list[Cell]:
    from ..depth import depth_table

    t = depth_table(_study(ctx, None))
    cells = [missing("Robust04 (d = 100) and CW09A-2010 (d = 10): Disc., Covr., Invr. of six "
                     "metrics by k", "", "the 42 Robust04 runs and the ClueWeb09 runs are not "
                     "in the shared data")]
    past = t[t.k > 100]
    for m in ("AP_b", "nDCG", "RBP(p=0.95)", "RBP(p=0.8)", "ERR"):
        p = past[past.metric == m]
        cells.append(_shape(f"{m}: coverage / inversion % for k > 100",
                            stable_beyond_d(p["cov"].tolist(), p["inv"].tolist()),
                            CLAIM_55_STABLE + f"; read as coverage >= {CLOSE_COV:g} % and "
                            f"inversion <= {CLOSE_INV:g} % (ours)",
                            "; ".join(f"k={int(r.k)}: {r.cov:.1f} / {r.inv:.1f}"
                                      for r in p.itertuples()), "~100 / ~0"))
    at = t[t.k == 100].set_index("metric")["disc"].to_dict()
    cells.append(_shape("discrimination % at k = d = 100", discrimination_order(at),
                        CLAIM_55_DISC, ", ".join(f"{m} {v:.1f}" for m, v in at.items()),
                        "NDCG_a, AP_b > RBP(0.8) + 10 > ERR + 10"))
    return cells


register(Item("lu2018:table5.5", "Discrimination, coverage and inversion ratios by k",
              "Section 5.5, Table 5.5(a)",
              "tiebreak study depth --qrels robust03_qrels.txt.gz --topics 601-650 "
              "--reference-depth 100 runs/", _table55, data=ROBUST))
