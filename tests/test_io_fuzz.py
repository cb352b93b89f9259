"""Fuzzing the run and qrels readers (issue 12, "Runs and qrels").

The contract, on every generated input: either an :class:`InputError` whose message starts with
``file:line:`` (or ``file:`` for whole-file problems), or a result with the same numbers as the
clean input plus the right warning; and the fast reader (compiled kernels that decline what they
cannot prove) and the strict reader (line by line) give the same result or the same error.
Inputs: arbitrary bytes, token soups, and structured mutations of a real TREC-COVID run and its
qrels (BOMs, line ends, glued and split lines, field counts, number syntaxes, huge values,
encodings).
"""

from __future__ import annotations

import gzip
import io
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tiebreak as tb
import tiebreak.io.qrels as qrels_mod
import tiebreak.io.runs as runs_mod
from tiebreak._native import ext
from tiebreak.io import InputError

# the compiled reader is the C extension's; without it (no compiler at install time) the fast
# readers decline and both outcomes come from the strict reader
HAVE_EXT = ext() is not None

FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
ERR = re.compile(r"^<stream>(:(\d+))?: \S")
BOM = "UTF-8 byte-order mark removed"
CR = "lone CR (\\r) line ends read as line ends"


def _snapshot(r) -> dict:
    return {
        "name": r.name, "topics": r.topics, "topic": r.topic.tolist(),
        "docnos": [r.docno(i) for i in range(len(r))], "docid": r.docid.tolist(),
        "score": r.score.tobytes(), "rank": r.rank.tobytes(), "lineno": r.lineno.tolist(),
        "tags": r.tags, "warnings": dict(r.warnings), "lines": r.line_counts.as_dict(),
        "exponent": r.exponent.tolist(),
    }


def _outcome(read, data: bytes):
    try:
        r = read(io.BytesIO(data))
    except InputError as e:
        m = ERR.match(str(e))
        assert m, f"error without file:line: {e}"
        return ("err", str(e))
    lc = r.line_counts
    assert lc.read == lc.comment + lc.blank + lc.evaluated + sum(lc.dropped.values())
    assert lc.evaluated == len(r)
    return ("ok", r)


def read_both(data: bytes, **kw):
    """(strict outcome, fast outcome); the fast reader is tried whatever the input's size."""
    out = []
    old = runs_mod._FAST_MIN_BYTES
    for threshold in (1 << 62, 0):
        runs_mod._FAST_MIN_BYTES = threshold
        try:
            kind, v = _outcome(lambda f: tb.read_run(f, **kw), data)
        finally:
            runs_mod._FAST_MIN_BYTES = old
        out.append((kind, _snapshot(v) if kind == "ok" else v))
    assert out[0] == out[1], "fast and strict readers disagree"
    return out[0]


def _qsnapshot(q) -> dict:
    return {"topics": q.topics, "topic": q.topic.tolist(), "docid": q.docid.tolist(),
            "value": q.value.tolist(), "docnos": q.docnos.tolist(), "warnings": q.warnings,
            "lines": q.line_counts.as_dict()}


def read_qrels_both(data: bytes):
    """Like :func:`read_both`, for qrels; returns the strict reader's outcome."""
    out = []
    old = qrels_mod._FAST_MIN_BYTES
    for threshold in (1 << 62, 0):
        qrels_mod._FAST_MIN_BYTES = threshold
        try:
            kind, v = _outcome(tb.read_qrels, data)
        finally:
            qrels_mod._FAST_MIN_BYTES = old
        out.append((kind, v))
    snaps = [(k, _qsnapshot(v) if k == "ok" else v) for k, v in out]
    assert snaps[0] == snaps[1], "fast and strict qrels readers disagree"
    return out[0]


def err_line(outcome) -> int | None:
    assert outcome[0] == "err", outcome
    m = ERR.match(outcome[1])
    return int(m.group(2)) if m.group(2) else None


# --------------------------------------------------------------------------------------------
# arbitrary bytes and token soups
# --------------------------------------------------------------------------------------------

TOKENS = [b"1", b"2", b"301", b"Q0", b"q0", b"doc1", b"doc2", b"DOC-3", b"\xc3\xa9t\xc3\xa9",
          b"\xe9", b"#", b"#c", b"1.5", b"-7.763e-05", b"1E3", b".5", b"5.", b"+2", b"-0",
          b"1_0", b"1_000", b"nan", b"inf", b"-Infinity", b"1e400", b"0x1p3", b"1e", b"1.5f",
          b"99999999999999999999", b"tag", b"run_A", b"x", b'"q"', b"\xef\xbb\xbf"]
SEPS = [b" ", b"  ", b"\t", b" \t ", b"\x0b", b"\x0c"]
EOLS = [b"\n", b"\r\n", b"\r", b"\n\n"]


@st.composite
def token_soup(draw) -> bytes:
    lines = draw(st.lists(
        st.tuples(st.lists(st.sampled_from(TOKENS), max_size=9), st.sampled_from(SEPS),
                  st.sampled_from(EOLS), st.booleans()),
        max_size=12))
    out = b"".join((b" " if lead else b"") + sep.join(toks) + eol
                   for toks, sep, eol, lead in lines)
    if draw(st.booleans()):
        out = b"\xef\xbb\xbf" + out
    return out


@FUZZ
@given(st.binary(max_size=300))
def test_any_bytes_give_a_run_or_a_located_error(data):
    read_both(data)
    read_qrels_both(data)


@FUZZ
@given(token_soup())
def test_token_soups_fast_equals_strict(data):
    kind, v = read_both(data)
    if kind == "ok":
        assert v["lines"]["read"] == data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").count(
            b"\n") + (0 if data.endswith((b"\n", b"\r")) or not data.strip(b"\xef\xbb\xbf")
                      else 1)
    read_qrels_both(data)
    read_both(data, on_duplicate="first")


@FUZZ
@given(st.lists(st.tuples(st.integers(4, 8), st.sampled_from([b"t", b"u"])), min_size=1,
                max_size=40))
def test_field_counts_are_never_realigned(shape):
    """Lines of 4..8 fields: any line under 5 fields is an error at that line, whatever the
    total number of fields; otherwise every line is read as itself."""
    lines = []
    for i, (nf, tag) in enumerate(shape):
        f = [b"1", b"Q0", b"d%d" % i, b"%d" % (i + 1), b"%d.5" % (100 - i), tag, b"xa", b"xb"]
        lines.append(b" ".join(f[:nf]))
    kind, v = read_both(b"\n".join(lines) + b"\n")
    short = [i + 1 for i, (nf, _) in enumerate(shape) if nf < 5]
    if short:
        assert kind == "err" and f":{short[0]}: expected 6 fields" in v
    else:
        assert kind == "ok"
        assert v["docnos"] == [f"d{i}" for i in range(len(shape))]
        assert np.frombuffer(v["score"]).tolist() == [100 - i + 0.5 for i in range(len(shape))]


# --------------------------------------------------------------------------------------------
# structured mutations of a real run and its qrels
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def real_run(shared_data) -> list[bytes]:
    """The first 4,500 lines (> 128 KiB, so the fast reader is in play) of a TREC-COVID run."""
    p = shared_data / "trec_covid" / "round1" / "runs" / "BBGhelani1.gz"
    lines = gzip.decompress(p.read_bytes()).split(b"\n")[:4500]
    assert len(b"\n".join(lines)) > runs_mod._FAST_MIN_BYTES
    return lines


@pytest.fixture(scope="session")
def real_qrels(shared_data) -> list[bytes]:
    return (shared_data / "trec_covid" / "round1" / "qrels-rnd1.txt").read_bytes().splitlines()


@pytest.fixture(scope="session")
def clean_run(real_run):
    return read_both(b"\n".join(real_run) + b"\n")[1]


def _text_op(data: bytes, op: str) -> tuple[bytes, set[str]]:
    if op == "bom":
        return b"\xef\xbb\xbf" + data, {BOM}
    if op == "crlf":
        return data.replace(b"\n", b"\r\n"), set()
    if op == "cr":
        return data.replace(b"\n", b"\r"), {CR}
    return data, set()


def _python_only(tok: bytes) -> bytes:
    digits = [k for k in range(1, len(tok)) if tok[k - 1:k].isdigit() and tok[k:k + 1].isdigit()]
    k = digits[0] if digits else None
    return tok[:k] + b"_" + tok[k:] if k else b"1_" + tok


def _equivalent(tok: bytes, how: int) -> bytes:
    """Another spelling of the same double."""
    x = float(tok)
    return [b"+" + tok if not tok.startswith(b"-") else tok, repr(x).encode().upper(),
            b"%.17e" % x, b"%.25f" % x if abs(x) < 1e6 else tok][how]


LINE_OPS = ["none", "glue", "split", "drop_tag", "extra", "same_number", "python_number",
            "huge_score", "blank", "comment", "short"]


@pytest.mark.slow
@FUZZ
@given(op=st.sampled_from(LINE_OPS), text=st.sampled_from(["none", "bom", "crlf", "cr"]),
       where=st.integers(0, 4498), how=st.integers(0, 3))
def test_mutated_real_run(real_run, clean_run, op, text, where, how):
    lines = list(real_run)
    f = lines[where].split()
    want: str | None = None  # expected error text, with the line it names
    same_numbers = True
    warn: set[str] = set()
    counts = {}
    if op == "glue":
        lines[where:where + 2] = [lines[where] + b" " + lines[where + 1]]
        want, same_numbers = f":{where + 1}: two records on one line", False
    elif op == "split":
        k = 1 + how  # split after field 1..4: both halves are short
        lines[where:where + 1] = [b" ".join(f[:k]), b" ".join(f[k:])]
        want, same_numbers = f":{where + 1}: expected 6 fields", False
    elif op == "short":
        lines[where] = b" ".join(f[:4])
        want = f":{where + 1}: expected 6 fields"
    elif op == "drop_tag":
        lines[where] = b" ".join(f[:5])
        warn = {"lines without a run tag (5 fields)"}
    elif op == "extra":
        lines[where] = lines[where] + b" extra-column"
        warn = {"lines with extra columns (ignored)"}
    elif op == "same_number":
        lines[where] = b" ".join(f[:4] + [_equivalent(f[4], how)] + f[5:])
    elif op == "python_number":
        lines[where] = b" ".join(f[:4] + [_python_only(f[4])] + f[5:])
        want = f":{where + 1}: score"
    elif op == "huge_score":
        lines[where] = b" ".join(f[:4] + [b"1e400"] + f[5:])
        want = f":{where + 1}: score '1e400' is not a finite number"
    elif op in ("blank", "comment"):
        lines.insert(where, b"   " if op == "blank" else b"# " + lines[where])
        counts = {op: 1}
    data, text_warn = _text_op(b"\n".join(lines) + b"\n", text)
    kind, v = read_both(data)
    if want is not None:
        assert kind == "err", (op, text)
        assert want in v, (v, want)
        return
    assert kind == "ok", v
    assert same_numbers
    for key in ("topics", "topic", "docnos", "score", "tags", "name"):
        assert v[key] == clean_run[key], key
    assert set(v["warnings"]) == warn | text_warn
    for key, n in counts.items():
        assert v["lines"][key] == clean_run["lines"][key] + n


QRELS_OPS = ["none", "glue", "drop_field", "python_rel", "huge_rel", "float_rel", "blank",
             "comment", "plus_rel"]


@pytest.mark.slow
@FUZZ
@given(op=st.sampled_from(QRELS_OPS), text=st.sampled_from(["none", "bom", "crlf", "cr"]),
       where=st.integers(0, 8000))
def test_mutated_real_qrels(real_qrels, op, text, where):
    lines = list(real_qrels)
    f = lines[where].split()
    want = None
    if op == "glue":
        lines[where:where + 2] = [lines[where] + b" " + lines[where + 1]]
        want = f":{where + 1}: expected 4 fields"
    elif op == "drop_field":
        lines[where] = b" ".join(f[:3])
        want = f":{where + 1}: expected 4 fields"
    elif op == "python_rel":
        lines[where] = b" ".join(f[:3] + [b"1_" + f[3]])
        want = f":{where + 1}: rel '1_{f[3].decode()}' is not an integer"
    elif op == "huge_rel":
        lines[where] = b" ".join(f[:3] + [b"9" * 25])
        want = f":{where + 1}: rel '{'9' * 25}' is out of range"
    elif op == "float_rel":
        lines[where] = b" ".join(f[:3] + [f[3] + b".0"])
        want = f":{where + 1}: rel"
    elif op == "plus_rel":
        lines[where] = b" ".join(f[:3] + [b"+" + f[3]])
    elif op in ("blank", "comment"):
        lines.insert(where, b"" if op == "blank" else b"#" + lines[where])
    data, text_warn = _text_op(b"\n".join(lines) + b"\n", text)
    kind, v = read_qrels_both(data)
    if want is not None:
        assert kind == "err" and want in v, (v, want)
        return
    assert kind == "ok", v
    clean = _clean_qrels(real_qrels)
    assert v.topics == clean.topics
    for key in ("topic", "docid", "value", "keys", "docnos"):
        assert np.array_equal(getattr(v, key), getattr(clean, key)), key
    assert set(v.warnings) - {"blank lines skipped"} == text_warn
    if op in ("blank", "comment"):
        assert getattr(v.line_counts, op) == getattr(clean.line_counts, op) + 1


_CLEAN_QRELS: dict = {}


def _clean_qrels(lines):
    if "q" not in _CLEAN_QRELS:
        _CLEAN_QRELS["q"] = tb.read_qrels(io.BytesIO(b"\n".join(lines) + b"\n"))
    return _CLEAN_QRELS["q"]


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-32"])
def test_other_encodings_are_located_errors(real_run, codec):
    data = b"\n".join(real_run[:50]).decode("latin-1").encode(codec)
    kind, v = read_both(data)
    assert kind == "err"
    assert ":1: " in v and ("UTF-16" in v or "NUL byte" in v)


def test_latin1_docnos_are_kept_as_bytes(real_run):
    lines = [ln.replace(b"\tQ0\t", b"\tQ0\t\xe9", 1) for ln in real_run[:200]]
    kind, v = read_both(b"\n".join(lines) + b"\n")
    assert kind == "ok" and all(d.startswith("\\xe9") for d in v["docnos"])


def test_the_fast_reader_is_used_on_clean_real_runs(real_run, monkeypatch):
    if not HAVE_EXT:
        pytest.skip("the compiled reader is the C extension, not built here")

    def no_strict(*a, **k):
        raise AssertionError("strict reader used")

    monkeypatch.setattr(runs_mod, "_read_strict", no_strict)
    r = tb.read_run(io.BytesIO(b"\n".join(real_run) + b"\n"))
    assert len(r) == 4500 and r.line_counts.evaluated == 4500


def test_mutated_inputs_through_the_cli_exit_2_without_traceback(real_run, tmp_path):
    from click.testing import CliRunner

    from tiebreak.cli import main

    qrels = tmp_path / "q"
    qrels.write_bytes(b"1 0 x 1\n")
    for i, bad in enumerate([b"1 Q0 a 1 2 t 1 Q0 b 2 1 t\n", b"1 Q0 a 1 1_0 t\n",
                             "1 Q0 a 1 2 t\n".encode("utf-16"), b"\x1f\x8b\x08garbage"]):
        p = tmp_path / f"r{i}"
        p.write_bytes(bad)
        res = CliRunner().invoke(main, ["eval", str(qrels), str(p)])
        assert res.exit_code == 2, res.output
        assert res.output.startswith(f"tiebreak: error: {p}"), res.output
        assert "Traceback" not in res.output


@st.composite
def decimal_token(draw) -> str:
    width = draw(st.sampled_from([32, 64]))
    x = draw(st.floats(allow_nan=False, allow_infinity=False, width=width))
    p = draw(st.integers(0, 20))
    form = draw(st.sampled_from(["repr", "e", "E", "f", "g", "int", "lead0", "plus"]))
    if form == "repr":
        return repr(x)
    if form in "eEg":
        return f"{x:.{p}{form}}"
    if form == "f":
        return f"{x:.{p}f}" if abs(x) < 1e30 else repr(x)
    if form == "int":
        return str(draw(st.integers(-(10**25), 10**25)))
    if form == "lead0":
        return "000" + f"{abs(x):.{p}f}" if abs(x) < 1e30 else repr(x)
    return "+" + repr(abs(x))


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.lists(decimal_token(), min_size=1, max_size=60))
def test_fast_decimal_parser_is_correctly_rounded(tokens):
    lines = [f"1 Q0 d{i} {i + 1} {t} tag" for i, t in enumerate(tokens)]
    data = ("\n".join(lines) + "\n").encode()
    kind, v = read_both(data)
    want = [float(t) for t in tokens]
    if not np.isfinite(want).all():  # e.g. '2e+308', rounded up from the largest double
        assert kind == "err" and "is not a finite number" in v
        return
    assert kind == "ok"
    assert np.frombuffer(v["score"]).tolist() == want
    if HAVE_EXT:
        assert runs_mod._read_run_fast(data, len(tokens)) is not None  # the kernels read it


@FUZZ
@given(st.lists(st.tuples(st.integers(2, 6), st.sampled_from([b"0", b"1", b"-1", b"+2", b"007",
                                                               b"1_0", b"1.0", b"9" * 19])),
                min_size=1, max_size=40))
def test_qrels_field_counts_and_relevance_syntax(shape):
    lines = [b" ".join([b"%d" % (i % 3), b"0", b"d%d" % i, rel, b"x", b"y"][:nf])
             for i, (nf, rel) in enumerate(shape)]
    kind, v = read_qrels_both(b"\n".join(lines) + b"\n")
    # field counts are checked over the whole file before the relevance values
    bad = ([i + 1 for i, (nf, _) in enumerate(shape) if nf != 4]
           or [i + 1 for i, (_, rel) in enumerate(shape) if rel in (b"1_0", b"1.0", b"9" * 19)])
    if bad:
        assert kind == "err" and f":{bad[0]}: " in v
    else:
        assert kind == "ok" and sorted(v.value.tolist()) == sorted(int(r) for _, r in shape)


def test_the_fast_reader_is_used_on_real_qrels(real_qrels, monkeypatch):
    if not HAVE_EXT:
        pytest.skip("the compiled reader is the C extension, not built here")

    def no_strict(*a, **k):
        raise AssertionError("strict reader used")

    monkeypatch.setattr(qrels_mod, "_read_strict", no_strict)
    q = tb.read_qrels(io.BytesIO(b"\n".join(real_qrels) + b"\n"))
    assert q.line_counts.evaluated == len(real_qrels)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 6)), min_size=1, max_size=30))
def test_fast_no_repeats_is_exact(pairs):
    """The compiled check lets the duplicate sort be skipped only when no (topic, docno) repeats
    and each topic's lines are contiguous; the reader's verdict never depends on it."""
    if not HAVE_EXT:
        pytest.skip("the compiled check is the C extension's, not built here")
    from tiebreak.io._cfast import no_repeats

    topic = np.array([t for t, _ in pairs], np.int64)
    docid = np.array([d for _, d in pairs], np.int64)
    blocks = [t for j, t in enumerate(topic.tolist()) if j == 0 or t != topic[j - 1]]
    ok = len(set(pairs)) == len(pairs) and len(set(blocks)) == len(blocks)
    assert bool(no_repeats(topic, docid, 4, 7)) == ok
    text = "".join(f"q{t} Q0 d{d} {j + 1} {-j} x\n" for j, (t, d) in enumerate(pairs))
    if len(set(pairs)) == len(pairs):
        tb.read_run(io.BytesIO(text.encode()))
    else:
        with pytest.raises(InputError, match="listed twice"):
            tb.read_run(io.BytesIO(text.encode()))


# ---------------------------------------------------------------- issue 24: more input kinds
# Topics files, DataFrames and gzip streams go through the same validated layer: on every
# generated input, a result or a clear error naming the input; never another exception.

TOPIC_LINE = st.tuples(st.text(st.characters(blacklist_categories=("Cs",)), min_size=0,
                               max_size=6),
                       st.text(st.characters(blacklist_categories=("Cs",)), max_size=20))


@FUZZ
@given(st.one_of(st.binary(max_size=300),
                 st.lists(TOPIC_LINE, max_size=8).map(
                     lambda ls: "".join(f"{a}\t{b}\n" for a, b in ls).encode("utf-8")),
                 st.lists(TOPIC_LINE, max_size=5).map(
                     lambda ls: "".join(f"<top>\n<num> Number: {a}\n<title> {b}\n</top>\n"
                                        for a, b in ls).encode("utf-8"))),
       st.sampled_from(["plain", "bom", "gzip", "gzip-cut"]))
def test_topics_files_give_topics_or_a_named_error(tmp_path_factory, data, how):
    from tiebreak.index.readers import read_topics

    plain = data
    if how == "bom":
        data = b"\xef\xbb\xbf" + data
    elif how.startswith("gzip"):
        data = gzip.compress(data, mtime=0)
        if how == "gzip-cut":
            data = data[: max(len(data) // 2, 3)]
    f = tmp_path_factory.mktemp("topics") / "t.txt"
    f.write_bytes(data)
    try:
        topics = read_topics(str(f))
    except ValueError as e:   # InputError is a ValueError; the topics readers raise either
        assert str(f) in str(e), f"error not naming the file: {e}"
        return
    for qid, text in topics:
        assert qid and not any(ch.isspace() for ch in qid)
        assert not qid.startswith("\ufeff") and "\x00" not in qid + text
        if "\ufffd".encode() not in plain:
            assert "\ufffd" not in qid + text   # nothing replaced silently


pd = pytest.importorskip("pandas")
CELL = st.one_of(st.none(), st.just(pd.NA), st.just(float("nan")), st.integers(-5, 5),
                 st.floats(allow_nan=True, allow_infinity=True),
                 st.text(max_size=4))


@FUZZ
@given(st.lists(st.tuples(CELL, CELL, CELL), max_size=6), st.sampled_from(["run", "qrels"]))
def test_dataframes_give_a_result_or_a_row_column_error(rows, kind):
    from tiebreak.io.frames import qrels_from_frame, run_from_frame

    cols = ("query_id", "doc_id", "score" if kind == "run" else "relevance")
    df = pd.DataFrame(rows, columns=cols, dtype=object)
    try:
        obj = (run_from_frame if kind == "run" else qrels_from_frame)(df)
    except InputError as e:
        assert re.match(r"^<DataFrame \w+>: (row \d+: |a \w+ DataFrame|rows \d+ and \d+|"
                        r"no judgments)", str(e)), str(e)
        assert "<stream>" not in str(e)
        return
    names = obj.topics + [obj.docno(i) for i in range(len(obj))] if kind == "run" else \
        obj.topics + list(obj.docnos)
    assert not {"<NA>", "nan", "None", "NaN"} & set(names), names
    assert len(obj) == len(rows)


@FUZZ
@given(st.binary(min_size=1, max_size=2000), st.integers(0, 10**6), st.integers(1, 255),
       st.sampled_from(["flip", "cut", "members", "trailing"]))
def test_gzip_streams_read_or_a_corrupt_gzip_error(payload, pos, mask, how):
    data = gzip.compress(RUN_BYTES + payload, mtime=0)
    if how == "flip":
        b = bytearray(data)
        b[10 + pos % (len(b) - 10)] ^= mask
        data = bytes(b)
    elif how == "cut":
        data = data[: 2 + pos % (len(data) - 2)]
    elif how == "members":
        data = data + gzip.compress(RUN_BYTES, mtime=0)
    else:
        data = data + payload
    try:
        raw, _ = tb.io.open_bytes(io.BytesIO(data))
    except InputError as e:
        assert str(e).startswith("<stream>: corrupt gzip data ("), str(e)
        return
    if how == "members":
        assert raw == RUN_BYTES + payload + RUN_BYTES
    elif how in ("flip", "cut"):
        assert raw == RUN_BYTES + payload   # a flip the CRC cannot see is a harmless one


RUN_BYTES = b"".join(b"%d Q0 d%d %d %d.25 t\n" % (q, i, i + 1, 100 - i) for q in (1, 2)
                     for i in range(20))
