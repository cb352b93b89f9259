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
    # NIST sample_eval.pl (10 Oct 2011): every name it prints
    "sample_eval": ["infAP", "infNDCG", "iP10", "iP50", "iP1000", "inum_rel_ret", "inum_rel",
                    "num_ret"] + [f"iprec@rec{x / 10:4.2f}" for x in range(11)],
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


if __name__ == "__main__" and len(__import__("sys").argv) == 1:
    main()


# ------------------------------------------------------------------------ per-topic values

def _peer_values(peer, names, f, run):
    """{name: {topic: value}} from the peer itself, for the names it can compute."""
    out = {}
    if peer == "ir_measures":
        import ir_measures as irm
        for n in names:
            try:
                m = irm.parse_measure(n)
                out[n] = {r.query_id: r.value for r in irm.iter_calc([m], f.ir_qrels(),
                                                                      f.ir_run())}
            except Exception:  # noqa: BLE001 - the peer cannot compute it: left out
                continue
    elif peer == "ranx":
        import ranx
        qd = {q: v for q, v in f.qrels_dict.items() if q in run}
        for n in names:
            try:
                out[n] = dict(zip(ranx.Qrels(qd).keys(),
                                  ranx.evaluate(ranx.Qrels(qd), ranx.Run(run), n,
                                                return_mean=False)))
            except Exception:  # noqa: BLE001
                continue
    elif peer == "ntcireval":
        from pyNTCIREVAL import Labeler
        from pyNTCIREVAL.metrics import (
            AP,
            ERR,
            RBP,
            RR,
            Hit,
            MSnDCG,
            NCUguBR,
            NCUguP,
            NCUrbBR,
            NCUrbP,
            OMeasure,
            PMeasure,
            PPlusMeasure,
            Precision,
            QMeasure,
            nDCG,
            nERR,
        )
        g = [1, 2, 3]
        mk = {"RR": lambda x, k: RR(), "O-measure": lambda x, k: OMeasure(x, g, 1.0),
              "P-measure": lambda x, k: PMeasure(x, g, 1.0),
              "P-plus": lambda x, k: PPlusMeasure(x, g, 1.0), "AP": lambda x, k: AP(x, g, k),
              "Q-measure": lambda x, k: QMeasure(x, g, 1.0), "Q": lambda x, k: QMeasure(x, g,
                                                                                        1.0, k),
              "NCUgu,P": lambda x, k: NCUguP(x, g, g), "NCUgu,BR": lambda x, k: NCUguBR(x, g, g,
                                                                                        1.0),
              "NCUrb,P": lambda x, k: NCUrbP(x, g, 0.95),
              "NCUrb,BR": lambda x, k: NCUrbBR(x, g, 0.95, 1.0),
              "RBP": lambda x, k: RBP(x, g, 0.95), "ERR": lambda x, k: ERR(x, g),
              "nDCG": lambda x, k: nDCG(x, g, 2.0, k), "MSnDCG": lambda x, k: MSnDCG(x, g, k),
              "P": lambda x, k: Precision(k), "nERR": lambda x, k: nERR(x, g, k),
              "Hit": lambda x, k: Hit(k)}
        alias = {"QMeasure": "Q-measure", "OMeasure": "O-measure", "PMeasure": "P-measure",
                 "PPlusMeasure": "P-plus", "Precision": "P", "NCUguP": "NCUgu,P"}
        qd = f.qrels_dict
        lists = f.lists()
        for n in names:
            base, _, cut = n.partition("@")
            base = alias.get(base, base)
            if base not in mk:
                continue
            vals = {}
            for q, docs in lists.items():
                lab = Labeler({d: min(v, 3) for d, v in qd.get(q, {}).items() if v >= 0})
                x = lab.compute_per_level_doc_num(4)
                if sum(x[1:]) == 0:
                    continue
                vals[q] = mk[base](x, int(cut) if cut else None).compute(lab.label(docs))
            out[n] = vals
    elif peer == "sklearn":
        import numpy as np
        from sklearn import metrics
        qd = f.qrels_dict
        for n in names:
            name, _, args = n.partition("(")
            kw = eval(f"dict({args}")  # noqa: S307 - the benchmark's own literal names
            fn = getattr(metrics, name)
            vals = {}
            for q, d in run.items():
                docs = list(d)
                y = np.array([[max(qd.get(q, {}).get(x, 0), 0) for x in docs]], float)
                s = np.array([[d[x] for x in docs]])
                vals[q] = float(fn(y, s, **kw))
            out[n] = vals
    return out


def value_counts(shared):
    """(name, topic) agreement with the peers installed here, on TREC DL 2020 BIT.UA-run1's
    top 100 (trec_eval order, handed to every peer with strictly decreasing scores)."""
    import sys
    from pathlib import Path

    import numpy as np

    import tiebreak as tb
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    import flat_runs as fr

    f = fr.load(Path(shared) / fr.DL20[0], Path(shared) / fr.DL20[1]).head(100)
    run: dict = {}
    for t, r, d in zip(f.topic, f.rank, f.docnos):
        run.setdefault(f.topics[t], {})[d] = 100000.0 - float(r)
    qrels = tb.read_qrels(str(Path(shared) / fr.DL20[0]))
    rows = []
    for peer in ("ir_measures", "ranx", "ntcireval", "sklearn"):
        ref = _peer_values(peer, NAMES[peer], f, run)
        tally = {"before": [0, 0, 0], "after": [0, 0, 0]}
        for n, vals in ref.items():
            for when, conv in (("before", None), ("after", peer)):
                c = None if conv is None else convention(
                    conv, **({"g": "1:2:3"} if conv == "ntcireval" else {}))
                try:
                    res = tb.evaluate(qrels, [run], [n], regimes=["trec_eval"],
                                      average="qrels", convention=c)
                except MeasureError:
                    tally[when][2] += len(vals)
                    continue
                tol = 5e-6 if peer == "ir_measures" and "exp-log2" in n or "ERR@" in n \
                    else 1e-9
                for q, v in vals.items():
                    got = res.value(res.runs[0], res.measures[0], "trec_eval", q)
                    ok = np.isfinite(got) and abs(got - v) <= tol + 1e-9 * abs(v)
                    tally[when][0 if ok else 1] += 1
        rows.append((peer, len(ref), tally))
    return rows


if __name__ == "__main__" and len(__import__("sys").argv) > 1:
    for peer, n, t in value_counts(__import__("sys").argv[1]):
        b, a = t["before"], t["after"]
        print(f"| {peer} | {n} names | before {b[0]} / {b[1]} / {b[2]} | after {a[0]} / "
              f"{a[1]} / {a[2]} |")
