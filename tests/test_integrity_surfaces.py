"""Input integrity III (issue 41): the surfaces added since the readers were hardened fail as
clearly as ``eval`` does: parameter ranges declared once (fusion, models), no non-finite score
written, sampled-judgment measures under the default regimes, JSON and Parquet inputs, compat
errors, empty runs, studies' arguments."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_integrity_commands import QRELS, RUN, cli  # noqa: E402 - the shared CLI runner

from tiebreak.io import InputError, read_run


@pytest.fixture
def small(tmp_path):
    """Three lines of qrels and a run with one tie."""
    q = tmp_path / "q.txt"
    q.write_text("1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n")
    r = tmp_path / "r.txt"
    r.write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n1 Q0 d3 3 1.0 r\n")
    return q, r


# ------------------------------------------------------------------ sampled judgments, regimes
@pytest.mark.parametrize("args", [["-m", "infNumRel"],
                                  ["--convention", "sample_eval", "-m", "inum_rel"]])
def test_inum_rel_under_the_default_regimes(small, capsys, args):
    q, r = small
    code, out, err = cli(["eval", q, r, *args, "--format", "tsv"], capsys)
    assert code == 0, err
    rows = [ln.split("\t") for ln in out.splitlines()]
    # R_hat = 2 relevant of 3 judged, whatever the order of the tied group
    assert {row[2] for row in rows} >= {"trec_eval", "expected", "realistic", "optimistic"}
    assert {float(row[-1]) for row in rows} == {2.0}


# ------------------------------------------------------------------ parameters: one rule
@pytest.mark.parametrize("args, needle", [
    (["--method", "wsum", "-w", "nan", "-w", "1"], "weight must be a finite number, got nan"),
    (["--method", "wsum", "-w", "inf", "-w", "1"], "weight must be a finite number, got inf"),
    (["--rrf-k", "-1"], "--rrf-k must be in (-1, inf) (k + rank must stay above 0 at every "
                        "rank >= 1)"),
    (["--rrf-k", "nan"], "--rrf-k must be a finite number, got nan"),
])
def test_fuse_refuses_non_finite_parameters(capsys, args, needle):
    code, out, err = cli(["fuse", RUN, RUN, *args], capsys)
    assert code == 2 and needle in err and out == ""


def test_fuse_api_uses_the_same_rule():
    from tiebreak.runs import fuse

    with pytest.raises(ValueError, match=r"k must be in \(-1, inf\)"):
        fuse([RUN, RUN], "rrf", k=-1)
    with pytest.raises(ValueError, match="weight 2 must be a finite number, got nan"):
        fuse([RUN, RUN], "wsum", weights=[1, float("nan")])
    assert np.isfinite(fuse([RUN, RUN], "rrf", k=-0.5).score).all()


def test_fused_overflow_names_the_document(capsys):
    code, out, err = cli(["fuse", RUN, RUN, "--method", "wsum", "--norm", "none",
                          "-w", "1e308", "-w", "1e308"], capsys)
    assert code == 2 and out == ""
    assert "score inf from wsum fusion for topic" in err and "docno" in err
    assert "RuntimeWarning" not in err


def test_normalisations_are_scale_free_on_huge_scores(tmp_path, capsys):
    from tiebreak.runs.fusion import normalise_scores

    s = np.array([1e300, 5e299, -1e300, 3.0, 2.0, 2.0])
    t = np.array([0, 0, 0, 1, 1, 1])
    for norm in ("zmuv", "min-max", "sum", "max"):
        got = normalise_scores(s, t, norm)
        assert np.isfinite(got).all(), norm
        # scaling a topic by a power of two changes nothing, bit for bit
        small = np.r_[np.ldexp(s[:3], -900), s[3:]]
        assert np.array_equal(got, normalise_scores(small, t, norm)), norm
    z = normalise_scores(s[:3], t[:3], "zmuv")
    assert z.tolist() == pytest.approx([0.98058068, 0.39223227, -1.37281295])
    f = tmp_path / "big.txt"
    f.write_text("1 Q0 a 1 1e300 r\n1 Q0 b 2 -1e300 r\n1 Q0 c 3 5e299 r\n")
    code, out, err = cli(["run", f, "--norm", "zmuv"], capsys)
    assert code == 0 and "RuntimeWarning" not in err
    assert [float(ln.split()[4]) for ln in out.splitlines()] == z.tolist()


def test_writer_refuses_a_non_finite_score(tmp_path):
    from tiebreak.io.writers import format_trec_run, write_run

    r = read_run(RUN)
    r.score[2] = np.inf
    for fmt, dest in (("trec", "o.txt"), ("json", "o.json")):
        with pytest.raises(InputError, match=r"score inf for topic \S+, docno \S+ is not a "
                                             "finite number"):
            write_run(r, tmp_path / dest, fmt)
        assert not (tmp_path / dest).exists()
    with pytest.raises(InputError):
        format_trec_run(r)


def test_nan_score_in_a_run_object_refused():
    import tiebreak

    r = read_run(RUN)
    r.score[1] = np.nan
    with pytest.raises(InputError, match="score nan for topic"):
        tiebreak.evaluate(QRELS, r, ["AP"])


@pytest.mark.parametrize("model, params, needle", [
    ("mindist", {"alpha": 1e-320}, "alpha must be in [1e-300, inf) (exp(-delta) / alpha "
                                   "overflows below it), got 1e-320"),
    ("bm25", {"k1": 1e308}, "k1 must be in [0, 1e+06]"),
    ("sdm", {"weights": (1, 2)}, "weights must be 3 numbers (lambda_t, lambda_ow, lambda_uw"),
    ("bm25", {"k1": float("nan")}, "k1 must be a finite number, got nan"),
])
def test_model_parameters_ranges(model, params, needle):
    from tiebreak.retrieval.search import check_params

    with pytest.raises(ValueError) as e:
        check_params(model, params)
    assert needle in str(e.value)


# ------------------------------------------------------------------ JSON and Parquet inputs
RUN_D = {"1": {"d1": 2.0, "d2": 1.0}, "2": {"d3": 0.5}}


@pytest.mark.parametrize("enc", ["utf-8-sig", "utf-16", "utf-16-be", "utf-32"])
def test_json_encodings_by_byte_order_mark(tmp_path, enc):
    from tiebreak.io.tables import read_run_table

    f = tmp_path / "r.json"
    text = json.dumps(RUN_D)
    data = text.encode(enc)
    if enc == "utf-16-be":
        data = b"\xfe\xff" + data
    f.write_bytes(data)
    r = read_run_table(f)
    assert r.topics == ["1", "2"] and r.score.tolist() == [2.0, 1.0, 0.5]


@pytest.mark.parametrize("data, needle", [
    (json.dumps(RUN_D).encode("utf-16-le"), "r.json: UTF-16 or UTF-32 text without a "
                                            "byte-order mark"),
    (b'{"1": {"d\xe91": 1.0}}', "r.json:1: invalid UTF-8 (byte 0xe9 at column 10)"),
    (b"[" * 100000 + b"]" * 100000, "r.json: JSON nested too deeply to read (a run is "
                                    "{qid: {docno: score}}, two levels)"),
    (b'{"1":' * 100000 + b"1" + b"}" * 100000, "r.json: JSON nested too deeply"),
    (b'{"1": {"d1": true}}', "r.json: topic '1', docno 'd1': score True is a boolean"),
    (b'{"1": {"d1": 1.0, "d1": 2.0}}', "r.json: topic '1': docno 'd1' appears twice"),
    (b'{"1": {"d1": 1.0}, "1": {"d2": 2.0}}', "r.json: topic '1' appears twice"),
    (b'{"1": {"d1": null}}', "r.json: topic '1', docno 'd1': score is missing"),
    (b'{"1": {"d1": "1.5"}}', "r.json: topic '1', docno 'd1': score '1.5' is a string"),
    (b'{"1": {"d1": NaN}}', "r.json: not JSON: NaN is not a number JSON allows"),
    (b'{"1": {"d 1": 1.0}}', "r.json: topic '1', docno 'd 1': docno 'd 1' is empty or "
                             "contains whitespace"),
    (b'{"1": {"d1": 1.0}, "2": [1]}', "r.json: topic '2': expected an object"),
])
def test_json_run_errors_name_the_file_and_record(tmp_path, capsys, data, needle):
    from tiebreak.io.tables import read_run_table

    f = tmp_path / "r.json"
    f.write_bytes(data)
    with pytest.raises(InputError) as e:
        read_run_table(f)
    assert needle in str(e.value).replace(str(tmp_path) + "/", "")
    code, out, err = cli(["eval", QRELS, f, "-m", "AP"], capsys)
    assert code == 2 and needle in err.replace(str(tmp_path) + "/", "")


def test_json_qrels_boolean_refused(tmp_path):
    from tiebreak.io.tables import read_qrels_table

    f = tmp_path / "q.json"
    f.write_text('{"1": {"d1": 1, "d2": false}}')
    with pytest.raises(InputError, match=r"q.json: topic '1', docno 'd2': relevance False is a "
                                         "boolean, not an integer"):
        read_qrels_table(f)


def test_parquet_errors_name_row_group_row_and_column(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from tiebreak.io.tables import read_qrels_table, read_run_table

    def write(name, **cols):
        f = tmp_path / name
        pq.write_table(pa.table(cols), f, row_group_size=2)
        return f

    ok = write("ok.parquet", q_id=["1", "2", "1"], doc_id=["a", "c", "b"], score=[1.0, 2, 3])
    r = read_run_table(ok)
    assert r.topics == ["1", "2"] and r.score.tolist() == [1.0, 3.0, 2.0]
    cases = [
        (write("n.parquet", q_id=["1", "1", "2", "1"], doc_id=["a", "b", "c", None],
               score=[1.0, 2, 3, 4]),
         "n.parquet: row group 1, row 1 (row 3 of the file): doc_id is missing"),
        (write("b.parquet", q_id=["1"], doc_id=["a"], score=[True]),
         "b.parquet: column score holds booleans, not numbers"),
        (write("d.parquet", q_id=["1", "2", "1"], doc_id=["a", "c", "a"], score=[1.0, 2, 3]),
         "d.parquet: row group 0, row 0 (row 0 of the file) and row group 1, row 0 (row 2 of "
         "the file): docno 'a' listed twice for topic '1'"),
        (write("i.parquet", q_id=["1", "2", "#1"], doc_id=["a", "c", "a"], score=[1.0, 2, 3]),
         "i.parquet: row group 1, row 0 (row 2 of the file): q_id '#1' starts with '#'"),
    ]
    for f, needle in cases:
        with pytest.raises(InputError) as e:
            read_run_table(f)
        assert needle in str(e.value).replace(str(tmp_path) + "/", "")
    q = write("q.parquet", q_id=["1", "1"], doc_id=["a", "b"], rel=[1, None])
    with pytest.raises(InputError, match=r"q.parquet: row group 0, row 1 \(row 1 of the file\): "
                                         "rel is missing"):
        read_qrels_table(q)


# ------------------------------------------------------------------ compat: errors
def test_ir_measures_plain_tuples_and_bad_records():
    """ir_measures takes records with query_id/doc_id/relevance (or score) fields; plain tuples
    get ir_measures' ValueError, naming the item, never an AttributeError; a docno given twice
    is refused (ir_measures would keep one silently)."""
    from tiebreak.compat import ir_measures

    Qrel, ScoredDoc = ir_measures.Qrel, ir_measures.ScoredDoc
    qrels = [Qrel("1", "d1", 1), Qrel("1", "d2", 0), Qrel("1", "d3", 1)]
    run = [ScoredDoc("1", "d1", 2.0), ScoredDoc("1", "d2", 1.0), ScoredDoc("1", "d3", 0.5)]
    got = ir_measures.calc_aggregate(["AP"], qrels, run)
    assert [round(v, 10) for v in got.values()] == [round((1 + 2 / 3) / 2, 10)]
    with pytest.raises(ValueError, match=r"qrels: item 0 is a tuple, not a tuple with fields "
                                         "query_id, doc_id, relevance"):
        ir_measures.calc_aggregate(["AP"], [("1", "d1", 1)], run)
    with pytest.raises(ValueError, match="run: item 1: docno 'd1' given twice"):
        ir_measures.calc_aggregate(["AP"], qrels, [ScoredDoc("1", "d1", 1.0),
                                                   ScoredDoc("1", "d1", 2.0)])


def test_pytrec_eval_type_errors_as_pytrec_eval():
    """What pytrec_eval refuses with a TypeError, the shim refuses with a TypeError (naming the
    argument and the offending key or value)."""
    from tiebreak.compat import pytrec_eval

    with pytest.raises(TypeError, match="query_relevance"):
        pytrec_eval.RelevanceEvaluator({b"1": {"d": 1}}, {"map"})
    with pytest.raises(TypeError):
        pytrec_eval.RelevanceEvaluator({"1": {"d": 1.5}}, {"map"})
    e = pytrec_eval.RelevanceEvaluator({"1": {"d": 1}}, {"map"})
    for run in ({b"1": {"d": 1.0}}, {"1": {b"d": 1.0}}, {"1": {"d": "x"}}, {"1": ["d"]},
                {1: {"d": 1.0}}):
        with pytest.raises(TypeError):
            e.evaluate(run)
    assert e.evaluate({"1": {"d": True}}) == {"1": {"map": 1.0}}


# ------------------------------------------------------------------ empty runs: one rule
@pytest.fixture(params=["empty", "comments", "zero-byte .gz"])
def empty_run(tmp_path, request):
    f = tmp_path / ("e.run.gz" if request.param == "zero-byte .gz" else "e.run")
    f.write_bytes(b"# nothing\n" if request.param == "comments" else b"")
    return f


@pytest.mark.parametrize("cmd", [
    ["eval", QRELS, "{e}", "-m", "AP"], ["pool", QRELS, "{e}", "--depth", "3"],
    ["ties", "{e}"], ["fuse", RUN, "{e}"], ["run", "{e}"],
    ["estimate", "--qrels", QRELS, "--depth", "5", RUN, "{e}"],
])
def test_empty_runs_refused_by_every_command(empty_run, capsys, cmd):
    args = [str(empty_run) if a == "{e}" else a for a in cmd]
    code, out, err = cli(args, capsys)
    assert code == 2 and out == ""
    assert f"{empty_run.name}: no result lines (" in err and "--allow-empty-runs" in err
    code, out, err = cli(args + ["--allow-empty-runs"], capsys)
    assert code == 0, err


def test_empty_run_api(empty_run):
    import tiebreak
    from tiebreak.runs import fuse

    with pytest.raises(InputError, match="no result lines"):
        tiebreak.evaluate(QRELS, [str(empty_run)], ["AP"], ["trec_eval"])
    res = tiebreak.evaluate(QRELS, [str(empty_run)], ["AP"], ["trec_eval"], allow_empty=True)
    assert res.value(res.runs[0], "AP", "trec_eval") == 0.0
    with pytest.raises(InputError, match="no result lines"):
        fuse([RUN, str(empty_run)], "rrf")
    assert len(fuse([RUN, str(empty_run)], "rrf", allow_empty=True)) == len(read_run(RUN))


# ------------------------------------------------------------------ run tools
@pytest.mark.parametrize("args, needle", [
    (["--topics", ""], "--topics '' lists no topic"),
    (["--topics-file", "/dev/null"], "--topics-file /dev/null lists no topic"),
    (["--topics", "999"], "--topics: topic(s) not in run ymt-fig1: 999"),
    (["--drop-topics", "999"], "--drop-topics: topic(s) not in run ymt-fig1: 999"),
])
def test_run_topic_filters_refuse_what_selects_nothing(capsys, args, needle):
    code, out, err = cli(["run", RUN, *args], capsys)
    assert code == 2 and needle in err and out == ""


# ------------------------------------------------------------------ studies and tests
@pytest.fixture
def three_runs(tmp_path):
    """Qrels of 8 topics (d0-d3 relevant of d0-d9) and runs ranking them best first, worst
    first, and in two seeded shuffles."""
    import random

    rng = random.Random(3)
    q = tmp_path / "q.txt"
    q.write_text("".join(f"{t} 0 d{d} {int(d < 4)}\n" for t in range(1, 9) for d in range(10)))
    out = []
    for name in ("best", "worst", "mid", "mid2"):
        lines = []
        for t in range(1, 9):
            docs = [f"d{d}" for d in range(10)]
            if name == "worst":
                docs.reverse()
            elif name.startswith("mid"):
                rng.shuffle(docs)
            lines += [f"{t} Q0 {d} {i + 1} {10 - i} {name}\n" for i, d in enumerate(docs)]
        f = tmp_path / f"{name}.txt"
        f.write_text("".join(lines))
        out.append(f)
    return q, out


def test_study_power_degenerate_inputs_answered_with_a_sentence(three_runs, capsys):
    q, (best, worst, mid, mid2) = three_runs
    code, out, err = cli(["study", "power", q, best, "--min-diff", "0.05"], capsys)
    assert code == 2 and "needs two or more runs and two or more topics (got 1 run, 8 topics)" \
        in err
    code, out, err = cli(["study", "power", q, best, best, "--min-diff", "0.05"], capsys)
    assert code == 2 and "AP under trec_eval: the runs differ by the same amount on every topic" \
        in err and "identical runs?" in err
    code, out, err = cli(["study", "power", q, best, "--min-diff", "nan"], capsys)
    assert code == 2 and "--min-diff must be a finite number, got nan" in err
    code, out, err = cli(["study", "power", q, best, "--min-diff", "0"], capsys)
    assert code == 2 and "--min-diff must be in (0, inf), got 0" in err
    code, out, err = cli(["study", "power", q, best, mid, mid2, "--min-diff", "1e308",
                          "--format", "tsv"], capsys)
    assert code == 0, err
    rows = [ln.split("\t") for ln in out.splitlines()[1:]]
    assert {(r[7], r[8]) for r in rows} == {("2", "1.0000")}   # never nan
    code, out, err = cli(["study", "power", q, best, mid, mid2, "--min-diff", "0.05",
                          "--format", "tsv"], capsys)
    assert code == 0 and {ln.split("\t")[7] for ln in out.splitlines()[1:]} == {"136"}


@pytest.mark.parametrize("args, needle", [
    (["--size", "0"], "'--size': 0 is not in the range x>=1"),
    (["--size", "-3"], "'--size': -3 is not in the range x>=1"),
    (["--fuzziness", "nan"], "--fuzziness must be a finite number, got nan"),
    (["--fuzziness", "-0.1"], "--fuzziness must be in [0, inf)"),
])
def test_study_error_rate_arguments(three_runs, capsys, args, needle):
    q, runs = three_runs
    code, out, err = cli(["study", "error-rate", q, *runs, *args], capsys)
    assert code == 2 and needle in err and out == ""


def test_randomised_tukey_p_never_zero(three_runs, capsys):
    q, (best, worst, mid, _) = three_runs
    code, out, err = cli(["compare", q, best, worst, mid, "--test", "randomised-tukey",
                          "--resamples", "200", "-m", "AP", "--format", "json"], capsys)
    assert code == 0, err
    p = {c["system"]: c["p"] for c in json.loads(out)["comparisons"]}
    assert p["worst"] == 1 / 201           # no resampled range as wide: (0 + 1) / (200 + 1)
    assert all(v >= 1 / 201 for v in p.values())


# ------------------------------------------------------------------ older surfaces
def test_empty_regime_refused(small, capsys):
    q, r = small
    for reg in ("", ","):
        code, out, err = cli(["eval", q, r, "--regime", reg], capsys)
        assert code == 2 and f"regime {reg!r} names no regime" in err and out == ""


def test_negative_gains_refused(small, capsys):
    q, r = small
    code, out, err = cli(["eval", q, r, "-m", "nDCG(gains={1:-1})"], capsys)
    assert code == 2 and "gains must map grades to finite gains >= 0, got 1: -1.0" in err
    code, out, err = cli(["eval", q, r, "-m", "nDCG(gains={1:3})", "--regime", "trec_eval"],
                         capsys)
    assert code == 0 and "1.0000" in out


def test_exp_gain_overflow_reported(tmp_path, small, capsys):
    _, r = small
    q = tmp_path / "q2000.txt"
    q.write_text("1 0 d1 2000\n1 0 d2 0\n")
    code, out, err = cli(["eval", q, r, "-m", "DCG(dcg='exp-log2')"], capsys)
    assert code == 2 and "exp-log2 gains 2^grade overflow for grade 2000" in err


def test_sampling_note_once_over_chunks(tmp_path, capsys):
    q = tmp_path / "q.txt"
    q.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n2 0 d3 1\n3 0 d2 1\n")
    r = tmp_path / "r.txt"
    r.write_text("1 Q0 d1 1 1.0 r\n1 Q0 d2 2 1.0 r\n2 Q0 d1 1 1.0 r\n2 Q0 d3 2 1.0 r\n"
                 "3 Q0 d2 1 2.0 r\n3 Q0 d1 2 2.0 r\n")
    code, out, err = cli(["eval", q, r, "-m", "infAP", "--regime", "expected",
                          "--chunk-topics", "1"], capsys)
    assert code == 0
    notes = [ln for ln in err.splitlines() if "estimated from 1000 seeded" in ln]
    assert len(notes) == 1 and notes[0].endswith("largest standard error 0.0079")


def test_directory_entries_left_out_are_named(tmp_path, small, capsys):
    q, r = small
    d = tmp_path / "runs"
    d.mkdir()
    (d / "a.run").write_text(r.read_text())
    (d / "b.run").symlink_to(tmp_path / "nonexistent")
    (d / "sub").mkdir()
    (d / ".hidden.run").write_text(r.read_text())
    for cmd in (["eval", q, d, "-m", "AP"], ["ties", d], ["pool", q, d, "--depth", "2"]):
        code, out, err = cli(cmd, capsys)
        assert code == 0, err
        assert f"skipped {d}/b.run: " in err and "a broken symbolic link" in err
        assert f"skipped {d}/sub: " in err and "a directory: directories are not searched" in err
        assert f"skipped {d}/.hidden.run: " in err and "hidden" in err


def test_float32_overflow_reported(small, capsys, tmp_path):
    """Scores beyond float32's range become infinite and tied under --score-precision float32:
    counted in a warning (as every score format reports its overflows), no numpy
    RuntimeWarning."""
    q, _ = small
    r = tmp_path / "r40.txt"
    r.write_text("1 Q0 d1 1 1e40 r\n1 Q0 d2 2 1e39 r\n1 Q0 d3 3 1.0 r\n")
    code, out, err = cli(["eval", q, r, "-m", "AP", "--score-precision", "float32"], capsys)
    assert code == 0 and "RuntimeWarning" not in err
    assert "scores beyond the score format's range (now ±inf, or the end codes of int8): 2" in err
    code, out, err = cli(["eval", q, r, "-m", "AP"], capsys)
    assert code == 0 and "beyond the score format" not in err


def test_bounds_reports_progress_per_cell():
    from tiebreak.ranking.bands import bounds_table

    ticks = []
    t = bounds_table(["2.0", "1.1"], ["RR", "RBP(p=0.5)"], 50, progress=lambda: ticks.append(1))
    assert len(ticks) == 4
    assert t.values.shape == (2, 2) and round(float(t.values[0, 0]), 4) == 0.0833
