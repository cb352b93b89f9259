"""The strict readers' column shortcut (issue 29): when every line of a run (qrels) holds exactly
six (four) fields and none is a comment, the columns come from one split of the whole text
instead of a loop over lines. The result, the warnings and every error must be the line loop's,
byte for byte; these tests compare the two paths on inputs built to sit on the boundary
(control bytes, vertical tabs, form feeds, CRs, comments, short and long lines)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tiebreak.io.qrels as qrels_mod
import tiebreak.io.runs as runs_mod
from tiebreak.io import InputError, read_qrels, read_run
from tiebreak.io._arrays import sorted_codes, split_columns

SETTINGS = settings(max_examples=150, deadline=None)


def _outcome(read, data: bytes):
    try:
        r = read(io.BytesIO(data))
    except InputError as e:
        return ("err", str(e))
    d = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in vars(r).items()
         if k != "line_counts"}
    for k in ("score", "rank"):
        if k in d:
            d[k] = np.asarray(getattr(r, k)).tobytes()
    d["docnos"] = [str(x) for x in r.docnos]
    d["lines"] = r.line_counts.as_dict()
    d["warnings"] = list(r.warnings.items())  # order too: it is the order printed
    return ("ok", d)


def both(read, mod, data: bytes):
    """(column path outcome, line loop outcome) of ``read`` on ``data``, strict reader only."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(mod, "_FAST_MIN_BYTES", 1 << 62)
        a = _outcome(read, data)
        m.setattr(mod, "split_columns", lambda *a: None)
        b = _outcome(read, data)
    return a, b


FIELD = st.sampled_from([b"1", b"2", b"Q0", b"d1", b"d2", b"D-3", b"0.5", b"-7e-05", b"3",
                         b"#x", b"\x01", b"a\x1fb", b"\x7f", b"tag", b"t2", b"1_0", b"nan",
                         b"\xc3\xa9", b"10", b"-1", b"+2"])
SEP = st.sampled_from([b" ", b"\t", b"\x0b", b"\x0c", b"  ", b" \r"])
EOL = st.sampled_from([b"\n", b"\r\n", b"\n\n", b""])


@st.composite
def near_regular(draw, k: int) -> bytes:
    """Lines of mostly exactly ``k`` fields, sometimes k-1 or k+1, blanks, comments."""
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        n = draw(st.sampled_from([k] * 12 + [k - 1, k + 1, 0]))
        sep = draw(SEP)
        lines.append(draw(st.sampled_from([b"", b" "])) + sep.join(
            draw(st.lists(FIELD, min_size=n, max_size=n))) + draw(EOL))
    return b"".join(lines)


@pytest.mark.slow
@SETTINGS
@given(near_regular(6))
def test_run_columns_equal_the_line_loop(data):
    a, b = both(read_run, runs_mod, data)
    assert a == b


@pytest.mark.slow
@SETTINGS
@given(near_regular(4))
def test_qrels_columns_equal_the_line_loop(data):
    a, b = both(read_qrels, qrels_mod, data)
    assert a == b


def test_split_columns_declines_what_it_cannot_prove():
    assert split_columns(b"1 Q0 d 1 2 t\n1 Q0 e 2 1 t\n", 2, 6) == [
        b"1", b"Q0", b"d", b"1", b"2", b"t", b"1", b"Q0", b"e", b"2", b"1", b"t"]
    assert split_columns(b"1 Q0 d 1 2 t\n1 Q0 e 2 1 t", 2, 6) is not None  # no final newline
    assert split_columns(b"1 Q0 d 1 2\n1 Q0 e 2 1 t x\n", 2, 6) is None  # 5 + 7 fields
    assert split_columns(b"1 Q0 d 1 2 t\n\n", 2, 6) is None  # a blank line
    assert split_columns(b"#1 Q0 d 1 2 t\n", 1, 6) is None  # a comment
    assert split_columns(b"1 Q0 d\x01e 1 2 t\n", 1, 6) is None  # a control byte
    assert split_columns(b"1\x0bQ0\x0cd 1 2\tt\r\n", 1, 6) is not None  # C isspace blanks
    assert split_columns(b"", 0, 6) is None


def test_the_column_path_reads_a_real_run(real_run, monkeypatch):
    """A clean TREC-COVID run takes the column path (the line loop is never called) and gives
    what the line loop gives."""
    data = real_run
    monkeypatch.setattr(runs_mod, "_FAST_MIN_BYTES", 1 << 62)

    def no_loop(*a):
        raise AssertionError("line loop called")

    with monkeypatch.context() as m:
        m.setattr(runs_mod, "_read_lines", no_loop)
        a = _outcome(read_run, data)
    with monkeypatch.context() as m:
        m.setattr(runs_mod, "split_columns", lambda *a: None)
        b = _outcome(read_run, data)
    assert a[0] == "ok" and a == b


@SETTINGS
@given(st.lists(st.binary(min_size=1, max_size=20).filter(lambda t: b"\x00" not in t),
                min_size=1, max_size=60), st.booleans())
def test_sorted_codes_is_a_byte_order_unique(tokens, same_length):
    if same_length:
        w = max(map(len, tokens))
        tokens = [t.ljust(w, b"z") for t in tokens]
    uniq, codes = sorted_codes(tokens)
    ref = sorted(set(tokens))
    assert [u.encode("latin-1") for u in uniq.tolist()] == ref
    assert [ref[c] for c in codes.tolist()] == tokens
    assert uniq.dtype == np.dtype(f"U{max(map(len, tokens))}")


@pytest.mark.slow
@SETTINGS
@given(st.lists(st.from_regex(rb"\A[+-]?[0-9]{1,19}\Z|\A[0-9a+-]{1,3}\Z", fullmatch=True),
                min_size=1, max_size=30))
def test_short_integers_parse_as_int_does(tokens):
    got = qrels_mod._short_integers(tokens, len(b"".join(tokens)))
    try:
        want = [int(t) for t in tokens]
    except ValueError:
        assert got is None
        return
    if got is not None:
        assert got.dtype == np.int64 and got.tolist() == want
    else:
        assert max(map(len, tokens)) > 18


def test_ranks_written_in_order_and_not():
    seg = np.array([0, 3])
    r, bad = runs_mod._parse_ranks([b"1", b"2", b"3", b"1", b"2"], seg)
    assert r.tolist() == [1, 2, 3, 1, 2] and bad == 0
    r, bad = runs_mod._parse_ranks([b"1", b"3", b"2", b"1", b"x"], seg)
    assert r[:4].tolist() == [1, 3, 2, 1] and np.isnan(r[4]) and bad == 1
    r, bad = runs_mod._parse_ranks([b"1", b"2", b"3", b"12"], np.array([0, 3]))
    assert r.tolist() == [1, 2, 3, 12]


@pytest.fixture
def real_run(shared_data):
    import gzip

    p = shared_data / "trec_covid" / "round1" / "runs" / "10x10.prf.unipd.it.gz"
    return gzip.decompress(p.read_bytes())
