"""``tiebreak qrels ...``: commands on judgments themselves (one subcommand each; the work is done
in :mod:`tiebreak.judgments` and :mod:`tiebreak.stats`, imported inside each command)."""

from __future__ import annotations

import click


@click.group("qrels")
def qrels_group() -> None:
    """Commands on qrels: convert, compare and test the conclusions they support."""


@qrels_group.command("agree")
@click.argument("qrels_a", type=click.Path(allow_dash=True))
@click.argument("qrels_b", type=click.Path(allow_dash=True))
@click.option("--level", type=int, default=1, show_default=True,
              help="Smallest relevant value (binary kappa, nominal alpha, Jaccard).")
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "json"]), default="table",
              show_default=True)
@click.option("--summary", is_flag=True, help="Only the pooled row (qid all) and the matrix.")
def agree_cmd(qrels_a, qrels_b, level, fmt, summary):
    """Agreement of QRELS_A and QRELS_B, per topic and pooled: Cohen's kappa (binary, and
    linearly weighted over grades), Krippendorff's alpha (ordinal grades, nominal binary),
    Jaccard of the relevant sets and of the judged sets, the documents judged by one side only,
    and the confusion matrix of grades."""
    from ..io import InputError, read_qrels
    from ..stats.agreement import agreement
    from .common import _fail, write_rows

    try:
        res = agreement(read_qrels(qrels_a), read_qrels(qrels_b), level)
    except (InputError, ValueError) as e:
        _fail(str(e))
    rows = res.rows[-1:] if summary else res.rows
    mat = [{"A \\ B": str(g), **{str(h): int(v) for h, v in zip(res.grades, r, strict=True)}}
           for g, r in zip(res.grades, res.confusion, strict=True)]
    if fmt == "json":
        import sys

        from ..evaluation.output import dump_json

        dump_json({"topics": rows, "grades": res.grades.tolist(),
                   "confusion": res.confusion.tolist(), "topics_a_only": res.topics_a_only,
                   "topics_b_only": res.topics_b_only}, sys.stdout)
        return
    import sys

    write_rows(rows, fmt, sys.stdout, None, 1)
    sys.stdout.write("\n")
    if fmt == "table":
        sys.stdout.write("grades of the documents both judge (rows: QRELS_A, columns: QRELS_B)\n")
    write_rows(mat, fmt, sys.stdout, None, 1)
    if fmt == "table" and (res.topics_a_only or res.topics_b_only):
        sys.stdout.write(f"\ntopics left out: {len(res.topics_a_only)} in QRELS_A only, "
                         f"{len(res.topics_b_only)} in QRELS_B only\n")


@qrels_group.command("robustness")
@click.argument("qrels_a", type=click.Path(allow_dash=True))
@click.argument("qrels_b", type=click.Path(allow_dash=True))
@click.argument("runs", nargs=-1, required=True, type=click.Path())
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Measure, repeatable. Default: AP nDCG@10 P@10.")
@click.option("--regime", "regimes", multiple=True, metavar="REGIME",
              help="Tie regime, repeatable or comma-separated (see tiebreak eval). Default: "
                   "trec_eval.")
@click.option("--rule", type=click.Choice(["nonrel", "excluded", "condensed"]), default="nonrel",
              show_default=True,
              help="Documents judged by one qrels only: non-relevant (each qrels as it is), "
                   "excluded (both qrels cut to the documents both judge), or condensed (each "
                   "run without the documents that qrels does not judge).")
@click.option("--test", type=click.Choice(["t", "wilcoxon", "randomization"]), default="t",
              show_default=True, help="Paired test of every pair of runs.")
@click.option("--correction", type=click.Choice(["none", "holm", "bh"]), default="holm",
              show_default=True, help="Multiple-comparison correction over the pairs.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True, help="Significance level.")
@click.option("--rbo-p", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.9, show_default=True, help="RBO persistence.")
@click.option("--changes", "show_changes", is_flag=True,
              help="List every pair that flips or changes significance.")
@click.option("--rankings", "show_rankings", is_flag=True,
              help="List the runs' means and ranks under each qrels.")
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "json"]), default="table",
              show_default=True)
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=1, show_default=True,
              help="Processes that evaluate runs in parallel (0 = all cores).")
def robustness_cmd(qrels_a, qrels_b, runs, measures, regimes, rule, test, correction, alpha,
                   rbo_p, show_changes, show_rankings, fmt, jobs):
    """Which conclusions of RUNS survive replacing QRELS_A by QRELS_B? Per measure and regime:
    the system rankings, Kendall's tau, tau_AP and RBO between them, the pairs whose order
    flips, and the significant pairs that become non-significant or reverse; flips and losses
    where the two runs' tie ranges overlap are counted apart. A directory means every run file
    in it."""
    import sys

    from ..evaluation.compute import resolve_regimes
    from ..io import InputError, read_qrels, read_run
    from ..io.discover import find_runs
    from ..measures import MeasureError
    from ..studies.robustness import robustness
    from .common import _fail, resolve_jobs, write_rows

    try:
        paths, skipped = find_runs(runs)
        for p, why in skipped:
            click.echo(f"tiebreak: note: skipped {p}: not a run ({why})", err=True)
        regs = resolve_regimes(regimes or ["trec_eval"])
        rr = [read_run(p) for p in paths]
        res = robustness(read_qrels(qrels_a), read_qrels(qrels_b), rr, measures or None, regs,
                         rule=rule, test=test,
                         correction=None if correction == "none" else correction, alpha=alpha,
                         p=rbo_p, jobs=resolve_jobs(jobs))
    except (InputError, MeasureError, ValueError, TypeError) as e:
        _fail(str(e))
    out = sys.stdout
    if fmt == "json":
        from ..evaluation.output import dump_json

        dump_json({"rule": res.rule, "topics": res.topics, "summary": res.summary,
                   "changes": res.changes, "rankings": res.rankings}, out)
        return
    write_rows(res.summary, fmt, out, None, 2)
    if fmt == "table":
        out.write(f"\n{len(res.topics)} topics of both qrels; rule for documents judged by one "
                  f"only: {rule}; {test} test, correction {correction}, alpha {alpha}. "
                  "flips: pairs ordered one way under A and the other under B; lost/reversed: "
                  "significant under A, not / the other way under B; *_outside_ties: the two "
                  "runs' tie ranges [realistic, optimistic] overlap under neither qrels.\n")
    if show_changes:
        out.write("\n")
        write_rows(res.changes, fmt, out, None, 4)
    if show_rankings:
        out.write("\n")
        write_rows(res.rankings, fmt, out, None, 3)
