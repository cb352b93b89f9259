"""``tiebreak study predict``: cross-validated relevance prediction from ranks, text or both
(Büttcher et al. 2007; Jayasinghe et al. 2014); the computation is
:mod:`tiebreak.studies.predict`."""

from __future__ import annotations

import sys

import click

from .common import _fail
from .judgment_options import (
    CONTRIB_HELP,
    _contributing,
    _fmt_table,
    _load,
    _split,
    _text_index,
    _warn_text,
)


@click.command("predict")
@click.option("--index", "index_path", default=None, type=click.Path(exists=True,
                                                                      file_okay=False),
              help="The collection's tiebreak index (content and hybrid read the documents' "
                   "terms from it).")
@click.option("--predictors", default="rank,content,hybrid", show_default=True,
              help="rank (rank features in the contributing runs), content (tf-idf of the "
                   "document's text), hybrid (both).")
@click.option("--pool-depth", "dprime", type=click.IntRange(min=1), default=None,
              help="Learn from the depth-d' pool of the contributing runs (default: every "
                   "judged document they retrieve).")
@click.option("--unlisted-nonrelevant", is_flag=True,
              help="Pooled documents the qrels do not list are non-relevant (qrels that list "
                   "only relevant documents, as the classic collections').")
@click.option("--folds", type=click.IntRange(min=2), default=5, show_default=True,
              help="Folds of the cross-validation over each topic's judged documents.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the folds.")
@click.option("--p", "persistence", type=float, default=0.95, show_default=True,
              help="RBP persistence of the rank feature 'mean RBP weight'.")
@click.option("--contributing", default=None, help=CONTRIB_HELP)
@click.option("--topics", default=None, help="Topics to keep, e.g. 1-20.")
@click.option("--per-topic", is_flag=True, help="Also print the per-topic rows (table).")
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "json"]), default="table",
              show_default=True)
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True),
                metavar="QRELS RUNS...")
def predict_cmd(index_path, predictors, dprime, unlisted_nonrelevant, folds, seed, persistence,
                contributing, topics, per_topic, fmt, runs):
    """Cross-validated relevance prediction of a pool's judgments (Lu 2018 Section 6.1.2).

    Per topic, each predictor (an L2-penalised logistic regression on rank features, on the
    document's tf-idf vector, or on both) is trained on k-1 folds of the judged documents and
    predicts the held-out fold; reported per predictor: the mean over topics of the accuracy
    (probability 0.5 as the threshold) and the AUC, over the topics with both classes.
    """
    from .common import split_qrels

    qrels, runs = split_qrels(None, runs)
    from ..judgments.pool import run_lists
    from ..studies.predict import predict_summary, run_predict_study

    plist = _split([predictors])
    if not plist:
        _fail("--predictors: give at least one of rank, content, hybrid")
    if index_path is not None and plist == ["rank"] * len(plist):
        _fail("--index is read by the content and hybrid predictors only; add one or drop "
              "--index")
    if not 0 < persistence < 1:
        _fail(f"--p {persistence}: the persistence must be in (0, 1)")
    q, run_objs = _load(qrels, runs, topics)
    index = None
    try:
        L = run_lists(run_objs, q)
        names = _contributing(contributing, L, q) or list(L.names)
        if index_path is not None:
            index = _text_index(index_path)
        df = run_predict_study(q, run_objs, index, dprime, names, plist, folds, seed,
                               persistence, unlisted_nonrelevant=unlisted_nonrelevant)
    except ValueError as e:   # IndexFormatError is a ValueError
        _fail(str(e))
    _warn_text(df.attrs.get("text_note"))
    summary = predict_summary(df)
    if summary.empty:
        hint = "" if dprime is None else " or deepen --pool-depth"
        hint += ("" if unlisted_nonrelevant else "; qrels that list only relevant documents "
                "need --unlisted-nonrelevant")
        _fail(f"no topic has {folds} relevant and {folds} non-relevant judged documents the "
              f"contributing runs retrieve (needed for {folds}-fold cross-validation): lower "
              f"--folds{hint}")
    if fmt == "tsv":
        sys.stdout.write(df.to_csv(sep="\t", index=False))
    elif fmt == "json":
        from ..evaluation.output import dump_json

        dump_json({"summary": summary.to_dict(orient="records"),
                   "topics": df.to_dict(orient="records")}, sys.stdout, indent=1)
    else:
        click.echo(f"{len(names)} contributing runs, {df['qid'].nunique()} topics, "
                   f"{folds}-fold cross-validation per topic (seed {seed})")
        click.echo(_fmt_table(summary, "{:.4f}"))
        if per_topic:
            click.echo("")
            click.echo(_fmt_table(df, "{:.4f}"))
