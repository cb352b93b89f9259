"""``tiebreak reproduce``: list, compute and print the reproduction items of the seed papers
(:mod:`tiebreak.studies.reproduce`)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from .common import _fail, renamed_option, split_list

FORMATS = ("table", "tsv", "md")


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _tsv(results) -> str:
    out = ["item\tcell\tpaper\tours\tverdict\tnote"]
    for item, cells in results:
        for c in cells:
            out.append("\t".join(x.replace("\t", " ").replace("\n", " ") for x in (
                item.id, c.name, c.paper, _fmt(c.ours), c.verdict, c.note)))
    return "\n".join(out) + "\n"


def _short(v) -> str:
    if isinstance(v, float):
        return f"{v:.4f}" if abs(v) < 1e6 else f"{v:.4g}"
    return "" if v is None else str(v)


#: ``--format table``: the widths of cell, paper, ours and verdict (wrapped beyond them); the
#: note takes the rest of :data:`WIDTH` columns.
WIDTH = 100
_COLS = (24, 10, 10, len("not-reproducible-here"))


def _table(results) -> str:
    """The cells as a plain table that fits :data:`WIDTH` columns: one heading row per item (id,
    verdict, title), then its cells; long texts wrap inside their column."""
    from tabulate import tabulate

    from ..studies.reproduce import verdict_of

    rows = []
    for item, cells in results:
        rows.append([item.id, "", "", verdict_of(cells), item.title])
        for c in cells:
            rows.append([c.name, c.paper, _short(c.ours), c.verdict, c.note])
    heads = ["item / cell", "paper", "ours", "verdict", "note"]
    # each of the first four columns as wide as its longest text, up to its cap; the note
    # takes what is left of WIDTH (tabulate puts two spaces between columns)
    used = [min(cap, max([len(h), *(len(r[j]) for r in rows)]))
            for j, (cap, h) in enumerate(zip(_COLS, heads))]
    note_w = max(20, WIDTH - sum(used) - 2 * len(used))
    return tabulate(rows, headers=heads, disable_numparse=True, maxcolwidths=[*used, note_w],
                    maxheadercolwidths=[*used, note_w]) + "\n"


def _summary(results) -> list[str]:
    from ..studies.reproduce import SEEDS, VERDICTS, count_verdicts

    n = count_verdicts(results)
    out = []
    for what in ("items", "cells"):
        out += [f"## {what.capitalize()} by verdict", "",
                "| paper | " + " | ".join(VERDICTS) + f" | {what} |",
                "|---|" + "---:|" * (len(VERDICTS) + 1)]
        for s in SEEDS:
            got = n[s][what]
            out.append(f"| {s} | " + " | ".join(str(got[v]) for v in VERDICTS)
                       + f" | {sum(got.values())} |")
        out.append("")
    return out


def _md(results, figures: dict | None = None) -> str:
    from ..studies.reproduce import verdict_of

    lines = ["# Reproduction: the seed papers beside tiebreak", "",
             "Generated from the project root, with `../shared` beside it, by `tiebreak "
             "reproduce --all --format md -o docs/reproduction.md --figures docs/img/reproduce`; "
             "do not edit by hand (the quick items are checked by the test suite, all of them by "
             "`benchmarks/check_docs.py`).", "",
             "Verdicts of a cell: `exact` (ours prints as the paper, on the paper's data), "
             "`within-tolerance` (the same, within the stated tolerance), `differs` (the same "
             "data, another value; with the reason); `substitute-holds` / `substitute-differs` "
             "(the paper's own claim, quoted, tested on substitute data; never counted as "
             "reproduced); `by-definition` (restates a definition or the paper's own "
             "arithmetic; shown, never counted as reproduced); `descriptive` (a diagram or "
             "illustration with no number or claim); `not-reproducible-here` (what is missing; "
             "ours on substitute data may be shown beside the paper's number, never compared). "
             "An item takes the worst of its `exact` / `within-tolerance` / `differs` cells; "
             "with none it is `not-reproducible-here` whatever its substitute cells say "
             "(`by-definition` or `descriptive` when all its cells are).", ""]
    lines += _summary(results)
    for item, cells in results:
        lines += [f"## {item.id}: {item.title}", "",
                  f"Paper: {item.where}. Verdict: **{verdict_of(cells)}**.", "",
                  f"Command: `{item.command}`", ""]
        if item.description:
            lines += [item.description, ""]
        if item.timed:
            lines += ["Timings: the values (and a shape verdict near its threshold) vary from "
                      "run to run on a shared machine.", ""]
        if figures and item.id in figures:
            lines += [f"![ours: {item.id}]({figures[item.id]})", ""]
        lines += ["| cell | paper | ours | verdict | note |", "|---|---:|---:|---|---|"]
        for c in cells:
            name, paper, ours, note = (x.replace("|", "\\|") for x in (
                c.name, c.paper, _short(c.ours), c.note))
            lines.append(f"| {name} | {paper} | {ours} | {c.verdict} | {note} |")
        lines.append("")
    return "\n".join(lines[:-1]) + "\n"


@click.command("reproduce",
               short_help="Our numbers beside the seed papers' tables and figures, with verdicts.")
@click.argument("item_ids", nargs=-1, metavar="[ITEM]...")
@click.option("--list", "list_", is_flag=True, help="List the items and exit.")
@click.option("--all", "all_", is_flag=True, help="Compute every item.")
@click.option("--quick", is_flag=True, help="Compute the items that take seconds.")
@click.option("--paper", "seeds", multiple=True, metavar="PAPER",
              help="Only the items of this paper: ymt2016, cabanac2010 or lu2018 (repeatable or "
                   "comma-separated).")
@renamed_option("--seed", "seeds", "--paper", multiple=True, metavar="PAPER")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="table; tsv (item cell paper ours verdict note, ours at full precision); md "
                   "(the page docs/reproduction.md).")
@click.option("--data", "data_dir", type=click.Path(file_okay=False), default=None,
              help="The reference data folder (TREC runs and qrels). Default: $TIEBREAK_DATA, "
                   "else ../shared/data.")
@click.option("--figures", "fig_dir", type=click.Path(file_okay=False), default=None,
              help="Draw the figures of the computed figure items into this folder (PNG).")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False), default=None,
              help="Write to this file instead of standard output.")
@click.option("-q", "--quiet", is_flag=True,
              help="No progress bar (there is none either when standard error is not a "
                   "terminal).")
def reproduce_cmd(item_ids, list_, all_, quick, seeds, fmt, data_dir, fig_dir, out, quiet):
    """Set our numbers beside the papers' own: Yang, Moffat & Turpin (AIRS 2016), Cabanac et
    al. (CLEF 2010), Lu (PhD thesis, RMIT 2018).

    Each item is one table or figure (ids like ymt2016:table2, lu2018:fig5.1); each cell gets a
    verdict: exact, within-tolerance or differs (our number against the paper's, on its data),
    substitute-holds or substitute-differs (the paper's claim on substitute data), by-definition,
    descriptive, or not-reproducible-here (with what is missing).
    """
    from ..evaluation.output import Progress
    from ..studies.reproduce import (
        Context,
        ReproduceError,
        default_data,
        items,
        run_item,
        verdict_of,
    )

    reg = items()
    papers = split_list(seeds)
    chosen = [i for i in reg.values() if not papers or i.seed in papers]
    if list_:
        for i in chosen:
            speed = "quick" if i.quick else "slow"
            click.echo(f"{i.id}\t{speed}\t{i.where}\t{i.title}")
        return
    if item_ids:
        unknown = [i for i in item_ids if i not in reg]
        if unknown:
            _fail(f"unknown reproduction item(s): {', '.join(unknown)}; "
                  "see tiebreak reproduce --list")
        chosen = [reg[i] for i in item_ids]
    elif quick:
        chosen = [i for i in chosen if i.quick]
    elif not all_:
        _fail("name items, or give --quick or --all (tiebreak reproduce --list lists them)")
    data = Path(data_dir).resolve() if data_dir else default_data()
    if data_dir and not data.is_dir():
        _fail(f"--data {data_dir}: no such folder")
    ctx = Context(data=data)
    results = []
    figures: dict[str, str] = {}
    with Progress(len(chosen), "reproduce", "items", enabled=not quiet) as bar:
        for item in chosen:
            if bar.bar is not None:
                bar.bar.set_postfix_str(item.id)
            cells = run_item(item, ctx)
            results.append((item, cells))
            if fig_dir and item.figure is not None:
                try:
                    Path(fig_dir).mkdir(parents=True, exist_ok=True)
                    png = Path(fig_dir) / (item.id.replace(":", "_") + ".png")
                    item.figure(ctx, png)
                    base = Path(out).resolve().parent if out else Path.cwd()
                    figures[item.id] = os.path.relpath(png.resolve(), base)
                except ReproduceError as e:
                    click.echo(f"tiebreak: warning: {item.id}: figure not drawn: {e}", err=True)
            bar.update(1)
    text = _md(results, figures) if fmt == "md" else {"tsv": _tsv, "table": _table}[fmt](results)
    if out:
        from .common import open_output

        with open_output(out) as fh:   # an OSError: tiebreak.cli's one error path
            fh.write(text)
    else:
        click.echo(text, nl=False)
    bad = sum(verdict_of(c) == "differs" for _, c in results)
    if bad and fmt == "table":
        click.echo(f"tiebreak: {bad} of {len(results)} items differ from the paper (see the "
                   "notes)", err=True)
