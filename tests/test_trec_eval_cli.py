"""``tiebreak trec_eval``: byte-identical trec_eval 10.0 output, its traps, and tie regimes.

* Every expected output in ../shared/data/trec_eval_test is reproduced byte for byte by the
  command of its SOURCE.md (trec_eval's own ``make quicktest``).
* ``rbp``: trec_eval 10.0 reads uninitialised memory when it rescales gains; the expected files
  come from a ``-O0`` build whose values equal the *defined* computation (per-topic min-max
  scaling), which is what tiebreak computes; ``test_rbp_defined_value`` checks it independently.
* Deterministic regimes equal trec_eval order on an explicitly re-scored run; the ``expected``
  regime equals the brute-force mean over every within-group ordering (exact for the linear and
  closed-form measures, within sampling error for the sampled ones).
"""

from __future__ import annotations

import io
import itertools
import math
import shlex

import numpy as np
import pytest

import tiebreak as tb
from tiebreak.trec_eval import main

CASES = [
    ("out.test", "qrels.test results.test"),
    ("out.test", "qrels.test.with-comments results.test"),
    ("out.comment.test", "qrels.comment.test results.comment.test"),
    ("out.test.a", "-m all_trec qrels.test results.test"),
    ("out.test.aq", "-m all_trec -q qrels.test results.test"),
    ("out.test.aqc", "-m all_trec -q -c qrels.test results.trunc"),
    ("out.test.aqcM", "-m all_trec -q -c -M100 qrels.test results.trunc"),
    ("out.test.aql", "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test"),
    ("out.test.prefs", "-m all_prefs -q -R prefs prefs.test prefs.results.test"),
    ("out.test.prefs", "-m all_prefs -q -R prefs prefs.comment.test prefs.results.test"),
    ("out.test.qrels_prefs", "-m all_prefs -q -R qrels_prefs qrels.test results.test"),
    ("out.test.qrels_jg", "-m qrels_jg -q -R qrels_jg qrels.123 results.test"),
    ("out.test.qrels_jg", "-m qrels_jg -q -R qrels_jg qrels.comments.123 results.test"),
    ("out.test.meas_params",
     "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
     "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
     "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 qrels.test results.test"),
    ("out.test.aqZ", "-q -m all_trec -Z zscores_file qrels.test results.test"),
]


def run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main([str(a) for a in args], out, err)
    return rc, out.getvalue(), err.getvalue()


def te(d, cmd: str) -> list[str]:
    return [a if a.startswith("-") or not (d / a).exists() else str(d / a)
            for a in shlex.split(cmd)]


@pytest.mark.parametrize("expected,cmd", CASES, ids=[f"{e}:{c.split()[-2]}" for e, c in CASES])
def test_byte_identical(shared_data, expected, cmd):
    d = shared_data / "trec_eval_test"
    rc, out, err = run(te(d, cmd))
    assert rc == 0, err
    want = (d / expected).read_text()
    if out != want:  # show the first differing line
        for a, b in zip(out.splitlines(), want.splitlines()):
            assert a == b
    assert out == want


def test_rbp_defined_value(shared_data):
    """rbp = (1-p) sum gain_i p^(i-1), gains scaled by the topic's largest level when any gain
    lies outside [0, 1]; recomputed here from the relstring trec_eval prints."""
    d = shared_data / "trec_eval_test"
    rc, out, _ = run(["-q", "-m", "rbp", "-m", "relstring.1000", "-l2",
                      d / "qrels.rel_level", d / "results.test"])
    assert rc == 0
    rows = [ln.split("\t") for ln in out.splitlines()]
    rel = {q: v.strip("'") for m, q, v in rows if m.startswith("relstring")}
    rbp = {q: float(v) for m, q, v in rows if m.strip() == "rbp"}
    levels = [int(ln.split()[3]) for ln in (d / "qrels.rel_level").read_text().splitlines()]
    for q, s in rel.items():
        top = max(lv for ln, lv in zip((d / "qrels.rel_level").read_text().splitlines(), levels)
                  if ln.split()[0] == q)
        g = [(int(c) / top if top > 1 else int(c)) if c.isdigit() else 0.0 for c in s]
        want = sum(0.1 * gi * 0.9 ** i for i, gi in enumerate(g))
        assert rbp[q] == pytest.approx(want, abs=6e-5)
    # SOURCE.md: topic 301 is 0.0465 with graded qrels and 0.1861 with binary ones
    assert rbp["301"] == pytest.approx(0.0465, abs=5e-5)
    rc, out, _ = run(["-q", "-m", "rbp.p=0.8", d / "qrels.test", d / "results.test"])
    assert "rbp_p=0.8             \tall\t0.3077" in out


# ---------------------------------------------------------------------------------------------
# traps and errors
# ---------------------------------------------------------------------------------------------


def test_missing_topic_without_c_is_skipped_with_warning(shared_data):
    d = shared_data / "trec_eval_test"
    rc, out, err = run(["-m", "num_q", "-m", "map", d / "qrels.test", d / "results.trunc"])
    assert rc == 0
    assert "1 qrels topic(s) without results skipped" in err and "302" in err
    assert "num_q                 \tall\t2\n" in out
    rc, out, err = run(["--strict", d / "qrels.test", d / "results.trunc"])
    assert rc == 4 and "302" in err and out == ""


@pytest.mark.parametrize("args,status,msg", [
    (["-x"], 1, "invalid option -- 'x'"),
    (["--bogus"], 1, "unrecognized option '--bogus'"),
    (["-m", "nosuchmeasure"], 1, "illegal measure 'nosuchmeasure'"),
    (["-R", "nonsense"], 2, "Illegal rel_format 'nonsense'"),
    (["-T", "nonsense"], 2, "Illegal retrieval results format 'nonsense'"),
    (["-m", "prefs_simp"], 4, "Can't calculate measure 'prefs_simp'"),
    (["--regime", "random"], 1, "unknown regime 'random'"),
])
def test_bad_options(shared_data, args, status, msg):
    d = shared_data / "trec_eval_test"
    rc, out, err = run(args + [d / "qrels.test", d / "results.test"])
    assert rc == status and msg in err and out == ""


def test_usage_help_version():
    rc, out, err = run([])
    assert rc == 1 and err.startswith("Usage: trec_eval")
    rc, out, err = run(["-h"])
    assert rc == 0 and "all_trec" in out and "infAP" in out
    rc, out, err = run(["-v"])
    assert rc == 0 and "trec_eval version 10.0" in err


def test_non_numeric_score_stops_with_file_and_line(tmp_path, shared_data):
    d = shared_data / "trec_eval_test"
    bad = tmp_path / "run.txt"
    bad.write_text("301 Q0 FBIS3-10082 1 12.5 x\n301 Q0 FBIS3-10169 2 abc x\n")
    rc, out, err = run([d / "qrels.test", bad])
    assert rc == 2 and "run.txt:2" in err and "abc" in err and out == ""


def test_duplicate_docno_is_an_error(tmp_path, shared_data):
    d = shared_data / "trec_eval_test"
    bad = tmp_path / "run.txt"
    bad.write_text("301 Q0 FBIS3-10082 1 12.5 x\n301 Q0 FBIS3-10082 2 11 x\n")
    rc, out, err = run([d / "qrels.test", bad])
    assert rc == 2 and "FBIS3-10082" in err


def test_stdin_and_several_runs(shared_data, monkeypatch):
    d = shared_data / "trec_eval_test"
    one = run([d / "qrels.test", d / "results.test"])[1]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(
        (d / "results.test").read_bytes())))
    assert run([d / "qrels.test", "-"])[1] == one
    rc, out, _ = run([d / "qrels.test", d / "results.test", d / "results.test"])
    assert out == one + one


def test_option_forms(shared_data):
    """getopt forms: clustered flags, attached and separate arguments, long options."""
    d = shared_data / "trec_eval_test"
    a = run(["-qc", "-mP.5", "-M100", d / "qrels.test", d / "results.trunc"])[1]
    b = run(["--query_eval_wanted", "--complete_rel_info_wanted", "--measure", "P.5",
             "--Max_retrieved_per_topic=100", d / "qrels.test", d / "results.trunc"])[1]
    c = run([d / "qrels.test", "-q", "-c", "-m", "P.5", "-M", "100", d / "results.trunc"])[1]
    assert a == b == c and "P_5                   \t302\t0.0000" in a


def test_judged_only_and_debug_query(shared_data):
    d = shared_data / "trec_eval_test"
    rc, out, _ = run(["-J", "-q", "-m", "num_ret", "-m", "unj.5", d / "qrels.rel_level",
                      d / "results.test"])
    assert rc == 0 and "unj_5                 \t303\t0.0000" in out
    rc, out, _ = run(["-D", "0.302", "-q", "-m", "num_q", d / "qrels.test",
                      d / "results.test"])
    assert "\t301\t" not in out and "num_q                 \tall\t1" in out


# ---------------------------------------------------------------------------------------------
# regimes
# ---------------------------------------------------------------------------------------------

QRELS = """1 0 a 1
1 0 b 0
1 0 c 2
1 0 d -1
1 0 e 1
1 0 z 0
2 0 a 0
2 0 b 1
2 0 f 1
"""
# topic 1: groups {a,b,c} at 3.0, {d,e} at 2.0, x (not judged) at 1.5, {y, z} at 1.0
# topic 2: {a, b, g} at 5.0, f at 4.0
RUN = [("1", "a", 3.0), ("1", "b", 3.0), ("1", "c", 3.0), ("1", "d", 2.0), ("1", "e", 2.0),
       ("1", "x", 1.5), ("1", "y", 1.0), ("1", "z", 1.0),
       ("2", "a", 5.0), ("2", "b", 5.0), ("2", "g", 5.0), ("2", "f", 4.0)]


def _write_run(path, lines):
    path.write_text("".join(f"{q} Q0 {d} {i} {s!r} t\n" for i, (q, d, s) in enumerate(lines)))


def _values(args) -> dict:
    rc, out, err = run(args)
    assert rc == 0, err
    vals = {}
    for ln in out.splitlines():
        m, q, v = ln.split("\t")
        if v.startswith("'") or m.strip() == "runid":
            continue
        vals[(m.strip(), q)] = float(v)
    return vals


def _orderings(lines):
    """Every within-group ordering of every topic, as explicitly re-scored runs."""
    per_topic = {}
    for q, d, s in lines:
        per_topic.setdefault(q, {}).setdefault(s, []).append(d)
    topic_perms = []
    for q, groups in per_topic.items():
        keys = sorted(groups, reverse=True)
        opts = [list(itertools.permutations(groups[k])) for k in keys]
        topic_perms.append([(q, [d for grp in combo for d in grp])
                            for combo in itertools.product(*opts)])
    return topic_perms


MEAS = ["-m", "all_trec", "-m", "dcg", "-m", "ideal_dcg"]


def test_deterministic_regimes_equal_rescored_runs(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text(QRELS)
    runf = tmp_path / "run"
    _write_run(runf, RUN)
    rel = {(ln.split()[0], ln.split()[2]): int(ln.split()[3]) for ln in QRELS.splitlines()}
    code = {k: (v if v >= 0 else -2) for k, v in rel.items()}
    keyf = {
        "file": lambda i, q, d, s: (-s * 0, i),
        "realistic": lambda i, q, d, s: (-s, code.get((q, d), -1), [-ord(c) for c in d]),
        "optimistic": lambda i, q, d, s: (-s, -code.get((q, d), -1), [-ord(c) for c in d]),
    }
    keyf["lower"] = keyf["realistic"]
    for regime, key in keyf.items():
        ordered = sorted(((q, d, s, i) for i, (q, d, s) in enumerate(RUN)),
                         key=lambda x: (x[0], key(x[3], x[0], x[1], x[2])))
        explicit = tmp_path / f"run.{regime}"
        _write_run(explicit, [(q, d, float(100 - n)) for n, (q, d, s, i) in enumerate(ordered)])
        got = _values(["-q", *MEAS, "--regime", regime, qrels, runf])
        want = _values(["-q", *MEAS, qrels, explicit])
        assert got == want, regime


def test_upper_promotes_unjudged_for_monotone_measures_only(tmp_path):
    """YMT's upper bound, one rule in both commands: an unjudged document inside a tie counts
    as relevant for P (monotone), not for recall or map (normalised)."""
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    runf = tmp_path / "run"
    _write_run(runf, [("1", "a", 2.0), ("1", "x", 1.0), ("1", "b", 1.0)])
    up = _values(["-q", "-m", "P.2", "-m", "recall.2", "-m", "map", "--regime", "upper",
                  qrels, runf])
    opt = _values(["-q", "-m", "P.2", "-m", "recall.2", "-m", "map", "--regime", "optimistic",
                   qrels, runf])
    assert up[("P_2", "1")] == 1.0 and opt[("P_2", "1")] == 0.5
    assert up[("recall_2", "1")] == opt[("recall_2", "1")] == 1.0
    assert up[("map", "1")] == opt[("map", "1")] == 1.0
    for name in ("P@2", "P_2"):
        res = tb.Evaluator(tb.read_qrels(qrels), [name], ["upper"]).evaluate([tb.read_run(runf)])
        assert res.value(res.runs[0], name, "upper", "1") == 1.0


SAMPLED = {"iprec_at_recall", "11pt_avg", "infAP", "binG", "G", "ndcg_rel", "Rndcg"}


@pytest.mark.slow
def test_expected_regime_equals_mean_over_all_orderings(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text(QRELS)
    runf = tmp_path / "run"
    _write_run(runf, RUN)
    sums: dict = {}
    topic_perms = _orderings(RUN)
    for combo in itertools.product(*topic_perms):
        lines = []
        for q, docs in combo:
            lines += [(q, d, float(100 - n)) for n, d in enumerate(docs)]
        f = tmp_path / "perm"
        _write_run(f, lines)
        for k, v in _values(["-q", *MEAS, qrels, f]).items():
            if k[1] != "all":
                sums.setdefault(k, []).append(v)
    n_perm = math.prod(len(p) for p in topic_perms)
    assert n_perm == 6 * 2 * 2 * 6
    got = _values(["-q", *MEAS, "--regime", "expected", "--samples", "4000", qrels, runf])
    checked = sampled = 0
    for (m, q), vs in sums.items():
        # per-topic values are averaged over the orderings of that topic only
        mean = float(np.mean(vs))
        base = m.rsplit("_", 1)[0] if m[-1].isdigit() else m
        if base in SAMPLED or m in SAMPLED:
            se = float(np.std(vs)) / math.sqrt(4000)
            assert abs(got[(m, q)] - mean) <= 5 * se + 1e-4, (m, q)
            sampled += 1
        else:
            assert got[(m, q)] == pytest.approx(mean, abs=1e-4), (m, q)
            checked += 1
    assert checked > 150 and sampled > 20


def test_expected_regime_note_and_cut(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text(QRELS)
    runf = tmp_path / "run"
    _write_run(runf, RUN)
    rc, out, err = run(["-m", "infAP", "-m", "P.2", "--regime", "expected", qrels, runf])
    assert rc == 0 and "infAP estimated from 1000 seeded random orderings" in err
    # -M2 cuts topic 1's first group {a, b, c} (relevant a, c): E[P@2] = 2/3 there
    v = _values(["-q", "-m", "P.2", "-m", "num_rel_ret", "-M2", "--regime", "expected",
                 qrels, runf])
    assert v[("P_2", "1")] == pytest.approx(2 / 3, abs=5e-5)
    assert v[("num_rel_ret", "1")] == pytest.approx(4 / 3, abs=5e-5)


@pytest.mark.parametrize("args,msg", [
    (["-M", "-1"], "-M"), (["-M", "abc"], "-M"), (["--samples", "abc"], "--samples"),
    (["--jobs", "0"], "--jobs"), (["-m", "rbp.p=1.5"], "p must lie"),
    (["-m", "rbp_resid.p=2"], "p must lie"),
])
def test_bad_option_values_are_errors_not_zeros(shared_data, args, msg):
    d = shared_data / "trec_eval_test"
    rc, out, err = run([*args, str(d / "qrels.test"), str(d / "results.test")])
    assert rc != 0 and out == "" and msg in err
