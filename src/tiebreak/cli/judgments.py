"""Commands ``tiebreak pool`` and ``tiebreak estimate`` (the studies live in
:mod:`tiebreak.studies`).

Registered lazily in :data:`tiebreak.cli.LAZY_COMMANDS` / :data:`tiebreak.cli.LAZY_STUDIES`;
heavy modules are imported inside the commands.
"""

from __future__ import annotations

import sys

import click

from .common import _fail, allow_empty_option, renamed_option
from .judgment_options import (
    CONTRIB_HELP,
    ORDER_HELP,
    _contributing,
    _estimate_metric,
    _fmt_table,
    _load,
    _models,
    _stdout_latin1,
    _warn_uncovered,
)

# --------------------------------------------------------------------------------- pool


@click.command("pool")
@click.argument("qrels", type=click.Path(allow_dash=True))
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("-d", "--depth", type=click.IntRange(min=1), default=10, show_default=True,
              help="Pool depth d (stratum-1 depth for two-strata; budget reference for A/B/C).")
@click.option("--method", type=click.Choice(["depth", "uniform", "two-strata", "A", "B", "C",
                                            "mtf", "isj-sim"]),
              default="depth", show_default=True,
              help="depth: top-d union; uniform: a sample of the depth-dmax pool; two-strata: "
                   "top d plus a sample to dmax (Voorhees 2014); A/B/C: targeted judgments "
                   "(Moffat, Webber & Zobel 2007; C simulates the assessor with the qrels); "
                   "mtf: move-to-front (Cormack, Palmer & Clarke 1998), isj-sim: simulated "
                   "interactive searching and judging (both with the qrels as the assessor, "
                   "budget as for A/B/C).")
@click.option("--residual", type=float, default=None,
              help="Set the pool depth to the smallest d whose RBP residual p^d is below this "
                   "bound (with --p; Moffat & Zobel 2008, d ~ 9.21/(1-p) for 1e-4); replaces -d.")
@click.option("--contributing", default=None, help=CONTRIB_HELP)
@click.option("--ties", "order", type=click.Choice(["trec_eval", "file", "include"]),
              default="trec_eval", show_default=True, help=ORDER_HELP)
@click.option("--rate", type=float, default=0.1, show_default=True,
              help="Sampling rate (uniform, two-strata).")
@click.option("--dmax", type=click.IntRange(min=1), default=100, show_default=True,
              help="Deepest rank sampled (uniform, two-strata) or weighted (A/B/C).")
@click.option("--budget", type=click.IntRange(min=1), default=None,
              help="Documents per topic for A/B/C (default: the size of the depth-d pool).")
@click.option("--p", "persistence", type=float, default=0.8, show_default=True,
              help="RBP persistence of the A/B/C weights.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--topics", default=None, help="Topics to keep, e.g. 601-650 or 1,3,5.")
@click.option("--unjudged", is_flag=True,
              help="Also write pooled documents the qrels do not judge (and unsampled "
                   "candidates) with relevance -1, trec_eval's 'pooled but unjudged'.")
@allow_empty_option
def pool_cmd(qrels, runs, depth, method, residual, contributing, order, rate, dmax, budget,
             persistence, seed, topics, unjudged, allow_empty):
    """Build the judgment pool of RUNS, or simulate a shallower pool from deep QRELS.

    Writes TREC qrels to standard output: the QRELS judgments of the pooled documents (with
    --unjudged, also the pooled documents QRELS lacks, as -1). To build a fresh pool, give an
    empty QRELS (e.g. /dev/null): every pooled document is written with relevance -1. A summary
    (pool size, judgments kept, tied groups straddling the pool depth) goes to standard error.
    RUNS may be files or directories.
    """
    from ..judgments.pool import (
        make_pool,
        residual_depth,
        restrict_qrels,
        run_lists,
        topics_only_qrels,
        write_qrels,
    )

    if residual is not None:
        import math

        try:
            depth = residual_depth(residual, persistence)
        except ValueError as e:
            _fail(f"--residual: {e}")
        click.echo(f"pool: depth {depth} bounds the RBP(p={persistence}) residual p^d below "
                   f"{residual:g} (approximation -ln(eps)/(1-p) = "
                   f"{-math.log(residual) / (1 - persistence):.1f})", err=True)
    q, run_objs = _load(qrels, runs, topics, allow_empty=True, allow_empty_runs=allow_empty)
    fresh = len(q.topics) == 0
    if fresh:
        q = topics_only_qrels(run_objs)
        unjudged = True
    else:
        _warn_uncovered(run_objs, q, "the pool", topics)
    if method in ("C", "mtf", "isj-sim") and fresh:
        _fail(f"method {method} needs judgments (it simulates the assessor with QRELS)")
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
        kept = _kept(q, P)
        msg += (f"; judgments kept {int(kept.sum())} of {len(q)}, relevant "
                f"{int(out.num_rel().sum())} of {int(q.num_rel().sum())}")
        neg = q.value[kept] < -1
        if neg.any():
            vals = ", ".join(str(v) for v in sorted(set(q.value[kept][neg].tolist())))
            msg += f" ({int(neg.sum())} kept with negative grades {vals}, written as they are)"
    msg += f"; wrote {n} lines"
    click.echo(msg, err=True)
    if bt:
        click.echo(f"ties at depth {depth}: {bt['groups']} (run, topic) tied groups straddle "
                   f"the boundary ({bt['inside']} documents inside, {bt['outside']} outside"
                   + (f", {bt['added']} added by --ties include" if bt.get("added") else "")
                   + ")", err=True)


def _kept(q, P):
    """Which judgments of ``q`` the pool ``P`` keeps (bool (len(q),)): every grade counts,
    negative ones (-2 ...) too."""
    import numpy as np

    from ..judgments.pool import _qrels_keys_in

    keys, ok = _qrels_keys_in(q, P.docnos)
    return np.isin(keys, P.keys) & ok


# --------------------------------------------------------------------------- study depth


# ------------------------------------------------------------------------------ estimate


@click.command("estimate")
@click.option("--qrels", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Deprecated alias: give QRELS (the shallow judgments) as the first argument.")
@renamed_option("--metric", "metric", "-m/--measure", metavar="MEASURE")
@click.option("-m", "--measure", "metric", default="RBP(p=0.95)", show_default=True,
              metavar="MEASURE",
              help="The deep measure: RBP(p=...) (scored to --depth), or the recall-based "
                   "AP@k / nDCG@k (Lu 2018 ch. 7: the fitted gains plugged into AP and nDCG, "
                   "with the exact range over the unjudged documents of the runs' top k).")
@click.option("--depth", type=click.IntRange(min=1), default=100, show_default=True,
              help="Scoring depth d.")
@click.option("--dprime", type=click.IntRange(min=1), default=None,
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
@click.option("--gains-from", "gains_from", default=None,
              type=click.Path(exists=True, dir_okay=False),
              help="Read per-document gains (qid docno gain, as written by --gains) instead "
                   "of fitting: unjudged documents take their gain (0 when absent from the "
                   "file); the estimate column is this plug-in estimate.")
@click.option("--topics", default=None, help="Topics to keep, e.g. 601-650.")
@click.option("--deep-qrels", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Deeper judgments of the same topics: also print every estimator's accuracy "
                   "against their [LB, UB] range, for contributing and other runs (stderr "
                   "unless --format table).")
@click.option("--baselines", default="", show_default=False,
              help="Adjustments for unjudged documents to compute beside the gain models "
                   "(comma-separated; each becomes an --estimator and a row of --deep-qrels): "
                   "webber-park, anti-precision (both need --dprime), prediction (relevance "
                   "predicted from ranks), content (from the documents' text; needs --index), "
                   "hybrid (both; needs --index).")
@click.option("--index", "index_path", default=None, type=click.Path(exists=True,
                                                                      file_okay=False),
              help="The collection's tiebreak index, for --baselines content / hybrid.")
@click.option("--dropout", type=click.FloatRange(0, 1, max_open=True), default=0.0,
              show_default=True,
              help="Run drop-out inside the two-stage estimator (Lu 2018 Section 7.2.2): each "
                   "of --resamples draws refits on the contributing runs less this share, "
                   "dropped at random; the estimate L_a|dropout=F / L_b|dropout=F is the mean "
                   "(and the default --estimator).")
@click.option("--resamples", type=click.IntRange(min=1), default=10, show_default=True,
              help="Draws of --dropout.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of --dropout.")
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "json"]), default="table",
              show_default=True)
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True),
                metavar="QRELS RUNS...")
@allow_empty_option
def estimate_cmd(qrels, metric, depth, dprime, models, loss, theta, estimator, contributing,
                 order, clip, gains_path, gains_from, topics, deep_qrels, baselines, index_path,
                 dropout, resamples, seed, fmt, runs, allow_empty):
    """Estimate deep RBP, AP@k or nDCG@k scores of RUNS from shallow QRELS (Lu 2018, ch. 6-7).

    Writes, per run and topic, the estimate and the range [lower, upper] the shallow judgments
    allow (RBP: unjudged = 0 / unjudged = 1, tail included; AP@k, nDCG@k: the exact minimum and
    maximum over the unjudged documents of the runs' top k), with the topic's Chao-Lee gamma / n
    and whether it was adjusted.
    """
    import numpy as np

    from .common import split_qrels

    qrels, runs = split_qrels(qrels, runs)
    from ..judgments.dropout import estimate_with_dropout
    from ..judgments.estimate import MODELS
    from ..judgments.pool import run_lists
    from ..judgments.recall import gains_lookup, read_gains, recall_scores

    family, p, k = _estimate_metric(metric)
    if family != "RBP":
        p, depth = 0.95, k
    if not 0 <= theta < float("inf"):   # (NaN too)
        _fail(f"--theta {theta}: the Chao-Lee gate must be a finite number >= 0")
    mlist = _models(models)
    q, run_objs = _load(qrels, runs, topics, allow_empty_runs=allow_empty)
    _warn_uncovered(run_objs, q, "the estimates", topics)
    if not any(len(r.topic) for r in run_objs):
        _fail("the runs retrieve nothing (" + ", ".join(r.source or r.name for r in run_objs)
              + "): nothing to estimate")
    for r in run_objs:
        if not len(r.topic):
            click.echo(f"tiebreak: warning: run {r.name} retrieved nothing (an empty file, or "
                       "blank and comment lines only): its estimates are those of an empty "
                       "ranking", err=True)
    est_name = estimator or (f"L_{loss}|dropout={dropout:g}" if dropout else f"L_{loss}")
    blist = [b.strip() for b in baselines.split(",") if b.strip()]
    from ..judgments.adjust import TEXT_ADJUSTMENTS

    if index_path is not None and not set(TEXT_ADJUSTMENTS) & set(blist):
        _fail("--index is read by --baselines content / hybrid only; add one or drop --index")
    if (blist or dropout) and family != "RBP":
        _fail("--baselines and --dropout estimate RBP; drop them for AP@k / nDCG@k")
    if dropout and (gains_path or gains_from):
        _fail("--gains / --gains-from hold the two-stage gains of the full run set; drop "
              "--dropout")
    try:
        L = run_lists(run_objs, q, order)
        names = _contributing(contributing, L, q) or list(L.names)
        from ..evaluation.output import Progress

        with Progress(len(q.topics), "estimate", "topics") as bar:
            E = estimate_with_dropout(L, q, names, dprime, dropout, resamples, seed, p=p,
                                      depth=depth, models=mlist, losses=(loss,), theta=theta,
                                      rank_level=MODELS, clip=clip,
                                      progress=lambda _t: bar.update(1))
        if blist:
            _add_baselines(E, L, q, names, dprime, p, depth, blist, index_path, clip)
        if est_name not in E.estimators:
            _fail(f"--estimator {est_name}: choose from {', '.join(E.estimators)}")
        file_gains = read_gains(gains_from) if gains_from else None
    except ValueError as e:
        _fail(str(e))
    if file_gains is not None:
        est_name = "gains-from"
    if family != "RBP":
        if file_gains is not None:
            G, absent = file_gains, 0.0
        elif est_name in ("LB", "UB", "mid"):
            G, absent = None, 0.0
        elif est_name.startswith("L_"):
            G, absent = gains_lookup(E, L, est_name)
        else:
            _fail(f"--estimator {est_name}: {family}@{k} is estimated with L_a, L_b, LB, UB, "
                  "mid or --gains-from")
        R = recall_scores(L, q, family, k, G, absent)
        E.lower, E.upper = R["lower"], R["upper"]
        S = {"LB": R["lower"], "UB": R["upper"],
             "mid": (R["lower"] + R["upper"]) / 2}.get(est_name, R["estimate"])
        if clip:
            S = np.clip(S, E.lower, E.upper)
    elif file_gains is not None:
        S = _rbp_from_gains(L, q, file_gains, p, depth, E.lower)
    else:
        S = E.get(est_name)
    label = f"RBP(p={p})@{depth}" if family == "RBP" else f"{family}@{k}"
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
        from ..evaluation.output import dump_json

        dump_json([dict(zip(cols, r)) for r in rows], sys.stdout)
    else:
        click.echo(f"{est_name} estimate of {label}, mean over topics "
                   f"({int(E.adjusted.sum())} of {len(E.topics)} topics adjusted, "
                   f"theta={theta})")
        click.echo(f"{'run':30s} {'estimate':>9s} {'lower':>9s} {'upper':>9s}")
        for i, r in enumerate(E.runs):
            click.echo(f"{r:30s} {S[i].mean():9.4f} {E.lower[i].mean():9.4f} "
                       f"{E.upper[i].mean():9.4f}")
    if deep_qrels:
        if family != "RBP":
            _fail("--deep-qrels: the accuracy table is for RBP; use study estimate")
        _estimate_accuracy(E, names, run_objs, deep_qrels, topics, q, p, depth, fmt)
    if gains_path:
        from .common import open_output

        with open_output(gains_path, "latin-1") as fh:
            fh.write("qid\tdocno\tgain\n")
            for (name, t), (docs, g) in sorted(E.doc_gains.items(), key=lambda x: x[0][1]):
                if name != f"L_{loss}":
                    continue
                for d, v in zip(docs, g):
                    fh.write(f"{E.topics[t]}\t{L.docnos[d]}\t{float(v)!r}\n")


def _add_baselines(E, L, q, names, dprime, p, depth, blist, index_path, clip) -> None:
    """Append the adjustments ``blist`` (:func:`tiebreak.judgments.adjust.adjusted_scores`) to
    the estimates ``E`` in place. Raises ValueError for an unknown one, webber-park /
    anti-precision without a pool depth, content / hybrid without an index."""
    import numpy as np

    from ..judgments.adjust import ADJUSTMENTS, TEXT_ADJUSTMENTS, adjusted_scores

    bad = [b for b in blist if b not in ADJUSTMENTS]
    if bad:
        raise ValueError(f"--baselines {bad[0]}: choose from {', '.join(ADJUSTMENTS)}")
    loo = [b for b in blist if b in ("webber-park", "anti-precision")]
    if loo and dprime is None:
        raise ValueError(f"--baselines {loo[0]} leaves each run out of the depth-d' pool: "
                         "give --dprime")
    text = None
    if any(b in TEXT_ADJUSTMENTS for b in blist):
        if index_path is None:
            raise ValueError("--baselines content / hybrid read the documents' text: give "
                             "--index")
        from ..judgments.predict import document_text
        from .judgment_options import _text_index, _warn_text

        text = document_text(_text_index(index_path), L.docnos)
        _warn_text(text.note)
    adj = adjusted_scores(L, q, names, dprime, E.get("LB"), E.get("UB"), p, depth, blist,
                          E.runs, text)
    S = np.stack([adj[b] for b in blist])
    if clip:
        S = np.clip(S, E.lower[None], E.upper[None])
    E.scores = np.concatenate([E.scores, S])
    E.estimators = [*E.estimators, *blist]


def _rbp_from_gains(L, q, gains, p, depth, lower):
    """RBP(p)@depth with unjudged documents at their gain from a --gains-from file."""
    import numpy as np

    from ..judgments.estimate import _judgment_lookup, _values

    ks, vs = _judgment_lookup(q, L)
    v = _values(ks, vs, L.key())
    sel = (v < 0) & (L.rank <= depth)
    extra = np.zeros_like(lower)
    for i in np.flatnonzero(sel):
        g = gains.get((L.topics[L.topic[i]], str(L.docnos[L.doc[i]])), 0.0)
        extra[L.run[i], L.topic[i]] += (1 - p) * p ** (L.rank[i] - 1.0) * g
    return lower + extra


def _estimate_accuracy(E, names, run_objs, deep_path, topics, q, p, depth, fmt) -> None:
    import numpy as np
    import pandas as pd

    from ..io import InputError, read_qrels
    from ..judgments.accuracy import accuracy, tau_distance, weighted_distance
    from ..judgments.pool import subset_topics
    from ..judgments.scoring import score_runs

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
