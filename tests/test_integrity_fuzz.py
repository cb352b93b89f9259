"""Fuzzing the surfaces of issue 41 (hypothesis): JSON and Parquet readers, ``fuse``, ``run``
(:func:`tiebreak.runs.edit.edit_run`) and model parameters.

The contract on every generated input: either a result whose scores are all finite, or an
:class:`~tiebreak.io.InputError` / ValueError with a message naming the input (the file for
JSON and Parquet); never another exception, never a non-finite score. The JSON reader gives the
same run or the same error with the C extension on and off (``TIEBREAK_NO_EXT``).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tiebreak.io import InputError

FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])

NUMBERS = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**30, 10**30),
                    st.sampled_from([0.0, -0.0, 1e308, -1e308, 5e-324, 1e300, -1e300]))
IDS = st.one_of(st.sampled_from(["1", "2", "d1", "d2", "d 3", "", "#1", "\x00", "é"]),
                st.text(max_size=4))
LEAF = st.one_of(NUMBERS, st.booleans(), st.none(), st.text(max_size=3))
JSONISH = st.recursive(LEAF, lambda c: st.one_of(st.lists(c, max_size=3),
                                                  st.dictionaries(IDS, c, max_size=3)),
                       max_leaves=12)
RUNLIKE = st.dictionaries(IDS, st.dictionaries(IDS, st.one_of(NUMBERS, LEAF), max_size=4),
                          max_size=3)


def _snapshot(r) -> tuple:
    return (r.topics, r.topic.tolist(), [r.docno(i) for i in range(len(r))],
            r.score.tobytes(), dict(r.warnings))


def _read_json(path):
    from tiebreak.io.tables import read_run_table

    try:
        r = read_run_table(path)
    except InputError as e:
        assert str(e).startswith(str(path)), str(e)
        return "err", str(e)
    assert np.isfinite(r.score).all()
    return "ok", _snapshot(r)


def _encode(obj) -> bytes:
    return json.dumps(obj, allow_nan=True).encode("utf-8", "surrogatepass")


@FUZZ
@given(st.one_of(JSONISH, RUNLIKE), st.sampled_from(["utf-8", "utf-8-sig", "utf-16",
                                                      "utf-32"]))
def test_json_runs_give_a_run_or_an_error_naming_the_file(tmp_path, obj, enc):
    f = tmp_path / "r.json"
    text = json.dumps(obj, allow_nan=True)
    try:
        f.write_bytes(text.encode(enc))
    except UnicodeEncodeError:  # a lone surrogate: no encoding holds it
        return
    _read_json(f)


@FUZZ
@given(RUNLIKE, st.binary(max_size=3), st.integers(0, 200))
def test_mutated_json_and_the_c_extension_on_and_off(tmp_path, monkeypatch, obj, junk, at):
    data = _encode(obj)
    at = min(at, len(data))
    data = data[:at] + junk + data[at:]
    f = tmp_path / "m.json"
    f.write_bytes(data)
    monkeypatch.delenv("TIEBREAK_NO_EXT", raising=False)
    on = _read_json(f)
    monkeypatch.setenv("TIEBREAK_NO_EXT", "1")
    off = _read_json(f)
    monkeypatch.delenv("TIEBREAK_NO_EXT")
    assert on == off


COLUMN = st.one_of(
    st.lists(st.one_of(st.none(), IDS), min_size=3, max_size=3),
    st.lists(st.one_of(st.none(), st.integers(-5, 5)), min_size=3, max_size=3),
)


@FUZZ
@given(q=COLUMN, d=COLUMN,
       v=st.one_of(st.lists(st.one_of(st.none(), NUMBERS.filter(lambda x: isinstance(x, float))),
                            min_size=3, max_size=3),
                   st.lists(st.booleans(), min_size=3, max_size=3),
                   st.lists(st.one_of(st.none(), st.integers(-3, 3)), min_size=3, max_size=3)),
       group=st.integers(1, 3))
def test_parquet_runs_and_qrels_give_a_result_or_an_error_naming_the_file(tmp_path, q, d, v,
                                                                          group):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from tiebreak.io.tables import read_qrels_table, read_run_table

    for col, read in (("score", read_run_table), ("rel", read_qrels_table)):
        f = tmp_path / f"{col}.parquet"
        try:
            t = pa.table({"q_id": q, "doc_id": d, col: v})
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return
        pq.write_table(t, f, row_group_size=group)
        try:
            got = read(f)
        except InputError as e:
            assert str(e).startswith(str(f)), str(e)
            continue
        if col == "score":
            assert np.isfinite(got.score).all()


def _runs(draw_scores):
    return [{t: {f"d{i}": s for i, s in enumerate(ss)} for t, ss in zip(("1", "2"), pair)}
            for pair in draw_scores]


SCORES = st.lists(st.lists(st.lists(st.floats(-1e308, 1e308), min_size=1, max_size=4),
                           min_size=2, max_size=2), min_size=2, max_size=3)


@FUZZ
@given(SCORES, st.sampled_from(["sum", "mnz", "anz", "max", "min", "med", "wsum", "rrf", "isr",
                                "log_isr", "bordafuse", "condorcet"]),
       st.sampled_from(["min-max", "zmuv", "max", "sum", "rank", "borda", "none"]),
       st.lists(NUMBERS, min_size=3, max_size=3), NUMBERS)
def test_fuse_never_writes_a_non_finite_score(scores, method, norm, weights, k):
    from tiebreak.runs import fuse

    runs = _runs(scores)
    w = [float(x) for x in weights[:len(runs)]] if method == "wsum" else None
    try:
        out = fuse(runs, method, norm, weights=w, k=float(k))
    except (ValueError, InputError) as e:
        assert "Traceback" not in str(e) and str(e)
        return
    assert np.isfinite(out.score).all()
    assert math.isfinite(float(k)) and float(k) > -1


@FUZZ
@given(st.lists(st.floats(-1e308, 1e308), min_size=1, max_size=6),
       st.sampled_from(["min-max", "zmuv", "max", "sum", "rank", "none"]),
       st.integers(-900, 900))
def test_run_normalisations_finite_and_scale_free(scores, norm, e):
    from tiebreak.io.frames import run_from_dict
    from tiebreak.runs.edit import edit_run
    from tiebreak.runs.fusion import normalise_scores

    run = run_from_dict({"1": {f"d{i}": s for i, s in enumerate(scores)}})
    try:
        out = edit_run(run, norm=norm)
    except InputError as err:  # max / sum: a score over a tiny maximum exceeds float64
        assert norm in ("max", "sum") and "is not a finite number" in str(err)
        return
    assert np.isfinite(out.score).all()
    if norm in ("zmuv", "min-max"):  # scale-free: a power of two changes nothing, exactly
        s = np.sort(np.asarray(scores))[::-1]
        with np.errstate(over="ignore", under="ignore"):
            scaled = np.ldexp(s, e)
        span = s.max() - s.min()
        if np.array_equal(np.ldexp(scaled, -e), s) and (span == 0 or (
                span > 1e-9 and np.ldexp(span, e) > 1e-9)):
            t = np.zeros(len(s), np.int64)
            assert np.array_equal(normalise_scores(s, t, norm),
                                  normalise_scores(scaled, t, norm))


@pytest.fixture(scope="module")
def small_index(tmp_path_factory):
    from tiebreak.index import build_index, open_index

    d = tmp_path_factory.mktemp("fuzzidx")
    docs = [("d1", "the quick brown fox jumps over the lazy dog"),
            ("d2", "quick dogs outrun foxes and brown bears"),
            ("d3", "nothing in common except a fox"), ("d4", "lazy afternoon, lazy dog")]
    (d / "c.jsonl").write_text("".join(json.dumps({"docno": a, "text": b}) + "\n"
                                       for a, b in docs))
    build_index(d / "c.jsonl", d / "idx", progress=False)
    return open_index(d / "idx")


@FUZZ
@given(st.sampled_from(["bm25", "ql", "mindist", "sdm", "bm25tp"]),
       st.dictionaries(st.sampled_from(["k1", "b", "mu", "alpha", "lam", "weights"]),
                       st.one_of(NUMBERS, st.lists(NUMBERS, max_size=4)), max_size=2))
def test_model_parameters_accepted_give_finite_scores(small_index, model, params):
    from tiebreak.retrieval.search import check_params, search

    try:
        check_params(model, params)
    except ValueError as e:
        assert str(e)
        return
    try:
        res = search(small_index, [("1", "quick fox lazy dog")], model, k=10, **params)
    except ValueError as e:  # a non-finite score is refused, naming the model
        assert f"model {model}" in str(e)
        return
    for r in res:
        assert np.isfinite(r.scores).all()
