"""``tiebreak study estimate``: estimators of deep RBP against deep judgments (Lu 2018, ch. 6);
the computation is :mod:`tiebreak.studies.estimate`."""

from __future__ import annotations

import os
import sys

import click

from .common import _fail, dask_option, open_client, renamed_option, resolve_jobs
from .judgment_options import (
    CONTRIB_HELP,
    _contributing,
    _fmt_table,
    _ints,
    _load,
    _models,
    _rbp_p,
    _split,
)


@click.command("estimate")
@click.option("--qrels", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Deprecated alias: give QRELS as the first argument.")
@click.option("--pool-depth", "dprimes", default="10,20,30,50", show_default=True,
              help="Shallow pool depths d' to simulate.")
@click.option("--reference-depth", "depth", type=int, default=100, show_default=True,
              help="Reference depth d: RBP is scored to d.")
@click.option("-m", "--measure", "metric", default="RBP(p=0.95)", show_default=True,
              metavar="MEASURE", help="The deep measure, RBP(p=P).")
@renamed_option("--metric", "metric", "-m/--measure", metavar="MEASURE")
@click.option("--models", default="lin,zipf,weibull", show_default=True,
              help="Models of the two-stage estimators.")
@click.option("--loss", "losses", default="a,b", show_default=True, help="Losses: a, b or a,b.")
@click.option("--theta", "thetas", default="0.018", show_default=True,
              help="Chao-Lee gates for the gated variants (comma-separated; '' for none).")
@click.option("--contributing", default=None, help=CONTRIB_HELP)
@click.option("--ties", "order", type=click.Choice(["trec_eval", "file"]), default="trec_eval",
              show_default=True)
@click.option("--leave-one-out", is_flag=True,
              help="Also estimate each contributing run from a pool without it (system bias).")
@click.option("--two-strata", "rate", type=float, default=0.1, show_default=True,
              help="Sampling rate of stratum 2 for the InfRBP estimator (0 = leave it out).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the sample (and of --dropout).")
@click.option("--baselines", default="lb,ub,mid,rm,infrbp,webber-park,anti-precision,prediction",
              show_default=True,
              help="Baselines beside the gain-model estimators: lb, ub, mid (midpoint), rm "
                   "(Ravana & Moffat 2010), infrbp (two-strata sample), webber-park (Webber & "
                   "Park 2009 leave-one-out score adjustment), anti-precision (after Lipani, "
                   "Lupu & Hanbury 2015), prediction (relevance of unjudged documents predicted "
                   "from their ranks, after Buttcher et al. 2007 / Carterette & Allan 2007), "
                   "content and hybrid (predicted from the documents' text, or text and ranks, "
                   "after Jayasinghe et al. 2014; need --index, which adds them by default).")
@click.option("--index", "index_path", default=None, type=click.Path(exists=True,
                                                                      file_okay=False),
              help="The collection's tiebreak index: adds the content (relevance predicted "
                   "from the documents' text) and hybrid (text and ranks) baselines, after "
                   "Jayasinghe et al. 2014, to the default --baselines.")
@click.option("--dropout", type=click.FloatRange(0, 1, max_open=True), default=0.0,
              show_default=True,
              help="Also the two-stage estimators with run drop-out (Lu 2018 Section 7.2.2): "
                   "the mean over --resamples refits, each without this share of the "
                   "contributing runs (drawn with --seed).")
@click.option("--resamples", type=click.IntRange(min=1), default=10, show_default=True,
              help="Draws of --dropout.")
@click.option("--sampled-orderings", "n_samples", type=int, default=0, show_default=True,
              help="Also draw this many two-strata samples per d' (rate --two-strata) and "
                   "compare the orderings of InfRBP, L_a/L_b fitted on the sampled judgments, "
                   "LB and infAP with the deep ones (Fig. 6.11).")
@click.option("--topics", default=None, help="Topics to keep, e.g. 601-650.")
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "json"]), default="table",
              show_default=True)
@click.option("--out", "out_dir", default=None, type=click.Path(file_okay=False),
              help="Directory for TSV tables and figures.")
@click.option("-j", "--jobs", type=int, default=0, show_default="all cores",
              help="Processes (one shallow depth each; 0 = all cores).")
@dask_option("Estimate (one shallow depth per task)")
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True),
                metavar="QRELS RUNS...")
def study_estimate_cmd(qrels, dprimes, depth, metric, models, losses, thetas, contributing,
                       order, leave_one_out, rate, seed, baselines, index_path, dropout,
                       resamples, n_samples, topics, fmt, out_dir, jobs, dask_address, runs):
    """Estimating deep RBP from simulated shallow pools against the deep truth (Lu 2018 ch. 6).

    Per shallow depth d' and estimator: RMSE of the error against the deep [LB, UB] range
    (per topic over systems, averaged; and per system), Acc% (estimates inside the range),
    MAE, normalised Kendall tau distance and significance-weighted distance of the system
    ordering against the deep one; the goodness of fit of each gain model; with
    --leave-one-out the same for runs left out of the pool.
    """
    from .common import split_qrels

    qrels, runs = split_qrels(qrels, runs)
    from ..judgments.pool import run_lists
    from ..studies import estimate as ES

    p = _rbp_p(metric)
    mlist = _models(models)
    loss_list = _split([losses])
    if not loss_list or any(x not in ("a", "b") for x in loss_list):
        raise click.BadParameter("losses are a and/or b", param_hint="--loss")
    try:
        th = [float(x) for x in _split([thetas])]
    except ValueError:
        raise click.BadParameter("thetas must be numbers", param_hint="--theta") from None
    q, run_objs = _load(qrels, runs, topics)
    blist = _split([baselines])
    if index_path is not None and click.get_current_context().get_parameter_source(
            "baselines") == click.core.ParameterSource.DEFAULT:
        blist += ["content", "hybrid"]
    try:
        names = _contributing(contributing, run_lists(run_objs, q, order), q)
        index = None
        if index_path is not None:
            from .judgment_options import _text_index

            index = _text_index(index_path)
        st = ES.run_estimate_study(
            q, run_objs, _ints(dprimes, "--pool-depth"), depth, p, names, mlist, loss_list, th,
            order, leave_one_out, resolve_jobs(jobs), rate, seed, blist,
            progress=lambda m: click.echo(f"[study estimate] {m}", err=True),
            client=open_client(dask_address), index=index, dropout=dropout,
            resamples=resamples)
    except ValueError as e:
        _fail(str(e))
    acc = ES.accuracy_table(st)
    fit = ES.fit_table(st)
    sampled = None
    if n_samples > 0:
        import pandas as pd

        if not rate:
            _fail("--sampled-orderings needs a --two-strata rate > 0")
        parts = []
        for dp in st.dprimes:
            df = ES.sampled_orderings(q, run_objs, dp, rate, depth, p, st.runs,
                                      range(seed, seed + n_samples), loss_list, order)
            df.insert(0, "dprime", dp)
            parts.append(df)
        sampled = (pd.concat(parts).groupby(["dprime", "estimator"], sort=False)
                   [["tau_dist", "wdist"]].agg(["mean", "std"]).reset_index())
        sampled.columns = ["_".join(c).strip("_") for c in sampled.columns]
    loo = ES.accuracy_table(st, loo=True) if leave_one_out else None
    if fmt == "tsv":
        sys.stdout.write(acc.to_csv(sep="\t", index=False))
    elif fmt == "json":
        from ..evaluation.output import dump_json

        dump_json({"accuracy": acc.to_dict(orient="records"),
                   "fit": fit.to_dict(orient="records"),
                   "leave_one_out": None if loo is None else loo.to_dict(orient="records"),
                   "sampled_orderings": None if sampled is None
                   else sampled.to_dict(orient="records")},
                  sys.stdout, indent=1)
    else:
        click.echo(f"{len(st.runs)} contributing runs, {len(st.topics)} topics, "
                   f"RBP(p={p})@{depth}; truth = deep qrels [LB, UB]")
        click.echo("\nGoodness of fit, RMSE on ranks d'..d (Table 6.4)")
        click.echo(_fmt_table(fit, "{:.4f}"))
        click.echo("\nAccuracy against the deep range (Tables 6.5-6.9); RMSE: Eq. 6.3, per "
                   "topic over systems, mean over topics; RMSE_sys: Section 6.3.1, per system "
                   "over topics, mean over systems")
        click.echo(_fmt_table(acc, "{:.4f}"))
        if loo is not None:
            click.echo("\nLeave one run out (system bias, Table 6.8)")
            click.echo(_fmt_table(loo, "{:.4f}"))
        if sampled is not None:
            click.echo(f"\nOrderings from {n_samples} two-strata samples against the deep "
                       "ones (Fig. 6.11; infAP against AP)")
            click.echo(_fmt_table(sampled, "{:.4f}"))
    if out_dir:
        from ..studies.plots import plot_estimates, plot_gain_fits

        os.makedirs(out_dir, exist_ok=True)
        written = []
        for df, name in ((acc, "accuracy.tsv"), (fit, "fit.tsv"), (loo, "leave_one_out.tsv"),
                         (sampled, "sampled_orderings.tsv")):
            if df is not None:
                path = os.path.join(out_dir, name)
                df.to_csv(path, sep="\t", index=False)
                written.append(path)
        written += plot_gain_fits(st, os.path.join(out_dir, "gain_fits"))
        written += plot_estimates(st, os.path.join(out_dir, "estimates"))
        click.echo("\nwrote " + " ".join(written), err=fmt != "table")
