"""``tiebreak study ties QRELS RUN...``: how much ties move scores (Yang, Moffat & Turpin, AIRS
2016, Fig. 2; Cabanac, Hubert, Boughanem & Chrisment, CLEF 2010); the study itself is
:mod:`tiebreak.studies.study_ties`."""

from __future__ import annotations

import os

import click
import numpy as np

from ..studies.study_ties import (
    fig2,
    overlaps,
    pooled_table,
    result_list_gains,
    rr_delta_rc,
    run_study,
    summary,
    system_gains,
)
from .common import dask_option, open_client

__all__ = ["ties_cmd"]


def _fmt(x):
    return f"{x:.4f}" if isinstance(x, float) else str(x)


@click.command("ties")
@click.option("--qrels", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Deprecated alias: give QRELS as the first argument.")
@click.option("--metric", "metrics", multiple=True, metavar="MEASURE",
              help="Extra metric besides AP and RR, repeatable / comma-separated.")
@click.option("--top", type=int, default=10, show_default=True,
              help="Rows per gain table and systems checked for overlapping MAP ranges.")
@click.option("--show", type=int, default=5, show_default=True,
              help="Rows per block printed of the result-list and system gain tables.")
@click.option("--alpha", type=float, default=0.05, show_default=True)
@click.option("--out", "out_dir", default="study_ties", show_default=True,
              type=click.Path(file_okay=False), help="Directory for figures and tables.")
@click.option("-j", "--jobs", type=int, default=0, show_default="all cores",
              help="Worker processes for the evaluation (0 = all cores).")
@click.option("--rr-order", type=click.Choice(["gain", "delta-rc"]), default="gain",
              show_default=True,
              help="delta-rc: also write table2_delta_rc.tsv, result lists ranked by Cabanac et "
                   "al.'s delta_RC = 1/RR_R - 1/RR_C (their Table 2).")
@click.option("--gain-order", type=click.Choice(["delta", "pct"]), default="delta",
              show_default=True,
              help="Rank result_lists.tsv and system_gains.tsv by the score difference or by the "
                   "percent gain 100 (B - A) / A (Cabanac et al. Tables 3-4).")
@click.option("--pooled", is_flag=True,
              help="Also write table5_pooled.tsv: one one-tailed paired t-test of trec_eval > "
                   "realistic over all result lists of all systems (RR, AP) and over the "
                   "system means (MAP), as Cabanac et al. Table 5.")
@click.option("--drop-worst", "drop", type=click.FloatRange(0.0, 1.0, max_open=True),
              default=0.0, show_default=True, metavar="FRAC",
              help="Compute summary.tsv without the worst FRAC of systems by trec_eval mean "
                   "(Cabanac et al.: 0.25).")
@dask_option()
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True),
                metavar="QRELS RUNS...")
def ties_cmd(qrels, metrics, top, show, alpha, out_dir, jobs, rr_order, gain_order, pooled,
             drop, dask_address, runs):
    """YMT 2016 Fig. 2 and Cabanac et al. 2010 Tables 2-5: how much ties move scores.

    RUNS may be files or directories (every run file in them).
    """
    from .common import split_qrels

    qrels, runs = split_qrels(qrels, runs)
    from ..io import read_qrels, run_paths

    extra = [v.strip() for s in metrics for v in s.split(",") if v.strip()]
    paths = run_paths(runs)
    if len(paths) < 2:
        raise click.ClickException("need at least 2 runs")
    try:
        study = run_study(read_qrels(qrels), paths, extra, jobs=jobs, progress=True,
                          client=open_client(dask_address))
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    os.makedirs(out_dir, exist_ok=True)
    written = []

    def save(df, name, fmt="%.6g"):
        p = os.path.join(out_dir, name)
        df.to_csv(p, sep="\t", index=False, float_format=fmt)
        written.append(p)

    rl = result_list_gains(study, top, study.metrics, rank_by=gain_order)
    sg = system_gains(study, top, study.metrics, rank_by=gain_order)
    sm = summary(study, alpha, drop=drop)
    ov = overlaps(study, top)
    save(rl, "result_lists.tsv")
    save(sg, "system_gains.tsv")
    save(sm, "summary.tsv")
    save(ov, "overlaps.tsv")
    t2 = rr_delta_rc(study, top) if rr_order == "delta-rc" else None
    t5 = pooled_table(study) if pooled else None
    if t2 is not None:
        save(t2, "table2_delta_rc.tsv")
    if t5 is not None:
        save(t5, "table5_pooled.tsv")
    paths_fig, floor = fig2(study, os.path.join(out_dir, "fig2_ranges"), top)
    written += paths_fig

    n_tied = int(np.sum(study.tied > 0))
    click.echo(f"{len(study.systems)} systems, {len(study.topics)} topics; {n_tied} systems "
               f"with tied documents (median {int(np.median(study.tied))} tied docs per run)")
    dropped = (f"; without the worst {drop:.0%} of systems by trec_eval mean" if drop else "")
    click.echo(f"\nSummary (A vs B; sig = systems with one-tailed paired t p < {alpha}; "
               f"flips/rank changes in %{dropped})")
    click.echo(sm.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    click.echo(f"\nTables 4-5: systems with the largest gain of the mean (first {show} of "
               f"{top} per block)")
    shown = sg[sg["rank"] <= show].drop(columns=["rank"])
    click.echo(shown.to_string(index=False, formatters={c: _fmt for c in shown}))
    click.echo(f"\nTables 2-3: result lists with the largest gain (first {show} of {top} per "
               "block)")
    shown = rl[rl["rank"] <= show].drop(columns=["rank"])
    click.echo(shown.to_string(index=False, formatters={c: _fmt for c in shown}))
    if t5 is not None:
        click.echo("\nTable 5 (pooled): one-tailed paired t of trec_eval > realistic over all "
                   "result lists (RR, AP) / systems (MAP); delta_RC_pct = 100 (C - R) / R")
        click.echo(t5.to_string(index=False, formatters={c: _fmt for c in t5}))
    if t2 is not None:
        click.echo(f"\nTable 2: result lists by delta_RC = 1/RR_R - 1/RR_C (first {show} of "
                   f"{top})")
        shown = t2[t2["rank"] <= show].drop(columns=["rank"])
        click.echo(shown.to_string(index=False, formatters={c: _fmt for c in shown}))
    click.echo(f"\nTop {top} systems by trec_eval MAP: MAP intervals [lower, upper] and overlaps")
    click.echo(ov.to_string(index=False, formatters={c: _fmt for c in ov}))
    if floor is not None:
        rng = (study.get("AP", "upper") - study.get("AP", "lower")).mean(axis=1)
        click.echo(f"\nFig. 2: {int(np.sum(rng <= 0))} system(s) with zero AP range drawn at "
                   f"{floor:.0e}")
    click.echo("\nwrote " + " ".join(written))
