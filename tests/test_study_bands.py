"""tiebreak study bands (YMT 2016 Section 4) on a small synthetic run set."""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner

import tiebreak as tb
from tiebreak.cli import main
from tiebreak.studies.study_bands import (
    fig3,
    fig4,
    fig4_pvalues,
    fig4_quadrants,
    run_study,
    table3,
)

N_TOPICS, N_DOCS, N_RUNS = 5, 30, 4
METRICS = ["RR", "RBP(p=0.5)", "AP"]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """4 runs x 5 topics x 30 docs; run ``hand`` topic q1: d1 non-relevant, d2 relevant,
    d3 non-relevant, no other relevant document retrieved."""
    d = tmp_path_factory.mktemp("sb")
    rng = np.random.default_rng(7)
    qrels_lines = []
    rel = {}
    for t in range(1, N_TOPICS + 1):
        rel[t] = set(rng.choice(np.arange(1, 41), size=8, replace=False).tolist())
        for doc in range(1, 41):
            qrels_lines.append(f"q{t} 0 d{doc} {int(doc in rel[t])}")
    rel[1] |= {2}
    rel[1] -= {1, 3}
    qrels_lines = [ln for ln in qrels_lines if not ln.startswith("q1 ")]
    qrels_lines += [f"q1 0 d{doc} {int(doc in rel[1])}" for doc in range(1, 41)]
    (d / "qrels").write_text("\n".join(qrels_lines) + "\n")
    paths = []
    for r in range(N_RUNS):
        lines = []
        for t in range(1, N_TOPICS + 1):
            docs = rng.permutation(np.arange(1, 41))[:N_DOCS]
            if r == 0 and t == 1:  # the hand-checked ranking
                nonrel = [x for x in range(4, 41) if x not in rel[1]]
                docs = [1, 2, 3, *nonrel[: N_DOCS - 3]]
            for k, doc in enumerate(docs, 1):
                lines.append(f"q{t} Q0 d{doc} {k} {100 - k + rng.random() * 0.5:.4f} run{r}")
        p = d / f"run{r}.txt"
        p.write_text("\n".join(lines) + "\n")
        paths.append(str(p))
    return str(d / "qrels"), paths


@pytest.fixture(scope="module")
def study(data):
    qrels, paths = data
    return run_study(tb.read_qrels(qrels), paths, ["1.0", "1.4", "2.0"], METRICS, jobs=1)


def test_shapes_and_names(study):
    assert study.systems == [f"run{r}" for r in range(N_RUNS)]
    assert study.metrics == METRICS
    assert study.original.shape == (N_RUNS, len(METRICS), N_TOPICS)
    assert study.banded.shape == (3, N_RUNS, len(METRICS), N_TOPICS)


def test_rho_one_changes_nothing(study):
    assert np.array_equal(study.differences[0], np.zeros_like(study.differences[0]))


def test_rr_by_hand(study):
    # rho=2: bands [1], [2,3], [4..7]; d2 relevant at the top of band [2,3], d3 not relevant.
    # expected RR = (1/2)(1/2 + 1/3) = 5/12, original 1/2: difference -1/12 (the Table 2 bound).
    k, j = study.rhos.index("2.0"), study.metrics.index("RR")
    assert study.original[0, j, 0] == 0.5
    assert math.isclose(study.banded[k, 0, j, 0], 5 / 12, rel_tol=1e-12)
    assert math.isclose(study.differences[k, 0, j, 0], -(1 / 2 - (1 / 2) * (1 / 2 + 1 / 3)),
                        rel_tol=1e-12)
    # rho=1.4: bands [1], [2], [3,4]: d2 stays alone at rank 2
    assert study.differences[study.rhos.index("1.4"), 0, j, 0] == 0


def test_rr_never_falls_below_table2_bound(study):
    j = study.metrics.index("RR")
    for k, rho in enumerate(study.rhos):
        assert study.differences[k, :, j, :].min() >= -float(tb.ranking.bands.delta_rr(rho)) - 1e-12


def test_parallel_matches_serial(data, study):
    qrels, paths = data
    par = run_study(tb.read_qrels(qrels), paths, ["1.0", "1.4", "2.0"], METRICS, jobs=2)
    assert par.systems == study.systems
    assert np.array_equal(par.banded, study.banded)
    assert np.array_equal(par.original, study.original)


def test_top_keeps_best_by_map(data):
    qrels, paths = data
    q = tb.read_qrels(qrels)
    full = run_study(q, paths, ["2.0"], ["AP"])
    top = run_study(q, paths, ["2.0"], ["RR"], top=2)
    best = np.argsort(-full.original[:, 0, :].mean(axis=1), kind="stable")[:2]
    assert set(top.systems) == {full.systems[i] for i in best}
    assert len(top.dropped) == 2


def test_table3_counts(study):
    t = table3(study)
    assert len(t) == len(METRICS) * len(study.rhos)
    for col in (">=99%", ">=97%"):
        assert t[col].dtype.kind == "i"
        assert t[col].between(0, N_RUNS).all()
    # a looser ratio can only make more systems pass
    assert (t[">=97%"] >= t[">=99%"]).all()


def test_fig4_quadrants(study):
    pv = fig4_pvalues(study, "2.0")
    q = fig4_quadrants(pv)
    n_pairs = N_RUNS * (N_RUNS - 1) // 2
    assert (q["pairs"] == n_pairs).all()
    s = q[["both", "false_pos", "false_neg", "neither"]].sum(axis=1)
    assert np.allclose(s, 100)
    assert np.allclose(q["disc_before"], q["both"] + q["false_neg"])
    assert np.allclose(q["disc_after"], q["both"] + q["false_pos"])


@pytest.mark.slow
def test_plots_render_without_display(study, tmp_path, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    files = fig3(study, str(tmp_path / "f3")) + fig4(fig4_pvalues(study, "2.0"), "2.0",
                                                      str(tmp_path / "f4"))
    for f in files:
        with open(f, "rb") as fh:
            head = fh.read(8)
        assert head.startswith(b"\x89PNG") if f.endswith(".png") else b"<" in head


@pytest.mark.slow
def test_cli(data, tmp_path):
    qrels, paths = data
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["study", "bands", "--qrels", qrels, "--rho", "1.0,2.0",
                                    "--metric", "RR", "--metric", "AP", "--out", str(out),
                                    "-j", "1", "--drop-contradictions", *paths])
    assert res.exit_code == 0, res.output
    assert "Table 3" in res.output
    for f in ("table3.tsv", "fig3_differences.png", "fig3_differences.svg",
              "fig4_pvalues.png", "fig4_pvalues.svg", "fig4_quadrants.tsv", "fig3_summary.tsv"):
        assert (out / f).stat().st_size > 0
    head = (out / "table3.tsv").read_text().splitlines()[0].split("\t")
    assert head == ["metric", "rho", "systems", ">=99%", ">=97%"]


def test_cli_bad_rho(data, tmp_path):
    qrels, paths = data
    res = CliRunner().invoke(main, ["study", "bands", "--qrels", qrels, "--rho", "0.5",
                                    "--out", str(tmp_path), *paths])
    assert res.exit_code != 0


def test_drop_contradictions_drops_the_contradicting_run(data, tmp_path):
    qrels, paths = data
    # a copy of run0 whose rank column runs against its scores in every topic
    lines = open(paths[0]).read().splitlines()
    flipped = []
    for ln in lines:
        q, z, d, r, s, _ = ln.split()
        flipped.append(f"{q} {z} {d} {N_DOCS + 1 - int(r)} {s} flipped")
    p = tmp_path / "flipped.txt"
    p.write_text("\n".join(flipped) + "\n")
    st = run_study(tb.read_qrels(qrels), [*paths, str(p)], ["2.0"], ["RR"], jobs=1,
                   drop_contradictions=True)
    assert "flipped" not in st.systems and len(st.systems) == N_RUNS
    assert "rank/score contradictions" in st.dropped["flipped"]
