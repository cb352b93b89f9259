"""tiebreak study proximity (tiebreak.studies.study_proximity): the per-topic change
buckets, the cross-validated lambda (never chosen on the test topics), and the command end to
end on a small collection."""

from __future__ import annotations

import csv
import json
import random

import numpy as np
import pytest
from click.testing import CliRunner

from tiebreak.studies.study_proximity import cv_lambda, delta_buckets


def test_delta_buckets():
    base = [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.0, 0.0]
    ap = [0.2, 0.4, 0.49, 0.5, 0.52, 0.6, 0.9, 1.0, 0.3, 0.0]
    labels, counts = delta_buckets(ap, base)
    assert dict(zip(labels, counts.tolist())) == {
        "<=-50": 1, "(-50,-10]": 1, "(-10,0)": 1, "=0": 2, "(0,10)": 1, "[10,50)": 1,
        "[50,100)": 1, ">=100": 1, "base=0": 1}


def test_robustness_by_hand():
    from tiebreak.studies import proximity_robustness as pr

    # five topics; topic 4 has one term (left out). AP against BOW:
    #   OW: -50 %, -30 %, +10 %, (0 %), -20 %     UW: 0 %, -30 %, +20 %, (0 %), +5 %
    bow = np.array([0.4, 0.5, 0.5, 0.3, 0.2])
    ap = {"BOW": bow, "BOW+OW": bow * [0.5, 0.7, 1.1, 1.0, 0.8],
          "BOW+UW": bow * [1.0, 0.7, 1.2, 1.0, 1.05], "SDM": bow.copy(), "FDM": bow * 0.8}
    lengths = np.array([2, 3, 5, 1, 2])
    rows = {r[0]: r for r in pr.robustness_rows(ap, lengths)}
    assert rows["BOW+OW"][1] == 4 and rows["BOW+OW"][-1] == 2       # -50 % and -30 %
    assert rows["BOW+UW"][-1] == 1 and rows["FDM"][-1] == 0          # -20 % is no loss
    # buckets of OW: <=-50 1, (-50,-10] 2 (-30 and -20), (-10,0) 0, =0 0, [10,50) 1
    assert rows["BOW+OW"][2:6] == [1, 2, 0, 0] and rows["BOW+OW"][7] == 1
    by = {(r[0], r[1]): r for r in pr.by_length_rows(ap, lengths)}
    assert by[("BOW+OW", "2")][2] == 2 and by[("BOW+OW", "2")][3] == pytest.approx(
        (-0.2 - 0.04) / 2)
    assert by[("BOW+OW", "5+")][2] == 1 and ("BOW+OW", "4") not in by
    # Table 3.3: OW loses, UW does not: topics 0 (-0.2) and 4 (-0.04); topic 1 UW loses too
    out = pr.ow_outliers(ap, lengths, ["t0", "t1", "t2", "t3", "t4"])
    assert [r[0] for r in out] == ["t0", "t4"] and out[0][3] == pytest.approx(-0.2)
    t = pr.order_test(ap, lengths)
    assert t == {"ow_losses": 2, "uw_losses": 1, "ow_only": 1, "uw_only": 0, "p": 1.0}


def test_cv_lambda_uses_only_training_topics():
    rng = np.random.default_rng(0)
    n = 40
    ap = rng.random((3, n)) * 0.1
    fold, chosen, out = cv_lambda(ap, [0.0, 0.5, 1.0], 4, seed=1)
    for f in range(4):
        train = fold != f
        assert chosen[f] == int(np.argmax(ap[:, train].mean(axis=1)))
        assert np.array_equal(out[~train], ap[chosen[f], ~train])
    # a lambda that is best only on the test topics of fold 0 is never chosen for fold 0
    ap2 = np.zeros((2, n))
    ap2[1, fold == 0] = 1.0
    _, ch2, out2 = cv_lambda(ap2, [0.0, 1.0], 4, seed=1)
    assert ch2[0] == 0 and np.all(out2[fold == 0] == 0)
    with pytest.raises(ValueError, match="folds"):
        cv_lambda(ap, [0.0], 50)


def test_study_command(tmp_path):
    from tiebreak.cli import main
    from tiebreak.index import build_index

    rng = random.Random(3)
    words = ["alpha", "beta", "gamma", "delta", "kappa", "omega", "zeta", "theta"]
    lines = [json.dumps({"docno": f"d{i:03d}", "text": " ".join(
        rng.choice(words) for _ in range(rng.randint(3, 30)))}) for i in range(120)]
    (tmp_path / "c.jsonl").write_text("\n".join(lines) + "\n")
    idx = build_index(str(tmp_path / "c.jsonl"), str(tmp_path / "idx"), progress=False)
    topics = [(str(i), " ".join(rng.sample(words, rng.randint(2, 4)))) for i in range(1, 13)]
    (tmp_path / "t.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in topics))
    qrels = "".join(f"{q} 0 d{rng.randrange(120):03d} 1\n" for q, _ in topics for _ in range(4))
    (tmp_path / "q.txt").write_text(qrels)
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["study", "proximity", "--index", str(idx.path), "--topics",
                                  str(tmp_path / "t.tsv"), "--qrels", str(tmp_path / "q.txt"),
                                  "--out", str(out), "--folds", "3", "--lams", "0,0.4,1",
                                  "-q"])
    assert r.exit_code == 0, r.output
    for f in ("summary.tsv", "deltas.tsv", "deltas.png", "extremes.tsv", "lambda_cv.tsv",
              "heatmap.tsv", "heatmap.png", "ql_mu.tsv"):
        assert (out / f).stat().st_size > 0
    rows = list(csv.DictReader(open(out / "summary.tsv"), delimiter="\t"))
    assert [x["model"] for x in rows] == ["BM25", "BOW", "BOW+OW", "BOW+UW", "SDM", "FDM",
                                          "L2p", "Lkp", "Lkpf", "Lkp-cv", "BOW-cv", "SDM-cv",
                                          "FDM-cv"]
    assert "RBP_resid(p=0.95)" in rows[0]
    # BOW = query likelihood: the same MAP as the ql model
    import io

    import tiebreak as tb
    from tiebreak.retrieval.search import format_run, search

    run = format_run(idx, search(idx, topics, "ql", 1000), "ql")
    m = tb.evaluate(tb.read_qrels(io.BytesIO(qrels.encode())),
                    [tb.read_run(io.BytesIO(run.encode()))], ["AP"], ["trec_eval"])
    assert float(rows[1]["AP"]) == pytest.approx(float(m.mean[0, 0, 0]), abs=1e-4)
    # the mu sweep: at mu 2500 (the default) SDM and FDM give the SDM and FDM rows' MAP
    sweep = {float(x["mu"]): x for x in csv.DictReader(open(out / "ql_mu.tsv"), delimiter="\t")}
    assert list(sweep[2500.0]) == ["mu", "QL", "SDM", "FDM"]
    for col, row in (("QL", 1), ("SDM", 4), ("FDM", 5)):
        assert float(sweep[2500.0][col]) == pytest.approx(float(rows[row]["AP"]), abs=1e-4)
    # each fold's mu is one of the grid; the cross-validated MAP is the topic-weighted mean of
    # the folds' test MAPs
    folds = list(csv.DictReader(open(out / "lambda_cv.tsv"), delimiter="\t"))
    for col, name in (("QL", "BOW-cv"), ("SDM", "SDM-cv"), ("FDM", "FDM-cv")):
        assert all(float(f[f"mu_{col}"]) in sweep for f in folds)
        n = sum(int(f["topics"]) for f in folds)
        mean = sum(int(f["topics"]) * float(f[f"AP_test_{col}"]) for f in folds) / n
        got = next(float(x["AP"]) for x in rows if x["model"] == name)
        assert got == pytest.approx(mean, abs=1e-3)
    # robustness against BOW (Fig. 3.3): every topic of >= 2 terms in one bucket per model
    rob = list(csv.DictReader(open(out / "robustness.tsv"), delimiter="\t"))
    assert [x["model"] for x in rob] == ["BOW+OW", "BOW+UW", "SDM", "FDM"]
    from tiebreak.studies.study_proximity import delta_buckets

    labels = delta_buckets([0.0], [1.0])[0]
    assert all(sum(int(x[b]) for b in labels) == int(x["topics"]) for x in rob)
    assert (out / "robustness_length.tsv").exists() and (out / "ow_outliers.tsv").exists()
    assert "McNemar exact p" in r.output
    heat = list(csv.DictReader(open(out / "heatmap.tsv"), delimiter="\t"))
    from tiebreak.retrieval.dependency import lkp

    retrieved = sum(len(lkp(idx, idx.analyzer.analyze(t), 1000)[0]) for _, t in topics)
    assert sum(int(h["docs"]) for h in heat) == retrieved
    assert sum(int(h["relevant"]) for h in heat) <= len(qrels.splitlines())
    bad = CliRunner().invoke(main, ["study", "proximity", "--index", str(idx.path), "--topics",
                                    str(tmp_path / "t.tsv"), "--qrels", str(tmp_path / "q.txt"),
                                    "--lams", "0,2"])
    assert bad.exit_code == 2 and "--lams" in bad.output


def test_fit_rule_and_cv_select_use_only_training_topics():
    from tiebreak.studies.proximity_select import apply_rule, cv_select, fit_rule, rule_text

    # proximity helps exactly the topics with more than 3 terms
    x = np.array([[2.0, 0.1], [3.0, 0.5], [4.0, 0.2], [5.0, 0.9], [6.0, 0.3], [2.0, 0.7]])
    never = np.array([0.5, 0.4, 0.2, 0.1, 0.3, 0.6])
    always = np.array([0.4, 0.3, 0.5, 0.4, 0.6, 0.5])
    rule, v = fit_rule(x, never, always)
    assert rule_text(rule) == "terms > 3"
    assert v == pytest.approx((0.5 + 0.4 + 0.5 + 0.4 + 0.6 + 0.6) / 6)
    assert apply_rule(rule, x).tolist() == [False, False, True, True, True, False]
    # equal gains: ties go to "never"
    assert rule_text(fit_rule(x, never, never)[0]) == "never"
    assert rule_text(fit_rule(x, never, never + 1)[0]) == "always"
    # each fold's rule is the one fit_rule finds on the other folds' topics
    rng = np.random.default_rng(2)
    xs = rng.random((30, 3))
    nv, al = rng.random(30), rng.random(30)
    fold, rules, choice = cv_select(xs, nv, al, 3, seed=4)
    for f in range(3):
        tr = fold != f
        assert rules[f][0] == fit_rule(xs[tr], nv[tr], al[tr])[0]
        assert np.array_equal(choice[~tr], apply_rule(rules[f][0], xs[~tr]))


def test_query_features_by_hand(tmp_path):
    from tiebreak.index import build_index
    from tiebreak.studies.proximity_select import query_features

    docs = ["apple pie", "apple tart", "pie crust", "banana"]
    lines = [json.dumps({"docno": f"d{i}", "text": t}) for i, t in enumerate(docs)]
    (tmp_path / "c.jsonl").write_text("\n".join(lines) + "\n")
    idx = build_index(str(tmp_path / "c.jsonl"), str(tmp_path / "idx"), progress=False)
    f = query_features(idx, idx.analyzer.analyze("apple pie zzz"))
    # df apple 2, pie 2, N 4; both in 1 document
    idf = np.log(4 / 2)
    assert f.tolist() == pytest.approx([2, idf, 0.0, 1 / 2, np.log(4 * 1.5 / 4)])
    assert query_features(idx, ["zzz"]).tolist() == [0.0] * 5


def test_select_command(tmp_path):
    from tiebreak.cli import main
    from tiebreak.index import build_index

    rng = random.Random(5)
    words = ["alpha", "beta", "gamma", "delta", "kappa", "omega", "zeta", "theta"]
    lines = [json.dumps({"docno": f"d{i:03d}", "text": " ".join(
        rng.choice(words) for _ in range(rng.randint(3, 30)))}) for i in range(80)]
    (tmp_path / "c.jsonl").write_text("\n".join(lines) + "\n")
    idx = build_index(str(tmp_path / "c.jsonl"), str(tmp_path / "idx"), progress=False)
    topics = [(str(i), " ".join(rng.sample(words, rng.randint(1, 4)))) for i in range(1, 13)]
    (tmp_path / "t.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in topics))
    qrels = "".join(f"{q} 0 d{rng.randrange(80):03d} 1\n" for q, _ in topics for _ in range(4))
    (tmp_path / "q.txt").write_text(qrels)
    out = tmp_path / "out"
    args = ["study", "proximity", "--select", "--index", str(idx.path), "--topics",
            str(tmp_path / "t.tsv"), "--qrels", str(tmp_path / "q.txt"), "--out", str(out),
            "--folds", "3", "-q"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    rows = {x["strategy"]: x for x in csv.DictReader(open(out / "select.tsv"), delimiter="\t")}
    assert list(rows) == ["never", "always", "oracle", "predictor"]
    per = list(csv.DictReader(open(out / "select_topics.tsv"), delimiter="\t"))
    assert len(per) == 12
    # never / always are the BM25^(2) and Lkp runs; the oracle takes the better AP per topic
    import io

    import tiebreak as tb
    from tiebreak.retrieval.search import format_run, search

    q = tb.read_qrels(io.BytesIO(qrels.encode()))
    for name, model, params in (("never", "bm25", {"idf": "rw", "k1": 0.9, "b": 0.3}),
                                ("always", "lkp", {})):
        run = format_run(idx, search(idx, topics, model, 1000, **params), name)
        m = tb.evaluate(q, [tb.read_run(io.BytesIO(run.encode()))], ["AP"], ["trec_eval"])
        assert float(rows[name]["MAP"]) == pytest.approx(float(m.mean[0, 0, 0]), abs=1e-4)
    best = np.mean([max(float(p["AP_never"]), float(p["AP_always"])) for p in per])
    assert float(rows["oracle"]["MAP"]) == pytest.approx(best, abs=1e-4)
    pred = np.mean([float(p["AP_always"] if p["predictor"] == "1" else p["AP_never"])
                    for p in per])
    assert float(rows["predictor"]["MAP"]) == pytest.approx(pred, abs=1e-4)
    assert float(rows["oracle"]["MAP"]) >= max(float(rows[s]["MAP"])
                                               for s in ("never", "always", "predictor"))
    assert rows["never"]["p_MAP_vs_never"] == ""
    assert 0.0 <= float(rows["predictor"]["p_MAP_vs_always"]) <= 1.0
    assert len(list(csv.DictReader(open(out / "select_rules.tsv"), delimiter="\t"))) == 3
    bad = CliRunner().invoke(main, args[:-3] + ["--never", "nosuch", "-q"])
    assert bad.exit_code == 2 and "nosuch" in bad.output
    from tiebreak.index import open_index
    from tiebreak.studies.proximity_select import run_select

    # a judged topic missing from the topics: AP 0 in both runs, features 0, kept in the means
    sel = run_select(open_index(str(idx.path)), topics,
                     tb.read_qrels(io.BytesIO((qrels + "99 0 d001 1\n").encode())), folds=3)
    assert len(sel["topics"]) == 13 and "99" in sel["topics"]
    i99 = sel["topics"].index("99")
    assert sel["x"][i99].tolist() == [0.0] * 5 and sel["per"]["AP"]["always"][i99] == 0.0
