"""Measured interval thresholds (tiebreak.retrieval.interval_calibration): the rule of
choose_method with stored thresholds, the manifest entry (stored, read back, absent = the
thesis's constants, malformed = a clear error), the TF-counter early termination of LPS, and
that every method choice gives the same intervals and the same ranking (scores equal to the
last bits: the methods emit intervals in different orders, so a document's float sums may
round differently)."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("numba")

from test_dependency_exact import QUERIES, build  # noqa: E402 - the shared small collection

from tiebreak.retrieval import interval_calibration as ic  # noqa: E402
from tiebreak.retrieval import intervals as iv  # noqa: E402


@pytest.fixture(scope="module")
def idx_path(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cal")
    build(tmp)
    return tmp / "exact_idx"


def test_choose_method_with_thresholds():
    th = iv.IntervalThresholds(0.4, 0.3, 5, "measured")
    assert iv.choose_method(3, 0.39, False, th) == "eps"
    assert iv.choose_method(3, 0.4, False, th) == "lps"
    assert iv.choose_method(3, 0.29, True, th) == "lps_if_all"
    assert iv.choose_method(3, 0.3, True, th) == "eps_cdf_all"
    assert iv.choose_method(5, 0.0, True, th) == "eps_cdf_all"
    never = iv.IntervalThresholds(None, None, None, "measured")
    assert iv.choose_method(20, 1.0, False, never) == "eps"
    assert iv.choose_method(20, 1.0, True, never) == "lps_if_all"
    # the default is the thesis's rule: alpha 0.15, k >= 7
    assert iv.choose_method(6, 0.149, True) == "lps_if_all"
    assert iv.choose_method(7, 0.0, True) == "eps_cdf_all"
    assert iv.THESIS_THRESHOLDS == iv.IntervalThresholds(0.15, 0.15, 7, "thesis")


def test_thresholds_json_round_trip_and_errors():
    th = iv.IntervalThresholds(0.25, None, 6, "measured", {"machine": "x"})
    assert iv.IntervalThresholds.from_json(json.loads(json.dumps(th.to_json()))) == th
    for bad, field in ((1.5, "alpha_single"), ("0.1", "alpha_single"), (True, "alpha_single")):
        with pytest.raises(ValueError, match=field):
            iv.IntervalThresholds.from_json({"alpha_single": bad, "alpha_all": 0.1, "k_all": 7})
    with pytest.raises(ValueError, match="k_all"):
        iv.IntervalThresholds.from_json({"alpha_single": 0.1, "alpha_all": 0.1, "k_all": 1})
    with pytest.raises(ValueError, match="expected an object"):
        iv.IntervalThresholds.from_json([0.1])


def test_crossing():
    a = [0.01, 0.1, 1.0]
    # log ratio = -log10(alpha) - 1 + ... : ratio 10 at 0.01, 1 at 0.1, 0.1 at 1 -> 0.1
    assert ic.crossing(a, [10.0, 1.0, 0.1]) == pytest.approx(0.1)
    assert ic.crossing(a, [0.5, 0.5, 0.5]) == 0.0         # faster everywhere
    assert ic.crossing(a, [2.0, 2.0, 2.0]) is None        # never
    assert ic.crossing(a, [0.1, 1.0, 10.0]) is None       # faster only when sparse: not "from"
    assert ic.crossing([], []) is None
    assert ic.crossing(a, [0.97, 0.97, 0.97]) == 0.0
    assert ic.crossing(a, [0.97, 0.97, 0.97], below=0.95) is None      # not 5 % faster


def _random_doc(rng, k, length, alpha):
    return ic.synthetic_document(k, alpha, length, rng)


def test_lps_tf_counters_identical():
    """LPS with the TF counters of §3.3.2 stops early and gives the intervals of LPS without
    them and of EPS, over the CDF and over a direct file, for every subquery."""
    rng = np.random.default_rng(3)
    for _ in range(60):
        k = int(rng.integers(2, 6))
        pl = _random_doc(rng, k, int(rng.integers(5, 80)), float(rng.choice([0.05, 0.3, 0.9])))
        length = max(int(p[-1]) for p in pl) + 1 + int(rng.integers(0, 30))
        toks = np.full(length, -1, np.int32)
        for j, p in enumerate(pl):
            toks[p] = j
        cdf, df = iv.build_cdf(pl), iv.direct_file_cdf(toks)
        for mask in range(1, 1 << k):
            ref = iv.eps(pl, mask)
            for src in (cdf, df):
                assert np.array_equal(iv.lps(src, mask), ref)
                assert np.array_equal(iv.lps(src, mask, tf_counters=True), ref)
            flat, starts, ends = iv._flatten(pl)
            out_l, out_r = np.empty(len(flat) + 1, np.int32), np.empty(len(flat) + 1, np.int32)
            n = iv.lps_if_kernel(flat, starts, ends, np.int64(mask), out_l, out_r)
            assert np.array_equal(np.stack([out_l[:n], out_r[:n]], 1), ref)


def test_lps_tf_counters_stop_reading():
    """With counters the scan ends once a voided term is spent: entries after that point are
    never read (here a term id that would otherwise open one more interval)."""
    cdf_pos = np.arange(6, dtype=np.int32)
    cdf_term = np.array([0, 1, 0, -1, 1, 0], np.int32)     # a then b then a ... then b, a
    out_l, out_r = np.empty(6, np.int32), np.empty(6, np.int32)
    tf = np.zeros(64, np.int64)
    tf[0], tf[1] = 2, 1             # counts of the first three entries only
    n = iv.lps_tf_kernel(cdf_pos, cdf_term, np.int64(3), tf, out_l, out_r)
    assert n == 2 and out_l[:n].tolist() == [0, 1] and out_r[:n].tolist() == [1, 2]
    n = iv.lps_kernel(cdf_pos, cdf_term, np.int64(3), out_l, out_r)
    assert n == 4 and out_r[:n].tolist() == [1, 2, 4, 5]


def test_every_method_choice_gives_the_same_intervals():
    rng = np.random.default_rng(5)
    thresholds = [iv.THESIS_THRESHOLDS, iv.IntervalThresholds(0.0, 0.0, 2, "measured"),
                  iv.IntervalThresholds(None, None, None, "measured")]
    for _ in range(30):
        k = int(rng.integers(2, 7))
        pl = _random_doc(rng, k, int(rng.integers(10, 120)), float(rng.choice([0.05, 0.5])))
        got_single = [iv.optimal_intervals(pl, (1 << k) - 1, thresholds=t) for t in thresholds]
        got_all = [iv.all_optimal_intervals(pl, thresholds=t).by_subquery() for t in thresholds]
        for g in got_single[1:]:
            assert np.array_equal(g, got_single[0])
        for g in got_all[1:]:
            assert g.keys() == got_all[0].keys()
            assert all(np.array_equal(g[m], got_all[0][m]) for m in g)


def test_index_without_thresholds_falls_back_to_the_thesis(idx_path):
    from tiebreak.index import open_index

    idx = open_index(idx_path)
    assert iv.MANIFEST_KEY not in idx.manifest
    assert iv.index_thresholds(idx) is iv.THESIS_THRESHOLDS
    assert iv.index_thresholds(object()) is iv.THESIS_THRESHOLDS


def _scores(idx):
    from tiebreak.retrieval import dependency as dep
    from tiebreak.retrieval.rerank import rerank

    out = []
    for q in QUERIES:
        terms = idx.analyzer.analyze(q)
        for fn in (lambda t: dep.lkp(idx, t, 50), lambda t: dep.l2p(idx, t, 50),
                   lambda t: dep.sdm(idx, t, 50), lambda t: dep.fdm(idx, t, 50),
                   lambda t: rerank(idx, t, 30, first_k=30, model="lkpf")):
            d, s = fn(terms)
            out.append((d.tolist(), s.tolist()))
    return out


def test_stored_thresholds_change_the_choice_not_the_scores(idx_path, tmp_path):
    import shutil

    from tiebreak.index import open_index
    from tiebreak.index.build import set_manifest_entry
    from tiebreak.index.manifest import IndexFormatError
    from tiebreak.retrieval.dependency.plan import _method_code

    path = tmp_path / "idx"
    shutil.copytree(idx_path, path)
    before = json.loads((path / "manifest.json").read_text())
    ref = _scores(open_index(path))
    terms = [0, 1, 2]
    codes = set()
    for th in (iv.IntervalThresholds(0.0, 0.0, 2, "measured", {"machine": "test"}),
               iv.IntervalThresholds(None, None, None, "measured")):
        ic.store_thresholds(path, th)
        idx = open_index(path, verify="eager")
        assert iv.index_thresholds(idx) == th
        codes.add((_method_code(idx, terms, 3, "auto", True),
                   _method_code(idx, terms, 3, "auto", False)))
        got = _scores(idx)
        for (d0, s0), (d1, s1) in zip(ref, got, strict=True):
            # the same documents; the sums of one document's interval scores may differ in
            # the last bit (the methods emit the intervals in another order)
            assert d1 == d0
            assert np.allclose(s1, s0, rtol=1e-12, atol=0)
    assert codes == {(2, 1), (1, 2)}    # all: EPS-CDF-A then LPS-IF-A; single: LPS then EPS
    after = json.loads((path / "manifest.json").read_text())
    assert after.pop(iv.MANIFEST_KEY) and after == before        # nothing else changed
    set_manifest_entry(path, iv.MANIFEST_KEY, {"alpha_single": 2.0, "alpha_all": None,
                                               "k_all": None})
    with pytest.raises(IndexFormatError, match="alpha_single"):
        iv.index_thresholds(open_index(path))
    with pytest.raises(ValueError, match="belongs to the index format"):
        set_manifest_entry(path, "arrays", {})
    with pytest.raises(IndexFormatError):
        set_manifest_entry(tmp_path / "nothing", iv.MANIFEST_KEY, {})


def test_calibrate_small_grid_one_signature_per_kernel():
    kernels = (iv.eps_kernel, iv.lps_if_kernel, iv.lps_if_all_kernel, iv.eps_cdf_all_if_kernel,
               ic._run_batch)
    # other tests in this process may have compiled these kernels already: count only what the
    # calibration adds
    before = [set(k.signatures) for k in kernels]
    cal = ic.calibrate(length=300, docs=2, repeats=1, alphas=(0.05, 0.5), ks_single=(3,),
                       ks_all=(3, 8))
    th = cal.thresholds
    assert th.source == "measured" and th.details["doc_length"] == 300
    assert th.alpha_single is None or 0.0 <= th.alpha_single <= 1.0
    assert th.k_all in (None, 3, 8)
    assert set(cal.single) == {3} and len(cal.single[3]) == 2 and set(cal.all) == {3, 8}
    assert all(t > 0 for rows in cal.all.values() for _, *ts in rows for t in ts)
    assert iv.IntervalThresholds.from_json(json.loads(json.dumps(th.to_json()))) == th
    assert "measured" in cal.table() and "thesis" in cal.table()
    for kern, had in zip(kernels, before):
        assert len(set(kern.signatures) - had) <= 1, kern   # 0 when only called from a cached


def test_cli_calibrate(idx_path, tmp_path):
    import shutil

    from click.testing import CliRunner

    from tiebreak.cli.app import main
    from tiebreak.index import open_index

    path = tmp_path / "idx"
    shutil.copytree(idx_path, path)
    r = CliRunner().invoke(main, ["index", "--calibrate-intervals", str(path)])
    assert r.exit_code == 0, r.output
    assert "EPS-CDF-A from k >=" in r.output
    th = iv.index_thresholds(open_index(path))
    assert th.source == "measured"
    r = CliRunner().invoke(main, ["index", "--calibrate-intervals"])
    assert r.exit_code == 2 and "Missing argument" in r.output
    r = CliRunner().invoke(main, ["index", "--calibrate-intervals", str(tmp_path / "none")])
    assert r.exit_code == 2 and "tiebreak: error:" in r.output
    r = CliRunner().invoke(main, ["index", "somefile", str(path)])
    assert r.exit_code == 2 and "unexpected extra argument" in r.output.lower()
    src = tmp_path / "docs.jsonl"
    src.write_text('{"docno": "a", "text": "x y z x"}\n{"docno": "b", "text": "y z"}\n')
    r = CliRunner().invoke(main, ["index", str(src), "-o", str(tmp_path / "new"), "-q",
                                  "--calibrate-intervals"])
    assert r.exit_code == 0, r.output
    assert iv.index_thresholds(open_index(tmp_path / "new")).source == "measured"
    r = CliRunner().invoke(main, ["index", str(src), "-o", str(tmp_path / "sh"), "--shards",
                                  "2", "--calibrate-intervals"])
    assert r.exit_code == 2 and "--calibrate-intervals" in r.output
