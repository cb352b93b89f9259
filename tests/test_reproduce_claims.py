"""Every check of a paper's claim can fail: each predicate of tiebreak reproduce, given values
for which the claim holds, flips when those values are perturbed (a mutation test per check)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tiebreak.studies.reproduce import Cell, check, claims
from tiebreak.studies.reproduce import items_cabanac2010 as cab
from tiebreak.studies.reproduce import items_lu2018_ch5 as ch5
from tiebreak.studies.reproduce import items_ymt2016 as ymt


def flips(f, good, bad) -> bool:
    """``f(*good)`` holds and ``f(*bad)`` does not."""
    return bool(f(*good)) and not bool(f(*bad))


def test_check_cell_verdict_follows_the_predicate():
    assert check("c", "", 1, True, "claim", "data").verdict == "substitute-holds"
    c = check("c", "", 1, False, "'quoted' (Sect. 4)", "data", "printed precision")
    assert c.verdict == "substitute-differs" and "'quoted' (Sect. 4)" in c.note
    assert "tolerance: printed precision" in c.note


@pytest.mark.parametrize("f, good, bad", [
    (claims.decreasing, ([3, 2, 1],), ([3, 2, 2.5],)),
    (claims.decreasing, ([3, 2, 2.5], 1.0), ([3, 2, 3.5], 1.0)),
    (claims.decreasing, ([3, 2, 1], 0.0, True), ([3, 2, 2], 0.0, True)),
    (claims.increasing, ([1, 2, 3],), ([1, 2, 1.5],)),
    (claims.is_max, ({"a": 2, "b": 1}, "a"), ({"a": 2, "b": 2}, "a")),
    (claims.is_min, ({"a": 1, "b": 2}, "a"), ({"a": 3, "b": 2}, "a")),
    (claims.balanced, (0.3, 0.4, 1.5), (0.2, 0.4, 1.5)),
    (claims.balanced, (0.3, 0.4, 1.5), (0.0, 0.0, 1.5)),
    (claims.inside, (0.5, (0.4, 0.6)), (0.7, (0.4, 0.6))),
])
def test_generic_predicates_flip(f, good, bad):
    assert flips(f, good, bad)


def test_trend_needs_two_values():
    with pytest.raises(ValueError):
        claims.decreasing([1.0])


def test_sampling_intervals():
    lo, hi = claims.wilson(15, 17)
    assert lo < 15 / 17 < hi and 0.6 < lo < 0.7 and 0.95 < hi < 0.98
    num, den = np.array([10.0, 20, 30, 40]), np.array([100.0, 100, 100, 100])
    lo, hi = claims.boot_ratio(num, den, seed=1)
    assert lo <= 0.25 <= hi and lo >= 0.1 and hi <= 0.4
    assert claims.boot_ratio(num, den, seed=1) == (lo, hi)  # seeded
    with pytest.raises(ValueError):
        claims.boot_ratio([1.0], [2.0])


def test_ymt_predicates_flip():
    assert flips(ymt.similar_rate, (14.0, (0.10, 0.20)), (25.0, (0.10, 0.20)))
    assert flips(ymt.most_ranges_small, ([0, 0, 1e-5, 0.1],), ([0, 1e-3, 1e-3, 0.1],))
    assert flips(ymt.some_range_wide, ([0, 0.02],), ([0, 0.009],))
    zero = np.zeros(40)
    moved = np.r_[np.zeros(20), np.full(20, 0.1)]
    assert flips(ymt.rr_quartiles_zero, ([zero, zero],), ([zero, moved],))
    assert flips(ymt.columns_fall, ([[80, 77, 37, 38]],), ([[80, 77, 37, 40]],))
    assert flips(ymt.discrimination_kept, (1.0, 1.0, 136), (2.0, 1.0, 136))
    assert flips(ymt.discrimination_kept, (1.0, 1.0, 136), (1.0, 1.6, 136))
    mad = {"RR": 0.03, "RBP(p=0.5)": 0.04, "RBP(p=0.85)": 0.02, "AP": 0.01}
    assert flips(ymt.shallow_more_affected, (mad,), ({**mad, "AP": 0.035},))
    rhos = ["1.0", "1.4", "1.5", "1.6", "1.7"]
    assert flips(ymt.largest_step_at, ([0, 0.01, 0.012, 0.05, 0.055], rhos, "1.6"),
                 ([0, 0.01, 0.012, 0.015, 0.055], rhos, "1.6"))
    # the band edges are a definition: b_2 = 2 for rho <= 2, 3 for rho = 2.5
    assert ymt.first_group_single(["1.1", "1.7", "2.0"])
    assert ymt.first_group_single(["2.5"])  # outside 1 < rho <= 2: not tested


def test_cabanac_predicates_flip():
    assert flips(cab.in_paper_range, (25.0, 7.5, 34.6), (40.0, 7.5, 34.6))
    assert flips(cab.strong_r, (0.986,), (0.984,))
    assert flips(cab.small_delta, (0.5,), (9.5,))
    assert flips(cab.small_delta, (0.5,), (0.0,))


def test_lu_predicates_flip():
    from tiebreak.studies.reproduce import items_lu2018_ch6 as ch6

    assert flips(ch5.nearer_newswire, (-2.0, -1.31, (-23.3, -17.5)),
                 (-12.0, -1.31, (-23.3, -17.5)))
    assert flips(ch5.high_tau, (0.95,), (0.85,))
    assert flips(ch5.stable_beyond_d, ([99.0, 96.0], [0.0, 0.5]), ([99.0, 90.0], [0.0, 0.5]))
    assert flips(ch5.stable_beyond_d, ([99.0, 96.0], [0.0, 0.5]), ([99.0, 96.0], [0.0, 2.0]))
    disc = {"nDCG": 69.0, "AP_b": 74.0, "RBP(p=0.8)": 53.0, "ERR": 48.0}
    assert flips(ch5.discrimination_order, (disc,), ({**disc, "nDCG": 60.0},))
    assert flips(ch5.discrimination_order, (disc,), ({**disc, "ERR": 55.0},))
    loo = {"LB": 0.06, "RM": 0.13, "lin": 0.07, "L_b": 0.05}
    good = ch6.system_bias_claims(loo, {"L_b": 0.04})
    assert all(good.values())
    for bad_loo, bad_pool, which in (({**loo, "L_b": 0.065}, 0.04, "L_b beats LB"),
                                     ({**loo, "lin": 0.2}, 0.04, "RM is the poorest"),
                                     (loo, 0.055, "L_b's error grows without its run")):
        got = ch6.system_bias_claims(bad_loo, {"L_b": bad_pool})
        assert not got[which]


def test_lu_ch3_ch4_predicates_flip():
    from tiebreak.studies.reproduce import items_lu2018_ch3 as ch3
    from tiebreak.studies.reproduce import items_lu2018_ch4 as ch4

    good = ["bm25", "l2p", "lmds", "lkp", "bctp", "sdm", "fdm"]
    assert flips(ch4.cost_order_holds, (good,),
                 (["l2p", "bm25", "lmds", "lkp", "bctp", "sdm", "fdm"],))
    assert not ch4.cost_order_holds(["bm25", "l2p", "sdm", "lkp", "bctp", "lmds", "fdm"])
    means = {"BOW": 0.20, "BOW+OW": 0.21, "BOW+UW": 0.22, "SDM": 0.23, "FDM": 0.22}
    assert flips(ch3.uw_beats_ow, (means,), ({**means, "BOW+OW": 0.225},))
    assert flips(ch3.all_above_bow, (means,), ({**means, "FDM": 0.19},))
    lo = {"BOW+OW": 3, "BOW+UW": 1, "SDM": 2, "FDM": 2}
    assert flips(ch3.fewest_big_losses, (lo,), ({**lo, "SDM": 1},))


def test_top_tie_pct_counts_successor_ties_in_the_top_k():
    import io

    from tiebreak.io import read_run

    # topic 1: scores 3 3 2 2 2 1 -> in the top 4: ranks 2 and 4 tie their predecessor (50 %)
    text = "".join(f"1 Q0 d{i} {i} {s} r\n" for i, s in enumerate([3, 3, 2, 2, 2, 1], 1))
    text += "".join(f"2 Q0 e{i} {i} {s} r\n" for i, s in enumerate([5, 4, 3, 2], 1))
    run = read_run(io.BytesIO(text.encode()))
    assert list(ch5.top_tie_pct(run, 4)) == [50.0, 0.0]
    assert list(ch5.top_tie_pct(run, 6)) == pytest.approx([50.0, 0.0])


def test_no_substitute_cell_is_hard_coded():
    """No item builds a substitute-* cell from a literal True/False: the modules call check()
    with a computed value (a grep of the sources, the cheap guard against a regression)."""
    import inspect

    from tiebreak.studies.reproduce import (
        items_lu2018_ch2,
        items_lu2018_ch4,
        items_lu2018_ch6,
    )

    for m in (ymt, cab, ch5, items_lu2018_ch2, items_lu2018_ch4, items_lu2018_ch6):
        src = inspect.getsource(m)
        assert "shape-holds" not in src and "read only" not in src, m.__name__
        assert not re.search(r"(_shape|check)\([^()]*,\s*(True|False)\s*,", src), m.__name__
    assert Cell("c", "", None, "descriptive").verdict == "descriptive"
