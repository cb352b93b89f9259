"""Readers: clear errors with file:line and field, nothing dropped or reordered silently."""

from __future__ import annotations

import gzip
import io

import numpy as np
import pytest

import tiebreak as tb
import tiebreak.io.runs
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


# --- the fast path (files >= 128 KiB) must agree with the strict reader ---------------


def _big(lines: int, tweak=None) -> bytes:
    rows = [f"{1 + i // 1000:03d} Q0 doc{i % 1000:04d} {i % 1000 + 1} {1000 - i % 1000}.25 tagX"
            for i in range(lines)]
    if tweak:
        tweak(rows)
    return ("\n".join(rows) + "\n").encode()


def test_fast_path_equals_strict_reader(monkeypatch):
    data = _big(6000)
    assert len(data) >= tiebreak.io.runs._FAST_MIN_BYTES
    fast = tb.read_run(io.BytesIO(data))
    monkeypatch.setattr(tiebreak.io.runs, "_FAST_MIN_BYTES", 1 << 60)
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


# --- one test per defect class of issue 12 ("Runs and qrels") -------------------------------

def _cli(args, input=None):
    from click.testing import CliRunner

    from tiebreak.cli import main

    return CliRunner().invoke(main, args, input=input)


def _example():
    from importlib.resources import files

    base = files("tiebreak") / "data"
    return str(base / "ymt2016.qrels"), str(base / "ymt2016.run")


@pytest.mark.parametrize("text", ["", "\n\n  \n", "# only\n# comments\n", "\t\r\n# c\r\n"])
def test_run_without_result_lines_is_an_empty_run_with_a_warning(text):
    r = run_of(text)
    assert len(r) == 0 and r.topics == []
    assert r.warnings[tiebreak.io.runs.WARN_EMPTY] == 1
    lc = r.line_counts
    assert lc.evaluated == 0 and lc.read == lc.comment + lc.blank


def test_empty_run_in_a_directory_does_not_abort_it(tmp_path):
    qrels, run = _example()
    d = tmp_path / "runs"
    d.mkdir()
    (d / "a.run").write_bytes(open(run, "rb").read())
    (d / "b.run").write_bytes(b"# the job crashed before writing anything\n")
    res = _cli(["eval", qrels, str(d), "-m", "AP", "--regime", "trec_eval"])
    assert res.exit_code == 0, res.output
    assert "b.run" in res.output and "no result lines" in res.output
    assert "ymt-fig1" in res.output


def test_standard_input_twice_is_a_clear_error():
    qrels, _ = _example()
    res = _cli(["eval", qrels, "-", "-"], input="1 Q0 a 1 1 t\n")
    assert res.exit_code == 2
    assert "standard input given more than once" in res.output
    assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit)


@pytest.mark.parametrize("text", ["", "\n \n", "# c\n# d\n"])
def test_qrels_without_judgments_exit_2(tmp_path, text):
    p = tmp_path / "q.txt"
    p.write_text(text)
    with pytest.raises(InputError, match=r"q.txt: no judgments"):
        tb.read_qrels(p)
    res = _cli(["eval", str(p), _example()[1]])
    assert res.exit_code == 2 and "no judgments" in res.output
    assert "0.0000" not in res.output


def test_utf8_bom_is_removed_and_warned():
    clean = run_of("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    r = tb.read_run(io.BytesIO(b"\xef\xbb\xbf1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n"))
    assert r.topics == clean.topics == ["1"]
    assert r.warnings == {"UTF-8 byte-order mark removed": 1}
    q = tb.read_qrels(io.BytesIO(b"\xef\xbb\xbf1 0 a 1\n"))
    assert q.topics == ["1"] and q.warnings["UTF-8 byte-order mark removed"] == 1


def test_utf16_and_nul_bytes_are_errors():
    with pytest.raises(InputError, match=r":1: file is UTF-16"):
        tb.read_run(io.BytesIO("1 Q0 a 1 2 t\n".encode("utf-16")))
    with pytest.raises(InputError, match=r":2: NUL byte"):
        tb.read_run(io.BytesIO(b"1 Q0 a 1 2 t\n1 Q0 b\x00 2 1 t\n"))


@pytest.mark.parametrize("eol", [b"\r\n", b"\r"])
def test_crlf_and_cr_only_line_ends(eol):
    lines = [b"1 Q0 a 1 3 t", b"1 Q0 b 2 2 t", b"2 Q0 c 1 1 t"]
    r = tb.read_run(io.BytesIO(eol.join(lines) + eol))
    assert len(r) == 3 and r.topics == ["1", "2"] and r.lineno.tolist() == [1, 2, 3]
    assert r.score.tolist() == [3.0, 2.0, 1.0]
    assert ("lone CR (\\r) line ends read as line ends" in r.warnings) == (eol == b"\r")
    q = tb.read_qrels(io.BytesIO(eol.join([b"1 0 a 1", b"2 0 c 0"]) + eol))
    assert len(q) == 2


def test_two_records_glued_on_one_line_are_an_error():
    with pytest.raises(InputError, match=r":2: two records on one line.*field 7"):
        run_of("1 Q0 a 1 3 t\n1 Q0 b 2 2 t 1 Q0 c 3 1 t\n")
    with pytest.raises(InputError, match=r":1: two records on one line.*field 6"):
        run_of("1 Q0 b 2 2 1 Q0 c 3 1 t\n")
    # a genuine extra column is still ignored and counted
    assert run_of("1 Q0 a 1 3 t extra\n").warnings["lines with extra columns (ignored)"] == 1
    with pytest.raises(InputError, match=r":1: expected 4 fields .*two judgments on one line"):
        qrels_of("1 0 a 1 1 0 b 0\n")


def test_five_then_seven_fields_are_never_realigned():
    # 5 + 7 = 12 tokens = two 6-field lines' worth: must be read line by line
    r = run_of("1 Q0 a 1 3\n1 Q0 b 2 2 t x\n")
    assert [r.docno(i) for i in range(2)] == ["a", "b"] and r.score.tolist() == [3.0, 2.0]
    assert r.warnings["lines without a run tag (5 fields)"] == 1
    assert r.warnings["lines with extra columns (ignored)"] == 1
    with pytest.raises(InputError, match=r":1: expected 6 fields .* found 4"):
        run_of("1 Q0 a 1\n1 Q0 b 2 2 t x y\n")


def test_every_line_is_accounted_for():
    r = run_of("# c\n1 Q0 a 1 3 t\n\n1 Q0 b 2 2 t\n  # indented comment\n1 Q0 a 3 1 t\n",
               on_duplicate="first")
    lc = r.line_counts
    assert (lc.read, lc.comment, lc.blank, lc.evaluated) == (6, 2, 1, 2)
    assert lc.dropped == {"duplicate docno (kept the first)": 1}
    q = qrels_of("# c\n1 0 a 1\n\n1 0 b 0\n")
    assert q.line_counts.as_dict() == {"read": 4, "comment": 1, "blank": 1, "evaluated": 2,
                                       "dropped": {}}


def test_line_counts_in_json_and_on_request_in_the_table(tmp_path):
    import json

    qrels, run = _example()
    p = tmp_path / "r.run"
    p.write_bytes(b"# header\n" + open(run, "rb").read() + b"\n")
    res = _cli(["eval", qrels, str(p), "--format", "json", "-m", "AP"])
    assert res.exit_code == 0
    doc = json.loads(res.stdout)
    assert doc["lines"]["runs"]["ymt-fig1"] == {"read": 17, "comment": 1, "blank": 1,
                                                "evaluated": 15, "dropped": {}}
    assert doc["lines"]["qrels"]["evaluated"] == 15
    assert "lines" not in doc["warnings"]["ymt-fig1"]
    plain = _cli(["eval", qrels, str(p), "-m", "AP"]).output
    assert "read:" not in plain
    shown = _cli(["eval", qrels, str(p), "-m", "AP", "--line-counts"]).output
    assert "17 read: 1 comment, 1 blank, 15 evaluated" in shown


@pytest.mark.parametrize("tok", ["1_000", "1_0", "0x10", "1e", "1.5f", "١"])
def test_python_only_number_syntaxes_are_rejected(tok):
    with pytest.raises(InputError, match=r":2: score .* is not a number"):
        run_of(f"1 Q0 a 1 2 t\n1 Q0 b 2 {tok} t\n")
    with pytest.raises(InputError, match=r":2: rel .* is not an integer"):
        qrels_of(f"1 0 a 1\n1 0 b {tok}\n")


def test_python_only_rank_syntax_is_not_a_number():
    r = run_of("1 Q0 a 1_0 2 t\n1 Q0 b 2 1 t\n")
    assert r.warnings["rank column not a number"] == 1 and np.isnan(r.rank[0])


def test_relevance_beyond_int64_is_a_clear_error():
    qrels_of(f"1 0 a {2**63 - 1}\n1 0 b {-2**63}\n")
    for big in (2**63, -2**63 - 1, 10**30):
        with pytest.raises(InputError, match=rf":2: rel '{big}' is out of range"):
            qrels_of(f"1 0 a 1\n1 0 b {big}\n")


def test_memory_stays_proportional_to_the_input():
    import tracemalloc

    huge = b"d" * (1 << 20)
    lines = [b"1 Q0 " + huge + b" 1 2 t"] + [b"1 Q0 x%d %d 1 t" % (i, i + 2) for i in range(2000)]
    data = b"\n".join(lines) + b"\n"
    qdata = b"1 0 " + huge + b" 1\n" + b"".join(b"1 0 x%d 0\n" % i for i in range(2000))
    tracemalloc.start()
    try:
        r = tb.read_run(io.BytesIO(data))
        q = tb.read_qrels(io.BytesIO(qdata))
        tb.evaluate(q, r, ["AP"], ["trec_eval"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(r) == 2001 and r.docno(0) == huge.decode()
    assert peak < 40 * len(data), peak  # fixed-width arrays would need 2001 x 4 MiB


@pytest.mark.parametrize("text,field", [
    ("1 Q0 a 1 2 t\n1 Q0 b 2 abc t\n", "score 'abc'"),
    ("1 Q0 a 1 2 t\n1 Q0 b\n", "expected 6 fields"),
])
def test_cli_errors_are_file_line_field_with_exit_2(tmp_path, text, field):
    p = tmp_path / "bad.run"
    p.write_text(text)
    res = _cli(["eval", _example()[0], str(p)])
    assert res.exit_code == 2
    assert f"bad.run:2: {field}" in res.output
    assert "Traceback" not in res.output


def test_gzip_with_and_without_isal_give_the_same_run(shared_data, monkeypatch):
    import tiebreak.io.source as source

    p = shared_data / "trec_covid" / "round1" / "runs" / "BBGhelani1.gz"
    monkeypatch.setattr(source, "_GUNZIP", [gzip.decompress])
    plain = tb.read_run(p)
    monkeypatch.setattr(source, "_GUNZIP", [])
    fast = tb.read_run(p)  # python-isal when installed, else gzip again
    assert plain.score.tobytes() == fast.score.tobytes() and len(plain) == len(fast)
    assert (plain.docnos == fast.docnos).all() and plain.line_counts == fast.line_counts
    tmp = p.read_bytes()[:-20]
    for gunzip in ([gzip.decompress], []):
        monkeypatch.setattr(source, "_GUNZIP", list(gunzip))
        with pytest.raises(InputError, match="corrupt gzip data"):
            tb.read_run(io.BytesIO(tmp))


def test_compiled_decimal_parser_matches_float_on_random_doubles():
    """Clinger's fast path, Eisel-Lemire and the exact fallback together: every score of 30,000
    random doubles in five spellings, read by the one-pass compiled run reader, is the double
    Python's float() gives."""
    import struct

    from tiebreak._native import ext

    if ext() is None:
        pytest.skip("the compiled reader is the C extension, not built here")
    from tiebreak.io._cfast import read_run6

    rng = np.random.default_rng(7)
    xs = [x for x in struct.unpack("30000d", rng.bytes(240000)) if np.isfinite(x)]
    forms = [repr, "{:.17g}".format, "{:.16e}".format, "{:.9g}".format, "{:.3f}".format]
    toks = [forms[i % 5](x).encode() for i, x in enumerate(xs)]
    toks += [b"9007199254740993", b"2.2250738585072011e-308", b"4.9406564584124654e-324",
             b"1.7976931348623157e308", b"0.500000000000000166533453693773481063544750213623046875",
             b"8.41e21", b"1e23", b"7.038531e-26", b"-0", b"000.000123", b"123456789012345678"]
    data = b"".join(b"q Q0 d%d 1 %s t\n" % (i, t) for i, t in enumerate(toks))
    got6 = read_run6(data, len(toks))
    assert got6 is not None  # the compiled reader reads every one of them
    score, expo = got6[3], got6[4]
    assert expo.tolist() == [b"e" in t or b"E" in t for t in toks]
    got = score.tolist()
    assert got == [float(t) for t in toks]
    assert [np.signbit(v) for v in got] == [np.signbit(float(t)) for t in toks]


@pytest.mark.slow
def test_run_records_which_scores_have_an_exponent(shared_data):
    from tiebreak.studies.ties import exponent_lines

    r = run_of("1 Q0 a 1 1.5e-05 t\n1 Q0 b 2 2E3 t\n1 Q0 c 3 3.0 t\n")
    assert r.exponent.tolist() == [True, True, False]
    runs = sorted((shared_data / "trec_covid" / "round1" / "runs").glob("*.gz"))[::7]
    seen = 0
    for p in runs:  # the reader's flags are the byte re-scan the tie study used to do
        run = tb.read_run(p)
        want = exponent_lines(gzip.decompress(p.read_bytes()))
        assert run.lineno[run.exponent].tolist() == want.tolist(), p.name
        seen += len(want)
    assert seen > 0


