"""``tiebreak run`` and ``tiebreak fuse`` end to end, and the JSON / Parquet round trip."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import tiebreak as tb
from tiebreak.cli import main
from tiebreak.io.writers import qrels_dict, run_dict, write_qrels, write_run

RUN = ("1 Q0 a 1 3.5 x\n1 Q0 b 2 3.5 x\n1 Q0 c 3 1.25 x\n1 Q0 b 4 0.5 x\n"
       "2 Q0 d 1 0.1 x\n2 Q0 e 2 0.30000000000000004 x\n")


@pytest.fixture
def run_file(tmp_path):
    p = tmp_path / "r.txt"
    p.write_text(RUN)
    return p


def test_run_top_topics_dedup_rank_from_score(run_file):
    r = CliRunner().invoke(main, ["run", str(run_file), "--dedup", "--top", "2"])
    assert r.exit_code == 0, r.output
    # ties (a, b at 3.5) in trec_eval order: docno descending; full precision kept
    assert r.stdout.splitlines() == [
        "1 Q0 b 1 3.5 x", "1 Q0 a 2 3.5 x",
        "2 Q0 e 1 0.30000000000000004 x", "2 Q0 d 2 0.1 x"]
    assert "1 of 5 lines dropped; 1 duplicate docno lines" in r.stderr
    r = CliRunner().invoke(main, ["run", str(run_file), "--dedup", "--topics", "2",
                                  "--norm", "min-max", "--tag", "n"])
    assert r.stdout.splitlines() == ["2 Q0 e 1 1.0 n", "2 Q0 d 2 0.0 n"]
    r = CliRunner().invoke(main, ["run", str(run_file)])  # duplicate without --dedup: error
    assert r.exit_code == 2 and "duplicate" in r.stderr and "Traceback" not in r.output
    r = CliRunner().invoke(main, ["run", str(run_file), "--dedup", "--topics", "9"])
    assert r.exit_code == 2 and "topic(s) not in run" in r.stderr


def test_fuse_cli_counts_ties(tmp_path):
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text("q Q0 d1 1 3 a\nq Q0 d2 2 2 a\nq Q0 d3 3 1 a\n")
    b.write_text("q Q0 d5 1 1 b\nq Q0 d2 2 0.5 b\n")
    r = CliRunner().invoke(main, ["fuse", "--method", "rrf", str(a), str(b)])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0] == f"q Q0 d2 1 {1 / 62 + 1 / 62!r} rrf"
    # d5 and d1 tie at 1/61: docno descending
    assert [ln.split()[2] for ln in lines] == ["d2", "d5", "d1", "d3"]
    assert "made 1 tied groups (2 documents) in 1 of 1 topics" in r.stderr
    r = CliRunner().invoke(main, ["fuse", "--method", "nope", str(a), str(b)])
    assert r.exit_code == 2


def test_json_round_trip_and_reader(run_file, tmp_path):
    run = tb.read_run(run_file, on_duplicate="first")
    write_run(run, tmp_path / "r.json")
    d = json.loads((tmp_path / "r.json").read_text())
    assert d == run_dict(run) == {"1": {"a": 3.5, "b": 3.5, "c": 1.25},
                                  "2": {"d": 0.1, "e": 0.30000000000000004}}
    from tiebreak.io.inputs import as_qrels, as_run

    back = as_run(str(tmp_path / "r.json"))
    assert run_dict(back) == d and back.name == "r"
    q = tb.read_qrels(_qrels(tmp_path))
    write_qrels(q, tmp_path / "q.json")
    assert qrels_dict(as_qrels(str(tmp_path / "q.json"))) == {"1": {"a": 1, "c": 0}}
    (tmp_path / "bad.json").write_text('{"1": {"a": "x"}}')
    with pytest.raises(tb.InputError, match="score"):
        as_run(str(tmp_path / "bad.json"))


def _qrels(tmp_path):
    p = tmp_path / "q.txt"
    p.write_text("1 0 a 1\n1 0 c 0\n")
    return p


def test_parquet_round_trip(run_file, tmp_path):
    pytest.importorskip("pyarrow.parquet")
    from tiebreak.io.inputs import as_qrels, as_run

    run = tb.read_run(run_file, on_duplicate="first")
    write_run(run, tmp_path / "r.parquet")
    assert run_dict(as_run(str(tmp_path / "r.parquet"))) == run_dict(run)
    q = tb.read_qrels(_qrels(tmp_path))
    write_qrels(q, tmp_path / "q.parquet")
    assert qrels_dict(as_qrels(str(tmp_path / "q.parquet"))) == qrels_dict(q)
    r = CliRunner().invoke(main, ["eval", str(tmp_path / "q.parquet"),
                                  str(tmp_path / "r.parquet"), "-m", "P@2", "--regime",
                                  "trec_eval", "--format", "tsv"])
    assert r.exit_code == 0, r.output
