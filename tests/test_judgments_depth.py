"""tiebreak.studies.depth: coverage, inversion, volatility, leave-out, metric variants."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from tiebreak.io import read_qrels, read_run
from tiebreak.judgments.pool import pool_depth, restrict_qrels, run_lists
from tiebreak.stats import kendall_tau
from tiebreak.studies.depth import (
    coverage_inversion,
    leave_out,
    pool_counts,
    run_depth_study,
    score_runs,
    significant_pairs,
    tau_matrix,
)


def _run(lines, name):
    text = "".join(f"{t} Q0 {d} {i} {100 - i} {name}\n" for t, d, i in lines)
    return read_run(io.BytesIO(text.encode()), name=name)


def _qrels(pairs):
    return read_qrels(io.BytesIO("".join(f"{t} 0 {d} {v}\n" for t, d, v in pairs).encode()))


# ------------------------------------------------------------------ coverage and inversion

NOISE = np.array([0.01, -0.01, 0.02, -0.02, 0.0, 0.01])
BASE = np.array([0.9, 0.8, 0.9, 0.8, 0.9, 0.8])


def test_coverage_and_inversion_hand_worked():
    """Reference: s0 > s1 > s2, every pair significant. Candidate: s1 slightly above s0 (not
    significant), both well above s2. C_ref = {(0,1), (0,2), (1,2)}; C_new covers (0,2) and
    (1,2); (0,1) is inverted. So coverage 2/3 and inversion 1/3."""
    ref = np.stack([BASE, BASE - 0.3 + NOISE, BASE - 0.6 - NOISE])
    new = np.stack([BASE, BASE + 0.002 + NOISE / 2, BASE - 0.6 - NOISE])
    for i, j in [(0, 1), (0, 2), (1, 2)]:
        assert sps.ttest_rel(ref[i], ref[j]).pvalue < 0.05
    assert sps.ttest_rel(new[0], new[1]).pvalue > 0.05
    S, P = significant_pairs(ref)
    assert S.sum() == 3 and S[0, 1] and S[0, 2] and S[1, 2]
    r = coverage_inversion(ref, new)
    assert r["n_ref"] == 3 and r["n_new"] == 2
    assert r["coverage"] == pytest.approx(2 / 3)
    assert r["inversion"] == pytest.approx(1 / 3)
    assert r["discrimination"] == pytest.approx(2 / 3)
    assert r["median_p"] == pytest.approx(np.median(
        [sps.ttest_rel(new[i], new[j]).pvalue for i, j in [(0, 1), (0, 2), (1, 2)]]))


def test_significant_in_opposite_direction_is_an_inversion_not_coverage():
    ref = np.stack([BASE, BASE - 0.3 + NOISE])
    new = np.stack([BASE - 0.3 + NOISE, BASE])
    r = coverage_inversion(ref, new)
    assert (r["coverage"], r["inversion"], r["n_new"]) == (0.0, 1.0, 1)
    same = coverage_inversion(ref, ref)
    assert (same["coverage"], same["inversion"]) == (1.0, 0.0)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_coverage_in_unit_interval(seed):
    rng = np.random.default_rng(seed)
    ref = rng.random((6, 8)) + np.arange(6)[:, None] * 0.2
    new = ref + rng.normal(0, 0.3, ref.shape)
    r = coverage_inversion(ref, new)
    if r["n_ref"]:
        assert 0 <= r["coverage"] <= 1 and 0 <= r["inversion"] <= 1
        assert r["coverage"] + r["inversion"] <= 1


# -------------------------------------------------------------------------- volatility


def test_tau_matrix_hand_worked():
    # orderings of 4 systems at three depths: identical, one adjacent swap, reversed
    A = np.array([[4, 3, 2, 1], [3, 4, 2, 1], [1, 2, 3, 4]], float)
    T = tau_matrix(A)
    assert T[0, 0] == 1 and T[0, 1] == pytest.approx(4 / 6) and T[0, 2] == -1
    assert T[1, 2] == pytest.approx(-4 / 6)
    assert np.allclose(T, T.T)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), min_size=5, max_size=5), min_size=2, max_size=4))
def test_tau_matrix_equals_kendall_tau_b(rows):
    A = np.array(rows, float)
    T = tau_matrix(A)
    for i in range(len(A)):
        for j in range(len(A)):
            want = kendall_tau(A[i], A[j])
            if np.isnan(want):
                assert np.isnan(T[i, j])
            else:
                assert T[i, j] == pytest.approx(want)


# ------------------------------------------------------------- metrics at depth (Table 2.5)


def _table25():
    """Lu (2018) Table 2.5: three runs, R = 20 relevant documents, top 10 given."""
    pats = {"S1": "1110000101", "S2": "0010011101", "S3": "1001011011"}
    qrels = [("1", f"r{i}", 1) for i in range(20)] + [("1", f"n{i}", 0) for i in range(30)]
    runs = []
    for name, pat in pats.items():
        ri = ni = 0
        lines = []
        for i, c in enumerate(pat, 1):
            if c == "1":
                d, ri = f"r{ri}", ri + 1
            else:
                d, ni = f"n{ni}", ni + 1
            lines.append(("1", d, i))
        runs.append(_run(lines, name))
    return _qrels(qrels), runs


def test_metric_variants_match_the_thesis_example():
    q, runs = _table25()
    r = score_runs(q, runs, ["AP_b", "AP", "RBP(p=0.8)", "P"], [3, 10])
    s = r["scores"][:, :, :, 0, 0]  # (run, metric, depth)
    assert s[:, 0, 0] == pytest.approx([1.0, 1 / 9, 1 / 3])  # AP_b@3
    assert s[:, 1, 0] == pytest.approx([0.15, 1 / 60, 0.05])  # AP_a@3
    assert s[:, 0, 1] == pytest.approx([0.400, 0.2095, 0.3727], abs=5e-4)  # AP_b@10
    assert s[:, 1, 1] == pytest.approx([0.200, 0.105, 0.186], abs=5e-4)  # AP_a@10
    assert s[:, 2, 1] == pytest.approx([0.557, 0.315, 0.481], abs=5e-4)  # RBP(0.8)@10
    assert r["residual"][:, 2, 1, 0, 0] == pytest.approx([0.8 ** 10] * 3)
    assert np.isnan(r["residual"][:, 0]).all()
    assert s[:, 3, 1] == pytest.approx([0.5, 0.5, 0.6])


# ------------------------------------------------------------------------- leave-out


def _toy_pool():
    """Topic 1 and 2. Run a alone retrieves the relevant x1 (topic 1) at rank 1; every other
    top-2 document is shared. Depth-2 pool of a, b, c."""
    a = _run([("1", "x1", 1), ("1", "s1", 2), ("2", "s3", 1), ("2", "s4", 2)], "a")
    b = _run([("1", "s1", 1), ("1", "s2", 2), ("2", "s3", 1), ("2", "s4", 2)], "b")
    c = _run([("1", "s2", 1), ("1", "s1", 2), ("2", "s4", 1), ("2", "s3", 2)], "c")
    q = _qrels([("1", "x1", 1), ("1", "s1", 1), ("1", "s2", 0), ("2", "s3", 1),
                ("2", "s4", 0)])
    return [a, b, c], q


def test_leave_one_run_out_by_hand():
    runs, q = _toy_pool()
    L = run_lists(runs, q)
    J = restrict_qrels(q, pool_depth(L, 2))
    r = leave_out(L, J, runs, 2, ["P"], 2, ["a", "b", "c"])
    # P@2 full: a = (2/2 + 1/2)/2 = 0.75, b = (1/2 + 1/2)/2 = 0.5, c = 0.5.
    # Without a, x1 is unjudged: a = (1/2 + 1/2)/2 = 0.5 -> -33.3 %. a then ties b and c;
    # equal scores keep the run order, so a stays at rank 1: Delta rank 0.
    assert r["full"][:, 0] == pytest.approx([0.75, 0.5, 0.5])
    assert r["reduced"][:, 0] == pytest.approx([0.5, 0.5, 0.5])
    assert r["delta_pct"][:, 0] == pytest.approx([-100 / 3, 0, 0])
    assert r["delta_rank"][:, 0].tolist() == [0, 0, 0]
    g = leave_out(L, J, runs, 2, ["P"], 2, ["a", "b", "c"], groups={"a": "G", "b": "G"})
    # leaving a and b out together: only c's top 2 (s2, s1 | s4, s3) stays judged.
    # a: x1 unjudged, s1 judged -> 0.5 / 0.5 -> 0.5; b: s1, s2 judged -> 0.5; c unchanged
    assert g["units"] == ["G", "c"]
    assert g["reduced"][:, 0] == pytest.approx([0.5, 0.5, 0.5])


def test_pool_counts_by_hand():
    runs, q = _toy_pool()
    L = run_lists(runs, q)
    J = restrict_qrels(q, pool_depth(L, 1))  # pool: x1, s1, s2 | s3, s4
    c = pool_counts(L, J, 1, q)
    assert c["rel_in_pool"].tolist() == [[1, 1], [1, 1], [0, 0]]
    # run a topic 1: x1, s1 judged -> length + 1 = 3
    assert c["rank_unjudged"].tolist() == [[3, 3], [3, 3], [3, 3]]
    assert c["num_rel_past"].tolist() == [[1, 0], [0, 0], [1, 1]]


def test_study_rejects_bad_setups():
    runs, q = _toy_pool()
    with pytest.raises(ValueError, match="pool depth"):
        run_depth_study(q, runs)
    with pytest.raises(ValueError, match="not among"):
        run_depth_study(q, runs, 2, contributing=["zz", "a"])
    with pytest.raises(ValueError, match="at least 2"):
        run_depth_study(q, runs, 2, contributing=["a"])


def test_rbo_of_system_orderings():
    from tiebreak.studies.depth import _rbo_of_means

    a = np.array([0.5, 0.4, 0.3, 0.2])
    assert _rbo_of_means(a, a) == pytest.approx(1.0)
    assert _rbo_of_means(a, a[::-1]) < _rbo_of_means(a, np.array([0.5, 0.3, 0.4, 0.2])) < 1.0


def test_volatility_with_tau_ap_and_rbo():
    from types import SimpleNamespace

    from tiebreak.stats import tau_ap
    from tiebreak.studies.depth import _rbo_of_means, volatility

    rng = np.random.default_rng(3)
    vm = rng.random((6, 1, 4, 1))  # 6 systems, 1 metric, 4 depths, 1 regime
    stub = SimpleNamespace(contributing=np.ones(6, bool), systems=list("abcdef"),
                           metrics=["AP"], vol_means=vm)
    T = volatility(stub, "AP")
    A = volatility(stub, "AP", stat="tau_ap")
    R = volatility(stub, "AP", stat="rbo")
    for i in range(4):
        for j in range(4):
            assert T[i, j] == pytest.approx(kendall_tau(vm[:, 0, i, 0], vm[:, 0, j, 0]))
            assert A[i, j] == pytest.approx(tau_ap(vm[:, 0, i, 0], vm[:, 0, j, 0]))
            assert R[i, j] == pytest.approx(_rbo_of_means(vm[:, 0, i, 0], vm[:, 0, j, 0]))
    assert np.diag(A) == pytest.approx(1) and np.diag(R) == pytest.approx(1)
    assert not np.allclose(A, T)
    with pytest.raises(ValueError):
        volatility(stub, "AP", stat="pearson")
