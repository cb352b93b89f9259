"""tiebreak repro: the measures of Breuer et al. (SIGIR 2020) against repro_eval (their own
package) under trec_eval's order, and the tie share of the gap."""

from __future__ import annotations

import gzip
import json
import math
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

from tiebreak.cli.app import main
from tiebreak.io import read_qrels, read_run
from tiebreak.stats.overlap import rbo_at
from tiebreak.studies.repro import (
    delta_ri,
    effect_ratio,
    ktu,
    ktu_ties,
    nrmse,
    reproduction,
    rmse,
    tie_gap,
)

RUNS = {"b_orig": "BITEM_BL", "a_orig": "BITEM_df", "b_rep": "BM25R2", "a_rep": "BITEM_stem"}


@pytest.fixture(scope="module")
def covid(shared_data, tmp_path_factory):
    """Four TREC-COVID round-1 runs written score-sorted (repro_eval's break_ties assumes it)."""
    d = tmp_path_factory.mktemp("repro")
    out = {}
    for key, name in RUNS.items():
        with gzip.open(shared_data / "trec_covid/round1/runs" / f"{name}.gz", "rt") as fh:
            rows = [ln.split() for ln in fh if ln.strip()]
        rows.sort(key=lambda r: r[2].encode(), reverse=True)  # docno descending, then (stable)
        rows.sort(key=lambda r: (int(r[0]), -float(r[4])))  # topic, score descending
        p = d / f"{name}.run"
        p.write_text("".join(" ".join(r) + "\n" for r in rows))
        out[key] = str(p)
    out["qrels"] = str(shared_data / "trec_covid/round1/qrels-rnd1.txt")
    return out


@pytest.fixture(scope="module")
def oracle(covid):
    pytest.importorskip("repro_eval")
    from repro_eval.Evaluator import RpdEvaluator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = RpdEvaluator(qrels_orig_path=covid["qrels"], run_b_orig_path=covid["b_orig"],
                          run_a_orig_path=covid["a_orig"], run_b_rep_path=covid["b_rep"],
                          run_a_rep_path=covid["a_rep"])
        ev.trim()
        ev.evaluate()
        return {"ktu": ev.ktu(per_topic=True), "rbo": ev.rbo(per_topic=True),
                "rmse": ev.rmse(), "nrmse": ev.nrmse(), "er": ev.er(), "dri": ev.dri(),
                "ttest": ev.ttest()}


@pytest.fixture(scope="module")
def ours(covid):
    q = read_qrels(covid["qrels"])
    o = [read_run(covid["b_orig"]), read_run(covid["a_orig"])]
    r = [read_run(covid["b_rep"]), read_run(covid["a_rep"])]
    return reproduction(q, o, r, ["AP", "nDCG@10", "P@10"], ["trec_eval", "expected"])


def test_equals_repro_eval(ours, oracle):
    roles = {"BITEM_BL": "baseline", "BITEM_df": "advanced"}
    rows = [r for r in ours.rows if r["regime"] == "trec_eval"]
    assert len(rows) == 6
    for r in rows:
        role, m = roles[r["original"]], r["measure"]
        assert r["RMSE"] == pytest.approx(oracle["rmse"][role][m], rel=1e-12, abs=1e-15)
        assert r["nRMSE"] == pytest.approx(oracle["nrmse"][role][m], rel=1e-12, abs=1e-15)
        assert r["p_paired"] == pytest.approx(oracle["ttest"][role][m], rel=1e-9)
        assert r["KTU"] == pytest.approx(np.mean(list(oracle["ktu"][role].values())), abs=1e-13)
        assert r["RBO"] == pytest.approx(np.mean(list(oracle["rbo"][role].values())), abs=1e-13)
    eff = [e for e in ours.effects if e["regime"] == "trec_eval"]
    assert len(eff) == 3
    for e in eff:
        assert e["ER"] == pytest.approx(oracle["er"][e["measure"]], rel=1e-12)
        assert e["DeltaRI"] == pytest.approx(oracle["dri"][e["measure"]], rel=1e-12)
    # per topic too: KTU (repro_eval rounds to 14 digits) and RBO
    for x in (x for x in ours.per_topic if x["measure"] == "-"):
        role = roles[x["original"]]
        assert x["KTU"] == pytest.approx(oracle["ktu"][role][x["qid"]], abs=1e-13)
        assert x["RBO"] == pytest.approx(oracle["rbo"][role][x["qid"]], abs=1e-13)
    # the numbers themselves (repro_eval 0.5 on these four runs)
    ap = next(r for r in rows if r["original"] == "BITEM_BL" and r["measure"] == "AP")
    assert ap["RMSE"] == pytest.approx(0.08576411904871994, abs=1e-15)
    assert eff[0]["ER"] == pytest.approx(-1.5841922518668092, rel=1e-12)


def test_tie_share_bounds(ours):
    """Every regime's value lies in its tie range, so the gap beyond ties never exceeds RMSE;
    a topic with overlapping ranges has gap 0."""
    for r in ours.rows:
        assert 0.0 <= r["RMSE_beyond_ties"] <= r["RMSE"] + 1e-15
        assert 0 <= r["overlap"] <= r["topics"] == 30
    for x in (x for x in ours.per_topic if x["measure"] != "-"):
        assert x["orig_low"] <= x["orig"] <= x["orig_high"]
        assert (x["gap"] == 0.0) == x["overlap"]
        assert x["gap"] <= abs(x["orig"] - x["rep"]) + 1e-15


def test_small_formulas():
    assert rmse([0.5, 0.2], [0.3, 0.2]) == pytest.approx(math.sqrt(0.04 / 2))
    # nRMSE: max(O, 1 - O) = 0.5, 0.8 -> sqrt((0.25 + 0.64) / 2)
    assert nrmse([0.5, 0.2], [0.3, 0.2]) == pytest.approx(math.sqrt(0.02) / math.sqrt(0.445))
    # ER = mean improvement 0.1 / 0.2; DeltaRI = 0.2/0.4 - 0.1/0.3
    assert effect_ratio([0.6], [0.4], [0.4], [0.3]) == pytest.approx(0.5)
    assert delta_ri([0.6], [0.4], [0.4], [0.3]) == pytest.approx(0.5 - 1 / 3)
    g = tie_gap([0.1, 0.5, 0.2], [0.3, 0.6, 0.2], [0.25, 0.1, 0.5], [0.4, 0.2, 0.7])
    np.testing.assert_allclose(g, [0.0, 0.3, 0.3])


def test_ktu_and_rbo_by_hand():
    # identical lists: both 1; a reversed list of the same documents: tau -1
    assert ktu(list("abcd"), list("abcd")) == pytest.approx(1.0)
    assert ktu(list("abcd"), list("dcba")) == pytest.approx(-1.0)
    assert rbo_at(list("abc"), list("abc"), 0.9, 3) == pytest.approx(1.0)
    # Webber's prefix sum normalised: A = (0, 1/2, 1) at p = 0.5 -> (0.25 + 0.25) / 1.75
    assert rbo_at(list("abc"), list("bca"), 0.5, 3) == pytest.approx(0.5 / 1.75)
    # swapping two tied documents costs nothing with ties kept, something without
    assert ktu_ties(list("abcd"), [1, 2, 2, 3], list("acbd"), [1, 2, 2, 3]) == pytest.approx(1.0)
    assert ktu(list("abcd"), list("acbd")) < 1.0


def test_cli_tables_and_errors(covid, tmp_path):
    r = CliRunner().invoke(main, ["repro", covid["b_orig"], covid["a_orig"], "--reproduced",
                                  covid["b_rep"], "--reproduced", covid["a_rep"], "--qrels",
                                  covid["qrels"], "-m", "AP", "--format", "json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert len(d["pairs"]) == 2 and len(d["effects"]) == 1
    assert d["effects"][0]["ER"] == pytest.approx(-1.5841922518668092, rel=1e-12)
    r = CliRunner().invoke(main, ["repro", covid["b_orig"], "--reproduced", covid["b_rep"],
                                  "--reproduced", covid["a_rep"], "--qrels", covid["qrels"]])
    assert r.exit_code == 2 and "tiebreak: error:" in r.output and "same order" in r.output
    # replicability: another qrels -> the unpaired t-test only
    r = CliRunner().invoke(main, ["repro", covid["b_orig"], "--reproduced", covid["b_rep"],
                                  "--qrels", covid["qrels"], "--rep-qrels", covid["qrels"],
                                  "-m", "AP", "--format", "tsv"])
    assert r.exit_code == 0, r.output
    head, row = r.output.splitlines()[:2]
    assert head.split("\t")[-1] == "p_unpaired"
    from scipy.stats import ttest_ind

    ev = reproduction(read_qrels(covid["qrels"]), [read_run(covid["b_orig"])],
                      [read_run(covid["b_rep"])], ["AP"])
    assert float(row.split("\t")[-1]) != ev.rows[0]["p_paired"]
    assert float(row.split("\t")[-1]) == pytest.approx(ttest_ind(
        [x["orig"] for x in ev.per_topic if x["measure"] == "AP"],
        [x["rep"] for x in ev.per_topic if x["measure"] == "AP"]).pvalue, rel=1e-12)


def test_plot(ours, tmp_path):
    pytest.importorskip("matplotlib")
    from tiebreak.studies.repro import plot

    plot(ours, tmp_path / "f.png")
    assert (tmp_path / "f.png").stat().st_size > 1000


def test_gap_never_exceeds_any_difference():
    """For any values inside the two ranges, |O - R| >= the gap, and the gap is reached."""
    from hypothesis import given
    from hypothesis import strategies as stx

    unit = stx.floats(0, 1, allow_nan=False)

    @given(unit, unit, unit, unit, unit, unit)
    def check(a, b, c, d, u, v):
        lo_o, hi_o = min(a, b), max(a, b)
        lo_r, hi_r = min(c, d), max(c, d)
        g = float(tie_gap(lo_o, hi_o, lo_r, hi_r))
        o, r = lo_o + u * (hi_o - lo_o), lo_r + v * (hi_r - lo_r)
        assert g <= abs(o - r) + 1e-12
        ends = [abs(x - y) for x in (lo_o, hi_o) for y in (lo_r, hi_r)]
        assert g == 0.0 or any(abs(e - g) < 1e-12 for e in ends)

    check()


def test_pairing_and_baseline(covid):
    from tiebreak.studies.repro import pair_runs

    q = read_qrels(covid["qrels"])
    a, b = read_run(covid["b_orig"]), read_run(covid["a_orig"])
    # by name: the reproduced runs given in the other order are matched by name
    assert pair_runs([a, b], [b, a]) == [(0, 1), (1, 0)]
    res = reproduction(q, [a, b], [b, a], ["AP"])
    assert all(r["RMSE"] == 0.0 and r["KTU"] == pytest.approx(1.0) for r in res.rows)
    assert res.effects[0]["ER"] == pytest.approx(1.0) and res.effects[0]["DeltaRI"] == 0.0
    with pytest.raises(ValueError, match="baseline 'nope'"):
        reproduction(q, [a, b], [b, a], ["AP"], baseline="nope")


def test_residual_range_is_ordered(covid):
    """RBP's residual is lower-is-better (realistic is the larger end): ranges stay ordered."""
    q = read_qrels(covid["qrels"])
    res = reproduction(q, [read_run(covid["b_orig"])], [read_run(covid["b_rep"])],
                       ["RBP(p=0.8)"], ["realistic"])
    pt = [x for x in res.per_topic if x["measure"] != "-"]
    assert {x["measure"] for x in pt} == {"RBP(p=0.8)", "RBP_resid(p=0.8)"}
    assert all(x["orig_low"] <= x["orig_high"] and x["rep_low"] <= x["rep_high"] for x in pt)
    assert any(x["orig_low"] < x["orig_high"] for x in pt if x["measure"].startswith("RBP_r"))


def test_ktu_as_repro_eval_is_not_the_rank_tau():
    """repro_eval's KTU correlates, rank by rank, the documents' places in the sorted union, so
    it depends on the docnos: one swap at the bottom of [a, c, b, d] gives 0, while Kendall's tau
    of the two rankings (KTU_ties without ties) gives 4/6. With an alphabetical original the two
    agree."""
    assert ktu(list("acbd"), list("acdb")) == pytest.approx(0.0)
    assert ktu_ties(list("acbd"), [0, 1, 2, 3], list("acdb"), [0, 1, 2, 3]) == pytest.approx(4 / 6)
    assert ktu(list("abcd"), list("abdc")) == pytest.approx(4 / 6)
