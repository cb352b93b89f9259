"""Equal-budget reusability of pools (leave one run out), worked by hand on three runs."""

from __future__ import annotations

import io

import numpy as np
import pytest

import tiebreak as tb
from tiebreak.studies.reusability import leave_one_out, reusability_rows

QRELS = b"1 0 a 1\n1 0 b 1\n1 0 c 0\n1 0 u 1\n"
RUNS = {"X": ["u", "a", "c"], "Y": ["a", "b", "c"], "Z": ["b", "a", "c"]}


def _runs():
    out = []
    for name, docs in RUNS.items():
        text = "".join(f"1 Q0 {d} {i + 1} {10 - i} {name}\n" for i, d in enumerate(docs))
        out.append(tb.read_run(io.BytesIO(text.encode()), name=name))
    return out


def test_leave_one_out_by_hand():
    q = tb.read_qrels(io.BytesIO(QRELS))
    res = leave_one_out(q, _runs(), methods=("depth", "A", "mtf"), depth=1)
    # the depth-1 pool of all runs is {u, a, b}: every run finds 2 of those 3 relevant at
    # ranks 1-2 -> AP 2/3. Leaving X out, the pool of Y and Z is {a, b} (R 2): X's u is
    # unjudged, a at rank 2 -> AP (1/2)/2 = 1/4; likewise for Y ({u, b}) and Z ({u, a}).
    assert res["pooled"]["depth"] == pytest.approx([2 / 3] * 3)
    assert res["loo"]["depth"] == pytest.approx([1 / 4] * 3)
    assert res["judgments"] == {"depth": 2.0, "A": 2.0, "mtf": 2.0}     # the same budget
    assert res["full"] == pytest.approx([2 / 3] * 3)
    rows = {r[0]: r for r in reusability_rows(res)}
    m, n, loss, worst, change, tau = rows["depth"]
    assert loss == pytest.approx(2 / 3 - 1 / 4) and worst == pytest.approx(2 / 3 - 1 / 4)
    # each outsider (1/4) falls below both others (2/3): from rank 1 (tied) to rank 3
    assert change == 2.0
    assert np.isnan(tau)                      # every full-qrels score ties
    with pytest.raises(ValueError, match="distinct"):
        leave_one_out(q, _runs() + _runs()[:1])
