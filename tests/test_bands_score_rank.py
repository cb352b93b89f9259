"""Bands cut from Yang, Moffat & Turpin's re-sorted runs (score descending, then rank ascending;
AIRS 2016, Sect. 3), and `study bands --ratio` (Table 3 at 95 % too, as the paper's text does)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tiebreak.cli import main
from tiebreak.io import read_run
from tiebreak.ranking.bands import band_run

# ranks contradict scores: D has the best score but rank 4; A, B, C tie with ranks 3, 1, 2
RUN = "1 Q0 A 3 2.0 r\n1 Q0 B 1 2.0 r\n1 Q0 C 2 2.0 r\n1 Q0 D 4 3.0 r\n1 Q0 E 5 1.0 r\n"


@pytest.mark.parametrize("order, want", [("score-rank", "DBCAE"), ("trec_eval", "DCBAE"),
                                         ("file", "ABCDE")])
def test_band_reference_orders(tmp_path, order, want):
    p = tmp_path / "r.txt"
    p.write_text(RUN)
    run = read_run(str(p))
    b = band_run(run, "2.0", order=order)
    assert "".join(str(b.docnos[d]) for d in b.docid) == want
    assert b.score.tolist() == [1.0, 0.5, 0.5, 1 / 3, 1 / 3]  # bands [1], [2-3], [4-7]


@pytest.mark.slow
def test_study_bands_score_rank_and_ratio(tmp_path):
    q, r1, r2 = tmp_path / "q.txt", tmp_path / "r1.txt", tmp_path / "r2.txt"
    q.write_text("".join(f"{t} 0 {d} {int(d in 'BD')}\n" for t in (1, 2) for d in "ABCDE"))
    r1.write_text(RUN + RUN.replace("1 Q0", "2 Q0"))
    r2.write_text(RUN.replace(" r\n", " s\n") + RUN.replace("1 Q0", "2 Q0").replace(" r\n", " s\n"))
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["study", "bands", "--qrels", str(q), "--order", "score-rank",
                                    "--ratio", "0.99,0.95", "--rho", "1.0,2.0", "-j", "1",
                                    "--out", str(out), str(r1), str(r2)])
    assert res.exit_code == 0, res.output
    assert "order=score-rank" in res.output
    head = (out / "table3.tsv").read_text().splitlines()[0].split("\t")
    assert head[-2:] == [">=99%", ">=95%"]
    bad = CliRunner().invoke(main, ["study", "bands", "--qrels", str(q), "--ratio", "1.5",
                                    str(r1), str(r2)])
    assert bad.exit_code == 2 and "--ratio" in bad.output
