"""One error path for every command (issue 24): a write that fails (disk full, a closed pipe, a
missing output directory) and every bad-input error reach the user as one line naming the file and
what to do; exit status 1 for a failed write, 2 for bad input; never a traceback."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tiebreak.cli import LAZY_COMMANDS, main

EXAMPLE = Path(__file__).resolve().parents[1] / "src" / "tiebreak" / "data"
QRELS, RUN = str(EXAMPLE / "ymt2016.qrels"), str(EXAMPLE / "ymt2016.run")

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A 4-document collection, its index and two topics."""
    from tiebreak.index import build_index

    d = tmp_path_factory.mktemp("small")
    docs = [("d1", "the quick brown fox"), ("d2", "lazy dogs and foxes"), ("d3", "a fox"),
            ("d4", "lazy afternoon")]
    (d / "c.jsonl").write_text("".join(json.dumps({"docno": a, "text": b}) + "\n"
                                       for a, b in docs))
    build_index(d / "c.jsonl", d / "idx", progress=False)
    (d / "t.tsv").write_text("1\tfox\n2\tlazy dog\n")
    return d


def command_lines(small) -> dict[str, list[str]]:
    """One small invocation of every command (each but ``index`` writes to standard output)."""
    return {
        "eval": ["eval", QRELS, RUN],
        "trec_eval": ["trec_eval", "-q", QRELS, RUN],
        "ties": ["ties", RUN],
        "compare": ["compare", QRELS, RUN, RUN],
        "band": ["band", "--rho", "1.1", RUN],
        "bounds": ["bounds", "--depth", "20"],
        "measures": ["measures"],
        "example": ["example"],
        "pool": ["pool", QRELS, RUN, "--depth", "5"],
        "estimate": ["estimate", "--qrels", QRELS, "--depth", "5", "--dprime", "3", RUN],
        "report": ["report", QRELS, RUN, RUN, "-o", "-"],
        "index": ["index", "--verify", str(small / "idx")],
        "search": ["search", str(small / "idx"), "--topics", str(small / "t.tsv"), "-k", "2"],
        "reproduce": ["reproduce", "--help"],
        "study": ["study", "--help"],
    }


def invoke(args, capsys, stdout_path="/dev/full"):
    """Run ``tiebreak ARGS`` in this process with standard output on ``stdout_path``; the exit
    status and what went to standard error."""
    capsys.readouterr()
    with open(stdout_path, "w") as fh:
        old, sys.stdout = sys.stdout, fh
        try:
            main.main(list(args), prog_name="tiebreak")
            code = 0
        except SystemExit as e:
            code = e.code
        finally:
            sys.stdout = old
    return code, capsys.readouterr().err


#: every command (``index`` writes no standard output: see test_missing_output_directory); a
#: command without an invocation in command_lines runs with --help
COMMANDS = sorted((set(main.list_commands(None)) | set(LAZY_COMMANDS)) - {"index"})


def test_commands_found():
    assert {"eval", "trec_eval", "search", "pool", "report"} <= set(COMMANDS)


@pytest.mark.slow
@pytest.mark.parametrize("name", COMMANDS)
def test_full_stdout_is_one_line_exit_1(name, small, capsys):
    args = command_lines(small).get(name, [name, "--help"])
    code, err = invoke(args, capsys, os.devnull)
    assert code in (0, None), err  # the command works when it can write
    code, err = invoke(args, capsys)
    assert code == 1, err
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.startswith("tiebreak: error:")]
    assert lines == ["tiebreak: error: standard output: the disk is full: free some space or "
                     "write elsewhere ([Errno 28] No space left on device)"], err


def test_missing_output_directory(tmp_path, small, capsys):
    dest = tmp_path / "nodir" / "sub" / "r.html"
    code, err = invoke(["report", QRELS, RUN, RUN, "-o", str(dest)], capsys, os.devnull)
    assert code == 1 and "Traceback" not in err
    assert f"tiebreak: error: {dest}: no such file or directory: create the directory first" \
        in err
    dest = tmp_path / "nodir" / "r.tsv"
    # (no item of a paper named 'none': nothing computed, an empty table written)
    code, err = invoke(["reproduce", "--all", "--seed", "none", "-o", str(dest)], capsys,
                       os.devnull)
    assert code == 1 and f"tiebreak: error: {dest}: no such file or directory" in err, err


def test_closed_pipe_is_quiet():
    """``tiebreak measures | head -1``: no message, no 'Exception ignored'."""
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    p = subprocess.run(f"{sys.executable} -m tiebreak measures | head -c 10",
                       shell=True, capture_output=True, text=True, env=env)
    assert p.stdout == "| measure "
    assert p.stderr == ""


def test_index_error_is_one_line(small, tmp_path, capsys):
    import shutil

    idx = tmp_path / "idx"
    shutil.copytree(small / "idx", idx)
    man = json.loads((idx / "manifest.json").read_text())
    f = idx / man.get("data", ".") / "docnos.npy"
    b = bytearray(f.read_bytes())
    b[-1] ^= 0x01
    f.write_bytes(bytes(b))
    code, err = invoke(["search", str(idx), "--topics", str(small / "t.tsv")], capsys,
                       os.devnull)
    assert code == 2 and "Traceback" not in err, err
    assert err.startswith("tiebreak: error: ") and "docnos.npy: checksum mismatch" in err
    assert len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("args", [
    ["report", QRELS, RUN, RUN, "-o", "/dev/full"],
    ["estimate", "--qrels", QRELS, "--depth", "5", "--gains", "/dev/full", RUN],
    ["reproduce", "--all", "--seed", "none", "-o", "/dev/full"],
])
def test_full_output_file_is_named(args, capsys):
    code, err = invoke(args, capsys, os.devnull)
    assert code == 1 and "Traceback" not in err
    assert "tiebreak: error: /dev/full: the disk is full: free some space or write elsewhere " \
           "([Errno 28] No space left on device)" in err
