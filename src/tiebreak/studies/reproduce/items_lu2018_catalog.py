"""Lu (2018): the numbered tables and figures of chapters 1-7 that no other ``items_lu2018_*``
module computes, each an item with one cell saying why.

X. Lu, *Efficient and Effective Retrieval Using Higher-Order Proximity Models*, PhD thesis,
RMIT University, 2018.

A ``descriptive`` item is a diagram, a literature summary or a worked illustration with no
number or claim to test; a ``not-reproducible-here`` item names what is missing (a document
collection, a run set, a query set). The thesis numbers 95 tables and figures in chapters 1-7
(chapter 7 has none); with the computed items every one has an id
(``tests/test_reproduce_coverage.py`` lists them from the thesis).
"""

from __future__ import annotations

from . import Cell, Item, register

D = "descriptive"
N = "not-reproducible-here"
ROBUST04 = "the Robust04 documents (TREC disks 4 and 5)"
GOV2 = "the GOV2 documents (TB04-06)"
CW09 = "the ClueWeb09 runs and qrels"
SETAB = ("GOV2 and the TREC 2007-2008 Million Query topics sampled into Sets A and B (the "
         "thesis gives the sampling, not the sampled queries)")

#: id suffix -> (title, where, verdict, the one-line reason)
CATALOG = {
    "fig1.1": ("Timeline of IR techniques and systems", "Section 1.1", D,
               "a historical timeline: no number, no claim"),
    "fig1.2": ("A snapshot of Google in 1997-98", "Section 1.1", D, "a screenshot"),
    "fig1.3": ("Relationship between evaluation and retrieval systems", "Section 1.1", D,
               "a diagram"),
    "table2.1": ("Overview of proximity-based retrieval models", "Section 2.2.3", D,
                 "a literature summary (model, higher-order, order constraint, statistic)"),
    "fig2.1": ("Users and retrieval systems in a retrieval task", "Section 2.1", D, "a diagram"),
    "fig2.2": ("An example collection of four documents", "Section 2.2", D,
               "a worked illustration of the inverted file, no number to test"),
    "fig2.3": ("The inverted file of Fig. 2.2", "Section 2.2", D,
               "a worked illustration (the postings of the four documents)"),
    "fig2.4": ("A combined inverted list and partial nextword index", "Section 2.2", D,
               "a worked illustration"),
    "fig2.5": ("The direct file of Fig. 2.2", "Section 2.2", D, "a worked illustration"),
    "table2.2": ("Representing proximity statistics", "Section 2.2.2", D,
                 "a literature summary"),
    "fig2.6": ("The top-d pooling process", "Section 2.3", D,
               "a diagram of pooling (implemented as tiebreak pool)"),
    "table2.3": ("Judgment set construction methods", "Section 2.3", D,
                 "a literature summary (sampling, prioritising, metric dependence, assessors)"),
    "fig2.7": ("An overview of evaluation metrics and approaches", "Section 2.4", D,
               "a diagram"),
    "fig2.8": ("An example TREC document and topic", "Section 2.5", D, "an example"),
    "fig3.1": ("Interval examples for 'scalable vector graphics'", "Section 3.1", D,
               "a worked illustration of intervals"),
    "fig3.2": ("Position lists of the document of Fig. 3.1", "Section 3.1", D,
               "a worked illustration"),
    "table3.3": ("Top three outlier queries by |ΔAP| of OW", "Section 3.2.2", N,
                 f"needs {ROBUST04} and {GOV2} with Indri's runs of the Table 3.1 models"),
    "table3.4": ("Top three outlier queries by |ΔAP| of BOW+OW", "Section 3.2.2", N,
                 f"needs {ROBUST04} and {GOV2} with Indri's runs of the Table 3.1 models"),
    "fig3.5": ("The PLANESWEEP algorithm", "Section 3.3", D, "an illustration of an algorithm"),
    "fig3.6": ("EPS running example", "Section 3.3", D,
               "a running example of the algorithm (implemented in tiebreak.retrieval."
               "intervals)"),
    "fig3.7": ("LPS running example", "Section 3.3", D, "a running example of the algorithm"),
    "fig3.8": ("Input representations and methods", "Section 3.3", D, "a diagram"),
    "table3.5": ("The two sampled query sets (Sets A and B)", "Section 3.3.3", N,
                 f"needs {SETAB}"),
    "fig3.9": ("Term density and query length of Sets A and B", "Section 3.3.3", N,
               f"needs {SETAB}"),
    "fig3.10": ("Time to build the condensed direct file by term density", "Section 3.3.3", N,
                f"needs {SETAB}"),
    "fig3.11": ("Time per document against term density (Set A)", "Section 3.3.3", N,
                f"needs {SETAB}"),
    "fig3.12": ("Arrangement of 'scalable vector graphics' in the inverted file",
                "Section 3.4", D, "a worked illustration"),
    "fig3.13": ("LPS-IF-A running example", "Section 3.4", D,
                "a running example of the algorithm"),
    "fig3.14": ("EPS-DF-A running example", "Section 3.4", D,
                "a running example of the algorithm"),
    "fig3.15": ("Time to find the optimal intervals of all subqueries (Set B)",
                "Section 3.4.6", N, f"needs {SETAB}"),
    "fig4.1": ("A text section relevant to 'women ordained church of england'",
               "Section 4.1.1", D,
               "the example text; its positions are used in lu2018:table4.1"),
    "fig4.2": ("Three dependencies modelled with MRFs", "Section 4.1", D, "a diagram"),
    "fig4.3": ("Three dependencies in graphical representation", "Section 4.1", D,
               "a diagram"),
    "table4.2": ("Test collections used in chapter 4", "Section 4.3.1", N,
                 f"needs TREC-8 ({ROBUST04}), {GOV2} and ClueWeb09B"),
    "fig4.4": ("TREC title query lengths of five query sets", "Section 4.3.1", N,
               "needs the Robust04, TB04-06 and CW09A-2010-2012 topics, not in the shared data"),
    "table4.4": ("Effectiveness of the models on TREC-8 and GOV2", "Section 4.3.2", N,
                 f"needs {ROBUST04} and {GOV2}"),
    "fig4.6": ("Relevance percentages projected on each axis of Fig. 4.5", "Section 4.3.3", N,
               "needs TREC-8 and GOV2 documents with their judgments (the data of Fig. 4.5)"),
    "table4.6": ("Effectiveness on ClueWeb09B (ERR@20, RBP@0.8)", "Section 4.3.4", N,
                 "needs the ClueWeb09B documents and the 2010-2012 web track qrels"),
    "table4.7": ("Ten queries Lkp hurts and helps most (ClueWeb09B)", "Section 4.3.4", N,
                 "needs the ClueWeb09B documents"),
    "fig4.7": ("Per-query change of Lkp, Lkpf, L2p, BCTP against BM25, by bucket",
               "Section 4.3.4", N, f"needs {ROBUST04}, {GOV2} and ClueWeb09B"),
    "table5.1": ("Test collections of chapter 5", "Section 5.2", N,
                 f"describes Robust04, TREC-9 and CW09A-2009/2010: {CW09} and the Robust04 "
                 "runs are not in the shared data"),
    "table5.6": ("The same ratios on condensed runs (Robust04)", "Section 5.5", N,
                 "needs the 42 Robust04 runs and qrels (d = 100)"),
    "fig5.7": ("Condensed AP_b@k and NDCG_a@k (d = 10)", "Section 5.5", N,
               f"needs the Robust04 runs and {CW09}"),
    "fig5.9": ("Volatility of RBP(0.95)@k and ERR@k on CW09A-2010", "Section 5.6", N,
               f"needs {CW09}"),
    "fig6.1": ("An RBP score with d = 10 and d = 100 pools", "Section 6.1", D,
               "an illustration of the score range (LB, UB, residual)"),
    "fig6.2": ("The estimation framework", "Section 6.2", D, "a diagram"),
    "fig6.3": ("Constructing a rank-level estimator", "Section 6.2.1", D,
               "a running example (empirical gain 6/6 = 1 at rank 1) of Eq. 6.5"),
    "fig6.4": ("Examples of G_z and G_w", "Section 6.2.1", D,
               "curves of two formulas for chosen parameters, no data"),
    "fig6.5": ("Fitted gain curves for Robust04 topic 673 and TB05 topic 751",
               "Section 6.3.2", N, "needs the Robust04 runs and qrels and the TB05 (GOV2) runs"),
    "fig6.6": ("The ranking matrix of the documents", "Section 6.2.2", D,
               "a running example"),
    "fig6.8": ("theta against the RMSE of epsilon on TREC-5 and TREC-7 (d' = 10)",
               "Section 6.3.3", N, "needs the TREC-5 and TREC-7 runs and qrels"),
    "fig6.9": ("System orderings predicted by the rank-level estimators", "Section 6.3.4", N,
               "needs the TREC-9/10, Robust04 and TB04-06 runs and qrels"),
    "fig6.10": ("System orderings predicted by the two-stage estimators", "Section 6.4", N,
                "needs the TREC-9/10, Robust04 and TB04-06 runs and qrels"),
    "fig6.11": ("System orderings on a two-strata sample, ten repetitions", "Section 6.4", N,
                "needs the TREC-9/10, Robust04 and TB04-06 runs and qrels"),
}


def _one(verdict: str, note: str):
    def compute(ctx) -> list[Cell]:
        return [Cell("(item)", "", None, verdict, note)]
    return compute


for _suffix, (_title, _where, _verdict, _note) in CATALOG.items():
    register(Item(f"lu2018:{_suffix}", _title, _where, "(none)", _one(_verdict, _note),
                  quick=True, kind="figure" if _suffix.startswith("fig") else "table"))
