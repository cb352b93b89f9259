"""Runs x measures views: ``eval --wide --sort``, ``EvalResult.to_pandas(wide=True)`` with mean
rows, ``print(EvalResult)``."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import tiebreak as tb
from tiebreak.cli import main

QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n"
RUN_X = "1 Q0 a 1 2 x\n1 Q0 b 2 1 x\n2 Q0 z 1 1 x\n2 Q0 c 2 0.5 x\n"
RUN_Y = "1 Q0 b 1 2 y\n1 Q0 a 2 2 y\n2 Q0 z 1 1 y\n"


@pytest.fixture
def files(tmp_path):
    for name, text in (("q", QRELS), ("x", RUN_X), ("y", RUN_Y)):
        (tmp_path / name).write_text(text)
    return tmp_path


def test_eval_wide_sorted(files):
    args = ["eval", str(files / "q"), str(files / "x"), str(files / "y"), "-m", "RR",
            "-m", "P@1", "--regime", "trec_eval", "--wide"]
    # x: RR (1 + 1/2) / 2 = 0.75, P@1 1/2; y: the tie a/b goes docno descending (b, not
    # relevant, first) so RR (1/2 + 0) / 2 = 0.25, P@1 0
    r = CliRunner().invoke(main, args[:2] + [str(files / "y"), str(files / "x")] + args[4:]
                           + ["--sort", "RR"])
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == ["run      RR     P@1", "---  ------  ------",
                                     "x    0.7500  0.5000", "y    0.2500  0.0000"]
    r = CliRunner().invoke(main, args + ["--format", "tsv"])
    assert r.stdout.splitlines() == ["run\tRR\tP@1", "x\t0.75\t0.5", "y\t0.25\t0.0"]
    r = CliRunner().invoke(main, args + ["--sort", "AP"])
    assert r.exit_code == 2 and "not a measure" in r.stderr


def test_wide_values_and_order(files):
    res = tb.evaluate(str(files / "q"), [str(files / "x"), str(files / "y")], ["RR", "AP"],
                      ["trec_eval"])
    from tiebreak.evaluation.output import wide_rows

    head, rows = wide_rows(res, sort="AP", precise=True)
    ap = {r[0]: float(r[2]) for r in rows}
    assert ap == {"x": res.value("x", "AP", "trec_eval"), "y": res.value("y", "AP", "trec_eval")}
    assert [r[0] for r in rows] == sorted(ap, key=lambda k: -ap[k])


def test_to_pandas_wide_with_means_and_print(files):
    pytest.importorskip("pandas")
    res = tb.evaluate(str(files / "q"), [str(files / "x")], ["RR", "P@1"], ["trec_eval"])
    w = res.to_pandas(wide=True)
    assert list(w.columns) == ["RR", "P@1"]
    assert list(w.index) == [("x", "1"), ("x", "2"), ("x", "all")]
    assert w.loc[("x", "all"), "RR"] == pytest.approx(0.75)
    assert w.loc[("x", "2"), "RR"] == 0.5 and w.loc[("x", "1"), "P@1"] == 1.0
    long = res.to_pandas(means=True)
    assert sorted(long.qid.unique()) == ["1", "2", "all"]
    assert "all" not in set(res.to_pandas().qid)
    two = tb.evaluate(str(files / "q"), [str(files / "x")], ["RR"], ["trec_eval", "expected"])
    assert list(two.to_pandas(wide=True).columns) == [("RR", "trec_eval"), ("RR", "expected")]
    text = str(res)
    assert text.splitlines()[0].split() == ["run", "measure", "trec_eval"]
    assert "0.7500" in text and "x" in text
