"""Rank-biased overlap against the ``rbo`` package (when installed), the paper's bounds, and
hand-computed tie cases."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tiebreak.stats.overlap import rbo


def _rbo_pkg():
    # rbo 0.1.3 declares numpy<2 (it runs fine on numpy 2), so it is not in the test extra:
    # installing it there would downgrade numpy; install it with --no-deps to run this test
    return pytest.importorskip("rbo", reason="rbo package not installed (it pins numpy<2)")


@settings(max_examples=60, deadline=None)
@given(st.permutations(list(range(12))), st.permutations(list(range(4, 16))),
       st.integers(3, 12), st.integers(3, 12), st.sampled_from([0.5, 0.8, 0.9, 0.98]))
def test_against_rbo_package(a, b, ls, lt, p):
    pkg = _rbo_pkg()
    S, T = a[:ls], b[:lt]
    r = rbo(S, T, p)
    ref = pkg.RankingSimilarity(S, T)
    assert r.prefix == pytest.approx(ref.rbo(p=p), abs=1e-12)
    assert r.ext == pytest.approx(ref.rbo_ext(p=p), abs=1e-12)
    if ls == lt:
        assert r.ext == pytest.approx(ref.rbo(p=p, ext=True), abs=1e-12)


def test_fixed_values():
    r = rbo(list("abcde"), list("abcde"), 0.8)
    assert r.prefix == pytest.approx(1 - 0.8 ** 5)
    assert r.ext == pytest.approx(1.0)
    assert r.min == pytest.approx(1 - 0.8 ** 5 + 0.2 / 0.8 * 5 * (
        -np.log(0.2) - sum(0.8 ** d / d for d in range(1, 6))))
    assert r.min + r.res == pytest.approx(1.0)
    z = rbo(list("abcd"), list("wxyz"), 0.9)
    assert (z.prefix, z.min, z.ext) == (0.0, 0.0, 0.0)
    # hand example: S = a b c, T = b a d; X = 0, 2, 2; A = 0, 1, 2/3
    h = rbo(list("abc"), list("bad"), 0.5)
    assert h.prefix == pytest.approx(0.5 * (0 + 0.5 * 1 + 0.25 * 2 / 3))
    assert h.ext == pytest.approx(h.prefix + (2 / 3) * 0.5 ** 3)


@settings(max_examples=40, deadline=None)
@given(st.permutations(list(range(60))), st.permutations(list(range(60))),
       st.sampled_from([0.6, 0.8, 0.9]), st.sampled_from([3, 8, 15]), st.sampled_from([0, 4]))
def test_bounds_contain_every_continuation(a, b, p, k, extra):
    """min(k) <= RBO of the full rankings <= min(k) + res(k), and ext(k) in between (Webber et
    al. 2010 Section 4): the full 60-item rankings stand for the truth (their own min and max
    differ by < 1e-2 at these p)."""
    full = rbo(a, b, p)
    part = rbo(a[:k], b[:k + extra], p)
    assert part.min - 1e-12 <= full.min
    assert full.max <= part.max + 1e-12
    assert part.min - 1e-12 <= part.ext <= part.max + 1e-12


def test_ties():
    """A tied group enters the prefix whole at its first depth: S = a (b c tied), T = c b a.
    Depth 1: S:1 = {a}, T:1 = {c}: X = 0. Depth 2: S:2 = {a, b, c}, T:2 = {c, b}: X = 2,
    A = 4/5. Depth 3: X = 3, A = 1."""
    r = rbo(list("abc"), list("cba"), 0.5, S_groups=[1, 2, 2])
    assert r.prefix == pytest.approx(0.5 * (0 + 0.5 * 0.8 + 0.25 * 1))
    untied = rbo(list("abc"), list("cba"), 0.5)
    assert untied.prefix == pytest.approx(0.5 * (0 + 0.5 * 0.5 + 0.25 * 1))
    with pytest.raises(ValueError):
        rbo(list("ab"), list("ab"), 0.5, S_groups=[1])


def test_errors():
    with pytest.raises(ValueError):
        rbo(list("aa"), list("ab"))
    with pytest.raises(ValueError):
        rbo(list("ab"), list("ab"), p=1.0)
    assert rbo([], [], 0.9).ext == 1.0
    assert rbo([], ["a"], 0.9).prefix == 0.0
