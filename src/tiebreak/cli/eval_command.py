"""``tiebreak eval``: the command's body (:func:`run`) and its options (:data:`OPTIONS`), without
click.

The click command :func:`tiebreak.cli.eval_cmd` parses the options and calls :func:`run`; a
console process (:mod:`tiebreak.__main__`) parses the common form itself with
:func:`parse_args` -- ``tiebreak eval QRELS RUN... [-m M]... [--format F] ...``, every option of
the command in its plain spellings -- and calls the same :func:`run` through the one error path
(:func:`tiebreak._native.process.run_standalone`), so a one-run ``tiebreak eval`` does not import
click
and its command table (about 10 ms of a 0.15 s process; scripts call it once per run). Anything
else (``--help``, a misspelt option, a value click would refuse, a clustered short option)
returns None from :func:`parse_args` and goes through click, which prints its own message.
"""

from __future__ import annotations

import sys

__all__ = ["OPTIONS", "parse_args", "run"]

# Choices of the options with a fixed set of values (click.Choice in tiebreak.cli).
CONVENTIONS = ("trec_eval", "ir_measures", "ranx", "ntcireval", "trectools", "sklearn", "spark",
               "elasticsearch", "cwl", "sample_eval")
FORMATS = ("table", "tsv", "json")
NAME_BY = ("tag", "file")
SCORE_PRECISIONS = ("float64", "float32")
AVERAGES = ("qrels", "run-topics")
ON_DUPLICATE = ("error", "first")

# Every option of ``tiebreak eval``: parameter name -> (option strings, kind, detail). Kinds:
# "flag"; "str"; "many" (repeatable, a tuple); "choice" (detail: the choices); "int" (detail:
# the smallest value allowed, or None). The defaults are those of :func:`run`; a test checks
# this table and those defaults against the click command's parameters.
OPTIONS: dict[str, tuple[tuple[str, ...], str, object]] = {
    "measures": (("-m", "--measure"), "many", None),
    "regimes": (("--regime",), "many", None),
    "convention": (("--convention",), "choice", CONVENTIONS),
    "ntcir_gains": (("-g",), "str", None),
    "per_topic": (("-q", "--per-topic"), "flag", None),
    "fmt": (("--format",), "choice", FORMATS),
    "header": (("--header",), "flag", None),
    "wide": (("--wide",), "flag", None),
    "sort_by": (("--sort",), "str", None),
    "name_by": (("--name-by",), "choice", NAME_BY),
    "quiet": (("--quiet",), "flag", None),
    "verbose": (("--verbose",), "flag", None),
    "score_precision": (("--score-precision",), "choice", SCORE_PRECISIONS),
    "average": (("--average",), "choice", AVERAGES),
    "on_duplicate": (("--on-duplicate",), "choice", ON_DUPLICATE),
    "jobs": (("-j", "--jobs"), "int", 0),
    "samples": (("--samples",), "int", 1),
    "seed": (("--seed",), "int", None),
    "dask_address": (("--dask",), "str", None),
    "chunk_topics": (("--chunk-topics",), "str", None),
    "line_counts": (("--line-counts",), "flag", None),
}


def _option_table() -> dict[str, tuple[str, str, object]]:
    return {o: (name, kind, detail) for name, (opts, kind, detail) in OPTIONS.items()
            for o in opts}


def _readable_or_absent(path: str) -> bool:
    """What click.Path(allow_dash=True) accepts without a message: '-', a path that does not
    exist (the reader names it), or one that exists and is readable."""
    import os

    if path == "-":
        return True
    try:
        os.stat(path)
    except (OSError, ValueError):
        return True  # click passes it on (ValueError: a NUL byte, which click lets through)
    return os.access(path, os.R_OK)


def parse_args(args: list[str]) -> dict | None:
    """The keyword arguments of :func:`run` for ``tiebreak eval ARGS``, exactly as the click
    command would pass them; None for anything it would answer itself (help, a usage error, a
    refused value) or that this parser does not take (clustered short options): run those
    through click. Accepted: ``--opt VALUE``, ``--opt=VALUE``, ``-m VALUE``, ``-mVALUE``,
    flags, '-' as a file, options anywhere among the files, ``--`` ending the options."""
    table = _option_table()
    kw: dict = {}
    files: list[str] = []
    i, n = 0, len(args)
    while i < n:
        a = args[i]
        i += 1
        if a == "--":
            files.extend(args[i:])
            break
        if a[:1] != "-" or a == "-":
            files.append(a)
            continue
        value = None
        if a.startswith("--"):
            name, eq, attached = a.partition("=")
            if eq:
                value = attached
        elif len(a) > 2:  # -mVALUE (and clustered flags, which go to click)
            name, value = a[:2], a[2:]
        else:
            name = a
        spec = table.get(name)
        if spec is None:
            return None
        param, kind, detail = spec
        if kind == "flag":
            if value is not None:
                return None
            kw[param] = True
            continue
        if value is None:
            if i >= n:
                return None
            value = args[i]
            i += 1
        if kind == "many":
            kw[param] = kw.get(param, ()) + (value,)
        elif kind == "choice":
            if value not in detail:
                return None
            kw[param] = value
        elif kind == "int":
            try:
                v = int(value)
            except ValueError:
                return None
            if detail is not None and v < detail:
                return None
            kw[param] = v
        else:
            kw[param] = value
    if len(files) < 2 or not all(_readable_or_absent(f) for f in files):
        return None
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


def imports() -> None:
    """Import what :func:`run` needs (numpy, the readers, the measures, the evaluator)."""
    from ..evaluation import evaluator as evaluate  # noqa: F401
    from ..io import discover  # noqa: F401


def run(qrels, runs, measures=(), regimes=(), convention=None, ntcir_gains=None,
        per_topic=False, fmt="table", header=False, wide=False, sort_by=None, name_by="tag",
        quiet=False, verbose=False, score_precision="float64", average="qrels",
        on_duplicate="error", jobs=0, samples=1000, seed=0, dask_address=None,
        line_counts=False, chunk_topics=None) -> None:
    """Evaluate ``runs`` (paths, '-', directories) against ``qrels`` and print the results:
    the body of ``tiebreak eval`` (see its ``--help`` for every option). Bad input: a one-line
    message on stderr and ``SystemExit(2)``; input warnings and notes on stderr.
    ``chunk_topics``: the text of ``--chunk-topics`` (a positive whole number of topics) or
    None."""
    from .._native.process import echo_err

    k = _chunk_topics(chunk_topics)
    from .._native.process import imports as paused_gc

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
                       seed=seed, convention=conv, chunk_topics=k)
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
        if len(paths) > 3 and sys.stderr.isatty():
            from tqdm import tqdm

            with tqdm(total=len(paths), desc="evaluating runs", file=sys.stderr,
                      leave=False) as bar:
                res = ev.evaluate(paths, progress=lambda r: bar.update(1), **kw)
        else:
            res = ev.evaluate(paths, **kw)
    except (InputError, MeasureError) as e:
        _fail(str(e))

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
