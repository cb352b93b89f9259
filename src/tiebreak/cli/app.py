"""The click group of ``tiebreak`` and its lazy command table, with the commands that live here:
``tiebreak eval QRELS RUN [RUN ...]``, ``tiebreak example``, ``tiebreak band`` and ``tiebreak
bounds``.

Kept thin: parsing options, calling :mod:`tiebreak.evaluation`, writing with
:mod:`tiebreak.evaluation.output`.
Heavy modules are imported inside the commands so that ``tiebreak --help`` starts instantly.
"""

from __future__ import annotations

import sys

import click

# the one error path and the early exit, shared with the click-free start of `tiebreak
# trec_eval` (tiebreak.__main__); the old private names are kept for callers
from .._native.process import INPUT_ERRORS, os_error_message, report_errors  # noqa: F401
from .._native.process import exit_now as _exit_now
from .._native.process import input_errors as _input_errors  # noqa: F401
from .._native.process import quiet_stdout as _quiet_stdout  # noqa: F401
from . import eval_command as E
from .common import (  # noqa: F401 - the commands' shared helpers, as tiebreak.cli.NAME
    REGIME_HELP,
    _fail,
    dask_option,
    open_client,
    open_output,
    renamed_option,
    resolve_jobs,
    split_list,
    split_qrels,
)
from .options import click_options

# Commands that live in their own modules: name -> "module:attribute" (imported on first use, so
# start-up stays fast). Add one line per command.
LAZY_COMMANDS: dict[str, str] = {
    "ties": "tiebreak.cli.ties:ties_cmd",
    "study": "tiebreak.cli.app:study_group",
    "trec_eval": "tiebreak.trec_eval.cli:trec_eval_cmd",
    "index": "tiebreak.cli.index:index_cmd",
    "search": "tiebreak.cli.search:search_cmd",
    "models": "tiebreak.cli.search:models_cmd",
    "pool": "tiebreak.cli.judgments:pool_cmd",
    "estimate": "tiebreak.cli.judgments:estimate_cmd",
    "compare": "tiebreak.cli.compare:compare_cmd",
    "report": "tiebreak.cli.report:report_cmd",
    "reproduce": "tiebreak.cli.reproduce:reproduce_cmd",
    "fuse": "tiebreak.cli.runs:fuse_cmd",
    "run": "tiebreak.cli.runs:run_cmd",
    "qrels": "tiebreak.cli.qrels:qrels_group",
    "swaps": "tiebreak.cli.swaps:swaps_cmd",
    "repro": "tiebreak.cli.repro:repro_cmd",
    "correlate": "tiebreak.cli.correlate:correlate_cmd",
    "verify": "tiebreak.cli.verify:verify_cmd",
}


# Studies (``tiebreak study NAME``), registered the same way.
LAZY_STUDIES: dict[str, str] = {
    "bands": "tiebreak.cli.study_bands:bands_cmd",
    "ties": "tiebreak.cli.study_ties:ties_cmd",
    "depth": "tiebreak.cli.study_depth:depth_cmd",
    "dropout": "tiebreak.cli.study_dropout:dropout_cmd",
    "estimate": "tiebreak.cli.study_estimate:study_estimate_cmd",
    "precision": "tiebreak.cli.study_precision:precision_cmd",
    "precision-runs": "tiebreak.cli.study_precision_runs:precision_runs_cmd",
    "proximity": "tiebreak.cli.study_proximity:proximity_cmd",
    "power": "tiebreak.cli.study_power:power_cmd",
    "predict": "tiebreak.cli.study_predict:predict_cmd",
    "error-rate": "tiebreak.cli.study_power:error_rate_cmd",
}


# Optional dependency groups (the extras in pyproject.toml), the modules that show each one is
# installed, and the commands that need one ("study NAME" for studies).
EXTRAS: dict[str, tuple[str, ...]] = {
    "search": ("numba", "Stemmer", "ir_datasets"),
    "plot": ("matplotlib", "jinja2"),
}
COMMAND_EXTRAS: dict[str, str] = {
    "index": "search", "search": "search", "report": "plot",
    "study bands": "plot", "study ties": "plot", "study depth": "plot", "study estimate": "plot",
    "study precision": "search", "study proximity": "search", "study precision-runs": "plot",
}


def _need_extra(command: str) -> None:
    """Stop with a message naming the extra when ``command`` needs one that is not installed."""
    extra = COMMAND_EXTRAS.get(command)
    if extra is None:
        return
    from importlib.util import find_spec

    missing = [m for m in EXTRAS[extra] if find_spec(m) is None]
    if missing:
        _fail(f"'tiebreak {command}' needs the {extra} extra (missing: {', '.join(missing)}): "
              f"pip install 'tiebreak[{extra}]'")


# One line per command for the command lists of --help (complete sentences, and no command
# module is imported just to list it).
COMMAND_HELP: dict[str, str] = {
    "band": "Write a deliberately tied (banded or rounded) version of a run.",
    "bounds": "Worst-case change of RR / RBP from averaging inside bands (YMT 2016, Table 2).",
    "compare": "Significance tests between runs, flagging wins that depend on tie order.",
    "correlate": "Rank correlation (tau, tau_AP, tau_b, Spearman, RBO) of two eval results.",
    "estimate": "Estimate deep RBP scores from shallow qrels (Lu 2018, ch. 6).",
    "eval": "Evaluate runs against qrels under every treatment of tied scores.",
    "example": "Print the paths of a shipped example (qrels, then run).",
    "fuse": "Fuse runs (CombSUM, RRF, Borda and more) and count the ties fusion makes.",
    "index": "Build (or verify) a positional index of a collection.",
    "measures": "List every measure, its names, kind and how ties are averaged.",
    "models": "List every retrieval model, its parameters and its source.",
    "pool": "Build a judgment pool, or simulate a shallower one from deep qrels.",
    "qrels": "Commands on qrels: convert, compare and test the conclusions they support.",
    "report": "Write a self-contained HTML report comparing runs.",
    "repro": "Reproduction measures (Breuer et al. 2020) and the share of the gap ties explain.",
    "reproduce": "Our numbers beside the seed papers' tables and figures, with verdicts.",
    "run": "Edit a run: top-k cut, topic filter, normalisation, dedup, rank from score.",
    "search": "Search an index for every topic and write a TREC run.",
    "swaps": "The pairs of systems whose order or significance the tie regimes change.",
    "study": "Studies: bands, ties, depth, estimate, precision, proximity.",
    "ties": "Tie prevalence and run hygiene of runs (YMT 2016, Cabanac et al. 2010).",
    "trec_eval": "Drop-in trec_eval 10.0, plus --regime for tie regimes.",
    "verify": "Check expected values (eval --write-expected) within each run's tie range.",
}
STUDY_HELP: dict[str, str] = {
    "bands": "Deliberate banding of runs (YMT 2016, Section 4: Figs. 3-4, Table 3).",
    "depth": "Evaluation depth against pooling depth (Lu 2018, ch. 5).",
    "dropout": "Score variance under random judgment drop-out (Lu 2018, Section 7.2.2).",
    "error-rate": "Error rate with fuzziness and swap rate over topic sets (Lu 2018 Eq. 2.45).",
    "estimate": "Deep RBP estimated from simulated shallow pools (Lu 2018, ch. 6).",
    "power": "Topic set size and achieved power of the paired t-test (Sakai 2016).",
    "precision": "Quantised, pruned and band-safe retrieval against exact scoring.",
    "precision-runs": "Score formats (float16, bfloat16, int8, bits:K) on finished runs.",
    "predict": "Cross-validated relevance prediction from ranks, text or both (Lu 2018 6.1.2).",
    "proximity": "Where proximity helps: ablations, per-topic changes, heat map.",
    "ties": "How much ties move scores (YMT 2016, Fig. 2; Cabanac et al. 2010).",
}


def _ranged_jobs(cmd):
    """Every command's ``-j/--jobs`` refuses a negative number (``-j -1`` was read as "all
    cores" by some commands and as one process by others); 0 keeps its meaning, all cores."""
    for p in getattr(cmd, "params", ()):
        if p.name == "jobs" and p.type is click.INT:
            p.type = click.IntRange(min=0)
    return cmd


class LazyGroup(click.Group):
    """A click group whose commands (``lazy``: name -> "module:attribute") are imported only
    when needed. Everything the top group does (its help included) runs through
    :func:`report_errors`."""

    def __init__(self, *a, lazy: dict[str, str] | None = None, **kw):
        super().__init__(*a, **kw)
        self.lazy = LAZY_COMMANDS if lazy is None else lazy

    def main(self, args=None, *a, **kw):
        """As click's, through the one error path (:func:`report_errors`); run from the command
        line (``args`` None, standalone mode), the process ends without the interpreter's
        teardown once the command is done (:func:`_exit_now`)."""
        def run():
            return super(LazyGroup, self).main(args, *a, **kw)

        if args is not None or not kw.get("standalone_mode", True):
            return report_errors(run)
        try:
            report_errors(run)
        except SystemExit as e:
            _exit_now(e.code)
        _exit_now(0)  # pragma: no cover - standalone click always raises SystemExit

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def resolve_command(self, ctx, args):
        name, cmd, rest = super().resolve_command(ctx, args)
        if name is not None:
            _need_extra(name if self.lazy is LAZY_COMMANDS else f"{self.name} {name}")
        return name, cmd, rest

    def get_command(self, ctx, name):
        if name in self.lazy:
            import importlib

            mod, attr = self.lazy[name].split(":")
            return _ranged_jobs(getattr(importlib.import_module(mod), attr))
        return _ranged_jobs(super().get_command(ctx, name))

    def format_commands(self, ctx, formatter):
        short = STUDY_HELP if self.lazy is LAZY_STUDIES else COMMAND_HELP
        rows = []
        for name in self.list_commands(ctx):
            text = short.get(name)
            if text is None:
                cmd = self.get_command(ctx, name)
                text = cmd.get_short_help_str(limit=200) if cmd is not None else ""
            rows.append((name, text))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tiebreak")
def main() -> None:
    """tiebreak: tie-aware evaluation of TREC runs."""


@click.group("study", cls=LazyGroup, lazy=LAZY_STUDIES)
def study_group() -> None:
    """Studies built on the evaluation core."""


@main.command("eval")
@click.argument("qrels", type=click.Path(allow_dash=True))
@click.argument("runs", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click_options(E.OPTIONS)
def eval_cmd(qrels, runs, **options):
    """Evaluate RUNS against QRELS under every treatment of tied scores.

    RUNS and QRELS may be plain or gzipped; '-' reads standard input; a directory means every
    run file in it; QRELS may also be irds:DATASET_ID (ir_datasets). Runs are named by their
    run tag (column 6), else by file name (see --name-by). Warnings go to standard error.
    """
    E.run(qrels, runs, **options)


@main.command("measures")
@click.option("--format", "fmt", type=click.Choice(["table", "md", "markdown", "tsv"]),
              default=None, help="table: aligned columns (the default on a terminal); md: the "
                                 "README's Markdown table with definitions (the default "
                                 "otherwise); tsv: a header row and every column.")
def measures_cmd(fmt):
    """List every measure: names in each tradition, kind, how the expected value over ties is
    computed (closed form, linear, sampled), parameters and definition."""
    from ..measures.table import markdown, plain, rows

    if fmt is None:
        fmt = "table" if sys.stdout.isatty() else "md"
    if fmt == "table":
        import shutil

        click.echo(plain(shutil.get_terminal_size().columns if sys.stdout.isatty() else 10**6),
                   nl=False)
        return
    if fmt in ("md", "markdown"):
        click.echo(markdown(), nl=False)
        return
    rs = rows()
    click.echo("\t".join(rs[0]))
    for r in rs:
        click.echo("\t".join(str(v) for v in r.values()))


@main.command("example")
@click.argument("name", default="ymt2016", type=click.Choice(["ymt2016"]))
def example_cmd(name):
    """Print the paths of a shipped example (qrels, then run).

    ymt2016: topic 1 is the 10-document ranking of Yang, Moffat & Turpin (2016), Fig. 1, with
    its ties; topic 8 is Cabanac et al. (2010), Fig. 2.
    Try: tiebreak eval $(tiebreak example)
    """
    from importlib.resources import files

    base = files("tiebreak") / "data"
    click.echo(f"{base / (name + '.qrels')} {base / (name + '.run')}")


@main.command("band")
@click.argument("run", type=click.Path(allow_dash=True))
@click.option("--rho", metavar="RHO",
              help="Geometric banding: band g covers ranks b_g..b_{g+1}-1 with b_1 = 1, "
                   "b_{g+1} = ceil(RHO * b_g), and gets score 1/g. RHO >= 1, read exactly "
                   "(1.1 means 11/10; 11/10 works too).")
@click.option("--digits", type=int, metavar="D",
              help="Instead of banding: round every score to D significant decimal digits "
                   "(1-17; a double holds 17).")
@click.option("--order", type=click.Choice(["file", "trec_eval"]), default="file",
              show_default=True,
              help="Reference order inside a topic: file lines, or trec_eval's (score "
                   "descending, then docno descending).")
@click.option("--tag", metavar="TAG",
              help="Run tag of the output (default: RUN's tag + _rhoRHO or _dD).")
@click.option("--on-duplicate", type=click.Choice(E.ON_DUPLICATE), default="error",
              show_default=True, help="A docno twice in one topic: stop, or keep the first line.")
def band_cmd(run, rho, digits, order, tag, on_duplicate):
    """Write a deliberately tied version of RUN to standard output (TREC format).

    With --rho, scores become 1/g for the geometric bands of Yang, Moffat & Turpin (2016),
    Section 4, so the tied groups are the bands. With --digits, scores are rounded to D
    significant digits. Lines come out per topic in the reference order, ranked 1..n; docnos
    are kept byte for byte; scores are written in full precision.
    """
    from ..io import InputError, read_run
    from ..ranking.bands import band_run, format_run, round_run

    if (rho is None) == (digits is None):
        _fail("give exactly one of --rho and --digits")
    if digits is not None and digits > 17:
        _fail(f"--digits {digits}: a double holds at most 17 significant decimal digits")
    try:
        r = read_run(run, on_duplicate=on_duplicate)
        out = band_run(r, rho, order) if rho is not None else round_run(r, digits, order)
        data = format_run(out, tag)
    except (InputError, ValueError, TypeError) as e:
        _fail(str(e))
    out_stream = sys.stdout
    out_stream.flush()
    out_stream.buffer.write(data)
    out_stream.buffer.flush()


@main.command("bounds")
@click.option("--rho", "rhos", multiple=True, metavar="RHO",
              help="Band growth factor, repeatable or comma-separated (as 'study bands "
                   "--rho'). Default: 1.1,1.2,1.4,1.7,2.0.")
@click.option("-m", "--measure", "metrics", multiple=True, metavar="MEASURE",
              help="RR or 'RBP(p=P)', repeatable or comma-separated. Default: RR, RBP(p=0.5), "
                   "RBP(p=0.85).")
@renamed_option("--metric", "metrics", "-m/--measure", multiple=True, metavar="MEASURE")
@click.option("--depth", type=click.IntRange(min=0, max=10**7), default=1000,
              show_default=True, help="Ranks covered by the bands.")
@click.option("--format", "fmt", type=click.Choice(["table", "tsv"]), default="table",
              show_default=True, help="table: 4 decimals; tsv: header and full precision.")
def bounds_cmd(rhos, metrics, depth, fmt):
    """Worst-case change of RR / RBP from averaging over orderings inside geometric bands.

    Reproduces Table 2 of Yang, Moffat & Turpin (2016), Section 4, computed in exact
    rational arithmetic.
    """
    from ..ranking.bands import DEFAULT_BOUND_METRICS, DEFAULT_RHOS, bounds_table

    rhos = split_list(rhos) or DEFAULT_RHOS
    metrics = split_list(metrics) or DEFAULT_BOUND_METRICS
    bar = None
    if depth > 100_000 and sys.stderr.isatty():  # exact arithmetic: minutes at 10**7
        from tqdm import tqdm

        bar = tqdm(total=len(rhos) * len(metrics), desc=f"bounds to depth {depth}",
                   unit=" cell", file=sys.stderr, leave=False)
    try:
        t = bounds_table(rhos, metrics, depth, progress=None if bar is None else bar.update)
    except (ValueError, TypeError) as e:
        _fail(str(e))
    finally:
        if bar is not None:
            bar.close()
    click.echo(t.to_text(fmt), nl=False)


if __name__ == "__main__":  # pragma: no cover
    main()
