"""``tiebreak ties RUN... [--qrels Q]``: tie prevalence and run hygiene of runs (the statistics
and their definitions are :mod:`tiebreak.studies.ties`)."""

from __future__ import annotations

import json
import sys

import click

__all__ = ["ties_cmd"]


def _table(df, fh) -> None:
    """``df`` (a pandas DataFrame) as aligned text columns on ``fh``, floats to 4 decimals."""
    import numpy as np

    def f(v):
        if isinstance(v, (bool, np.bool_)):
            return str(v)
        if isinstance(v, (float, np.floating)):
            return "-" if v != v else f"{v:.4f}"
        return str(v)

    rows = [[str(c) for c in df.columns]] + [[f(v) for v in r] for r in df.itertuples(False)]
    w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        fh.write("  ".join(x.ljust(w[i]) if i == 0 else x.rjust(w[i])
                           for i, x in enumerate(r)).rstrip() + "\n")


@click.command("ties")
@click.argument("runs", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click.option("--qrels", type=click.Path(allow_dash=True), default=None,
              help="Also report the share of tied groups holding a judged / relevant document.")
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "json"]), default="table",
              show_default=True)
@click.option("--per-run", is_flag=True, help="Also print one row per run.")
@click.option("--table", "only", type=click.Choice(["yang", "cabanac", "topk", "stuffing", "qrels",
                                                     "per_run"]), default=None,
              help="Print only this table (with --format tsv: one plain TSV that any reader "
                   "parses; without it, tsv sections are separated by '# name' lines).")
@click.option("--name-by", type=click.Choice(["tag", "file"]), default="tag", show_default=True,
              help="Name runs by their run tag (column 6), or by their file name (tells runs "
                   "with the same tag apart in --per-run).")
def ties_cmd(runs, qrels, fmt, per_run, only, name_by):
    """Tie prevalence and run hygiene of RUNS (Yang et al. / Cabanac et al. Table 1).

    A directory means every run file in it. The definitions are in the documentation of the
    module tiebreak.studies.ties (Yang, Moffat & Turpin 2016; Cabanac et al. 2010).
    """
    import numpy as np
    import pandas as pd

    from ..io import InputError, read_qrels, run_paths
    from ..studies.ties import (
        STUFF_FRAC,
        STUFF_MIN,
        cabanac_table,
        runs_stats,
        stuffing_table,
        topk_table,
        yang_table,
    )

    try:
        paths = run_paths(runs)
        q = read_qrels(qrels) if qrels else None
        if sys.stderr.isatty() and len(paths) > 1:
            from tqdm import tqdm

            pr, pt = runs_stats(paths, q, tqdm(paths, desc="runs", file=sys.stderr,
                                               leave=False), name_by=name_by)
        else:
            pr, pt = runs_stats(paths, q, name_by=name_by)
    except InputError as e:
        click.echo(f"tiebreak: error: {e}", err=True)
        sys.exit(2)

    tables = {"yang": yang_table(pr, pt), "cabanac": cabanac_table(pt),
              "topk": topk_table(pt), "stuffing": stuffing_table(pr, pt)}
    if q is not None:
        g = pr["tie_groups"].sum()
        tables["qrels"] = pd.DataFrame([{
            "tie_groups": int(g),
            "with_judged_%": 100.0 * pr["tie_groups_judged"].sum() / g if g else np.nan,
            "with_relevant_%": 100.0 * pr["tie_groups_relevant"].sum() / g if g else np.nan}])
    if per_run or only == "per_run":
        tables["per_run"] = pr.drop(columns=["source"])
    if only is not None:
        if only not in tables:
            click.echo(f"tiebreak: error: table {only!r} needs --qrels", err=True)
            sys.exit(2)
        tables = {only: tables[only]}
    out = sys.stdout
    if fmt == "json":
        json.dump({k: json.loads(v.to_json(orient="records")) for k, v in tables.items()},
                  out, indent=1)
        out.write("\n")
        return
    titles = {
        "yang": f"Tie prevalence (Yang et al. Table 1): {len(pr)} runs, {len(pt)} result lists, "
                f"{int(pt['docs'].sum())} documents",
        "cabanac": "Over result lists (Cabanac et al. Table 1; '% tied documents' = same score as "
                   "its predecessor, Yang et al.; 'group members' = every member of a tied "
                   "group, Cabanac et al.)",
        "topk": "Ties near the top (result lists where @k measures depend on the tie rule)",
        "stuffing": f"Stuffing: tail of equal scores >= {STUFF_FRAC:.0%} of the list or "
                    f">= {STUFF_MIN} documents",
        "qrels": "Tied groups (size >= 2) holding a judged / relevant document",
        "per_run": "Per run",
    }
    for i, (k, df) in enumerate(tables.items()):
        if fmt == "tsv":
            if only is None:
                out.write(f"# {k}\n")
            df.to_csv(out, sep="\t", index=False)
        else:
            if i:
                out.write("\n")
            out.write(titles[k] + "\n")
            _table(df, out)
