"""``--convention PEER``: every name read as the peer spells it, checked against the peer
(installed as a test oracle) or, for the peers not installable here (Spark, Elasticsearch), an
independent implementation of their documented formula; names a peer has but tiebreak cannot
give the peer's meaning fail with an error naming both."""

from __future__ import annotations

import random
import subprocess

import flat_runs as fr
import numpy as np
import pytest

import tiebreak as tb
from tiebreak.measures import MeasureError
from tiebreak.measures.conventions import PEERS, ConventionError, convention


@pytest.fixture(scope="module")
def dl20(shared_data):
    f = fr.load(shared_data / fr.DL20[0], shared_data / fr.DL20[1]).head(100)
    run = {}
    for t, r, d in zip(f.topic, f.rank, f.docnos):
        run.setdefault(f.topics[t], {})[d] = 100000.0 - float(r)
    return f, run, tb.read_qrels(str(shared_data / fr.DL20[0]))


def _ours(qrels, run, names, topics, conv, regime="trec_eval"):
    res = tb.evaluate(qrels, [run], names, regimes=[regime], average="run-topics",
                      convention=conv)
    return {n: np.array([res.value(res.runs[0], n, regime, q) for q in topics]) for n in names}


NTCIR = ["RR", "O-measure", "P-measure", "P-plus", "AP", "Q-measure", "NCUgu,P", "NCUgu,BR",
         "NCUrb,P", "NCUrb,BR", "RBP", "ERR", "AP@0010", "Q@0010", "nDCG@0010", "MSnDCG@0010",
         "P@0010", "nERR@0010", "Hit@0010", "AP@0002", "nDCG@1000"]


@pytest.mark.slow
def test_ntcireval_names_against_ntcir_eval_compute(tmp_path):
    """``--convention ntcireval -g 1:2:3``: every name ``ntcir_eval compute -g 1:2:3`` prints,
    per topic, equals pyNTCIREVAL's printed value (4 decimals) in file order; the CLI prints
    the issue's four names."""
    pytest.importorskip("pyNTCIREVAL", reason="pyNTCIREVAL (test extra) is not installed")
    rng = random.Random(3)
    ql, rl = [], []
    for q in range(6):
        docs = [f"d{i}" for i in range(40)]
        for d in rng.sample(docs, 25):
            ql.append(f"q{q} 0 {d} {rng.choice([0, 0, 0, 1, 2, 3])}")
        for i, d in enumerate(rng.sample(docs, 30)):
            rl.append(f"q{q} Q0 {d} {i + 1} {100 - i} r1")
    (tmp_path / "q").write_text("\n".join(ql) + "\n")
    (tmp_path / "r").write_text("\n".join(rl) + "\n")
    # the oracle: ntcir_eval label + compute per topic (pyNTCIREVAL prints class names)
    printed = {"O-measure": "OMeasure", "P-measure": "PMeasure", "P-plus": "PPlusMeasure",
               "Q-measure": "QMeasure", "NCUgu,P": "NCUguP", "NCUgu,BR": "NCUguBR",
               "NCUrb,P": "NCUrbP", "NCUrb,BR": "NCUrbBR", "Q@0010": "QMeasure@0010",
               "P@0010": "Precision@0010"}
    ref = {}
    for q in range(6):
        qid = f"q{q}"
        rel = "".join(f"{x.split()[2]} L{x.split()[3]}\n" for x in ql if x.split()[0] == qid)
        (tmp_path / "rel").write_text(rel)
        (tmp_path / "run").write_text("".join(x.split()[2] + "\n" for x in rl
                                              if x.split()[0] == qid))
        lab = subprocess.run(["pyNTCIREVAL", "label", "-r", str(tmp_path / "rel"),
                              str(tmp_path / "run")], capture_output=True, text=True,
                             check=True).stdout
        (tmp_path / "lab").write_text(lab)
        out = subprocess.run(["pyNTCIREVAL", "compute", "-r", str(tmp_path / "rel"), "-g",
                              "1:2:3", "--cutoffs", "2,10,1000", str(tmp_path / "lab")],
                             capture_output=True, text=True, check=True).stdout
        ref[qid] = {k.strip(): float(v) for k, v in (ln.split("=") for ln in out.splitlines()
                                                     if "=" in ln and "#" not in ln)}
    conv = convention("ntcireval", g="1:2:3")
    res = tb.evaluate(str(tmp_path / "q"), [str(tmp_path / "r")], NTCIR, regimes=["file"],
                      convention=conv)
    for n in NTCIR:
        for qid in ref:
            got = res.value(res.runs[0], n, "file", qid)
            assert f"{got:.4f}" == f"{ref[qid][printed.get(n, n)]:.4f}", (n, qid)
    cli = subprocess.run(["tiebreak", "eval", str(tmp_path / "q"), str(tmp_path / "r"),
                          "--convention", "ntcireval", "-g", "1:2:3", "-m", "Q-measure", "-m",
                          "NCUgu,P", "-m", "nDCG@1000", "-m", "AP@0002", "--regime", "file",
                          "-q", "--format", "tsv", "--quiet"], capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    rows = [ln.split("\t") for ln in cli.stdout.splitlines()]
    for name, regime, qid, val in ((r[1], r[2], r[3], r[4]) for r in rows if r[3] != "all"):
        assert regime == "file"
        assert f"{float(val):.4f}" == f"{ref[qid][printed.get(name, name)]:.4f}", (name, qid)
    # NTCIREVAL's nDCG is Jarvelin's (with gains), AP@k is normalised by min(R, k)
    assert conv.parse("nDCG@0010")[0].family.name == "nDCG_orig"
    assert conv.parse("AP@0002")[0].canonical == "AP_b@2"


def test_ranx_names_without_cutoff(dl20):
    """ranx without @k evaluates the whole run: precision = SetP, f1 = SetF, recall, hits."""
    ranx = pytest.importorskip("ranx", reason="ranx (test extra) is not installed")
    f, run, qrels = dl20
    qd = {q: v for q, v in f.qrels_dict.items() if q in run}
    names = ["precision", "f1", "recall", "hits", "mrr", "map", "ndcg", "precision@10",
             "ndcg_burges@10", "rbp.8", "map@100-l2"]
    ref = ranx.evaluate(ranx.Qrels(qd), ranx.Run(run), names, return_mean=False)
    topics = list(ranx.Qrels(qd).keys())
    ours = _ours(qrels, run, names, topics, "ranx")
    for n in names:
        np.testing.assert_allclose(ours[n], ref[n], rtol=1e-12, atol=1e-12, err_msg=n)


def test_ir_measures_names(dl20):
    """ir_measures' SetP(relative=True) and RBP without rel= (its trectools provider: raw
    grades); SetP/SetR with a cutoff fail as in ir_measures, naming tiebreak's P@k/R@k."""
    irm = pytest.importorskip("ir_measures", reason="ir_measures (test extra) not installed")
    f, run, qrels = dl20
    topics = sorted(run)
    names = ["SetP(relative=True)", "SetP(rel=2,relative=True)", "AP(rel=2)@10", "Bpref",
             "nDCG(dcg='exp-log2')@10"]
    ours = _ours(qrels, run, names, topics, "ir_measures")
    for n in names:
        ref = {r.query_id: r.value for r in irm.iter_calc([irm.parse_measure(n)],
                                                           f.ir_qrels(), f.ir_run())}
        tol = 5e-6 if "exp-log2" in n else 1e-12  # gdeval prints 5 decimals
        np.testing.assert_allclose(ours[n], [ref[q] for q in topics], atol=tol, err_msg=n)
    c = convention("ir_measures")
    assert c.parse("RBP(p=0.8)")[0]["graded"] is True
    assert c.parse("RBP(p=0.8,rel=1)")[0]["graded"] is False
    for n, ours_ in (("SetP(rel=2)@5", "P(rel=2)@5"), ("SetR(rel=2)@5", "R(rel=2)@5")):
        with pytest.raises(ConventionError, match=r"takes no cutoff.*tiebreak spells it " +
                           ours_.replace("(", r"\(").replace(")", r"\)")):
            c.parse(n)
    with pytest.raises(ConventionError, match="not an ir_measures measure"):
        c.parse("map")
    with pytest.raises(ConventionError, match="case-sensitive"):
        c.parse("ndcg@10")
    assert [c.parse(n)[0].canonical for n in ("MAP", "Recall@10", "BPref", "\u03b1_nDCG@20",
                                              "Compat(p=0.8,normalize=True)")] == \
        ["AP", "R@10", "bpref", "alpha_nDCG@20", "Compat(p=0.8,ideal='ir_measures')"]


def test_sklearn_ndcg_and_dcg(dl20):
    """sklearn's ndcg_score (ideal from the scored documents) and dcg_score(log_base=),
    per topic, over the top 100 with unjudged documents at relevance 0."""
    metrics = pytest.importorskip("sklearn.metrics")
    f, run, qrels = dl20
    topics = sorted(run)
    names = ["ndcg_score(k=10)", "ndcg_score()", "dcg_score(k=5, log_base=10)"]
    ours = _ours(qrels, run, names, topics, "sklearn")
    qd = f.qrels_dict
    for q, i in zip(topics, range(len(topics))):
        docs = list(run[q])
        y = np.array([[max(qd.get(q, {}).get(d, 0), 0) for d in docs]], float)
        s = np.array([[run[q][d] for d in docs]])
        assert ours[names[0]][i] == pytest.approx(metrics.ndcg_score(y, s, k=10), abs=1e-12)
        assert ours[names[1]][i] == pytest.approx(metrics.ndcg_score(y, s), abs=1e-12)
        assert ours[names[2]][i] == pytest.approx(metrics.dcg_score(y, s, k=5, log_base=10),
                                                  abs=1e-12)


def _spark_es_reference(grades, R_by_grade, k):
    """Spark RankingMetrics and Elasticsearch rank_eval, written from their documentation."""
    rel = [g >= 1 for g in grades]
    R = sum(n for g, n in R_by_grade.items() if g >= 1)
    top = rel[:k]
    out = {"precisionAt": sum(top) / k, "recallAt": sum(top) / R if R else 0.0}
    hits, s = 0, 0.0
    for i, r in enumerate(top):
        if r:
            hits += 1
            s += hits / (i + 1)
    out["meanAveragePrecisionAt"] = s / min(R, k) if R else 0.0
    dcg = sum(1 / np.log2(i + 2) for i, r in enumerate(top) if r)
    idcg = sum(1 / np.log2(i + 2) for i in range(min(R, k)))
    out["ndcgAt"] = dcg / idcg if idcg else 0.0
    ideal = sorted((g for g, n in R_by_grade.items() for _ in range(n)), reverse=True)[:k]
    edcg = sum((2 ** max(g, 0) - 1) / np.log2(i + 2) for i, g in enumerate(grades[:k]))
    eidcg = sum((2 ** g - 1) / np.log2(i + 2) for i, g in enumerate(ideal))
    out["dcg"], out["ndcg"] = edcg, edcg / eidcg if eidcg else 0.0
    err, keep = 0.0, 1.0
    for i, g in enumerate(grades[:k]):
        p = (2 ** max(g, 0) - 1) / 2 ** 3
        err += keep * p / (i + 1)
        keep *= 1 - p
    out["err"] = err
    return out


def test_spark_and_elasticsearch(dl20):
    f, run, qrels = dl20
    topics = sorted(run)
    k = 10
    spark = ["precisionAt(10)", "recallAt(10)", "meanAveragePrecisionAt(10)", "ndcgAt(10)"]
    es = ["dcg(k=10)", "dcg(k=10, normalize=true)",
          "expected_reciprocal_rank(maximum_relevance=3, k=10)"]
    o1 = _ours(qrels, run, spark, topics, "spark")
    o2 = _ours(qrels, run, es, topics, "elasticsearch")
    qd = f.qrels_dict
    for i, q in enumerate(topics):
        docs = sorted(run[q], key=lambda d: -run[q][d])
        grades = [qd.get(q, {}).get(d, 0) for d in docs]
        counts: dict = {}
        for v in qd.get(q, {}).values():
            counts[v] = counts.get(v, 0) + 1
        ref = _spark_es_reference(grades, counts, k)
        for n in spark:
            assert o1[n][i] == pytest.approx(ref[n.split("(")[0]], abs=1e-12), (n, q)
        assert o2[es[0]][i] == pytest.approx(ref["dcg"], abs=1e-9)
        assert o2[es[1]][i] == pytest.approx(ref["ndcg"], abs=1e-12)
        assert o2[es[2]][i] == pytest.approx(ref["err"], abs=1e-12)
    with pytest.raises(ConventionError, match="unknown_doc_rating"):
        convention("elasticsearch").parse("expected_reciprocal_rank(maximum_relevance=3, "
                                          "unknown_doc_rating=1)")


def test_other_spellings_and_errors():
    """trectools, cwl_eval and trec_eval spellings parse to the peer's meaning; names a peer
    has with another meaning fail, naming it; every peer is a choice of the CLI."""
    tt = convention("trectools")
    assert tt.parse("get_map(depth=100)")[0].canonical == "AP@100"
    assert tt.parse("get_rbp(p=0.5, binary_topical_relevance=False)")[0].canonical == \
        "RBP(p=0.5,graded=True)@1000"
    assert tt.parse("get_ndcg(depth=10, removeUnjudged=True)")[0].canonical == \
        "nDCG(judged_only=True)@10"
    with pytest.raises(ConventionError, match="exponential gains.*nDCG\\(dcg='exp-log2'\\)"):
        tt.parse("get_ndcg(depth=10, trec_eval=False)")
    cw = convention("cwl")
    assert [cw.parse(n)[0].canonical for n in ("NDCG-k@10", "NDCGCWLMetric(10)",
                                               "INST-T=2.0", "NERR-EQ10@phi=0.5",
                                               "BPM-Static-T=2-K=20")] == \
        ["SDCG@10", "SDCG@10", "INST(T=2)", "NERR10(p=0.5)", "BPM(T=2)@20"]
    with pytest.raises(ConventionError, match="C/W/L forms"):
        cw.parse("P@10")
    te = convention("trec_eval")
    assert [m.canonical for m in te.parse("P.5,10")] == ["P@5", "P@10"]
    with pytest.raises(ConventionError, match="not a trec_eval measure"):
        te.parse("AP")
    with pytest.raises(ValueError, match="unknown convention"):
        convention("galago")
    with pytest.raises(ConventionError, match="without a cutoff"):
        convention("ntcireval").parse("P-plus@0010")
    sk = convention("sklearn")
    assert sk.parse("dcg_score(k=10, log_base=10)")[0]["base"] == 10
    assert isinstance(ConventionError("x"), MeasureError)
    assert len(PEERS) == 10  # sample_eval added (issue 26)


def test_compat_gap_with_ir_measures_is_negative_scores(shared_data, tmp_path):
    """Compat(p=0.95) on TREC DL 2020 BIT.UA-run1: ir_measures gives 0.43364, below every tie
    order of tiebreak (0.43392-0.43492), because it scores unretrieved relevant documents 0 when
    it orders the ideal ranking, ahead of retrieved ones with negative scores. Raised by 100,
    the run's value in ir_measures equals tiebreak's in ir_measures' tie order (docno
    ascending), written out as an untied run."""
    irm = pytest.importorskip("ir_measures", reason="ir_measures (test extra) not installed")
    d = shared_data / "trec_dl2020_bitua"
    q, r = str(d / "qrels.dl20-doc.txt"), str(d / "runs" / "BIT.UA-run1.txt.gz")
    M = irm.parse_measure("Compat(p=0.95)")
    qr, run = list(irm.read_trec_qrels(q)), list(irm.read_trec_run(r))
    assert irm.calc_aggregate([M], qr, run)[M] == pytest.approx(0.43364, abs=5e-6)
    shifted = irm.calc_aggregate([M], qr, [s._replace(score=s.score + 100) for s in run])[M]
    by: dict = {}
    for s in sorted(sorted(run, key=lambda s: s.doc_id), key=lambda s: -s.score):
        by.setdefault(s.query_id, []).append(s.doc_id)
    (tmp_path / "u").write_text("".join(f"{qid} Q0 {doc} {i + 1} {1000 - i} u\n"
                                        for qid, docs in by.items()
                                        for i, doc in enumerate(docs)))
    res = tb.evaluate(q, [str(tmp_path / "u"), r], ["Compat(p=0.95)"],
                      regimes=["trec_eval", "lower", "upper"])
    assert res.mean[0, 0, 0] == pytest.approx(shifted, abs=1e-12)
    assert res.mean[1, 0].round(5).tolist() == [0.43420, 0.43392, 0.43492]
    assert res.mean[1, 0, 1] <= shifted <= res.mean[1, 0, 2]


def test_elasticsearch_unknown_doc_rating(dl20):
    """dcg(unknown_doc_rating=G): unrated hits count as grade G (gain 2^G - 1), the ideal keeps
    the rated documents only; against the documented formula per topic."""
    f, run, qrels = dl20
    topics = sorted(run)
    names = ["dcg(k=100, unknown_doc_rating=1)",
             "dcg(k=100, normalize=true, unknown_doc_rating=2)"]
    o = _ours(qrels, run, names, topics, "elasticsearch")
    qd = f.qrels_dict
    for i, q in enumerate(topics):
        docs = sorted(run[q], key=lambda d: -run[q][d])[:100]
        for n, G, norm in ((names[0], 1, False), (names[1], 2, True)):
            g = [qd.get(q, {}).get(d, G) for d in docs]
            dcg = sum((2 ** max(x, 0) - 1) / np.log2(j + 2) for j, x in enumerate(g))
            ideal = sorted((v for v in qd.get(q, {}).values() if v > 0), reverse=True)[:100]
            idcg = sum((2 ** x - 1) / np.log2(j + 2) for j, x in enumerate(ideal))
            want = dcg / idcg if norm else dcg
            assert o[n][i] == pytest.approx(want, rel=1e-12, abs=1e-12), (n, q)
    assert np.any(o[names[0]] > _ours(qrels, run, ["dcg(k=100)"], topics,
                                      "elasticsearch")["dcg(k=100)"])


def test_unjudged_grade_expected_is_exact_under_ties():
    """DCG(unjudged=1) under the expected regime equals the mean over every order of a tied
    group holding judged and unjudged documents (brute force)."""
    import itertools
    qrels = {"q": {"a": 2, "b": 0, "c": 1, "z": 0}}
    docs = {"a": 3.0, "b": 2.0, "c": 2.0, "u1": 2.0, "u2": 1.0}
    name = "DCG(unjudged=1)@4"
    res = tb.evaluate(qrels, [{"q": docs}], [name], regimes=["expected"])
    tied = ["b", "c", "u1"]
    vals = []
    for perm in itertools.permutations(tied):
        order = ["a", *perm, "u2"]
        r = {"q": {d: 10.0 - i for i, d in enumerate(order)}}
        vals.append(tb.evaluate(qrels, [r], [name], regimes=["file"]).mean[0, 0, 0])
    assert res.mean[0, 0, 0] == pytest.approx(np.mean(vals), rel=1e-12)
    with pytest.raises(MeasureError, match="grades 0 to 2"):
        tb.evaluate(qrels, [{"q": docs}], ["DCG(unjudged=5)"])


def test_eval_cli_convention_errors(tmp_path):
    """-g needs --convention ntcireval; a name outside the peer's spelling exits 2 with the
    peer named."""
    from click.testing import CliRunner

    from tiebreak.cli import main

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n")
    q, r = str(tmp_path / "q"), str(tmp_path / "r")
    out = CliRunner().invoke(main, ["eval", q, r, "-g", "1:2", "-m", "Q-measure"])
    assert out.exit_code == 2 and "--convention ntcireval" in out.output
    out = CliRunner().invoke(main, ["eval", q, r, "--convention", "spark", "-m", "map"])
    assert out.exit_code == 2 and "Spark RankingMetrics" in out.output
    out = CliRunner().invoke(main, ["eval", q, r, "--convention", "ntcireval", "-g", "1",
                                    "-m", "Q-measure", "--regime", "file", "--format", "tsv"])
    assert out.exit_code == 0 and out.output.splitlines()[-1].split("\t")[-1] == "1.0"


def test_cwl_eval_is_reproduced_by_the_file_regime(shared_data):
    """The measure table says cwl_eval scores in file order: on the tied BIT.UA-run1 the file
    regime equals ir_measures' cwl_eval provider per topic, the trec_eval order does not."""
    irm = pytest.importorskip("ir_measures", reason="ir_measures (test extra) not installed")
    pytest.importorskip("cwl", reason="cwl-eval (test extra) not installed")
    from tiebreak.measures.table import rows

    d = shared_data / "trec_dl2020_bitua"
    q, r = str(d / "qrels.dl20-doc.txt"), str(d / "runs" / "BIT.UA-run1.txt.gz")
    names = ["SDCG(max_rel=3)@10", "INST(T=1,max_rel=3)", "INSQ(T=1,max_rel=3)"]
    ms = [irm.parse_measure(n) for n in names]
    ref: dict = {}
    for x in irm.cwl_eval.iter_calc(ms, list(irm.read_trec_qrels(q)),
                                    list(irm.read_trec_run(r))):
        ref.setdefault(str(x.measure), {})[x.query_id] = x.value
    res = tb.evaluate(q, [r], names, regimes=["file", "trec_eval"])
    for n, m in zip(names, ms):
        want = np.array(list(ref[str(m)].values()))
        got = {g: np.array([res.value(res.runs[0], n, g, t) for t in ref[str(m)]])
               for g in ("file", "trec_eval")}
        np.testing.assert_allclose(got["file"], want, atol=1e-12, err_msg=n)
        assert np.abs(got["trec_eval"] - want).max() > 1e-3, n
    table = {x["measure"]: x["provider"] for x in rows()}
    assert all(": file" in table[k] for k in ("SDCG@k", "INST", "INSQ", "NERR8@k"))
