"""tiebreak correlate: the coefficients by hand and against scipy, the eval-result reader (TSV
and JSON give the same records), the bootstrap and the command's errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats as st

from tiebreak.cli.app import main
from tiebreak.evaluation.output import read_records
from tiebreak.stats.correlation import bootstrap_correlations, correlations, tau_a


def test_coefficients_by_hand():
    x = [4.0, 3.0, 2.0, 1.0]
    assert correlations(x, x) == pytest.approx(
        {"tau": 1.0, "tau_ap": 1.0, "tau_b": 1.0, "spearman": 1.0, "rbo": 1.0})
    # one swap at the bottom of four: C = 5, D = 1 -> tau = 4/6; walking down y, the systems
    # correctly placed above positions 2, 3, 4 are 1/1, 2/2, 2/3: tau_AP = 2/3 (8/3) - 1 = 7/9
    y = [4.0, 3.0, 1.0, 2.0]
    c = correlations(x, y)
    assert c["tau"] == pytest.approx(4 / 6)
    assert c["tau_ap"] == pytest.approx(7 / 9)
    # ties: tau-a counts a tied pair as 0, tau-b corrects for it
    z = [4.0, 3.0, 3.0, 1.0]
    assert tau_a(x, z) == pytest.approx(5 / 6)
    assert correlations(x, z)["tau_b"] == pytest.approx(st.kendalltau(x, z).statistic)
    rng = np.random.default_rng(3)
    a, b = rng.random(30), rng.random(30)
    c = correlations(a, b)
    assert c["spearman"] == pytest.approx(st.spearmanr(a, b).statistic)
    assert c["tau"] == pytest.approx(st.kendalltau(a, b).statistic)  # no ties: a = b


def test_bootstrap_is_seeded_and_brackets():
    rng = np.random.default_rng(1)
    A = rng.random((8, 25)) + np.arange(8)[:, None] * 0.05
    B = A + rng.normal(0, 0.05, A.shape)
    c1 = bootstrap_correlations(A, B, 200, seed=4)
    assert c1 == bootstrap_correlations(A, B, 200, seed=4)
    assert c1 != bootstrap_correlations(A, B, 200, seed=5)
    for k, (lo, hi) in c1.items():
        assert -1 <= lo <= hi <= 1, k
    point = correlations(A.mean(1), B.mean(1))
    assert c1["tau_b"][0] <= point["tau_b"] <= c1["tau_b"][1]


@pytest.fixture(scope="module")
def results(shared_data, tmp_path_factory):
    d = tmp_path_factory.mktemp("corr")
    runs = [str(p) for p in sorted((shared_data / "trec_covid/round1/runs").iterdir())[:10]]
    qa = str(shared_data / "trec_covid/round1/qrels-rnd1.txt")
    out = {}
    for name, args in (("a.tsv", ["--format", "tsv"]), ("a.json", ["--format", "json"]),
                       ("b.tsv", ["--format", "tsv"])):
        q = qa if name.startswith("a") else str(
            shared_data / "trec_covid/qrels.covid-complete.txt.gz")
        r = CliRunner().invoke(main, ["eval", q, *runs, "-m", "AP", "-m", "P@10", "--regime",
                                      "trec_eval", "-q", "--quiet", *args])
        assert r.exit_code == 0
        (d / name).write_text(r.stdout)
        out[name] = str(d / name)
    return out


def test_reader_round_trip(results):
    a, j = read_records(results["a.tsv"]), read_records(results["a.json"])
    assert a == j and len(a) == 10 * 2 * 31


def test_cli(results, tmp_path):
    r = CliRunner().invoke(main, ["correlate", results["a.tsv"], results["a.json"], "--format",
                                  "json", "--samples", "50"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    assert [x["measure"] for x in rows] == ["AP", "P@10"]
    assert rows[0]["boot"] == "topics" and rows[0]["tau_b"] == pytest.approx(1.0)
    # round-1 qrels against the complete qrels (50 topics): means differ, topics too -> systems
    r = CliRunner().invoke(main, ["correlate", results["a.tsv"], results["b.tsv"], "-m", "AP",
                                  "--format", "json", "--samples", "50"])
    row = json.loads(r.output)[0]
    mean = {}
    for f in ("a.tsv", "b.tsv"):
        mean[f] = {x[0]: x[4] for x in read_records(results[f]) if x[1] == "AP" and x[3] == "all"}
    names = list(mean["a.tsv"])
    x, y = [mean["a.tsv"][n] for n in names], [mean["b.tsv"][n] for n in names]
    assert row["boot"] == "systems" and row["systems"] == 10
    assert row["tau_b"] == pytest.approx(st.kendalltau(x, y).statistic)
    assert row["spearman"] == pytest.approx(st.spearmanr(x, y).statistic)
    bad = tmp_path / "bad.tsv"
    bad.write_text("r\tAP\ttrec_eval\tall\t0.5\nr\tAP\ttrec_eval\tall\n")
    r = CliRunner().invoke(main, ["correlate", str(bad), results["a.tsv"]])
    assert r.exit_code == 2 and "bad.tsv:2: 4 fields" in r.output
