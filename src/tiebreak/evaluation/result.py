"""The result object of an evaluation: every run, measure, regime and topic."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


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
        Per-topic values. With ``average="qrels"`` a topic the run lacks is scored as trec_eval
        ``-c`` scores it (0 for most measures, RBP residual 1); with
        ``average="run-topics"`` it is NaN and left out of the mean.
    mean : ndarray float64, shape (n_runs, n_measures, n_regimes)
        Summary over the averaged topics: the mean (sum for counts, geometric mean for
        ``gm_*``), added in trec_eval's topic order; NaN over zero topics.
    notes : list[str]
        What was estimated by sampling (``expected`` without a closed form).
    warnings : dict[str, dict[str, object]]
        Per run: counted warnings (label -> count, or list of topic ids); under ``"lines"``
        the run file's :class:`tiebreak.io.LineCounts` (what became of every line).
    """

    runs: list[str]
    measures: list[str]
    regimes: list[str]
    topics: list[str]
    per_topic: np.ndarray
    mean: np.ndarray
    warnings: dict[str, dict[str, object]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def value(self, run: str, measure: str, regime: str, topic: str | None = None) -> float:
        """One value; ``topic=None`` gives the mean."""
        i = _index(self.runs, run, "run")
        j = _index(self.measures, measure, "measure")
        k = _index(self.regimes, regime, "regime")
        if topic is None:
            return float(self.mean[i, j, k])
        return float(self.per_topic[i, j, k, _index(self.topics, topic, "topic")])

    def records(self, per_topic: bool = False, summary: bool = True):
        """Yield ``(run, measure, regime, qid, value)`` tuples: per topic (``per_topic``) and
        the summary with qid ``all`` (``summary``)."""
        for i, r in enumerate(self.runs):
            for j, m in enumerate(self.measures):
                for k, g in enumerate(self.regimes):
                    if per_topic:
                        for t, q in enumerate(self.topics):
                            v = self.per_topic[i, j, k, t]
                            if not np.isnan(v):
                                yield (r, m, g, q, float(v))
                    if summary:
                        yield (r, m, g, "all", float(self.mean[i, j, k]))

    def to_pandas(self, per_topic: bool = True, wide: bool = False, means: bool = False):
        """The values as a DataFrame (requires pandas).

        Long form (``wide=False``): columns run, measure, regime, qid, value; ``per_topic=True``
        gives one row per evaluated topic (no summary rows, so a groupby-mean is safe) and with
        ``means=True`` also the summary rows (qid ``all``); ``per_topic=False`` the summaries
        alone. Wide form (``wide=True``): one row per (run, qid) with the summary row qid
        ``all`` last for each run (only those with ``per_topic=False``), one column per measure
        (a (measure, regime) column MultiIndex when there are several regimes)."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover
            raise ImportError("to_pandas() needs pandas: pip install pandas") from None
        cols = ["run", "measure", "regime", "qid", "value"]
        if not wide:
            rows = self.records(per_topic, summary=means or not per_topic)
            return pd.DataFrame(list(rows), columns=cols)
        df = pd.DataFrame(list(self.records(per_topic, summary=True)), columns=cols)
        t = df.pivot_table(index=["run", "qid"], columns=["measure", "regime"], values="value",
                           sort=False, aggfunc="first")
        t = t.reindex(columns=pd.MultiIndex.from_tuples(
            [(m, g) for m in self.measures for g in self.regimes], names=["measure", "regime"]))
        if len(self.regimes) == 1:
            t.columns = t.columns.get_level_values(0)
        return t

    def __str__(self) -> str:
        """The readable grid of ``tiebreak eval`` (means; 4 decimals) and its legend."""
        import io

        from .output import legend, write_table

        buf = io.StringIO()
        write_table(self, buf)
        for line in legend(self):
            buf.write(f"{line}\n")
        return buf.getvalue().rstrip("\n")


def _index(items: list[str], x, what: str) -> int:
    try:
        return items.index(x)
    except ValueError:
        shown = ", ".join(map(str, items[:10])) + (" ..." if len(items) > 10 else "")
        raise KeyError(f"no {what} {x!r} in this result; {what}s: {shown}") from None
