"""``tiebreak trec_eval``: argv -> exit status. trec_eval's options become registered
measures (:mod:`.evaluate`), evaluated by the shared core, printed as trec_eval prints
(:mod:`.render`).

Deliberate differences from trec_eval 10.0, each documented in ``docs/trec_eval.md``: a qrels
topic with no results, without ``-c``, is skipped with a warning (``--strict``: an error); a
score or relevance that is not a number stops with ``file:line`` (a line trec_eval itself calls
malformed gets trec_eval's message and status); ``rbp`` uses the defined per-topic gain range;
``--regime`` evaluates under another tie regime; several results files may follow the qrels.
"""

from __future__ import annotations

import io
import sys

from ..io import InputError, read_qrels, read_run
from ..measures.trec_names import BY_NAME, TREC_NAMES, TrecEvalError
from .evaluate import check_formats, prefs_values, requested, topic_values
from .options import USAGE, parse_args
from .render import render

VERSION = "10.0 (tiebreak trec_eval)"


def _first_malformed(path, kind: str) -> int | None:
    """trec_eval 10.0's record number of the first malformed line of a results (``kind``
    "results") or qrels file, or None: what ``get_trec_results.c`` / ``get_qrels.c`` count and
    refuse. Results: lines blank or starting with ``#`` (after blanks) are skipped and not
    counted; a line with fewer than 6 fields is malformed. Qrels: only lines starting with
    ``#`` are skipped; a line without exactly 4 fields (a blank line too) is malformed."""
    from ..io.source import open_bytes

    if path == "-":
        return None
    data, _ = open_bytes(path)
    k = 0
    for line in data.split(b"\n")[:-1] if data.endswith(b"\n") else data.split(b"\n"):
        f = line.split()
        if kind == "results":
            if not f or f[0][:1] == b"#":
                continue
            k += 1
            if len(f) < 6:
                return k
        else:
            if line[:1] == b"#":
                continue
            k += 1
            if len(f) != 4:
                return k
    return None


def _malformed(path, kind: str) -> TrecEvalError | None:
    """trec_eval's own error (text and exit status 2) for a malformed line of ``path``."""
    k = _first_malformed(path, kind)
    if k is None:
        return None
    what = "get_results" if kind == "results" else "get_qrels"
    return TrecEvalError(f"trec_eval.{what}: Malformed line {k}\ntrec_eval: Quit in file "
                         f"'{path}'", 2)


def _cannot_read(path, kind: str) -> TrecEvalError | None:
    """trec_eval's error for an empty (0-byte) or unreadable file."""
    import os

    if path == "-":
        return None
    try:
        if os.path.getsize(path) > 0:
            return None
    except OSError:
        pass
    what = "get_results: Cannot read results" if kind == "results" else \
        "get_qrels: Cannot read qrels"
    return TrecEvalError(f"trec_eval.{what} file '{path}'\ntrec_eval: Quit in file '{path}'", 2)


def read_like_trec_eval(path, kind: str):
    """Read a results (``kind="results"``) or qrels file; where trec_eval 10.0 would stop (a
    line with too few fields, a 5-field results line beside 6-field ones, a blank qrels line,
    an empty file) raise its :class:`TrecEvalError` (same text, exit status 2) instead of
    tiebreak's own reading."""
    from ..io.qrels import WARN_BLANK
    from ..io.runs import WARN_NO_TAG

    read, warn = (read_run, WARN_NO_TAG) if kind == "results" else (read_qrels, WARN_BLANK)
    try:
        obj = read(path)
    except InputError:
        e = _cannot_read(path, kind) or _malformed(path, kind)
        if e is not None:
            raise e from None
        raise
    if warn in (obj.warnings or {}):
        e = _malformed(path, kind)
        if e is not None:
            raise e
    return obj


def evaluate_file(rel_path, run_path, opts, reqs, qrels=None, zs=None, err=sys.stderr) -> str:
    """Evaluate one results file; returns trec_eval's output text."""
    run = read_like_trec_eval(run_path, "results")
    if len(run.topic) == 0:
        raise _cannot_read(run_path, "results") or TrecEvalError(
            f"trec_eval.get_results: Cannot read results file '{run_path}'\n"
            f"trec_eval: Quit in file '{run_path}'", 2)
    _warn(run, err)
    runid = run.tags[0] if getattr(run, "tags", None) else run.name
    if opts.rel_format in ("prefs", "qrels_prefs"):
        tv = prefs_values(rel_path, run, opts, reqs, err)
    else:
        tv = topic_values(rel_path, run, opts, reqs, qrels, err)
    return render(reqs, tv, opts, runid, zs, qrels)


HELP = """tiebreak trec_eval: a drop-in replacement for trec_eval 10.0 (same options, same output)

trec_eval [-h] [-q] [-m measure[.params]] [-c] [-n] [-l <num>] [-D debug_level]
   [-N <num>] [-M <num>] [-R rel_format] [-T results_format] [-Z zscores_file]
   rel_info_file results_file [results_file ...]

 -q   per-topic values as well as the summary ('all')
 -m   measure or measure set to print (repeatable): official (default), all_trec, set,
      all_prefs, prefs, qrels_jg, or a measure name with optional parameters after a '.',
      e.g. P.5,10  ndcg_cut.10  ndcg.1=3,2=9  iprec_at_recall..1,.5  utility.2,-1,0,0
 -c   average over every qrels topic; topics without results score 0
 -n   no summary
 -l N relevance level: a document is relevant when its qrels value >= N (default 1)
 -N N number of documents in the collection (utility)
 -M N evaluate only the top N documents of each topic (after sorting)
 -J   evaluate judged documents only (not recommended)
 -R F rel_info format: qrels (default), prefs, qrels_prefs, qrels_jg
 -T F results format: trec_results
 -Z F print z-scores against the 'qid measure mean stddev' lines of F
 -D N[.qid]  debug level (only the qid part is used: evaluate that topic only)
 -v   version    -h  this help
 '-' as a file name reads standard input.

tiebreak additions:
 --regime R           tie regime: trec_eval (default: score desc, docno desc), file,
                      realistic, optimistic (relevant last / first inside ties), lower, upper
                      (YMT 2016 bounds: upper counts unjudged documents as relevant for
                      measures that only grow with a gain), expected (exact mean over all
                      orderings of tied documents; sampled, with a note on stderr, for
                      measures without a closed form)
 --score-precision P  float64 (trec_eval 10), float32 (trec_eval <= 9.0.8, pytrec_eval),
                      float16, bfloat16, int8 (min-max per topic), int8-global, bits:K
                      (K mantissa bits), decimals:D (as %.Df prints them)
 --strict             a qrels topic without results is an error (default: skipped, warned)
 --samples N, --seed S  sampling for --regime expected (default 1000, 0)
 --jobs N             worker processes when several results files are given (0 = all CPUs,
                      the default)

Measures (trec_eval 10.0 order; the same names work in tiebreak eval -m):
"""


def _help_text() -> str:
    return HELP + "".join(f"  {t.name:<24}{t.doc}\n" for t in TREC_NAMES)


def _warn(obj, err) -> None:
    """Input warnings of a qrels or run (counted by the readers) on stderr, never stdout."""
    src = getattr(obj, "source", None) or getattr(obj, "name", "")
    for what, n in (getattr(obj, "warnings", None) or {}).items():
        print(f"tiebreak trec_eval: warning: {src}: {what}: {n}", file=err)


def _work(shared, path):
    rel, opts, reqs, qrels, zs = shared
    e = io.StringIO()
    try:
        return evaluate_file(rel, path, opts, reqs, qrels, zs, e), e.getvalue()
    except (TrecEvalError, InputError) as ex:
        return ex, e.getvalue()


def main(argv: list[str], out=None, err=None) -> int:
    """Run trec_eval on ``argv`` (without the program name); returns the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        opts = parse_args(argv)
        if opts.help:
            out.write(_help_text())
            return 0
        if opts.version:
            err.write(f"trec_eval version {VERSION}\n")
            return 0
        if len(opts.files) < 2:
            err.write(USAGE)
            return 1
        reqs = requested(opts)
        check_formats(opts, reqs)
        zs = None
        if opts.zscore_file:
            from ..io import read_zscores

            zs = read_zscores(opts.zscore_file)
        rel = opts.files[0]
        qrels = read_like_trec_eval(rel, "qrels") if opts.rel_format == "qrels" else None
        if qrels is not None:
            _warn(qrels, err)
        runs = opts.files[1:]
        if opts.jobs:
            jobs = opts.jobs
        elif len(runs) > 1:
            from .._native.parallel import cpus

            jobs = min(len(runs), cpus())
        else:
            jobs = 1
        if jobs > 1 and len(runs) > 1 and "-" not in runs:
            from .._native.parallel import imap

            for text, msgs in imap(_work, runs, jobs, (rel, opts, reqs, qrels, zs)):
                err.write(msgs)
                if isinstance(text, Exception):
                    raise text
                out.write(text)
        else:
            for path in runs:
                out.write(evaluate_file(rel, path, opts, reqs, qrels, zs, err))
        return 0
    except TrecEvalError as e:
        err.write(str(e).rstrip("\n") + "\n")
        return e.status
    except InputError as e:
        err.write(f"trec_eval: {e}\n")
        return 2


def _command():
    """The click command (``tiebreak trec_eval`` inside the click group: tests, ``main([...])``
    in Python); built on first use, so that the process start (:func:`run_process`) does not
    import click."""
    import click

    @click.command(
        "trec_eval",
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                          "help_option_names": []},
        add_help_option=False,
    )
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def trec_eval_cmd(args) -> None:
        """Drop-in trec_eval 10.0 (same options and output), plus --regime for tie regimes.

        Run `tiebreak trec_eval -h` for the options."""
        sys.exit(main(list(args)))

    return trec_eval_cmd


_COMMAND: list = []


def __getattr__(name: str):
    if name == "trec_eval_cmd":
        if not _COMMAND:
            _COMMAND.append(_command())
        return _COMMAND[0]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run_process(args: list[str]) -> None:
    """``tiebreak trec_eval ARGS`` as a command-line process, without click (started by
    :func:`tiebreak.__main__.main`): what click's group does with these arguments, which it
    passes through unprocessed -- the first ``--`` removed -- then click's standalone handling
    of an interruption and a closed pipe, the one error path of every command and its early
    exit (:func:`tiebreak._native.process.run_standalone`). Never returns."""
    from .._native.process import run_standalone

    if "--" in args:  # click's parser takes the first '--' as the end of options
        i = args.index("--")
        args = args[:i] + args[i + 1:]
    run_standalone(lambda: sys.exit(main(args)))


__all__ = ["main", "evaluate_file", "run_process", "BY_NAME"]  # and trec_eval_cmd (lazy)
