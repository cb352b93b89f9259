"""Every input kind through the one validated layer (issue 24): topics files, DataFrames, dicts,
gzip members. A byte-order mark, bad encoding, NUL bytes, NA values and corrupt compression each
give a clear error naming the input (or, for the byte-order mark, are removed)."""

from __future__ import annotations

import gzip

import pytest

from tiebreak.index.readers import read_topics
from tiebreak.io import InputError, read_qrels, read_run

RUN_TEXT = b"".join(b"%d Q0 doc%d %d %d.5 tag\n" % (q, i, i + 1, 5000 - i)
                    for q in range(1, 6) for i in range(2000))


def isal_corrupt() -> bytes:
    """A gzip stream with one damaged byte in its deflate header, which ISA-L reports with its
    own exception class (not an OSError)."""
    b = bytearray(gzip.compress(RUN_TEXT, mtime=0))
    b[20] ^= 0x5A
    return bytes(b)


@pytest.mark.parametrize("reader", [read_run, read_qrels])
def test_corrupt_gzip_any_decoder(tmp_path, reader):
    f = tmp_path / "x.gz"
    f.write_bytes(isal_corrupt())
    with pytest.raises(InputError, match=r"x\.gz: corrupt gzip data .*truncated or damaged"):
        reader(str(f))


def test_topics_bom_removed(tmp_path):
    f = tmp_path / "t.tsv"
    f.write_bytes(b"\xef\xbb\xbf1\tfox\n2\tdog\n")
    assert read_topics(str(f)) == [("1", "fox"), ("2", "dog")]
    f.write_bytes(b"\xef\xbb\xbf<top>\n<num> Number: 401\n<title> fox\n</top>\n")
    assert read_topics(str(f)) == [("401", "fox")]


@pytest.mark.parametrize("data, needle", [
    (b"1\tfox\n2\tcaf\xe9\n", r"t\.tsv:2: invalid UTF-8 in the topics \(byte 0xe9 at column 6\)"),
    (b"1\tfox\n2\tdo\x00g\n", r"t\.tsv:2: NUL byte"),
    (b"\xff\xfe1\x00\t\x00", r"t\.tsv:1: file is UTF-16"),
])
def test_topics_bad_encoding(tmp_path, data, needle):
    f = tmp_path / "t.tsv"
    f.write_bytes(data)
    with pytest.raises(InputError, match=needle):
        read_topics(str(f))


def test_truncated_topics_gz(tmp_path):
    f = tmp_path / "t.tsv.gz"
    data = gzip.compress(b"".join(b"%d\tquery number %d\n" % (i, i) for i in range(3000)))
    f.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError) as e:
        read_topics(str(f))
    assert "t.tsv.gz: corrupt gzip data" in str(e.value)
    assert "indexed" not in str(e.value)


# ---------------------------------------------------------------- DataFrames and dicts
pd = pytest.importorskip("pandas")


@pytest.mark.parametrize("cols, needle", [
    ({"query_id": ["1", pd.NA], "doc_id": ["a", "b"], "score": [1.0, 2.0]},
     "row 1: query_id is missing"),
    ({"query_id": pd.array([1, None], dtype="Int64"), "doc_id": ["a", "b"], "score": [1.0, 2]},
     "row 1: query_id is missing (<NA>)"),
    ({"query_id": ["1", "1"], "doc_id": ["a", None], "score": [1.0, 2.0]},
     "row 1: doc_id is missing"),
    ({"query_id": ["1", "1", "1"], "doc_id": ["a", "b", "c"],
      "score": pd.array([1.0, 2.0, None], dtype="Float64")}, "row 2: score"),
    ({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [1.0, pd.NA]},
     "row 1: score is missing (<NA>)"),
    ({"query_id": ["1", "1"], "doc_id": ["a", "b\x00"], "score": [1.0, 2]},
     "<DataFrame run>: row 1: NUL byte"),
    ({"query_id": ["1", "#2"], "doc_id": ["a", "b"], "score": [1.0, 2]},
     "row 1: query_id '#2' starts with '#'"),
])
def test_run_frame_na_and_bytes(cols, needle):
    from tiebreak.io.frames import run_from_frame

    with pytest.raises(InputError) as e:
        run_from_frame(pd.DataFrame(cols))
    assert needle in str(e.value) and "<stream>" not in str(e.value)


@pytest.mark.parametrize("rel", [[1, pd.NA], pd.array([1, None], dtype="Int64"), [1, None]])
def test_qrels_frame_na(rel):
    from tiebreak.io.frames import qrels_from_frame

    with pytest.raises(InputError, match=r"<DataFrame qrels>: row 1: relevance is missing"):
        qrels_from_frame(pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"],
                                       "relevance": rel}))


def test_dict_na():
    from tiebreak.io.frames import qrels_from_dict, run_from_dict

    with pytest.raises(InputError, match=r"<dict run>: topic '1', docno 'b': score is missing"):
        run_from_dict({"1": {"a": 1.0, "b": pd.NA}})
    with pytest.raises(InputError,
                       match=r"<dict qrels>: topic '1', docno 'a': relevance is missing"):
        qrels_from_dict({"1": {"a": None}})
    with pytest.raises(InputError, match=r"<dict run>: topic '1', docno <NA>: docno is missing"):
        run_from_dict({"1": {"a": 1.0, pd.NA: 2.0}})


@pytest.mark.parametrize("exc", [EOFError("Compressed file ended before the end-of-stream "
                                          "marker was reached"),
                                 gzip.BadGzipFile("CRC check failed")])
def test_truncated_irds_archive_is_not_offline(exc):
    from tiebreak.index.readers import _irds_iter

    def broken():
        yield ("d1", "x")
        raise exc

    with pytest.raises(ValueError) as e:
        list(_irds_iter("cranfield", broken, "documents"))
    assert "is truncated or corrupt" in str(e.value) and "download failed" not in str(e.value)
