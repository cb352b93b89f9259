"""Differential test: ``tiebreak trec_eval --score-precision float32`` against pytrec-eval-terrier
on every measure pytrec_eval has (``pytrec_eval.supported_measures``), on real runs.

pytrec-eval-terrier wraps trec_eval 9.0.x: scores as C ``float`` (hence float32 here) and the
pre-10 cutoff rule of ``iprec_at_recall`` / ``11pt_avg`` (``(long)(x R + 0.9)`` instead of
``lround(x R)``). Every per-topic value must agree to 1e-9, except those two measures, which must
agree once tiebreak's cutoff rule is switched to the old one (proving that the rounding is the
only difference; trec_eval 10's own expected files pin the new rule). ``gm_map`` / ``gm_bpref``
are reported per topic by pytrec_eval as log(max(value, 1e-5)).

Runs: heavily tied runs of TREC-COVID rounds 1 and 5 and of TREC 2003 Robust (rutcor03100 has a
tied group of 995 documents) plus the first runs of each set, all_trec and relevance level 2.
"""

from __future__ import annotations

import gzip
import io
import math
from pathlib import Path

import numpy as np
import pytest

import tiebreak as tb
from tiebreak.measures import fastpath as FP
from tiebreak.measures import kernels as TM
from tiebreak.trec_eval.evaluate import values

pytrec_eval = pytest.importorskip("pytrec_eval")

SETS = {
    "covid-round1": ("trec_covid/round1/qrels-rnd1.txt", "trec_covid/round1/runs",
                     ["wistud_indri", "ixa-ir-filter-query", "UB_NLP_RUN_1", "PL2c1.0", "BERT",
                      "tm_lda400"]),
    "covid-round5": ("trec_covid/round5/qrels.covid-round5.txt", "trec_covid/round5/runs",
                     ["DoRA_NO_Judgments_6k", "rk_ir_bdl_trf_brx_lm"]),
    "robust03": ("robust03_trectools/qrels/robust03_qrels.txt.gz", "robust03_trectools/runs",
                 ["input.rutcor03100", "input.MU03rob01", "input.InexpC2"]),
}
OLD_ROUNDING = ("iprec_at_recall", "11pt_avg")


def _text(path: Path) -> str:
    b = path.read_bytes()
    return (gzip.decompress(b) if b[:2] == b"\x1f\x8b" else b).decode()


def _v9_lround(x):
    """trec_eval <= 9's cutoff rule for recall levels: (long) (x + 0.9)."""
    return np.floor(x + 0.9).astype(np.int64)


def _compare(qrels_path: Path, runs: list[Path], level: int, monkeypatch):
    pt = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(io.StringIO(_text(qrels_path))),
                                        pytrec_eval.supported_measures, relevance_level=level)
    q = tb.read_qrels(qrels_path)
    n, bad, seen = 0, [], set()
    for rp in runs:
        ref = pt.evaluate(pytrec_eval.parse_run(io.StringIO(_text(rp))))
        args = ["-m", "all_trec", f"-l{level}", "--score-precision", "float32", qrels_path, rp]
        run = tb.read_run(rp)
        new = values(args, run=run, qrels=q, err=io.StringIO())
        with monkeypatch.context() as mp:
            mp.setattr(TM, "_lround", _v9_lround)
            # the compiled twins of these two measures round in C: take the kernels here
            for kernel in (TM.iprec_at_recall, TM.eleven_pt_avg):
                mp.delitem(FP._TWINS, kernel)
            old = values(args, run=run, qrels=q, err=io.StringIO())
        assert set(ref) <= set(new.qids)
        col = {t: i for i, t in enumerate(new.qids)}
        for qid, vals in ref.items():
            for m, v in vals.items():
                if m in ("runid", "num_q", "relstring"):  # not numbers
                    continue
                src = old if m.startswith(OLD_ROUNDING) else new
                mine = float(src.values[m][col[qid]])
                if m in ("gm_map", "gm_bpref"):
                    mine = math.log(max(mine, TM.MIN_GEO_MEAN))
                n += 1
                seen.add(m)
                if not abs(mine - v) <= 1e-9:
                    bad.append((rp.name, qid, m, v, mine))
    return n, bad, seen


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SETS))
@pytest.mark.parametrize("level", [1, 2])
def test_every_pytrec_measure(shared_data, monkeypatch, name, level):
    qrels, rdir, heavy = SETS[name]
    files = sorted((shared_data / rdir).glob("*.gz"))
    runs = [shared_data / rdir / f"{r}.gz" for r in heavy] + files[:2]
    n, bad, seen = _compare(shared_data / qrels, runs, level, monkeypatch)
    shown = "\n".join(f"  {r} {q} {m}: pytrec {a!r} tiebreak {b!r}" for r, q, m, a, b in bad[:15])
    print(f"\n{name} level {level}: {len(runs)} runs, {n} values, {len(seen)} measures")
    assert not bad, f"{len(bad)} of {n} differ:\n{shown}"
    assert len(seen) >= 90 and n > 10000


def test_sensitivity_double_precision_differs(shared_data, monkeypatch):
    """The comparison is sharp: float64 scores (trec_eval 10) change some values on a run whose
    scores tie only in float32."""
    qrels, rdir, _ = SETS["covid-round1"]
    rp = shared_data / rdir / "BERT.gz"
    q = tb.read_qrels(shared_data / qrels)
    a = values(["-m", "all_trec", "--score-precision", "float32", shared_data / qrels, rp],
               qrels=q, err=io.StringIO())
    b = values(["-m", "all_trec", shared_data / qrels, rp], qrels=q, err=io.StringIO())
    diff = [m for m in a.values if not isinstance(a.values[m], list)
            and not np.allclose(a.values[m], b.values[m], atol=1e-12)]
    assert diff
