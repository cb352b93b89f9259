"""Geometric banding and the worst-case bounds of Yang, Moffat & Turpin (2016), Section 4.

Table 2 values are the paper's printed 4-decimal figures; band boundaries follow from
b_{g+1} = ceil(rho * b_g) by hand.
"""

from __future__ import annotations

import io
import math
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

import tiebreak as tb
from tiebreak.cli import main
from tiebreak.evaluation import Evaluator
from tiebreak.ranking import groups, prepare
from tiebreak.ranking.bands import (
    band_ranges,
    band_run,
    band_starts,
    bounds_table,
    delta_rbp,
    delta_rr,
    first_multi_band,
    format_run,
    parse_bound_metric,
    round_run,
    round_scores,
)

# rho: (ΔRR, ΔRBP0.5, ΔRBP0.85) as printed in YMT 2016, Table 2
TABLE2 = {
    "1.1": ("0.0038", "0.0002", "0.0087"),
    "1.2": ("0.0119", "0.0052", "0.0231"),
    "1.4": ("0.0417", "0.0429", "0.0482"),
    "1.7": ("0.0833", "0.0945", "0.0777"),
    "2.0": ("0.0833", "0.1016", "0.0971"),
}
RR_EXACT = {"1.1": Fraction(1, 264), "1.2": Fraction(1, 84), "1.4": Fraction(1, 24),
            "1.7": Fraction(1, 12), "2.0": Fraction(1, 12)}


def ranges(rho, depth):
    b, e = band_ranges(rho, depth)
    return list(zip(b.tolist(), e.tolist()))


# --------------------------------------------------------------------------------------------
# bands
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rho, expected", [
    ("2.0", [(1, 1), (2, 3), (4, 7), (8, 15), (16, 31)]),
    ("1.62", [(1, 1), (2, 3), (4, 6), (7, 11), (12, 19), (20, 31)]),
    ("1.7", [(1, 1), (2, 3), (4, 6), (7, 11), (12, 20), (21, 31)]),
    ("1.4", [(1, 1), (2, 2), (3, 4), (5, 6), (7, 9), (10, 13), (14, 19), (20, 27), (28, 31)]),
    ("1.2", [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 7), (8, 9), (10, 11), (12, 14),
             (15, 17), (18, 21), (22, 26), (27, 31)]),
    ("1.1", [(j, j) for j in range(1, 11)] + [(11, 12), (13, 14), (15, 16), (17, 18),
                                              (19, 20), (21, 23), (24, 26), (27, 29),
                                              (30, 31)]),
])
def test_band_boundaries(rho, expected):
    assert ranges(rho, 31) == expected
    b = band_starts(rho, 31)
    assert b.dtype == np.int64 and b[0] == 1


def test_golden_ratio_widths_are_fibonacci_like():
    widths = [e - b + 1 for b, e in ranges("1.62", 200)][:6]
    assert widths == [1, 2, 3, 5, 8, 13]


def test_exact_rho_where_float_goes_wrong():
    # 1.1 * 170 = 187.00000000000003 in doubles: the float loop would make [170..187]
    assert (170, 186) in ranges(1.1, 300)
    assert (170, 186) in ranges("11/10", 300)
    assert (170, 186) in ranges(Fraction(11, 10), 300)


@pytest.mark.parametrize("rho, v", [("1.1", 11), (1.05, 21), (1.02, 51), (1.01, 101),
                                    (Fraction(3, 2), 3), (2, 2), (3, 1)])
def test_first_multi_band_exact(rho, v):
    assert first_multi_band(rho) == v
    if v > 1:  # bands 1..v-1 are singletons, band v is not
        b, e = band_ranges(rho, v + 5)
        assert (b[: v - 1] == e[: v - 1]).all() and b[v - 1] == v and e[v - 1] > v


def test_rho_one_and_edge_depths():
    assert band_starts(1, 5).tolist() == [1, 2, 3, 4, 5]
    assert band_starts(2, 0).tolist() == []
    assert ranges(2, 5) == [(1, 1), (2, 3), (4, 5)]  # last band cut at depth
    assert delta_rr(1).exact == 0 and delta_rbp(1, 0.5).exact == 0


@pytest.mark.parametrize("bad", [0.9, "0.5", -2, "abc", float("nan"), "inf"])
def test_bad_rho(bad):
    with pytest.raises(ValueError):
        band_starts(bad, 10)


def test_first_multi_band_rejects_rho_one():
    with pytest.raises(ValueError):
        first_multi_band(1)


# --------------------------------------------------------------------------------------------
# Table 2
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rho", list(TABLE2))
def test_table2_cells(rho):
    rr, r5, r85 = TABLE2[rho]
    d = delta_rr(rho)
    assert d.exact == RR_EXACT[rho]
    assert d.band[0] == first_multi_band(rho)
    assert f"{d.value:.4f}" == rr
    assert f"{delta_rbp(rho, '0.5').value:.4f}" == r5
    assert f"{delta_rbp(rho, 0.85).value:.4f}" == r85
    assert isinstance(delta_rbp(rho, Fraction(17, 20)).exact, Fraction)


def test_delta_rr_is_first_multi_band_loss():
    d = delta_rr("1.1")
    assert d.band == (11, 12)
    assert d.exact == Fraction(1, 11) - (Fraction(1, 11) + Fraction(1, 12)) / 2
    assert delta_rr("1.1", depth=10).exact == 0  # no multi-rank band within depth 10


def test_delta_rbp_by_hand_for_rho_2_depth_3():
    # bands [1], [2,3]; p = 1/2: weights 1/2, 1/4, 1/8 -> band 2: t=1: 1/4 - (3/8)/2 = 1/16
    assert delta_rbp(2, "1/2", depth=3).exact == Fraction(1, 16)


def test_bounds_table_object():
    t = bounds_table()
    assert t.rhos == list(TABLE2) and t.metrics == ["RR", "RBP(p=0.5)", "RBP(p=0.85)"]
    assert t.values.shape == (5, 3)
    got = [[f"{x:.4f}" for x in row] for row in t.values]
    assert got == [list(v) for v in TABLE2.values()]
    assert [row[0] for row in t.exact] == list(RR_EXACT.values())


def test_parse_bound_metric():
    assert parse_bound_metric("rr") == ("RR", None)
    assert parse_bound_metric("RBP(0.85)") == ("RBP(p=0.85)", Fraction(17, 20))
    for bad in ("AP", "RBP(p=1)", "RBP(p=0)", "RBP()"):
        with pytest.raises(ValueError):
            parse_bound_metric(bad)


# --------------------------------------------------------------------------------------------
# banded and rounded runs
# --------------------------------------------------------------------------------------------

DOCS = [f"d{j:02d}" for j in range(1, 11)]
REL = [1, 0, 1, 0, 0, 1, 0, 0, 1, 1]  # relevance of the file's 1st..10th line, topic 7
SCORES = [3.5, 3.25, 9.0, 1.0, 1.0, 0.5, 7.123456, 7.123444, -1e-05, 0.0]


def _run_text():
    lines = [f"7 Q0 {d} {i} {s!r} orig" for i, (d, s) in enumerate(zip(DOCS, SCORES), 1)]
    lines += ["3 Q0 zz 1 5.0 orig", "3 Q0 aa 2 5.0 orig"]  # a second topic, tied
    return ("\n".join(lines) + "\n").encode()


def _qrels():
    text = "".join(f"7 0 {d} {r}\n" for d, r in zip(DOCS, REL)) + "3 0 aa 1\n"
    return tb.read_qrels(io.BytesIO(text.encode()))


def test_banded_run_round_trip_and_tie_groups():
    run = tb.read_run(io.BytesIO(_run_text()))
    banded = band_run(run, 2)
    text = format_run(banded, "b2")
    back = tb.read_run(io.BytesIO(text))
    assert back.name == "b2" and back.topics == ["7", "3"]
    rows = [line.split() for line in text.decode().splitlines()]
    assert [r[2] for r in rows[:10]] == DOCS  # file order kept, docnos unchanged
    assert [int(r[3]) for r in rows] == list(range(1, 11)) + [1, 2]
    assert [float(r[4]) for r in rows[:10]] == [1, .5, .5] + [1 / 3] * 4 + [.25] * 3
    np.testing.assert_array_equal(back.score, banded.score)

    # tied groups of the re-read run are the bands: [1], [2,3], [4..7], [8..10]
    q = _qrels()
    G = groups(prepare(back, q))
    t7 = G.g_topic == q.topics.index("7")
    assert G.g_first[t7].tolist() == [1, 2, 4, 8]
    assert G.g_size[t7].tolist() == [1, 2, 4, 3]

    res = Evaluator(q, ["P@1", "P@2", "P@3", "P@5", "RR"],
                    ["file", "expected", "lower", "upper"]).evaluate([back])

    def val(m, reg):
        return res.value("b2", m, reg, "7")

    # file order is the reference order, so the "file" regime gives the original ranking
    assert val("P@3", "file") == pytest.approx(2 / 3)
    # E[P@2] = (rel1 + mean(rel2, rel3)) / 2 = (1 + 1/2) / 2
    assert val("P@2", "expected") == pytest.approx(3 / 4)
    assert val("P@3", "expected") == pytest.approx(2 / 3)
    # P@5: band [4..7] has 1 relevant of 4, 2 of its slots inside the cutoff
    assert val("P@5", "expected") == pytest.approx((2 + 2 * 1 / 4) / 5)
    assert (val("P@5", "lower"), val("P@5", "upper")) == pytest.approx((2 / 5, 3 / 5))
    assert val("P@1", "lower") == val("P@1", "upper") == 1.0  # singleton band: no spread
    assert val("RR", "expected") == 1.0


def test_band_run_trec_eval_order():
    run = tb.read_run(io.BytesIO(_run_text()))
    banded = band_run(run, "1.5", order="trec_eval", name="x")
    text = format_run(banded).decode().splitlines()
    docs = [line.split()[2] for line in text]
    # topic 7 by score desc (d04/d05 tie at 1.0: docno descending); topic 3: zz before aa
    assert docs[:10] == ["d03", "d07", "d08", "d01", "d02", "d05", "d04", "d06", "d10", "d09"]
    assert docs[10:] == ["zz", "aa"]
    assert [line.split()[5] for line in text] == ["x"] * 12
    with pytest.raises(ValueError):
        band_run(run, 2, order="score")


def test_round_scores_decimal_exact():
    x = np.array([7.123456, 7.123444, 0.125, 0.135, -1e-05, 0.0, -0.0, 2.5e300, 1 / 3])
    got = round_scores(x, 3)
    assert got.tolist() == [7.12, 7.12, 0.125, 0.135, -1e-05, 0.0, -0.0, 2.5e300, 0.333]
    assert math.copysign(1, got[6]) == -1
    assert round_scores(x, 5)[0] != round_scores(x, 5)[1]  # 7.1235 vs 7.1234
    assert round_scores(x, 17).tolist() == x.tolist()
    with pytest.raises(ValueError):
        round_scores(x, 0)


def test_round_run_makes_ties():
    run = tb.read_run(io.BytesIO(_run_text()))
    r = round_run(run, 4)
    assert r.name == "orig_d4"
    back = tb.read_run(io.BytesIO(format_run(r)))
    assert back.score[6] == back.score[7] == 7.123
    assert back.score.tolist()[:3] == [3.5, 3.25, 9.0]


def test_format_run_rejects_bad_tag():
    run = tb.read_run(io.BytesIO(_run_text()))
    with pytest.raises(ValueError):
        format_run(band_run(run, 2), "two words")


def test_non_ascii_docnos_kept_byte_for_byte():
    raw = "1 Q0 caf\u00e9 1 2.0 t\n1 Q0 \u00fcber 2 1.0 t\n".encode() + b"1 Q0 x\xff 3 0.5 t\n"
    out = format_run(band_run(tb.read_run(io.BytesIO(raw)), 2), "t")
    assert [line.split()[2] for line in out.splitlines()] == [
        "caf\u00e9".encode(), "\u00fcber".encode(), b"x\xff"]


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------


def test_cli_bounds_table():
    r = CliRunner().invoke(main, ["bounds"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["rho", "RR", "RBP(p=0.5)", "RBP(p=0.85)"]
    assert {x.split()[0]: tuple(x.split()[1:]) for x in lines[1:]} == TABLE2


def test_cli_bounds_tsv_full_precision():
    r = CliRunner().invoke(main, ["bounds", "--rho", "1.1", "--rho", "11/10", "--metric", "RR",
                                  "--metric", "RBP(p=0.85)", "--format", "tsv"])
    assert r.exit_code == 0, r.output
    rows = [x.split("\t") for x in r.stdout.splitlines()]
    assert rows[0] == ["rho", "RR", "RBP(p=0.85)"]
    assert [x[0] for x in rows[1:]] == ["1.1", "11/10"]
    assert float(rows[1][1]) == 1 / 264 and rows[1][1:] == rows[2][1:]


def test_cli_bounds_errors():
    for args in (["--rho", "0.9"], ["--metric", "AP"]):
        r = CliRunner().invoke(main, ["bounds", *args])
        assert r.exit_code == 2 and "error" in r.output


def test_cli_band(tmp_path):
    path = tmp_path / "a.run"
    path.write_bytes(_run_text())
    r = CliRunner().invoke(main, ["band", "--rho", "2", "--tag", "b2", str(path)])
    assert r.exit_code == 0, r.output
    run = tb.read_run(io.BytesIO(r.stdout_bytes))
    assert run.name == "b2" and len(run) == 12
    assert run.score.tolist()[:4] == [1.0, 0.5, 0.5, 1 / 3]
    assert r.stdout.splitlines()[3].split()[4] == repr(1 / 3)

    r = CliRunner().invoke(main, ["band", "--digits", "2", "--order", "trec_eval", str(path)])
    assert r.exit_code == 0, r.output
    rows = [x.split() for x in r.stdout.splitlines()]
    assert rows[0][2:] == ["d03", "1", "9.0", "orig_d2"]
    assert [x[4] for x in rows[1:3]] == ["7.1", "7.1"]

    r = CliRunner().invoke(main, ["band", "-", "--rho", "1.5"], input=_run_text())
    assert r.exit_code == 0 and r.stdout.split()[5] == "orig_rho1.5"


@pytest.mark.parametrize("args", [[], ["--rho", "2", "--digits", "3"], ["--rho", "0.5"],
                                  ["--digits", "0"]])
def test_cli_band_errors(tmp_path, args):
    path = tmp_path / "a.run"
    path.write_bytes(_run_text())
    r = CliRunner().invoke(main, ["band", *args, str(path)])
    assert r.exit_code == 2 and "tiebreak: error" in r.output
