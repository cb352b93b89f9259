"""Run warnings of ``tiebreak eval`` agree with the reference counts in
../shared/data/tie_stats_per_run.tsv (the same definitions as ``tiebreak ties``)."""

from __future__ import annotations

import csv

import pytest

import tiebreak as tb

RUNS = ["RUIR-doc2vec.gz", "sheikh_bm25_all.gz", "yn-r1-alltext.gz", "BERT.gz"]


@pytest.mark.parametrize("name", RUNS)
def test_contradictions_match_reference(shared_data, name):
    with open(shared_data / "tie_stats_per_run.tsv") as fh:
        ref = {(r["set"], r["run"]): r for r in csv.DictReader(fh, delimiter="\t")}
    row = ref[("trec_covid/round1/runs", name)]
    d = shared_data / "trec_covid" / "round1"
    q = tb.read_qrels(d / "qrels-rnd1.txt")
    res = tb.evaluate(q, tb.read_run(d / "runs" / name), ["P@10"], ["trec_eval"])
    w = res.warnings[res.runs[0]]
    assert w.get("rank/score contradictions", 0) == int(row["rank_score_contradictions"])
