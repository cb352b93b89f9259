"""Index integrity II (issue 24): the shard order is checked at open, stale generations are
cleaned, a full disk is reported with the destination the user gave."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tiebreak.index import IndexFormatError
from tiebreak.index.shards import build_sharded_index, open_sharded

DOCS = [(f"d{i}", f"text number {i} fox dog {'lazy ' * (i % 3)}") for i in range(12)]


def write_jsonl(path: Path, docs=DOCS) -> Path:
    path.write_text("".join(json.dumps({"docno": d, "text": t}) + "\n" for d, t in docs))
    return path


@pytest.fixture
def sharded(tmp_path):
    build_sharded_index(write_jsonl(tmp_path / "c.jsonl"), tmp_path / "sh", 2, progress=False,
                        jobs=1)
    return tmp_path / "sh"


def test_manifest_records_shard_order(sharded):
    m = json.loads((sharded / "manifest.json").read_text())
    sidx = open_sharded(sharded)
    assert [s["docnos_crc32"] for s in m["shards"]] == \
        [ix.manifest["arrays"]["docnos"]["crc32"] for ix in sidx.shards]


def test_swapped_shards_refused(sharded, capsys):
    gen = sharded / json.loads((sharded / "manifest.json").read_text())["data"]
    os.rename(gen / "shard-0000", gen / "tmp")
    os.rename(gen / "shard-0001", gen / "shard-0000")
    os.rename(gen / "tmp", gen / "shard-0001")
    with pytest.raises(IndexFormatError, match=r"shard-0000: not the shard the sharded manifest "
                                               r"lists at position 0"):
        open_sharded(sharded)
    from tiebreak.cli import main

    topics = sharded.parent / "t.tsv"
    topics.write_text("1\tfox\n")
    with pytest.raises(SystemExit) as e:
        main.main(["search", str(sharded), "--topics", str(topics)], prog_name="tiebreak")
    err = capsys.readouterr().err
    assert e.value.code == 2 and "Traceback" not in err
    assert err.startswith("tiebreak: error: ") and "shards swapped" in err


# ---------------------------------------------------------------- builds: disk full, races, stale
def cli(args, capsys):
    from tiebreak.cli import main

    capsys.readouterr()
    try:
        main.main(list(map(str, args)), prog_name="tiebreak")
        code = 0
    except SystemExit as e:
        code = e.code
    return code, capsys.readouterr().err


@pytest.mark.parametrize("shards", [None, 2])
@pytest.mark.parametrize("fault", ["numpy short write", "ENOSPC on a staging file"])
def test_disk_full_names_the_destination(tmp_path, monkeypatch, capsys, fault, shards):
    import errno

    import numpy as np

    from tiebreak.index import build

    src = write_jsonl(tmp_path / "c.jsonl")
    dest = tmp_path / "out" / "idx"
    if fault == "numpy short write":
        real, calls = np.save, []

        def save(fh, a, **kw):
            calls.append(1)
            if len(calls) == 3:
                raise OSError("120000 requested and 18720 written")
            return real(fh, a, **kw)

        monkeypatch.setattr(np, "save", save)
    else:
        def manifest(f, m):
            raise OSError(errno.ENOSPC, "No space left on device", str(f))

        monkeypatch.setattr(build, "_write_manifest", manifest)
    code, err = cli(["index", src, "-o", dest, *(["--shards", shards, "-j", 1] if shards
                                                  else [])], capsys)
    assert code == 1, err
    assert err == f"tiebreak: error: {dest}: the disk is full: free some space or write " \
                  "elsewhere ([Errno 28] No space left on device)\n"
    assert not dest.exists() and [p.name for p in dest.parent.iterdir()] == []


def test_racing_fresh_builds_clear_message(tmp_path):
    from tiebreak.index.build import _rename_fresh

    stage, target = tmp_path / ".idx.tmp-1", tmp_path / "idx"
    for d in (stage, target):
        d.mkdir()
        (d / "manifest.json").write_text("{}")
    with pytest.raises(FileExistsError) as e:
        _rename_fresh(stage, target)
    assert e.value.strerror.startswith(f"another build created the index {target} while this "
                                       "one ran")


def test_stale_generations_provably_unused_removed(tmp_path):
    import fcntl

    from tiebreak.index import build_index, open_index

    src = write_jsonl(tmp_path / "c.jsonl")
    idx = tmp_path / "idx"
    build_index(src, idx, progress=False)
    build_index(src, idx, progress=False)   # a rebuild in place: generations with locks
    named = json.loads((idx / "manifest.json").read_text())["data"]
    # a killed builder (its lock file is free), a finished build superseded by a racing one
    # (its builder deleted the lock after its switch), a build in progress (its lock held):
    # only the last stays
    dead, superseded, live = ".v-00000000000000d1.tmp", "v-00000000000000d2", \
        ".v-00000000000000d3.tmp"
    for d in (dead, superseded, live):
        (idx / d).mkdir()
        (idx / d / "x.npy").write_bytes(b"x")
        gen = d.strip(".").removesuffix(".tmp")
        if d != superseded:
            (idx / f".{gen}.lock").touch()
    fd = os.open(idx / ".v-00000000000000d3.lock", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        build_index(src, idx, progress=False)
    finally:
        os.close(fd)
    names = {p.name for p in idx.iterdir()}
    new = json.loads((idx / "manifest.json").read_text())["data"]
    assert new != named and named not in names
    assert names == {"manifest.json", new, live, ".v-00000000000000d3.lock"}
    assert open_index(idx, verify="eager").num_docs == len(DOCS)


# ---------------------------------------------------------------- Unicode normalisation
def test_unicode_normalised_documents_and_queries(tmp_path):
    from tiebreak.index import build_index
    from tiebreak.index.analysis import Analyzer
    from tiebreak.retrieval.search import search

    docs = [("d1", "un caf\u00e9 au lait"), ("d2", "the \ufb01le system"),
            ("d3", "cafe\u0301 noir"), ("d4", "nothing here")]
    idx = build_index(write_jsonl(tmp_path / "c.jsonl", docs), tmp_path / "idx", progress=False)
    assert idx.manifest["analyzer"]["normalize"] == "NFKC"
    res = search(idx, [("1", "cafe\u0301"), ("2", "caf\u00e9"), ("3", "file")], "bm25")
    got = {r.qid: sorted(idx.docno(d) for d in r.docids) for r in res}
    assert got == {"1": ["d1", "d3"], "2": ["d1", "d3"], "3": ["d2"]}
    # an index built before normalisation keeps analysing queries as its documents were
    old = Analyzer.from_config({"tokenizer": "regex-v1", "stemmer": "porter"})
    assert old.normalize == "none" and old.analyze("caf\u00e9") != old.analyze("cafe\u0301")


def test_swapped_shards_refused_without_recorded_order(sharded):
    """A manifest written before the shard order was recorded: the global docno ranks tell."""
    mf = sharded / "manifest.json"
    m = json.loads(mf.read_text())
    for s in m["shards"]:
        del s["docnos_crc32"]
    mf.write_text(json.dumps(m))
    open_sharded(sharded)        # in order: opens
    gen = sharded / m["data"]
    os.rename(gen / "shard-0000", gen / "tmp")
    os.rename(gen / "shard-0001", gen / "shard-0000")
    os.rename(gen / "tmp", gen / "shard-0001")
    with pytest.raises(IndexFormatError, match="not the shard the sharded manifest lists"):
        open_sharded(sharded)
