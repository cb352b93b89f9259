"""Ivory's constant proximity statistic for SDM / FDM (``window_cf``): the collection count
``f_{I(Q'),C}`` of every window feature replaced by one constant (``"ivory"``: 2N/100),
checked by hand on 3 documents and against scoring with explicit window counts."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tiebreak.index import build_index
from tiebreak.retrieval.dependency import fdm, sdm
from tiebreak.retrieval.dependency.mrf import (
    constant_window_cf,
    score_with_windows,
    window_counts,
)

# "apple berry" occurs twice as a phrase in d1; d2 holds "berry ... apple" (one #uw8 window,
# no phrase); d3 holds apple only. Lengths 5, 3, 3; |C| = 11; cf(apple) = 4, cf(berry) = 3.
DOCS = [("d1", "apple berry kiwi apple berry"), ("d2", "berry kiwi apple"),
        ("d3", "apple kiwi kiwi")]
#: (tf apple, tf berry, #1(apple berry), #uw8(apple berry), |D|): in d1 the optimal intervals
#: of {apple, berry} are [0,1], [1,3], [3,4]; the non-overlapping ones [0,1] and [3,4]
COUNTS = {"d1": (2, 2, 2, 2, 5), "d2": (1, 1, 0, 1, 3), "d3": (1, 0, 0, 0, 3)}


@pytest.fixture(scope="module")
def idx(tmp_path_factory):
    d = tmp_path_factory.mktemp("ivory")
    src = d / "c.jsonl"
    src.write_text("".join(json.dumps({"docno": n, "text": t}) + "\n" for n, t in DOCS))
    return build_index(str(src), str(d / "i"), progress=False)


def _hand(mu, weights, f_o, f_u):
    """SDM of the query 'apple berry' by hand: Indri #combine weights (|Q| = 2, one pair)."""
    lt, lo, lu = weights
    C = 11.0

    def phi(f, F, dl):
        return math.log((f + mu * F / C) / (dl + mu))
    out = {}
    for d, (ta, tb, o, u, dl) in COUNTS.items():
        out[d] = (lt / 2 * (phi(ta, 4, dl) + phi(tb, 3, dl)) + lo * phi(o, f_o, dl)
                  + lu * phi(u, f_u, dl))
    return out


@pytest.mark.parametrize("mu", [10.0, 2500.0])
def test_sdm_ivory_constant_by_hand(idx, mu):
    q = idx.analyzer.analyze("apple berry")
    w = (0.8, 0.15, 0.05)
    const = 2 * 3 / 100          # Ivory: 2N/100 with N = 3
    assert constant_window_cf("ivory", 3) == const
    for window_cf, fc in (("ivory", const), (0.5, 0.5)):
        d, s = sdm(idx, q, 10, weights=w, mu=mu, window_cf=window_cf)
        want = _hand(mu, w, fc, fc)
        got = {idx.docno(x): v for x, v in zip(d.tolist(), s.tolist())}
        assert set(got) == set(want)
        for k in want:
            assert got[k] == pytest.approx(want[k], rel=1e-12, abs=1e-12)
        assert list(got) == sorted(want, key=lambda k: -want[k])
    # the exact statistic: #1 occurs 2 times in the collection, #uw8 3 times
    assert window_counts("sdm", idx, q, weights=w, mu=mu).tolist()[2:] == [2.0, 3.0]
    d, s = sdm(idx, q, 10, weights=w, mu=mu)
    want = _hand(mu, w, 2.0, 3.0)
    for x, v in zip(d.tolist(), s.tolist()):
        assert v == pytest.approx(want[idx.docno(x)], rel=1e-12)


def test_constant_equals_explicit_windows(idx):
    q = idx.analyzer.analyze("apple berry kiwi")
    for model, fn in (("sdm", sdm), ("fdm", fdm)):
        n = len(window_counts(model, idx, q))
        d0, s0 = score_with_windows(model, idx, q, 10, np.full(n, 0.06))
        d1, s1 = fn(idx, q, 10, window_cf="ivory")
        assert d1.tolist() == d0.tolist() and s1.tobytes() == s0.tobytes()


def test_window_cf_errors(idx):
    q = idx.analyzer.analyze("apple berry")
    for bad in ("indri", 0, -1.0, float("nan"), float("inf"), True):
        with pytest.raises(ValueError, match="window_cf"):
            sdm(idx, q, 10, window_cf=bad)
    with pytest.raises(ValueError, match="window_cf"):
        sdm(idx, q, 10, window_cf="ivory", algorithm="bounds")
    from tiebreak.retrieval.registry import check

    assert check("sdm", {"window_cf": "ivory"}) == {"window_cf": "ivory"}
    with pytest.raises(ValueError, match="window_cf"):
        check("fdm", {"window_cf": "x"})
