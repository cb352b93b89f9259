"""``tiebreak eval --chunk-topics K`` (issue 29): each run evaluated K topics at a time
(:class:`tiebreak.Evaluator` ``chunk_topics``) prints exactly what the evaluation without it
prints, on real TREC-COVID runs; a value that is not a whole number >= 1 is a one-line error
with exit status 2, the same through click and through the click-free start."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

import tiebreak.evaluation.chunks as chunks_mod
from tiebreak.cli import eval_command, main

RUNS = ["BBGhelani1.gz", "xj4wang_run1.gz"]


@pytest.fixture(scope="module")
def covid(shared_data) -> tuple[str, list[str]]:
    d = shared_data / "trec_covid" / "round1"
    runs = [d / "runs" / r for r in RUNS]
    if not all(p.exists() for p in [d / "qrels-rnd1.txt", *runs]):
        pytest.skip(f"TREC-COVID round 1 not found under {d}")
    return str(d / "qrels-rnd1.txt"), [str(p) for p in runs]


def _eval(args):
    r = CliRunner().invoke(main, ["eval", *args])
    return r.exit_code, r.stdout, r.stderr


@pytest.mark.parametrize("k", ["1", "7", "29", "30", "1000"])
def test_chunked_output_is_the_whole_output(covid, k, monkeypatch):
    qrels, runs = covid
    args = ["-q", "--format", "tsv", "--regime", "all", "-m", "AP", "-m", "nDCG@10", "-m",
            "P@10", "-m", "RR", "-m", "bpref", "-j", "1", "--line-counts", qrels, *runs]
    want = _eval(args)
    assert want[0] == 0 and want[1].count("\n") > 2 * 30 * 5  # per topic, both runs
    chunked = []
    real = chunks_mod.topic_chunks

    def spy(run, n):
        chunked.append(n)
        return real(run, n)

    monkeypatch.setattr(chunks_mod, "topic_chunks", spy)
    got = _eval(["--chunk-topics", k, *args])
    assert got == want
    assert int(k) in chunked and set(chunked) <= {int(k), 1}  # the flag reached the evaluator


def _process(args, entry):
    env = dict(os.environ)
    env.pop("_TIEBREAK_COMPLETE", None)
    code = f"import sys; sys.argv[0] = 'tiebreak'; from {entry} import main; main()"
    return subprocess.run([sys.executable, "-c", code, "eval", *args], capture_output=True,
                          env=env)


@pytest.mark.parametrize("value", ["0", "-3", "abc", "2.5", "", "5"])
def test_both_starts_agree_and_bad_values_are_one_line(covid, value):
    qrels, runs = covid
    args = ["--chunk-topics", value, "-m", "AP", "--format", "tsv", qrels, runs[0]]
    p = _process(args, "tiebreak.__main__")  # the click-free common form
    c = _process(args, "tiebreak.cli")  # the click command
    assert (p.returncode, p.stdout, p.stderr) == (c.returncode, c.stdout, c.stderr)
    if value == "5":
        assert p.returncode == 0 and p.stdout.startswith(b"BBGhelani1\tAP\t")
        return
    assert p.returncode == 2 and p.stdout == b""
    assert p.stderr.decode() == ("tiebreak: error: --chunk-topics needs a whole number of "
                                 f"topics >= 1, not {value!r}\n")


@pytest.mark.parametrize("args,value", [
    (["--chunk-topics", "4", "Q", "R"], "4"),
    (["--chunk-topics=4", "Q", "R", "-m", "AP"], "4"),
    (["Q", "--chunk-topics", "0", "R"], "0"),  # refused by the command's body, not the parser
    (["Q", "R", "--chunk-topics", "-2"], "-2"),
    (["Q", "R"], None),
    (["Q", "R", "--chunk-topics"], "declined"),  # no value: click's usage error
])
def test_the_parser_takes_the_flag_as_click_does(args, value, tmp_path):
    q, r = tmp_path / "Q", tmp_path / "R"
    q.write_text("1 0 d 1\n")
    r.write_text("1 Q0 d 1 1 t\n")
    args = [str(tmp_path / a) if a in ("Q", "R") else a for a in args]
    got = eval_command.parse_args(args)
    try:
        with main.get_command(None, "eval").make_context("eval", list(args)) as ctx:
            want = dict(ctx.params)
    except Exception:
        want = None
    if value == "declined":
        assert got is None and want is None
    else:
        assert want["chunk_topics"] == value
        assert got.get("chunk_topics") == value
