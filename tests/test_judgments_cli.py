"""``tiebreak pool`` and ``tiebreak study depth`` end to end (small real subsets: seconds)."""

from __future__ import annotations

import json

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
