"""Per-peer counts under the peers' own spellings, before and after ``--convention``.

For each peer, the names below are spelled as the peer spells them (taken from the peer's own
test suite, metric list or documentation). The *meaning* of each name in the peer is the
measure the convention parses it to: tests/test_measures_peer_conventions.py and
tests/test_measures_conventions.py check those meanings against the peer (ir_measures, ranx,
pyNTCIREVAL, scikit-learn) or against an independent implementation of the peer's documented
formula (Spark, Elasticsearch).

* before: the name given to ``tiebreak eval -m`` without a convention. ``agree`` when it parses
  to the peer's meaning, ``differ`` when it parses to another measure, ``missing`` when it is
  refused.
* after: the same name with ``--convention PEER``: ``agree`` when it parses (to the peer's
  meaning), ``refused`` when it fails with an error stating the peer's meaning (no tiebreak
  measure has it), ``missing`` when it is unknown.

Run: ``python benchmarks/bench_conventions.py``.
"""

from __future__ import annotations

from tiebreak.measures import MeasureError, parse_measure_list
from tiebreak.measures.conventions import ConventionError, convention

NAMES = {
    # ir_measures' tests/test_pytrec_eval.py, test_cwl_eval.py, test_compat.py, test_judged.py,
    # test_gdeval.py, test_pyndeval.py, test_accuracy.py and the issue's
    "ir_measures": [
        "AP", "AP(rel=2)", "AP@4", "IPrec(rel=2)@0.1", "IPrec@0.5", "NumQ", "NumRel", "NumRet",
        "NumRet(rel=1)", "NumRet(rel=2)", "P(judged_only=True)@4", "P@4", "R@2", "RR",
        "Rprec", "SetAP", "SetAP(rel=2)", "SetF", "SetF(rel=1, beta=0.5)", "SetF(rel=3)",
        "SetP", "SetP(rel=2)", "SetR(rel=1)", "SetR(rel=3)", "SetRelP(rel=1)",
        "SetRelP(rel=2)", "Success(rel=2)@2", "Success@2", "infAP", "infAP(rel=2)", "nDCG",
        "nDCG(gains={0:1,1:4})", "nDCG@3", "Bpref", "Judged@10", "Judged", "ERR@20",
        "nDCG(dcg='exp-log2')@20", "Compat(p=0.8)", "Compat(p=0.95)", "Accuracy",
        "Accuracy@10", "alpha_nDCG@20", "ERR_IA@20", "NRBP", "P_IA@10", "StRecall@10",
        "AP_IA", "SDCG(max_rel=3)@10", "INST(T=1,max_rel=3)", "INSQ(T=1,max_rel=3)",
        "NERR8(max_rel=3)@10", "NERR10(p=0.8,max_rel=3)", "BPM(T=1,max_rel=3)@10",
        "RBP(p=0.8)", "RBP(p=0.8,rel=1)", "SetP(relative=True)", "SetP(rel=2)@5",
        "SetR(rel=2)@5"],
    # ranx's metric list (ranx/metrics/__init__.py) and tests/unit/ranx/metrics_test.py
    "ranx": ["hits", "hits@10", "hits@10-l2", "hit_rate@5", "precision", "precision@10",
             "precision@10-l2", "recall", "recall@100", "f1", "f1@10", "r-precision", "mrr",
             "mrr@10", "map", "map@100", "map@100-l2", "ndcg", "ndcg@10", "ndcg@10-l2",
             "ndcg_burges@10", "dcg@10", "dcg_burges@10", "bpref", "rbp.8", "rbp.95"],
    # what ntcir_eval compute prints (C NTCIREVAL spelling and pyNTCIREVAL's)
    "ntcireval": ["RR", "O-measure", "P-measure", "P-plus", "AP", "Q-measure", "NCUgu,P",
                  "NCUgu,BR", "NCUrb,P", "NCUrb,BR", "RBP", "ERR", "AP@0010", "Q@0010",
                  "nDCG@0010", "MSnDCG@0010", "P@0010", "nERR@0010", "Hit@0010", "AP@0002",
                  "nDCG@1000", "QMeasure", "OMeasure", "PMeasure", "PPlusMeasure",
                  "Precision@0010", "NCUguP"],
    "trec_eval": ["map", "P.5,10", "P_10", "ndcg", "ndcg_cut.10", "recip_rank", "bpref",
                  "Rprec", "recall.100", "set_P", "set_F", "infAP", "num_rel_ret", "gm_map",
                  "iprec_at_recall", "11pt_avg", "rbp", "success.1,5,10", "map_cut.100"],
    "trectools": ["get_map(depth=1000)", "get_precision(depth=10)", "get_recall(depth=100)",
                  "get_ndcg(depth=10)", "get_ndcg(depth=10, trec_eval=False)",
                  "get_rprec()", "get_reciprocal_rank()", "get_bpref()", "get_rbp(p=0.8)",
                  "get_rbp(p=0.8, binary_topical_relevance=False)", "get_unjudged(depth=10)"],
    "sklearn": ["ndcg_score(k=10)", "ndcg_score()", "dcg_score(k=10)",
                "dcg_score(k=10, log_base=10)"],
    "spark": ["precisionAt(10)", "recallAt(10)", "ndcgAt(10)", "meanAveragePrecision",
              "meanAveragePrecisionAt(10)"],
    "elasticsearch": ["precision(k=10)", "precision(k=20, relevant_rating_threshold=2)",
                      "recall(k=10)", "mean_reciprocal_rank(k=10)", "dcg(k=10)",
                      "dcg(k=10, normalize=true)", "dcg(k=10, unknown_doc_rating=1)",
                      "expected_reciprocal_rank(maximum_relevance=3, k=10)"],
    "cwl": ["NDCG-k@10", "INST-T=1.0", "INSQ-T=1.0", "NERR-EQ8@k=10", "NERR-EQ9@k=10",
            "NERR-EQ10@phi=0.9", "NERR-EQ11@T=1.0", "TBG-H@224", "U-L@50",
            "BPM-Static-T=1-K=10", "P@10", "RBP@0.9", "RR", "AP", "NDCGCWLMetric(10)",
            "INSTCWLMetric(2.0)"],
}


def _same(a, b) -> bool:
    return [(m.family.name, m.cutoff, m.values) for m in a] == \
        [(m.family.name, m.cutoff, m.values) for m in b]


def counts(peer: str, names: list[str]):
    conv = convention(peer, **({"g": "1:2:3"} if peer == "ntcireval" else {}))
    before = {"agree": 0, "differ": 0, "missing": 0}
    after = {"agree": 0, "refused": 0, "missing": 0}
    for n in names:
        try:
            ours = conv.parse(n)
            after["agree"] += 1
        except ConventionError as e:
            ours = None
            after["refused" if ": " in str(e) and "is not" not in str(e) else "missing"] += 1
        try:
            got = parse_measure_list(n)
        except (MeasureError, TypeError):
            before["missing"] += 1
            continue
        before["agree" if ours is not None and _same(got, ours) else "differ"] += 1
    return before, after


def main():
    tot_b = {"agree": 0, "differ": 0, "missing": 0}
    tot_a = {"agree": 0, "refused": 0, "missing": 0}
    print("| peer | names | before: agree / differ / missing | after: agree / refused "
          "(error naming the peer's meaning) / missing |")
    print("|---|---|---|---|")
    for peer, names in NAMES.items():
        b, a = counts(peer, names)
        for k in b:
            tot_b[k] += b[k]
        for k in a:
            tot_a[k] += a[k]
        print(f"| {peer} | {len(names)} | {b['agree']} / {b['differ']} / {b['missing']} | "
              f"{a['agree']} / {a['refused']} / {a['missing']} |")
    n = sum(len(v) for v in NAMES.values())
    print(f"| all | {n} | {tot_b['agree']} / {tot_b['differ']} / {tot_b['missing']} | "
          f"{tot_a['agree']} / {tot_a['refused']} / {tot_a['missing']} |")


if __name__ == "__main__":
    main()
