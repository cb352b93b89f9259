"""Window counts and Lkp scores (tiebreak.retrieval.proximity): brute-force window counters,
the thesis's interval-score examples (spec proximity-retrieval.md §5.3), the Appendix B table and
the §5.7 end-to-end vector."""

from __future__ import annotations

import bisect
import random

import numpy as np
import pytest
from hyp_budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from tiebreak.retrieval import intervals as iv
from tiebreak.retrieval import proximity as px

# ---------------------------------------------------------------------------------------------
# brute-force window counters, written from the operator descriptions
# ---------------------------------------------------------------------------------------------


def brute_uw(doc, terms, N):
    """Indri #uwN as described in spec §1.4: every occurrence of a subquery term is a candidate
    start; extend right until every term is covered; keep when last - first + 1 <= N; count the
    kept windows greedily left to right, skipping any that overlaps the last one counted."""
    terms = set(terms)
    kept = []
    for a, t in enumerate(doc):
        if t not in terms:
            continue
        seen = set()
        for b in range(a, len(doc)):
            if doc[b] in terms:
                seen.add(doc[b])
            if seen == terms:
                if b - a + 1 <= N:
                    kept.append((a, b))
                break
    count, last = 0, -1
    for a, b in kept:
        if a > last:
            count += 1
            last = b
    return count


def brute_od(doc, terms, N):
    """#odN, stateless form: for each occurrence of the first term, chain each next term's first
    occurrence after the previous one; count when every step is <= N."""
    P = [[i for i, t in enumerate(doc) if t == q] for q in terms]
    count = 0
    for p0 in P[0]:
        prev, ok = p0, True
        for lst in P[1:]:
            j = bisect.bisect_right(lst, prev)
            if j == len(lst) or lst[j] - prev > N:
                ok = False
                break
            prev = lst[j]
        count += ok
    return count


docs = st.integers(2, 4).flatmap(
    lambda k: st.tuples(st.just(k), st.lists(st.integers(-1, k - 1), max_size=30))
)


@pytest.mark.slow
@settings(max_examples=examples(600), deadline=None)
@given(docs, st.integers(1, 12))
def test_window_counts_equal_brute_force(case, N):
    k, doc = case
    pos = [[i for i, t in enumerate(doc) if t == q] for q in range(k)]
    for r in range(2, k + 1):
        terms = list(range(r))
        sub = [pos[t] for t in terms]
        assert px.count_unordered(sub, N) == brute_uw(doc, terms, N)
        assert px.count_ordered(sub, N) == brute_od(doc, terms, N)
        rev = sub[::-1]
        assert px.count_ordered(rev, N) == brute_od(doc, terms[::-1], N)
    # #1 is the exact phrase
    sub = [pos[0], pos[1]]
    assert px.count_ordered(sub, 1) == len(px.phrase_starts(sub))


def test_window_examples():
    # §2.3: "vector graphics" over D3: only [1..2] is ordered; all three are unordered windows
    V, G = [1, 11], [2, 12]
    assert px.count_ordered([V, G], 1) == 2  # [1..2] and [11..12]
    assert px.count_ordered([G, V], 1) == 0
    assert px.count_unordered([V, G], 8) == 2  # [1..2], [11..12]; [2..11] too long
    assert px.count_unordered([V, G], 10) == 2  # non-overlapping: [2..11] overlaps [1..2]
    # unordered counting filters by length first: [0..5] is dropped, [5..6] is then kept
    assert px.count_unordered([[0, 6], [5, 9]], 3) == 1
    assert px.count_unordered([[0, 6], [5, 9]], 6) == 2  # [0..5], [6..9]
    assert px.count_unordered([[1], []], 8) == 0
    assert px.count_ordered([[1], []], 8) == 0


def test_non_overlapping():
    iv_ = [(7, 11), (0, 1), (6, 7)]
    assert px.non_overlapping(iv_).tolist() == [[0, 1], [6, 7]]
    assert px.non_overlapping(iv_, max_len=2).tolist() == [[0, 1], [6, 7]]
    assert px.non_overlapping([(0, 9), (5, 6)], max_len=3).tolist() == [[5, 6]]
    assert px.non_overlapping([(0, 9), (5, 6)]).tolist() == [[0, 9]]
    assert px.non_overlapping(np.zeros((0, 2))).shape == (0, 2)


# ---------------------------------------------------------------------------------------------
# Lkp scores
# ---------------------------------------------------------------------------------------------

W = {"women": 1.1, "ordained": 2.0, "church": 2.3, "of": 0.1, "england": 1.5}
TERMS = ["women", "ordained", "church", "of", "england"]
WV = [W[t] for t in TERMS]
Q621 = [[5, 51, 67], [53, 68], [16, 63], [17, 64], [0, 18, 65]]


def test_interval_score_examples():
    """§5.3: [0..5] of {women, england} scores 0.18, [0..17] of {women, of, england} 0.002."""
    a = px.lkp_interval_score(0, 5, W["england"], W["women"], [W["women"], W["england"]])
    assert a == pytest.approx(0.18333, abs=1e-5) and round(a, 2) == 0.18
    b = px.lkp_interval_score(0, 17, W["england"], W["of"], [W["women"], W["of"], W["england"]])
    assert b == pytest.approx(0.00204, abs=1e-5) and round(b, 3) == 0.002
    assert px.lkp_interval_score(0, 5, 1.0, 1.0, [0.0, 0.0]) == 0.0  # guard
    arr = px.lkp_interval_score(np.array([0, 0]), np.array([5, 11]), 1.5, 1.1, [1.1, 1.5])
    assert arr == pytest.approx([0.18333, 0.18333 / 4], abs=1e-5)


# Appendix B: (Eq. 4.1 scores, Eq. 4.2) per subquery
APPX_B = {
    "women ordained": ([0.97778, 2.2], 1.48065),
    "women church": ([0.07028, 0.05988], 0.24006),
    "women of": ([0.00079, 0.00068], 0.00309),
    "women england": ([0.18333, 0.00571, 0.73333], 0.96166),
    "ordained church": ([0.01274, 0.51111], 0.69903),
    "ordained of": ([0.00018, 0.00968], 0.02058),
    "ordained england": ([0.00926, 0.75], 0.86942),
    "church of": ([0.06957, 0.06957], 0.25442),
    "church england": ([0.04775, 0.00652], 0.10806),
    "of england": ([0.00056, 0.00008], 0.00136),
    "women ordained church": ([0.02867, 1.15], 1.07736),
    "women ordained of": ([0.00064, 0.03528], 0.07293),
    "women ordained england": ([0.02083, 1.6875], 1.24441),
    "women church of": ([0.00287, 0.00248], 0.01122),
    "women church england": ([0.10744, 0.01467], 0.22700),
    "women of england": ([0.00204, 0.00030], 0.00493),
    "ordained church of": ([0.01405, 0.5635], 0.74268),
    "ordained church england": ([0.02867, 1.15], 1.07736),
    "ordained of england": ([0.00064, 0.03528], 0.07293),
    "church of england": ([0.00204, 0.00030], 0.00493),
    "women ordained church of": ([0.03061, 1.22794], 1.10780),
    "women ordained church england": ([0.05097, 2.04444], 1.32913),
    "women ordained of england": ([0.00140, 0.07688], 0.15204),
    "women church of england": ([0.00445, 0.00065], 0.01071),
    "ordained church of england": ([0.03061, 1.22794], 1.10780),
    "women ordained church of england": ([0.05355, 2.14794], 1.34865),
}


def test_appendix_b_scores():
    got = iv.all_optimal_intervals(Q621).by_subquery()
    total = 0.0
    pos_term = {p: TERMS[t] for t, pl in enumerate(Q621) for p in pl}
    for name, (scores, sq) in APPX_B.items():
        ts = name.split()
        kept = px.non_overlapping(got[iv.mask_of(TERMS.index(t) for t in ts)])
        s = [
            px.lkp_interval_score(a, b, W[pos_term[a]], W[pos_term[b]], [W[t] for t in ts])
            for a, b in kept
        ]
        assert s == pytest.approx(scores, abs=6e-6), name
        v = px.lkp_subquery_score(s, doclen=300, avgdl=300)  # |D| = avgdl: K = 0.9
        assert v == pytest.approx(sq, abs=6e-6), name
        total += v
    assert total == pytest.approx(14.23022, abs=1e-5)


def test_end_to_end_vector_57():
    """§5.7: unordered 14.23022, phrase 3.27741, lambda * sum = 7.00305."""
    phr, unord = px.lkp_proximity(Q621, WV, doclen=69, avgdl=69)
    assert unord == pytest.approx(14.23022, abs=1e-5)
    assert phr == pytest.approx(3.27741, abs=1e-5)
    assert px.LAMBDA * (phr + unord) == pytest.approx(7.00305, abs=1e-5)


def test_phrase_table_57():
    for ts, occ, each, sq in (
        (["women", "ordained"], [67], 2.2, 1.34839),
        (["church", "of"], [16, 63], 0.06957, 0.25442),
        (["of", "england"], [17, 64], 0.04538, 0.17403),
        (["church", "of", "england"], [16, 63], 1.6905, 1.50056),
    ):
        pl = [Q621[TERMS.index(t)] for t in ts]
        starts = px.phrase_starts(pl)
        assert starts.tolist() == occ
        sc = px.lkp_interval_score(
            starts, starts + len(ts) - 1, W[ts[0]], W[ts[-1]], [W[t] for t in ts]
        )
        assert sc == pytest.approx([each] * len(occ), abs=6e-5)
        assert px.lkp_subquery_score(sc, 10, 10) == pytest.approx(sq, abs=1e-5)


def test_subquery_score_properties():
    assert px.lkp_subquery_score([], 10, 10) == 0.0
    big = px.lkp_subquery_score([1e9], 10, 10)
    assert big < 1.9 and big == pytest.approx(1.9, rel=1e-6)
    # longer documents saturate later
    assert px.lkp_subquery_score([1.0], 20, 10) < px.lkp_subquery_score([1.0], 10, 10)
    assert px.saturation_K(10, 10) == pytest.approx(0.9)


def test_variants():
    phr_l, un_l = px.lkp_proximity(Q621, WV, 69, 69, "lkp")
    phr_f, un_f = px.lkp_proximity(Q621, WV, 69, 69, "lkpf")
    phr_2, un_2 = px.lkp_proximity(Q621, WV, 69, 69, "l2p")
    assert phr_f == phr_l  # exact phrases always fit 4|Q'|
    # L2p: adjacent pairs only
    adj = ["women ordained", "ordained church", "church of", "of england"]
    assert un_2 == pytest.approx(sum(APPX_B[n][1] for n in adj), abs=2e-5)
    assert phr_2 == pytest.approx(1.34839 + 0.25442 + 0.17403, abs=2e-5)
    assert un_f != un_l
    with pytest.raises(ValueError):
        px.lkp_proximity(Q621, WV, 69, 69, "bogus")
    assert px.lkp_proximity([[1]], [1.0], 5, 5) == (0.0, 0.0)


def test_lkpf_filters_before_selection_random():
    """Lkpf's length filter before the greedy selection equals Indri's #uw counting."""
    rng = random.Random(2)
    for _ in range(300):
        k = rng.randint(2, 4)
        doc = [rng.randint(-1, k - 1) for _ in range(rng.randint(0, 30))]
        pos = [[i for i, t in enumerate(doc) if t == q] for q in range(k)]
        sets = iv.lps_if_all(pos).by_subquery()
        for m, ivs in sets.items():
            ts = iv.terms_of(m)
            n = len(px.non_overlapping(ivs, max_len=4 * len(ts)))
            assert n == brute_uw(doc, ts, 4 * len(ts))
