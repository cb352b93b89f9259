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
