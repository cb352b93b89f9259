"""``tiebreak study depth``: evaluation depth against pooling depth (Lu 2018, ch. 5); the
computation is :mod:`tiebreak.studies.depth`."""

from __future__ import annotations

import json
import os
import sys

import click

from .common import _fail, dask_option, open_client, resolve_jobs
from .judgment_options import (
    CONTRIB_HELP,
    ORDER_HELP,
    _contributing,
    _fmt_table,
    _groups,
    _ints,
    _load,
    _split,
)


@click.command("depth")
@click.option("--qrels", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Deprecated alias: give QRELS as the first argument.")
@click.option("--pool-depth", type=int, default=None,
              help="Simulate a depth-d pool of the contributing runs from --qrels.")
@click.option("--reference-depth", type=int, default=None,
              help="k of the reference metric M@k (default: the pool depth).")
@click.option("--deep-qrels", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Deeper judgments of the same topics (default: --qrels when simulating).")
@click.option("--eval-depth", "eval_depths", default="1,4,10,40,100,400,1000",
              show_default=True, help="Evaluation depths k.")
@click.option("--volatility-depths", "vol_depths", default="1-50", show_default=True,
              help="Grid of the volatility matrices (ranges a-b allowed).")
@click.option("-m", "--metric", "metrics", multiple=True, metavar="MEASURE",
              help="Base metric, repeatable (scored as M@k): AP_b (AP / min(R,k)), AP, nDCG, "
                   "'RBP(p=0.95)', 'RBP(p=0.8)', ERR, RR, P ... Default: all of these but P.")
@click.option("--regime", "regimes", multiple=True, metavar="REGIME",
              help="Tie regime(s) for scoring (default: trec_eval, or file with --ties file).")
@click.option("--ties", "order", type=click.Choice(["trec_eval", "file", "include"]),
              default="trec_eval", show_default=True, help=ORDER_HELP)
@click.option("--contributing", default=None, help=CONTRIB_HELP)
@click.option("--systems", type=click.Choice(["contributing", "all"]), default="contributing",
              show_default=True, help="Systems of the meta-evaluation tables.")
@click.option("--groups", default=None,
              help="Leave-group-out: a file of 'run group' lines, or 'prefix' (run name up to "
                   "the first - _ or .).")
@click.option("--no-leave-out", is_flag=True, help="Skip leave-one-run-out.")
@click.option("--condensed", is_flag=True,
              help="Score condensed runs (unjudged documents removed, Sakai 2007).")
@click.option("--cross", "cross", multiple=True, metavar="M1,M2",
              help="Cross-metric volatility pair, repeatable (default: the first three metric "
                   "pairs of the list).")
@click.option("--volatility-stat", "vol_stats", multiple=True,
              type=click.Choice(["tau", "tau_ap", "rbo"]),
              help="Rank statistic of the volatility matrices, repeatable (default tau; tau_ap "
                   "and rbo are top-weighted: Yilmaz et al. 2008, Webber et al. 2010).")
@click.option("--topics", default=None, help="Topics to keep, e.g. 601-650.")
@click.option("--alpha", type=float, default=0.05, show_default=True)
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "json"]), default="table",
              show_default=True, help="Format of the main table on standard output.")
@click.option("--out", "out_dir", default=None, type=click.Path(file_okay=False),
              help="Directory for TSV tables and figures (none written without it).")
@click.option("-j", "--jobs", type=int, default=0, show_default="all cores",
              help="Processes for evaluation (0 = all cores).")
@dask_option("Score the runs")
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True),
                metavar="QRELS RUNS...")
def depth_cmd(qrels, pool_depth, reference_depth, deep_qrels, eval_depths, vol_depths, metrics,
              regimes, order, contributing, systems, groups, no_leave_out, condensed, cross,
              vol_stats, topics, alpha, fmt, out_dir, jobs, dask_address, runs):
    """Evaluation depth against pooling depth (Lu 2018, ch. 5) for RUNS.

    Per metric and evaluation depth k: discrimination, coverage and inversion ratio against the
    metric at the reference depth, median p-value, Kendall tau and tau_AP of the system
    ordering (against the reference, and against the deep qrels when known), mean score, RBP
    residual and unjudged share of the top k. Also the volatility matrices, leave-one-run-out
    (and leave-group-out) at k = d, Table 5.2 pool counts and, with deep qrels, the bias of
    non-contributing ("new") systems.
    """
    from .common import split_qrels

    qrels, runs = split_qrels(qrels, runs)
    from ..io import InputError, read_qrels
    from ..judgments.pool import parse_topics, run_lists, subset_topics
    from ..measures import MeasureError
    from ..studies import depth as D

    q, run_objs = _load(qrels, runs, topics)
    deep = None
    if deep_qrels:
        try:
            deep = read_qrels(deep_qrels)
            deep = subset_topics(deep, parse_topics(topics, deep.topics) if topics
                                 else list(q.topics))
        except (InputError, ValueError) as e:
            _fail(str(e))
    if pool_depth is None and reference_depth is None:
        _fail("give --pool-depth (simulate a pool) or --reference-depth (the pool's depth)")
    ks = _ints(eval_depths, "--eval-depth")
    vk = _ints(vol_depths, "--volatility-depths")
    metric_list = _split(metrics) if metrics else [m for m in D.DEFAULT_METRICS]
    reg = _split(regimes) if regimes else ["file" if order == "file" else "trec_eval"]
    try:
        L0 = run_lists(run_objs, q, order)
        names = _contributing(contributing, L0, q)
        del L0
        grp = _groups(groups, [r.name for r in run_objs])
        st = D.run_depth_study(
            q, run_objs, pool_depth, ks, metric_list, reg, names, reference_depth, deep, vk,
            order, not no_leave_out, grp, alpha, resolve_jobs(jobs), condensed,
            progress=lambda m: click.echo(f"[study depth] {m}", err=True),
            client=open_client(dask_address))
    except (MeasureError, ValueError) as e:
        _fail(str(e))
    table = D.depth_table(st, systems)
    if fmt == "tsv":
        sys.stdout.write(table.to_csv(sep="\t", index=False))
    elif fmt == "json":
        from ..evaluation.output import dump_json

        dump_json({"table": table.to_dict(orient="records"), "pool": st.pool_info}, sys.stdout)
    else:
        nc = int(st.contributing.sum())
        click.echo(f"{len(st.systems)} runs ({nc} contributing), {len(st.topics)} topics, "
                   f"pool depth {st.pool_depth}, reference depth {st.reference_depth}, "
                   f"ties {order}, alpha {alpha}; systems in the tables: {systems}")
        click.echo(f"pool: {json.dumps(st.pool_info)}")
        click.echo("\nDiscrimination / coverage / inversion (%), ordering agreement")
        click.echo(_fmt_table(table))
    extra = _extra_tables(st, D)
    if fmt == "table":
        for title, df in extra.items():
            if df is not None:
                click.echo(f"\n{title}")
                click.echo(_fmt_table(df))
    if out_dir:
        written = _write_outputs(st, D, table, extra, out_dir, systems, cross,
                                 vol_stats or ("tau",))
        click.echo("\nwrote " + " ".join(written), err=fmt != "table")


def _extra_tables(st, D) -> dict:
    out = {"Pool counts per run and topic (Lu 2018 Table 5.2)": D.counts_table(st)}
    if st.loo is not None:
        out[f"Leave one run out at k = d = {st.pool_depth} (Table 5.3a)"] = D.leave_out_table(
            st.loo, st.metrics)
    if st.logo is not None:
        out[f"Leave one group out at k = d = {st.pool_depth} (Table 5.3b)"] = D.leave_out_table(
            st.logo, st.metrics)
    ns = D.new_systems_table(st)
    if ns is not None:
        out["Shallow against deep judgments, per run set (system bias)"] = ns
    return out


def _write_outputs(st, D, table, extra, out_dir, systems, cross,
                   vol_stats=("tau",)) -> list[str]:
    from ..studies.plots import plot_coverage, plot_volatility

    os.makedirs(out_dir, exist_ok=True)
    written = []

    def tsv(df, name):
        p = os.path.join(out_dir, name)
        df.to_csv(p, sep="\t", index=False, float_format="%.6g")
        written.append(p)

    tsv(table, "depth_table.tsv")
    for title, df in extra.items():
        key = ("pool_counts.tsv" if "Pool counts" in title else
               "leave_one_run_out.tsv" if "run out" in title else
               "leave_one_group_out.tsv" if "group out" in title else "new_systems.tsv")
        if df is not None:
            tsv(df, key)
    written += plot_coverage(table, os.path.join(out_dir, "coverage"), st.pool_depth)
    mats = {m: D.volatility(st, m, systems=systems) for m in st.metrics}
    pairs = [tuple(_split([c])) for c in cross] if cross else [
        (a, b) for i, a in enumerate(st.metrics) for b in st.metrics[i + 1:]][:3]
    for a, b in pairs:
        if a in st.metrics and b in st.metrics:
            mats[f"{a} vs {b}"] = D.volatility(st, a, b, systems=systems)
    import pandas as pd

    for name, M in mats.items():
        safe = "".join(c if c.isalnum() else "_" for c in name).strip("_")
        df = pd.DataFrame(M, index=st.vol_depths, columns=st.vol_depths)
        p = os.path.join(out_dir, f"volatility_{safe}.tsv")
        df.to_csv(p, sep="\t", float_format="%.4f")
        written.append(p)
    written += plot_volatility(mats, st.vol_depths, os.path.join(out_dir, "volatility"),
                               st.pool_depth)
    for stat in vol_stats:
        if stat == "tau":
            continue
        sm = {m: D.volatility(st, m, systems=systems, stat=stat) for m in st.metrics}
        for a, b in pairs:
            if a in st.metrics and b in st.metrics:
                sm[f"{a} vs {b}"] = D.volatility(st, a, b, systems=systems, stat=stat)
        for name, M in sm.items():
            safe = "".join(c if c.isalnum() else "_" for c in name).strip("_")
            p = os.path.join(out_dir, f"volatility_{stat}_{safe}.tsv")
            pd.DataFrame(M, index=st.vol_depths, columns=st.vol_depths).to_csv(
                p, sep="\t", float_format="%.4f")
            written.append(p)
        written += plot_volatility(sm, st.vol_depths,
                                   os.path.join(out_dir, f"volatility_{stat}"), st.pool_depth)
    from ..studies.plots import plot_score_curves

    written += plot_score_curves(st, os.path.join(out_dir, "scores_by_depth"), systems)
    return written
