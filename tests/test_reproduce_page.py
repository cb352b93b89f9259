"""docs/reproduction.md cannot drift: every quick item's section, computed now, is on the page
as it was generated (benchmarks/check_docs.py regenerates and compares the whole page)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tiebreak.cli import main

PAGE = Path(__file__).resolve().parents[1] / "docs" / "reproduction.md"


def _sections(md: str) -> dict[str, str]:
    out = {}
    for part in md.split("\n## ")[1:]:
        head = part.split("\n", 1)[0]
        out[head] = part.rstrip("\n")
    return out


def test_quick_items_on_the_page_are_current():
    r = CliRunner().invoke(main, ["reproduce", "--quick", "--format", "md"])
    assert r.exit_code == 0, r.output
    now = {h: s for h, s in _sections(r.stdout).items() if ":" in h.split(" ", 1)[0]}
    assert len(now) >= 8
    page = _sections(PAGE.read_text(encoding="utf-8"))
    for head, text in now.items():
        assert head in page, f"{head}: not on docs/reproduction.md (regenerate it)"
        assert page[head] == text, f"{head}: docs/reproduction.md differs from the command"


def test_page_summary_counts_every_item():
    from tiebreak.studies.reproduce import items

    page = PAGE.read_text(encoding="utf-8")
    n = sum(1 for h in _sections(page) if ":" in h.split(" ", 1)[0])
    assert n == len(items())


def _recount(md: str):
    """(summary, recount): the page's two summary tables, and the same counts from its item
    sections (the verdict line of each item, the verdict column of each cell row)."""
    from tiebreak.studies.reproduce import SEEDS, VERDICTS

    summary = {}
    for what in ("Items", "Cells"):
        part = md.split(f"## {what} by verdict\n", 1)[1].split("\n## ", 1)[0]
        rows = [x for x in part.splitlines() if x.startswith("| ") and x[2:].split(" |")[0]
                in SEEDS]
        for r in rows:
            c = [x.strip() for x in r.strip("|").split("|")]
            summary[(what.lower(), c[0])] = dict(zip(VERDICTS, map(int, c[1:-1])))
            assert int(c[-1]) == sum(summary[(what.lower(), c[0])].values())
    recount = {(w, s): dict.fromkeys(VERDICTS, 0) for w in ("items", "cells") for s in SEEDS}
    for head, text in _sections(md).items():
        item = head.split(" ", 1)[0].rstrip(":")
        if ":" not in item:
            continue
        seed = item.split(":")[0]
        v = text.split("Verdict: **", 1)[1].split("**", 1)[0]
        recount[("items", seed)][v] += 1
        for line in text.splitlines():
            if line.startswith("| ") and not line.startswith("| cell |"):
                cells = [x.strip() for x in line.split(" | ")]
                recount[("cells", seed)][cells[3]] += 1
    return summary, recount


def test_summary_counts_equal_a_recount_of_the_cells():
    r = CliRunner().invoke(main, ["reproduce", "--quick", "--format", "md"])
    assert r.exit_code == 0, r.output
    summary, recount = _recount(r.stdout)
    assert summary == recount
    assert sum(sum(v.values()) for (w, _), v in summary.items() if w == "cells") > 100


def test_page_summary_equals_a_recount_of_its_cells():
    summary, recount = _recount(PAGE.read_text(encoding="utf-8"))
    assert summary == recount
