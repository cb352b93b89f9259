"""Sharded indexes (tiebreak.index.shards): partition, layout, the reduce step, errors, the CLI,
and the build on a Dask LocalCluster of 2 workers."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from tiebreak.cli import main
from tiebreak.index import IndexFormatError, build_index, open_index
from tiebreak.index.shards import (
    build_sharded_index,
    is_sharded,
    open_searchable,
    open_sharded,
    partition,
    reduce_stats,
)

VASWANI = "vaswani/doc-text.trec.gz"


def _jsonl(path, docs):
    path.write_text("".join(json.dumps({"docno": d, "text": t}) + "\n" for d, t in docs))
    return path


DOCS = [("d1", "apple banana apple"), ("d2", "banana cherry"), ("d3", "cherry date elder"),
        ("d4", "apple fig"), ("d5", "grape")]


def test_partition_contiguous_and_balanced():
    assert partition(10, 3) == [(0, 4), (4, 7), (7, 10)]
    assert partition(5, 5) == [(i, i + 1) for i in range(5)]
    assert partition(7, 1) == [(0, 7)]
    for n in range(1, 40):
        for s in range(1, n + 1):
            r = partition(n, s)
            sizes = [hi - lo for lo, hi in r]
            assert r[0][0] == 0 and r[-1][1] == n
            assert all(a[1] == b[0] for a, b in zip(r, r[1:]))
            assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)
    with pytest.raises(ValueError, match="every shard needs"):
        partition(3, 4)
    with pytest.raises(ValueError, match=">= 1"):
        partition(3, 0)


def test_layout_stats_and_docids(tmp_path):
    src = _jsonl(tmp_path / "c.jsonl", DOCS)
    single = build_index(src, tmp_path / "one", progress=False)
    sidx = build_sharded_index(src, tmp_path / "sh", 2, progress=False)
    assert is_sharded(tmp_path / "sh") and not is_sharded(tmp_path / "one")
    assert [s.num_docs for s in sidx.shards] == [3, 2]
    assert sidx.offsets.tolist() == [0, 3, 5]
    # every shard carries the whole vocabulary, so term ids agree everywhere
    for sh in sidx.shards:
        assert sh.terms.tolist() == single.terms.tolist()
        assert sh.global_stats is sidx.stats
    # the reduce: df, cf, N, |C| of one index of the whole source
    np.testing.assert_array_equal(sidx.stats.df, single.df)
    np.testing.assert_array_equal(sidx.stats.cf, single.cf)
    assert (sidx.num_docs, sidx.collection_length, sidx.avgdl) == \
        (single.num_docs, single.collection_length, single.avgdl)
    # a term absent from a shard has df 0 and no postings there
    t = single.term_id("grape")
    assert sidx.shards[0].df[t] == 0 and sidx.shards[1].df[t] == 1
    # global docid = shard offset + local docid = position in the source
    assert sidx.docnos[np.arange(5)].tolist() == single.docnos.tolist()
    assert sidx.docno(3) == "d4"
    # each shard is an ordinary index: its own verification applies
    for sh in sidx.shards:
        open_index(sh.path, verify="eager")
    open_sharded(tmp_path / "sh", verify="eager")
    assert isinstance(open_searchable(tmp_path / "one"), type(single))


def test_duplicate_docno_across_shards_names_both(tmp_path):
    src = _jsonl(tmp_path / "dup.jsonl", DOCS[:3] + [("d2", "again")])
    with pytest.raises(ValueError, match=r"duplicate docno 'd2': document 2 of shard-0000 and "
                                         r"document 2 of shard-0001"):
        build_sharded_index(src, tmp_path / "sh", 2, progress=False)
    assert not (tmp_path / "sh").exists()
    assert not list(tmp_path.glob(".sh.tmp-*"))     # nothing left behind


def test_reduce_refuses_different_vocabularies(tmp_path):
    a = build_index(_jsonl(tmp_path / "a.jsonl", DOCS[:2]), tmp_path / "a", progress=False)
    b = build_index(_jsonl(tmp_path / "b.jsonl", DOCS[2:]), tmp_path / "b", progress=False)
    with pytest.raises(IndexFormatError, match="vocabulary differs"):
        reduce_stats([a, b])


def test_rebuild_in_place_and_corruption(tmp_path):
    src = _jsonl(tmp_path / "c.jsonl", DOCS)
    build_sharded_index(src, tmp_path / "sh", 2, progress=False)
    old = json.loads((tmp_path / "sh" / "manifest.json").read_text())["data"]
    sidx = build_sharded_index(src, tmp_path / "sh", 3, progress=False)
    assert len(sidx.shards) == 3 and not (tmp_path / "sh" / old).exists()
    # a flipped statistic is caught at open (crc32)
    f = tmp_path / "sh" / sidx.manifest["data"] / "stats" / "df.npy"
    a = np.load(f)
    a[0] += 1
    np.save(f, a)
    with pytest.raises(IndexFormatError, match="checksum"):
        open_sharded(tmp_path / "sh")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "x").write_text("x")
    with pytest.raises(FileExistsError, match="not a sharded"):
        build_sharded_index(src, tmp_path / "plain", 2, progress=False)


def test_cli_index_shards_and_verify(tmp_path):
    src = _jsonl(tmp_path / "c.jsonl", DOCS)
    r = CliRunner().invoke(main, ["index", str(src), "-o", str(tmp_path / "sh"), "--shards", "2",
                                  "-j", "2"])
    assert r.exit_code == 0, r.output
    assert "5 documents in 2 shards" in r.output
    r = CliRunner().invoke(main, ["index", "--verify", str(tmp_path / "sh")])
    assert r.exit_code == 0 and "2 shards" in r.output
    r = CliRunner().invoke(main, ["index", str(src), "-o", str(tmp_path / "x"), "--shards", "9"])
    assert r.exit_code == 2 and "9 shards for 5 documents" in r.output
    r = CliRunner().invoke(main, ["index", str(src), "-o", str(tmp_path / "y"), "--dask",
                                  "local"])
    assert r.exit_code == 2 and "--dask works with --shards" in r.output


def _same_index(a, b):
    assert a.manifest["num_docs"] == b.manifest["num_docs"]
    for name in a.manifest["arrays"]:
        np.testing.assert_array_equal(np.asarray(getattr(a, name)), np.asarray(getattr(b, name)))


@pytest.mark.slow
def test_dask_local_cluster_builds_the_same_shards(shared_data, tmp_path, monkeypatch):
    pytest.importorskip("distributed", reason="Dask not installed: pip install 'tiebreak[dask]'")
    from tiebreak.evaluation import dask_client
    from tiebreak.retrieval.sharded import search_sharded

    # a LocalCluster of 2 workers
    monkeypatch.setattr("tiebreak._native.parallel.cpus", lambda: 2)
    src = shared_data / VASWANI
    local = build_sharded_index(src, tmp_path / "imap", 3, jobs=2, progress=False)
    client = dask_client("local")
    try:
        assert len(client.scheduler_info()["workers"]) == 2
        dask = build_sharded_index(src, tmp_path / "dask", 3, client=client, progress=False)
    finally:
        cluster = client.cluster
        client.close()
        cluster.close()
    for a, b in zip(local.shards, dask.shards):
        _same_index(a, b)
    np.testing.assert_array_equal(local.stats.df, dask.stats.df)
    np.testing.assert_array_equal(local.stats.cf, dask.stats.cf)
    topics = [("1", "electron beam"), ("2", "transistor amplifier noise")]
    for x, y in zip(search_sharded(local, topics, "bm25", 50),
                    search_sharded(dask, topics, "bm25", 50)):
        np.testing.assert_array_equal(x.docids, y.docids)
        np.testing.assert_array_equal(x.scores, y.scores)
