"""Commands ``tiebreak pool`` and ``tiebreak estimate`` (the studies live in
:mod:`tiebreak.studies`).

Registered lazily in :data:`tiebreak.cli.LAZY_COMMANDS` / :data:`tiebreak.cli.LAZY_STUDIES`;
heavy modules are imported inside the commands.
"""

from __future__ import annotations

import sys

import click

from ..cli import _fail
from .cliopts import (
    CONTRIB_HELP,
    ORDER_HELP,
    _contributing,
    _fmt_table,
    _load,
    _models,
    _rbp_p,
    _stdout_latin1,
)

# --------------------------------------------------------------------------------- pool


@click.command("pool")
@click.argument("qrels", type=click.Path(allow_dash=True))
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("-d", "--depth", type=int, default=10, show_default=True,
              help="Pool depth d (stratum-1 depth for two-strata; budget reference for A/B/C).")
@click.option("--method", type=click.Choice(["depth", "uniform", "two-strata", "A", "B", "C"]),
              default="depth", show_default=True,
              help="depth: top-d union; uniform: a sample of the depth-dmax pool; two-strata: "
                   "top d plus a sample to dmax (Voorhees 2014); A/B/C: targeted judgments "
                   "(Moffat, Webber & Zobel 2007; C simulates the assessor with the qrels).")
@click.option("--contributing", default=None, help=CONTRIB_HELP)
@click.option("--ties", "order", type=click.Choice(["trec_eval", "file", "include"]),
              default="trec_eval", show_default=True, help=ORDER_HELP)
@click.option("--rate", type=float, default=0.1, show_default=True,
              help="Sampling rate (uniform, two-strata).")
@click.option("--dmax", type=int, default=100, show_default=True,
              help="Deepest rank sampled (uniform, two-strata) or weighted (A/B/C).")
@click.option("--budget", type=int, default=None,
              help="Documents per topic for A/B/C (default: the size of the depth-d pool).")
@click.option("--p", "persistence", type=float, default=0.8, show_default=True,
              help="RBP persistence of the A/B/C weights.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--topics", default=None, help="Topics to keep, e.g. 601-650 or 1,3,5.")
@click.option("--unjudged", is_flag=True,
              help="Also write pooled documents the qrels do not judge (and unsampled "
                   "candidates) with relevance -1, trec_eval's 'pooled but unjudged'.")
def pool_cmd(qrels, runs, depth, method, contributing, order, rate, dmax, budget, persistence,
             seed, topics, unjudged):
    """Build the judgment pool of RUNS, or simulate a shallower pool from deep QRELS.

    Writes TREC qrels to standard output: the QRELS judgments of the pooled documents (with
    --unjudged, also the pooled documents QRELS lacks, as -1). To build a fresh pool, give an
    empty QRELS (e.g. /dev/null): every pooled document is written with relevance -1. A summary
    (pool size, judgments kept, tied groups straddling the pool depth) goes to standard error.
    RUNS may be files or directories.
    """
    from .pool import make_pool, restrict_qrels, run_lists, topics_only_qrels, write_qrels

    q, run_objs = _load(qrels, runs, topics)
    fresh = len(q.topics) == 0
    if fresh:
        q = topics_only_qrels(run_objs)
        unjudged = True
    if method == "C" and fresh:
        _fail("method C needs judgments (it simulates the assessor with QRELS)")
    try:
        L = run_lists(run_objs, q, order)
        names = _contributing(contributing, L, q)
        P = make_pool(L, method, depth, names, rate, dmax, seed, budget, persistence, q)
        out = restrict_qrels(q, P, with_unjudged=unjudged)
    except ValueError as e:
        _fail(str(e))
    fh = _stdout_latin1()
    n = write_qrels(out, fh)
    fh.flush()
    fh.detach()  # leave sys.stdout open
    bt = P.boundary_ties
    ncontrib = len(P.contributing)
    msg = (f"pool: method={method} depth={depth} ties={order} contributing={ncontrib}/"
           f"{len(run_objs)} topics={len(q.topics)} pooled={len(P)} "
           f"(mean {len(P) / max(len(q.topics), 1):.1f} per topic)")
    if len(P.pooled_unjudged):
        msg += f" pooled-unsampled={len(P.pooled_unjudged)}"
    if not fresh:
        msg += (f"; judgments kept {int((out.value >= 0).sum())} of {len(q)}, relevant "
                f"{int(out.num_rel().sum())} of {int(q.num_rel().sum())}")
    msg += f"; wrote {n} lines"
    click.echo(msg, err=True)
    if bt:
        click.echo(f"ties at depth {depth}: {bt['groups']} (run, topic) tied groups straddle "
                   f"the boundary ({bt['inside']} documents inside, {bt['outside']} outside"
                   + (f", {bt['added']} added by --ties include" if bt.get("added") else "")
                   + ")", err=True)


# --------------------------------------------------------------------------- study depth


# ------------------------------------------------------------------------------ estimate


@click.command("estimate")
@click.option("--qrels", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Deprecated alias: give QRELS (the shallow judgments) as the first argument.")
@click.option("--metric", default="RBP(p=0.95)", show_default=True,
              help="The deep metric: RBP(p=...).")
@click.option("--depth", type=int, default=100, show_default=True, help="Scoring depth d.")
@click.option("--dprime", type=int, default=None,
              help="Pool depth d' of the qrels (default per topic: the depth to which every "
                   "contributing run is judged).")
@click.option("--models", default="lin,zipf,weibull", show_default=True,
              help="Rank-level gain models combined by the two-stage estimator.")
@click.option("--loss", type=click.Choice(["a", "b"]), default="b", show_default=True,
              help="L_a (system level) or L_b (document level).")
@click.option("--theta", type=float, default=0.018, show_default=True,
              help="Chao-Lee gate on gamma / n: topics at or below keep unjudged = 0.")
@click.option("--estimator", default=None,
              help="Which estimate to write: L_a/L_b (default, by --loss), LB, UB, mid, RM, "
                   "static, const, lin, zipf, weibull.")
@click.option("--contributing", default=None, help=CONTRIB_HELP)
@click.option("--ties", "order", type=click.Choice(["trec_eval", "file"]), default="trec_eval",
              show_default=True, help="Tie order of the runs.")
@click.option("--clip", is_flag=True, help="Clip estimates to [lower, upper].")
@click.option("--gains", "gains_path", default=None, type=click.Path(dir_okay=False),
              help="Write per-document estimated gains (qid docno gain) of the two-stage "
                   "estimator to this file.")
@click.option("--topics", default=None, help="Topics to keep, e.g. 601-650.")
@click.option("--deep-qrels", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Deeper judgments of the same topics: also print every estimator's accuracy "
                   "against their [LB, UB] range, for contributing and other runs (stderr "
                   "unless --format table).")
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "json"]), default="table",
              show_default=True)
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True),
                metavar="QRELS RUNS...")
def estimate_cmd(qrels, metric, depth, dprime, models, loss, theta, estimator, contributing,
                 order, clip, gains_path, topics, deep_qrels, fmt, runs):
    """Estimate deep RBP scores of RUNS from shallow QRELS (Lu 2018, ch. 6).

    Writes, per run and topic, the estimate and the range [lower, upper] the shallow judgments
    allow (unjudged = 0 / unjudged = 1, tail included), with the topic's Chao-Lee gamma / n and
    whether it was adjusted.
    """
    from ..cli import split_qrels

    qrels, runs = split_qrels(qrels, runs)
    from .estimate import estimate_scores
    from .pool import run_lists

    p = _rbp_p(metric)
    mlist = _models(models)
    q, run_objs = _load(qrels, runs, topics)
    est_name = estimator or f"L_{loss}"
    try:
        L = run_lists(run_objs, q, order)
        names = _contributing(contributing, L, q) or list(L.names)
        from ..output import Progress

        with Progress(len(q.topics), "estimate", "topics") as bar:
            E = estimate_scores(L, q, names, dprime, p, depth, mlist, (loss,), theta,
                                rank_level=[m for m in ("static", "const", "lin", "zipf",
                                                        "weibull")],
                                clip=clip, progress=lambda _t: bar.update(1))
        if est_name not in E.estimators:
            _fail(f"--estimator {est_name}: choose from {', '.join(E.estimators)}")
    except ValueError as e:
        _fail(str(e))
    S = E.get(est_name)
    rows = [(r, t, float(S[i, j]), float(E.lower[i, j]), float(E.upper[i, j]),
             float(E.gamma[j]), bool(E.adjusted[j]))
            for i, r in enumerate(E.runs) for j, t in enumerate(E.topics)]
    cols = ("run", "qid", "estimate", "lower", "upper", "gamma_n", "adjusted")
    if fmt == "tsv":
        sys.stdout.write("\t".join(cols) + "\n")
        for r in rows:
            sys.stdout.write(f"{r[0]}\t{r[1]}\t{r[2]!r}\t{r[3]!r}\t{r[4]!r}\t{r[5]!r}\t"
                             f"{int(r[6])}\n")
    elif fmt == "json":
        from ..output import dump_json

        dump_json([dict(zip(cols, r)) for r in rows], sys.stdout)
    else:
        click.echo(f"{est_name} estimate of RBP(p={p})@{depth}, mean over topics "
                   f"({int(E.adjusted.sum())} of {len(E.topics)} topics adjusted, "
                   f"theta={theta})")
        click.echo(f"{'run':30s} {'estimate':>9s} {'lower':>9s} {'upper':>9s}")
        for i, r in enumerate(E.runs):
            click.echo(f"{r:30s} {S[i].mean():9.4f} {E.lower[i].mean():9.4f} "
                       f"{E.upper[i].mean():9.4f}")
    if deep_qrels:
        _estimate_accuracy(E, names, run_objs, deep_qrels, topics, q, p, depth, fmt)
    if gains_path:
        with open(gains_path, "w", encoding="latin-1") as fh:
            fh.write("qid\tdocno\tgain\n")
            for (name, t), (docs, g) in sorted(E.doc_gains.items(), key=lambda x: x[0][1]):
                if name != f"L_{loss}":
                    continue
                for d, v in zip(docs, g):
                    fh.write(f"{E.topics[t]}\t{L.docnos[d]}\t{float(v)!r}\n")


def _estimate_accuracy(E, names, run_objs, deep_path, topics, q, p, depth, fmt) -> None:
    import numpy as np
    import pandas as pd

    from ..io import InputError, read_qrels
    from .estimate import accuracy, tau_distance, weighted_distance
    from .pool import subset_topics
    from .scoring import score_runs

    try:
        deep = subset_topics(read_qrels(deep_path), list(q.topics))
    except (InputError, ValueError) as e:
        _fail(str(e))
    tr = score_runs(deep, run_objs, [f"RBP(p={p})"], [depth])
    lb = tr["scores"][:, 0, 0, 0]
    ub = lb + tr["residual"][:, 0, 0, 0]
    contrib = np.array([r in set(names) for r in E.runs])
    rows = []
    for e in E.estimators:
        S = E.get(e)
        row = {"estimator": e}
        for label, sel in (("contrib", contrib), ("new", ~contrib), ("all", np.ones_like(contrib))):
            if sel.any():
                a = accuracy(S[sel], lb[sel], ub[sel])
                row[f"RMSE_{label}"] = a["RMSE"]
                row[f"Acc_{label}"] = a["Acc"]
        row["tau_dist"] = tau_distance(lb.mean(1), S.mean(1))
        row["wdist"] = weighted_distance(lb, S)
        rows.append(row)
    text = (f"\nAccuracy against {deep_path} [LB, UB] of RBP(p={p})@{depth} "
            f"({int(contrib.sum())} contributing, {int((~contrib).sum())} other runs)\n"
            + _fmt_table(pd.DataFrame(rows), "{:.4f}"))
    click.echo(text, err=fmt != "table")
