"""Reproduction items of Lu (2018), chapter 3 (term-dependency configurations and the cost of
finding intervals).

Chapter 3's experiments run on Robust04 (TREC disks 4 and 5), TB04-06 (GOV2) and ClueWeb09A
with Indri; none of those document collections is in the shared data, so the effectiveness and
timing tables are ``not-reproducible-here``. Table 3.1 (the configurations) is checked against
the registered configurations (:mod:`tiebreak.retrieval.configs`).
"""

from __future__ import annotations

from . import Cell, Context, Item, register

_NO_DOCS = ("needs the documents of {what}, which are not in the shared data (only runs and "
            "qrels of TREC Robust 2003 are); the nine classic collections are too small and "
            "have long natural-language topics, so they are substitutes for the shape only "
            "(tiebreak study proximity --table31 thesis)")


def _table31(ctx: Context) -> list[Cell]:
    from ...retrieval.configs import TABLE_3_1, query_form

    paper = {  # Table 3.1, p. 47 (section 3.2.1): lambda_t, lambda_ow, lambda_uw
        "BOW": ("1", "0", "0"), "BOW+OW": ("0.85", "0.15", "0"),
        "BOW+UW": ("0.85", "0", "0.15"), "SDM": ("0.8", "0.1", "0.1"),
        "FDM": ("0.8", "0.15", "0.05"),
    }
    # the "Subqueries" column as printed, and our count of the features it gives a 3-term query
    subq = {"BOW": "individual q in Q", "BOW+OW": "adjacent, |Q'| >= 2",
            "BOW+UW": "all Q' in Q'_i (i >= 2)", "SDM": "adjacent for all Q' in Q'_2",
            "FDM": "all subqueries Q' in Q'_i (i >= 2)"}
    feats = {"BOW": (0, 0), "BOW+OW": (3, 0), "BOW+UW": (0, 4), "SDM": (2, 2), "FDM": (3, 4)}
    cells = []
    for name, (model, params) in TABLE_3_1.items():
        w = params.get("weights", (1.0, 0.0, 0.0))
        for lab, p, ours in zip(("lambda_t", "lambda_ow", "lambda_uw"), paper[name], w):
            ok = abs(float(p) - float(ours)) < 1e-12
            cells.append(Cell(f"row={name} col={lab}", p, float(ours),
                              "exact" if ok else "differs"))
        groups = query_form(model, params, ["a", "b", "c"])
        ow = sum(len(f) for _, f in groups if f and f[0].startswith("#1("))
        uw = sum(len(f) for _, f in groups if f and f[0].startswith("#uw"))
        want = feats[name]
        cells.append(Cell(f"row={name} col=Subqueries: features of a 3-term query (ordered, "
                          "unordered)", subq[name], f"{ow}, {uw}",
                          "exact" if (ow, uw) == want else "differs",
                          f"the count {want[0]}, {want[1]} is ours, read from the printed "
                          "subquery set; ours counted from the query form"))
    return cells


register(Item(
    "lu2018:table3.1", "Configurations of the term-dependency models (BOW, +OW, +UW, SDM, FDM)",
    "section 3.2.1, Table 3.1", "tiebreak models  (aliases bow, bow+ow, bow+uw, sdm31, fdm31)",
    _table31, quick=True))


def _not_here(what: str):
    def compute(ctx: Context) -> list[Cell]:
        return [Cell("(item)", "", None, "not-reproducible-here", _NO_DOCS.format(what=what))]
    return compute


register(Item(
    "lu2018:table3.2", "Effectiveness of BOW, BOW+OW, BOW+UW, SDM, FDM (NDCG@10, RBP, AP)",
    "section 3.2.2, Table 3.2",
    "tiebreak study proximity --table31 thesis --index IDX --topics T --qrels Q",
    _not_here("Robust04, GOV2 (TB04-06) and ClueWeb09A")))
register(Item(
    "lu2018:fig3.3", "Per-query AP change against BOW, by bucket, for the Table 3.1 models",
    "section 3.2.2, Figure 3.3", "tiebreak study proximity --table31 thesis ... (deltas.tsv)",
    _not_here("Robust04 and GOV2 (TB04-06)"), kind="figure",
    description="Bars: share of queries per AP-change bucket (x) for BOW+OW, BOW+UW, SDM, FDM "
                "against BOW; BOW+UW has the fewest large losses."))
register(Item(
    "lu2018:table3.6", "Time to find the optimal |Q|-intervals (Set A, msec/doc)",
    "section 3.3.3, Table 3.6", "python benchmarks/bench_intervals.py",
    _not_here("GOV2 and the TREC 2007-2008 Million Query topics (Set A)")))
register(Item(
    "lu2018:table3.7", "Time to find the optimal intervals of all subqueries (Set A)",
    "section 3.4.6, Table 3.7", "python benchmarks/bench_intervals.py",
    _not_here("GOV2 and the TREC 2007-2008 Million Query topics (Set A)")))
