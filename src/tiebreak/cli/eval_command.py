"""``tiebreak eval``: the command's body (:func:`run`) and its options (:data:`OPTIONS`), without
click.

The options are declared once, in :data:`OPTIONS`; the click command
:func:`tiebreak.cli.app.eval_cmd` is built from that table and calls :func:`run`; a console
process (:mod:`tiebreak.__main__`) parses the common form with the parser built from the same
table (:func:`parse_args`) -- ``tiebreak eval QRELS RUN... [-m M]... [--format F] ...``, every
option in its plain spellings -- and calls the same :func:`run` through the one error path
(:func:`tiebreak._native.process.run_standalone`), so a one-run ``tiebreak eval`` does not import
click and its command table (about 10 ms of a 0.15 s process; scripts call it once per run).
Anything else (``--help``, a misspelt option, a value click would refuse, a clustered short option)
returns None from :func:`parse_args` and goes through click, which prints its own message.
"""

from __future__ import annotations

import sys

from .options import REGIME_HELP, Option, defaults, parse

__all__ = ["OPTIONS", "parse_args", "run"]

# Choices of the options with a fixed set of values.
CONVENTIONS = ("trec_eval", "ir_measures", "ranx", "ntcireval", "trectools", "sklearn", "spark",
               "elasticsearch", "cwl", "sample_eval")
FORMATS = ("table", "tsv", "json")
NAME_BY = ("tag", "file")
SCORE_PRECISIONS = ("float64", "float32")  # and every score format (tiebreak.ranking.formats)
AVERAGES = ("qrels", "run-topics")
ON_DUPLICATE = ("error", "first")

_ALL = [
    Option("measures", ("-m", "--measure"), "many", metavar="MEASURE",
           help="Measure, repeatable: AP, nDCG@10, P@10, RR, R@1000, 'RBP(p=0.8)', bpref, "
                "ERR@20, Success@10, Judged@10, 'AP(rel=2)', or trec_eval names map, P_5, "
                "ndcg_cut_10, recip_rank ... Default: AP nDCG@10 P@10 RR R@1000 "
                "RBP(p=0.8) bpref."),
    Option("regimes", ("--regime",), "many", metavar="REGIME", help=REGIME_HELP),
    Option("convention", ("--convention",), "choice", choices=CONVENTIONS, metavar="PEER",
           help="Read every -m name as PEER spells it, with PEER's parameters and defaults."),
    Option("ntcir_gains", ("-g",), "str", metavar="G1:G2:...",
           help="--convention ntcireval: NTCIREVAL's gain of each relevance level L1, L2, ..."),
    Option("per_topic", ("-q", "--per-topic"), "flag", help="Also print one row per topic."),
    Option("fmt", ("--format",), "choice", "table", choices=FORMATS, show_default=True,
           help="table: readable grid; tsv: run measure regime qid value (full precision); "
                "json: records."),
    Option("header", ("--header",), "flag", help="tsv: a first row naming the columns."),
    Option("wide", ("--wide",), "flag",
           help="Runs x measures: one row per run, one column per measure (and regime); tsv "
                "adds a header row."),
    Option("sort_by", ("--sort",), "str", metavar="MEASURE",
           help="--wide: order the runs by this measure, best first."),
    Option("name_by", ("--name-by",), "choice", "tag", choices=NAME_BY, show_default=True,
           help="Name runs by their run tag (column 6), or by their file name."),
    Option("quiet", ("--quiet",), "flag",
           help="Do not print input warnings (they go to stderr) or a progress bar."),
    Option("verbose", ("--verbose",), "flag",
           help="Print every run's input warnings (by default, with more than 3 runs, one line "
                "per kind of warning with a count)."),
    Option("score_precision", ("--score-precision",), "str", "float64", metavar="FORMAT",
           show_default=True,
           help="Round scores as a number format stores them before evaluating: float64, "
                "float32 (emulates trec_eval <= 9.0.8 and pytrec_eval), float16, bfloat16, "
                "int8 (min-max scale per topic), int8-global, bits:K (K mantissa bits), "
                "decimals:D (as %.Df prints them)."),
    Option("average", ("--average",), "choice", "qrels", choices=AVERAGES, show_default=True,
           help="qrels: every qrels topic, missing ones score 0 (trec_eval -c); run-topics: "
                "only topics the run has."),
    Option("on_duplicate", ("--on-duplicate",), "choice", "error", choices=ON_DUPLICATE,
           show_default=True, help="A docno twice in one topic: stop, or keep the first line."),
    Option("jobs", ("-j", "--jobs"), "int", 0, lo=0, show_default="all cores",
           help="Processes that read and evaluate run files in parallel (0 = all cores)."),
    Option("samples", ("--samples",), "int", 1000, lo=1, show_default=True,
           help="Random orderings per tied group for 'expected' values without a closed form "
                "(a note on stderr gives the largest standard error)."),
    Option("seed", ("--seed",), "int", 0, lo=0, show_default=True,
           help="Seed of that sampling."),
    Option("chunk_topics", ("--chunk-topics",), "str", metavar="K",
           help="Evaluate each run K topics at a time: memory bounded by K topics, not by the "
                "run (every value identical). Runs of 16 MiB or more are read and evaluated "
                "piece by piece without it."),
    Option("dask_address", ("--dask",), "str", metavar="ADDRESS",
           help="Evaluate on a Dask cluster: tcp://scheduler:8786, or 'local' for a "
                "LocalCluster (needs pip install 'tiebreak[dask]')."),
    Option("line_counts", ("--line-counts",), "flag",
           help="List in the warnings what became of every input line (read, comment, blank, "
                "evaluated, dropped); JSON output always has them."),
    Option("allow_empty", ("--allow-empty-runs",), "flag",
           help="Score a run without result lines 0 on every topic (default: refuse it, exit "
                "2)."),
    Option("write_expected", ("--write-expected",), "str", metavar="FILE",
           help="Also write FILE, the expected values (trec_eval regime, tie range "
                "[realistic, optimistic]) that 'tiebreak verify FILE' checks."),
    Option("define", ("--define",), "many", metavar="FILE.py|MODULE",
           help="Run this Python file (or import this module) first: the measures it defines "
                "with tiebreak.define_measure can then be named with -m."),
]
#: Every option of ``tiebreak eval`` (parameter name -> :class:`~tiebreak.cli.options.Option`):
#: the one definition from which the click command (:func:`tiebreak.cli.app.eval_cmd`) and the
#: click-free parser (:func:`parse_args`) are built, and the defaults of :func:`run`.
OPTIONS: dict[str, Option] = {o.param: o for o in _ALL}
DEFAULTS = defaults(OPTIONS)


def parse_args(args: list[str]) -> dict | None:
    """The keyword arguments of :func:`run` for ``tiebreak eval ARGS``, exactly as the click
    command would pass them (the options not given left out: :func:`run` fills in their
    defaults); None for anything click would answer itself (help, a usage error, a refused
    value) or that the parser does not take (clustered short options): run those through
    click (:func:`tiebreak.cli.options.parse`)."""
    got = parse(OPTIONS, args)
    if got is None or len(got[1]) < 2:
        return None
    kw, files = got
    kw["qrels"], kw["runs"] = files[0], tuple(files[1:])
    return kw


def _fail(msg: str) -> None:
    from .._native.process import echo_err

    echo_err(f"tiebreak: error: {msg}")
    sys.exit(2)


def _chunk_topics(text) -> int | None:
    """The value of ``--chunk-topics``: a whole number >= 1 (as ``int()`` reads it), else a
    one-line error and exit status 2 (the same through click and without it)."""
    if text is None:
        return None
    try:
        k = int(text)
    except ValueError:
        k = 0
    if k < 1:
        _fail(f"--chunk-topics needs a whole number of topics >= 1, not {text!r}")
    return k


def _load_definitions(source: str) -> None:
    """Run a Python file (``*.py``) or import a module that calls
    :func:`tiebreak.define_measure` (``--define``); an error exits with status 2."""
    import importlib
    import runpy

    try:
        if source.endswith(".py"):
            runpy.run_path(source)
        else:
            importlib.import_module(source)
    except SystemExit:
        raise
    except BaseException as e:  # the user's code: any error becomes the one-line message
        _fail(f"--define {source}: {type(e).__name__}: {e}")


def imports() -> None:
    """Import what :func:`run` needs (numpy, the readers, the measures, the evaluator)."""
    from ..evaluation import evaluator as evaluate  # noqa: F401
    from ..io import discover  # noqa: F401


def run(qrels, runs, **options) -> None:
    """Evaluate ``runs`` (paths, '-', directories) against ``qrels`` and print the results:
    the body of ``tiebreak eval``. ``options``: keyword arguments named as the parameters of
    :data:`OPTIONS` (see ``tiebreak eval --help``), each defaulting to its entry there;
    ``chunk_topics`` is the text of ``--chunk-topics`` (a positive whole number of topics) or
    None; ``write_expected`` a path for :func:`tiebreak.studies.verify.write_expected`. Bad
    input: a one-line message on stderr and ``SystemExit(2)``; input warnings and notes on
    stderr. Raises TypeError for an option that :data:`OPTIONS` does not have."""
    unknown = sorted(set(options) - set(DEFAULTS))
    if unknown:
        raise TypeError(f"run() got unexpected options: {', '.join(unknown)}")
    o = {**DEFAULTS, **options}
    (measures, regimes, convention, ntcir_gains, per_topic, fmt, header, wide, sort_by, name_by,
     quiet, verbose, score_precision, average, on_duplicate, jobs, samples, seed, chunk_topics,
     dask_address, line_counts, write_expected, allow_empty, define) = (o[k] for k in (
        "measures", "regimes", "convention", "ntcir_gains", "per_topic", "fmt", "header", "wide",
        "sort_by", "name_by", "quiet", "verbose", "score_precision", "average", "on_duplicate",
        "jobs", "samples", "seed", "chunk_topics", "dask_address", "line_counts",
        "write_expected", "allow_empty", "define"))
    from .._native.process import echo_err

    k = _chunk_topics(chunk_topics)
    for d in define:
        _load_definitions(d)
    from .._native.process import imports as paused_gc

    if score_precision not in SCORE_PRECISIONS:
        from ..ranking.formats import parse_format

        try:
            score_precision = str(parse_format(score_precision, "--score-precision"))
        except ValueError as e:
            _fail(str(e))

    with paused_gc():  # numpy, the readers, the measures: about 3 ms less of a one-run eval
        from ..evaluation import Evaluator
        from ..evaluation.output import (
            format_warnings,
            summarise_warnings,
            write_json,
            write_table,
            write_tsv,
        )
        from ..io import InputError
        from ..io.discover import find_runs
        from ..measures import MeasureError

    try:
        paths, skipped = find_runs(runs)
        for p, why in skipped:
            echo_err(f"tiebreak: note: skipped {p}: not a run ({why})")
        if qrels == "-" and "-" in paths:
            _fail("qrels and run cannot both come from standard input")
        # the Evaluator reads the qrels: with a diversity measure, their second column is the
        # subtopic
        conv = None
        if convention:
            from ..measures.conventions import convention as _conv

            conv = _conv(convention, **({"g": ntcir_gains} if ntcir_gains else {}))
        elif ntcir_gains:
            _fail("-g is NTCIREVAL's gain table: use it with --convention ntcireval")
        ev = Evaluator(qrels, list(measures) or None, list(regimes) or None,
                       score_precision=score_precision, average=average, samples=samples,
                       seed=seed, convention=conv, chunk_topics=k, allow_empty=allow_empty)
        q = ev.qrels
    except (InputError, MeasureError, ValueError, TypeError) as e:
        _fail(str(e))

    if len(paths) < 4:
        jobs = 1
    elif jobs <= 0:
        from .._native.parallel import cpus

        jobs = cpus()
    kw = dict(jobs=jobs, on_duplicate=on_duplicate, name_by=name_by)
    if dask_address:
        from .common import open_client

        kw["client"] = open_client(dask_address)
    try:
        if len(paths) > 3 and sys.stderr.isatty() and not quiet:
            from tqdm import tqdm

            with tqdm(total=len(paths), desc="evaluating runs", file=sys.stderr,
                      leave=False) as bar:
                res = ev.evaluate(paths, progress=lambda r: bar.update(1), **kw)
        else:
            res = ev.evaluate(paths, **kw)
    except (InputError, MeasureError) as e:
        _fail(str(e))

    if write_expected:
        from ..studies.verify import write_expected as _write_expected

        if qrels == "-" or "-" in paths:
            _fail("--write-expected needs qrels and runs from files")
        try:
            n = _write_expected(res, paths, qrels, write_expected)
        except (ValueError, ImportError) as e:
            _fail(str(e))
        echo_err(f"tiebreak: wrote {n} expected values to {write_expected}")
    out = sys.stdout
    warn_lines = format_warnings(res, lines=True) if line_counts else \
        summarise_warnings(res, verbose)
    qw = [f"{k}: {v}" for k, v in q.warnings.items()]
    if line_counts and q.line_counts is not None:
        qw.append(f"lines: {q.line_counts.summary()}")
    elif q.line_counts is not None and q.line_counts.comment:
        qw.append(f"lines skipped: {q.line_counts.comment} comment")
    if qw:
        warn_lines.insert(0, f"qrels {q.name}: " + "; ".join(qw))
    if sort_by and not wide:
        _fail("--sort needs --wide")
    if wide and fmt != "json":
        from ..evaluation.output import write_wide

        try:
            write_wide(res, out, sort_by, fmt)
        except KeyError as e:
            _fail(e.args[0])
    elif fmt == "tsv":
        write_tsv(res, out, per_topic, header)
    elif fmt == "json":
        meta = {"qrels": q.name, "score_precision": score_precision, "average": average,
                "topics": len(q.topics)}
        write_json(res, out, per_topic, meta, q.line_counts)
    else:
        write_table(res, out, per_topic)
        from ..evaluation.output import legend

        for line in legend(res):
            out.write(f"\n{line}")
        if legend(res):
            out.write("\n")
    out.flush()
    for note in res.notes:
        echo_err(f"tiebreak: note: {note}")
    if not quiet:
        for line in warn_lines:
            echo_err(f"tiebreak: warning: {line}")
