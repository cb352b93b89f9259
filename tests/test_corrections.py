"""Holm, Bonferroni and BH now come from statsmodels' ``multipletests``: they give the values
of the hand-written formulas they replace (kept here as the reference) on many families,
ties and edge values included."""

from __future__ import annotations

import numpy as np

from tiebreak.stats import corrections as C


def _old_holm(flat):
    m = flat.size
    order = np.argsort(flat, kind="stable")
    adj = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * flat[order]))
    out = np.empty(m)
    out[order] = adj
    return out


def _old_bh(flat):
    m = flat.size
    order = np.argsort(flat, kind="stable")
    q = flat[order] * m / np.arange(1, m + 1)
    q = np.minimum(1.0, np.minimum.accumulate(q[::-1])[::-1])
    out = np.empty(m)
    out[order] = q
    return out


def test_same_values_as_before():
    rng = np.random.default_rng(7)
    n = 0
    for m in (1, 2, 3, 7, 40, 300):
        for _ in range(20):
            p = np.concatenate([rng.uniform(0, 0.05, m // 2), rng.uniform(0, 1, m - m // 2)])
            p[rng.integers(0, m, size=m // 3)] = p[0]  # ties
            if m > 2:
                p[1], p[2] = 0.0, 1.0
            np.testing.assert_allclose(C.holm(p), _old_holm(p), rtol=1e-12, atol=0)
            np.testing.assert_allclose(C.benjamini_hochberg(p), _old_bh(p), rtol=1e-12, atol=0)
            np.testing.assert_allclose(C.bonferroni(p), np.minimum(1, p * m), rtol=1e-12)
            n += 1
    assert n == 120
    a = C.adjust([0.01, np.nan, 0.04, 0.03], "holm")
    np.testing.assert_allclose(a, [0.03, np.nan, 0.06, 0.06])
    assert C.holm(np.empty(0)).shape == (0,)
