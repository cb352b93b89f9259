"""The one table of compiled twins (:mod:`tiebreak.measures.twins`): the committed C header is the
text generated from it, the parameter slots the C code reads are where the Python packing puts
each parameter, every row is reachable from a registered family, and a table that cannot be laid
out is refused. (The values of the twins against their kernels: tests/test_eval_fastpath.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tiebreak.measures import parse_measures, twins
from tiebreak.measures.fastpath import _spec
from tiebreak.measures.registry import REGISTRY, make

#: The header in the source checkout (an installed package, as CI tests it, ships no C sources).
SRC_HEADER = Path(__file__).resolve().parents[1] / "src" / "tiebreak" / "_native" / "_ev_specs.h"


def _defines(text: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r"^#define (EV_\w+) (\d+)\b", text, re.M)}


def _enum(text: str, first: str) -> list[str]:
    """The names of the C enum whose first member is ``first``, in order."""
    body = re.search(r"enum \{\s*(" + first + r"\b[^}]*)\}", text).group(1)
    return re.findall(r"\b(EV_\w+),?", re.sub(r"/\*.*?\*/", "", body))


def test_committed_header_is_the_generated_one(monkeypatch):
    text = twins.header()
    assert twins._read(str(SRC_HEADER)) == text, (
        "src/tiebreak/_native/_ev_specs.h is stale: run python -m tiebreak.measures.twins "
        "--header (then rebuild the extension)")
    monkeypatch.setattr(twins, "HEADER", str(SRC_HEADER))
    assert twins.main(["--check"]) == 0


def test_header_codes_are_the_table_codes():
    text = twins._read(str(SRC_HEADER))
    fams = _enum(text, "EV_AP")
    assert fams == [f"EV_{t.name}" for t in twins.TWINS] + ["EV_NFAM"]
    assert [twins.CODES[t.name] for t in twins.TWINS] == list(range(len(twins.TWINS)))
    assert _enum(text, "EV_TREC") == ["EV_TREC", "EV_REAL", "EV_OPT", "EV_UPMONO", "EV_EXP",
                                      "EV_NORD"]
    d = _defines(text)
    assert d["EV_NFP"] == twins.NFP == 16
    assert d["EV_NEXP"] == 6 and fams[:6] == ["EV_AP", "EV_P", "EV_R", "EV_RR", "EV_NDCG",
                                               "EV_BPREF"]
    assert "#define EV_PROMOTED ((int64_t)1 << 40)" in text


@pytest.mark.parametrize("family,kw,expected", [
    ("Rprec_mult", {"mult": 0.5}, {"EV_FP_RPREC_MULT_MULT": 0.5}),
    ("SetF", {"beta": 0.25}, {"EV_FP_SETF_BETA": 0.25}),
    ("IPrec", {"recall": 0.3}, {"EV_FP_IPREC_RECALL": 0.3}),
    ("utility", {"coef": (1.0, -2.0, 0.5, 0.25), "num_docs": 100.0},
     {"EV_FP_UTILITY_COEF_A": 1.0, "EV_FP_UTILITY_COEF_B": -2.0,
      "EV_FP_UTILITY_COEF_C": 0.5, "EV_FP_UTILITY_COEF_D": 0.25,
      "EV_FP_UTILITY_NUM_DOCS": 100.0}),
    ("11pt_avg", {"levels": (0.2, 0.4, 0.9)},
     {"EV_FP_11PT_LEVELS_N": 3.0, "EV_FP_11PT_LEVELS": 0.2}),
])
def test_slots_the_c_code_reads_hold_the_parameters(family, kw, expected):
    """fp[EV_FP_<FAMILY>_<PARAMETER>] (the header's slot) is the parameter's value as packed;
    every other slot is 0 but the counted tail."""
    d = _defines(twins._read(str(SRC_HEADER)))
    (code, cutoff, rel), fp, exp = _spec(make(REGISTRY[family], family, **kw))
    assert (code, cutoff, rel, exp) == (twins.CODES[twins.TWINS[code].name], -1, 1, False)
    assert REGISTRY[family].kernel is twins.TWINS[code].kernel
    for name, v in expected.items():
        assert fp[d[name]] == v, name
    if family == "11pt_avg":
        assert fp[1:4] == [0.2, 0.4, 0.9] and d["EV_FP_11PT_LEVELS_MAX"] == 15
    else:
        assert sorted(i for i, x in enumerate(fp) if x) == sorted(
            d[n] for n, v in expected.items() if v)


def test_special_rules():
    by = {m.name: _spec(m) for m in parse_measures(
        ["NumRet", "NumRet(rel=2)", "nDCG@5", "nDCG(dcg='exp-log2')", "nDCG(gains={1:3})",
         "AP(judged_only=True)", "P(rel=2)@7", "RBP(p=0.8)"])}
    assert by["NumRet"][0] == (twins.CODES["NUMRET"], -1, 1)
    assert by["NumRet(rel=2)"][0] == (twins.CODES["NUMRELRET"], -1, 2)  # with_rel
    assert by["nDCG@5"] == ((twins.CODES["NDCG"], 5, 1), [0.0] * 16, True)
    assert by["P(rel=2)@7"][0] == (twins.CODES["P"], 7, 2)
    for general in ("nDCG(dcg='exp-log2')", "nDCG(gains={1:3})", "AP(judged_only=True)",
                    "RBP(p=0.8)"):
        assert by[general] is None, general
    fam = REGISTRY["11pt_avg"]
    assert _spec(make(fam, "x", levels=tuple(i / 15 for i in range(15)))) is not None
    assert _spec(make(fam, "x", levels=tuple(i / 16 for i in range(16)))) is None  # too long


def test_every_twin_serves_a_registered_family():
    """A row whose kernel no family registers, or whose expected form is not the family's,
    would never be taken: each row is reached."""
    fams = {f.kernel: f for f in REGISTRY.values()}
    for t in twins.TWINS:
        assert t.kernel in fams, t.name
        if t.expected is not None:
            assert fams[t.kernel].expected == t.expected, t.name
        names = {p.name for p in fams[t.kernel].params}
        assert {s.param for s in t.slots} | {p for p, _ in t.only} <= names, t.name
    assert "EV_NEEDS_CUTOFF(f) ((f) == EV_P ||" in twins.header()


@pytest.mark.parametrize("bad,message", [
    (lambda T: (T[6], *T[:6], *T[7:]), "expected form come first"),
    (lambda T: (*T[:-1], T[-1].replace(name="11pt")), "upper-case"),
    (lambda T: (*T[:-1], T[-1].replace(slots=(twins.Slot("levels", counted=True),
                                                 twins.Slot("x")))), "must come last"),
    (lambda T: (*T[:-1], T[-1].replace(slots=tuple(twins.Slot(f"p{i}") for i in range(17)))),
     "more than 16"),
    (lambda T: (T[0].replace(name="AP2"), *T), "share a kernel"),
    (lambda T: (*T[:-1], T[-1].replace(with_rel="NOPE")), "names no twin"),
])
def test_bad_tables_refused(monkeypatch, bad, message):
    t = bad(twins.TWINS)
    monkeypatch.setattr(twins, "TWINS", t)
    monkeypatch.setattr(twins, "CODES", {x.name: i for i, x in enumerate(t)})
    with pytest.raises(ValueError, match=message):
        twins.header()
