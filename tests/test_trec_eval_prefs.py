"""trec_eval's preference measures (``-m all_prefs`` with ``-R prefs`` / ``-R qrels_prefs``):
conformance with trec_eval 10.0's expected outputs, hand-checked examples, malformed input."""

from __future__ import annotations

import io

import numpy as np
import pytest

from tiebreak.io import InputError, read_run
from tiebreak.trec_eval.prefs import (
    PREFS_MEASURES,
    SUMMARY_IS_SUM,
    format_value,
    prefs_measures,
    prefs_order,
    prefs_summary,
    read_prefs,
)

CASES = {
    # expected output: (judgments, format, run); commands in trec_eval_test/SOURCE.md
    "prefs": ("prefs.test", "prefs", "prefs.results.test", "out.test.prefs"),
    "prefs_comment": ("prefs.comment.test", "prefs", "prefs.results.test", "out.test.prefs"),
    "qrels_prefs": ("qrels.test", "qrels_prefs", "results.test", "out.test.qrels_prefs"),
}


def expected(path) -> dict[str, dict[str, str]]:
    """{qid: {measure: printed value}} of a trec_eval -q output (runid/num_q left out)."""
    out: dict[str, dict[str, str]] = {}
    for line in path.read_text().splitlines():
        m, q, v = line.split()
        if m in PREFS_MEASURES:
            out.setdefault(q, {})[m] = v
    return out


def run_topics(run):
    """{qid: (docnos, scores)} of a run, lines in file order."""
    out = {}
    for t, q in enumerate(run.topics):
        sel = run.topic == t
        out[q] = (run.docnos[run.docid[sel]].tolist(), run.score[sel])
    return out


def evaluate(judg, runs):
    """Per-topic values for the topics trec_eval evaluates (in both run and judgments), in its
    (byte) order, plus the ``all`` line."""
    qids = sorted(set(judg) & set(runs), key=lambda q: q.encode())
    per = {q: prefs_measures(judg[q], runs[q][0], scores=runs[q][1]) for q in qids}
    return per, prefs_summary(per)


def printed(vals: dict[str, float]) -> dict[str, str]:
    return {m: format_value(m, v) for m, v in vals.items()}


@pytest.mark.parametrize("case", sorted(CASES))
def test_conformance(shared_data, case):
    jf, fmt, rf, of = CASES[case]
    d = shared_data / "trec_eval_test"
    judg = read_prefs(d / jf, fmt)
    runs = run_topics(read_run(d / rf))
    exp = expected(d / of)
    per, summary = evaluate(judg, runs)
    assert set(per) == set(exp) - {"all"}
    for q, vals in per.items():
        assert list(vals) == list(PREFS_MEASURES)
        assert printed(vals) == exp[q], q
    assert printed(summary) == exp["all"]
    # 'all' of the counts is the sum over topics, every other measure the mean
    for m in SUMMARY_IS_SUM:
        assert summary[m] == sum(v[m] for v in per.values())
    assert summary["prefs_simp"] == pytest.approx(np.mean([v["prefs_simp"] for v in per.values()]))


def test_comment_lines_and_hash_in_docno(shared_data):
    d = shared_data / "trec_eval_test"
    plain, commented = read_prefs(d / "prefs.test", "prefs"), read_prefs(d / "prefs.comment.test",
                                                                          "prefs")
    assert sum(map(len, plain.values())) == sum(map(len, commented.values())) == 164
    assert "CR93E-10505#37" in commented["2.EC.A"].docnos  # '#' inside a line is data


def test_ties_use_docno_ascending(shared_data):
    """form_prefs_counts.c breaks score ties by docno ascending (form_res_rels.c: descending).
    results.test topic 301 has ties among judged docs: the descending order is one off."""
    d = shared_data / "trec_eval_test"
    judg = read_prefs(d / "qrels.test", "qrels_prefs")
    docnos, scores = run_topics(read_run(d / "results.test"))["301"]
    asc = prefs_measures(judg["301"], docnos, scores=scores)
    o = np.lexsort((-np.arange(len(docnos))[np.argsort(np.argsort(docnos))], -scores))
    desc = prefs_measures(judg["301"], [docnos[i] for i in o])
    assert asc["prefs_num_prefs_ful_ret"] == 7339  # trec_eval's value
    assert desc["prefs_num_prefs_ful_ret"] == 7340


# --------------------------------------------------------------------------------------------
# hand-checked examples
# --------------------------------------------------------------------------------------------


def prefs_of(text: str, fmt: str = "prefs"):
    return read_prefs(io.BytesIO(text.encode()), fmt)


def test_hand_checked_single_group():
    # One JG, one JSG: A=2, B=1, C=0, D=0, E=0  ->  A>B A>C A>D A>E B>C B>D B>E (7 prefs).
    # Run: B X A C E (X unjudged; D not retrieved). Judged ranks: B0 A1 C2 E3 | D4 (NJR=4).
    #   A>B failed (both retrieved)      A>C, A>E, B>C, B>E fulfilled (both retrieved)
    #   A>D, B>D fulfilled implied (only the preferred doc retrieved)
    # ful_ret=4 poss_ret=5 ful_imp=2 poss_imp=2 notoccur=0
    # simp = 6/7, simp_ret = 4/5, simp_imp = 6/7; one JG so avgjg* = simp*;
    # pairs: AB 0, AC 1, AE 1, BC 1, BE 1 (retrieved), AD 1, BD 1 (implied) -> pair = 6/7 ...
    # Rnonrel: R=2 < N=3, recalculated: keep the first R=2 level-0 docs (C2, E3);
    #   A>B: 0 of 1; then every doc (A1 B0 C2 E3 D4, the level-0 ones included, as trec_eval
    #   does) against C: {A,B} 2 fulfilled, against E: {A,B,C} 3 -> 5 of 1 + 5*2 = 11 -> 5/11.
    # Rnonrel_ret: R=rel_ret=2 >= N=nonrel_ret=2 -> ful_ret/poss_ret = 4/5.
    tp = prefs_of("q u1 s A 2\nq u1 s B 1\nq u1 s C 0\nq u1 s D 0\nq u1 s E 0\n")["q"]
    v = prefs_measures(tp, ["B", "X", "A", "C", "E"])
    assert v == pytest.approx({
        "prefs_num_prefs_poss": 7, "prefs_num_prefs_ful": 6, "prefs_num_prefs_ful_ret": 4,
        "prefs_simp": 6 / 7, "prefs_pair": 6 / 7, "prefs_avgjg": 6 / 7,
        "prefs_avgjg_Rnonrel": 5 / 11,
        "prefs_simp_ret": 4 / 5, "prefs_pair_ret": 4 / 5, "prefs_avgjg_ret": 4 / 5,
        "prefs_avgjg_Rnonrel_ret": 4 / 5,
        "prefs_simp_imp": 6 / 7, "prefs_pair_imp": 6 / 7, "prefs_avgjg_imp": 6 / 7,
    })


def test_hand_checked_partial_order_is_closed_transitively():
    # One JG, two JSGs: s1 says A>B, s2 says B>C; transitively A>C (3 prefs).
    # Run: C A (B not retrieved). Ranks: C0 A1 | B2.
    #   A>B fulfilled implied; B>C failed implied; A>C failed, both retrieved.
    # ful_ret=0 poss_ret=1 ful_imp=1 poss_imp=2 -> simp = 1/3, simp_ret = 0, simp_imp = 1/3
    # pairs: AC 0 (retrieved), AB 1, BC 0 (implied) -> pair = pair_imp = 1/3, pair_ret = 0
    # Rnonrel: R=3 >= N=0: (1 + rel_ret 2 * 3) / (3 + R 3 * 3) = 7/12
    # Rnonrel_ret: R=rel_ret=2 >= N=0: (0 + 2*2) / (1 + num_rel 3 * 2) = 4/7
    tp = prefs_of("q u s1 A 2\nq u s1 B 1\nq u s2 B 2\nq u s2 C 1\n")["q"]
    v = prefs_measures(tp, ["C", "A"])
    assert v == pytest.approx({
        "prefs_num_prefs_poss": 3, "prefs_num_prefs_ful": 1, "prefs_num_prefs_ful_ret": 0,
        "prefs_simp": 1 / 3, "prefs_pair": 1 / 3, "prefs_avgjg": 1 / 3,
        "prefs_avgjg_Rnonrel": 7 / 12,
        "prefs_simp_ret": 0, "prefs_pair_ret": 0, "prefs_avgjg_ret": 0,
        "prefs_avgjg_Rnonrel_ret": 4 / 7,
        "prefs_simp_imp": 1 / 3, "prefs_pair_imp": 1 / 3, "prefs_avgjg_imp": 1 / 3,
    })


def test_conflicting_groups_pair_vs_simp():
    # JG u1: A>B, JG u2: B>A. Run: A B. simp pools: 1 of 2. pair: one pair, 1 of its 2 prefs.
    # avgjg: (1 + 0) / 2.
    tp = prefs_of("q u1 0 A 1\nq u1 0 B 0\nq u2 0 A 0\nq u2 0 B 1\n")["q"]
    v = prefs_measures(tp, ["A", "B"])
    assert v["prefs_simp"] == v["prefs_pair"] == v["prefs_avgjg"] == 0.5
    assert v["prefs_num_prefs_poss"] == 2


def test_prefs_order_and_max_docs():
    assert prefs_order(["b", "a", "c"], [1.0, 1.0, 2.0]) == ["c", "a", "b"]
    assert prefs_order(["b", "a", "c"], [1.0, 1.0, 2.0], max_docs=2) == ["c", "a"]
    tp = prefs_of("q g 0 a 1\nq g 0 b 0\n")["q"]
    # -M 1 after sorting keeps only 'a' (tie broken ascending): implied fulfilled
    v = prefs_measures(tp, ["b", "a"], scores=[1.0, 1.0], max_docs=1)
    assert (v["prefs_num_prefs_ful"], v["prefs_num_prefs_ful_ret"]) == (1, 0)


def test_summary_and_format():
    per = {"1": dict.fromkeys(PREFS_MEASURES, 1.0), "2": dict.fromkeys(PREFS_MEASURES, 0.5)}
    s = prefs_summary(per)
    assert s["prefs_num_prefs_poss"] == 1.5 and s["prefs_simp"] == 0.75
    assert format_value("prefs_num_prefs_ful", 3.0) == "3"
    assert format_value("prefs_simp", 2 / 3) == "0.6667"


def test_qrels_prefs_groups_by_iter():
    judg = prefs_of("1 0 A 1\n1 0 B 0\n1 7 A 0\n1 7 B 2\n", "qrels_prefs")
    assert judg["1"].jgs == ("0", "7")
    v = prefs_measures(judg["1"], ["A", "B"])
    assert v["prefs_avgjg"] == 0.5


# --------------------------------------------------------------------------------------------
# malformed input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, fmt, message",
    [
        ("q g s A 1\nq g s B\n", "prefs", r"<stream>:2: expected 5 fields"),
        ("q g s A 1 extra\n", "prefs", r":1: expected 5 fields"),
        ("# c\nq g s A high\n", "prefs", r":2: rel_level 'high' is not a number"),
        ("q g s A 1_0\n", "prefs", r":1: rel_level '1_0' is not a number"),
        ("q g s A nan\n", "prefs", r"rel_level 'nan' is not a number"),
        ("1 0 A 1 x\n", "qrels_prefs", r":1: expected 4 fields 'qid iter docno rel'"),
        ("1 0 A x\n", "qrels_prefs", r":1: rel 'x' is not a number"),
        ("q g s A 2\nq g s B 1\nq g s A 1\n", "prefs", r":3: rel_level: doc given two"),
        ("q g s1 A 2\nq g s2 A 0\n", "prefs", r":2: rel_level: doc judged both"),
    ],
)
def test_malformed(text, fmt, message):
    with pytest.raises(InputError, match=message):
        read_prefs(io.BytesIO(text.encode()), fmt)


def test_malformed_file_names_path(tmp_path):
    p = tmp_path / "bad.prefs"
    p.write_bytes(b"q g s A 1\n\nq g s B\n")
    with pytest.raises(InputError, match=r"bad\.prefs:3: expected 5 fields"):
        read_prefs(p, "prefs")
    with pytest.raises(ValueError, match="fmt"):
        read_prefs(p, "qrels")


def test_cycle_in_one_group_is_an_error():
    tp = prefs_of("q g s1 A 2\nq g s1 B 1\nq g s2 B 2\nq g s2 A 1\n")["q"]
    with pytest.raises(InputError, match="contradict"):
        prefs_measures(tp, ["A"])


def test_duplicate_retrieved_docno_is_an_error():
    tp = prefs_of("q g s A 1\nq g s B 0\n")["q"]
    with pytest.raises(ValueError, match="retrieved twice"):
        prefs_measures(tp, ["A", "A"])
