"""The stored direct file (tiebreak.index: ``direct``, Lu 2018 Table 2.2): written on request,
equal to the documents' tokens, checked like the other arrays, optional (an index without it
opens as before), and used by the two-stage rerank with the same docids and bit-identical
scores as the positional-postings path."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from tiebreak.index import build_index
from tiebreak.index.direct import add_direct_file, direct_from_postings
from tiebreak.index.manifest import IndexFormatError
from tiebreak.index.store import open_index
from tiebreak.retrieval.rerank import rerank

DOCS = [("d1", "alpha beta gamma alpha"), ("d2", "beta the alpha delta"), ("d3", "gamma")]


def _jsonl(tmp_path, docs, name="c.jsonl"):
    src = tmp_path / name
    src.write_text("".join(json.dumps({"docno": d, "text": t}) + "\n" for d, t in docs))
    return str(src)


def test_direct_file_is_the_documents_terms(tmp_path):
    idx = build_index(_jsonl(tmp_path, DOCS), tmp_path / "i", progress=False, direct=True)
    assert idx.has_direct and "direct" in idx.manifest["arrays"]
    words = [[idx.term(t) for t in idx.document_terms(d)] for d in range(3)]
    # stopword "the" takes no position
    assert words == [["alpha", "beta", "gamma", "alpha"], ["beta", "alpha", "delta"], ["gamma"]]
    assert idx.doc_start().tolist() == [0, 4, 7, 8]
    idx.verify()
    plain = build_index(_jsonl(tmp_path, DOCS), tmp_path / "p", progress=False)
    assert not plain.has_direct and "direct" not in plain.manifest["arrays"]
    with pytest.raises(ValueError, match="no direct file"):
        plain.document_terms(0)
    with pytest.raises(IndexError):
        idx.document_terms(3)
    plain.verify()      # an index without the optional array still opens and verifies


@pytest.mark.parametrize("compressed", [True, False])
def test_direct_from_postings_and_add(tmp_path, compressed):
    rng = random.Random(3)
    words = "a b c d e f g h".split()
    docs = [(f"x{i}", " ".join(rng.choice(words) for _ in range(rng.randint(1, 30))))
            for i in range(40)]
    src = _jsonl(tmp_path, docs)
    a = build_index(src, tmp_path / "a", progress=False, direct=True, compressed=compressed)
    b = build_index(src, tmp_path / "b", progress=False, compressed=compressed)
    got = direct_from_postings(b.post_ptr, b.post_docid, b.pos_ptr, b.pos, b.doclen)
    assert np.array_equal(got, np.asarray(a.direct))
    c = add_direct_file(tmp_path / "b")
    assert c.has_direct and np.array_equal(np.asarray(c.direct), np.asarray(a.direct))
    c.verify()
    assert open_index(tmp_path / "b", verify="eager").has_direct


def _corrupt(tmp_path, mutate):
    tmp_path.mkdir()
    idx = build_index(_jsonl(tmp_path, DOCS), tmp_path / "i", progress=False, direct=True)
    f = idx.data_dir / "direct.npy"
    a = np.load(f)
    mutate(a)
    np.save(f, a)
    # keep the manifest's crc32 in step so that only the invariants can catch it
    from tiebreak.index.invariants import crc32

    m = json.loads((tmp_path / "i" / "manifest.json").read_text())
    m["arrays"]["direct"]["crc32"] = crc32(a)
    (tmp_path / "i" / "manifest.json").write_text(json.dumps(m))
    return tmp_path / "i"


def test_direct_wrong_length_or_dtype(tmp_path):
    from tiebreak.index.invariants import crc32

    for name, arr, needle in (("short", np.zeros(3, np.int32), "direct length"),
                              ("dtype", np.zeros(8, np.int64), "expected int32")):
        idx = build_index(_jsonl(tmp_path, DOCS, f"{name}.jsonl"), tmp_path / name,
                          progress=False, direct=True)
        f = idx.data_dir / "direct.npy"
        np.save(f, arr)
        mf = tmp_path / name / "manifest.json"
        m = json.loads(mf.read_text())
        m["arrays"]["direct"].update(dtype=str(arr.dtype), shape=list(arr.shape),
                                     crc32=crc32(arr), file_bytes=f.stat().st_size)
        mf.write_text(json.dumps(m))
        with pytest.raises(IndexFormatError, match=needle):
            open_index(tmp_path / name)


def test_direct_checks(tmp_path):
    path = _corrupt(tmp_path / "x", lambda a: a.__setitem__(2, 99))
    with pytest.raises(IndexFormatError, match=r"direct\[2\] outside"):
        _ = open_index(path).direct
    # a valid term id at the wrong place passes the first-access check, not verify()
    path = _corrupt(tmp_path / "y", lambda a: a.__setitem__(0, a[1]))
    assert open_index(path).direct[0] == open_index(path).direct[1]
    with pytest.raises(IndexFormatError, match="disagrees with the positional postings at token 0"):
        open_index(path, verify="eager")
    # a flipped byte without a new crc32 is caught by the checksum
    idx = build_index(_jsonl(tmp_path, DOCS), tmp_path / "z", progress=False, direct=True)
    f = idx.data_dir / "direct.npy"
    raw = bytearray(f.read_bytes())
    raw[-1] ^= 1
    f.write_bytes(bytes(raw))
    with pytest.raises(IndexFormatError, match="checksum"):
        _ = open_index(tmp_path / "z").direct


def _same(idx, queries, **kw):
    n = 0
    for q in queries:
        terms = idx.analyzer.analyze(q)
        d0, s0 = rerank(idx, terms, direct=False, **kw)
        d1, s1 = rerank(idx, terms, direct=True, **kw)
        assert d1.tolist() == d0.tolist(), q
        assert s1.tobytes() == s0.tobytes(), q     # bit-identical
        n += int(len(d0) > 0)
    return n


def test_rerank_with_direct_file_random(tmp_path):
    rng = random.Random(8)
    words = "alpha beta gamma delta kappa omega zeta theta iota sigma".split()
    docs = [(f"d{i:03d}", " ".join(rng.choice(words) for _ in range(rng.randint(1, 40))))
            for i in range(80)]
    idx = build_index(_jsonl(tmp_path, docs), tmp_path / "i", progress=False, direct=True)
    qs = ["alpha beta", "gamma alpha delta beta", "beta alpha beta gamma kappa", "alpha",
          "alpha beta gamma delta kappa omega zeta theta iota"]
    for model in ("lkp", "lkpf", "l2p"):
        for method in ("lps_if_all", "eps_cdf_all"):
            assert _same(idx, qs, k=20, first_k=50, model=model, method=method) == 5
    # a non-fused first pass goes through the same kernel
    assert _same(idx, qs, k=10, first_k=30, first="ql") == 5
    # with the direct file a freshly opened (version 2) index never decodes its positions
    fresh = open_index(tmp_path / "i")
    rerank(fresh, fresh.analyzer.analyze("alpha beta gamma"), 10)
    assert "post_docid" in fresh.__dict__
    assert "pos" not in fresh.__dict__ and "pos_ptr" not in fresh.__dict__
    # default: the direct file when present
    q = idx.analyzer.analyze("alpha beta gamma")
    assert rerank(idx, q, 10)[1].tobytes() == rerank(idx, q, 10, direct=True)[1].tobytes()


def test_rerank_direct_needs_the_file(tmp_path):
    idx = build_index(_jsonl(tmp_path, DOCS), tmp_path / "p", progress=False)
    with pytest.raises(ValueError, match="no direct file"):
        rerank(idx, ["alpha", "beta"], 10, direct=True)


def test_rerank_direct_file_cacm(shared_data, tmp_path):
    from tiebreak.index.readers import read_topics

    d = shared_data / "cacm"
    idx = build_index(d / "anserini_cacm_html.tar.gz", tmp_path / "cacm", progress=False,
                      direct=True)
    topics = read_topics(d / "anserini_topics.cacm.txt")
    qs = [text for _, text in topics]
    assert _same(idx, qs, k=100, first_k=200) == 64
    assert _same(idx, qs[::4], k=1000, first_k=1000, model="l2p") == 16


def test_cli_index_direct(tmp_path):
    from click.testing import CliRunner

    from tiebreak.cli import main

    src = _jsonl(tmp_path, DOCS)
    r = CliRunner().invoke(main, ["index", src, "-o", str(tmp_path / "i"), "--direct"])
    assert r.exit_code == 0 and "and the direct file" in r.stderr
    assert open_index(tmp_path / "i").has_direct
    r = CliRunner().invoke(main, ["index", src, "-o", str(tmp_path / "s"), "--direct",
                                  "--shards", "2"])
    assert r.exit_code == 2 and "not work with --shards" in r.stderr
    r = CliRunner().invoke(main, ["index", src, "--direct"])    # SOURCE is not an index
    assert r.exit_code == 2 and "tiebreak: error:" in r.stderr
