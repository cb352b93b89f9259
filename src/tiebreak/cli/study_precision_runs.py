"""``tiebreak study precision-runs``: score formats (float16, bfloat16, int8, bits:K,
decimals:D) applied to finished runs, beside Yang, Moffat & Turpin's bands; the computation is
:mod:`tiebreak.studies.precision_runs`."""

from __future__ import annotations

import os
import re

import click

from .common import _fail, resolve_jobs


def _split(values) -> list[str]:
    return [v.strip() for s in values for v in s.split(",") if v.strip()]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "_", text).strip("_")


@click.command("precision-runs")
@click.argument("qrels", type=click.Path(exists=True, dir_okay=False))
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--score-format", "formats", multiple=True, metavar="FORMAT",
              help="Score formats, repeatable or comma-separated (as --score-precision of "
                   "'tiebreak eval'). Default: float32, bits:16, bits:12, float16, bits:8, "
                   "bfloat16, bits:6 .. bits:1, int8, int8-global, decimals:4 .. decimals:1.")
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Measure, repeatable. Default: AP, nDCG@10.")
@click.option("--rho", "rhos", default="1.1,1.2,1.4,1.7,2.0", show_default=True,
              help="Band ratios drawn beside the formats (comma-separated; '' for none).")
@click.option("--alpha", type=float, default=0.05, show_default=True,
              help="Significance level of the paired tests.")
@click.option("--out", "out_dir", default="study_precision_runs", show_default=True,
              type=click.Path(file_okay=False), help="Directory for figures and tables.")
@click.option("--format", "fmt", type=click.Choice(["table", "md", "tsv"]), default="table",
              show_default=True, help="How the summary table is printed.")
@click.option("--no-figures", is_flag=True, help="Tables only.")
@click.option("-j", "--jobs", type=int, default=0, show_default="all cores",
              help="Worker processes (0 = all cores).")
def precision_runs_cmd(qrels, runs, formats, measures, rhos, alpha, out_dir, fmt, no_figures,
                       jobs):
    """How many bits do run scores need? Every run of RUNS rounded to each score format and
    evaluated against QRELS (YMT 2016 §4-5 on number formats): ties created, change of the
    expected value, tie range, Table 3's paired test, Kendall tau / tau_AP of the system
    ranking and the pairs whose order or significance changes; one figure per measure
    (change against bits of precision, with banding at rho where m = -log2(rho - 1)).

    RUNS may be files or directories (every run file in them). Written to --out:
    formats.tsv (the table printed), runs.tsv (per run), pairs.tsv (every pair whose order or
    significance changes), bands.tsv, change_<measure>.png/.svg.
    """
    from ..io import InputError, read_qrels, run_paths
    from ..measures import MeasureError
    from ..studies.precision_runs import DEFAULT_FORMATS, DEFAULT_MEASURES, run_study, tables

    try:
        study = run_study(read_qrels(qrels), run_paths(runs),
                          _split(formats) or DEFAULT_FORMATS,
                          _split(measures) or DEFAULT_MEASURES, _split([rhos]),
                          jobs=resolve_jobs(jobs), progress=True)
    except (InputError, MeasureError, ValueError) as e:
        _fail(str(e))
    tabs = tables(study, alpha)
    os.makedirs(out_dir, exist_ok=True)
    for name, df in tabs.items():
        p = os.path.join(out_dir, f"{name}.tsv")
        df.to_csv(p, sep="\t", index=False, float_format="%.6g")
    if not no_figures:
        from ..studies.precision_runs import figure

        for m in study.metrics:
            figure(study, tabs, m, os.path.join(out_dir, f"change_{_slug(m)}"))
    from ..studies.precision_runs import first_changes

    click.echo(f"{len(study.systems)} systems, {len(study.topics)} topics; each format against "
               "full precision (expected values; tie range = optimistic - realistic mean)")
    click.echo(summary(tabs["formats"], fmt), nl=False)
    for m in study.metrics:
        got = first_changes(tabs["formats"], m)
        (bt, bs), (lt, ls) = got["binary"], got["linear"]
        click.echo(f"{m}: finest format where the system ranking changes (tau < 1): {bt} "
                   f"(binary), {lt} (linear grids); where a pair's significance changes: {bs} "
                   f"(binary), {ls} (linear grids)")
    for f, w in study.warnings.items():
        for k, v in (w or {}).items():
            click.echo(f"tiebreak: note: {f}: {k}: {v}", err=True)


SUMMARY_COLUMNS = {"format": "format", "measure": "measure", "bits": "bits",
                   "tied_ymt_%": "tied % (YMT)", "tied_cabanac_%": "tied % (Cabanac)",
                   "change_max": "max |change|", "range_max": "max tie range",
                   "tau": "tau", "tau_ap": "tau_AP", "flipped_pairs": "pairs flipped",
                   "significance_changed": "pairs sig. changed",
                   ">=99%": ">=99%", ">=97%": ">=97%"}


def summary(fmt_table, fmt: str = "table") -> str:
    """The per-format table as text: aligned columns, Markdown or TSV."""
    from tabulate import tabulate

    t = fmt_table[list(SUMMARY_COLUMNS)].rename(columns=SUMMARY_COLUMNS)
    if fmt == "tsv":
        return t.to_csv(sep="\t", index=False, float_format="%.6g")
    return tabulate(t.values.tolist(), list(t.columns), tablefmt="github" if fmt == "md" else
                    "simple", floatfmt=".4f", disable_numparse=False) + "\n"
