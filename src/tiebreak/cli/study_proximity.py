"""``tiebreak study proximity``: where term proximity helps (ablations, per-topic changes, heat
map, per-topic selection); the study itself is :mod:`tiebreak.studies.study_proximity` and
:mod:`tiebreak.studies.proximity_select`."""

from __future__ import annotations

import os
import sys

import click

from ..studies.study_proximity import (
    DEFAULT_LAMS,
    MU_CV,
    _outputs,
    _write_tsv,
    run_study,
    study_models,
)

__all__ = ["proximity_cmd"]


@click.command("proximity")
@click.option("--index", "index_dir", required=True, type=click.Path(exists=True,
                                                                       file_okay=False))
@click.option("--topics", required=True, help="Topics (any format tiebreak search reads).")
@click.option("--qrels", required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("-k", "--depth", "k", default=1000, show_default=True, type=click.IntRange(min=1),
              help="Documents per topic.")
@click.option("--folds", default=5, show_default=True, type=click.IntRange(min=2))
@click.option("--lams", default=",".join(f"{x:g}" for x in DEFAULT_LAMS), show_default=True,
              help="lambda grid of the cross-validated Lkp.")
@click.option("--top", default=5, show_default=True, help="Worst/best topics per model.")
@click.option("--alpha", default=0.05, show_default=True, type=float)
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--out", "out_dir", default="study_proximity", show_default=True)
@click.option("--table31", type=click.Choice(["ours", "thesis"]), default="ours",
              show_default=True,
              help="Table 3.1 ablations: this project's earlier choice, or as the thesis states "
                   "them (Lu 2018, Table 3.1).")
@click.option("--models", "extra_models", default="", metavar="NAME,...",
              help="Further registered models (tiebreak models) to compare, with defaults.")
@click.option("--select", "select", is_flag=True,
              help="Instead: per-query choice of whether to apply proximity (Lu 2018, §7.2): "
                   "never / always / oracle / a cross-validated pre-retrieval predictor; "
                   "writes select.tsv, select_topics.tsv, select_rules.tsv.")
@click.option("--never", "never_model", default="BM25", show_default=True, metavar="NAME",
              help="--select: the run without proximity (a study model or a registered model).")
@click.option("--always", "always_model", default="Lkp", show_default=True, metavar="NAME",
              help="--select: the run with proximity.")
@click.option("--select-by", default="AP", show_default=True,
              type=click.Choice(["AP", "nDCG@10", "P@10"]),
              help="--select: the measure the oracle and the predictor maximise.")
@click.option("--learn", "learn", is_flag=True,
              help="Instead: WSDM and WFDM with their concept weights learned by coordinate "
                   "ascent under --folds cross-validation, beside BOW, SDM, FDM and the "
                   "PMI-segmented SDM and FDM; writes learn.tsv, learn_folds.tsv, "
                   "wsdm_weights.json and wfdm_weights.json (reload with "
                   "tiebreak.studies.wsdm_learn.load_weights).")
@click.option("-q", "--quiet", is_flag=True)
def proximity_cmd(index_dir, topics, qrels, k, folds, lams, top, alpha, seed, out_dir, quiet,
                  table31="ours", extra_models="", select=False, never_model="BM25",
                  always_model="Lkp", select_by="AP", learn=False):
    """Where does proximity help? Ablations, per-topic changes, extremes, RBP(0.95), lambda by
    cross-validation and the P(relevant) heat map (Lu 2018, ch. 3-4). Writes TSV and PNG files
    into --out and prints the summary table. With --select: does a per-query choice of
    proximity beat always and never (Lu 2018, §7.2)?"""
    from ..index import IndexFormatError, open_index
    from ..index.readers import read_topics
    from ..io import read_qrels
    from .common import _fail as fail

    try:
        lam_grid = tuple(float(x) for x in lams.split(","))
    except ValueError:
        fail(f"--lams: expected a comma list of numbers, got {lams!r}")
    if not lam_grid or any(not 0.0 <= x <= 1.0 for x in lam_grid):
        fail(f"--lams: every lambda must be in [0, 1], got {lams!r}")
    try:
        idx = open_index(index_dir)
        tops = read_topics(topics)
        q = read_qrels(qrels)
    except (IndexFormatError, ValueError, OSError) as e:
        fail(str(e))
    judged = set(q.topics)
    tops = [(t, x) for t, x in tops if t in judged]
    if len(tops) < folds:
        fail(f"{len(tops)} topics with judgments, fewer than --folds {folds}")
    try:
        models = study_models(table31, [m.strip() for m in extra_models.split(",") if m.strip()])
    except ValueError as e:
        fail(f"--models: {e}")
    os.makedirs(out_dir, exist_ok=True)
    if select:
        _select_cmd(idx, tops, q, k, folds, seed, out_dir, models, never_model, always_model,
                    select_by, fail)
        return
    if learn:
        _learn_cmd(idx, tops, q, k, folds, seed, out_dir, fail)
        return
    try:
        study = run_study(idx, tops, q, k, folds, lam_grid, seed,
                          progress=not quiet and sys.stderr.isatty(), models=models)
    except ValueError as e:  # e.g. --models wsdm, whose weights have no default
        fail(str(e))
    rows = _outputs(study, idx, tops, q, k, out_dir, top, alpha)
    res = study["res"]
    click.echo("model     " + " ".join(f"{m:>12}" for m in res.measures) + "  p_holm vs FDM")
    for r in rows:
        vals = " ".join(f"{x:12.4f}" if isinstance(x, float) else f"{x:>12}"
                        for x in r[1:1 + len(res.measures)])
        ph = f"{r[-2]:.3g}" if isinstance(r[-2], float) else ""
        click.echo(f"{r[0]:9} {vals}  {ph} {r[-1]}")
    mus = "; ".join(f"{c} {', '.join(f'{x:g}' for x in study['mu_cv'][n]['chosen'])}"
                    for n, (_, c) in MU_CV.items())
    click.echo(f"lambda per fold (CV): {', '.join(f'{x:g}' for x in study['chosen'])}; "
               f"mu per fold (CV): {mus}")
    ot = study.get("order_test")
    if ot is not None:
        click.echo(f"losses > 25% against BOW (topics of >= 2 terms): BOW+OW {ot['ow_losses']}, "
                   f"BOW+UW {ot['uw_losses']}; McNemar exact p = {ot['p']:.3g} "
                   f"({ot['ow_only']} OW only, {ot['uw_only']} UW only)")
    click.echo(f"wrote summary.tsv deltas.tsv deltas.png robustness.tsv robustness_length.tsv "
               f"ow_outliers.tsv extremes.tsv lambda_cv.tsv ql_mu.tsv heatmap.tsv heatmap.png "
               f"to {out_dir}", err=True)


def _learn_cmd(idx, tops, q, k, folds, seed, out_dir, fail):
    from ..studies.wsdm_learn import LEARNED, learn_table, save_weights

    try:
        t = learn_table(idx, tops, q, folds, seed, k)
    except ValueError as e:
        fail(f"--learn: {e}")
    _write_tsv(os.path.join(out_dir, "learn.tsv"), ["model", "MAP", "nDCG@10", "P@10",
                                                    "p_AP_vs_SDM"], t["rows"])
    _write_tsv(os.path.join(out_dir, "learn_folds.tsv"),
               ["model", "fold", "topics", "u0", "u1", "u2", "v0", "v1", "v2", "train_MAP"],
               [[m, f, int((L["fold"] == f).sum()), *w, float(tm)]
                for m, L in t["learned"].items()
                for f, (w, tm) in enumerate(zip(L["weights"], L["train_map"]))])
    for m, L in t["learned"].items():
        save_weights(os.path.join(out_dir, f"{m}_weights.json"), L)
    click.echo(f"{', '.join(LEARNED[m] for m in t['learned'])}: learned by coordinate ascent, "
               f"{folds}-fold cross-validation over {len(t['topics'])} topics (seed {seed})")
    click.echo(f"{'model':8} {'MAP':>7} {'nDCG@10':>8} {'P@10':>7} {'p vs SDM':>9}")
    for n, m, nd, p10, p in t["rows"]:
        ps = f"{p:.3g}" if isinstance(p, float) else ""
        click.echo(f"{n:8} {m:7.4f} {nd:8.4f} {p10:7.4f} {ps:>9}".rstrip())
    for m, L in t["learned"].items():
        click.echo(f"{m} weights on all topics (u0 u1 u2 | v0 v1 v2): "
                   + " ".join(f"{x:.4g}" for x in L["all"][:3]) + " | "
                   + " ".join(f"{x:.4g}" for x in L["all"][3:]))
    names = " ".join(f"{m}_weights.json" for m in t["learned"])
    click.echo(f"wrote learn.tsv learn_folds.tsv {names} to {out_dir}", err=True)


def _model_spec(name: str, models: dict):
    """(registered model, parameters) of a study model name or a registered model name."""
    from ..retrieval.registry import get

    if name in models:
        return models[name]
    get(name)  # ValueError listing the names
    return (name, {})


def _select_cmd(idx, tops, q, k, folds, seed, out_dir, models, never_model, always_model,
                select_by, fail):
    from ..studies.proximity_select import (
        FEATURES,
        rule_text,
        run_select,
        select_header,
        select_rows,
    )

    try:
        never = _model_spec(never_model, models)
        always = _model_spec(always_model, models)
        sel = run_select(idx, tops, q, never, always, k, folds, seed, select_by)
    except ValueError as e:
        fail(f"--select: {e}")
    header = select_header()
    rows = select_rows(sel)
    _write_tsv(os.path.join(out_dir, "select.tsv"), header, rows)
    per = sel["per"]
    _write_tsv(os.path.join(out_dir, "select_topics.tsv"),
               ["topic", "fold", *FEATURES, "AP_never", "AP_always", "nDCG@10_never",
                "nDCG@10_always", "oracle", "predictor"],
               [[t, int(sel["fold"][i]), *(float(v) for v in sel["x"][i]),
                 float(per["AP"]["never"][i]), float(per["AP"]["always"][i]),
                 float(per["nDCG@10"]["never"][i]), float(per["nDCG@10"]["always"][i]),
                 int(sel["choice"]["oracle"][i]), int(sel["choice"]["predictor"][i])]
                for i, t in enumerate(sel["topics"])])
    fold = sel["fold"]
    _write_tsv(os.path.join(out_dir, "select_rules.tsv"),
               ["fold", "topics", "rule", f"train_{select_by}", f"test_{select_by}"],
               [[f, int((fold == f).sum()), rule_text(r), v,
                 float(per[select_by]["predictor"][fold == f].mean())]
                for f, (r, v) in enumerate(sel["rules"])])
    click.echo(f"never = {never_model}, always = {always_model}; choice by {select_by}, "
               f"{folds}-fold cross-validation over {len(sel['topics'])} topics")
    click.echo(f"{'strategy':10} {'share':>6} {'MAP':>7} {'p_never':>8} {'p_always':>8} "
               f"{'nDCG@10':>8} {'p_never':>8} {'p_always':>8}")
    for r in rows:
        cells = [f"{x:.4f}" if isinstance(x, float) else f"{x}" for x in r[2:]]
        click.echo(f"{r[0]:10} {r[1]:6.2f} {cells[0]:>7} {cells[1]:>8} {cells[2]:>8} "
                   f"{cells[3]:>8} {cells[4]:>8} {cells[5]:>8}".rstrip())
    click.echo("rules per fold: " + "; ".join(rule_text(r) for r, _ in sel["rules"]))
    click.echo(f"wrote select.tsv select_topics.tsv select_rules.tsv to {out_dir}", err=True)
