"""Readers: clear errors with file:line and field, nothing dropped or reordered silently."""

from __future__ import annotations

import gzip
import io

import numpy as np
import pytest

import tiebreak as tb
from tiebreak.io import InputError


def run_of(text: str, **kw):
    return tb.read_run(io.BytesIO(text.encode()), **kw)


def qrels_of(text: str):
    return tb.read_qrels(io.BytesIO(text.encode()))


def test_score_syntaxes_and_file_order():
    r = run_of("1 Q0 a 1 -7.763e-05 t\n1 Q0 b 2 1E3 t\n2 Q0 c 1 .5 t\n1 Q0 d 3 +2 t\n")
    assert r.score.tolist() == [-7.763e-05, 1000.0, 0.5, 2.0]
    assert [r.docno(i) for i in range(4)] == ["a", "b", "c", "d"]
    assert r.topics == ["1", "2"] and r.topic.tolist() == [0, 0, 1, 0]
    assert r.lineno.tolist() == [1, 2, 3, 4]
    assert r.name == "t"


@pytest.mark.parametrize("bad", ["abc", "nan", "inf", "-Infinity", "1.0.0"])
def test_bad_score_names_file_line_field(bad):
    text = "1 Q0 a 1 1.0 t\n" * 2 + f"1 Q0 z 3 {bad} t\n"
    with pytest.raises(InputError, match=rf":3: score '{bad}' is not a (finite )?number"):
        run_of(text)


def test_bad_score_slow_path_line_number():
    text = "# comment\n1 Q0 a 1 1.0 t extra\n\n1 Q0 b 2 x t\n"
    with pytest.raises(InputError, match=r":4: score 'x' is not a number"):
        run_of(text)


def test_too_few_fields():
    with pytest.raises(InputError, match=r":2: expected 6 fields"):
        run_of("1 Q0 a 1 1.0 t\n1 Q0 b 2\n")


def test_five_fields_without_tag_is_named_by_file(tmp_path):
    p = tmp_path / "myrun.txt"
    p.write_text("1 Q0 a 1 1.0\n1 Q0 b 2 0.5\n")
    r = tb.read_run(p)
    assert r.name == "myrun.txt" and len(r) == 2


def test_duplicate_docno_is_an_error_naming_both_lines():
    text = "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 a 3 1 t\n"
    with pytest.raises(InputError, match=r"lines 1 and 3"):
        run_of(text)


def test_duplicate_docno_keep_first_is_counted():
    r = run_of("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 a 3 1 t\n2 Q0 a 1 1 t\n", on_duplicate="first")
    assert [r.docno(i) for i in range(3)] == ["a", "b", "a"]
    assert r.score.tolist() == [3.0, 2.0, 1.0]
    assert r.warnings["duplicate docno lines dropped (kept the first)"] == 1


def test_gzip_and_directory(tmp_path):
    (tmp_path / "a.gz").write_bytes(gzip.compress(b"1 Q0 d 1 1.0 A\n"))
    (tmp_path / "b").write_bytes(b"1 Q0 d 1 1.0 B\n")
    paths = tb.io.run_paths([tmp_path])
    assert [tb.read_run(p).name for p in paths] == ["A", "B"]


def test_rank_column_not_a_number_is_counted_not_fatal():
    r = run_of("1 Q0 a x 1.0 t\n1 Q0 b 2 0.5 t\n")
    assert r.warnings["rank column not a number"] == 1
    assert np.isnan(r.rank[0])


def test_qrels_iter_token_negative_rel_comments():
    q = qrels_of("# c\n1 0.5 a 2\n1 0 b -1\n2 x c 0\n")
    assert q.topics == ["1", "2"]
    assert sorted(q.value.tolist()) == [-1, 0, 2]
    assert q.num_rel(1).tolist() == [1, 0] and q.num_nonrel(1).tolist() == [0, 1]


def test_qrels_bad_rel_and_duplicates():
    with pytest.raises(InputError, match=r":2: rel '0.5' is not an integer"):
        qrels_of("1 0 a 1\n1 0 b 0.5\n")
    with pytest.raises(InputError, match=r"lines 1 and 3"):
        qrels_of("1 0 a 1\n1 0 b 0\n1 1 a 0\n")
    with pytest.raises(InputError, match=r":1: expected 4 fields"):
        qrels_of("1 0 a\n")


def test_topics_sorted_naturally():
    q = qrels_of("10 0 a 1\n2 0 a 1\n1 0 a 1\nx 0 a 1\n")
    assert q.topics == ["1", "2", "10", "x"]


def test_docnos_stay_bytes_not_numbers():
    q = tb.read_qrels(io.BytesIO(b"001 0 0001 1\n"))
    r = tb.read_run(io.BytesIO(b"001 Q0 1 1 1.0 t\n001 Q0 0001 2 0.5 t\n"))
    res = tb.evaluate(q, r, ["RR"], ["trec_eval"])
    assert res.topics == ["001"]
    assert res.value("t", "RR", "trec_eval", "001") == 0.5


# --- the pandas fast path (files >= 128 KiB) must agree with the strict reader ---------------

def _big(lines: int, tweak=None) -> bytes:
    rows = [f"{1 + i // 1000:03d} Q0 doc{i % 1000:04d} {i % 1000 + 1} {1000 - i % 1000}.25 tagX"
            for i in range(lines)]
    if tweak:
        tweak(rows)
    return ("\n".join(rows) + "\n").encode()


def test_fast_path_equals_strict_reader(monkeypatch):
    data = _big(6000)
    assert len(data) >= tb.io._PANDAS_MIN_BYTES
    fast = tb.read_run(io.BytesIO(data))
    monkeypatch.setattr(tb.io, "_PANDAS_MIN_BYTES", 1 << 60)
    slow = tb.read_run(io.BytesIO(data))
    assert fast.topics == slow.topics == [f"{i:03d}" for i in range(1, 7)]
    for f in ("topic", "docid", "score", "rank", "lineno", "docnos"):
        assert (getattr(fast, f) == getattr(slow, f)).all(), f
    assert fast.name == slow.name == "tagX"


@pytest.mark.parametrize("bad,msg", [("nan", "not a finite number"), ("x1", "not a number")])
def test_fast_path_bad_score_names_line(bad, msg):
    def tweak(rows):
        rows[4321] = rows[4321].rsplit(" ", 2)[0] + f" {bad} tagX"
    with pytest.raises(InputError, match=rf":4322: score '{bad}' is {msg}"):
        tb.read_run(io.BytesIO(_big(6000, tweak)))


def test_fast_path_falls_back_on_odd_lines():
    def tweak(rows):
        rows[10] += " extra"
        rows.insert(20, "")
        rows.insert(30, "# a comment")
    r = tb.read_run(io.BytesIO(_big(6000, tweak)))
    assert len(r) == 6000
    assert r.warnings["lines with extra columns (ignored)"] == 1
    assert r.lineno[25] == 27  # one blank line and nothing else before line 27


def test_float_parsing_is_correctly_rounded():
    hard = ["9007199254740993", "0.1", "2.2250738585072011e-308", "0.30000000000000004",
            "1.00000000000000011102230246251565404236316680908203125", "4.9406564584124654e-324",
            "1.7976931348623157e308", "123456789012345678901234567890e-10", "1e23", "8.41e21",
            "0.500000000000000166533453693773481063544750213623046875", "7.038531e-26"]
    rows = [f"1 Q0 d{i} {i + 1} {hard[i % len(hard)]} t" for i in range(6000)]
    r = tb.read_run(io.BytesIO(("\n".join(rows) + "\n").encode()))
    assert r.score.tolist() == [float(hard[i % len(hard)]) for i in range(6000)]
