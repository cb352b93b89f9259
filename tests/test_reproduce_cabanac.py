"""Cabanac, Hubert, Boughanem & Chrisment (CLEF 2010) as the paper defines things: both tie
shares, delta_RC, the pooled Table 5 test, the drop-worst variant and the quick reproduction
items."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats as sps

from tiebreak.cli import main
from tiebreak.studies.reproduce import Context, items, run_item, verdict_of
from tiebreak.studies.study_ties import (
    REGIMES,
    TieStudy,
    delta_rc,
    drop_worst,
    pooled_table,
    pooled_test,
    rr_delta_rc,
    summary,
)

# Cabanac et al. Fig. 2: qid 8, sims 0.9, 0.7, 0.7, 0.7, 0.6
FIG2_RUN = """8 Q0 CT5 1 0.9 fig2
8 Q0 AP5 2 0.7 fig2
8 Q0 WSJ9 3 0.7 fig2
8 Q0 AP8 4 0.7 fig2
8 Q0 FT12 5 0.6 fig2
"""


def _rows(out: str) -> dict[str, list[str]]:
    rows = {}
    for line in out.splitlines():
        parts = line.split("  ")
        label = parts[0].strip()
        vals = [p.strip() for p in parts[1:] if p.strip()]
        if vals:
            rows[label] = vals
    return rows


def test_ties_prints_both_tie_shares_on_fig2(tmp_path):
    p = tmp_path / "fig2.run"
    p.write_text(FIG2_RUN)
    res = CliRunner().invoke(main, ["ties", str(p), "--table", "cabanac"])
    assert res.exit_code == 0, res.output
    rows = _rows(res.output)
    # lists, min, avg, max, sd
    cab = rows["% tied documents (group members, Cabanac)"]
    yang = rows["% tied documents"]
    dps = rows["docs per distinct score"]
    assert cab[2] == "60.0000"  # 3/5, the paper's §5.1
    assert yang[2] == "40.0000"  # 2/5, Yang et al.'s successors
    assert dps[2] == "1.6667" and f"{float(dps[2]):.1f}" == "1.7"  # (1+3+1)/3
    assert "Yang et al." in res.output and "Cabanac" in res.output


def test_ties_tsv_per_run_has_both_shares(tmp_path):
    p = tmp_path / "fig2.run"
    p.write_text(FIG2_RUN + FIG2_RUN.replace("8 Q0", "9 Q0").replace("0.7", "0.5"))
    res = CliRunner().invoke(main, ["ties", str(p), "--table", "per_run", "--format", "tsv"])
    assert res.exit_code == 0, res.output
    head, row = res.output.splitlines()[:2]
    rec = dict(zip(head.split("\t"), row.split("\t")))
    assert rec["tied_docs"] == "4" and rec["tied_members"] == "6"
    assert float(rec["tie_frac"]) == 0.4 and float(rec["tie_frac_members"]) == 0.6


def test_delta_rc_hand_example():
    # Table 2's padre2 row: 1/RR_R = 946, 1/RR_C = 15 -> 931; a list without a relevant
    # document (RR 0 everywhere) -> 0; RR_R = RR_C -> 0
    rr_r = np.array([1 / 946, 1 / 3, 0.0, 0.5])
    rr_c = np.array([1 / 15, 1.0, 0.0, 0.5])
    assert delta_rc(rr_r, rr_c) == pytest.approx([931, 2, 0, 0], abs=1e-9)


def _study(rr: dict, ap: dict) -> TieStudy:
    """2 systems x 3 topics; rr/ap: regime -> (2, 3) array; the other regimes copy trec_eval."""
    n_sys, n_top = 2, 3
    scores = np.zeros((n_sys, 2, len(REGIMES), n_top))
    for mi, vals in enumerate((ap, rr)):
        for ri, reg in enumerate(REGIMES):
            scores[:, mi, ri, :] = vals.get(reg, vals["trec_eval"])
    return TieStudy(["sA", "sB"], ["AP", "RR"], list(REGIMES), ["1", "2", "3"], scores,
                    np.array([3, 0]))


def test_rr_delta_rc_ranks_by_displacement_not_gain():
    # sA q1: rank 2 -> 1 (gain 0.5, delta 1); sA q2: rank 100 -> 10 (gain 0.09, delta 90)
    rr = {"realistic": np.array([[0.5, 0.01, 1.0], [1.0, 1.0, 1.0]]),
          "trec_eval": np.array([[1.0, 0.1, 1.0], [1.0, 1.0, 1.0]]),
          "optimistic": np.array([[1.0, 0.5, 1.0], [1.0, 1.0, 1.0]])}
    ap = {"trec_eval": np.full((2, 3), 0.5)}
    t2 = rr_delta_rc(_study(rr, ap), 2)
    assert list(t2["topic"]) == ["2", "1"]
    assert t2["delta_RC"].tolist() == pytest.approx([90.0, 1.0])
    assert t2[["1/RR_R", "1/RR_C", "1/RR_O"]].iloc[0].tolist() == pytest.approx([100, 10, 2])


def test_pooled_test_matches_scipy():
    rng = np.random.default_rng(3)
    r = rng.random((4, 6))
    c = r + rng.random((4, 6)) * 0.1 * (rng.random((4, 6)) > 0.5)
    got = pooled_test(c, r)
    t, p = sps.ttest_rel(c.ravel(), r.ravel(), alternative="greater")
    assert got["n"] == 24
    assert got["t"] == pytest.approx(t, rel=1e-12) and got["p"] == pytest.approx(p, rel=1e-12)
    assert got["pearson_r"] == pytest.approx(sps.pearsonr(c.ravel(), r.ravel())[0], rel=1e-12)
    assert got["delta_RC_pct"] == pytest.approx(100 * (c.mean() - r.mean()) / r.mean())


def test_pooled_table_levels():
    ap = {"realistic": np.array([[0.1, 0.2, 0.3], [0.4, 0.4, 0.5]]),
          "trec_eval": np.array([[0.2, 0.2, 0.4], [0.4, 0.5, 0.5]])}
    rr = {"realistic": np.array([[0.5, 0.2, 1.0], [1.0, 0.25, 0.5]]),
          "trec_eval": np.array([[1.0, 0.5, 1.0], [1.0, 0.5, 1.0]])}
    t5 = pooled_table(_study(rr, ap)).set_index("measure")
    assert t5.loc["AP", "n"] == 6 and t5.loc["MAP", "n"] == 2 and t5.loc["RR", "n"] == 6
    t, p = sps.ttest_rel(ap["trec_eval"].ravel(), ap["realistic"].ravel(),
                         alternative="greater")
    assert t5.loc["AP", "p"] == pytest.approx(p, rel=1e-12)
    # MAP: one test over the 2 systems' means
    mc, mr = ap["trec_eval"].mean(axis=1), ap["realistic"].mean(axis=1)
    assert t5.loc["MAP", "p"] == pytest.approx(
        sps.ttest_rel(mc, mr, alternative="greater").pvalue, rel=1e-12)


def test_drop_worst():
    ap = {"trec_eval": np.array([[0.1, 0.1, 0.1], [0.5, 0.5, 0.5]]),
          "realistic": np.array([[0.1, 0.1, 0.1], [0.2, 0.2, 0.2]])}
    st = _study({"trec_eval": np.ones((2, 3))}, ap)
    assert drop_worst(st, 0.25).tolist() == [0, 1]  # floor(0.25 * 2) = 0 dropped
    assert drop_worst(st, 0.5).tolist() == [1]  # sA (MAP_C 0.1) is the worst
    sm = summary(st, metrics=["AP"], pairs=[("realistic", "trec_eval")], drop=0.5).iloc[0]
    assert sm["systems"] == 1 and sm["rank_changes_pct"] == 0.0
    with pytest.raises(ValueError):
        drop_worst(st, 1.0)


@pytest.mark.slow
def test_study_ties_cli_options(tmp_path):
    q = tmp_path / "qrels"
    q.write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 a 0\n2 0 b 1\n2 0 c 0\n")
    runs = []
    for k, (sa, sb, sc) in enumerate([(1, 1, 1), (3, 2, 1), (2, 2, 1)]):
        p = tmp_path / f"r{k}"
        p.write_text("".join(f"{t} Q0 {d} {i} {s} r{k}\n" for t in (1, 2)
                             for i, (d, s) in enumerate((("a", sa), ("b", sb), ("c", sc)), 1)))
        runs.append(str(p))
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["study", "ties", "--qrels", str(q), "--out", str(out),
                                    "--rr-order", "delta-rc", "--pooled", "--drop-worst",
                                    "0.34", *runs])
    assert res.exit_code == 0, res.output
    assert "Table 5 (pooled)" in res.output and "delta_RC" in res.output
    assert "without the worst 34% of systems" in res.output
    import pandas as pd

    t2 = pd.read_csv(out / "table2_delta_rc.tsv", sep="\t")
    # r0 is all tied: realistic puts topic 2's relevant b last (rank 3), trec_eval (docno
    # desc: c, b, a) second -> delta_RC = 3 - 2 = 1
    assert t2.iloc[0]["run"] == "r0" and t2.iloc[0]["delta_RC"] == 1
    t5 = pd.read_csv(out / "table5_pooled.tsv", sep="\t")
    assert list(t5["measure"]) == ["RR", "AP", "MAP"] and list(t5["n"]) == [6, 6, 3]
    sm = pd.read_csv(out / "summary.tsv", sep="\t")
    assert set(sm["systems"]) == {2}


QUICK_VERDICTS = {"cabanac2010:fig1": "exact", "cabanac2010:fig2": "exact"}


def test_quick_items_and_verdicts():
    reg = {k: v for k, v in items().items() if k.startswith("cabanac2010:")}
    assert {k for k, v in reg.items() if v.quick} == set(QUICK_VERDICTS)
    assert set(reg) == {"cabanac2010:fig1", "cabanac2010:fig2"} | {
        f"cabanac2010:table{i}" for i in range(1, 6)}
    for k, want in QUICK_VERDICTS.items():
        cells = run_item(reg[k], Context(data=None))
        assert verdict_of(cells) == want, [(c.name, c.verdict, c.note) for c in cells]
        assert all(c.verdict == "exact" for c in cells)
    cells = {c.name: c for c in run_item(reg["cabanac2010:fig2"], Context(data=None))}
    assert cells["tied documents, group members (Cabanac)"].ours == pytest.approx(60.0)
    assert cells["tied documents per sim"].ours == pytest.approx(5 / 3)


def test_slow_items_need_data():
    reg = items()
    cells = run_item(reg["cabanac2010:table5"], Context(data=None))
    assert verdict_of(cells) == "not-reproducible-here"


def test_gains_ranked_by_percent():
    # sA q1: 0.01 -> 0.05 (+0.04, +400 %); sB q2: 0.2 -> 0.5 (+0.3, +150 %)
    ap = {"realistic": np.array([[0.01, 0.3, 0.3], [0.3, 0.2, 0.3]]),
          "trec_eval": np.array([[0.05, 0.3, 0.3], [0.3, 0.5, 0.3]])}
    st = _study({"trec_eval": np.ones((2, 3))}, ap)
    from tiebreak.studies.study_ties import result_list_gains, system_gains

    pair = [("realistic", "trec_eval")]
    by_d = result_list_gains(st, 1, ["AP"], pair)
    by_p = result_list_gains(st, 1, ["AP"], pair, rank_by="pct")
    assert (by_d.iloc[0]["run"], by_d.iloc[0]["topic"]) == ("sB", "2")
    assert (by_p.iloc[0]["run"], by_p.iloc[0]["topic"]) == ("sA", "1")
    assert by_p.iloc[0]["pct"] == pytest.approx(400.0)
    # means: sA 0.2033 -> 0.2167 (+6.6 %), sB 0.2667 -> 0.3667 (+37.5 %)
    assert system_gains(st, 1, ["AP"], pair, rank_by="pct").iloc[0]["run"] == "sB"


def test_table2_paper_cells_use_our_delta_rc():
    from tiebreak.studies.reproduce.items_cabanac2010 import T2, _table2_paper_cells

    cells = _table2_paper_cells()
    delta = [c for c in cells if "delta_RC" in c.name]
    # the paper's own subtraction: shown, never counted as reproduced
    assert len(delta) == len(T2) == 12 and all(c.verdict == "by-definition" for c in delta)
    assert all(c.note.endswith("agrees") for c in delta)
    # the three filtering rows print RR_R 0.0000 beside 1/RR_R = 988: a paper inconsistency
    err = [c for c in cells if "RR_R vs 1/RR_R" in c.name]
    assert len(err) == 3 and all(c.verdict == "by-definition" and "inconsistency" in c.note
                                 for c in err)
