"""Input integrity III (issue 41): the surfaces added since the readers were hardened fail as
clearly as ``eval`` does: parameter ranges declared once (fusion, models), no non-finite score
written, sampled-judgment measures under the default regimes, JSON and Parquet inputs, compat
errors, empty runs, studies' arguments."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tiebreak.cli import main
from tiebreak.io import InputError, read_run

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
    (["-k", "-1"], "k must be in (-1, inf) (k + rank must stay above 0 at every rank >= 1)"),
    (["-k", "nan"], "k must be a finite number, got nan"),
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
