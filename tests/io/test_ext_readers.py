"""The C extension ``tiebreak._native._ext`` against its fallbacks (issue 29, start-up).

Two paths read runs and qrels and order their lines: the C kernels (when the extension is built)
and the strict reader / numpy code (the definition; ``TIEBREAK_NO_EXT=1``). On real TREC-COVID runs
and on generated irregular runs (tabs, runs of blanks, CRLF, exponents, ``-0``, ``nan``, huge
ranks, missing and extra fields) they give bit-identical arrays or the identical ``file:line:``
error; ``tiebreak eval`` prints the same bytes with and without the extension.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tiebreak as tb
import tiebreak.io.qrels as qrels_mod
import tiebreak.io.runs as runs_mod
from tiebreak.io import InputError

ext = pytest.importorskip("tiebreak._native._ext", reason="the C extension is not built "
                          "(python setup.py build_ext --inplace)")


FUZZ = settings(max_examples=80, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])


def _run_snapshot(r) -> dict:
    arrays = {k: (v.dtype.str, v.shape, v.tobytes()) for k, v in vars(r).items()
              if isinstance(v, np.ndarray) and k != "docnos"}
    return {**arrays, "docnos": r.docnos.tolist(), "docnos_dtype": r.docnos.dtype.str,
            "name": r.name, "topics": r.topics, "tags": r.tags, "warnings": dict(r.warnings),
            "lines": r.line_counts.as_dict()}


def _qrels_snapshot(q) -> dict:
    arrays = {k: (v.dtype.str, v.shape, v.tobytes()) for k, v in vars(q).items()
              if isinstance(v, np.ndarray) and k != "docnos"}
    return {**arrays, "docnos": q.docnos.tolist(), "topics": q.topics,
            "warnings": dict(q.warnings), "lines": q.line_counts.as_dict()}


def _outcome(read, data: bytes, snap):
    try:
        return "ok", snap(read(io.BytesIO(data)))
    except InputError as e:
        return "err", str(e)


def _paths(monkeypatch, mod, read, data: bytes, snap) -> dict[str, tuple]:
    """The outcome of each path on ``data``: C, strict."""
    out = {}
    monkeypatch.setattr(mod, "_FAST_MIN_BYTES", 0)
    monkeypatch.delenv("TIEBREAK_NO_EXT", raising=False)
    out["c"] = _outcome(read, data, snap)
    monkeypatch.setenv("TIEBREAK_NO_EXT", "1")
    monkeypatch.setattr(mod, "_FAST_MIN_BYTES", 1 << 62)
    out["strict"] = _outcome(read, data, snap)
    monkeypatch.delenv("TIEBREAK_NO_EXT")
    return out


def _same(outs: dict[str, tuple]) -> tuple:
    first = outs["c"]
    for name, o in outs.items():
        assert o == first, f"the C path and the {name} path disagree"
    return first


def test_the_compiled_table_is_the_python_one():
    from tiebreak.io._pow5 import header, powers_of_five

    table = np.frombuffer(ext.pow5_table(), np.uint64).reshape(-1, 2)
    assert table.tolist() == powers_of_five().tolist()
    src = Path(tb.__file__).with_name("_pow5.h")
    if src.exists():
        assert src.read_text() == header()


@pytest.fixture(scope="module")
def covid(shared_data) -> Path:
    return shared_data / "trec_covid" / "round1"


RUNS = ["10x10.prf.unipd.it.gz", "BBGhelani1.gz", "BRPHJ_NLP2.gz", "CSIROmedNIR.gz",
        "TMACC_SeTA_baseline.gz", "ir_covid19_cle_lmd.gz", "xj4wang_run1.gz"]


@pytest.mark.parametrize("name", RUNS)
def test_real_runs_read_bit_identically(covid, name, monkeypatch):
    p = covid / "runs" / name
    if not p.exists():
        pytest.skip(f"{p} not found")
    data = gzip.decompress(p.read_bytes())
    assert ext.read_run6(data, data.count(b"\n")) is not None  # the C reader accepts it
    kind, snap = _same(_paths(monkeypatch, runs_mod, tb.read_run, data, _run_snapshot))
    assert kind == "ok" and len(snap["topics"]) > 0


def test_real_qrels_read_bit_identically(covid, monkeypatch):
    data = (covid / "qrels-rnd1.txt").read_bytes()
    assert ext.read_fields4(data, data.count(b"\n"), False) is not None
    kind, _ = _same(_paths(monkeypatch, qrels_mod, tb.read_qrels, data, _qrels_snapshot))
    assert kind == "ok"


# --------------------------------------------------------------------------------------------
# generated irregular runs
# --------------------------------------------------------------------------------------------

SCORES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: f"{x:e}"),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: f"{x:.17E}"),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: f"{x:.25g}"),
    st.floats(1e-320, 1e-300).map(repr),  # subnormal and near-subnormal results
    st.integers(-(10**30), 10**30).map(str),
    st.sampled_from(["-0", "+0", "0.0", "-0.0e-5", ".5", "5.", "nan", "inf", "-Infinity",
                     "1e400", "1_0", "0x1p3", "1e", "1.5f", "+", "-", "1.2.3", "--1",
                     "0.30000000000000004", "9007199254740993", "2.2250738585072011e-308",
                     "1.7976931348623159e308", "4.9e-324", "00000000000000000000001.5"]),
)
RANKS = st.one_of(st.integers(1, 1000).map(str),
                  st.sampled_from(["0", "-0", "+7", "99999999999999999999999", "1e3", "2.5",
                                   "x", "nan", "18446744073709551616"]))
SEPS = st.sampled_from([" ", "\t", "  ", " \t ", "\t\t", "\x0b", "\x0c"])


@st.composite
def irregular_run(draw) -> bytes:
    n = draw(st.integers(1, 40))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    lines = []
    for i in range(n):
        fields = [draw(st.sampled_from(["1", "2", "301", "q-7"])), "Q0",
                  draw(st.sampled_from([f"d{i}", f"doc-{i:05d}", f"CORD{i}x", f"\u00e9{i}"])),
                  draw(RANKS), draw(SCORES), draw(st.sampled_from(["tagA", "tagB"]))]
        kind = draw(st.sampled_from(["ok"] * 6 + ["drop", "drop_tag", "extra", "blank",
                                                  "comment", "lead"]))
        if kind == "drop":
            del fields[draw(st.integers(0, 4))]
        elif kind == "drop_tag":
            fields.pop()
        elif kind == "extra":
            fields.append("extra")
        sep = draw(SEPS)
        line = sep.join(fields)
        if kind == "blank":
            line = draw(st.sampled_from(["", " ", "\t"]))
        elif kind == "comment":
            line = "# " + line
        elif kind == "lead":
            line = sep + line + sep
        lines.append(line)
    text = eol.join(lines) + (eol if draw(st.booleans()) else "")
    return text.encode("utf-8")


@pytest.mark.slow
@FUZZ
@given(irregular_run())
def test_irregular_runs_same_result_or_same_error(monkeypatch, data):
    kind, v = _same(_paths(monkeypatch, runs_mod, tb.read_run, data, _run_snapshot))
    if kind == "err":
        assert v.startswith("<stream>:")


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(["1", "2", "x-3"]), st.sampled_from(["0", "s1"]),
                          st.sampled_from(["d1", "d2", "d3", "D-4"]),
                          st.sampled_from(["0", "1", "-1", "+2", "007", "1_0", "1.0",
                                           "9" * 18, "9" * 19, "-"]),
                          SEPS, st.sampled_from(["ok"] * 5 + ["drop", "extra", "blank"])),
                min_size=1, max_size=30))
def test_irregular_qrels_same_result_or_same_error(monkeypatch, rows):
    lines = []
    for q, it, d, rel, sep, kind in rows:
        f = [q, it, d, rel]
        if kind == "drop":
            f.pop(1)
        elif kind == "extra":
            f.append("x")
        lines.append("" if kind == "blank" else sep.join(f))
    data = ("\n".join(lines) + "\n").encode()
    _same(_paths(monkeypatch, qrels_mod, tb.read_qrels, data, _qrels_snapshot))


@FUZZ
@given(st.lists(st.binary(min_size=1, max_size=12).filter(
    lambda b: not any(c in b for c in b" \t\n\r\x0b\x0c")), min_size=1, max_size=3000))
def test_interning_numbers_strings_in_order_of_first_appearance(tokens):
    """Docnos as the third field: the C table (growing past its first size) numbers them as a
    dict does, and keeps each one's first occurrence."""
    data = b"".join(b"1 Q0 %s 1 1 t\n" % t for t in tokens)
    got = ext.read_run6(data, len(tokens))
    assert got is not None
    did = np.frombuffer(got[1], np.int64)
    spans = np.frombuffer(got[6], np.int64).reshape(-1, 2)
    seen: dict[bytes, int] = {}
    assert did.tolist() == [seen.setdefault(t, len(seen)) for t in tokens]
    assert [data[i:j] for i, j in spans.tolist()] == list(seen)


@settings(max_examples=300, deadline=None)
@given(SCORES)
def test_decimal_tokens_parse_as_python_does(tok):
    status, value, slow, has_exp = ext.parse_decimal_token(tok.encode())
    try:
        want = float(tok) if "_" not in tok else None
    except ValueError:
        want = None
    strtod_syntax = want is not None and not any(c in tok.lower() for c in "nifx")
    assert status == (0 if strtod_syntax else 1)
    if status == 0 and not slow:
        assert np.float64(value).tobytes() == np.float64(want).tobytes()
    if status == 0:
        assert has_exp == ("e" in tok.lower())


# --------------------------------------------------------------------------------------------
# the ranking loops
# --------------------------------------------------------------------------------------------

@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.sampled_from([0.0, -0.0, 1.0, 2.5, 2.5, -3.0,
                                                              7.0, 1e300]),
                          st.sampled_from([1.0, 2.0, 2.0, 3.0, float("nan"), -1.0])),
                min_size=1, max_size=60), st.booleans())
def test_ranking_loops_equal_numpy(rows, sort_topics):
    """Scores are finite (the readers refuse NaN; the loops and numpy would order NaN
    differently); ranks may be NaN (hygiene then declines)."""
    from tiebreak.ranking import _cloops

    if sort_topics:
        rows = sorted(rows, key=lambda r: r[0])
    t = np.array([r[0] for r in rows], np.int64)
    s = np.array([r[1] for r in rows])
    nt = 5
    c = _cloops.score_order(t, s, nt)
    o = np.lexsort((-s, t))  # the numpy definition (orderings.orderings)
    assert c[0].tolist() == o.tolist()
    assert c[4].tolist() == np.bincount(t, minlength=nt).tolist()
    x = np.array([r[1] for r in rows])
    x[np.isnan(x)] = 0.5
    ts = np.sort(t)
    want = np.zeros(len(x))
    for i in range(len(x)):
        want[i] = (want[i - 1] if i and ts[i] == ts[i - 1] else 0.0) + x[i]
    assert _cloops.seg_cumsum(x, ts).tobytes() == want.tobytes()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text("abc\u00e9", max_size=4), max_size=30),
       st.lists(st.text("abc\u00e9", max_size=5), max_size=30))
def test_match_sorted_is_a_search(a, b):
    from tiebreak.ranking import _cloops

    a = np.array(sorted(set(a)) or [""], "U")
    b = np.array(sorted(set(b)) or [""], "U")
    cp = lambda u: np.ascontiguousarray(u).view(np.uint32).reshape(len(u), -1)  # noqa: E731
    got = _cloops.match_sorted(cp(a), cp(b))
    index = {v: i for i, v in enumerate(b.tolist())}
    assert got.tolist() == [index.get(v, -1) for v in a.tolist()]


# --------------------------------------------------------------------------------------------
# the command
# --------------------------------------------------------------------------------------------

def test_eval_output_is_identical_without_the_extension(covid, monkeypatch):
    from click.testing import CliRunner

    from tiebreak.cli import main

    runs = [str(covid / "runs" / n) for n in RUNS if (covid / "runs" / n).exists()]
    args = ["eval", "-j", "1", "-m", "AP", "-m", "nDCG@10", "-m", "P@10", "-m", "RR",
            "-m", "R@1000", "-m", "bpref", str(covid / "qrels-rnd1.txt"), *runs]
    monkeypatch.delenv("TIEBREAK_NO_EXT", raising=False)
    with_c = CliRunner().invoke(main, args)
    monkeypatch.setenv("TIEBREAK_NO_EXT", "1")
    without = CliRunner().invoke(main, args)
    assert with_c.exit_code == 0, with_c.output
    assert with_c.output == without.output
    assert with_c.output.count("\n") > 6 * len(runs)


def test_eval_command_never_imports_numba_with_the_extension(covid):
    """Many runs announce 16 MB or more (the numba fallback would load its kernels then); with
    the extension the command imports neither numba nor the numba kernels."""
    import os
    import subprocess
    import sys

    runs = [str(covid / "runs" / n) for n in RUNS if (covid / "runs" / n).exists()]
    env = {k: v for k, v in os.environ.items() if k != "TIEBREAK_NO_EXT"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(Path(tb.__file__).parents[1]),
                                                    env.get("PYTHONPATH", "")] if p)
    res = subprocess.run([sys.executable, "-X", "importtime", "-m", "tiebreak", "eval", "-j", "1",
                          "-m", "AP", "-m", "nDCG@10", str(covid / "qrels-rnd1.txt"), *runs * 2],
                         capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in res.stderr.splitlines()
                if line.startswith("import time:")}
    assert "tiebreak._native._ext" in imported and "tiebreak.io._cfast" in imported
    assert not {"numba", "llvmlite"} & imported
