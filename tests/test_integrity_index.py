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
