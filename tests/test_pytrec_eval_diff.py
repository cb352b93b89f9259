"""Differential test: tiebreak's ``trec_eval`` regime against pytrec-eval-terrier on real runs.

pytrec-eval-terrier wraps trec_eval 9.0.5, which keeps scores as C ``float``; tiebreak emulates
that with ``score_precision="float32"``. Every per-topic value of twelve measures must agree to
1e-9 (absolute) for every topic the run has that is in the qrels (pytrec_eval reports only those,
so tiebreak uses ``average="run-topics"`` and leaves the other qrels topics NaN).

Data (../shared/data, see each set's SOURCE.md):

* TREC-COVID round 1: all 143 runs, 30 topics, graded qrels 0/1/2;
* TREC-COVID round 5: all 39 stored runs, 50 topics; the qrels hold two ``-1`` ("pooled but not
  judged") lines, and several runs retrieve those documents;
* TREC 2003 Robust (trectools copy): all 17 runs, 100 topics, graded qrels 0/1/2; includes
  rutcor03100 (99.5% of documents tied, a group of 995) and MU03rob01 (90% tied).

Every run is compared (about 95,000 per-topic values, 25-30 s on 2 CPUs), so no subset has to be
chosen for the main comparison. A fixed subset of heavily tied runs (tie shares from
../shared/data/tie_stats_per_run.tsv) is also checked at relevance level 2 (pytrec_eval's
``relevance_level``), and two sensitivity tests show that the comparison would catch a wrong tie
order or double-precision scores.

Run with ``pytest -s tests/test_pytrec_eval_diff.py`` to see the counts.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

import tiebreak as tb

pytrec_eval = pytest.importorskip("pytrec_eval")

TOL = 1e-9

# trec_eval names; tiebreak accepts the same names, pytrec_eval reports them as given.
MEASURES = [
    "map", "P_5", "P_10", "P_100", "recall_100", "recall_1000", "ndcg", "ndcg_cut_10",
    "recip_rank", "Rprec", "bpref", "success_10",
]

# The same measures at relevance level 2 (pytrec_eval: relevance_level=2). trec_eval's ndcg uses
# the grades as gains and ignores the relevance level, like tiebreak's nDCG (which has no rel).
REL2 = {
    "map": "AP(rel=2)", "P_5": "P(rel=2)@5", "P_10": "P(rel=2)@10", "P_100": "P(rel=2)@100",
    "recall_100": "R(rel=2)@100", "recall_1000": "R(rel=2)@1000", "ndcg": "nDCG",
    "ndcg_cut_10": "nDCG@10", "recip_rank": "RR(rel=2)", "Rprec": "Rprec(rel=2)",
    "bpref": "bpref(rel=2)", "success_10": "Success(rel=2)@10",
}

# name -> (qrels, runs directory, number of runs expected there)
SETS = {
    "covid-round1": ("trec_covid/round1/qrels-rnd1.txt", "trec_covid/round1/runs", 143),
    "covid-round5": ("trec_covid/round5/qrels.covid-round5.txt", "trec_covid/round5/runs", 39),
    "robust03": ("robust03_trectools/qrels/robust03_qrels.txt.gz", "robust03_trectools/runs", 17),
}

# Heavily tied runs (tie share / largest tied group from tie_stats_per_run.tsv), plus one run
# with rank/score contradictions (UB_NLP_RUN_1: the rank column must be ignored).
HEAVY_TIES = {
    "covid-round1": ["wistud_indri", "ixa-ir-filter-query", "UB_NLP_RUN_1", "PL2c1.0"],
    "covid-round5": ["DoRA_NO_Judgments_6k", "rk_ir_bdl_trf_brx_lm"],
    "robust03": ["input.rutcor03100", "input.MU03rob01"],
}

# Runs whose scores tie in float32 but not in float64 (found by comparing both precisions).
FLOAT32_TIES = {
    "covid-round1": ["BERT", "tm_lda400"],
    "robust03": ["input.InexpC2"],
}


def _text(path: Path):
    return gzip.open(path, "rt") if path.suffix == ".gz" else open(path)


def _paths(data: Path, name: str, only: list[str] | None = None):
    qrels, runs, n = SETS[name]
    files = sorted((data / runs).glob("*.gz"))
    if only is None:
        assert len(files) == n, f"expected {n} runs in {data / runs}, found {len(files)}"
    else:
        files = [data / runs / f"{r}.gz" for r in only]
    return data / qrels, files


class Diff:
    """pytrec_eval and tiebreak side by side on one qrels file."""

    def __init__(self, qrels_path: Path, tb_measures, relevance_level: int = 1,
                 score_precision: str = "float32", regimes=("trec_eval",)):
        with _text(qrels_path) as f:
            self.pt = pytrec_eval.RelevanceEvaluator(
                pytrec_eval.parse_qrel(f), MEASURES, relevance_level=relevance_level
            )
        self.q = tb.read_qrels(qrels_path)
        self.ev = tb.Evaluator(self.q, list(tb_measures), regimes=list(regimes),
                               score_precision=score_precision, average="run-topics")
        self.regimes = list(regimes)

    def run(self, path: Path):
        """(pytrec per-topic dict, tiebreak per_topic (n_measures, n_regimes, n_topics), topics)."""
        with _text(path) as f:
            ref = self.pt.evaluate(pytrec_eval.parse_run(f))
        res = self.ev.evaluate([tb.read_run(path)])
        return ref, res.per_topic[0], res.topics

    def compare(self, path: Path, regime: str = "trec_eval", got=None):
        """Number of values compared and the mismatches (run, qid, measure, pytrec, tiebreak).
        ``got``: the result of :meth:`run` for ``path`` when already computed."""
        ref, per, topics = got or self.run(path)
        k = self.regimes.index(regime)
        ours = {t for t, v in zip(topics, per[0, k]) if not np.isnan(v)}
        assert ours == set(ref), (
            f"{path.name}: topics differ: only pytrec_eval {sorted(set(ref) - ours)}, "
            f"only tiebreak {sorted(ours - set(ref))}"
        )
        col = {t: i for i, t in enumerate(topics)}
        n, bad = 0, []
        for qid, vals in ref.items():
            for j, m in enumerate(MEASURES):
                mine = float(per[j, k, col[qid]])
                n += 1
                if not abs(mine - vals[m]) <= TOL:
                    bad.append((path.name, qid, m, vals[m], mine))
        return n, bad


def _report(label: str, runs: int, n: int, bad: list) -> None:
    print(f"\n{label}: {runs} runs, {n} per-topic values compared, {n - len(bad)} matched")
    shown = "\n".join(f"  {r} topic {q} {m}: pytrec_eval {a!r} tiebreak {b!r}"
                      for r, q, m, a, b in bad[:20])
    assert not bad, f"{len(bad)} of {n} values differ (tolerance {TOL}):\n{shown}"


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SETS))
def test_trec_eval_regime_matches_pytrec_eval(shared_data, name):
    qrels, runs = _paths(shared_data, name)
    d = Diff(qrels, MEASURES)
    n, bad = 0, []
    for p in runs:
        c, b = d.compare(p)
        n += c
        bad += b
    assert n > 0
    _report(name, len(runs), n, bad)


@pytest.mark.parametrize("name", list(HEAVY_TIES))
def test_relevance_level_2_on_heavily_tied_runs(shared_data, name):
    qrels, runs = _paths(shared_data, name, HEAVY_TIES[name])
    d = Diff(qrels, [REL2[m] for m in MEASURES], relevance_level=2)
    n, bad = 0, []
    for p in runs:
        c, b = d.compare(p)
        n += c
        bad += b
    _report(f"{name} rel=2", len(runs), n, bad)


@pytest.mark.parametrize("name", list(HEAVY_TIES))
def test_other_tie_orders_differ_from_pytrec_eval(shared_data, name):
    """The data exercises tie-breaking: ordering ties by relevance (realistic / optimistic)
    changes values that trec_eval's docno order gets right, on every heavily tied run."""
    qrels, runs = _paths(shared_data, name, HEAVY_TIES[name])
    d = Diff(qrels, MEASURES, regimes=("trec_eval", "realistic", "optimistic"))
    for p in runs:
        got = d.run(p)
        n, bad = d.compare(p, "trec_eval", got)
        assert not bad, bad[:5]
        for regime in ("realistic", "optimistic"):
            n, bad = d.compare(p, regime, got)
            assert bad, f"{p.name}: {regime} agrees with pytrec_eval on all {n} values"


@pytest.mark.parametrize("name", list(FLOAT32_TIES))
def test_double_precision_scores_differ_from_pytrec_eval(shared_data, name):
    """pytrec_eval's float scores create ties that double precision (trec_eval 10) breaks, so
    score_precision="float32" is needed to match it."""
    qrels, runs = _paths(shared_data, name, FLOAT32_TIES[name])
    d64 = Diff(qrels, MEASURES, score_precision="float64")
    for p in runs:
        n, bad = d64.compare(p)
        assert bad, f"{p.name}: float64 scores agree with pytrec_eval on all {n} values"
