"""One number per name: ``tiebreak eval`` (the API) and ``tiebreak trec_eval`` give the same
per-topic values and the same ``all`` summary for every trec_eval name both accept, under every
regime, on generated runs with ties, graded and unjudged documents and cutoffs that cut tied
groups.

Reviewed exceptions (separately named variants, not differences under one name):
* ``rbp`` / ``rbp_resid`` are trec_eval's definitions (family ``trec_rbp``/``trec_rbp_resid``):
  both commands print them under these names; ir_measures' ``RBP(p=..)``/``RBP_resid`` are
  other families with other names.
* ``relstring`` is text, printed by ``trec_eval -q`` only.
"""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tiebreak as tb
from tiebreak.measures.trec_names import TREC_NAMES
from tiebreak.ranking import REGIMES
from tiebreak.trec_eval import main
from tiebreak.trec_eval.evaluate import values

NAMES = [t.name for t in TREC_NAMES if not t.special and t.name != "relstring"]
EXTRA = ["P.1,2,3", "map_cut.2,3", "ndcg_cut.2,3", "recall.2,3", "success.2,3", "unj.2",
         "ndcg.1=2,2=5", "rbp.p=0.5", "rbp_resid.p=0.5", "Rprec_mult.0.5,1.5",
         "iprec_at_recall.0.3", "utility.2,-1,0,0"]


@st.composite
def collections(draw):
    """Qrels text (graded 0-3, some pooled-but-unjudged -1) and a run text with many ties."""
    nt = draw(st.integers(1, 3))
    qrels, run = [], []
    for t in range(1, nt + 1):
        docs = [f"d{i}" for i in range(draw(st.integers(1, 9)))]
        for d in docs:
            r = draw(st.integers(-2, 3))  # -2: not in the qrels at all
            if r >= -1:
                qrels.append(f"{t} 0 {d} {r}")
        if not any(ln.startswith(f"{t} ") for ln in qrels):
            qrels.append(f"{t} 0 x{t} 1")
        if t == 1 or draw(st.booleans()):  # a topic may be missing from the run
            for d in docs:
                run.append(f"{t} Q0 {d} 0 {draw(st.sampled_from([1.0, 2.0, 2.0, 3.0]))} r")
    if not run:
        run.append("1 Q0 d0 0 1.0 r")
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True)
@given(collections(), st.sampled_from(REGIMES))
def test_eval_and_trec_eval_agree(tmp_path_factory, case, regime):
    qtext, rtext = case
    d = tmp_path_factory.mktemp("x")
    (d / "q").write_text(qtext)
    (d / "r").write_text(rtext)
    q, run = tb.read_qrels(d / "q"), tb.read_run(d / "r")
    names = NAMES + EXTRA
    args = ["-c", "--regime", regime, "--samples", "3"]
    for n in names:
        args += ["-m", n]
    tv = values([*args, d / "q", d / "r"], run=run, qrels=q, err=io.StringIO())
    res = tb.Evaluator(q, names, [regime], samples=3).evaluate([run])
    col = {t: i for i, t in enumerate(res.topics)}
    checked = 0
    for j, m in enumerate(res.measures):
        if m not in tv.values:
            continue
        a = np.asarray(tv.values[m], np.float64)
        b = res.per_topic[0, j, 0, [col[t] for t in tv.qids]]
        np.testing.assert_array_equal(a, b, err_msg=f"{m} {regime}")
        checked += 1
    assert checked >= len(NAMES)
    # the 'all' line: trec_eval's text against the API's summary, at the printed precision
    out = io.StringIO()
    assert main([*args, str(d / "q"), str(d / "r")], out, io.StringIO()) == 0
    summary = {ln.split("\t")[0].strip(): ln.split("\t")[2] for ln in out.getvalue().splitlines()}
    for j, m in enumerate(res.measures):
        if m in summary and m not in ("runid", "num_q"):
            v = res.mean[0, j, 0]
            got = summary[m]
            want = f"{v:6.4f}" if "." in got else str(int(round(v)))
            assert got == want or math.isclose(float(got), v, abs_tol=5e-5), (m, regime)
