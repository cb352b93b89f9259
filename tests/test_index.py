"""Index: analyser, readers, round trip against naive re-tokenisation, atomicity, corruption."""

from __future__ import annotations

import gzip
import json
import os
import shutil
from collections import defaultdict

import numpy as np
import pytest

from tiebreak.index import Analyzer, IndexFormatError, build_index, open_index
from tiebreak.index import build as build_mod
from tiebreak.index.analysis import light_stem
from tiebreak.index.readers import iter_documents, read_topics

DOCS = [
    ("d1", "The quick brown fox jumps over the lazy dog. The dog's owner, U.S.A. based, sleeps."),
    ("d2", "Foxes and dogs: 3.14 reasons why quick running dogs outrun foxes"),
    ("d3", "Nothing in common here except the word fox"),
    ("d4", ""),
]


def write_jsonl(path, docs=DOCS):
    with open(path, "w") as fh:
        for d, t in docs:
            fh.write(json.dumps({"docno": d, "text": t}) + "\n")
    return path


def write_trec(path, docs=DOCS):
    with gzip.open(path, "wt") as fh:
        for d, t in docs:
            fh.write(f"<DOC>\n<DOCNO> {d} </DOCNO>\n<TEXT>\n{t}\n</TEXT>\n</DOC>\n")
    return path


def write_smart(path, docs=DOCS):
    with open(path, "w") as fh:
        for i, (_, t) in enumerate(docs, 1):
            fh.write(f".I {i}\r\n.T\r\ntitle {i}\r\n.W\r\n{t}\r\n.X\r\n99 5 {i}\r\n")
    return path


@pytest.fixture(scope="module")
def irds_home(shared_data, tmp_path_factory):
    """IR_DATASETS_HOME pointing at a temporary copy of ../shared/data/ir_datasets_home."""
    dst = tmp_path_factory.mktemp("irds") / "home"
    shutil.copytree(shared_data / "ir_datasets_home", dst)
    for p in [dst, *dst.rglob("*")]:
        p.chmod(p.stat().st_mode | 0o200)
    mp = pytest.MonkeyPatch()
    mp.setenv("IR_DATASETS_HOME", str(dst))
    yield dst
    mp.undo()


def naive(analyzer, docs):
    """term -> {docno index: positions} by re-tokenising."""
    inv = defaultdict(dict)
    for d, (_, text) in enumerate(docs):
        for p, t in enumerate(analyzer.analyze(text)):
            inv[t].setdefault(d, []).append(p)
    return inv


def check_against_naive(idx, docs):
    an = idx.analyzer
    inv = naive(an, docs)
    assert idx.num_docs == len(docs)
    assert list(idx.docnos) == [d for d, _ in docs]
    lens = [len(an.analyze(t)) for _, t in docs]
    assert idx.doclen.tolist() == lens and idx.doclen.dtype == np.int32
    assert idx.collection_length == sum(lens)
    assert idx.avgdl == pytest.approx(sum(lens) / len(docs))
    assert idx.vocab_size == len(inv) == len(idx.df) == len(idx.cf)
    assert idx.df.dtype == np.int32 and idx.cf.dtype == np.int64
    assert idx.post_ptr.dtype == np.int64 and idx.pos_ptr.dtype == np.int64
    assert idx.post_docid.dtype == np.int32 and idx.post_tf.dtype == np.int32
    assert idx.pos.dtype == np.int32
    for term, postings in inv.items():
        tid = idx.term_id(term)
        assert tid >= 0 and idx.term(tid) == term
        docids, tf = idx.postings(tid)
        assert docids.tolist() == sorted(postings)
        assert tf.tolist() == [len(postings[d]) for d in sorted(postings)]
        assert idx.df[tid] == len(postings) and idx.cf[tid] == sum(map(len, postings.values()))
        off, pos = idx.positions(tid)
        assert off.dtype == np.int64 and off.shape == (len(postings) + 1,)
        for i, d in enumerate(sorted(postings)):
            assert pos[off[i]:off[i + 1]].tolist() == postings[d]
    assert idx.term_id("zzz-not-there") == -1


def test_analyzer_default_lucene_like():
    an = Analyzer()
    assert an.analyze("The U.S.A. programs don't run at John's 3.14 GHz, 1,000 times") == [
        "u.s.a", "program", "don't", "run", "john", "3.14", "ghz", "1,000", "time"]
    # stopwords go before stemming; 1-2 letter words are not stemmed; "a.1" splits (UAX #29)
    assert an.analyze("a.1 as x:y 3:37") == ["1", "x:y", "3", "37"]
    assert Analyzer(stemmer="none", stopwords="none").analyze("The Dogs") == ["the", "dogs"]
    assert "the" not in Analyzer(stopwords="smart").analyze("the whatever dogs")
    cfg = Analyzer(stemmer="krovetz-like", stopwords=["foo"]).config()
    assert Analyzer.from_config(cfg).analyze("foo studies") == ["study"]


def test_light_stem():
    got = [light_stem(w) for w in "studies classes boxes running stopped analysis cats".split()]
    assert got == ["study", "class", "box", "run", "stop", "analysis", "cat"]


@pytest.mark.parametrize("compressed", [True, False])
@pytest.mark.parametrize("fmt", ["jsonl", "trec", "smart"])
def test_round_trip(tmp_path, fmt, compressed):
    src = {"jsonl": lambda: write_jsonl(tmp_path / "c.jsonl"),
           "trec": lambda: write_trec(tmp_path / "c.trec.gz"),
           "smart": lambda: write_smart(tmp_path / "C.ALL")}[fmt]()
    idx = build_index(src, tmp_path / "idx", progress=False, compressed=compressed)
    assert idx.format_version == (2 if compressed else 1)
    docs = list(iter_documents(src))
    if fmt == "smart":
        assert [d for d, _ in docs] == ["1", "2", "3", "4"]
        assert "99 5" not in docs[0][1] and "title 1" in docs[0][1]   # .X not indexed
    else:
        assert [d for d, _ in docs] == [d for d, _ in DOCS]
    check_against_naive(idx, docs)
    check_against_naive(open_index(tmp_path / "idx"), docs)
    open_index(tmp_path / "idx").verify()


def test_postings_of_one_term_decoded_alone(tmp_path):
    """On a version-2 index, postings(tid) decodes only that term's blocks (no full decode)
    and gives the same arrays as the full decode."""
    rng = np.random.default_rng(3)
    docs = [(f"d{i}", " ".join(f"w{x}" for x in rng.zipf(1.3, 300) % 50)) for i in range(400)]
    build_index(write_jsonl(tmp_path / "c.jsonl", docs), tmp_path / "idx", progress=False,
                analyzer=Analyzer("none", "none"))
    idx = open_index(tmp_path / "idx")
    one = [idx.postings(t) for t in range(idx.vocab_size)]
    assert "post_docid" not in idx.__dict__
    assert max(len(d) for d, _ in one) > 3 * 128          # terms of several blocks
    full = open_index(tmp_path / "idx")
    for t, (d, f) in enumerate(one):
        a, b = full.post_ptr[t], full.post_ptr[t + 1]
        assert np.array_equal(d, full.post_docid[a:b]) and np.array_equal(f, full.post_tf[a:b])
    with pytest.raises(IndexError):
        idx.postings(idx.vocab_size)


@pytest.mark.slow
def test_round_trip_cranfield(irds_home, tmp_path):
    idx = build_index("cranfield", tmp_path / "cran", progress=False)
    assert idx.num_docs == 1400
    check_against_naive(idx, list(iter_documents("cranfield")))
    topics = read_topics("cranfield")
    assert len(topics) == 225 and topics[0][0] == "1"


def test_topics_formats(tmp_path):
    (tmp_path / "t.trec").write_text(
        "<top>\n<num> Number: 301\n<title> Foreign minorities\n<desc> Description:\nWhich?\n"
        "</top>\n<top><num>7</num><title>\nDOG FOOD\n</title></top>\n")
    assert read_topics(tmp_path / "t.trec") == [("301", "Foreign minorities"), ("7", "DOG FOOD")]
    assert read_topics(tmp_path / "t.trec", field="title,desc")[0] == (
        "301", "Foreign minorities Which?")
    (tmp_path / "t.tsv").write_text("a\tone two\nb\tthree\n")
    assert read_topics(tmp_path / "t.tsv") == [("a", "one two"), ("b", "three")]
    (tmp_path / "q.qry").write_text(".I 5\n.W\nfirst query\n.N\nignored\n.I 9\n.W\nsecond\n.I 0\n")
    assert read_topics(tmp_path / "q.qry") == [("5", "first query"), ("9", "second")]
    assert read_topics(tmp_path / "q.qry", numbering="sequential") == [
        ("1", "first query"), ("2", "second")]


def test_duplicate_docno(tmp_path):
    src = write_jsonl(tmp_path / "c.jsonl", [("a", "x"), ("a", "y")])
    with pytest.raises(ValueError, match="duplicate docno"):
        build_index(src, tmp_path / "idx", progress=False)
    assert not (tmp_path / "idx").exists()


def _no_leftovers(parent):
    return [p.name for p in parent.rglob("*") if ".tmp" in p.name or ".old-" in p.name]


def _files(d):
    return {str(p.relative_to(d)): p.read_bytes() for p in d.rglob("*") if p.is_file()}


def array_file(idx_dir, name):
    """Path of an array file of the index generation that the manifest names."""
    data = json.loads((idx_dir / "manifest.json").read_text()).get("data", ".")
    return idx_dir / data / f"{name}.npy"


def test_crash_mid_build_leaves_no_index(tmp_path, monkeypatch):
    src = write_jsonl(tmp_path / "c.jsonl")
    calls = []
    real = build_mod._save

    def flaky(dirpath, name, a):
        calls.append(name)
        if len(calls) == 5:
            raise OSError("disk full (simulated)")
        return real(dirpath, name, a)

    monkeypatch.setattr(build_mod, "_save", flaky)
    with pytest.raises(OSError, match="simulated"):
        build_index(src, tmp_path / "idx", progress=False)
    assert not (tmp_path / "idx").exists()
    with pytest.raises(IndexFormatError):
        open_index(tmp_path / "idx")
    assert _no_leftovers(tmp_path) == []


def test_crash_keeps_previous_index(tmp_path, monkeypatch):
    old_docs = [("old1", "alpha beta"), ("old2", "beta gamma")]
    build_index(write_jsonl(tmp_path / "old.jsonl", old_docs), tmp_path / "idx", progress=False)
    before = _files(tmp_path / "idx")

    def boom(*a, **k):
        raise RuntimeError("killed (simulated)")

    monkeypatch.setattr(build_mod, "fsync_dir", boom)   # fails after all arrays are written
    with pytest.raises(RuntimeError, match="simulated"):
        build_index(write_jsonl(tmp_path / "new.jsonl"), tmp_path / "idx", progress=False)
    after = _files(tmp_path / "idx")
    assert after == before
    idx = open_index(tmp_path / "idx")
    assert list(idx.docnos) == ["old1", "old2"]
    assert _no_leftovers(tmp_path) == []
    monkeypatch.undo()
    # a successful rebuild replaces it
    idx = build_index(write_jsonl(tmp_path / "new.jsonl"), tmp_path / "idx", progress=False)
    assert idx.num_docs == len(DOCS) and _no_leftovers(tmp_path) == []


def test_refuses_to_replace_non_index(tmp_path):
    (tmp_path / "idx").mkdir()
    (tmp_path / "idx" / "precious.txt").write_text("keep")
    with pytest.raises(FileExistsError):
        build_index(write_jsonl(tmp_path / "c.jsonl"), tmp_path / "idx", progress=False)
    assert (tmp_path / "idx" / "precious.txt").read_text() == "keep"


#: array files standing for positions / postings in each format version
STORED = {1: {"pos": "pos", "post": "post_tf"}, 2: {"pos": "pos_bytes", "post": "post_bytes"}}


@pytest.fixture(params=[2, 1], ids=["v2", "v1"])
def built(tmp_path, request):
    build_index(write_jsonl(tmp_path / "c.jsonl"), tmp_path / "idx", progress=False,
                compressed=request.param == 2)
    return tmp_path / "idx"


def stored(idx_dir, what):
    version = json.loads((idx_dir / "manifest.json").read_text())["version"]
    return STORED[version][what]


def test_truncated_array(built):
    name = stored(built, "pos")
    f = array_file(built, name)
    data = f.read_bytes()
    f.write_bytes(data[:-8])
    with pytest.raises(IndexFormatError, match=rf"{name}\.npy has .* bytes.*truncated"):
        open_index(built)


def test_missing_array(built):
    name = stored(built, "post")
    os.remove(array_file(built, name))
    with pytest.raises(IndexFormatError, match=rf"{name}\.npy is missing"):
        open_index(built)


def test_bad_manifest_version(built):
    mf = built / "manifest.json"
    m = json.loads(mf.read_text())
    m["version"] = 99
    mf.write_text(json.dumps(m))
    with pytest.raises(IndexFormatError, match="version 99.*rebuild"):
        open_index(built)
    mf.write_text("{not json")
    with pytest.raises(IndexFormatError, match="cannot be read"):
        open_index(built)
    mf.unlink()
    with pytest.raises(IndexFormatError, match="not a tiebreak index"):
        open_index(built)


def test_replaced_array_and_checksum(built, tmp_path):
    # same size, different content: loads (sizes match) but verify() catches it
    f = array_file(built, stored(built, "post"))
    data = bytearray(f.read_bytes())
    data[-1] ^= 0x7
    f.write_bytes(bytes(data))
    idx = open_index(built)
    with pytest.raises(IndexFormatError, match="checksum"):
        idx.verify()
    # wrong shape with a consistent size entry
    shutil.copy(array_file(built, "df"), array_file(built, "doclen"))
    m = json.loads((built / "manifest.json").read_text())
    m["arrays"]["doclen"]["file_bytes"] = array_file(built, "doclen").stat().st_size
    (built / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(IndexFormatError):
        open_index(built)
