"""``tiebreak study dropout``: the variance of a system's score under random judgment drop-out
(Lu 2018, Section 7.2.2); the computation is :mod:`tiebreak.studies.dropout`."""

from __future__ import annotations

import json
import os
import sys

import click

from .common import _fail
from .judgment_options import CONTRIB_HELP, _contributing, _fmt_table, _load, _split


@click.command("dropout")
@click.option("--qrels", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Deprecated alias: give QRELS (the pool's judgments) as the first argument.")
@click.option("--share", "shares", default="0.1,0.2,0.3,0.5", show_default=True,
              help="Shares of each topic's judgments dropped at random.")
@click.option("--repeats", type=int, default=20, show_default=True,
              help="Random drop-outs per share.")
@click.option("-m", "--metric", "metrics", default="AP@100,nDCG@100,RBP(p=0.8)@100,P@10",
              show_default=True, help="Measures with their cutoff (comma-separated).")
@click.option("--leave-one-out", is_flag=True,
              help="Score each contributing run as a new system: judgments of the depth "
                   "--pool-depth pool of the other contributing runs, then the drop-out.")
@click.option("--pool-depth", type=int, default=100, show_default=True,
              help="Pool depth for --leave-one-out.")
@click.option("--contributing", default=None, help=CONTRIB_HELP)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--topics", default=None, help="Topics to keep, e.g. 601-650.")
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "json"]), default="table",
              show_default=True)
@click.option("--out", "out_dir", default=None, type=click.Path(file_okay=False),
              help="Directory for the summary and per-run TSV tables.")
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True),
                metavar="QRELS RUNS...")
def dropout_cmd(qrels, shares, repeats, metrics, leave_one_out, pool_depth, contributing, seed,
                topics, fmt, out_dir, runs):
    """How stable is a system's score if a random share of the pool had not been judged?
    (Lu 2018, Section 7.2.2: randomisation and drop-out for new systems.)

    Per share and metric: the standard deviation over the repeats of each run's mean score
    (mean and largest over runs; as % of the full score), the mean shift from the full score,
    and Kendall's tau and the share of run pairs swapped against the full ordering.
    """
    import numpy as np
    import pandas as pd

    from ..judgments.pool import run_lists
    from ..studies import dropout as D
    from .common import split_qrels

    try:
        share_list = [float(x) for x in _split([shares])]
    except ValueError:
        raise click.BadParameter("shares must be numbers", param_hint="--share") from None
    qrels, runs = split_qrels(qrels, runs)
    q, run_objs = _load(qrels, runs, topics)
    try:
        names = _contributing(contributing, run_lists(run_objs, q), q) if contributing else None
        st = D.run_dropout_study(q, run_objs, share_list, repeats, _split([metrics]), seed,
                                 leave_one_out, names, pool_depth,
                                 progress=lambda m: click.echo(f"[study dropout] {m}",
                                                               err=True))
    except ValueError as e:
        _fail(str(e))
    except Exception as e:  # unknown measure names
        if type(e).__name__ == "MeasureError":
            _fail(str(e))
        raise
    tab = D.dropout_table(st)
    per_run = pd.DataFrame([{"share": s, "run": r, "metric": m, "full": st.full[i, j],
                             "mean": float(st.scores[a, :, i, j].mean()),
                             "sd": float(st.scores[a, :, i, j].std(ddof=1))
                             if repeats > 1 else 0.0}
                            for a, s in enumerate(st.shares) for i, r in enumerate(st.runs)
                            for j, m in enumerate(st.metrics)])
    if fmt == "tsv":
        sys.stdout.write(tab.to_csv(sep="\t", index=False, float_format="%.6g"))
    elif fmt == "json":
        json.dump({"summary": tab.to_dict(orient="records"),
                   "per_run": per_run.to_dict(orient="records")}, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        what = ("each run scored on the pool of the others" if leave_one_out
                else "every run scored on the same drop-outs")
        click.echo(f"{len(st.runs)} runs, {len(q.topics)} topics, {repeats} drop-outs per "
                   f"share; {what}")
        click.echo(_fmt_table(tab, "{:.4f}"))
        click.echo("(mean full scores: " + ", ".join(
            f"{m} {np.mean(st.full[:, j]):.4f}" for j, m in enumerate(st.metrics)) + ")")
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
        for df, name in ((tab, "dropout.tsv"), (per_run, "dropout_runs.tsv")):
            df.to_csv(os.path.join(out_dir, name), sep="\t", index=False, float_format="%.6g")
