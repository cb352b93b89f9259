"""tiebreak study ties (YMT 2016 Fig. 2, Cabanac et al. 2010 Tables 2-5) on synthetic runs."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

import tiebreak as tb
from tiebreak.cli import main
from tiebreak.studies.study_ties import (
    REGIMES,
    fig2,
    overlaps,
    result_list_gains,
    run_study,
    summary,
    system_gains,
)

N_TOPICS, N_DOCS, N_RUNS = 6, 20, 5


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """5 runs x 6 topics x 20 docs; ``run0`` has distinct scores (no ties), the others round
    their scores to 0, 1 or 2 decimals of a coarse scale (many ties)."""
    d = tmp_path_factory.mktemp("st")
    rng = np.random.default_rng(11)
    qrels = []
    for t in range(1, N_TOPICS + 1):
        rel = set(rng.choice(np.arange(1, 31), size=7, replace=False).tolist())
        qrels += [f"q{t} 0 d{doc} {int(doc in rel)}" for doc in range(1, 31)]
    (d / "qrels").write_text("\n".join(qrels) + "\n")
    paths = []
    for r in range(N_RUNS):
        lines = []
        for t in range(1, N_TOPICS + 1):
            docs = rng.permutation(np.arange(1, 31))[:N_DOCS]
            for k, doc in enumerate(docs, 1):
                s = 20.0 - k + rng.random() * 0.5
                if r > 0:
                    s = round(s / (2 * r)) * (2 * r)  # groups of ~2r documents share a score
                lines.append(f"q{t} Q0 d{doc} {k} {s:.4f} run{r}")
        p = d / f"run{r}.txt"
        p.write_text("\n".join(lines) + "\n")
        paths.append(str(p))
    return str(d / "qrels"), paths


@pytest.fixture(scope="module")
def study(data):
    qrels, paths = data
    return run_study(tb.read_qrels(qrels), paths, ["P@5"], jobs=1)


def test_shapes(study):
    assert study.systems == [f"run{r}" for r in range(N_RUNS)]
    assert study.metrics == ["AP", "RR", "P@5"]
    assert study.regimes == list(REGIMES)
    assert study.scores.shape == (N_RUNS, 3, len(REGIMES), N_TOPICS)
    assert study.tied.dtype.kind == "i"
    assert study.tied[0] == 0 and np.all(study.tied[1:] > 0)


def test_orderings(study):
    eps = 1e-12
    for m in study.metrics:
        real, conv = study.get(m, "realistic"), study.get(m, "trec_eval")
        opt, exp = study.get(m, "optimistic"), study.get(m, "expected")
        assert np.all(real <= conv + eps) and np.all(conv <= opt + eps)
        assert np.all(real <= exp + eps) and np.all(exp <= opt + eps)


def test_run_without_ties_has_no_range(study):
    for m in study.metrics:
        vals = study.scores[0, study.metrics.index(m)]
        assert np.allclose(vals, vals[0][None, :])  # every regime equal
    sg = system_gains(study, top=N_RUNS)
    assert np.all(sg.loc[sg["run"] == "run0", "delta"] == 0)
    rl = result_list_gains(study, top=N_RUNS * N_TOPICS)
    assert np.all(rl.loc[rl["run"] == "run0", "delta"] == 0)
    ov = overlaps(study, top=N_RUNS).set_index("run")
    assert ov.loc["run0", "map_lower"] == ov.loc["run0", "map_upper"]


def test_gain_tables(study):
    rl = result_list_gains(study, top=4)
    assert len(rl) == 2 * 3 * 4  # AP, RR x 3 pairs x top 4
    assert np.all(rl["delta"] >= 0)
    for _, g in rl.groupby(["metric", "from", "to"]):
        assert list(g["delta"]) == sorted(g["delta"], reverse=True)
    assert np.allclose(rl["delta"], rl["to_value"] - rl["from_value"])
    pos = rl["from_value"] > 0
    assert np.allclose(rl.loc[pos, "pct"], 100 * rl.loc[pos, "delta"] / rl.loc[pos, "from_value"])
    # the largest RR gain realistic -> optimistic equals the max over the score arrays
    g = rl[(rl["metric"] == "RR") & (rl["from"] == "realistic") & (rl["to"] == "optimistic")]
    d = study.get("RR", "optimistic") - study.get("RR", "realistic")
    assert g["delta"].iloc[0] == pytest.approx(d.max())
    sg = system_gains(study, top=3)
    assert len(sg) == 2 * 3 * 3
    assert np.all((sg["p"] >= 0) & (sg["p"] <= 1))
    assert np.allclose(sg["delta"], sg["to_mean"] - sg["from_mean"])


def test_summary(study):
    sm = summary(study)
    assert len(sm) == 3 * 4
    for c in ("systems", "sig_B>A", "sig_A>B"):
        assert all(isinstance(v, (int, np.integer)) for v in sm[c])
    assert np.all((sm["sig_B>A"] >= 0) & (sm["sig_B>A"] <= N_RUNS))
    mono = sm["B"] != "expected"  # elsewhere B is never below A per topic
    assert np.all(sm.loc[mono, "sig_A>B"] == 0)
    for c in ("sig_flips_pct", "rank_changes_pct"):
        assert np.all((sm[c] >= 0) & (sm[c] <= 100))
    # percentages are multiples of 1/pairs and 1/systems
    pairs = N_RUNS * (N_RUNS - 1) / 2
    assert np.allclose(sm["sig_flips_pct"] * pairs / 100, np.round(sm["sig_flips_pct"] * pairs
                                                                     / 100))
    assert np.allclose(sm["rank_changes_pct"] * N_RUNS / 100,
                       np.round(sm["rank_changes_pct"] * N_RUNS / 100))
    assert np.all(np.abs(sm["kendall_tau"].dropna()) <= 1)


def test_summary_identical_regimes_no_change(study):
    sm = summary(study, pairs=[("trec_eval", "trec_eval")])
    assert np.all(sm["sig_flips_pct"] == 0) and np.all(sm["rank_changes_pct"] == 0)
    assert np.all(sm["sig_B>A"] == 0)
    assert np.allclose(sm["kendall_tau"], 1)


def test_overlaps_symmetric(study):
    ov = overlaps(study, top=N_RUNS)
    assert list(ov["rank"]) == list(range(1, N_RUNS + 1))
    assert np.all(ov["map_lower"] <= ov["map_trec_eval"] + 1e-12)
    assert np.all(ov["map_trec_eval"] <= ov["map_upper"] + 1e-12)
    links = {(r, o) for r, w in zip(ov["run"], ov["overlaps_with"]) for o in w.split(",") if o}
    assert all((o, r) in links for r, o in links)
    assert list(ov["n_overlaps"]) == [len([o for o in w.split(",") if o])
                                      for w in ov["overlaps_with"]]


@pytest.mark.slow
def test_fig2_writes(study, tmp_path):
    paths, floor = fig2(study, str(tmp_path / "f2"), top=3)
    assert floor is not None and floor > 0  # run0 has zero range
    for p in paths:
        assert (tmp_path / p.split("/")[-1]).stat().st_size > 0


@pytest.mark.slow
def test_cli(data, tmp_path):
    qrels, paths = data
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["study", "ties", "--qrels", qrels, "--top", "3",
                                    "--out", str(out), *paths])
    assert res.exit_code == 0, res.output
    assert "Summary" in res.output and "Tables 2-3" in res.output
    for name in ("result_lists.tsv", "system_gains.tsv", "summary.tsv", "overlaps.tsv",
                 "fig2_ranges.png", "fig2_ranges.svg"):
        assert (out / name).stat().st_size > 0
