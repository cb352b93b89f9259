"""Cabanac et al. (2010) §6, the share of a run's score that comes from stuffed tails, on a
hand-made run with its values worked out by hand."""

from __future__ import annotations

import io

import numpy as np
import pytest
from click.testing import CliRunner

import tiebreak as tb
from tiebreak.cli import main
from tiebreak.studies.stuffing import strip_tails, stuffed_mask, stuffing_table

QRELS = b"""1 0 d1 1
1 0 d2 0
1 0 d3 1
1 0 d5 1
2 0 e1 1
"""
# run A: topic 1 has two real results, then d2 and d3 appended at score 0 (trec_eval puts d3,
# the larger docno, first); topic 2 retrieved nothing real and holds one stuffed document.
RUN_A = b"""1 Q0 d1 1 3 A
1 Q0 d4 2 2 A
1 Q0 d2 3 0 A
1 Q0 d3 4 0 A
2 Q0 e1 1 0 A
"""
# run B: a 0 in the middle is no tail (a lower score follows); nothing stuffed
RUN_B = b"""1 Q0 d1 1 2 B
1 Q0 d2 2 0 B
1 Q0 d3 3 -1 B
"""


def _runs():
    return [tb.read_run(io.BytesIO(RUN_A)), tb.read_run(io.BytesIO(RUN_B))]


def test_tails_and_strip():
    a, b = _runs()
    assert stuffed_mask(a).tolist() == [False, False, True, True, True]
    assert not stuffed_mask(b).any()
    assert stuffed_mask(b, stuff_score=-1.0).tolist() == [False, False, True]
    s = strip_tails(a)
    assert [s.docno(i) for i in range(len(s))] == ["d1", "d4"] and len(a) == 5


def test_shares_by_hand():
    qrels = tb.read_qrels(io.BytesIO(QRELS))
    t = stuffing_table(qrels, _runs(), ["AP"], ["trec_eval", "realistic", "optimistic"])
    a = t[t["run"] == "A"].set_index("regime")
    # R = 3 on topic 1. trec_eval: d1 (1), d4, d3 (3, rel), d2 -> AP (1 + 2/3)/3 = 5/9;
    # realistic: d2 before d3 (rank 4) -> (1 + 2/4)/3 = 1/2; optimistic = trec_eval here.
    # Topic 2: e1 at rank 1 -> 1 with it, 0 without. Without the tails topic 1 is 1/3.
    assert a.loc["trec_eval", "mean"] == pytest.approx(7 / 9, abs=1e-12)
    assert a.loc["realistic", "mean"] == pytest.approx(3 / 4, abs=1e-12)
    assert a.loc["optimistic", "mean"] == pytest.approx(7 / 9, abs=1e-12)
    assert a["mean_without"].tolist() == pytest.approx([1 / 6] * 3, abs=1e-12)
    assert a.loc["trec_eval", "share"] == pytest.approx(11 / 14, abs=1e-12)
    assert a.loc["realistic", "share"] == pytest.approx(7 / 9, abs=1e-12)
    assert set(a["topics_stuffed"]) == {2} and set(a["docs_stuffed"]) == {3}
    assert set(a["rel_stuffed"]) == {2}                          # d3 and e1
    b = t[t["run"] == "B"]
    assert (b["stuffed"] == 0).all() and (b["docs_stuffed"] == 0).all()


def test_cli_option(tmp_path):
    q = tmp_path / "qrels"
    q.write_bytes(QRELS)
    paths = []
    for name, body in (("A", RUN_A), ("B", RUN_B)):
        p = tmp_path / f"run.{name}"
        p.write_bytes(body)
        paths.append(str(p))
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["study", "ties", "--qrels", str(q), "--out", str(out),
                                  "--stuffing", *paths])
    assert r.exit_code == 0, r.output
    assert "1 of 2 runs end topics with documents of score 0" in r.output
    import pandas as pd

    t = pd.read_csv(out / "stuffing.tsv", sep="\t")
    row = t[(t["run"] == "A") & (t["measure"] == "AP") & (t["regime"] == "trec_eval")]
    assert float(row["share"].iloc[0]) == pytest.approx(11 / 14, rel=1e-5)
    assert set(t["measure"]) == {"AP", "RR"} and np.isfinite(t["mean"]).all()
