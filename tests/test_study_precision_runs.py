"""tiebreak study precision-runs: its numbers recomputed by hand from tiebreak.evaluate."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats as st

import tiebreak as tb
from tiebreak.cli.app import main
from tiebreak.ranking.formats import round_scores
from tiebreak.studies.precision_runs import first_changes, rho_bits, run_study, tables


@pytest.fixture(scope="module")
def dl20(shared_data):
    d = shared_data / "trec_dl2020_bitua"
    runs = sorted(str(p) for p in (d / "runs").iterdir())[:4]
    return tb.read_qrels(str(d / "qrels.dl20-doc.txt")), runs


def brute_tie_share(run, scores):
    """Yang et al.: a group of s equal scores in a topic counts s - 1."""
    tied = 0
    for t in range(len(run.topics)):
        s = scores[run.topic == t]
        tied += len(s) - len(np.unique(s))
    return tied / len(scores)


@pytest.mark.slow
def test_study_against_direct_evaluation(dl20):
    qrels, paths = dl20
    study = run_study(qrels, paths, ["decimals:1", "float16"], ["AP"], rhos=["2.0"])
    assert study.formats == ["float64", "decimals:1", "float16"]
    tabs = tables(study)
    ft = tabs["formats"].set_index("format")
    assert ft.loc["float64", "change_max"] == 0 and ft.loc["float64", "tau"] == 1
    assert ft.loc["float64", "flipped_pairs"] == 0
    runs = [tb.read_run(p) for p in paths]
    for f in ("float64", "decimals:1"):
        res = tb.evaluate(qrels, runs, ["AP"], ["expected", "realistic", "optimistic"],
                          score_precision=f)
        full = tb.evaluate(qrels, runs, ["AP"], ["expected"])
        mb, ma = res.mean[:, 0, 0], full.mean[:, 0, 0]
        assert ft.loc[f, "change_max"] == pytest.approx(np.abs(mb - ma).max(), abs=1e-12)
        assert ft.loc[f, "range_max"] == pytest.approx(
            (res.mean[:, 0, 2] - res.mean[:, 0, 1]).max(), abs=1e-12)
        assert ft.loc[f, "tau"] == pytest.approx(st.kendalltau(ma, mb).statistic)
        # Table 3: one-tailed paired t, formatted > 0.99 * full
        d = res.per_topic[:, 0, 0] - 0.99 * full.per_topic[:, 0, 0]
        p = st.ttest_1samp(d, 0, axis=1, alternative="greater").pvalue
        assert ft.loc[f, ">=99%"] == int(np.sum(p <= 0.05))
        docs = np.array([len(r) for r in runs])
        want = sum(brute_tie_share(r, round_scores(r.score, f, r.topic)[0]) * n
                   for r, n in zip(runs, docs)) / docs.sum()
        assert ft.loc[f, "tied_ymt_%"] == pytest.approx(100 * want)
    # decimals:1 creates ties (most documents share a score with another)
    assert ft.loc["decimals:1", "tied_ymt_%"] > ft.loc["float16", "tied_ymt_%"] > \
        ft.loc["float64", "tied_ymt_%"]
    assert tabs["bands"]["bits"].tolist() == [0.0]
    assert rho_bits("1.0078125") == 7.0
    got = first_changes(tabs["formats"], "AP")
    assert got["binary"][0] == ("float16" if ft.loc["float16", "tau"] < 1 else "none")
    assert got["linear"][0] == ("decimals:1" if ft.loc["decimals:1", "tau"] < 1 else "none")


@pytest.mark.slow
def test_command_writes_tables(dl20, tmp_path):
    qrels, paths = dl20
    r = CliRunner().invoke(main, ["study", "precision-runs", str(qrels.name), *paths[:2],
                                  "--score-format", "bfloat16,int8", "-m", "AP", "--rho", "",
                                  "--no-figures", "--out", str(tmp_path), "-j", "1",
                                  "--format", "tsv"])
    assert r.exit_code == 0, r.output
    head = r.stdout.splitlines()
    assert head[0] == "2 systems, 45 topics; each format against full precision (expected " \
        "values; tie range = optimistic - realistic mean)"
    assert head[1].split("\t")[:2] == ["format", "measure"]
    assert [x.split("\t")[0] for x in head[2:5]] == ["float64", "bfloat16", "int8"]
    assert head[5].startswith("AP: finest format where the system ranking changes (tau < 1): ")
    assert (tmp_path / "pairs.tsv").exists()
    r = CliRunner().invoke(main, ["study", "precision-runs", str(qrels.name), *paths[:2],
                                  "--score-format", "float8", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "--score-format" in r.output


def test_reproduce_item_without_data():
    from tiebreak.studies.reproduce import Context, items, run_item, verdict_of

    item = items()["ymt2016:table3-formats"]
    cells = run_item(item, Context(data=None))
    assert verdict_of(cells) == "not-reproducible-here"
    assert "data" in cells[0].note
