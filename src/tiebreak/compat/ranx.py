"""ranx's API on tiebreak: ``Qrels``, ``Run``, ``evaluate``, ``compare`` (a ``Report`` with
``to_dataframe`` / ``to_latex``) and ``fuse``.

Code written for ranx (Bassani, "ranx: A Blazing-Fast Python Library for Ranking Evaluation
and Comparison", ECIR 2022) runs with ``from tiebreak.compat import ranx``. Metric names are
read as ranx spells them (``precision@10``, ``ndcg_burges@10``, ``map@100``, ``mrr``,
``rbp.95``, ``map@100-l2``; ``convention="ranx"``, :mod:`tiebreak.measures.conventions`); the
values are tiebreak's (one definition each).

Conventions of ranx kept by default:

* topics: ranx refuses qrels and a run with different query ids unless
  ``make_comparable=True``, which scores a qrels topic the run lacks 0 and drops run topics
  without judgments; the mean is over the qrels topics;
* tie order: ``regime="file"``, the order the documents were given in (ranx sorts each
  ranking by score with numba's quicksort, which keeps that order inside ties on short
  rankings; on long ones its order inside ties is the sort's, not a documented rule).

``regime=`` on every function (``trec_eval``, ``expected``, ``realistic``, ``optimistic``,
``lower``, ``upper``) evaluates under another tie regime.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

__all__ = ["Qrels", "Run", "Report", "evaluate", "compare", "fuse", "get_file_kind"]

DEFAULT_REGIME = "file"
data_structures = qrels = run = sys.modules[__name__]  # ranx's submodules of these names


def _read_trec(path, kind: str) -> dict:
    """``{qid: {docno: value}}`` of a TREC qrels or run file through tiebreak's readers."""
    from ..io import read_qrels, read_run

    out: dict = {}
    if kind == "qrels":
        q = read_qrels(path)
        for i in range(len(q)):
            out.setdefault(q.topics[q.topic[i]], {})[str(q.docnos[q.docid[i]])] = \
                int(q.value[i])
    else:
        r = read_run(path)
        for i in range(len(r)):
            out.setdefault(r.topics[r.topic[i]], {})[r.docno(i)] = float(r.score[i])
    return out


class _Ranked:
    """``{qid: {docno: value}}`` with ranx's constructors and writers."""

    _kind = "run"
    _value = "score"

    def __init__(self, data: dict | None = None, name: str | None = None):
        data = {} if data is None else data
        if not isinstance(data, dict) or any(not isinstance(v, dict) for v in data.values()):
            raise TypeError(f"{type(self).__name__}: give a dict {{qid: {{docno: "
                            f"{self._value}}}}}, not {type(data).__name__}")
        cast = int if self._kind == "qrels" else float
        self.data = {str(q): {str(d): cast(v) for d, v in docs.items()}
                     for q, docs in data.items()}
        self.name = name
        self.sorted = False

    @property
    def qrels(self) -> dict:  # ranx's attribute names: Qrels.qrels, Run.run
        return self.data

    run = qrels

    # -- constructors ---------------------------------------------------------------------
    @classmethod
    def from_dict(cls, d: dict, name: str | None = None):
        return cls(d, name)

    @classmethod
    def from_file(cls, path, kind: str | None = None, name: str | None = None):
        """A TREC file (plain or gzip), ``.json`` or ``.parquet`` (``kind`` overrides the
        extension: ``trec``, ``json``, ``parquet``)."""
        p = str(path)
        kind = kind or get_file_kind(p)
        if kind == "gz":
            kind = "trec"  # tiebreak's readers open gzip themselves
        if kind == "json":
            with open(p) as f:
                return cls(json.load(f), name)
        if kind == "parquet":
            return cls.from_parquet(p, name=name)
        if kind != "trec":
            raise ValueError(f"kind must be 'trec', 'json' or 'parquet', not {kind!r}")
        return cls(_read_trec(p, cls._kind), name)

    @classmethod
    def from_df(cls, df, q_id_col: str = "q_id", doc_id_col: str = "doc_id",
                score_col: str = "score", name: str | None = None):
        """A DataFrame with one row per (query, document); column names as ranx's."""
        missing = [c for c in (q_id_col, doc_id_col, score_col) if c not in df.columns]
        if missing:
            raise ValueError(f"{cls.__name__}.from_df: no column(s) {missing} (columns: "
                             f"{list(df.columns)})")
        d: dict = {}
        for q, doc, v in zip(df[q_id_col].astype(str), df[doc_id_col].astype(str),
                             df[score_col]):
            d.setdefault(q, {})[doc] = v
        return cls(d, name)

    @classmethod
    def from_parquet(cls, path, q_id_col: str = "q_id", doc_id_col: str = "doc_id",
                     score_col: str = "score", name: str | None = None):
        import pandas as pd

        return cls.from_df(pd.read_parquet(path), q_id_col, doc_id_col, score_col, name)

    def add(self, q_id: str, doc_ids, scores) -> None:
        """Add (or replace) one query's documents and values."""
        if len(doc_ids) != len(scores):
            raise ValueError(f"query {q_id}: {len(doc_ids)} doc_ids but {len(scores)} scores")
        cast = int if self._kind == "qrels" else float
        self.data[str(q_id)] = {str(d): cast(v) for d, v in zip(doc_ids, scores)}
        self.sorted = False

    def add_score(self, q_id: str, doc_id: str, score) -> None:
        """Add (or replace) one document's value."""
        cast = int if self._kind == "qrels" else float
        self.data.setdefault(str(q_id), {})[str(doc_id)] = cast(score)
        self.sorted = False

    def sort(self) -> None:
        """Order each query's documents by value, descending (ties: the order given)."""
        self.data = {q: dict(sorted(d.items(), key=lambda kv: -kv[1]))
                     for q, d in self.data.items()}
        self.sorted = True

    def to_typed_list(self) -> list:
        """One array of ``[doc_id, value]`` rows per query, value descending."""
        if not self.sorted:
            self.sort()
        return [np.array(list(d.items()), dtype=object).reshape(-1, 2)
                for d in self.data.values()]

    def add_multi(self, q_ids, doc_ids, scores) -> None:
        """Add several queries: ``doc_ids[i]`` and ``scores[i]`` belong to ``q_ids[i]``."""
        if not len(q_ids) == len(doc_ids) == len(scores):
            raise ValueError("q_ids, doc_ids and scores must have the same length")
        for q, d, v in zip(q_ids, doc_ids, scores):
            self.add(q, d, v)

    # -- writers and views ----------------------------------------------------------------
    def save(self, path, kind: str | None = None) -> None:
        """Write a TREC file (default) or ``.json`` (by extension or ``kind``)."""
        p = str(path)
        kind = kind or ("json" if p.endswith(".json") else "trec")
        if kind == "json":
            with open(p, "w") as f:
                json.dump(self.data, f)
            return
        if kind != "trec":
            raise ValueError(f"kind must be 'trec' or 'json', not {kind!r}")
        with open(p, "w") as f:
            for q, docs in self.data.items():
                if self._kind == "qrels":
                    f.writelines(f"{q} 0 {d} {v}\n" for d, v in docs.items())
                else:
                    ranked = sorted(docs.items(), key=lambda kv: -kv[1])  # stable: file order
                    f.writelines(f"{q} Q0 {d} {i} {v!r} {self.name or 'run'}\n"
                                 for i, (d, v) in enumerate(ranked, 1))

    def to_dict(self) -> dict:
        return {q: dict(d) for q, d in self.data.items()}

    def to_dataframe(self):
        import pandas as pd

        rows = [(q, d, v) for q, docs in self.data.items() for d, v in docs.items()]
        return pd.DataFrame(rows, columns=["q_id", "doc_id", self._value])

    def get_query_ids(self) -> list[str]:
        return list(self.data)

    def keys(self):
        return self.data.keys()

    def __getitem__(self, q):
        return self.data[q]

    def __len__(self) -> int:
        return len(self.data)

    def __contains__(self, q) -> bool:
        return q in self.data

    @property
    def size(self) -> int:
        return len(self.data)


class Qrels(_Ranked):
    """ranx's Qrels: ``{qid: {docno: relevance}}`` (int)."""

    _kind = "qrels"
    _value = "score"

    def set_relevance_level(self, rel_lvl: int = 1) -> None:
        """Shift the grades so that ``rel_lvl`` becomes 1 (lower grades 0), as ranx does."""
        self.data = {q: {d: max(v - (rel_lvl - 1), 0) for d, v in docs.items()}
                     for q, docs in self.data.items()}


def get_file_kind(path) -> str:
    """ranx's file kinds by extension: ``json``, ``parquet`` (``.parquet``, ``.parq``),
    ``gz`` (gzipped TREC), ``lz4``, else ``trec``."""
    p = str(path)
    for ext, kind in ((".json", "json"), (".parquet", "parquet"), (".parq", "parquet"),
                      (".gz", "gz"), (".lz4", "lz4")):
        if p.endswith(ext):
            return kind
    return "trec"


class Run(_Ranked):
    """ranx's Run: ``{qid: {docno: score}}``; ``evaluate`` fills ``scores`` and
    ``mean_scores`` as ranx does."""

    def __init__(self, data: dict | None = None, name: str | None = None):
        super().__init__(data, name)
        self.scores: dict = {}
        self.mean_scores: dict = {}
        self.std_scores: dict = {}

    def make_comparable(self, qrels) -> Run:
        """This run on the queries of ``qrels``: a query it lacks gets an empty ranking, one
        the qrels lack is dropped (ranx's ``make_comparable``); returns ``self``."""
        q = _data(qrels, Qrels)
        self.data = {k: self.data.get(k, {}) for k in q}
        return self


def _arrays(x) -> bool:
    """ranx's low-level input: one array (or a list of arrays) of ``[doc_id, value]`` rows
    per query, already in ranking order."""
    if isinstance(x, np.ndarray):
        return x.ndim in (2, 3)
    return isinstance(x, (list, tuple)) or type(x).__name__ == "List"


def _from_arrays(x) -> dict:
    rows = [x] if isinstance(x, np.ndarray) and x.ndim == 2 else list(x)
    out: dict = {}
    for i, a in enumerate(rows):
        a = np.asarray(a, dtype=np.float64)
        if a.ndim != 2 or (a.size and a.shape[1] != 2):
            raise ValueError(f"query {i}: expected rows of [doc_id, value], got shape "
                             f"{a.shape}")
        d = out.setdefault(str(i), {})
        for doc, v in a:
            d.setdefault(repr(float(doc)), float(v))  # a repeated doc id: the first row
    return out


def _data(x, cls) -> dict:
    if _arrays(x):
        return cls(_from_arrays(x)).data
    if isinstance(x, _Ranked):
        return x.data
    if isinstance(x, dict):
        return cls(x).data
    if isinstance(x, (str, os.PathLike)):
        return cls.from_file(x).data
    if hasattr(x, "columns"):
        return cls.from_df(x).data
    raise TypeError(f"cannot read {cls.__name__.lower()} from {type(x).__name__}: give a "
                    f"ranx-style {cls.__name__}, a dict {{qid: {{docno: value}}}}, a path or a "
                    "DataFrame")


def _metrics(metrics) -> list[str]:
    return [metrics] if isinstance(metrics, str) else list(metrics)


def _per_topic(qrels: dict, run: dict, metrics: list[str], make_comparable: bool,
               regime: str, ranked: bool = False) -> tuple[list[str], np.ndarray]:
    """(qrels topics, values (n_metrics, n_topics)) under ranx's topic rules."""
    from ..evaluation import Evaluator
    from ..io.frames import qrels_from_dict, run_from_dict

    qt, rt = list(qrels), [q for q in run if run[q]]
    if not make_comparable and set(qt) != set(run):
        only_q = sorted(set(qt) - set(run))[:3]
        only_r = sorted(set(run) - set(qt))[:3]
        raise ValueError("qrels and run have different query ids (qrels only: "
                         f"{only_q}, run only: {only_r}); pass make_comparable=True to score "
                         "a missing topic 0 and drop unjudged ones, as ranx does")
    # scores descending, ties in the order given; the "file" regime keeps that order
    kept = {q: run[q] if ranked else dict(sorted(run[q].items(), key=lambda kv: -kv[1]))
            for q in rt if q in qrels}
    if ranked and regime == "file":  # arrays are in ranking order already: no re-sort
        kept = {q: {d: float(len(v) - i) for i, d in enumerate(v)} for q, v in kept.items()}
    ev = Evaluator(qrels_from_dict(qrels), metrics, [regime], convention="ranx",
                   average="run-topics")
    cols = []
    for m in metrics:  # the evaluator keeps one of equal measures
        from ..measures.conventions import convention
        cols.append(ev.measures.index(convention("ranx").parse(m)[0]))
    vals = np.zeros((len(metrics), len(qt)))
    if kept:
        res = ev.evaluate([run_from_dict(kept)])
        pos = {q: i for i, q in enumerate(res.topics)}
        for t, q in enumerate(qt):
            if q in kept:
                vals[:, t] = res.per_topic[0, cols, 0, pos[q]]
    return qt, np.nan_to_num(vals, nan=0.0)


def evaluate(qrels, run, metrics, return_mean: bool = True, return_std: bool = False,
             make_comparable: bool = False, regime: str = DEFAULT_REGIME, **_ignored):
    """ranx's ``evaluate``: one metric gives a float (``return_mean=False``: an array of
    per-topic values, qrels topic order; ``return_std=True``: ``{"mean": .., "std": ..}``,
    the population standard deviation over topics), several a dict ``{metric: ...}``.

    ``qrels`` / ``run``: :class:`Qrels` / :class:`Run`, dicts ``{qid: {docno: value}}``,
    paths or DataFrames. A :class:`Run` gets ``scores`` (``{metric: {qid: value}}``) and
    ``mean_scores``. Raises ValueError when the query ids differ and ``make_comparable`` is
    False (ranx refuses that too), MeasureError for a name ranx does not have."""
    ms = _metrics(metrics)
    qt, vals = _per_topic(_data(qrels, Qrels), _data(run, Run), ms, make_comparable, regime,
                          ranked=_arrays(run))
    means = vals.mean(axis=1) if len(qt) else np.zeros(len(ms))
    sds = vals.std(axis=1) if len(qt) else np.zeros(len(ms))
    if isinstance(run, Run):
        for m, v, mu, sd in zip(ms, vals, means, sds):
            run.scores[m] = dict(zip(qt, v.tolist()))
            run.mean_scores[m] = float(mu)
            run.std_scores[m] = float(sd)
    if return_std:
        out = {m: {"mean": float(mu), "std": float(sd)} for m, mu, sd in zip(ms, means, sds)}
    else:
        out = {m: (float(mu) if return_mean else v) for m, v, mu in zip(ms, vals, means)}
    return out[ms[0]] if isinstance(metrics, str) else out


class Report:
    """``compare``'s result: mean of each metric per run, and which runs each is
    significantly better than (paired test, ``max_p``). ``to_dataframe``, ``to_latex``,
    ``to_dict``, ``str``."""

    def __init__(self, names, metrics, means, per_topic, pvalues, max_p, stat_test, regime):
        self.model_names, self.metrics = names, metrics
        self.means = means            # (runs, metrics)
        self.per_topic = per_topic    # (runs, metrics, topics)
        self.pvalues = pvalues        # (metrics, runs, runs)
        self.max_p, self.stat_test, self.regime = max_p, stat_test, regime

    LABELS = {"student": "paired Student's t-test", "fisher": "Fisher's randomization test",
              "tukey": "Tukey's HSD test", "wilcoxon": "Wilcoxon signed-rank test"}

    def get_stat_test_label(self, stat_test: str) -> str:
        return self.LABELS[stat_test]

    def better_than(self, i: int, j: int) -> list[int]:
        return [b for b in range(len(self.model_names)) if b != i
                and self.means[i, j] > self.means[b, j] and self.pvalues[j, i, b] <= self.max_p]

    def to_dict(self) -> dict:
        """``{"stat_test", "model_names", "metrics", NAME: {"scores", "comparisons",
        "win_tie_loss"}}``; ``comparisons[other][metric]`` is the pair's p-value."""
        out: dict = {"stat_test": self.stat_test, "model_names": list(self.model_names),
                     "metrics": list(self.metrics)}
        names = self.model_names
        for i, n in enumerate(names):
            T = self.per_topic.shape[2]
            out[n] = {
                "scores": {m: float(self.means[i, j]) for j, m in enumerate(self.metrics)},
                "comparisons": {o: {m: float(self.pvalues[j, i, b])
                                    for j, m in enumerate(self.metrics)}
                                for b, o in enumerate(names) if b != i},
                "win_tie_loss": {o: {m: {
                    "W": int((self.per_topic[i, j] > self.per_topic[b, j]).sum()),
                    "T": int((self.per_topic[i, j] == self.per_topic[b, j]).sum()),
                    "L": int((self.per_topic[i, j] < self.per_topic[b, j]).sum())}
                    for j, m in enumerate(self.metrics)} for b, o in enumerate(names)
                    if b != i and T},
            }
        return out

    def to_dataframe(self):
        """One row per run: ``model_names`` and one column per metric (the means)."""
        import pandas as pd

        df = pd.DataFrame(self.means, columns=self.metrics)
        df.insert(0, "model_names", self.model_names)
        return df

    def _cell(self, i, j, digits):
        sup = "".join(chr(ord("a") + b) for b in self.better_than(i, j))
        return f"{self.means[i, j]:.{digits}f}" + (f"$^{{{sup}}}$" if sup else "")

    def to_latex(self, digits: int = 4) -> str:
        """A LaTeX table: one row per run (lettered a, b, ...), superscripts name the runs it
        is significantly better than (p <= max_p, ``stat_test``)."""
        cols = "l" + "c" * len(self.metrics)
        head = " & ".join(["\\textbf{Model}", *(m.replace("_", "\\_") for m in self.metrics)])
        rows = [f"{chr(ord('a') + i)}) {n.replace('_', chr(92) + '_')} & " + " & ".join(
            self._cell(i, j, digits) for j in range(len(self.metrics))) + " \\\\"
            for i, n in enumerate(self.model_names)]
        return "\n".join(["\\begin{table*}[ht]", "\\centering", f"\\begin{{tabular}}{{{cols}}}",
                          "\\toprule", head + " \\\\", "\\midrule", *rows, "\\bottomrule",
                          "\\end{tabular}",
                          f"\\caption{{{self.get_stat_test_label(self.stat_test)}, "
                          f"p $\\leq$ {self.max_p}; tie regime {self.regime}}}",
                          "\\end{table*}"])

    def __str__(self) -> str:
        from tabulate import tabulate

        rows = [[f"{chr(ord('a') + i)}", n, *(self._cell(i, j, 4).replace("$^{", " ")
                                            .replace("}$", "") for j in range(len(self.metrics)))]
                for i, n in enumerate(self.model_names)]
        return tabulate(rows, headers=["#", "Model", *self.metrics])

    __repr__ = __str__


def compare(qrels, runs, metrics, max_p: float = 0.01, stat_test: str = "student",
            make_comparable: bool = False, regime: str = DEFAULT_REGIME, n_permutations:
            int = 1000, random_seed: int = 42, **_ignored) -> Report:
    """ranx's ``compare``: evaluate every run, then each pair with a paired test
    (``student``: :func:`tiebreak.stats.significance.paired_t`; ``fisher``: the sign-flip
    randomization test with ``n_permutations`` and ``random_seed``; ``tukey``: Tukey's HSD
    over all the runs, :func:`tiebreak.stats.significance.family_pvalues`; ``wilcoxon``),
    and return a :class:`Report`."""
    from ..stats import significance as sig

    ms = _metrics(metrics)
    qd = _data(qrels, Qrels)
    names, per = [], []
    for i, r in enumerate(runs):
        names.append(getattr(r, "name", None) or f"run_{i + 1}")
        per.append(_per_topic(qd, _data(r, Run), ms, make_comparable, regime)[1])
    P = np.stack(per)
    n = len(runs)
    pv = np.ones((len(ms), n, n))
    if stat_test == "tukey":
        ii, jj = np.triu_indices(n, 1)
        for j in range(len(ms)):
            p = sig.family_pvalues(P[:, j], ii, jj, "tukey")
            pv[j, ii, jj] = pv[j, jj, ii] = p
        return Report(names, ms, P.mean(axis=2), P, pv, max_p, stat_test, regime)
    for j in range(len(ms)):
        for a in range(n):
            for b in range(a + 1, n):
                x, y = P[a, j], P[b, j]
                if stat_test == "student":
                    p = sig.paired_t(x, y).pvalue
                elif stat_test == "fisher":
                    p = sig.randomization_test(x, y, n=n_permutations, seed=random_seed).pvalue
                elif stat_test == "wilcoxon":
                    p = sig.wilcoxon(x, y).pvalue
                else:
                    raise ValueError(f"stat_test must be 'student', 'fisher', 'tukey' or "
                                     f"'wilcoxon', not {stat_test!r}")
                pv[j, a, b] = pv[j, b, a] = p
    return Report(names, ms, P.mean(axis=2), P, pv, max_p, stat_test, regime)


def fuse(runs, norm: str = "min-max", method: str = "wsum", params: dict | None = None,
         name: str | None = None, **kw) -> Run:
    """ranx's ``fuse`` through :func:`tiebreak.runs.fusion.fuse` (``params``: ``weights``
    for ``wsum``, ``k`` for ``rrf``; ``regime=`` passed on when the fusion takes one).
    Returns a :class:`Run` whose documents are in the fused order."""
    import inspect

    from ..io.frames import run_from_dict
    from ..runs.fusion import fuse as tb_fuse

    params = dict(params or {})
    extra = {k: v for k, v in kw.items() if k in inspect.signature(tb_fuse).parameters}
    datas = [_data(r, Run) for r in runs]
    d: dict = {q: {} for x in datas for q in x}  # a query no run answered stays, empty
    fused = tb_fuse([run_from_dict({q: v for q, v in x.items() if v} or
                                   {"": {}}) for x in datas], method=method,
                    norm="none" if norm is None else norm,
                    weights=params.pop("weights", None), name=name, **params, **extra)
    for i in range(len(fused)):
        d.setdefault(fused.topics[fused.topic[i]], {})[fused.docno(i)] = float(fused.score[i])
    return Run(d, name=name or f"{method}")


def _fusion_fn(method: str, ranx_name: str):
    def fn(runs, *args, **kw):
        params = {}
        if method == "wsum":
            params["weights"] = kw.pop("weights", args[0] if args else None)
        elif method == "rrf":
            params["k"] = kw.pop("k", args[0] if args else 60)
        return fuse(runs, norm=None, method=method, params=params, name=ranx_name, **kw)
    fn.__name__ = ranx_name
    fn.__doc__ = (f"ranx's ``fusion.{ranx_name}``: :func:`fuse` with method ``{method}`` on "
                  "the scores as they are (no normalisation).")
    return fn


class fusion:  # noqa: N801  (ranx's module name)
    """``ranx.fusion``: one function per fusion method tiebreak has, on raw scores."""

    comb_sum = staticmethod(_fusion_fn("sum", "comb_sum"))
    comb_mnz = staticmethod(_fusion_fn("mnz", "comb_mnz"))
    comb_anz = staticmethod(_fusion_fn("anz", "comb_anz"))
    comb_max = staticmethod(_fusion_fn("max", "comb_max"))
    comb_min = staticmethod(_fusion_fn("min", "comb_min"))
    comb_med = staticmethod(_fusion_fn("med", "comb_med"))
    wsum = staticmethod(_fusion_fn("wsum", "weighted_sum"))
    rrf = staticmethod(_fusion_fn("rrf", "rrf"))
    isr = staticmethod(_fusion_fn("isr", "isr"))
    log_isr = staticmethod(_fusion_fn("log_isr", "log_isr"))
    bordafuse = staticmethod(_fusion_fn("bordafuse", "bordafuse"))
    condorcet = staticmethod(_fusion_fn("condorcet", "condorcet"))
