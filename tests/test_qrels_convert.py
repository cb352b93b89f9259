"""``tiebreak qrels convert``: TREC qrels of every shipped classic collection, with the counts
the collections document and Cranfield's grade mapping (codes 1..4 -> grades 4..1, -1 -> 0)."""

from __future__ import annotations

from collections import Counter

import pytest
from click.testing import CliRunner

import tiebreak as tb
from tiebreak.cli import main

# judgments (lines) and relevance grades -> count, from each collection's files
WANT = {
    "cacm": (796, {1: 796}), "cisi": (3114, {1: 3114}), "medline": (696, {1: 696}),
    "adi": (170, {1: 170}), "lisa": (379, {1: 379}), "time": (324, {1: 324}),
    "npl": (2083, {1: 2083}), "vaswani": (2083, {1: 2083}),
    # cranqrel's codes 1, 2, 3, 4, -1 counted 128, 387, 734, 363, 225 (ir_datasets has one
    # more code-3 line than the Glasgow cranqrel)
    "cranfield": (1837, {4: 128, 3: 387, 2: 734, 1: 363, 0: 225}),
}


@pytest.mark.parametrize("name", sorted(WANT))
def test_convert_every_collection(shared_data, tmp_path, name):
    out = tmp_path / f"{name}.qrels"
    r = CliRunner().invoke(main, ["qrels", "convert", name, "--data", str(shared_data), "-o",
                                  str(out)])
    assert r.exit_code == 0, r.output
    lines = out.read_text().splitlines()
    n, grades = WANT[name]
    assert len(lines) == n
    assert Counter(int(x.split()[3]) for x in lines) == grades
    assert all(x.split()[1] == "0" for x in lines)
    q = tb.read_qrels(str(out))  # a valid TREC qrels file
    assert len(q.topics) > 0


def test_cranfield_grades_follow_the_codes(shared_data):
    r = CliRunner().invoke(main, ["qrels", "convert", "cranfield", "--data", str(shared_data)])
    assert r.exit_code == 0
    got = {(x.split()[0], x.split()[2]): int(x.split()[3]) for x in r.stdout.splitlines()}
    codes = [x.split() for x in (shared_data / "cranfield" / "cranqrel").read_text()
             .splitlines() if x.strip()]
    for qid, doc, code in codes:
        c = int(code)
        assert got[(qid, doc)] == (5 - c if 1 <= c <= 4 else 0)


def test_convert_errors(tmp_path):
    r = CliRunner().invoke(main, ["qrels", "convert", "nope"])
    assert r.exit_code == 2 and "unknown collection" in r.output
    r = CliRunner().invoke(main, ["qrels", "convert", "cacm", "--data", str(tmp_path)])
    assert r.exit_code == 2 and "not found" in r.output
