"""A qrels file read a piece at a time (issue 29, memory flat in topics) gives the result or the
error the whole-file read gives: arrays, docnos, topics, warnings and line counts bit for bit,
and the same ``file:line:`` message when a bad line, a duplicate judgment, a CR or a NUL sits at
the boundary between two pieces (the last line of one piece or the first of the next).

Pieces are cut after a line end, so with lines of one length ``L`` and pieces of ``k * L``
bytes every piece holds exactly ``k`` lines: the tests put each problem on the lines around
those boundaries.
"""

from __future__ import annotations

import gzip
import io

import numpy as np
import pytest

import tiebreak as tb
import tiebreak.io.qrels as qrels_mod
from tiebreak.io import InputError

L = 40  # bytes per line of the generated files
K = 50  # lines per piece


def _line(t: int, doc: bytes, rel: bytes = b"1") -> bytes:
    head = b"%d 0 " % t
    pad = L - len(head) - len(doc) - len(rel) - 2  # spaces before rel: still 4 fields
    assert pad >= 1
    return head + doc + b" " * pad + b" " + rel + b"\n"


def _pad(line: bytes) -> bytes:
    """``line`` made ``L`` bytes long by blanks before its line end (same fields)."""
    return line[:-1].ljust(L - 1) + line[-1:]


def _lines(n: int, seed: int = 0) -> list[bytes]:
    """``n`` judgment lines of ``L`` bytes: topics in blocks of 40 lines, docnos distinct
    within a topic and repeated across topics, of 2 to 9 bytes (longer than 8 only after the
    first piece), some with bytes above 0x7f."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        d = (i % 40) * 97 + (i // 40) % 5
        doc = [b"d%d" % d, b"D-%06d" % d, b"x\xc3\xa9%d" % d, b"w%08d" % d][d % (4 if i >= K
                                                                                else 3)]
        out.append(_line(i // 40, doc, b"%d" % rng.integers(-1, 3)))
    return out


def _snap(q) -> dict:
    arrays = {k: (v.dtype.str, v.shape, v.tobytes()) for k, v in vars(q).items()
              if isinstance(v, np.ndarray) and k != "docnos"}
    return {**arrays, "docnos": q.docnos.tolist(), "docnos_dtype": q.docnos.dtype.str,
            "topics": q.topics, "name": q.name, "warnings": dict(q.warnings),
            "lines": q.line_counts.as_dict(), "subtopics": q.subtopic_lines}


def _outcome(source):
    try:
        return "ok", _snap(tb.read_qrels(source))
    except InputError as e:
        return "err", str(e)


@pytest.fixture
def tokeniser(monkeypatch):
    """The compiled tokeniser (the C extension's; the pieces are read only with it)."""
    monkeypatch.delenv("TIEBREAK_NO_EXT", raising=False)
    pytest.importorskip("tiebreak._native._ext", reason="the C extension is not built")
    return "c"


@pytest.fixture
def pieces(monkeypatch, tokeniser):
    """Read every file of this test in pieces of ``K`` lines; counts the pieced reads."""
    monkeypatch.setattr(qrels_mod, "PIECE_MIN_BYTES", 0)
    monkeypatch.setattr(qrels_mod, "_FAST_MIN_BYTES", 0)
    monkeypatch.setattr(qrels_mod, "PIECE_BYTES", K * L)
    monkeypatch.setattr(qrels_mod, "MAX_PIECES", 1 << 40)
    used = []
    real = qrels_mod._pieces

    def spy(name, block):
        assert block == qrels_mod.PIECE_BYTES
        got = real(name, block)  # raises _Whole when the file cannot be read in pieces
        used.append(name)
        return got

    monkeypatch.setattr(qrels_mod, "_pieces", spy)
    return used


def _whole(monkeypatch, source):
    with monkeypatch.context() as m:
        m.setattr(qrels_mod, "PIECE_MIN_BYTES", 1 << 62)
        return _outcome(source)


def test_pieces_give_the_whole_result(tmp_path, pieces, monkeypatch):
    lines = _lines(40 * K + 7)  # a last piece of 7 lines
    data = b"\xef\xbb\xbf" + b"".join(lines)[:-1]  # a byte-order mark, no final line end
    p = tmp_path / "q.txt"
    p.write_bytes(data)
    monkeypatch.setattr(qrels_mod, "PIECE_BYTES", K * L + 7)  # pieces cut inside a line
    got = _outcome(str(p))
    assert pieces == [str(p)]  # read in pieces, not whole
    assert got[0] == "ok"
    want = _whole(monkeypatch, str(p))
    assert got == want
    assert _outcome(io.BytesIO(data)) == ("ok", dict(got[1], name="<stream>"))
    # the generated docnos are longer than 8 bytes only after the first piece: the merged
    # table widened; and non-ASCII bytes sort as unsigned bytes
    assert max(len(d) for d in got[1]["docnos"]) == 9
    assert got[1]["warnings"] == {"UTF-8 byte-order mark removed": 1}
    assert got[1]["lines"]["read"] == len(lines)


def test_pieces_of_gzip_and_of_real_qrels(tmp_path, pieces, monkeypatch, shared_data):
    real = shared_data / "trec_covid" / "round1" / "qrels-rnd1.txt"
    if not real.exists():
        pytest.skip(f"{real} not found")
    data = real.read_bytes()
    p = tmp_path / "qrels-rnd1.txt.gz"
    p.write_bytes(gzip.compress(data))
    monkeypatch.setattr(qrels_mod, "PIECE_BYTES", 4096)
    got = _outcome(str(p))  # real lines of several lengths: pieces cut inside lines
    assert pieces == [str(p)] and got[0] == "ok"
    assert got == _whole(monkeypatch, str(p))
    assert got[1]["lines"]["read"] == data.count(b"\n") == len(got[1]["value"][2]) // 8
    assert len(got[1]["topics"]) == 30


def _bad_at(j: int, line: bytes, n: int = 3 * K) -> bytes:
    lines = _lines(n)
    lines[j] = _pad(line)
    return b"".join(lines)


# (label, the line put there): each one must make the pieced read fall back or fail exactly
# as the whole read does
BAD = [
    ("three fields", b"1 0 d1\n"),
    ("five fields", b"1 0 d1 1 x\n"),
    ("rel not an integer", b"1 0 d1 one\n"),
    ("rel of 19 digits", b"1 0 d1 " + b"9" * 19 + b"\n"),
    ("rel out of int64", b"1 0 d1 -" + b"9" * 25 + b"\n"),
    ("comment", b"# a comment\n"),
    ("blank", b"\n"),
    ("lone CR", b"1 0 d1 1\r"),
    ("CRLF", b"1 0 d1 1\r\n"),
    ("NUL", b"1 0 d\x001 1\n"),
]


@pytest.mark.parametrize("j", [K - 1, K, 2 * K - 1, 2 * K, 3 * K - 1])
@pytest.mark.parametrize("label,line", BAD, ids=[b[0] for b in BAD])
def test_a_bad_line_at_a_piece_boundary(tmp_path, pieces, monkeypatch, j, label, line):
    data = _bad_at(j, line)
    p = tmp_path / "q.txt"
    p.write_bytes(data)
    got = _outcome(str(p))
    assert got == _whole(monkeypatch, str(p))
    if got[0] == "err":
        assert got[1].startswith(f"{p}:{j + 1}: "), got[1]
    else:  # comments, blank lines and CRs are read (and counted) by the whole read
        assert label in ("comment", "blank", "lone CR", "CRLF")


@pytest.mark.parametrize("a,b", [(K - 1, K), (0, 2 * K), (K, 3 * K - 1), (2 * K - 1, 2 * K)])
def test_a_duplicate_judgment_across_pieces(tmp_path, pieces, monkeypatch, a, b):
    lines = _lines(3 * K)
    t = a // 40
    lines[a] = _line(t, b"dup7")
    lines[b] = _line(t, b"dup7", b"2")
    for j in range(a + 1, b + 1):  # the topic's block runs from a to b
        if lines[j] != lines[b]:
            lines[j] = _line(t, b"e%d" % j)
    p = tmp_path / "q.txt"
    p.write_bytes(b"".join(lines))
    got = _outcome(str(p))
    assert pieces == [str(p)]
    assert got == _whole(monkeypatch, str(p))
    assert got[0] == "err"
    assert got[1].startswith(f"{p}:{b + 1}: docno judged twice for the same topic; "
                             f"1 duplicate judgment(s): {t} dup7 (lines {a + 1} and {b + 1})")


def test_small_files_stdin_and_subtopics_are_read_whole(tmp_path, monkeypatch, tokeniser):
    """Pieces only for a path of PIECE_MIN_BYTES or more, read as ad hoc qrels."""
    data = b"".join(_lines(3 * K))
    p = tmp_path / "q.txt"
    p.write_bytes(data)
    calls = []
    monkeypatch.setattr(qrels_mod, "_pieces", lambda *a: calls.append(a))
    monkeypatch.setattr(qrels_mod, "_FAST_MIN_BYTES", 0)
    tb.read_qrels(str(p))  # below PIECE_MIN_BYTES
    monkeypatch.setattr(qrels_mod, "PIECE_MIN_BYTES", 0)
    tb.read_qrels(io.BytesIO(data))
    tb.read_qrels(str(p), subtopics=True)
    assert calls == []
    tb.read_qrels(p)  # a Path is a path
    assert len(calls) == 1
