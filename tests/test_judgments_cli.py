"""``tiebreak pool`` and ``tiebreak study depth`` end to end (small real subsets: seconds)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from tiebreak.cli import main

RUNS = ("input.InexpC2.gz", "input.Sel50.gz", "input.UIUC03Rd1.gz", "input.uwmtCR0.gz",
        "input.aplrob03a.gz")


@pytest.fixture(scope="module")
def robust(shared_data):
    d = shared_data / "robust03_trectools"
    return str(d / "qrels" / "robust03_qrels.txt.gz"), [str(d / "runs" / r) for r in RUNS]


@pytest.mark.slow
def test_pool_cli_simulates_a_shallow_pool(robust):
    q, runs = robust
    r = CliRunner().invoke(main, ["pool", q, *runs, "--depth", "5", "--topics", "601-605"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines and all(len(ln.split()) == 4 for ln in lines)
    assert {ln.split()[0] for ln in lines} <= {"601", "602", "603", "604", "605"}
    # 5 runs x 5 topics x top 5 = at most 125 distinct pooled documents, all judged
    assert 25 <= len(lines) <= 125
    assert "ties at depth 5" in r.stderr and "judgments kept" in r.stderr


def test_pool_cli_bad_input_exit_2(tmp_path, robust):
    _, runs = robust
    bad = tmp_path / "q"
    bad.write_text("601 0 doc x\n")
    r = CliRunner().invoke(main, ["pool", str(bad), *runs])
    assert r.exit_code == 2 and "q:1" in r.stderr
    r = CliRunner().invoke(main, ["pool", str(bad), *runs, "--method", "C"])
    assert r.exit_code == 2


@pytest.mark.slow
def test_study_depth_smoke(robust, tmp_path):
    q, runs = robust
    out = tmp_path / "o"
    args = ["study", "depth", "--qrels", q, "--topics", "601-650", "--pool-depth", "5",
            "--eval-depth", "1,5,20", "--volatility-depths", "1-8", "-m", "AP_b",
            "-m", "RBP(p=0.8)", "--out", str(out), *runs]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    assert "coverage" in r.stdout and "Leave one run out" in r.stdout
    assert (out / "coverage.png").exists() and (out / "volatility.png").exists()
    rows = (out / "depth_table.tsv").read_text().splitlines()
    head = rows[0].split("\t")
    assert head[:4] == ["metric", "regime", "k", "disc"] and len(rows) == 1 + 2 * 3
    at_d = [dict(zip(head, x.split("\t"))) for x in rows[1:]]
    ref = [row for row in at_d if row["k"] == "5"]  # the reference itself
    assert [(float(r["cov"]), float(r["inv"])) for r in ref] == [(100, 0), (100, 0)]
    args = ["study", "depth", "--qrels", q, "--topics", "601-650", "--pool-depth", "5",
            "--eval-depth", "5", "--volatility-depths", "1-3", "-m", "AP_b", "--no-leave-out",
            "--format", "json", *runs]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0
    data = json.loads(r.stdout)
    assert [(x["k"], x["cov"], x["inv"]) for x in data["table"]] == [(5, 100.0, 0.0)]


def test_study_depth_needs_a_depth(robust):
    q, runs = robust
    r = CliRunner().invoke(main, ["study", "depth", "--qrels", q, *runs])
    assert r.exit_code == 2 and "--pool-depth" in r.stderr


# ------------------------------------------------------------ tiebreak estimate --deep-qrels


def _rbp_by_hand(run_path, judged: dict, topics, p, depth):
    """Per topic (RBP with unjudged = 0, residual) of a run file, by loops in trec_eval order
    (score descending, then docno descending)."""
    import gzip

    lines = {}
    with gzip.open(run_path, "rt") as fh:
        for ln in fh:
            t, _, d, _, s, _ = ln.split()
            if t in topics:
                lines.setdefault(t, []).append((float(s), d))
    out = {}
    for t in topics:
        ranked = sorted(lines.get(t, []), reverse=True)[:depth]
        lo = res = 0.0
        for k, (_, d) in enumerate(ranked):
            w = (1 - p) * p ** k
            v = judged.get((t, d))
            if v is None:
                res += w
            else:
                lo += w * (v >= 1)
        out[t] = (lo, res + p ** len(ranked))   # unjudged ranks, then the tail (or the gap)
    return out


def _judged(path, topics):
    import gzip

    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as fh:
        return {(t, d): int(v) for t, _, d, v in (ln.split() for ln in fh) if t in topics}


@pytest.mark.slow
def test_estimate_deep_qrels_accuracy_against_a_hand_computation(robust, tmp_path):
    """Shallow judgments of a depth-5 pool of two runs, a third run outside it; the LB, UB
    and midpoint rows of the accuracy table recomputed from the run files by loops (Eq. 6.2,
    6.3, Acc%, the tau distance of the orderings)."""
    q, runs = robust
    runs = runs[:3]
    topics = ["601", "602", "603"]
    r = CliRunner().invoke(main, ["pool", q, *runs, "--depth", "5", "--topics", "601-603",
                                  "--contributing", "InexpC2,Sel50"])
    assert r.exit_code == 0, r.output
    shallow = tmp_path / "shallow"
    shallow.write_text(r.stdout)
    r = CliRunner().invoke(main, ["estimate", str(shallow), *runs, "--contributing",
                                  "InexpC2,Sel50", "--depth", "20", "--topics", "601-603",
                                  "--deep-qrels", q])
    assert r.exit_code == 0, r.output
    text = r.stdout.split("Accuracy against", 1)[1].splitlines()
    assert "(2 contributing, 1 other runs)" in text[0]
    head = text[1].split()
    table = {ln.split()[0]: dict(zip(head[1:], map(float, ln.split()[1:]))) for ln in text[2:]}
    deep, shal = _judged(q, topics), _judged(shallow, topics)
    p, depth = 0.95, 20
    D = np.array([[_rbp_by_hand(f, deep, topics, p, depth)[t] for t in topics] for f in runs])
    S = np.array([[_rbp_by_hand(f, shal, topics, p, depth)[t] for t in topics] for f in runs])
    lb, ub = D[..., 0], D[..., 0] + D[..., 1]
    ests = {"LB": S[..., 0], "UB": S[..., 0] + S[..., 1], "mid": S[..., 0] + S[..., 1] / 2}
    for name, est in ests.items():
        e = np.where(est > ub, est - ub, np.where(est < lb, lb - est, 0.0))
        for label, sel in (("contrib", [0, 1]), ("new", [2]), ("all", [0, 1, 2])):
            rmse = np.mean(np.sqrt(np.mean(e[sel] ** 2, axis=0)))
            assert table[name][f"RMSE_{label}"] == pytest.approx(rmse, abs=6e-5), (name, label)
            acc = 100 * np.mean(e[sel] == 0)
            assert table[name][f"Acc_{label}"] == pytest.approx(acc, abs=6e-5), (name, label)
        m, ref = est.mean(1), lb.mean(1)
        disc = [np.sign(ref[i] - ref[j]) * np.sign(m[i] - m[j]) < 0
                for i in range(3) for j in range(i + 1, 3)]
        assert table[name]["tau_dist"] == pytest.approx(np.mean(disc), abs=6e-5)
    # a shallow pool under-counts: LB is below the deep range on every run and topic here
    assert table["LB"]["Acc_all"] == 0.0 and table["LB"]["RMSE_new"] > table["LB"]["RMSE_contrib"]
