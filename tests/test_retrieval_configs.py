"""Lu (2018) Table 3.1 configurations: each one's query form is the thesis's, on a 3-term and a
5-term query, and the registered aliases score what their form says."""

from __future__ import annotations

import pytest

from tiebreak.retrieval import registry
from tiebreak.retrieval.configs import TABLE_3_1, indri_query, query_form
from tiebreak.studies.study_proximity import MODELS as STUDY
from tiebreak.studies.study_proximity import study_models

# Table 3.1 as the thesis states it, written out by hand for Q = (a b c)
THESIS_3 = {
    "BOW": "#weight( 1 #combine(a b c) )",
    "BOW+OW": "#weight( 0.85 #combine(a b c) 0.15 #combine(#1(a b) #1(b c) #1(a b c)) )",
    "BOW+UW": "#weight( 0.85 #combine(a b c) 0.15 #combine(#uw8(a b) #uw8(a c) #uw8(b c) "
              "#uw12(a b c)) )",
    "SDM": "#weight( 0.8 #combine(a b c) 0.1 #combine(#1(a b) #1(b c)) "
           "0.1 #combine(#uw8(a b) #uw8(b c)) )",
    "FDM": "#weight( 0.8 #combine(a b c) 0.15 #combine(#1(a b) #1(b c) #1(a b c)) "
           "0.05 #combine(#uw8(a b) #uw8(a c) #uw8(b c) #uw12(a b c)) )",
}


@pytest.mark.parametrize("name", list(THESIS_3))
def test_three_terms(name):
    model, params = TABLE_3_1[name]
    assert indri_query(model, params, "a b c".split()) == THESIS_3[name]


def test_five_terms():
    q = "a b c d e".split()
    groups = {n: query_form(*TABLE_3_1[n], q) for n in TABLE_3_1}
    # BOW+OW: the 4 + 3 + 2 + 1 = 10 contiguous sub-sequences, each an exact phrase
    ow = groups["BOW+OW"][1][1]
    assert len(ow) == 10 and ow[:4] == ["#1(a b)", "#1(b c)", "#1(c d)", "#1(d e)"]
    assert ow[-1] == "#1(a b c d e)"
    # BOW+UW: all 2^5 - 5 - 1 = 26 subsets, window 4|Q'|
    uw = groups["BOW+UW"][1][1]
    assert len(uw) == 26 and uw.count("#uw20(a b c d e)") == 1
    assert sum(f.startswith("#uw8(") for f in uw) == 10
    assert sum(f.startswith("#uw12(") for f in uw) == 10
    assert sum(f.startswith("#uw16(") for f in uw) == 5
    # SDM: the 4 adjacent pairs, #1 and #uw8, 0.8 / 0.1 / 0.1
    sdm = groups["SDM"]
    assert [w for w, _ in sdm] == [0.8, 0.1, 0.1]
    assert sdm[2][1] == ["#uw8(a b)", "#uw8(b c)", "#uw8(c d)", "#uw8(d e)"]
    # FDM: 0.8 / 0.15 / 0.05 over 10 phrases and 26 windows
    fdm = groups["FDM"]
    assert [w for w, _ in fdm] == [0.8, 0.15, 0.05]
    assert (len(fdm[1][1]), len(fdm[2][1])) == (10, 26)
    assert groups["BOW"] == [(1.0, q)]


def test_the_study_default_differs_and_the_thesis_is_one_option_away():
    # the earlier choice (kept as the default) used adjacent-pair windows and swapped weights
    assert STUDY["BOW+UW"] == ("sdm", {"weights": (0.95, 0.0, 0.05)})
    assert STUDY["SDM"] == ("sdm", {})
    thesis = study_models("thesis")
    for n in TABLE_3_1:
        assert thesis[n] == TABLE_3_1[n]
    assert study_models("ours", ["bctp"])["bctp"] == ("bctp", {})


def test_aliases_reach_the_configurations():
    assert registry.check("bow+uw", {}) == {"weights": (0.85, 0.0, 0.15)}
    assert registry.check("sdm31", {})["weights"] == (0.8, 0.1, 0.1)
    assert registry.get("fdm31").name == "fdm"
    with pytest.raises(ValueError, match="bow fixes"):
        registry.check("bow", {"smoothing": "jm"})


def test_krovetz_stemmer_is_kstem():
    pytest.importorskip("krovetzstemmer", reason="the krovetz extra is not installed")
    from tiebreak.index.analysis import Analyzer

    a = Analyzer("krovetz", "none")
    # KStem is dictionary-based: inflections to dictionary words, derivations kept apart
    assert a.analyze("ordained churches images of England") == \
        ["ordain", "church", "image", "of", "england"]
    assert a.analyze("ordination") == ["ordination"]
    assert Analyzer.from_config(a.config()).stemmer == "krovetz"
