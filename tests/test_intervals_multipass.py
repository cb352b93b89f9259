"""Multi-pass baselines (EPS-IF-S*, LPS-CDF-S*: one single-subquery pass per subquery) against
the single-pass all-subquery methods (LPS-IF-A, EPS-CDF-A) and a brute force, on random
documents: the same optimal intervals for every subquery."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from tiebreak.retrieval import intervals as iv


def brute(doc, sub):
    """Optimal intervals of ``sub`` in ``doc`` (local term id per token): the windows holding
    every term of sub that contain no smaller such window, sorted by start."""
    need = set(sub)
    cover = []
    for lo in range(len(doc)):
        for hi in range(lo, len(doc)):
            if need <= set(doc[lo:hi + 1]):
                cover.append((lo, hi))
                break
    return sorted(c for c in cover if not any(o != c and c[0] <= o[0] and o[1] <= c[1]
                                               for o in cover))


def positions(doc, k):
    return [np.array([i for i, t in enumerate(doc) if t == j], np.int32) for j in range(k)]


def as_dict(s: iv.IntervalSet):
    return {m: [tuple(r) for r in a.tolist()] for m, a in s.by_subquery().items()}


@pytest.mark.parametrize("seed", range(4))
def test_multi_pass_equals_single_pass_and_brute_force(seed):
    rng = random.Random(seed)
    for _ in range(150):
        k = rng.randint(2, 6)
        doc = [rng.randint(-1, k - 1) for _ in range(rng.randint(0, 30))]
        pl = positions(doc, k)
        want = {}
        for r in range(2, k + 1):
            for sub in itertools.combinations(range(k), r):
                bf = brute(doc, sub)
                if bf:
                    want[iv.mask_of(sub)] = bf
        for name, got in (("EPS-IF-S*", iv.eps_if_multi(pl)),
                          ("LPS-CDF-S*", iv.lps_cdf_multi(pl)),
                          ("LPS-IF-A", iv.lps_if_all(pl)),
                          ("EPS-CDF-A", iv.eps_cdf_all(pl))):
            assert as_dict(got) == want, (name, doc)
        pairs = {m: v for m, v in want.items() if bin(m).count("1") == 2}
        assert as_dict(iv.eps_if_multi(pl, pairs_only=True)) == pairs
        assert as_dict(iv.lps_cdf_multi(pl, pairs_only=True)) == pairs


def test_multi_pass_buffers_grow():
    # a long dense document: far more intervals than the first buffer guess
    rng = np.random.default_rng(3)
    doc = rng.integers(0, 5, 400).tolist()
    pl = positions(doc, 5)
    a, b = iv.eps_if_multi(pl), iv.lps_if_all(pl)
    assert len(a) == len(b) > 4 * 400
    assert as_dict(a) == as_dict(b) == as_dict(iv.lps_cdf_multi(pl))


def test_eps_cdf_all_from_lists_in_one_call():
    rng = np.random.default_rng(5)
    doc = rng.integers(-1, 4, 200).tolist()
    pl = positions(doc, 4)
    lens = np.array([len(p) for p in pl])
    ends = np.cumsum(lens)
    bufs = [np.empty(5000, np.int64)] + [np.empty(5000, np.int32) for _ in range(4)]
    n = iv.eps_cdf_all_if_kernel(np.concatenate(pl), ends - lens, ends, False, *bufs)
    got = iv.IntervalSet(bufs[0][:n], bufs[1][:n], bufs[2][:n])
    assert as_dict(got) == as_dict(iv.eps_cdf_all(pl))
