"""The term-pair (nextword) index of a query set (tiebreak.retrieval.pairindex): per pair the
documents with their #1 (phrase) and #uw8 counts, equal to the positional computation -- by
hand on 3 documents, and on CACM against SDM's window counts, the term-pair statistics and a
per-document brute force over the positions."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tiebreak.index import build_index
from tiebreak.retrieval.dependency import query_pairs, window_counts
from tiebreak.retrieval.pairindex import PairIndexError, build_pair_index, open_pair_index
from tiebreak.retrieval.proxprune import pair_counts_in, pair_statistics

DOCS = [("d1", "apple berry kiwi apple berry"), ("d2", "berry kiwi apple"),
        ("d3", "apple kiwi kiwi")]


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    d = tmp_path_factory.mktemp("pairs")
    src = d / "c.jsonl"
    src.write_text("".join(json.dumps({"docno": n, "text": t}) + "\n" for n, t in DOCS))
    return build_index(str(src), str(d / "i"), progress=False), d


def test_pair_index_by_hand(small):
    idx, d = small
    an = idx.analyzer.analyze
    queries = [an("apple berry"), an("berry apple kiwi")]
    pi = build_pair_index(idx, queries, d / "p")
    t = {w: idx.term_id(an(w)[0]) for w in ("apple", "berry", "kiwi")}
    assert pi.pairs() == sorted([(t["apple"], t["berry"]), (t["berry"], t["apple"]),
                                 (t["apple"], t["kiwi"])])
    doc = {idx.docno(i): i for i in range(3)}
    # "apple berry": d1 has the phrase twice and two non-overlapping windows ([0,1], [3,4]);
    # d2 "berry kiwi apple" one window [0,2], no phrase; d3 lacks berry
    docs, od, uw = pi.postings(t["apple"], t["berry"])
    assert docs.tolist() == [doc["d1"], doc["d2"]] and od.tolist() == [2, 0]
    assert uw.tolist() == [2, 1]
    assert pi.phrase(t["apple"], t["berry"])[0].tolist() == [doc["d1"]]
    assert pi.totals(t["apple"], t["berry"]) == (2, 3)
    # "berry apple": no phrase anywhere; the same windows (unordered)
    docs, od, uw = pi.postings(t["berry"], t["apple"])
    assert docs.tolist() == [doc["d1"], doc["d2"]] and od.tolist() == [0, 0]
    assert uw.tolist() == [2, 1]
    assert pi.phrase(t["berry"], t["apple"])[0].size == 0
    # "apple kiwi": d1 (apple 0, 3; kiwi 2) no phrase; optimal intervals [0,2] and [2,3], the
    # second overlaps the first at 2 -> 1 window; d2 [1,2] 1 window, no phrase
    # ("kiwi apple" is the reverse order); d3 phrase "apple kiwi" at 0 and window [0,1]
    docs, od, uw = pi.postings(t["apple"], t["kiwi"])
    assert docs.tolist() == [0, 1, 2]
    assert od.tolist() == [0, 0, 1] and uw.tolist() == [1, 1, 1]
    with pytest.raises(KeyError):
        pi.postings(t["kiwi"], t["apple"])
    # read back from disk: the same arrays
    again = open_pair_index(d / "p", idx)
    assert again.pairs() == pi.pairs() and again.window == 8
    assert np.array_equal(again.n_uw, pi.n_uw) and again.nbytes() == pi.nbytes()
    # the positional computation, pair by pair and document by document
    for a, b in pi.pairs():
        dd, oo, uu = pi.postings(a, b)
        for x, o, u in zip(dd.tolist(), oo.tolist(), uu.tolist()):
            pa, pb = _positions(idx, a, x), _positions(idx, b, x)
            assert pair_counts_in(pa, pb, 8) == (o, u)


def _positions(idx, t, doc):
    docs, _ = idx.postings(t)
    off, pos = idx.positions(t)
    i = int(np.searchsorted(docs, doc))
    if i == docs.size or docs[i] != doc:
        return np.zeros(0, np.int32)
    return pos[off[i]:off[i + 1]]


def test_pair_index_errors(small, tmp_path):
    idx, d = small
    an = idx.analyzer.analyze
    with pytest.raises(ValueError, match="window"):
        build_pair_index(idx, [an("apple berry")], window=0)
    build_pair_index(idx, [an("apple berry")], tmp_path / "p")
    f = tmp_path / "p" / "n_uw.npy"
    a = np.load(f)
    a[0] += 1
    np.save(f, a)
    with pytest.raises(PairIndexError, match="checksum"):
        open_pair_index(tmp_path / "p")
    with pytest.raises(PairIndexError, match="cannot be read"):
        open_pair_index(tmp_path / "none")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x").write_text("x")
    with pytest.raises(ValueError, match="not a pair index"):
        build_pair_index(idx, [an("apple berry")], tmp_path / "other")
    # built from another index
    src = tmp_path / "c2.jsonl"
    src.write_text(json.dumps({"docno": "z", "text": "apple berry"}) + "\n")
    other = build_index(str(src), str(tmp_path / "i2"), progress=False)
    build_pair_index(idx, [an("apple berry")], tmp_path / "q")
    with pytest.raises(PairIndexError, match="another index"):
        open_pair_index(tmp_path / "q", other)


def test_pair_index_cacm(shared_data, tmp_path):
    from tiebreak.index.readers import read_topics

    d = shared_data / "cacm"
    idx = build_index(d / "anserini_cacm_html.tar.gz", tmp_path / "cacm", progress=False)
    topics = read_topics(d / "anserini_topics.cacm.txt")
    queries = [idx.analyzer.analyze(text) for _, text in topics]
    pi = build_pair_index(idx, queries, tmp_path / "pairs")
    pairs = query_pairs(idx, queries)
    assert pi.pairs() == pairs and len(pairs) > 300
    # collection totals = the term-pair statistics = SDM's pass-1 window counts
    from tiebreak.retrieval.dependency.plan import _arrays

    stats = pair_statistics(idx, pairs, 8, _arrays(idx))
    for p in pairs:
        assert pi.totals(*p) == tuple(int(v) for v in stats[p])
    checked = 0
    for q in queries[:20]:
        tids = [idx.term_id(t) for t in dict.fromkeys(q) if idx.term_id(t) >= 0]
        if len(tids) < 2:
            continue
        w = window_counts("sdm", idx, q)
        npair = len(tids) - 1
        for j in range(npair):
            o, u = pi.totals(tids[j], tids[j + 1])
            assert (w[len(tids) + j], w[len(tids) + npair + j]) == (o, u)
            checked += 1
    assert checked > 40
    # per document, for a sample of pairs: every document holding both terms, brute force
    for a, b in pairs[::25]:
        da, _ = idx.postings(a)
        db, _ = idx.postings(b)
        both = np.intersect1d(da, db)
        want = {}
        for x in both.tolist():
            o, u = pair_counts_in(_positions(idx, a, x), _positions(idx, b, x), 8)
            if o or u:
                want[x] = (o, u)
        dd, oo, uu = pi.postings(a, b)
        assert dict(zip(dd.tolist(), zip(oo.tolist(), uu.tolist()))) == want


def test_cli_pairs_and_direct(small, tmp_path):
    from click.testing import CliRunner

    from tiebreak.cli import main
    from tiebreak.index.store import open_index

    idx, d = small
    topics = tmp_path / "t.tsv"
    topics.write_text("1\tapple berry\n2\tberry apple kiwi\n")
    r = CliRunner().invoke(main, ["index", str(idx.path), "--pairs", str(topics), "-o",
                                  str(tmp_path / "pairs")])
    assert r.exit_code == 0, r.output
    assert "3 pairs, 7 postings (#1 and #uw8)" in r.stderr
    pi = open_pair_index(tmp_path / "pairs", idx)
    an = idx.analyzer.analyze
    assert pi.pairs() == build_pair_index(idx, [an("apple berry"), an("berry apple kiwi")]).pairs()
    r = CliRunner().invoke(main, ["index", str(idx.path), "--pairs", str(topics)])
    assert r.exit_code == 2 and "needs -o" in r.stderr
    r = CliRunner().invoke(main, ["index", str(tmp_path / "none"), "--pairs", str(topics),
                                  "-o", str(tmp_path / "p2")])
    assert r.exit_code == 2 and "tiebreak: error:" in r.stderr
    # --direct without -o adds the direct file to an existing index
    import shutil

    shutil.copytree(idx.path, tmp_path / "copy")
    r = CliRunner().invoke(main, ["index", str(tmp_path / "copy"), "--direct"])
    assert r.exit_code == 0, r.output
    assert "direct file of 11 tokens" in r.stderr
    c = open_index(tmp_path / "copy", verify="eager")
    assert c.has_direct and [c.term(t) for t in c.document_terms(1)] == an("berry kiwi apple")
