"""Lu (2018), chapter 2: the tables and figures that print a number or a shape.

X. Lu, *Efficient and Effective Retrieval Using Higher-Order Proximity Models*, PhD thesis,
RMIT University, 2018, ch. 2 (Background).

* Table 2.4 (§2.4.3): the rank weight W_M(i) of each weighted-precision metric, against the
  registered measures on single-relevant-document lists.
* Table 2.5 (§2.4.3, "Truncation in Evaluation Metrics", and §2.4.4): the worked example of
  three binary relevance vectors with R = 20, whose P, DCG, AP_a/AP_b and NDCG_a values the text
  prints. Computed with the registered measures on the vectors as given.
* Fig. 2.9 (§2.5): the share of relevant documents a deeper pool adds (ΔR%) against the pooling
  depth. The thesis's collections (TREC-8/9, Robust04, GOV2) are not here; the shape is checked
  on Robust 2003 (17 runs, a deep newswire pool).
* Table 2.6 (§2.5): the test collections of the thesis; none is available here.
"""

from __future__ import annotations

from . import Cell, Context, Item, check, claims, compare_number, register

WHERE_T25 = "§2.4.3 p. 37 (Table 2.5 and the text after Eqs. 2.28, 2.29, 2.32, 2.34); §2.4.4"

# Table 2.5: ranks 1..10, then 20, 100, 200, 1000 (binary relevance); d = 100, R = 20.
T25_RANKS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 100, 200, 1000)
T25 = {
    "S1": (1, 1, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 0),
    "S2": (0, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 0, 0),
    "S3": (1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 1),
}
T25_R = 20


def table25_inputs(system: str, unjudged_11_19: bool = True):
    """The run and qrels of one Table 2.5 system, as dicts for :func:`tiebreak.evaluate`.

    The listed ranks hold judged documents of the printed relevance; ranks 11-19 hold unjudged
    documents (the thesis's §2.4.4 reading, "positions 10 < k < 20 are unjudged"); the other
    unlisted ranks up to 1000 are unjudged too, so only the printed ranks carry relevance. The
    qrels hold R = 20 relevant documents: those retrieved plus unretrieved ones.
    """
    rel = dict(zip(T25_RANKS, T25[system]))
    run, qrels = {}, {}
    for rank in range(1, 1001):
        doc = f"{system}-r{rank:04d}"
        run[doc] = 1001.0 - rank
        if rank in rel:
            qrels[doc] = rel[rank]
    missing = T25_R - sum(T25[system])
    for j in range(missing):
        qrels[f"{system}-unretrieved{j:02d}"] = 1
    return {"1": run}, {"1": qrels}


def _values(measures: list[str]) -> dict[str, dict[str, float]]:
    from ...evaluation import evaluate

    out = {}
    for s in T25:
        run, qrels = table25_inputs(s)
        res = evaluate(qrels, [run], measures, ["trec_eval"])
        out[s] = {m: res.value(res.runs[0], m, "trec_eval") for m in res.measures}
    return out


def _table25(ctx: Context) -> list[Cell]:
    v = _values(["P@3", "P@10", "P@20", "DCG@3", "DCG@10", "AP@3", "AP_b@3", "nDCG@3"])
    cells = [
        compare_number("S1 P@10", "0.5", v["S1"]["P@10"], note="printed as 5/10"),
        compare_number("S2 P@10", "0.5", v["S2"]["P@10"], note="printed as 5/10"),
        compare_number("S3 P@10", "0.6", v["S3"]["P@10"], note="printed as 6/10"),
        compare_number("S1 P@3", "1", v["S1"]["P@3"],
                       note="'S1 will be the best with a score of 1'"),
    ]
    best = max(T25, key=lambda s: v[s]["P@3"])
    cells.append(Cell("best P@3 system", "S1", best, "exact" if best == "S1" else "differs",
                      "the text: at k = 3, S1 is the best"))
    dcg_note = ("paper error: the vectors are binary and every discount of Table 2.4 is at most "
                "1, so DCG@k cannot exceed the relevant documents in the top k (S1: 3 at k = 3, "
                "5 at k = 10; S2: 5 at k = 10); with W(i) = 1/log2(1+i) S2@3 = 0.5 as printed")
    cells += [
        compare_number("S1 DCG@3", "3.13", v["S1"]["DCG@3"], note=dcg_note),
        compare_number("S2 DCG@3", "0.5", v["S2"]["DCG@3"]),
        compare_number("S1 DCG@10", "8.76", v["S1"]["DCG@10"], note=dcg_note),
        compare_number("S2 DCG@10", "7.81", v["S2"]["DCG@10"], note=dcg_note),
    ]
    cells.append(compare_number("S1 AP_b@3", "1.0", v["S1"]["AP_b@3"],
                                note="'S1 can now obtain a score of 1.0' (Eq. 2.32)"))
    ap_a = v["S1"]["AP@3"]
    cells.append(Cell("S1 AP_a@3 < 1", "< 1", ap_a, "by-definition",
                      "Eq. 2.31 divides by R = 20 > k = 3, so a perfect top 3 'can never "
                      "receive a perfect score of 1' on any data; ours 3/20"))
    cells.append(compare_number("S1 NDCG_a@3", "1", v["S1"]["nDCG@3"],
                                note="Eq. 2.34: 'suggests the system is perfect'"))
    p2, p3 = v["S2"]["P@20"], v["S3"]["P@20"]
    cells.append(compare_number("S3 P@20 - S2 P@20 (ranks 11-19 unjudged)", "0", p3 - p2,
                                note="§2.4.4: with ranks 11-19 unjudged 'both systems have the "
                                     f"same score' (ours {p2:.4f} and {p3:.4f})"))
    return cells


register(Item(
    id="lu2018:table2.5",
    title="Three example relevance vectors: truncated P, DCG, AP_a/AP_b, NDCG_a",
    where=WHERE_T25,
    command=("python -c 'from tiebreak.studies.reproduce import items_lu2018_ch2 as m; "
             "print(m._values([\"P@10\", \"DCG@3\", \"AP_b@3\"]))'  "
             "# or: tiebreak reproduce lu2018:table2.5"),
    compute=_table25,
    quick=True,
))


# Fig. 2.9: ΔR% against the pooling depth (log scale).
FIG29_DEPTHS = (1, 2, 5, 10, 20, 50, 100)


def fig29_delta_r(qrels, runs, depths=FIG29_DEPTHS) -> list[tuple[int, float, float]]:
    """``(depth, relevant found %, ΔR %)`` per depth: the relevant documents a depth-d pool of
    ``runs`` finds, as a share of the qrels' relevant documents, and the increment over the
    previous depth (the first depth's increment is its own share). Pools use trec_eval's order."""
    import numpy as np

    from ...judgments import pool as P

    L = P.run_lists(runs, qrels)
    rel_total = int(np.count_nonzero(qrels.value > 0))
    out, prev = [], 0.0
    for d in depths:
        pool = P.pool_depth(L, d)
        kept = P.restrict_qrels(qrels, pool)
        found = int(np.count_nonzero(kept.value > 0))
        share = 100.0 * found / rel_total
        out.append((d, share, share - prev))
        prev = share
    return out


def _fig29_rows(ctx: Context):
    from ...io import read_qrels, read_run

    base = ctx.need("robust03_trectools")
    qrels = read_qrels(base / "qrels" / "robust03_qrels.txt.gz")
    runs = [read_run(p) for p in sorted((base / "runs").iterdir())]
    return fig29_delta_r(qrels, runs)


def _fig29_draw(ctx: Context, path) -> None:
    """Our left panel: ΔR% per added rank (y) against the pooling depth (x, log scale)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = _fig29_rows(ctx)
    xs, ys, prev = [], [], 0
    for d, _, dr in rows:
        xs.append(d)
        ys.append(dr / (d - prev))
        prev = d
    fig, ax = plt.subplots(figsize=(4.5, 3.2))
    ax.plot(xs, ys, marker="o", label="Robust 2003 (17 runs)")
    ax.set_xscale("log")
    ax.set_xlabel("pooling depth d")
    ax.set_ylabel("ΔR% per added rank")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _fig29(ctx: Context) -> list[Cell]:
    rows = _fig29_rows(ctx)
    # ΔR% per added rank of depth, so that the log-spaced steps compare
    per_rank, prev_d = [], 0
    for d, _, dr in rows:
        per_rank.append((d, dr / (d - prev_d)))
        prev_d = d
    tail = [x for d, x in per_rank if d >= 2]
    cells = [check("ΔR% per added rank falls with depth (newswire panel)", "falling",
                   "; ".join(f"d={d}: {share:.1f}% found, +{x:.2f}%/rank"
                             for (d, share, _), (_, x) in zip(rows, per_rank)),
                   claims.decreasing(tail),
                   "the left panel's curves fall with the pooling depth on the earlier TREC "
                   "tasks (Fig. 2.9, read from the curves; the thesis prints no numbers)",
                   "substitute data: Robust 2003's 17 runs (they find 55 % of the qrels' "
                   "relevant documents at d = 100; the rest came from runs not shared), not "
                   "TREC-8/9/Robust04",
                   "none beyond the order; increments per added rank of depth (ours: the "
                   "thesis does not say how it normalises them)")]
    cells.append(Cell("GOV2 panel (TB04-06)", "", None, "not-reproducible-here",
                      "needs the TREC Terabyte runs and qrels (GOV2), not in the shared data"))
    return cells


register(Item(
    id="lu2018:fig2.9",
    title="ΔR%: relevant documents found by deeper pools, against the pooling depth",
    where="§2.5 p. 50 (Fig. 2.9); no numbers printed, the shape is read from the curves",
    command=("tiebreak pool ../shared/data/robust03_trectools/qrels/robust03_qrels.txt.gz "
             "../shared/data/robust03_trectools/runs/ --depth D > /dev/null  # D = 1 .. 100"),
    compute=_fig29,
    quick=False,
    kind="figure",
    figure=_fig29_draw,
    description=("Two panels, ΔR% (y) against the pooling depth d on a log scale (x): left, "
                 "TREC-8, TREC-9 and Robust04, where deeper pools add few relevant documents; "
                 "right, the three GOV2 Terabyte collections, where every step adds a similar "
                 "share. Ours: the left panel's shape on Robust 2003."),
    data=("robust03_trectools",),
))


def _table26(ctx: Context) -> list[Cell]:
    return [Cell("Robust04, TB04-06, CW09A/B-2009..2012: d and n", "", None,
                 "not-reproducible-here",
                 "the collections (TREC disks 4-5 runs of Robust04, GOV2, ClueWeb09) and their "
                 "runs are not in the shared data; substitutes used in this project: Robust 2003, "
                 "TREC-COVID rounds 1 and 5, the classic collections")]


register(Item(
    id="lu2018:table2.6",
    title="The test collections of the thesis (pool depth d, contributing systems n)",
    where="§2.5 p. 51 (Table 2.6)",
    command="(none: the collections are not available here)",
    compute=_table26,
    quick=True,
))


# Table 2.4: W_M(i) of the weighted-precision metrics (formulas, no numbers).
T24_L = 10


def _table24(ctx: Context) -> list[Cell]:
    """Each row's W_M(i), i = 1..L, against our measure on a list whose only relevant document
    (grade 1) sits at rank i: the measure's value is then W_M(i) times the gain."""
    import math

    from ...evaluation import evaluate

    L = T24_L
    rows = [  # (row of Table 2.4, formula as printed, our measure, W(i) * gain(1))
        ("Prec", "1/L", f"P@{L}", lambda i: 1 / L),
        ("DCG, Log (b = 2)", "1/log_b(b-1+i)", f"DCG_lu@{L}", lambda i: 1 / math.log2(1 + i)),
        ("DCG, Log (b = 3)", "1/log_b(b-1+i)", f"DCG_lu(discount='log_shift', base=3)@{L}",
         lambda i: 1 / math.log(2 + i, 3)),
        ("DCG, Linear", "L+1-i/L (read as (L+1-i)/L)", f"DCG_lu(discount='linear')@{L}",
         lambda i: (L + 1 - i) / L),
        ("DCG, Zipf", "1/i", f"DCG_lu(discount='zipf')@{L}", lambda i: 1 / i),
        ("RBP (p = 0.8)", "(1-p) p^(i-1)", "RBP(p=0.8)", lambda i: 0.2 * 0.8 ** (i - 1)),
        ("ERR (gmax = 4)", "1/i prod_{j<i} (1 - gain(r_j))", f"ERR@{L}",
         lambda i: (2 ** 1 - 1) / 2 ** 4 / i),
    ]
    measures = [m for _, _, m, _ in rows]
    worst = dict.fromkeys(measures, 0.0)
    for i in range(1, L + 1):
        run = {"1": {f"d{r:02d}": float(100 - r) for r in range(1, L + 1)}}
        qrels = {"1": {f"d{r:02d}": int(r == i) for r in range(1, L + 1)}}
        res = evaluate(qrels, [run], measures, ["trec_eval"])
        for _row, _, m, w in rows:
            got = res.value(res.runs[0], m, "trec_eval")
            worst[m] = max(worst[m], abs(got - w(i)))
    return [Cell(f"{name}: W(i), i = 1..{L}", formula, worst[m],
                 "exact" if worst[m] < 1e-12 else "differs",
                 f"largest |ours - formula| over the ranks, with {m}")
            for name, formula, m, _ in rows]


register(Item(
    id="lu2018:table2.4",
    title="Weighted-precision metrics: the rank weight W_M(i) of each discount",
    where="§2.4.3 p. 34 (Table 2.4, Eq. 2.20); formulas, no numbers",
    command=("tiebreak eval QRELS RUN -m P@10 -m DCG_lu@10 -m \"DCG_lu(discount='zipf')@10\" "
             "-m \"DCG_lu(discount='linear')@10\" -m 'RBP(p=0.8)' -m ERR@10"),
    compute=_table24,
    quick=True,
))
