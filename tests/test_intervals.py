"""PlaneSweep interval finders (tiebreak.retrieval.intervals) against a brute-force enumerator,
the thesis's worked examples (spec proximity-retrieval.md §4.3, §4.9) and the q621 table
(§4.10 / Appendix B)."""

from __future__ import annotations

import importlib.util
import itertools
import random
from pathlib import Path

import numpy as np
import pytest
from hyp_budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from tiebreak.retrieval import intervals as iv

SHARED_ORACLE = (
    Path(__file__).resolve().parents[1].parent / "shared" / "spec" / "oracles" / "planesweep_ref.py"
)


# ---------------------------------------------------------------------------------------------
# brute force (written from Definition 1: covers the subquery, and dropping either end token
# loses a term; covering is monotone in the span, so that suffices for minimality)
# ---------------------------------------------------------------------------------------------


def brute(doc, sub):
    sub = set(sub)
    occ = [i for i, t in enumerate(doc) if t in sub]

    def covers(a, b):
        return sub <= {doc[i] for i in range(a, b + 1)}

    out = []
    for a in occ:
        for b in occ:
            if b >= a and covers(a, b) and not covers(a + 1, b) and not covers(a, b - 1):
                out.append((a, b))
    return out


def positions(doc, k):
    return [[i for i, t in enumerate(doc) if t == q] for q in range(k)]


def as_list(a):
    return [] if a is None else [tuple(x) for x in np.asarray(a).tolist()]


def check_all_finders(doc, k):
    pos = positions(doc, k)
    a3 = iv.lps_if_all(pos).by_subquery()
    a4 = iv.eps_cdf_all(pos).by_subquery()
    cdf = iv.build_cdf(pos)
    dfile = iv.direct_file_cdf(doc)
    for r in range(2, k + 1):
        for sub in itertools.combinations(range(k), r):
            m = iv.mask_of(sub)
            bf = brute(doc, sub)
            assert as_list(a3.get(m)) == bf, ("LPS-IF-A", doc, sub)
            assert as_list(a4.get(m)) == bf, ("EPS-CDF-A", doc, sub)
            assert as_list(iv.eps(pos, m)) == bf, ("EPS", doc, sub)
            assert as_list(iv.lps(cdf, m)) == bf, ("LPS-CDF", doc, sub)
            assert as_list(iv.lps(dfile, m)) == bf, ("LPS-DF", doc, sub)
    # nothing emitted for a subquery that has no interval
    for m in set(a3) | set(a4):
        assert bin(m).count("1") >= 2


docs = st.integers(2, 5).flatmap(
    lambda k: st.tuples(st.just(k), st.lists(st.integers(-1, k - 1), max_size=24))
)


@pytest.mark.slow
@settings(max_examples=examples(1500), deadline=None)
@given(docs)
def test_finders_equal_brute_force(case):
    k, doc = case
    check_all_finders(doc, k)


@pytest.mark.slow
def test_finders_seeded_random_3000():
    rng = random.Random(7)
    for _ in range(3000):
        k = rng.randint(2, 4)
        doc = [rng.randint(-1, k - 1) for _ in range(rng.randint(0, 16))]
        pos = positions(doc, k)
        a3 = iv.lps_if_all(pos).by_subquery()
        a4 = iv.eps_cdf_all(iv.build_cdf(pos)).by_subquery()
        for r in range(2, k + 1):
            for sub in itertools.combinations(range(k), r):
                m = iv.mask_of(sub)
                bf = brute(doc, sub)
                assert as_list(a3.get(m)) == bf
                assert as_list(a4.get(m)) == bf


@pytest.mark.skipif(not SHARED_ORACLE.exists(), reason="../shared oracle not found")
def test_against_shared_oracle():
    spec = importlib.util.spec_from_file_location("planesweep_ref", SHARED_ORACLE)
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    rng = random.Random(11)
    for _ in range(500):
        k = rng.randint(2, 6)
        doc = [rng.randint(0, k + 1) for _ in range(rng.randint(1, 30))]
        pos = positions(doc, k)
        a3 = iv.lps_if_all(pos).by_subquery()
        for r in range(2, k + 1):
            for sub in itertools.combinations(range(k), r):
                assert as_list(a3.get(iv.mask_of(sub))) == sorted(ref.brute_optimal(pos, sub))


def test_pure_python_kernels_agree():
    """The uncompiled kernels (the readable fallback) give the same answers."""
    if not iv.HAVE_NUMBA:
        pytest.skip("numba absent: the pure path is the one under test everywhere")
    rng = random.Random(3)
    for _ in range(150):
        k = rng.randint(2, 4)
        doc = [rng.randint(-1, k - 1) for _ in range(rng.randint(0, 14))]
        pos = iv.as_position_lists(positions(doc, k))
        flat, starts, ends = iv._flatten(pos)
        cap = 4 * len(flat) + 16
        for kern, args in (
            (iv.lps_if_all_kernel, (flat, starts, ends)),
            (iv.eps_cdf_all_kernel, (iv.build_cdf(pos).pos, iv.build_cdf(pos).term)),
        ):
            b1 = [np.zeros(cap, np.int64)] + [np.zeros(cap, np.int32) for _ in range(4)]
            b2 = [np.zeros(cap, np.int64)] + [np.zeros(cap, np.int32) for _ in range(4)]
            n1 = kern(*args, False, *b1)
            n2 = kern.py_func(*args, False, *b2)
            assert n1 == n2
            for x, y in zip(b1, b2):
                assert np.array_equal(x[:n1], y[:n2])
        for r in range(2, k + 1):
            for sub in itertools.combinations(range(k), r):
                m = np.int64(iv.mask_of(sub))
                o1, o2 = np.zeros((2, cap), np.int32), np.zeros((2, cap), np.int32)
                n1 = iv.eps_kernel.py_func(flat, starts, ends, m, o1[0], o1[1])
                n2 = iv.eps_kernel(flat, starts, ends, m, o2[0], o2[1])
                assert n1 == n2 and np.array_equal(o1[:, :n1], o2[:, :n2])
                d = iv.direct_file_cdf(doc)
                n1 = iv.lps_kernel.py_func(d.pos, d.term, m, o1[0], o1[1])
                assert [tuple(x) for x in o1[:, :n1].T.tolist()] == brute(doc, sub)


def test_lps_over_cdf_equals_lps_if_all():
    rng = random.Random(9)
    for _ in range(400):
        k = rng.randint(2, 5)
        doc = [rng.randint(-1, k - 1) for _ in range(rng.randint(0, 20))]
        pos = iv.as_position_lists(positions(doc, k))
        cdf = iv.build_cdf(pos)
        for pairs in (False, True):
            ref = iv.lps_if_all(pos, pairs_only=pairs)
            cap = len(ref) + 1
            b = [np.zeros(cap, np.int64)] + [np.zeros(cap, np.int32) for _ in range(4)]
            n = iv.lps_cdf_all_kernel(cdf.pos, cdf.term, np.empty(k, np.int64), pairs, *b)
            assert n == len(ref)
            assert np.array_equal(b[0][:n], ref.mask)
            assert np.array_equal(b[1][:n], ref.start) and np.array_equal(b[2][:n], ref.end)


def test_pairs_only_is_the_two_term_part():
    rng = random.Random(5)
    for _ in range(300):
        k = rng.randint(2, 5)
        doc = [rng.randint(-1, k - 1) for _ in range(rng.randint(0, 20))]
        pos = positions(doc, k)
        full = iv.lps_if_all(pos).by_subquery()
        two = {m: v for m, v in full.items() if bin(m).count("1") == 2}
        for got in (iv.lps_if_all(pos, pairs_only=True), iv.eps_cdf_all(pos, pairs_only=True)):
            g = got.by_subquery()
            assert set(g) == set(two)
            for m in two:
                assert np.array_equal(g[m], two[m])


# ---------------------------------------------------------------------------------------------
# worked examples
# ---------------------------------------------------------------------------------------------

S, V, G = 0, 1, 2


def test_example_a_scalable_vector_graphics_d3():
    """§4.3 Example A: D3 as a direct file with the Fig. 2.5 vocabulary ids."""
    d3 = [23, 30, 11, 13, 7, 6, 22, 28, 29, 19, 0, 30, 11, 8]
    local = {23: S, 30: V, 11: G}
    dfile = iv.direct_file_cdf([local.get(t, -1) for t in d3])
    pos = [[0], [1, 11], [2, 12]]
    svg, vg, sv, sg = (iv.mask_of(x) for x in ([S, V, G], [V, G], [S, V], [S, G]))
    assert as_list(iv.eps(pos, svg)) == [(0, 2)]
    assert as_list(iv.lps(dfile, svg)) == [(0, 2)]
    for got in (iv.eps(pos, vg), iv.lps(dfile, vg), iv.lps(iv.build_cdf(pos), vg)):
        assert as_list(got) == [(1, 2), (2, 11), (11, 12)]  # three, not the prose's two
    assert as_list(iv.eps(pos, sv)) == [(0, 1)]
    assert as_list(iv.eps(pos, sg)) == [(0, 2)]  # omitted by the thesis's list
    everything = iv.all_optimal_intervals(pos).by_subquery()
    assert {m: as_list(v) for m, v in everything.items()} == {
        svg: [(0, 2)],
        vg: [(1, 2), (2, 11), (11, 12)],
        sv: [(0, 1)],
        sg: [(0, 2)],
    }


FIG312 = [[0, 7], [1, 6, 11], [2, 12]]  # §4.9 arrangement: S, V, G


def test_fig312_lps_if_a_trace_order():
    """LPS-IF-A emissions in the order of the §4.9 trace (grouped by right end)."""
    got = iv.lps_if_all(FIG312)
    by_end = {}
    for m, s, e in zip(got.mask.tolist(), got.start.tolist(), got.end.tolist()):
        by_end.setdefault(e, set()).add((m, s))
    M = iv.mask_of
    assert by_end == {
        1: {(M([S, V]), 0)},
        2: {(M([S, G]), 0), (M([S, V, G]), 0), (M([V, G]), 1)},
        6: {(M([V, G]), 2)},
        7: {(M([S, V]), 6), (M([S, G]), 2), (M([S, V, G]), 2)},
        11: {(M([S, V]), 7)},
        12: {(M([S, G]), 7), (M([S, V, G]), 7), (M([V, G]), 11)},
    }
    assert list(got.end) == sorted(got.end)


def test_fig312_eps_cdf_a_trace_order():
    """EPS-CDF-A emissions in the order of the §4.9 trace (grouped by left end)."""
    got = iv.eps_cdf_all(iv.build_cdf(FIG312))
    assert list(iv.build_cdf(FIG312).term) == [S, V, G, V, S, V, G]
    by_start = {}
    for m, s, e in zip(got.mask.tolist(), got.start.tolist(), got.end.tolist()):
        by_start.setdefault(s, set()).add((m, e))
    M = iv.mask_of
    assert by_start == {
        0: {(M([S, V]), 1), (M([S, G]), 2), (M([S, V, G]), 2)},
        1: {(M([V, G]), 2)},
        2: {(M([V, G]), 6), (M([S, G]), 7), (M([S, V, G]), 7)},
        6: {(M([S, V]), 7)},
        7: {(M([S, V]), 11), (M([S, G]), 12), (M([S, V, G]), 12)},
        11: {(M([V, G]), 12)},
    }
    assert list(got.start) == sorted(got.start)


def test_fig312_final_sets():
    from tiebreak.retrieval.proximity import non_overlapping

    M = iv.mask_of
    expected = {
        M([S, V]): ([(0, 1), (6, 7), (7, 11)], [(0, 1), (6, 7)]),
        M([S, G]): ([(0, 2), (2, 7), (7, 12)], [(0, 2), (7, 12)]),
        M([V, G]): ([(1, 2), (2, 6), (11, 12)], [(1, 2), (11, 12)]),
        M([S, V, G]): ([(0, 2), (2, 7), (7, 12)], [(0, 2), (7, 12)]),
    }
    for method in ("lps_if_all", "eps_cdf_all"):
        got = iv.all_optimal_intervals(FIG312, method=method).by_subquery()
        assert set(got) == set(expected)
        for m, (opt, nonov) in expected.items():
            assert as_list(got[m]) == opt
            assert as_list(non_overlapping(got[m])) == nonov
    assert as_list(iv.eps(FIG312, M([S, V, G]))) == [(0, 2), (2, 7), (7, 12)]


# q621 "women ordained church of england" (§4.10), positions after stemming
Q621_TERMS = ["women", "ordained", "church", "of", "england"]
Q621 = [[5, 51, 67], [53, 68], [16, 63], [17, 64], [0, 18, 65]]

# Appendix B: non-overlapping optimal intervals per subquery
Q621_NONOVERLAP = {
    "women ordained": [(51, 53), (67, 68)],
    "women church": [(5, 16), (51, 63)],
    "women of": [(5, 17), (51, 64)],
    "women england": [(0, 5), (18, 51), (65, 67)],
    "ordained church": [(16, 53), (63, 68)],
    "ordained of": [(17, 53), (64, 68)],
    "ordained england": [(18, 53), (65, 68)],
    "church of": [(16, 17), (63, 64)],
    "church england": [(0, 16), (18, 63)],
    "of england": [(0, 17), (18, 64)],
    "women ordained church": [(16, 53), (63, 68)],
    "women ordained of": [(17, 53), (64, 68)],
    "women ordained england": [(18, 53), (65, 68)],
    "women church of": [(5, 17), (51, 64)],
    "women church england": [(0, 16), (18, 63)],
    "women of england": [(0, 17), (18, 64)],
    "ordained church of": [(16, 53), (63, 68)],
    "ordained church england": [(16, 53), (63, 68)],
    "ordained of england": [(17, 53), (64, 68)],
    "church of england": [(0, 17), (18, 64)],
    "women ordained church of": [(16, 53), (63, 68)],
    "women ordained church england": [(16, 53), (63, 68)],
    "women ordained of england": [(17, 53), (64, 68)],
    "women church of england": [(0, 17), (18, 64)],
    "ordained church of england": [(16, 53), (63, 68)],
    "women ordained church of england": [(16, 53), (63, 68)],
}

Q621_FULL = {
    "women england": [(0, 5), (5, 18), (18, 51), (51, 65), (65, 67)],
    "women ordained england": [(18, 53), (51, 65), (53, 67), (65, 68)],
    "church of england": [(0, 17), (16, 18), (17, 63), (18, 64), (63, 65)],
    "women ordained church of england": [
        (16, 53),
        (17, 63),
        (18, 64),
        (51, 65),
        (53, 67),
        (63, 68),
    ],
}


def q621_mask(name):
    return iv.mask_of(Q621_TERMS.index(t) for t in name.split())


@pytest.mark.parametrize("method", ["lps_if_all", "eps_cdf_all"])
def test_q621_appendix_b_table(method):
    from tiebreak.retrieval.proximity import non_overlapping

    got = iv.all_optimal_intervals(Q621, method=method).by_subquery()
    assert len(got) == 26
    for name, expected in Q621_NONOVERLAP.items():
        assert as_list(non_overlapping(got[q621_mask(name)])) == expected, name
    for name, expected in Q621_FULL.items():
        assert as_list(got[q621_mask(name)]) == expected, name
        assert as_list(iv.eps(Q621, q621_mask(name))) == expected, name
        assert as_list(iv.lps(iv.build_cdf(Q621), q621_mask(name))) == expected, name


def test_q621_corrected_england_women_church():
    """§4.10: the thesis's intervals for "england, women, church" are those of "women, of,
    england"; the correct non-overlapping set is [0..16], [18..63]."""
    from tiebreak.retrieval.proximity import non_overlapping

    m = q621_mask("women church england")
    assert as_list(non_overlapping(iv.eps(Q621, m))) == [(0, 16), (18, 63)]


# ---------------------------------------------------------------------------------------------
# choice of representation, validation
# ---------------------------------------------------------------------------------------------


def test_choose_method_rule():
    assert iv.choose_method(3, 0.01, False) == "eps"
    assert iv.choose_method(3, 0.16, False) == "lps"
    assert iv.choose_method(3, 0.05, True) == "lps_if_all"
    assert iv.choose_method(8, 0.05, True) == "eps_cdf_all"
    assert iv.choose_method(3, 0.35, True) == "eps_cdf_all"
    # auto gives the same intervals whichever way it goes
    dense = [[0, 2, 4], [1, 3, 5]]
    sparse = [[0, 500], [900]]
    for pl in (dense, sparse):
        assert np.array_equal(iv.optimal_intervals(pl, 3), iv.eps(pl, 3))
        a = iv.all_optimal_intervals(pl, doclen=1000).by_subquery()
        b = iv.lps_if_all(pl).by_subquery()
        assert a.keys() == b.keys() and all(np.array_equal(a[m], b[m]) for m in a)


def test_validation_and_edges():
    with pytest.raises(ValueError):
        iv.as_position_lists([[3, 1]])
    with pytest.raises(ValueError):
        iv.as_position_lists([[1, 2], [2]])
    with pytest.raises(ValueError):
        iv.lps_if_all([[i] for i in range(iv.MAX_ALL_TERMS + 1)])
    assert len(iv.lps_if_all([[], []])) == 0
    assert len(iv.eps_cdf_all([[], [1]])) == 0
    assert iv.eps([[1, 5], []], 3).shape == (0, 2)
    assert iv.eps([[1, 5]], 0b11).shape == (0, 2)  # a term beyond the lists
    assert iv.terms_of(iv.mask_of([0, 3, 5])) == (0, 3, 5)
    # the single-term "subquery" gives every occurrence
    assert as_list(iv.lps(iv.build_cdf([[2, 9]]), 1)) == [(2, 2), (9, 9)]
    # output buffers grow when the first guess is too small (2^(k-2) subsets per pair)
    big = [[i] for i in range(12)]
    assert len(iv.lps_if_all(big)) == len(iv.eps_cdf_all(big)) == 2**12 - 12 - 1
