"""Commands ``tiebreak pool``, ``tiebreak estimate``, ``tiebreak study depth`` and
``tiebreak study estimate``.

Registered lazily in :data:`tiebreak.cli.LAZY_COMMANDS` / :data:`tiebreak.cli.LAZY_STUDIES`;
heavy modules are imported inside the commands.
"""

from __future__ import annotations

import io
import json
import os
import sys

import click

from ..cli import _fail, dask_option, open_client

ORDER_HELP = ("Tie rule at the pool boundary: trec_eval (score desc, then docno desc), file "
              "(run-file line order, as NTCIR), include (trec_eval order, but a tied group that "
              "straddles depth d is pooled whole).")
CONTRIB_HELP = ("Runs that form the pool: a file of run names (one a line), a comma-separated "
                "list of names, or 'judged@D' = the runs whose top D documents the qrels judge "
                "on every topic (an inference when the official list is unknown). Default: all.")


def _split(values) -> list[str]:
    return [v.strip() for s in values for v in s.split(",") if v.strip()]


def _ints(text: str, what: str) -> list[int]:
    out = []
    for part in _split([text]):
        a, sep, b = part.partition("-")
        try:
            if sep:
                out.extend(range(int(a), int(b) + 1))
            else:
                out.append(int(part))
        except ValueError:
            raise click.BadParameter(f"{part!r} is not an integer or a range a-b",
                                     param_hint=what) from None
    if not out or min(out) < 1:
        raise click.BadParameter("depths must be positive integers", param_hint=what)
    return out


def _load(qrels_path, run_args, topics):
    """Read qrels and runs; restrict to topics. Errors exit with status 2."""
    from ..io import InputError, read_qrels, read_run, run_paths
    from .pool import parse_topics, subset_topics

    try:
        q = read_qrels(qrels_path)
        if topics:
            q = subset_topics(q, parse_topics(topics, q.topics))
        runs = [read_run(p) for p in run_paths(run_args)]
    except (InputError, ValueError) as e:
        _fail(str(e))
    if not runs:
        _fail("no run files")
    seen: dict[str, int] = {}
    for r in runs:
        if r.name in seen:
            seen[r.name] += 1
            r.name = f"{r.name}#{seen[r.name]}"
        else:
            seen[r.name] = 1
    return q, runs


def _contributing(spec, L, qrels) -> list[str] | None:
    from .pool import infer_contributing

    if not spec:
        return None
    if spec.startswith("judged@"):
        try:
            d = int(spec.split("@", 1)[1])
        except ValueError:
            _fail(f"--contributing {spec}: expected judged@DEPTH")
        return infer_contributing(L, qrels, d)
    if os.path.isfile(spec):
        with open(spec, encoding="utf-8") as fh:
            names = [ln.split()[0] for ln in fh if ln.strip() and not ln.startswith("#")]
    else:
        names = _split([spec])
    bad = [n for n in names if n not in L.names]
    if bad:
        _fail(f"--contributing: not among the runs: {', '.join(bad[:5])}")
    return names


def _groups(spec, names) -> dict[str, str] | None:
    """``--groups FILE`` (run<TAB>group lines) or ``prefix`` (name up to the first - _ .)."""
    import re

    if not spec:
        return None
    if spec == "prefix":
        return {n: re.split(r"[-_.]", n, maxsplit=1)[0] for n in names}
    out = {}
    try:
        with open(spec, encoding="utf-8") as fh:
            for i, ln in enumerate(fh, 1):
                if not ln.strip() or ln.startswith("#"):
                    continue
                f = ln.split()
                if len(f) != 2:
                    _fail(f"{spec}:{i}: expected 'run group', got {ln.strip()!r}")
                out[f[0]] = f[1]
    except OSError as e:
        _fail(f"{spec}: cannot read: {e.strerror}")
    return out


def _stdout_latin1():
    return io.TextIOWrapper(sys.stdout.buffer, encoding="latin-1", errors="strict",
                            newline="\n", write_through=True)


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


def _fmt_table(df, floatfmt="{:.3f}"):
    return df.to_string(index=False, float_format=lambda x: floatfmt.format(x))


@click.command("depth")
@click.option("--qrels", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Qrels: deep ones with --pool-depth (a shallow pool is simulated), else the "
                   "shallow pool itself.")
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
@click.option("--topics", default=None, help="Topics to keep, e.g. 601-650.")
@click.option("--alpha", type=float, default=0.05, show_default=True)
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "json"]), default="table",
              show_default=True, help="Format of the main table on standard output.")
@click.option("--out", "out_dir", default=None, type=click.Path(file_okay=False),
              help="Directory for TSV tables and figures (none written without it).")
@click.option("-j", "--jobs", type=int, default=1, show_default=True,
              help="Processes for evaluation.")
@dask_option("Score the runs")
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True))
def depth_cmd(qrels, pool_depth, reference_depth, deep_qrels, eval_depths, vol_depths, metrics,
              regimes, order, contributing, systems, groups, no_leave_out, condensed, cross,
              topics, alpha, fmt, out_dir, jobs, dask_address, runs):
    """Evaluation depth against pooling depth (Lu 2018, ch. 5) for RUNS.

    Per metric and evaluation depth k: discrimination, coverage and inversion ratio against the
    metric at the reference depth, median p-value, Kendall tau and tau_AP of the system
    ordering (against the reference, and against the deep qrels when known), mean score, RBP
    residual and unjudged share of the top k. Also the volatility matrices, leave-one-run-out
    (and leave-group-out) at k = d, Table 5.2 pool counts and, with deep qrels, the bias of
    non-contributing ("new") systems.
    """
    from ..io import InputError, read_qrels
    from ..measures import MeasureError
    from . import depth as D
    from .pool import parse_topics, run_lists, subset_topics

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
            order, not no_leave_out, grp, alpha, jobs, condensed,
            progress=lambda m: click.echo(f"[study depth] {m}", err=True),
            client=open_client(dask_address))
    except (MeasureError, ValueError) as e:
        _fail(str(e))
    table = D.depth_table(st, systems)
    if fmt == "tsv":
        sys.stdout.write(table.to_csv(sep="\t", index=False, float_format="%.6g"))
    elif fmt == "json":
        json.dump({"table": table.to_dict(orient="records"), "pool": st.pool_info},
                  sys.stdout, indent=1, default=str)
        sys.stdout.write("\n")
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
        written = _write_outputs(st, D, table, extra, out_dir, systems, cross)
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


def _write_outputs(st, D, table, extra, out_dir, systems, cross) -> list[str]:
    from .plots import plot_coverage, plot_volatility

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
    return written


# ------------------------------------------------------------------------------ estimate


def _rbp_p(metric: str) -> float:
    from ..measures import MeasureError, parse_measure

    try:
        m = parse_measure(metric)
    except MeasureError as e:
        _fail(str(e))
    if m.family.name != "RBP" or m.cutoff is not None or m["gains"] is not None:
        _fail(f"--metric {metric}: only RBP(p=...) can be estimated (give the depth with "
              "--depth)")
    return float(m["p"])


def _models(text: str) -> list[str]:
    from .estimate import MODELS

    out = _split([text])
    bad = [m for m in out if m not in MODELS]
    if bad or not out:
        raise click.BadParameter(f"choose from {', '.join(MODELS)}", param_hint="--models")
    return out


@click.command("estimate")
@click.option("--qrels", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Shallow judgments (a depth-d' pool).")
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
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True))
def estimate_cmd(qrels, metric, depth, dprime, models, loss, theta, estimator, contributing,
                 order, clip, gains_path, topics, deep_qrels, fmt, runs):
    """Estimate deep RBP scores of RUNS from shallow QRELS (Lu 2018, ch. 6).

    Writes, per run and topic, the estimate and the range [lower, upper] the shallow judgments
    allow (unjudged = 0 / unjudged = 1, tail included), with the topic's Chao-Lee gamma / n and
    whether it was adjusted.
    """
    from .estimate import estimate_scores
    from .pool import run_lists

    p = _rbp_p(metric)
    mlist = _models(models)
    q, run_objs = _load(qrels, runs, topics)
    est_name = estimator or f"L_{loss}"
    try:
        L = run_lists(run_objs, q, order)
        names = _contributing(contributing, L, q) or list(L.names)
        E = estimate_scores(L, q, names, dprime, p, depth, mlist, (loss,), theta,
                            rank_level=[m for m in ("static", "const", "lin", "zipf", "weibull")],
                            clip=clip)
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
            sys.stdout.write(f"{r[0]}\t{r[1]}\t{r[2]:.6f}\t{r[3]:.6f}\t{r[4]:.6f}\t{r[5]:.6f}\t"
                             f"{int(r[6])}\n")
    elif fmt == "json":
        json.dump([dict(zip(cols, r)) for r in rows], sys.stdout, indent=1)
        sys.stdout.write("\n")
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
                    fh.write(f"{E.topics[t]}\t{L.docnos[d]}\t{v:.6f}\n")


def _estimate_accuracy(E, names, run_objs, deep_path, topics, q, p, depth, fmt) -> None:
    import numpy as np
    import pandas as pd

    from ..io import InputError, read_qrels
    from .depth import score_runs
    from .estimate import accuracy, tau_distance, weighted_distance
    from .pool import subset_topics

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


@click.command("estimate")
@click.option("--qrels", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Deep judgments (the ground truth).")
@click.option("--pool-depth", "dprimes", default="10,20,30,50", show_default=True,
              help="Shallow pool depths d' to simulate.")
@click.option("--reference-depth", "depth", type=int, default=100, show_default=True,
              help="Reference depth d: RBP is scored to d.")
@click.option("--metric", default="RBP(p=0.95)", show_default=True)
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
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the sample.")
@click.option("--topics", default=None, help="Topics to keep, e.g. 601-650.")
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "json"]), default="table",
              show_default=True)
@click.option("--out", "out_dir", default=None, type=click.Path(file_okay=False),
              help="Directory for TSV tables and figures.")
@click.option("-j", "--jobs", type=int, default=1, show_default=True,
              help="Processes (one shallow depth each).")
@dask_option("Estimate (one shallow depth per task)")
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True))
def study_estimate_cmd(qrels, dprimes, depth, metric, models, losses, thetas, contributing,
                       order, leave_one_out, rate, seed, topics, fmt, out_dir, jobs,
                       dask_address, runs):
    """Estimating deep RBP from simulated shallow pools against the deep truth (Lu 2018 ch. 6).

    Per shallow depth d' and estimator: RMSE of the error against the deep [LB, UB] range
    (per topic over systems, averaged; and per system), Acc% (estimates inside the range),
    MAE, normalised Kendall tau distance and significance-weighted distance of the system
    ordering against the deep one; the goodness of fit of each gain model; with
    --leave-one-out the same for runs left out of the pool.
    """
    from . import estimate as ES
    from .pool import run_lists

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
    try:
        names = _contributing(contributing, run_lists(run_objs, q, order), q)
        st = ES.run_estimate_study(
            q, run_objs, _ints(dprimes, "--pool-depth"), depth, p, names, mlist, loss_list, th,
            order, leave_one_out, jobs, rate, seed,
            progress=lambda m: click.echo(f"[study estimate] {m}", err=True),
            client=open_client(dask_address))
    except ValueError as e:
        _fail(str(e))
    acc = ES.accuracy_table(st)
    fit = ES.fit_table(st)
    loo = ES.accuracy_table(st, loo=True) if leave_one_out else None
    if fmt == "tsv":
        sys.stdout.write(acc.to_csv(sep="\t", index=False, float_format="%.6g"))
    elif fmt == "json":
        json.dump({"accuracy": acc.to_dict(orient="records"),
                   "fit": fit.to_dict(orient="records"),
                   "leave_one_out": None if loo is None else loo.to_dict(orient="records")},
                  sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        click.echo(f"{len(st.runs)} contributing runs, {len(st.topics)} topics, "
                   f"RBP(p={p})@{depth}; truth = deep qrels [LB, UB]")
        click.echo("\nGoodness of fit, RMSE on ranks d'..d (Table 6.4)")
        click.echo(_fmt_table(fit, "{:.4f}"))
        click.echo("\nAccuracy against the deep range (Tables 6.5-6.9)")
        click.echo(_fmt_table(acc, "{:.4f}"))
        if loo is not None:
            click.echo("\nLeave one run out (system bias, Table 6.8)")
            click.echo(_fmt_table(loo, "{:.4f}"))
    if out_dir:
        from .plots import plot_estimates, plot_gain_fits

        os.makedirs(out_dir, exist_ok=True)
        written = []
        for df, name in ((acc, "accuracy.tsv"), (fit, "fit.tsv"), (loo, "leave_one_out.tsv")):
            if df is not None:
                path = os.path.join(out_dir, name)
                df.to_csv(path, sep="\t", index=False, float_format="%.6g")
                written.append(path)
        written += plot_gain_fits(st, os.path.join(out_dir, "gain_fits"))
        written += plot_estimates(st, os.path.join(out_dir, "estimates"))
        click.echo("\nwrote " + " ".join(written), err=fmt != "table")
