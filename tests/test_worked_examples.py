"""Every measure under every regime on the worked examples of the tie papers equals the exact
values printed by the reference oracle (../shared/spec/oracles/tie_oracle_output.txt):
Yang, Moffat & Turpin (2016) Fig. 1 and its variants, Cabanac et al. (2010) Figs. 1-2.

The rankings below are the papers' examples (documents, scores, grades); the expected values are
read from the oracle's output file at test time, not copied here.
"""

from __future__ import annotations

import io
import re
from fractions import Fraction

import pytest

import tiebreak as tb

FIG1_DOCS = "D H A C M S W B E J".split()
FIG1_SCORE = [9.8, 9.3, 9.3, 9.3, 8.4, 8.4, 8.2, 8.0, 8.0, 8.0]
FIG1_GAIN = [0, 0, 1, 1, 0, 1, 1, 0, 0, 1]
GRADED = [0, 0, 2, 1, 0, 3, 1, 0, 0, 2]
THIRDS = "{0:0,1:" + repr(1 / 3) + ",2:" + repr(2 / 3) + ",3:1}"

# oracle column -> tiebreak regime
COLS = {"run": "file", "treceval": "trec_eval", "cab_real": "realistic", "cab_opt": "optimistic",
        "ymt_lo": "lower", "ymt_hi": "upper", "expected": "expected"}


def _examples():
    fig1 = list(zip(FIG1_DOCS, FIG1_SCORE))
    q1 = dict(zip(FIG1_DOCS, FIG1_GAIN))
    qvar = {d: g for d, g in q1.items() if d not in ("M", "E")}
    qgr = dict(zip(FIG1_DOCS, GRADED), X=3)
    qcab = {"WSJ5": 1, "LA12": 0, "FT8": 0, **{f"REL{i}": 1 for i in range(4)}}
    qcab_c = {("AP8" if d == "WSJ5" else d): g for d, g in qcab.items()}
    fig2 = [("CT5", 0.9), ("AP5", 0.7), ("WSJ9", 0.7), ("AP8", 0.7), ("FT12", 0.6)]
    q2 = {"CT5": 1, "AP5": 0, "WSJ9": 0, "AP8": 1, "FT12": 0}
    binary = {
        "P@k": "P@{k}", "Recall@k": "R@{k}", "Rprec": "Rprec", "RR": "RR", "AP": "AP",
        "AP@k": "AP@{k}", "NDCG@k": "nDCG@{k}", "RBP.5": "RBP(p=0.5)",
        "RBP.5res": "RBP_resid(p=0.5)", "ERR": "ERR(gmax=0)", "ERR@k": "ERR(gmax=0)@{k}",
        "bpref": "bpref",
    }
    graded = dict(binary, **{"RBP.5": f"RBP(p=0.5,gains={THIRDS})", "ERR@k": "ERR(gmax=0)@{k}",
                             "NDCG@k/exp": "nDCG(dcg='exp-log2')@{k}"})
    return [
        ("Fig. 1 of Yang/Moffat/Turpin", fig1, q1, binary),
        ("Fig. 1 variant: M and E unjudged", fig1, qvar, binary),
        ("Fig. 1 graded variant", fig1, qgr, graded),
        ("Cabanac Fig. 1(a)", [("LA12", 0.8), ("WSJ5", 0.8), ("FT8", 0.5)], qcab, binary),
        ("Cabanac Fig. 1(c)", [("LA12", 0.8), ("AP8", 0.8), ("FT8", 0.5)], qcab_c, binary),
        ("Cabanac Fig. 2", fig2, q2, binary),
    ]


def _value(cell: str):
    m = re.match(r"\s*([-0-9.]+)(?:\s*\(([-0-9/]+)\))?", cell)
    if m.group(2):
        return Fraction(m.group(2)), True
    return Fraction(m.group(1)), False


def _oracle_tables(path):
    """{title prefix: (k, {metric: {column: (value, exact)}})} from the oracle output."""
    text = path.read_text()
    tables = {}
    for block in text.split("\n### ")[1:]:
        head = block.splitlines()[0]
        k = int(re.search(r"\(k=(\d+)", head).group(1))
        rows = {}
        cols = None
        for line in block.splitlines():
            if line.startswith("| metric |"):
                cols = [c.strip() for c in line.strip("|").split("|")][1:]
            elif line.startswith("| ") and cols and not line.startswith("|---"):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                rows[cells[0]] = {c: _value(v) for c, v in zip(cols, cells[1:])}
            elif line.startswith("k=10 rows:"):
                for part in line[len("k=10 rows: "):].split("; "):
                    name, vals = part.split(": ", 1)
                    rows[name.replace("@k", "@10") + "#10"] = {
                        c: (Fraction(v), False) for c, v in
                        (x.split("=") for x in vals.split(", "))
                    }
        tables[head] = (k, rows)
    return tables


@pytest.fixture(scope="module")
def oracle(shared_data):
    return _oracle_tables(shared_data.parent / "spec" / "oracles" / "tie_oracle_output.txt")


def _evaluate(ranking, qrels, measures):
    qtext = "".join(f"7 0 {d} {g}\n" for d, g in qrels.items()).encode()
    rtext = "".join(f"7 Q0 {d} {i} {s} x\n" for i, (d, s) in enumerate(ranking, 1)).encode()
    q = tb.read_qrels(io.BytesIO(qtext))
    r = tb.read_run(io.BytesIO(rtext))
    ev = tb.Evaluator(q, measures, regimes="all")
    return ev.evaluate([r])


CASES = _examples()


@pytest.mark.parametrize("title,ranking,qrels,names", CASES, ids=[c[0] for c in CASES])
def test_worked_example(oracle, title, ranking, qrels, names):
    key = next(h for h in oracle if h.startswith(title))
    k, rows = oracle[key]
    wanted = {}
    for label, spec in names.items():
        for row_label in (label.replace("@k", f"@{k}"), label):
            if row_label in rows:
                wanted[spec.replace("{k}", str(k))] = rows[row_label]
                break
    for row_label, vals in rows.items():
        if row_label.endswith("#10"):
            base = row_label[:-3].replace("NDCG", "nDCG")
            if base.startswith("ERR"):  # the oracle's ERR: each topic's largest grade
                base = base.replace("ERR", "ERR(gmax=0)", 1)
            wanted[base] = vals
    assert len(wanted) >= 3, f"too few oracle rows matched for {title}"
    res = _evaluate(ranking, qrels, list(wanted))
    checked = 0
    for measure, vals in wanted.items():
        for col, (expect, exact) in vals.items():
            got = res.value(res.runs[0], measure, COLS[col], "7")
            tol = 1e-12 if exact else 5.000001e-5
            assert abs(got - float(expect)) <= tol, (title, measure, col, got, expect)
            checked += 1
    assert checked == 7 * len(wanted)


def test_fig1_expected_rbp_term_by_term(shared_data):
    """YMT's worked expression: E[RBP0.5] on Fig. 1 = 333/1024, residual 1/1024."""
    res = _evaluate(list(zip(FIG1_DOCS, FIG1_SCORE)), dict(zip(FIG1_DOCS, FIG1_GAIN)),
                    ["RBP(p=0.5)"])
    assert res.value(res.runs[0], "RBP(p=0.5)", "expected", "7") == pytest.approx(
        333 / 1024, abs=1e-15)
    assert res.value(res.runs[0], "RBP_resid(p=0.5)", "expected", "7") == pytest.approx(
        1 / 1024, abs=1e-15)


def test_straddling_cutoff_is_exact():
    """Fig. 1 cut at depth 3 (tie spans ranks 2-4): E[RBP0.5@3] = 1/4 (rbp_eval's shortcut
    gives 7/36) and E[nDCG@3] = 0.353814 (QuickRank's gives 0.4886) - spec §2.0."""
    res = _evaluate(list(zip(FIG1_DOCS, FIG1_SCORE)), dict(zip(FIG1_DOCS, FIG1_GAIN)),
                    ["RBP(p=0.5)@3", "nDCG@3"])
    run = res.runs[0]
    assert res.value(run, "RBP(p=0.5)@3", "expected", "7") == pytest.approx(0.25, abs=1e-15)
    assert res.value(run, "nDCG@3", "expected", "7") == pytest.approx(0.353814, abs=5e-7)


def test_cabanac_name_dependence():
    """Renaming the relevant document changes only the trec_eval value (Cabanac Fig. 1)."""
    qa = {"WSJ5": 1, "LA12": 0, "FT8": 0}
    qc = {"AP8": 1, "LA12": 0, "FT8": 0}
    ra = _evaluate([("LA12", 0.8), ("WSJ5", 0.8), ("FT8", 0.5)], qa, ["RR"])
    rc = _evaluate([("LA12", 0.8), ("AP8", 0.8), ("FT8", 0.5)], qc, ["RR"])
    assert ra.value(ra.runs[0], "RR", "trec_eval", "7") == 1.0
    assert rc.value(rc.runs[0], "RR", "trec_eval", "7") == 0.5
    for reg in ("expected", "lower", "upper"):
        assert ra.value(ra.runs[0], "RR", reg, "7") == rc.value(rc.runs[0], "RR", reg, "7")
