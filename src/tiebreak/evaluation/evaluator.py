"""Evaluate runs under every tie regime: the Python API behind ``tiebreak eval``.

Example
-------
>>> import tiebreak as tb
>>> ev = tb.Evaluator(tb.read_qrels("qrels.txt"), ["AP", "nDCG@10"], regimes="all")
>>> res = ev.evaluate([tb.read_run("a.run"), tb.read_run("b.run")])
>>> res.mean            # ndarray (n_runs, n_measures, n_regimes)
>>> res.to_pandas()     # long DataFrame: run, measure, regime, qid, value

Size: one module because reading, prefetch, streaming and chunking are the one loop that feeds
:mod:`.compute`; the values and the result object live in :mod:`.compute` and :mod:`.result`.
"""

from __future__ import annotations

import os

import numpy as np

from ..io import Qrels, Run, read_run
from ..io.runs import WARN_EMPTY as WARN_EMPTY_RUN
from ..measures import DEFAULT_MEASURES, Measure, MeasureError, parse_measures
from ..measures.kernels import UNJUDGED_TOP_K
from ..ranking import (
    Prepared,
    prepare,
    ranking,
    run_hygiene,
)
from .compute import (
    WARN_CONTRADICTIONS,
    WARN_INCREASING,
    WARN_TIED,
    _evict,
    _with_bogus,
    measure_values,
    resolve_regimes,
    summarize,
)
from .result import EvalResult

__all__ = ["Evaluator", "evaluate"]

class Evaluator:
    """Evaluate many runs against one qrels, under several tie regimes.

    Parameters
    ----------
    qrels : Qrels, path, "irds:ID", DataFrame or dict
        Judgments (see :func:`tiebreak.read_qrels` and :func:`tiebreak.io.inputs.as_qrels`).
        Diversity measures (``alpha_nDCG@20``, ``ERR_IA@20``, ...) read the second column of
        the qrels as the subtopic (``qid subtopic docno rel``, as ndeval and ir_measures): a
        path is then read with ``read_qrels(path, subtopics=True)``, and a Qrels must have
        been read that way.
    measures : list of str or Measure, optional
        Default ``AP, nDCG@10, P@10, RR, R@1000, RBP(p=0.8), bpref``; each RBP adds its residual.
        Names in ir_measures syntax or trec_eval's (``map``, ``P.5,10``, ``all_trec``).
    regimes : list of str or "all", optional
        Default ``trec_eval, expected, realistic, optimistic, lower, upper``.
    score_precision : str or ScoreFormat
        Round every run's scores as this score format stores them before evaluating
        (:mod:`tiebreak.ranking.formats`): ``float64`` (default, unchanged), ``float32``
        (emulates trec_eval <= 9.0.8 and pytrec_eval), ``float16``, ``bfloat16``, ``int8``
        (min–max scale per topic), ``int8-global`` (one scale per run), ``bits:K`` (K mantissa
        bits), ``decimals:D`` (as ``%.Df`` prints them). Overflow, NaN scores and topics whose
        scores all merge are counted in the run's warnings.
    average : {"qrels", "run-topics"}
        ``qrels`` (default, trec_eval ``-c``): every qrels topic, a topic missing from the run
        is scored as trec_eval ``-c`` scores it (0 for most measures). ``run-topics``: only the
        qrels topics the run has (the others are NaN and left out of the mean).
    samples, seed : int
        Seeded random orderings for ``expected`` values without a closed or linear form.
    max_docs : int, optional
        Evaluate only the top ``max_docs`` documents of each topic (trec_eval ``-M``).
    judged_only : bool
        Drop unjudged documents before evaluating (trec_eval ``-J``).
    chunk_topics : int, optional
        Evaluate each run this many topics at a time (memory bounded by the chunk; a run file
        larger than :data:`tiebreak.evaluation.chunks.STREAM_BYTES` is read piece by piece whatever
        this
        is). Every value is identical to a whole evaluation (:mod:`tiebreak.evaluation.chunks`).
    allow_empty : bool
        Score an empty run (no result line) 0 on every topic; by default it is refused with an
        :class:`~tiebreak.io.InputError` naming the file (:func:`tiebreak.io.runs.refuse_empty`).
    convention : str or Convention, optional
        Read every measure name as this peer spells it (``trec_eval``, ``ir_measures``,
        ``ranx``, ``ntcireval``, ``trectools``, ``sklearn``, ``spark``, ``elasticsearch``,
        ``cwl``; see :mod:`tiebreak.measures.conventions`); NTCIREVAL's gain table is
        ``convention=tiebreak.measures.conventions.convention("ntcireval", g="1:2:3")``.
        Default: the mixed reading (ir_measures syntax, trec_eval and ranx names).

    Raises
    ------
    MeasureError, ValueError, TypeError
        A bad measure name or parameter, regime or option.
    InputError
        Qrels given as a path, ``irds:ID``, DataFrame or dict that cannot be read.
    """

    def __init__(self, qrels: Qrels, measures=None, regimes=None,
                 score_precision: str = "float64", average: str = "qrels",
                 samples: int = 1000, seed: int = 0, max_docs: int | None = None,
                 judged_only: bool = False, convention=None,
                 chunk_topics: int | None = None, allow_empty: bool = False):
        ms = measures if measures is not None else DEFAULT_MEASURES
        if isinstance(ms, (str, Measure)):
            ms = [ms]
        if convention is not None and measures is not None:
            from ..measures.conventions import parse_with

            ms = parse_with(convention, list(ms))
        else:
            ms = parse_measures(list(ms))
        div = [m for m in ms if m.family.rel_format == "subtopics"]
        if isinstance(qrels, (str, os.PathLike, dict)) or hasattr(qrels, "columns"):
            from ..io.inputs import as_qrels  # a path, "irds:ID", {qid: {docno: rel}}, DataFrame

            qrels = as_qrels(qrels, subtopics=bool(div))
        if not isinstance(qrels, Qrels):
            raise TypeError("qrels must be a tiebreak Qrels (use tiebreak.read_qrels), a path, "
                            f"irds:ID, a DataFrame or a dict, not {type(qrels).__name__}")
        if div and qrels.subtopic_lines is None:
            raise MeasureError(f"{div[0]} is a diversity measure: it needs subtopic qrels "
                               "(qid subtopic docno rel), read with "
                               "tiebreak.read_qrels(path, subtopics=True) or given as a path")
        if average not in ("qrels", "run-topics"):
            raise ValueError("average must be 'qrels' or 'run-topics'")
        from ..ranking.formats import parse_format

        self.score_format = parse_format(score_precision)
        if max_docs is not None and (isinstance(max_docs, bool) or int(max_docs) < 0):
            raise ValueError("max_docs must be a non-negative integer")
        self.qrels = qrels
        text = [m for m in ms if m.family.fmt == "str"]
        if text and len(text) == len(ms):
            raise MeasureError(f"{text[0]} has no numeric value; use tiebreak trec_eval -q")
        self.measures: list[Measure] = [m for m in ms if m.family.fmt != "str"]
        self.regimes = resolve_regimes(regimes)
        self.notes: list[str] = [f"{m} is text, not a number: tiebreak trec_eval -q prints it"
                                 for m in text]
        self.score_precision = str(self.score_format)
        self.average = average
        self.samples = samples
        self.seed = seed
        self.max_docs = max_docs
        self.judged_only = judged_only
        if chunk_topics is not None and (isinstance(chunk_topics, bool)
                                         or int(chunk_topics) < 1):
            raise ValueError("chunk_topics must be a positive integer")
        self.chunk_topics = None if chunk_topics is None else int(chunk_topics)
        self.allow_empty = bool(allow_empty)
        t = list(qrels.topics)
        self._byte_order = np.array(sorted(range(len(t)), key=lambda i: t[i].encode("latin-1",
                                                                                  "replace")),
                                    np.int64)

    # ------------------------------------------------------------------------------------
    def prepare(self, run: Run) -> Prepared:
        return prepare(run, self.qrels, complete=self.average == "qrels",
                       max_docs=self.max_docs, judged_only=self.judged_only,
                       score_precision=self.score_precision)

    def evaluate_run(self, run: Run, chunk_topics: int | None = None
                     ) -> tuple[np.ndarray, dict]:
        """Values of one run: ndarray (n_measures, n_regimes, n_topics) and its warnings.

        ``chunk_topics`` (default the evaluator's): evaluate the run this many topics at a
        time; the values and warnings are identical (:mod:`tiebreak.evaluation.chunks`)."""
        if not isinstance(run, Run):
            raise TypeError(f"expected a tiebreak Run (use tiebreak.read_run), not "
                            f"{type(run).__name__}")
        k = self.chunk_topics if chunk_topics is None else chunk_topics
        if k and len(run.topics) > k and self.score_format.scope != "global":
            from .chunks import Fallback, topic_chunks

            try:
                return self._chunked(run, topic_chunks(run, k))
            except Fallback:
                pass
        out, w, _ = self._evaluate(run)
        return out, w

    def _evaluate(self, run: Run, topics=None, check: bool = True):
        """(values, warnings, n_ret per qrels topic) of one run, on the qrels ``topics`` given
        (default: as the evaluator's ``average`` says)."""
        if topics is None:
            P = self.prepare(run)
        else:
            P = prepare(run, self.qrels, topics, complete=self.average == "qrels",
                        max_docs=self.max_docs, judged_only=self.judged_only,
                        score_precision=self.score_precision)
        if check and len(run.topics) and not (P.O.n_ret > 0).any():
            self._none_in_qrels(run.source, run.topics)
        nq = len(self.qrels.topics)
        out = np.full((len(self.measures), len(self.regimes), nq), np.nan)
        cache: dict = {}
        from ..measures.fastpath import fill, key

        # every regime of the measures with a compiled twin in one call (memoised in cache)
        if fill(P, self.measures, self.regimes, cache):  # all of them: nothing else to do
            memo = cache["values"]
            for k, reg in enumerate(self.regimes):
                vals = _with_bogus(P, self.measures, [memo[key(reg, m)] for m in self.measures])
                for j, v in enumerate(vals):
                    out[j, k, P.topic_ids] = v
            return out, self._warnings(run, P, None, cache["unjudged_top"]), P.O.n_ret
        # trec_eval first: the other regimes take its values on the topics they rank alike
        seq = sorted(range(len(self.regimes)), key=lambda k: self.regimes[k] != "trec_eval")
        for i, k in enumerate(seq):
            reg = self.regimes[k]
            vals, notes = measure_values(P, self.measures, reg, samples=self.samples,
                                         seed=self.seed, cache=cache)
            for j, v in enumerate(vals):
                out[j, k, P.topic_ids] = v
            for n in notes:
                _add_note(self.notes, n)
            _evict(cache, P, self.measures, [self.regimes[x] for x in seq[i + 1:]])
        return out, self._warnings(run, P, cache.get("trec_eval"),
                                   cache.get("unjudged_top")), P.O.n_ret

    def _none_in_qrels(self, source: str, topics: list[str]):
        from ..io import InputError

        shown = ", ".join(topics[:5]) + (" ..." if len(topics) > 5 else "")
        raise InputError(f"{source}: none of the run's topics ({shown}) is in the qrels "
                         f"{self.qrels.name}; is this the right qrels file?")

    def _chunked(self, whole: Run | None, parts, warnings: dict | None = None):
        """Evaluate the sub-runs ``parts`` (whole topics each, in the run's order) one after the
        other and merge: each topic's values from the part that holds it, the values of the
        qrels topics no part holds from the first part, warnings as a whole evaluation gives
        them. ``whole``: the run they come from (its reader warnings and line counts), or None
        with ``warnings`` the merged reader warnings and "lines" of a file read in pieces."""
        from .chunks import READER_ORDER, topic_chunks

        out = None
        found = False
        # qrels topics whose values are set: every part is evaluated on its own topics only
        # (memory bounded by the chunk, not by the qrels); the qrels topics no part holds are
        # evaluated at the end, a chunk at a time, beside a one-topic slice of the first part
        # (they have no line in it: the values of a topic without results)
        filled = np.zeros(len(self.qrels.topics), bool)
        head: Run | None = None
        step = 1
        topics: list[str] = []
        source = ""
        ev: dict[str, object] = {}
        missing: set[str] | None = None
        tindex = self.qrels.topic_index
        for part in parts:
            source = part.source
            if len(topics) < 6:
                topics += part.topics[:6]
            known = [q for q in part.topics if q in tindex]
            if not known:  # only the warnings (its topics are ignored)
                P = prepare(part, self.qrels, complete=True, max_docs=self.max_docs,
                            judged_only=self.judged_only, score_precision=self.score_precision)
                w = self._warnings(part, P)
            else:
                v, w, n_ret = self._evaluate(part, topics=known, check=False)
                step = max(step, len(known))
                if out is None:
                    out = v
                    filled[[tindex[q] for q in known]] = True
                    head = next(topic_chunks(part, 1))
                has = np.flatnonzero(n_ret > 0)
                found |= len(has) > 0
                out[:, :, has] = v[:, :, has]
                filled[has] = True
            for key, x in w.items():
                if key == "lines" or key in READER_ORDER:  # the caller's, from the reader
                    continue
                if key.startswith("qrels topics missing from run"):
                    xs = set(x)
                    missing = xs if missing is None else missing & xs
                    ev.setdefault(key, None)
                elif isinstance(x, list):
                    ev[key] = list(ev.get(key, [])) + x
                else:
                    ev[key] = ev.get(key, 0) + x
        if not found:
            self._none_in_qrels(source, topics)
        rest = [self.qrels.topics[i] for i in np.flatnonzero(~filled)]
        if rest and self.average == "qrels":
            step = self.chunk_topics or step
            for a in range(0, len(rest), step):
                v, _, _ = self._evaluate(head, topics=rest[a:a + step], check=False)
                idx = [tindex[q] for q in rest[a:a + step]]
                out[:, :, idx] = v[:, :, idx]
        for key in [k for k in ev if k.startswith("qrels topics missing from run")]:
            kept = [q for q in self.qrels.topics if q in (missing or set())]
            if kept:
                ev[key] = kept
            else:
                del ev[key]
        if whole is not None:
            w0: dict[str, object] = dict(whole.warnings)
            if whole.line_counts is not None:
                w0["lines"] = whole.line_counts
        else:
            w0 = {k: warnings[k] for k in READER_ORDER if k in warnings}
            w0.update((k, v) for k, v in warnings.items() if k not in w0)
        order = [WARN_CONTRADICTIONS, WARN_INCREASING, "run topics not in qrels (ignored)",
                 "qrels topics missing from run (scored 0)",
                 "qrels topics missing from run (not averaged)",
                 f"unjudged documents in the top {UNJUDGED_TOP_K}", WARN_TIED]
        w0.update((k, ev[k]) for k in order if k in ev)
        w0.update((k, v) for k, v in ev.items() if k not in w0)
        return out, w0

    def _evaluate_file(self, path, name, on_duplicate: str):
        """A run file larger than :data:`tiebreak.evaluation.chunks.STREAM_BYTES` (or any file when
        ``chunk_topics`` is set) read piece by piece and evaluated chunk by chunk; None when it
        cannot be read that way (the caller reads it whole)."""
        from ..io import InputError
        from ..io.source import GZIP_ERRORS
        from .chunks import Fallback, merge_line_counts, run_blocks, topic_chunks

        counts = []
        warn: dict[str, int] = {}
        names: list[str] = []

        def parts():
            for run in run_blocks(path, name, on_duplicate):
                names.append(run.name)
                counts.append(run.line_counts)
                for k, v in run.warnings.items():
                    if k != WARN_EMPTY_RUN:
                        warn[k] = warn.get(k, 0) + v
                if not len(run):  # comments or blank lines after the last result line
                    continue
                if self.chunk_topics:
                    yield from topic_chunks(run, self.chunk_topics)
                else:
                    yield run

        try:
            gen = parts()
            first = next(gen, None)
            if first is None:  # no result line: the whole read says so
                return None

            def chain():
                yield first
                yield from gen

            # warnings of the pieces are complete only once every piece is read: merge after
            out, w = self._chunked(None, chain(), {})
        except (Fallback, InputError, *GZIP_ERRORS):  # the whole read names any problem
            return None
        reader = {k: warn[k] for k in warn}
        reader["lines"] = merge_line_counts(counts)
        from .chunks import READER_ORDER

        w0 = {k: reader[k] for k in READER_ORDER if k in reader}
        w0.update((k, v) for k, v in reader.items() if k not in w0)
        w0.update((k, v) for k, v in w.items() if k not in w0)
        return names[0], out, w0

    def _warnings(self, run: Run, P: Prepared, te=None, unj: int | None = None) -> dict:
        """The warnings of one evaluated run; ``te``: its trec_eval ranking when built,
        ``unj``: the unjudged documents in its top ranks when counted (the compiled path)."""
        J, O = P.J, P.O
        w: dict[str, object] = dict(run.warnings)
        if run.line_counts is not None:
            w["lines"] = run.line_counts  # a LineCounts, not a warning: see output.py
        hyg = run_hygiene(run)
        contra = int(hyg["contradictions"].sum())
        if contra:
            w[WARN_CONTRADICTIONS] = contra
        inc = int(hyg["increasing"].sum())
        if inc:
            w[WARN_INCREASING] = inc
        w.update(J.format_warnings or {})
        if J.run_topics_missing_in_qrels:
            w["run topics not in qrels (ignored)"] = list(J.run_topics_missing_in_qrels)
        missing = [q for q, n in zip(self.qrels.topics, O.n_ret) if n == 0]
        if missing:
            label = ("qrels topics missing from run (scored 0)"
                     if self.average == "qrels" else
                     "qrels topics missing from run (not averaged)")
            w[label] = missing
        if unj is None:
            if te is None:  # not built by the regimes evaluated: the top ranks are enough
                te = ranking(P, "trec_eval", depth=UNJUDGED_TOP_K)
            top = te.rank <= UNJUDGED_TOP_K
            if P.bogus.any():
                top &= ~P.bogus[te.topic]
            unj = int(np.sum((te.code < 0) & top))
        if unj:
            w[f"unjudged documents in the top {UNJUDGED_TOP_K}"] = unj
        n_tied = len(O.tied)
        if n_tied:
            w[WARN_TIED] = n_tied
        return w

    def _refuse_empty(self, run: Run) -> None:
        """The one rule for empty runs: refused (InputError naming the file) unless
        ``allow_empty``, which scores every topic 0."""
        if not len(run) and not self.allow_empty:
            from ..io.runs import refuse_empty

            refuse_empty(run)

    def _one(self, r, on_duplicate="error", name_by="tag"):
        got = self._read_one(r, on_duplicate, name_by)
        if not isinstance(got, Run):  # a large file, read and evaluated piece by piece
            return (*got, self.notes)
        self._refuse_empty(got)
        v, w = self.evaluate_run(got)
        return got.name, got.source, v, w, self.notes

    def _read_one(self, r, on_duplicate="error", name_by="tag"):
        """The Run of one input; or, for a run file evaluated piece by piece (large, or
        ``chunk_topics`` set), its (name, source, values, warnings)."""
        if isinstance(r, Run):
            from ..io.params import check_finite_scores

            check_finite_scores(r)  # a NaN put into a Run object after reading
            return r
        if isinstance(r, (str, bytes, os.PathLike)) or hasattr(r, "read"):
            name = None
            if name_by == "file" and not hasattr(r, "read") and r != "-":
                name = os.path.basename(os.fsdecode(r))
            from ..io.tables import is_table_path, read_run_table

            if is_table_path(r):
                return read_run_table(r, name=name)
            got = self._stream(r, name, on_duplicate)
            if got is not None:
                return got
            return read_run(r, name=name, on_duplicate=on_duplicate)
        if isinstance(r, dict) or hasattr(r, "columns"):  # {qid: {docno: score}}, DataFrame
            from ..io.inputs import as_run

            return as_run(r)
        raise TypeError("a run must be a tiebreak Run, a path, a binary file, a DataFrame "
                        f"or a {{qid: {{docno: score}}}} dict, not {type(r).__name__}")

    def _prefetched(self, runs, on_duplicate, name_by):
        """Evaluate ``runs`` (small run files) in order while a second thread reads the next
        one: decompression (zlib, ISA-L) and the compiled reader release the GIL, so on a
        second core reading overlaps evaluation. Results, their order and errors are those of
        reading and evaluating one file after the other."""
        from concurrent.futures import ThreadPoolExecutor

        def read(r):
            name = os.path.basename(os.fsdecode(r)) if name_by == "file" else None
            return read_run(r, name=name, on_duplicate=on_duplicate)

        with ThreadPoolExecutor(1, thread_name_prefix="tiebreak-read") as pool:
            nxt = pool.submit(read, runs[0])
            for i in range(len(runs)):
                run = nxt.result()
                if i + 1 < len(runs):
                    nxt = pool.submit(read, runs[i + 1])
                self._refuse_empty(run)
                v, w = self.evaluate_run(run)
                yield run.name, run.source, v, w, self.notes

    def _can_prefetch(self, runs) -> bool:
        """Read ahead in a thread: several plain run files (no tables, none large enough to be
        read piece by piece), no ``chunk_topics``, and a second core to run the thread on."""
        if len(runs) < 2 or self.chunk_topics or not hasattr(os, "sched_getaffinity"):
            return False
        if len(os.sched_getaffinity(0)) < 2:
            return False
        from ..io.tables import is_table_path
        from .chunks import STREAM_BYTES

        try:
            return all(isinstance(r, (str, os.PathLike)) and os.fspath(r) != "-"
                       and not is_table_path(r) and os.path.getsize(r) < STREAM_BYTES
                       for r in runs)
        except OSError:
            return False

    def _stream(self, r, name, on_duplicate):
        """(name, source, values, warnings) of a run file evaluated piece by piece, when it is
        large or ``chunk_topics`` is set; None otherwise or when it cannot be (read it whole)."""
        if hasattr(r, "read") or isinstance(r, bytes) or os.fspath(r) == "-":
            return None
        from .chunks import STREAM_BYTES

        path = os.fspath(r)
        try:
            big = os.path.getsize(path) >= STREAM_BYTES
        except OSError:
            return None
        if not (big or self.chunk_topics) or self.score_format.scope == "global":
            return None  # a scale over the whole run needs the whole run
        got = self._evaluate_file(path, name, on_duplicate)
        if got is None:
            return None
        name, v, w = got
        return name, path, v, w

    def _iter(self, runs, jobs: int, on_duplicate: str, name_by: str = "tag", client=None):
        from .._native.parallel import imap
        runs = list(runs)

        if client is not None:  # the evaluator (qrels included) goes to every worker once
            yield from imap(_work, list(runs), 1, (self, on_duplicate, name_by), client=client)
            return
        if jobs > 1 and len(runs) > 1 and all(isinstance(r, (str, os.PathLike)) for r in runs):
            yield from imap(_work, runs, jobs, (self, on_duplicate, name_by))
            return
        if self._can_prefetch(runs):
            yield from self._prefetched(runs, on_duplicate, name_by)
            return
        for r in runs:
            yield self._one(r, on_duplicate, name_by)

    def evaluate(self, runs, progress=None, jobs: int = 1,
                 on_duplicate: str = "error", name_by: str = "tag",
                 client=None) -> EvalResult:
        """Evaluate runs.

        Parameters
        ----------
        runs : iterable of Run, paths, DataFrames or ``{qid: {docno: score}}`` dicts
            Paths are read with :func:`tiebreak.read_run`, the rest converted with
            :func:`tiebreak.io.inputs.as_run`.
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
        client : dask.distributed.Client, optional
            Evaluate on a Dask cluster instead (``pip install 'tiebreak[dask]'``): run files
            are read where the workers are (paths must be visible to them), the qrels are sent
            once; results are identical to local evaluation.

        Raises
        ------
        ValueError
            Unknown ``name_by``.
        """
        if name_by not in ("tag", "file"):
            raise ValueError("name_by must be 'tag' or 'file'")
        if isinstance(runs, (str, Run, dict)) or not hasattr(runs, "__iter__") or hasattr(
                runs, "columns"):  # one run: a path, Run, dict or DataFrame
            runs = [runs]
        names: list[str] = []
        vals = []
        warnings: dict[str, dict] = {}
        for name, source, v, w, notes in self._iter(runs, jobs, on_duplicate, name_by, client):
            for n in notes:
                _add_note(self.notes, n)
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
        mean = np.zeros(per.shape[:3])
        bo = self._byte_order
        complete = self.average == "qrels"
        pb = per[..., bo]
        whole = ~np.isnan(pb).any(axis=-1)  # (run, measure, regime) without a NaN topic
        if pb.shape[-1]:
            # a mean of a NaN-free row is its sum, added topic after topic in trec_eval's
            # order (a cumulative sum along the last axis is that loop), divided by T
            sums = np.cumsum(pb, axis=-1)[..., -1]
        for j, m in enumerate(self.measures):
            slow = np.ones(whole[:, j].shape, bool)
            if pb.shape[-1] and (m.agg in ("mean", "sum") or (m.agg == "num_rel"
                                                                and not complete)):
                w = whole[:, j]
                mean[:, j][w] = sums[:, j][w] / pb.shape[-1] if m.agg == "mean" else \
                    sums[:, j][w]
                slow = ~w
            for i, k in zip(*np.nonzero(slow)):
                v = pb[i, j, k]
                v = v[~np.isnan(v)]
                mean[i, j, k] = summarize(m, v, qrels=self.qrels, complete=complete)
        return EvalResult(names, [str(m) for m in self.measures], list(self.regimes),
                          list(self.qrels.topics), per, mean, warnings, list(self.notes))



_SE = "; largest standard error "


def _add_note(notes: list[str], note: str) -> None:
    """Add ``note`` once: a sampling note repeated by every chunk of topics or run (the same
    sentence with another standard error) stays one note with the largest standard error."""
    if note in notes:
        return
    head, sep, se = note.partition(_SE)
    if sep:
        for i, n in enumerate(notes):
            h, s2, se2 = n.partition(_SE)
            if s2 and h == head:
                try:
                    if float(se) > float(se2):
                        notes[i] = note
                except ValueError:
                    notes[i] = note
                return
    notes.append(note)


def _work(shared, path):
    ev, on_duplicate, name_by = shared
    return ev._one(path, on_duplicate, name_by)


def evaluate(qrels: Qrels, runs, measures=None, regimes=None, *, client=None, jobs: int = 1,
             **kw) -> EvalResult:
    """One-call form of :class:`Evaluator`: ``evaluate(qrels, [run, ...], ["AP"], "all")``;
    ``client`` (a dask.distributed Client) evaluates on a Dask cluster."""
    if isinstance(runs, (Run, dict)) or hasattr(runs, "columns"):  # one run, DataFrame, dict
        runs = [runs]
    return Evaluator(qrels, measures, regimes, **kw).evaluate(runs, jobs=jobs, client=client)


def dask_client(address: str):
    """:func:`tiebreak._native.parallel.dask_client` (kept here for the API's existing callers)."""
    from .._native.parallel import dask_client as make

    return make(address)
