"""Tie prevalence and run hygiene (tiebreak.studies.ties)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from tiebreak.cli import main
from tiebreak.io import read_qrels, read_run
from tiebreak.studies.ties import (
    cabanac_table,
    exponent_lines,
    run_stats,
    stats_for_path,
    topk_table,
    yang_table,
)

TINY = """\
1 Q0 d1 1 3.0 t
1 Q0 d2 2 2.0 t
1 Q0 d3 3 2.0 t
1 Q0 d4 4 2.0 t
1 Q0 d5 5 1e0 t
1 Q0 d6 5 0.5 t
2 Q0 a 1 1 t
2 Q0 b 2 5 t
2 Q0 c 3 0 t
2 Q0 d 4 0 t
"""

QRELS = """\
1 0 d2 1
1 0 d5 0
2 0 c 0
"""


@pytest.fixture
def tiny(tmp_path):
    p = tmp_path / "tiny.run"
    p.write_text(TINY)
    q = tmp_path / "tiny.qrels"
    q.write_text(QRELS)
    return p, q


def test_tiny_counts(tiny):
    p, q = tiny
    run = read_run(p)
    exp = exponent_lines(p.read_bytes())
    assert exp.tolist() == [5]
    row, pt = run_stats(run, read_qrels(q), exp, ks=(2, 3))
    pt = pt.set_index("topic")
    assert pt["docs"].tolist() == [6, 4]
    assert pt["tied_docs"].tolist() == [2, 1]
    assert pt["max_tie_group"].tolist() == [3, 2]
    assert pt["distinct_scores"].tolist() == [4, 3]
    assert pt["docs_per_score"].tolist() == [1.5, 4 / 3]
    assert pt["rank_score_contradictions"].tolist() == [0, 1]
    assert pt["increasing_scores"].tolist() == [0, 1]
    assert pt["rank_ties"].tolist() == [1, 0]
    assert pt["exp_scores"].tolist() == [1, 0]
    assert pt["tie_top2"].tolist() == [False, False]
    assert pt["straddle2"].tolist() == [True, False]
    assert pt["tie_top3"].tolist() == [True, False]
    assert pt["straddle3"].tolist() == [True, True]
    assert pt["tail"].tolist() == [1, 2]
    assert pt["stuffed"].tolist() == [False, True]
    assert pt["zero_stuffed"].tolist() == [False, True]
    assert pt["tie_groups_judged"].tolist() == [1, 1]
    assert pt["tie_groups_relevant"].tolist() == [1, 0]
    assert row["docs"] == 10 and row["tied_docs"] == 3 and row["topics_with_ties"] == 2
    assert row["tie_frac"] == 0.3 and row["max_tie_group"] == 3
    assert row["tie_groups"] == 2 and row["tie_groups_judged"] == 2
    assert row["tie_groups_relevant"] == 1

    pr = pd.DataFrame([row])
    y = yang_table(pr, pt.reset_index()).set_index("property")
    assert y.loc["tied scores", "systems_%"] == 100.0
    assert y.loc["tied scores", "documents_%"] == 30.0
    assert y.loc["rank/score contradictions", "system_topics_%"] == 50.0
    assert y.loc["exponent-format scores", "documents_%"] == 10.0
    c = cabanac_table(pt.reset_index()).set_index("statistic")
    assert c.loc["% tied documents", "min"] == 25.0
    assert c.loc["% tied documents", "max"] == pytest.approx(100 / 3)
    assert c.loc["docs per distinct score", "avg"] == pytest.approx((1.5 + 4 / 3) / 2)
    t = topk_table(pt.reset_index(), ks=(2, 3)).set_index("k")
    assert t.loc[3, "straddles_k_%"] == 100.0 and t.loc[2, "tie_in_top_k_%"] == 0.0


def test_cli(tiny):
    p, q = tiny
    res = CliRunner().invoke(main, ["ties", str(p), "--qrels", str(q), "--format", "json",
                                    "--per-run"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.output)
    assert d["per_run"][0]["tied_docs"] == 3
    assert d["qrels"][0]["with_relevant_%"] == 50.0
    for fmt in ("table", "tsv"):
        res = CliRunner().invoke(main, ["ties", str(p), "--format", fmt])
        assert res.exit_code == 0, res.output
        assert "tied scores" in res.output


COVID = ["BRPHJ_NLP2.gz", "RUIR-doc2vec.gz", "sheikh_bm25_all.gz", "UB_NLP_RUN_1.gz",
         "yn-r1-alltext.gz", "10x10.prf.unipd.it.gz", "BITEM_stem.gz"]


@pytest.mark.slow
def test_reference_tsv(shared_data):
    """tie_frac, topics_with_ties, max_tie_group, docs (and rank/score contradictions) as in
    tie_stats_per_run.tsv for the robust03 runs and some TREC-COVID round 1 runs."""
    ref = pd.read_csv(shared_data / "tie_stats_per_run.tsv", sep="\t")
    ref = ref[(ref["set"] == "robust03_trectools/runs")
              | ((ref["set"] == "trec_covid/round1/runs") & ref["run"].isin(COVID))]
    assert len(ref) == 17 + len(COVID)
    for r in ref.itertuples():
        row, _ = run_stats(read_run(shared_data / r.set / r.run))
        got = (row["topics"], row["docs"], round(row["tie_frac"], 4), row["topics_with_ties"],
               row["max_tie_group"], row["rank_score_contradictions"])
        want = (r.topics, r.docs, r.tie_frac, r.topics_with_ties, r.max_tie_group,
                r.rank_score_contradictions)
        assert got == want, r.run


def test_exponent_scan(shared_data):
    row, _ = stats_for_path(str(shared_data / "robust03_trectools/runs/input.humR03dc.gz"))
    assert row["exp_scores"] == 0
    assert np.isnan(run_stats(read_run(
        shared_data / "robust03_trectools/runs/input.humR03dc.gz"))[0]["exp_scores"])


def test_single_table_tsv_is_plain(tmp_path):
    import io as _io

    import pandas as pd
    from click.testing import CliRunner

    from tiebreak.cli import main

    p = tmp_path / "r.txt"
    p.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 2.0 t\n1 Q0 c 3 1.0 t\n")
    r = CliRunner().invoke(main, ["ties", str(p), "--format", "tsv", "--table", "per_run"])
    assert r.exit_code == 0, r.output
    df = pd.read_csv(_io.StringIO(r.stdout), sep="\t")
    assert len(df) == 1
