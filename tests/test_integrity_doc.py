"""docs/robustness.md's table of failure classes is generated from tests/robustness_table.py:
the page must hold exactly that table, and every test it names must exist."""

from __future__ import annotations

import re
from pathlib import Path

import robustness_table as rt

TESTS = Path(__file__).resolve().parent


def test_doc_table_is_the_generated_one():
    text = rt.DOC.read_text(encoding="utf-8")
    assert rt.current(text) == rt.render(), \
        "docs/robustness.md differs from tests/robustness_table.py: run python " \
        "tests/robustness_table.py"


def test_every_named_test_exists():
    missing = []
    for _, _, ref in rt.ROWS:
        f, name = ref.split("::")
        src = (TESTS / f).read_text(encoding="utf-8")
        if not re.search(rf"^def {re.escape(name)}\(", src, re.M):
            missing.append(ref)
    assert not missing, missing
