"""``tiebreak study bands QRELS RUN...``: deliberate banding of runs (Yang, Moffat & Turpin,
"How precise does document scoring need to be?", AIRS 2016, Section 4: Figs. 3-4, Table 3); the
study itself is :mod:`tiebreak.studies.study_bands`."""

from __future__ import annotations

import os

import click

from ..studies.study_bands import (
    DEFAULT_STUDY_METRICS,
    DEFAULT_STUDY_RHOS,
    ORDERS,
    RATIOS,
    fig3,
    fig3_summary,
    fig4,
    fig4_pvalues,
    fig4_quadrants,
    run_study,
    table3,
)
from .common import dask_option, open_client

__all__ = ["bands_cmd"]


def _split(values) -> list[str]:
    return [v.strip() for s in values for v in s.split(",") if v.strip()]


@click.command("bands")
@click.option("--qrels", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Deprecated alias: give QRELS as the first argument.")
@click.option("--rho", "rhos", default=",".join(DEFAULT_STUDY_RHOS), show_default=True,
              help="Band growth factors, comma-separated (exact decimals, >= 1).")
@click.option("--metric", "metrics", multiple=True, metavar="MEASURE",
              help="Metric, repeatable. Default: RR, RBP(p=0.5), RBP(p=0.85), AP.")
@click.option("--top", type=int, default=None,
              help="Keep the N best systems by MAP (the paper kept 80 of 103).")
@click.option("--drop-contradictions", is_flag=True,
              help="Leave out runs whose file order contradicts their scores or ranks.")
@click.option("--order", type=click.Choice(ORDERS), default="file", show_default=True,
              help="Reference order the bands are cut from (score-rank: score descending, "
                   "then rank ascending, as Yang et al. re-sorted the runs).")
@click.option("--ratio", "ratios", default=",".join(str(r) for r in RATIOS), show_default=True,
              help="Table 3 ratios of the original score, comma-separated (the paper's text "
                   "also reports 0.95).")
@click.option("--fig4-rho", default=None, help="rho of Fig. 4 (default: the largest).")
@click.option("--alpha", type=float, default=0.05, show_default=True)
@click.option("--out", "out_dir", default="study_bands", show_default=True,
              type=click.Path(file_okay=False), help="Directory for figures and tables.")
@click.option("-j", "--jobs", type=int, default=0, show_default="all cores",
              help="Worker processes (0 = all cores).")
@dask_option("Read, band and evaluate")
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True),
                metavar="QRELS RUNS...")
def bands_cmd(qrels, rhos, metrics, top, drop_contradictions, order, ratios, fig4_rho, alpha,
              out_dir, jobs, dask_address, runs):
    """YMT 2016 Section 4: Fig. 3, Table 3 and Fig. 4 for banded versions of RUNS.

    RUNS may be files or directories (every run file in them).
    """
    from .common import split_qrels

    qrels, runs = split_qrels(qrels, runs)
    from fractions import Fraction

    from ..io import read_qrels, run_paths
    from ..ranking.bands import exact

    rho_list = _split([rhos])
    try:
        for r in rho_list:
            exact(r, "rho")
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--rho") from None
    if not rho_list:
        raise click.BadParameter("no rho given", param_hint="--rho")
    if fig4_rho is None:
        fig4_rho = max(rho_list, key=lambda r: exact(r, "rho"))
    elif fig4_rho not in rho_list:
        match = [r for r in rho_list if exact(r, "rho") == Fraction(exact(fig4_rho, "rho"))]
        if not match:
            raise click.BadParameter(f"{fig4_rho} is not one of --rho", param_hint="--fig4-rho")
        fig4_rho = match[0]
    try:
        ratio_list = [float(x) for x in _split([ratios])]
    except ValueError:
        raise click.BadParameter(f"{ratios!r} is not a list of numbers",
                                 param_hint="--ratio") from None
    if not ratio_list or not all(0 < r <= 1 for r in ratio_list):
        raise click.BadParameter("ratios must lie in (0, 1]", param_hint="--ratio")
    metric_list = _split(metrics) if metrics else list(DEFAULT_STUDY_METRICS)
    if len(metric_list) != len(set(metric_list)):
        raise click.BadParameter("a metric is given twice", param_hint="--metric")

    study = run_study(read_qrels(qrels), run_paths(runs), rho_list, metric_list, order=order,
                      top=top, drop_contradictions=drop_contradictions, jobs=jobs,
                      progress=True, client=open_client(dask_address))
    for n, why in study.dropped.items():
        if not why.startswith("not in the top"):
            click.echo(f"dropped {n}: {why}", err=True)
    if len(study.systems) < 2:
        raise click.ClickException("fewer than 2 systems left")
    os.makedirs(out_dir, exist_ok=True)
    written = []

    summ = fig3_summary(study)
    p = os.path.join(out_dir, "fig3_summary.tsv")
    summ.to_csv(p, sep="\t", index=False, float_format="%.6g")
    written += [p, *fig3(study, os.path.join(out_dir, "fig3_differences"))]

    t3 = table3(study, ratio_list, alpha)
    p = os.path.join(out_dir, "table3.tsv")
    t3.to_csv(p, sep="\t", index=False)
    written.append(p)

    pv = fig4_pvalues(study, fig4_rho)
    quad = fig4_quadrants(pv, alpha)
    p = os.path.join(out_dir, "fig4_quadrants.tsv")
    quad.to_csv(p, sep="\t", index=False, float_format="%.4f")
    written += [p, *fig4(pv, fig4_rho, os.path.join(out_dir, "fig4_pvalues"), alpha)]

    click.echo(f"{len(study.systems)} systems, {len(study.topics)} topics, order={order}"
               + (f", {len(study.dropped)} dropped" if study.dropped else ""))
    click.echo(f"\nTable 3: systems with p <= {alpha} that banded >= ratio x original "
               "(one-tailed paired t)")
    wide = t3.melt(id_vars=["metric", "rho"], value_vars=[c for c in t3 if c.startswith(">=")],
                   var_name="ratio", value_name="n")
    wide = wide.pivot_table(index=["ratio", "metric"], columns="rho", values="n",
                            sort=False)[study.rhos]
    click.echo(wide.astype(int).to_string())
    click.echo(f"\nFig. 4 (rho={fig4_rho}): pairs of systems, % (two-sided paired t, "
               f"alpha={alpha})")
    click.echo(quad.to_string(index=False, float_format=lambda x: f"{x:.1f}"))
    click.echo("\nwrote " + " ".join(written))
