"""Nothing lost without a word, and documented uses that work (issue 24): run topics absent from
the qrels in ``pool``/``estimate``, negative grades in ``pool``, diversity measures on ad hoc and
subtopic qrels in ``eval``/``compare``/``report``, empty runs in ``compare``, skipped lines in the
default warnings, a fresh pool from an empty qrels file, numpy's messages replaced."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from tiebreak.cli import main

EXAMPLE = Path(__file__).resolve().parents[1] / "src" / "tiebreak" / "data"
QRELS, RUN = str(EXAMPLE / "ymt2016.qrels"), str(EXAMPLE / "ymt2016.run")


def cli(args, capsys):
    capsys.readouterr()
    try:
        main.main([str(a) for a in args], prog_name="tiebreak")
        code = 0
    except SystemExit as e:
        code = e.code or 0
    o = capsys.readouterr()
    assert "Traceback" not in o.err
    return code, o.out, o.err


@pytest.fixture
def extra_run(tmp_path):
    f = tmp_path / "extra.run"
    f.write_text("99 Q0 zz 1 5.0 x\n98 Q0 yy 1 5.0 x\n98 Q0 ww 2 4.0 x\n")
    return f


def test_pool_warns_about_run_topics_not_in_qrels(extra_run, capsys):
    code, out, err = cli(["pool", QRELS, RUN, extra_run, "--depth", "3", "--unjudged"], capsys)
    assert code == 0
    assert "tiebreak: warning: 2 run topic(s) not in the qrels " in err
    assert "left out of the pool (3 run lines): 98 99;" in err


def test_estimate_warns_about_run_topics_not_in_qrels(extra_run, capsys):
    code, out, err = cli(["estimate", "--qrels", QRELS, "--depth", "5", RUN, extra_run], capsys)
    assert code == 0 and "left out of the estimates (3 run lines): 98 99;" in err


def test_pool_counts_negative_grades(tmp_path, capsys):
    q = tmp_path / "q.txt"
    q.write_text("1 0 D -2\n1 0 H 1\n1 0 A 0\n")
    code, out, err = cli(["pool", q, RUN, "--depth", "10"], capsys)
    assert code == 0
    assert out.splitlines() == ["1 0 A 0", "1 0 D -2", "1 0 H 1"]
    assert "judgments kept 3 of 3, relevant 1 of 1 (1 kept with negative grades -2, written " \
           "as they are)" in err


@pytest.mark.parametrize("empty", ["/dev/null", "file", "comments"])
def test_fresh_pool_from_empty_qrels(tmp_path, capsys, empty):
    q = "/dev/null" if empty == "/dev/null" else tmp_path / "q.txt"
    if empty != "/dev/null":
        q.write_text("" if empty == "file" else "# nothing judged yet\n\n")
    code, out, err = cli(["pool", q, RUN, "--depth", "2"], capsys)
    assert code == 0, err
    # the top 2 of each topic in trec_eval order (score descending, then docno descending)
    assert out.splitlines() == ["1 0 D -1", "1 0 H -1", "8 0 CT5 -1", "8 0 WSJ9 -1"]


def test_pool_depth_zero_is_a_clear_error(capsys):
    code, out, err = cli(["pool", QRELS, RUN, "--depth", "0"], capsys)
    assert code == 2 and "0 is not in the range x>=1" in err


def test_estimate_bad_numbers_are_clear(tmp_path, capsys):
    code, _, err = cli(["estimate", "--qrels", QRELS, "--dprime", "-5", RUN], capsys)
    assert code == 2 and "-5 is not in the range x>=1" in err
    empty = tmp_path / "e.run"
    empty.write_text("")
    code, _, err = cli(["estimate", "--qrels", QRELS, empty], capsys)
    assert code == 2 and "the runs retrieve nothing" in err and "zero-size" not in err
    code, _, err = cli(["estimate", "--qrels", QRELS, "--depth", "5", RUN, empty], capsys)
    assert code == 0 and "tiebreak: warning: run e.run retrieved nothing" in err


@pytest.mark.parametrize("kind", ["empty", "gz of nothing", "zero-byte .gz"])
def test_compare_refuses_an_empty_run(tmp_path, capsys, kind):
    f = tmp_path / ("e.run" if kind == "empty" else "e.run.gz")
    f.write_bytes(b"" if kind != "gz of nothing" else gzip.compress(b""))
    code, out, err = cli(["compare", QRELS, RUN, f], capsys)
    assert code == 2 and out == ""
    assert f"tiebreak: error: run {f.name} retrieved nothing" in err


def test_diversity_on_subtopic_qrels_in_compare_and_report(tmp_path, capsys):
    q = tmp_path / "sub.qrels"
    q.write_text("1 1 a 1\n1 2 a 1\n1 2 b 1\n2 1 c 1\n")
    r1, r2 = tmp_path / "r1", tmp_path / "r2"
    r1.write_text("1 Q0 a 1 3 r1\n1 Q0 b 2 2 r1\n2 Q0 c 1 1 r1\n")
    r2.write_text("1 Q0 b 1 3 r2\n1 Q0 x 2 2 r2\n2 Q0 c 1 1 r2\n")
    code, out, err = cli(["compare", q, r1, r2, "-m", "alpha_nDCG@10"], capsys)
    assert code == 0, err
    assert "r1 (baseline)  1.0000" in out
    code, out, err = cli(["report", q, r1, r2, "-m", "alpha_nDCG@10", "-o",
                          tmp_path / "r.html"], capsys)
    assert code == 0, err and (tmp_path / "r.html").stat().st_size > 0


def test_diversity_on_adhoc_qrels_says_so(capsys):
    code, out, err = cli(["eval", QRELS, RUN, "-m", "alpha_nDCG@10"], capsys)
    assert code == 0
    assert "ad hoc qrels read as subtopic qrels: the second column is 0 on every line" in err


def test_skipped_lines_in_default_warnings(tmp_path, capsys):
    r = tmp_path / "c.run"
    r.write_text("# a comment\n\n" + Path(RUN).read_text())
    q = tmp_path / "c.qrels"
    q.write_text("# a comment\n" + Path(QRELS).read_text())
    code, out, err = cli(["eval", str(q), r, "-m", "AP"], capsys)
    assert code == 0
    assert "tiebreak: warning: ymt-fig1: lines skipped: 1 comment, 1 blank;" in err
    assert "c.qrels: lines skipped: 1 comment" in err
    code, out, err = cli(["eval", QRELS, RUN, "-m", "AP"], capsys)
    assert "lines skipped" not in err  # the shipped example has no comment lines


# ---------------------------------------------------------------- unclear messages
@pytest.mark.parametrize("args", [["eval", QRELS, RUN, "-j", "-1"],
                                  ["study", "ties", "-j", "-1", RUN],
                                  ["index", "--verify", "x", "-j", "-1"]])
def test_negative_jobs_refused(args, capsys):
    code, out, err = cli(args, capsys)
    assert code == 2 and "-1 is not in the range x>=0" in err


def test_ties_on_an_empty_run(tmp_path, capsys):
    e = tmp_path / "empty.txt"
    e.write_text("")
    code, out, err = cli(["ties", e, RUN, "--per-run"], capsys)
    assert code == 0 and "RuntimeWarning" not in err
    row = next(ln for ln in out.splitlines() if ln.startswith("empty.txt"))
    assert row.split()[1:4] == ["0", "0", "0"]


def test_huge_grade_is_a_clear_error(tmp_path, capsys):
    q = tmp_path / "q.txt"
    q.write_text(f"1 0 D {2**63 - 1}\n1 0 H 1\n")
    code, out, err = cli(["eval", q, RUN, "-m", "ERR"], capsys)
    assert code == 2
    assert err.startswith(f"tiebreak: error: {q}: relevance grade {2**63 - 1} is too large")


@pytest.mark.slow
def test_dask_error_is_one_line(tmp_path, capsys):
    pytest.importorskip("distributed")
    import subprocess
    import sys

    d = tmp_path / "runs"
    d.mkdir()
    for i in range(3):
        (d / f"r{i}.run").write_text(Path(RUN).read_text())
    (d / "bad.run").write_text("1 Q0 a 1 abc t\n")
    env = {**__import__("os").environ, "PYTHONPATH": str(EXAMPLE.parents[1])}
    p = subprocess.run([sys.executable, "-m", "tiebreak", "eval", QRELS, str(d), "--dask",
                        "local", "-m", "AP"], capture_output=True, text=True, env=env,
                       timeout=300)
    assert p.returncode == 2
    assert p.stderr == f"tiebreak: error: {d / 'bad.run'}:1: score 'abc' is not a number\n"


def test_huge_cutoffs(capsys):
    code, out, err = cli(["eval", QRELS, RUN, "-m", "P@99999999999999999999999"], capsys)
    assert code == 2 and "the cutoff must be below 2**63" in err
    code, out, err = cli(["trec_eval", "-m", "P.99999999999999999999", QRELS, RUN], capsys)
    assert code == 0   # trec_eval's atol saturates at LONG_MAX: P at that cutoff is 0
    assert out == "P_9223372036854775807 \tall\t0.0000\n"


@pytest.mark.parametrize("args, needle", [
    (["bounds", "--depth", "100000000000000000000"], "is not in the range 0<=x<=10000000"),
    (["band", "--digits", "100000000000000000000", RUN], "a double holds at most 17"),
])
def test_huge_numbers_in_options(args, needle, capsys):
    code, out, err = cli(args, capsys)
    assert code == 2 and needle in err


@pytest.mark.parametrize("args, needle", [
    (["pool", QRELS, RUN, "--method", "A", "--budget", "-3"], "-3 is not in the range x>=1"),
    (["pool", QRELS, RUN, "--dmax", "0"], "0 is not in the range x>=1"),
    (["estimate", "--qrels", QRELS, RUN, "--theta", "nan"], "--theta nan: the Chao-Lee gate"),
])
def test_judgment_options_checked(args, needle, capsys):
    code, out, err = cli(args, capsys)
    assert code == 2 and needle in err
