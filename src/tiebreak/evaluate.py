"""Evaluate runs under every tie regime: the Python API behind ``tiebreak eval``.

Example
-------
>>> import tiebreak as tb
>>> ev = tb.Evaluator(tb.read_qrels("qrels.txt"), ["AP", "nDCG@10"], regimes="all")
>>> res = ev.evaluate([tb.read_run("a.run"), tb.read_run("b.run")])
>>> res.mean            # ndarray (n_runs, n_measures, n_regimes)
>>> res.to_pandas()     # long DataFrame: run, measure, regime, qid, value
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from .io import Qrels, Run, read_run
from .measures import DEFAULT_MEASURES, Measure, QrelsStats, parse_measures
from .ranking import DEFAULT_REGIMES, REGIMES, groups, judge, orderings, ranking, run_hygiene

__all__ = ["Evaluator", "EvalResult", "evaluate", "resolve_regimes"]

UNJUDGED_TOP_K = 10

# warning labels that other modules read back (keep them in one place)
WARN_CONTRADICTIONS = "rank/score contradictions"
WARN_INCREASING = "scores increasing in file order (adjacent lines)"
WARN_TIED = "documents in tied groups"


def resolve_regimes(regimes) -> list[str]:
    """Expand ``all`` and check names; keeps the user's order, drops repeats."""
    if regimes is None:
        return list(DEFAULT_REGIMES)
    if isinstance(regimes, str):
        regimes = [regimes]
    out: list[str] = []
    for r in regimes:
        for x in (REGIMES if r == "all" else [p.strip() for p in r.split(",") if p.strip()]):
            if x not in REGIMES:
                raise ValueError(f"unknown regime {x!r}; choose from {', '.join(REGIMES)}, all")
            if x not in out:
                out.append(x)
    return out


@dataclass
class EvalResult:
    """Values of every run, measure, regime and topic.

    Attributes
    ----------
    runs : list[str]
        Run names, shape (n_runs,).
    measures : list[str]
        Measure names as shown, shape (n_measures,).
    regimes : list[str]
        Regime names, shape (n_regimes,).
    topics : list[str]
        Qrels topic ids, shape (n_topics,).
    per_topic : ndarray float64, shape (n_runs, n_measures, n_regimes, n_topics)
        Per-topic values. With ``average="qrels"`` a topic the run lacks scores 0 (RBP residual
        1); with ``average="run-topics"`` it is NaN and left out of the mean.
    mean : ndarray float64, shape (n_runs, n_measures, n_regimes)
        Mean over the averaged topics.
    warnings : dict[str, dict[str, object]]
        Per run: counted warnings (label -> count, or list of topic ids).
    """

    runs: list[str]
    measures: list[str]
    regimes: list[str]
    topics: list[str]
    per_topic: np.ndarray
    mean: np.ndarray
    warnings: dict[str, dict[str, object]] = field(default_factory=dict)

    def value(self, run: str, measure: str, regime: str, topic: str | None = None) -> float:
        """One value; ``topic=None`` gives the mean."""
        i, j, k = self.runs.index(run), self.measures.index(measure), self.regimes.index(regime)
        if topic is None:
            return float(self.mean[i, j, k])
        return float(self.per_topic[i, j, k, self.topics.index(topic)])

    def records(self, per_topic: bool = False):
        """Yield ``(run, measure, regime, qid, value)`` tuples; qid ``all`` for the mean."""
        for i, r in enumerate(self.runs):
            for j, m in enumerate(self.measures):
                for k, g in enumerate(self.regimes):
                    if per_topic:
                        for t, q in enumerate(self.topics):
                            v = self.per_topic[i, j, k, t]
                            if not np.isnan(v):
                                yield (r, m, g, q, float(v))
                    yield (r, m, g, "all", float(self.mean[i, j, k]))

    def to_pandas(self, per_topic: bool = True):
        """Long DataFrame with columns run, measure, regime, qid, value (requires pandas)."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover
            raise ImportError("to_pandas() needs pandas: pip install pandas") from None
        return pd.DataFrame(
            list(self.records(per_topic)), columns=["run", "measure", "regime", "qid", "value"]
        )


class Evaluator:
    """Evaluate many runs against one qrels, under several tie regimes.

    Parameters
    ----------
    qrels : Qrels, path, "irds:ID", DataFrame or dict
        Judgments (see :func:`tiebreak.read_qrels` and :func:`tiebreak.io.frames.as_qrels`).
    measures : list of str or Measure, optional
        Default ``AP, nDCG@10, P@10, RR, R@1000, RBP(p=0.8), bpref``; each RBP adds its residual.
    regimes : list of str or "all", optional
        Default ``trec_eval, expected, lower, upper``.
    score_precision : {"float64", "float32"}
        ``float32`` emulates trec_eval <= 9.0.8 and pytrec_eval (more scores tie).
    average : {"qrels", "run-topics"}
        ``qrels`` (default, trec_eval ``-c``): mean over every qrels topic, a topic missing from
        the run scores 0. ``run-topics``: mean over the qrels topics the run has.
    """

    def __init__(self, qrels: Qrels, measures=None, regimes=None,
                 score_precision: str = "float64", average: str = "qrels"):
        if average not in ("qrels", "run-topics"):
            raise ValueError("average must be 'qrels' or 'run-topics'")
        if score_precision not in ("float64", "float32"):
            raise ValueError("score_precision must be 'float64' or 'float32'")
        if not isinstance(qrels, Qrels):
            from .io.frames import as_qrels

            qrels = as_qrels(qrels)
        self.qrels = qrels
        ms = measures if measures is not None else DEFAULT_MEASURES
        names = [m for m in ms if isinstance(m, str)]
        objs = [m for m in ms if isinstance(m, Measure)]
        self.measures: list[Measure] = objs + parse_measures(names)
        self.regimes = resolve_regimes(regimes)
        self.score_precision = score_precision
        self.average = average
        self.stats = QrelsStats(qrels)

    # ------------------------------------------------------------------------------------
    def evaluate_run(self, run: Run) -> tuple[np.ndarray, dict]:
        """Values of one run: ndarray (n_measures, n_regimes, n_topics) and its warnings."""
        st = self.stats
        J = judge(run, self.qrels, self.score_precision)
        O = orderings(J)
        nq = J.n_topics
        out = np.zeros((len(self.measures), len(self.regimes), nq))
        rank_cache: dict = {}
        G = None

        def R(name):
            if name not in rank_cache:
                rank_cache[name] = ranking(O, name, st.gmax)
            return rank_cache[name]

        for j, m in enumerate(self.measures):
            memo: dict = {}
            for k, reg in enumerate(self.regimes):
                if reg == "expected":
                    if G is None:
                        G = groups(O, st.gmax)
                    out[j, k] = m.expected(G, st)
                    continue
                if reg == "lower":
                    src = "realistic"
                elif reg == "upper":
                    src = "upper_mono" if m.kind == "monotone" else "optimistic"
                else:
                    src = reg
                if src not in memo:
                    memo[src] = m.ordered(R(src), st)
                out[j, k] = memo[src]
        warn = self._warnings(run, J, O, R)
        if self.average == "run-topics":
            out[:, :, O.n_ret == 0] = np.nan
        return out, warn

    def _warnings(self, run: Run, J, O, R) -> dict:
        w: dict[str, object] = dict(run.warnings)
        hyg = run_hygiene(run)
        contra = int(hyg["contradictions"].sum())
        if contra:
            w[WARN_CONTRADICTIONS] = contra
        inc = int(hyg["increasing"].sum())
        if inc:
            w[WARN_INCREASING] = inc
        if J.run_topics_missing_in_qrels:
            w["run topics not in qrels (ignored)"] = list(J.run_topics_missing_in_qrels)
        missing = [q for q, n in zip(self.qrels.topics, O.n_ret) if n == 0]
        if missing:
            label = ("qrels topics missing from run (scored 0)" if self.average == "qrels"
                     else "qrels topics missing from run (not averaged)")
            w[label] = missing
        te = R("trec_eval")
        unj = int(np.sum(~te.judged & (te.rank <= UNJUDGED_TOP_K)))
        if unj:
            w[f"unjudged documents in the top {UNJUDGED_TOP_K}"] = unj
        n_tied = len(O.tied)
        if n_tied:
            w[WARN_TIED] = n_tied
        return w

    def _one(self, r, on_duplicate="error", name_by="tag"):
        if isinstance(r, Run):
            run = r
        elif isinstance(r, (str, os.PathLike)):
            name = os.path.basename(os.fspath(r)) if name_by == "file" and r != "-" else None
            run = read_run(r, name=name, on_duplicate=on_duplicate)
        else:  # a DataFrame or {qid: {docno: score}}
            from .io.frames import as_run

            run = as_run(r)
        v, w = self.evaluate_run(run)
        return run.name, run.source, v, w

    def _iter(self, runs, jobs: int, on_duplicate: str, name_by: str = "tag"):
        runs = list(runs) if jobs > 1 else runs
        if jobs > 1 and len(runs) > 1 and all(isinstance(r, (str, os.PathLike)) for r in runs):
            import multiprocessing as mp

            if "fork" in mp.get_all_start_methods():
                global _WORKER
                _WORKER = (self, on_duplicate, name_by)
                with mp.get_context("fork").Pool(min(jobs, len(runs))) as pool:
                    yield from pool.imap(_work, runs)
                _WORKER = None
                return
        for r in runs:
            yield self._one(r, on_duplicate, name_by)

    def evaluate(self, runs, progress=None, jobs: int = 1,
                 on_duplicate: str = "error", name_by: str = "tag") -> EvalResult:
        """Evaluate runs.

        Parameters
        ----------
        runs : iterable of Run, paths, DataFrames or ``{qid: {docno: score}}`` dicts
            Paths are read with :func:`tiebreak.read_run`, the rest converted with
            :func:`tiebreak.io.frames.as_run`.
        progress : callable, optional
            Called with the run name after each run.
        jobs : int
            Worker processes for reading and evaluating paths (results are identical; order
            is kept). 1 = in this process.
        on_duplicate : {"error", "first"}
            Passed to :func:`tiebreak.read_run` for paths.
        name_by : {"tag", "file"}
            Name of a run read from a path: its run tag (column 6; the file name when it has
            none), or its file name. A name seen before gets ``#2``, ``#3``, ... in input order.

        Raises
        ------
        ValueError
            Unknown ``name_by``.
        """
        if name_by not in ("tag", "file"):
            raise ValueError("name_by must be 'tag' or 'file'")
        names: list[str] = []
        vals = []
        warnings: dict[str, dict] = {}
        for name, source, v, w in self._iter(runs, jobs, on_duplicate, name_by):
            if name in warnings:
                i = 2
                while f"{name}#{i}" in warnings:
                    i += 1
                w["run name repeated; renamed"] = f"{name}#{i} ({source})"
                name = f"{name}#{i}"
            names.append(name)
            vals.append(v)
            warnings[name] = w
            if progress:
                progress(name)
        return self._result(names, vals, warnings)

    def _result(self, names, vals, warnings) -> EvalResult:
        nq = len(self.qrels.topics)
        per = np.stack(vals) if vals else np.zeros((0, len(self.measures), len(self.regimes), nq))
        cnt = np.sum(~np.isnan(per), axis=3)
        tot = np.nansum(per, axis=3)
        mean = np.zeros(per.shape[:3])
        np.divide(tot, cnt, out=mean, where=cnt > 0)
        return EvalResult(names, [str(m) for m in self.measures], list(self.regimes),
                          list(self.qrels.topics), per, mean, warnings)


_WORKER = None


def _work(path):
    ev, on_duplicate, name_by = _WORKER
    return ev._one(path, on_duplicate, name_by)


def evaluate(qrels: Qrels, runs, measures=None, regimes=None, **kw) -> EvalResult:
    """One-call form of :class:`Evaluator`: ``evaluate(qrels, [run, ...], ["AP"], "all")``."""
    if isinstance(runs, (Run, dict)) or hasattr(runs, "columns"):  # one run, DataFrame, dict
        runs = [runs]
    return Evaluator(qrels, measures, regimes, **kw).evaluate(runs)
