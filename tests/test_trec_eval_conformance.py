"""The ``trec_eval`` regime reproduces trec_eval 10.0's own expected outputs
(../shared/data/trec_eval_test, commands from its SOURCE.md) for every measure tiebreak
implements, per topic and ``all``, to the printed 4 decimals."""

from __future__ import annotations

import re

import pytest

import tiebreak as tb

CUT = re.compile(r"^(P|recall|map_cut|ndcg_cut|success)_(\d+)$")
PLAIN = {"map": "AP", "Rprec": "Rprec", "bpref": "bpref", "recip_rank": "RR", "ndcg": "nDCG"}
FAMILY = {"P": "P", "recall": "R", "map_cut": "AP", "ndcg_cut": "nDCG", "success": "Success"}


def our_name(trec: str, level: int) -> str | None:
    """tiebreak's name for a trec_eval measure at relevance level ``level`` (None: not ours)."""
    rel = f"(rel={level})" if level != 1 else ""
    m = CUT.match(trec)
    if m:
        fam = FAMILY[m.group(1)]
        return f"{fam}@{m.group(2)}" if fam == "nDCG" else f"{fam}{rel}@{m.group(2)}"
    if trec in PLAIN:
        fam = PLAIN[trec]
        return fam if fam == "nDCG" else fam + rel
    if trec in ("rbp", "rbp_resid") and level == 1:
        return {"rbp": "RBP(p=0.9)", "rbp_resid": "RBP_resid(p=0.9)"}[trec]
    return None


def parse_expected(path):
    """{(measure, qid): value} from a trec_eval output file."""
    out = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) == 3:
            try:
                out[(parts[0], parts[1])] = float(parts[2])
            except ValueError:
                pass
    return out


CASES = [
    ("out.test", "qrels.test", "results.test", 1),
    ("out.test", "qrels.test.with-comments", "results.test", 1),
    ("out.test.aq", "qrels.test", "results.test", 1),
    ("out.test.aqc", "qrels.test", "results.trunc", 1),
    ("out.test.aql", "qrels.rel_level", "results.test", 2),
    ("out.comment.test", "qrels.comment.test", "results.comment.test", 1),
    ("out.test.meas_params", "qrels.test", "results.test", 1),
]


@pytest.mark.parametrize("expected,qrels,run,level", CASES, ids=[c[0] + ":" + c[1] for c in CASES])
def test_trec_eval_outputs(shared_data, expected, qrels, run, level):
    d = shared_data / "trec_eval_test"
    want = parse_expected(d / expected)
    names = {}
    for (m, _q) in want:
        ours = our_name(m, level)
        if ours:
            names[m] = ours
    assert len(names) >= 5
    q = tb.read_qrels(d / qrels)
    r = tb.read_run(d / run)
    res = tb.Evaluator(q, list(dict.fromkeys(names.values())), regimes=["trec_eval"]).evaluate([r])
    checked = 0
    missing = set(q.topics) - set(r.topics)
    for (m, qid), value in want.items():
        if m not in names:
            continue
        if m == "rbp_resid" and missing and qid in missing | {"all"}:
            # trec_eval -c fills a missing topic with 0; the residual of an empty ranking is 1
            # (all weight unknown, Moffat & Zobel 2008), which is what tiebreak reports.
            if qid != "all":
                assert res.value(res.runs[0], names[m], "trec_eval", qid) == 1.0
            continue
        got = res.value(res.runs[0], names[m], "trec_eval", None if qid == "all" else qid)
        assert round(got, 4) == pytest.approx(value, abs=1e-9), (m, qid, got, value)
        checked += 1
    assert checked >= len(names)


def test_results_trunc_extra_columns_and_missing_topic(shared_data):
    d = shared_data / "trec_eval_test"
    r = tb.read_run(d / "results.trunc")
    assert r.warnings.get("lines with extra columns (ignored)", 0) > 0
    q = tb.read_qrels(d / "qrels.test")
    res = tb.Evaluator(q, ["AP"], regimes=["trec_eval"]).evaluate([r])
    w = res.warnings[res.runs[0]]
    assert w["qrels topics missing from run (scored 0)"] == ["302"]
    assert res.value(res.runs[0], "AP", "trec_eval", "302") == 0.0
    # averaging only over the run's topics (trec_eval 9.0.8 without -c gives map 0.1523)
    res2 = tb.Evaluator(q, ["AP"], regimes=["trec_eval"], average="run-topics").evaluate([r])
    assert round(res2.value(res2.runs[0], "AP", "trec_eval"), 4) == 0.1523


def test_qrels_comment_only_at_line_start(shared_data):
    """'#' starts a comment only at the start of a line; a docno may contain it."""
    d = shared_data / "trec_eval_test"
    a = tb.read_qrels(d / "qrels.test")
    b = tb.read_qrels(d / "qrels.test.with-comments")
    assert len(a) == len(b) == 3681
    assert "CR#93E-1860" in b.docnos.tolist()
