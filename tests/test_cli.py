"""``tiebreak eval`` end to end: formats, stdin, errors, warnings."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from importlib.resources import files

from click.testing import CliRunner

from tiebreak.cli import main

DATA = files("tiebreak") / "data"
QRELS, RUN = str(DATA / "ymt2016.qrels"), str(DATA / "ymt2016.run")


def invoke(*args, input=None):
    return CliRunner().invoke(main, ["eval", *args], input=input)


def test_tsv_columns_and_full_precision():
    r = invoke(QRELS, RUN, "-m", "AP", "--regime", "expected", "--format", "tsv", "-q")
    assert r.exit_code == 0, r.output
    rows = [line.split("\t") for line in r.stdout.splitlines()]
    assert all(len(x) == 5 for x in rows)
    got = {(x[3]): float(x[4]) for x in rows}
    # E[AP] of YMT Fig. 1 and Cabanac Fig. 2, to float summation accuracy
    assert math.isclose(got["1"], 20273 / 37800, rel_tol=1e-15)
    assert math.isclose(got["8"], 31 / 36, rel_tol=1e-15)
    assert rows[-1][:4] == ["ymt-fig1", "AP", "expected", "all"]


def test_table_shows_trec_eval_expected_and_range():
    r = invoke(QRELS, RUN, "-m", "P@5")
    assert r.exit_code == 0
    head = r.stdout.splitlines()[0].split()
    assert head[:4] == ["run", "measure", "trec_eval", "expected"]
    assert "[lower," in r.stdout


def test_json_records_and_warnings():
    r = invoke(QRELS, RUN, "-m", "RR", "--regime", "all", "--format", "json")
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    regs = {x["regime"] for x in doc["results"]}
    assert regs == {"file", "trec_eval", "realistic", "optimistic", "lower", "upper", "expected"}
    assert doc["warnings"]["ymt-fig1"]["documents in tied groups"] == 11


def test_stdin_run(tmp_path):
    text = open(RUN).read()
    r = invoke(QRELS, "-", "-m", "AP", "--format", "tsv", "--regime", "trec_eval", input=text)
    assert r.exit_code == 0
    assert math.isclose(float(r.stdout.split("\t")[-1]), (2209 / 4200 + 5 / 6) / 2,
                        rel_tol=1e-15)


def test_bad_input_exits_2_with_file_line(tmp_path):
    p = tmp_path / "bad.run"
    p.write_text("1 Q0 D 1 9.8 x\n1 Q0 H 2 abc x\n")
    r = invoke(QRELS, str(p))
    assert r.exit_code == 2
    assert "bad.run:2: score 'abc' is not a number" in r.stderr
    assert r.stdout == ""


def test_unknown_measure_and_regime():
    assert invoke(QRELS, RUN, "-m", "XYZ").exit_code == 2
    assert invoke(QRELS, RUN, "--regime", "random").exit_code == 2


def test_missing_topic_warning_and_average(tmp_path):
    p = tmp_path / "one.run"
    p.write_text("1 Q0 D 1 9.8 one\n1 Q0 A 2 9.0 one\n")
    r = invoke(QRELS, str(p), "-m", "RR", "--format", "tsv", "--regime", "trec_eval")
    assert "qrels topics missing from run (scored 0): 1 (8)" in r.stderr
    assert float(r.stdout.split("\t")[-1]) == 0.25
    r = invoke(QRELS, str(p), "-m", "RR", "--format", "tsv", "--regime", "trec_eval",
               "--average", "run-topics")
    assert float(r.stdout.split("\t")[-1]) == 0.5


def test_console_script_runs():
    out = subprocess.run([sys.executable, "-m", "tiebreak", "eval", QRELS, RUN, "-m", "P@5",
                          "--format", "tsv", "--regime", "lower,upper"],
                         capture_output=True, text=True, check=True).stdout
    vals = [float(line.split("\t")[4]) for line in out.splitlines()]
    assert vals == [(0.4 + 0.4) / 2, (0.6 + 0.4) / 2]


def test_tsv_header_warnings_on_stderr_and_quiet():
    r = invoke(QRELS, RUN, "-m", "AP", "--regime", "trec_eval", "--format", "tsv", "--header")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[0].split("\t") == ["run", "measure", "regime", "qid", "value"]
    assert len(lines) == 2 and "warning" not in r.stdout
    assert "tiebreak: warning: ymt-fig1: documents in tied groups: 11" in r.stderr
    r = invoke(QRELS, RUN, "-m", "AP")  # the table too keeps warnings out of stdout
    assert "warning" not in r.stdout and "documents in tied groups: 11" in r.stderr
    r = invoke(QRELS, RUN, "-m", "AP", "--quiet")
    assert r.exit_code == 0 and r.stderr == ""


def test_name_by_file(shared_data):
    d = shared_data / "trec_dl2020_bitua"
    args = [str(d / "qrels.dl20-doc.txt"), str(d / "runs"), "-m", "AP", "--regime",
            "trec_eval", "--format", "tsv", "--quiet"]
    by_tag = [x.split("\t")[0] for x in invoke(*args).stdout.splitlines()]
    assert len(by_tag) == 11 and "BIT-run2#5" in by_tag  # 11 files, 3 run tags
    r = invoke(*args, "--name-by", "file")
    names = [x.split("\t")[0] for x in r.stdout.splitlines()]
    assert names == sorted(p.name for p in (d / "runs").iterdir())


def test_missing_extra_is_named(monkeypatch):
    import tiebreak.cli as cli

    monkeypatch.setitem(cli.EXTRAS, "plot", ("no_such_module_for_tiebreak",))
    r = CliRunner().invoke(main, ["report", QRELS, RUN])
    assert r.exit_code == 2
    assert "needs the plot extra" in r.output and "pip install 'tiebreak[plot]'" in r.output
    r = CliRunner().invoke(main, ["study", "ties", "--qrels", QRELS, RUN])
    assert r.exit_code == 2 and "'tiebreak study ties' needs the plot extra" in r.output
    assert invoke(QRELS, RUN, "-m", "AP", "--quiet").exit_code == 0  # eval needs no extra


def test_every_command_has_a_complete_one_line_help():
    from tiebreak.cli import COMMAND_HELP, LAZY_COMMANDS, LAZY_STUDIES, STUDY_HELP, main

    listed = set(main.commands) | set(LAZY_COMMANDS)
    assert listed == set(COMMAND_HELP)
    assert set(LAZY_STUDIES) == set(STUDY_HELP)
    for text in [*COMMAND_HELP.values(), *STUDY_HELP.values()]:
        assert text.endswith(".") and "..." not in text
