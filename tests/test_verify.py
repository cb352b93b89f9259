"""tiebreak verify / eval --write-expected: a change of tie order passes, a value just outside
the tie range fails (exit 1 with a diff table), bad files exit 2."""

from __future__ import annotations

import shutil
from importlib.resources import files

import pytest
import yaml
from click.testing import CliRunner

from tiebreak.cli.app import main
from tiebreak.studies.verify import load_expected, verify


@pytest.fixture
def case(tmp_path):
    base = files("tiebreak") / "data"
    q, r = tmp_path / "ymt.qrels", tmp_path / "ymt.run"
    shutil.copy(str(base / "ymt2016.qrels"), q)
    shutil.copy(str(base / "ymt2016.run"), r)
    exp = tmp_path / "sub" / "expected.yaml"
    exp.parent.mkdir()
    res = CliRunner().invoke(main, ["eval", str(q), str(r), "-m", "AP", "-m", "P@3",
                                    "--write-expected", str(exp), "--quiet"])
    assert res.exit_code == 0, res.output
    return q, r, exp


def _run(exp, *extra):
    return CliRunner().invoke(main, ["verify", str(exp), *extra])


def test_written_file_verifies(case):
    _, _, exp = case
    doc = yaml.safe_load(exp.read_text())
    assert doc["qrels"] == "../ymt.qrels" and doc["regime"] == "trec_eval"
    ap = doc["expected"][0]
    assert ap["measure"] == "AP" and ap["run"] == "../ymt.run"
    assert ap["low"] <= ap["value"] <= ap["high"] and ap["low"] < ap["high"]  # topic 1 ties
    r = _run(exp)
    assert r.exit_code == 0 and "2 of 2 values verified" in r.output


def test_tie_order_change_passes(case):
    """Breaking topic 1's tie {H, A, C} the other way (A first) moves AP inside the range."""
    _, run, exp = case
    before = verify(load_expected(exp))[0].now
    run.write_text(run.read_text().replace("1 Q0 A 3 9.3", "1 Q0 A 3 9.3000001"))
    checks = verify(load_expected(exp))
    assert checks[0].now != before and checks[0].ok
    assert _run(exp).exit_code == 0


def test_just_outside_fails(case):
    _, _, exp = case
    doc = yaml.safe_load(exp.read_text())
    now = doc["expected"][0]["value"]
    # the range moved so that the value now lies 1e-9 above it: fail
    doc["expected"][0]["low"] = now - 0.1
    doc["expected"][0]["high"] = now - 1e-9
    exp.write_text(yaml.safe_dump(doc))
    r = _run(exp)
    assert r.exit_code == 1
    assert "FAIL" in r.output and "1 of 2 values verified, 1 outside" in r.output
    # just inside: pass
    doc["expected"][0]["high"] = now + 1e-9
    exp.write_text(yaml.safe_dump(doc))
    assert _run(exp).exit_code == 0
    # no range written: the expected value must lie in the run's tie range now
    e = doc["expected"][0]
    del e["low"], e["high"]
    exp.write_text(yaml.safe_dump(doc))
    c = verify(load_expected(exp))[0]
    assert c.rule == "tie range now" and c.low < c.high
    hi = c.high
    e["value"] = hi + 1e-9
    exp.write_text(yaml.safe_dump(doc))
    assert _run(exp).exit_code == 1
    e["value"] = hi
    exp.write_text(yaml.safe_dump(doc))
    assert _run(exp).exit_code == 0
    # an explicit tolerance replaces the range
    e["value"], e["tolerance"] = hi + 0.01, 0.005
    exp.write_text(yaml.safe_dump(doc))
    c = verify(load_expected(exp))[0]
    assert c.rule == "tolerance" and not c.ok


def test_bad_files(tmp_path):
    p = tmp_path / "e.yaml"
    p.write_text("qrels: q\nexpected:\n- run: r\n  measure: AP\n  value: x\n")
    r = _run(p)
    assert r.exit_code == 2 and "expected entry 1: 'value' must be a finite number" in r.output
    p.write_text("qrels: [\n")
    r = _run(p)
    assert r.exit_code == 2 and "not valid YAML" in r.output
