"""Integrity of the surfaces added with measured interval thresholds, relevance prediction, run
drop-out, WFDM and the compiled-twin header: a malformed input is a clear error naming the
file and field, documents the index misses are counted and reported, and a request that
cannot be honoured (drop-out of one run, more folds than judged documents) is refused rather
than answered with a number that looks valid.

Fuzzing (hypothesis) covers the two file formats these surfaces read: the manifest's
``interval_thresholds`` entry and the WFDM / WSDM weights file.
"""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tiebreak.cli.app import main
from tiebreak.retrieval import intervals as iv

FUZZ = settings(max_examples=80, deadline=None,
                suppress_health_check=[HealthCheck.too_slow,
                                       HealthCheck.function_scoped_fixture])
NUMBERS = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**30, 10**30),
                    st.sampled_from([0, 1, 2, 7, 0.0, 0.15, 1.0, -0.0, 1e308, 10**400]))
LEAF = st.one_of(NUMBERS, st.booleans(), st.none(), st.text(max_size=3),
                 st.sampled_from(["thesis", "measured", "wsdm", "wfdm"]))
JSONISH = st.recursive(LEAF, lambda c: st.one_of(st.lists(c, max_size=4),
                                                  st.dictionaries(st.text(max_size=3), c,
                                                                  max_size=3)),
                       max_leaves=10)
TH_FIELDS = ("alpha_single", "alpha_all", "k_all", "source", "details", "alpha_singel")


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


# ------------------------------------------------------------- the interval_thresholds entry


@pytest.mark.parametrize("entry, field", [
    ({}, "alpha_single"),
    ({"alpha_single": 0.2}, "alpha_all"),
    ({"alpha_single": 0.2, "alpha_all": 0.2}, "k_all"),
    ({"alpha_single": 0.2, "alpha_all": 0.2, "k_all": 5, "alpha_singel": 0.9}, "alpha_singel"),
    ({"alpha_single": 0.2, "alpha_all": 0.2, "k_all": 5, "source": "bogus"}, "source"),
    ({"alpha_single": float("nan"), "alpha_all": 0.2, "k_all": 5}, "alpha_single"),
    ({"alpha_single": 0.2, "alpha_all": -0.1, "k_all": 5}, "alpha_all"),
    ({"alpha_single": 0.2, "alpha_all": 0.2, "k_all": 5.0}, "k_all"),
    (None, "expected an object"),
])
def test_malformed_threshold_entry_is_an_error_naming_the_field(tmp_path, entry, field):
    """Before: a missing field read as null ('never'), an unknown field (a typo) and any
    source string were accepted, and a null entry fell back to the thesis's constants."""
    from tiebreak.index import build_index, open_index
    from tiebreak.index.build import set_manifest_entry
    from tiebreak.index.manifest import IndexFormatError

    src = tmp_path / "docs.jsonl"
    src.write_text('{"docno": "a", "text": "x y z x"}\n{"docno": "b", "text": "y z"}\n')
    build_index(src, tmp_path / "idx")
    set_manifest_entry(tmp_path / "idx", iv.MANIFEST_KEY, entry)
    with pytest.raises(IndexFormatError, match=f"manifest.json: {iv.MANIFEST_KEY}.*{field}"):
        iv.index_thresholds(open_index(tmp_path / "idx"))
    r = _run("index", "--verify", tmp_path / "idx")        # --verify reads the entry too
    assert r.exit_code == 2 and "tiebreak: error:" in r.output and field in r.output, r.output
    assert "Traceback" not in r.output


def test_no_entry_is_the_thesis_and_a_valid_one_round_trips():
    assert iv.index_thresholds(type("X", (), {"manifest": {}})()) is iv.THESIS_THRESHOLDS
    ok = {"alpha_single": None, "alpha_all": 0.3, "k_all": 4}
    assert iv.IntervalThresholds.from_json(ok) == iv.IntervalThresholds(None, 0.3, 4,
                                                                          "measured")


@FUZZ
@given(st.one_of(JSONISH, st.dictionaries(st.sampled_from(TH_FIELDS), LEAF, max_size=6)))
def test_fuzz_threshold_entry(entry):
    """Every entry gives thresholds within their ranges (and that survive a round trip) or a
    ValueError naming the entry; never another exception."""
    try:
        th = iv.IntervalThresholds.from_json(entry)
    except ValueError as e:
        assert str(e).startswith(iv.MANIFEST_KEY), str(e)
        return
    assert set(entry) >= {"alpha_single", "alpha_all", "k_all"}
    for a in (th.alpha_single, th.alpha_all):
        assert a is None or (isinstance(a, float) and 0.0 <= a <= 1.0)
    assert th.k_all is None or (type(th.k_all) is int and th.k_all >= 2)
    assert th.source in ("thesis", "measured")
    assert iv.IntervalThresholds.from_json(json.loads(json.dumps(th.to_json()))) == th


def test_calibrate_refuses_a_read_only_index_before_measuring(tmp_path, monkeypatch):
    """Before: a read-only index was measured for half a minute, then the write failed."""
    import os

    from tiebreak.index import build_index
    from tiebreak.retrieval import interval_calibration

    src = tmp_path / "docs.jsonl"
    src.write_text('{"docno": "a", "text": "x y z x"}\n')
    build_index(src, tmp_path / "idx")

    def never(*a, **k):
        raise AssertionError("measured a read-only index")

    monkeypatch.setattr(interval_calibration, "calibrate", never)
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, m, **k: False if m == os.W_OK else real(p, m))
    r = _run("index", "--calibrate-intervals", tmp_path / "idx")
    assert r.exit_code == 2 and "not writable" in r.output and "Traceback" not in r.output
    # a collection file without -o: before, "manifest.json cannot be read: Not a directory"
    r = _run("index", "--calibrate-intervals", src)
    assert r.exit_code == 2 and "add -o INDEX_DIR" in r.output, r.output


# ------------------------------------------------------------------ the WFDM weights file


def _weights_doc():
    return {"model": "wfdm", "mu": 2500.0, "features": ["1", "ln cf", "ln df"],
            "folds": [{"topics": ["1"], "uni": [1.0, 0.0, 0.0], "bi": [0.5, 0.1, 0.0],
                       "train_map": 0.3}],
            "all": {"uni": [1.0, 0.2, 0.0], "bi": [0.4, 0.0, 0.1], "train_map": 0.3}}


def _mutate(doc, path, value):
    d = doc
    for k in path[:-1]:
        d = d[k]
    if value is KeyError:
        del d[path[-1]]
    else:
        d[path[-1]] = value
    return doc


@pytest.mark.parametrize("path, value, which, match", [
    (("all", "uni"), "123", "all", "all.uni"),          # before: read as (1.0, 2.0, 3.0)
    (("all", "uni"), [1, 2], "all", "all.uni"),          # before: a 2-vector, failing later
    (("all", "bi"), [1, 2, 3, 4], "all", "all.bi"),
    (("all", "bi"), [1, float("nan"), 0], "all", "all.bi"),
    (("all", "bi"), [1, True, 0], "all", "all.bi"),
    (("mu",), -1.0, "all", "mu"),                        # before: accepted
    (("mu",), float("inf"), "all", "mu"),
    (("mu",), "2500", "all", "mu"),
    (("model",), "bm25", "all", "model"),
    (("model",), KeyError, "all", "model"),
    (("folds", 0, "uni"), None, 0, r"folds\[0\].uni"),
    (("folds",), [], 0, "no fold 0"),
    (("mu",), 2500.0, -1, "no fold -1"),                 # before: the last fold
    (("mu",), 2500.0, 1, "no fold 1"),
])
def test_malformed_weights_file_names_file_and_field(tmp_path, path, value, which, match):
    from tiebreak.studies.wsdm_learn import load_weights

    p = tmp_path / "w.json"
    p.write_text(json.dumps(_mutate(_weights_doc(), path, value)))
    with pytest.raises(ValueError, match=f"^{p}: .*{match}"):
        load_weights(p, which)


def test_weights_file_truncated_wrong_model_and_valid(tmp_path):
    from tiebreak.studies.wsdm_learn import load_weights

    p = tmp_path / "w.json"
    text = json.dumps(_weights_doc(), indent=1)
    p.write_text(text)
    assert load_weights(p, model="wfdm") == {"uni": (1.0, 0.2, 0.0), "bi": (0.4, 0.0, 0.1),
                                             "mu": 2500.0}
    assert load_weights(p, 0)["bi"] == (0.5, 0.1, 0.0)
    with pytest.raises(ValueError, match=f"^{p}: the weights of wfdm, not of wsdm"):
        load_weights(p, model="wsdm")
    p.write_text(text[: len(text) // 2])
    with pytest.raises(ValueError, match=f"^{p}: not a WFDM weights file \\(line \\d+"):
        load_weights(p, model="wfdm")
    p.write_bytes(b"\xff\xfe{")
    with pytest.raises(ValueError, match=f"^{p}: "):
        load_weights(p)
    with pytest.raises(ValueError, match=f"^{tmp_path / 'none.json'}: "):
        load_weights(tmp_path / "none.json")


@FUZZ
@given(st.lists(st.sampled_from([("all", "uni"), ("all", "bi"), ("mu",), ("model",),
                                 ("all",), ("folds",), ("folds", 0, "bi")]),
                min_size=1, max_size=3), st.lists(JSONISH, min_size=3, max_size=3),
       st.sampled_from(["all", 0, 1]))
def test_fuzz_weights_file(tmp_path, paths, values, which):
    """Every file gives 3 finite weights each and a finite mu > 0, or a ValueError naming the
    file."""
    from tiebreak.studies.wsdm_learn import load_weights

    doc = _weights_doc()
    for path, v in zip(paths, values):
        try:
            _mutate(doc, path, v)
        except (KeyError, IndexError, TypeError):
            pass
    p = tmp_path / "w.json"
    p.write_text(json.dumps(doc))
    try:
        w = load_weights(p, which)
    except ValueError as e:
        assert str(e).startswith(f"{p}: "), str(e)
        return
    assert len(w["uni"]) == 3 and len(w["bi"]) == 3
    assert all(type(x) is float and math.isfinite(x) for x in (*w["uni"], *w["bi"]))
    assert math.isfinite(w["mu"]) and w["mu"] > 0


# ------------------------------------------------------ prediction, drop-out: CLI mismatches


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """Two topics, ten documents each retrieved by three runs, four relevant; the full index
    and one that misses d7-d9 of topic 1 and all of topic 2's documents."""
    from tiebreak.index import build_index

    tmp = tmp_path_factory.mktemp("pred")
    words = ["apple", "berry", "cherry", "date", "elder", "fig", "grape"]
    docs, qrels = [], []
    for t in (1, 2):
        for i in range(10):
            d = f"t{t}d{i}"
            rel = i % 3 == 0
            docs.append({"docno": d, "text": " ".join(words[(i + j) % 7] for j in range(4))
                         + (" relevant" if rel else "")})
            qrels.append(f"{t} 0 {d} {int(rel)}")
    (tmp / "all.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (tmp / "part.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs[:7]))
    build_index(tmp / "all.jsonl", tmp / "idx")
    build_index(tmp / "part.jsonl", tmp / "part")
    (tmp / "qrels").write_text("\n".join(qrels) + "\n")
    runs = []
    for r, shift in (("a", 0), ("b", 3), ("c", 6)):
        lines = [f"{t} Q0 t{t}d{(i + shift) % 10} {i + 1} {10 - i} {r}"
                 for t in (1, 2) for i in range(10)]
        (tmp / f"{r}.run").write_text("\n".join(lines) + "\n")
        runs.append(tmp / f"{r}.run")
    return tmp, runs


def test_predict_reports_documents_missing_from_the_index(judged):
    """Before: documents the index misses got empty text features silently."""
    tmp, runs = judged
    full = _run("study", "predict", "--index", tmp / "idx", "--folds", "2", "--predictors",
                "content", tmp / "qrels", *runs)
    assert full.exit_code == 0, full.output
    assert "warning" not in full.stderr
    r = _run("study", "predict", "--index", tmp / "part", "--folds", "2", "--predictors",
             "content", tmp / "qrels", *runs)
    assert r.exit_code == 0, r.output
    assert "tiebreak: warning: 13 of the 20 documents" in r.stderr and "t1d7" in r.stderr
    e = _run("estimate", "--baselines", "content", "--index", tmp / "part", tmp / "qrels",
             *runs)
    assert e.exit_code == 0, e.output
    assert "tiebreak: warning: 13 of the 20 documents" in e.stderr
    s = _run("study", "estimate", "--index", tmp / "part", "--pool-depth", "3",
             "--reference-depth", "10", "--models", "const", "--loss", "a", "-j", "1",
             "--format", "json", tmp / "qrels", *runs)
    assert s.exit_code == 0, s.output
    assert "warning: 13 of the 20 documents" in s.stderr


def test_predict_index_that_is_not_a_single_index(judged, tmp_path):
    tmp, runs = judged
    from tiebreak.index.shards import build_sharded_index

    build_sharded_index(tmp / "all.jsonl", tmp_path / "sh", 2)
    for cmd in (["study", "predict", "--folds", "2"], ["estimate", "--baselines", "content"],
                ["study", "estimate", "--pool-depth", "3"]):
        r = _run(*cmd, "--index", tmp_path / "sh", tmp / "qrels", *runs)
        # before: "manifest.json is not a tiebreak-index manifest"
        assert r.exit_code == 2 and "a sharded index" in r.output, r.output
        r = _run(*cmd, "--index", tmp_path, tmp / "qrels", *runs)
        assert r.exit_code == 2 and "not a tiebreak index" in r.output, r.output


def test_predict_more_folds_than_judged_documents(judged):
    """Before: exit 0 and a pandas 'Empty DataFrame' (table) or an empty summary (json)."""
    tmp, runs = judged
    ok = _run("study", "predict", "--predictors", "rank", "--folds", "4", tmp / "qrels", *runs)
    assert ok.exit_code == 0 and "rank" in ok.stdout, ok.output
    for fmt in ("table", "json"):
        r = _run("study", "predict", "--predictors", "rank", "--folds", "5", "--format", fmt,
                 tmp / "qrels", *runs)
        assert r.exit_code == 2 and "lower --folds" in r.output, r.output
        assert "Empty DataFrame" not in r.output
    r = _run("study", "predict", "--predictors", "rank", "--folds", "2", "--pool-depth", "1",
             tmp / "qrels", *runs)
    assert r.exit_code == 2 and "deepen --pool-depth" in r.output, r.output
    r = _run("study", "predict", "--predictors", "rank", "--index", tmp / "idx", tmp / "qrels",
             *runs)                          # before: the index was opened and ignored
    assert r.exit_code == 2 and "--index is read by" in r.output, r.output


@pytest.mark.parametrize("plist", ["", ","])
def test_predict_no_predictor(judged, plist):
    """Before: a KeyError traceback ('auc')."""
    tmp, runs = judged
    r = _run("study", "predict", "--predictors", plist, tmp / "qrels", *runs)
    assert r.exit_code == 2 and "--predictors" in r.output, r.output
    from tiebreak.io import read_qrels, read_run
    from tiebreak.studies.predict import run_predict_study

    with pytest.raises(ValueError, match="no predictor"):
        run_predict_study(read_qrels(tmp / "qrels"), [read_run(p) for p in runs],
                          predictors=())


def test_dropout_needs_two_contributing_runs(judged):
    """Before: one run gave an 'L_b|dropout=0.5' column equal to L_b (nothing dropped)."""
    tmp, runs = judged
    r = _run("estimate", "--dropout", "0.5", tmp / "qrels", runs[0])
    assert r.exit_code == 2 and "needs 2 or more" in r.output, r.output
    r = _run("estimate", "--dropout", "0.5", "--contributing", "a", tmp / "qrels", *runs)
    assert r.exit_code == 2 and "needs 2 or more" in r.output, r.output
    r = _run("estimate", "--dropout", "0.5", "--resamples", "2", "--format", "tsv",
             tmp / "qrels", *runs[:2])
    assert r.exit_code == 0, r.output


# ----------------------------------------------------------------------- compiled twins


def test_twins_outside_a_source_checkout(tmp_path, monkeypatch, capsys):
    """Before: --check called a missing header 'stale' and --header wrote into the installed
    package (a traceback when it is read-only)."""
    from tiebreak.measures import twins

    monkeypatch.setattr(twins, "HEADER", str(tmp_path / "_ev_specs.h"))
    for arg in ("--check", "--header"):
        assert twins.main([arg]) == 2
        err = capsys.readouterr().err
        assert "source checkout" in err and str(tmp_path) in err
    assert not (tmp_path / "_ev_specs.h").exists()
    (tmp_path / "_ext_eval.c").write_text("")
    (tmp_path / "_ev_specs.h").mkdir()                 # cannot be written
    assert twins.main(["--header"]) == 2
    assert "_ev_specs.h" in capsys.readouterr().err


@pytest.mark.parametrize("extra", [["--dropout", "0.5", "--resamples", "3"],
                                   ["--baselines", "content,hybrid"]])
def test_estimate_dropout_and_content_json(judged, extra):
    """The --format json of the new estimate options parses, with finite estimates within
    [0, 1] (tests/test_json_outputs.py runs estimate without them)."""
    tmp, runs = judged
    est = extra[1].split(",")[-1] if extra[0] == "--baselines" else "L_b|dropout=0.5"
    r = _run("estimate", *extra, "--index", tmp / "idx", "--estimator", est, "--format", "json",
             tmp / "qrels", *runs)
    if extra[0] == "--dropout":     # before: --index without a text baseline was ignored
        assert r.exit_code == 2 and "--index is read by" in r.output, r.output
        r = _run("estimate", *extra, "--estimator", est, "--format", "json", tmp / "qrels",
                 *runs)
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert len(rows) == 6 and {x["run"] for x in rows} == {"a", "b", "c"}
    assert all(0.0 <= x["estimate"] <= 1.0 for x in rows)


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_wfdm_huge_weights_one_clear_error_no_numpy_warning(judged):
    """Before: numpy's RuntimeWarning (overflow in the concept weights, with the source line)
    reached the user ahead of the error."""
    tmp, _ = judged
    (tmp / "q.tsv").write_text("1\tapple berry cherry\n")
    r = _run("search", tmp / "idx", "--topics", tmp / "q.tsv", "--model", "wfdm", "-p",
             "uni=1e308,1e308,1e308", "-p", "bi=1e308,1e308,1e308")
    assert r.exit_code == 2 and "non-finite score" in r.stderr, r.output
    assert "RuntimeWarning" not in r.stderr and r.stderr.count("\n") == 1, r.stderr
