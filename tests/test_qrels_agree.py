"""tiebreak qrels agree: kappa against scikit-learn, alpha against the krippendorff package and
the textbook, on hand-made and real qrels."""

from __future__ import annotations

import gzip
import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from tiebreak.cli.app import main
from tiebreak.io import read_qrels
from tiebreak.stats.agreement import agreement, cohen_kappa, krippendorff_alpha


def test_kappa_by_hand():
    # 10 items: a 2x2 table [[4, 1], [2, 3]]: po = 0.7, pe = 0.5*0.6 + 0.5*0.4 = 0.5
    a = [0] * 5 + [1] * 5
    b = [0, 0, 0, 0, 1, 0, 0, 1, 1, 1]
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert math.isnan(cohen_kappa([1, 1], [1, 1]))
    with pytest.raises(ValueError):
        cohen_kappa([1], [1, 2])


def test_alpha_textbook():
    """Two coders, ten units, binary values, worked by hand from the coincidence matrix
    (Krippendorff 2019, ch. 12): o = [[10, 4], [4, 2]], n_0 = 14, n_1 = 6, n = 20, nominal:
    alpha = 1 - 19 * 8 / (2 * 14 * 6) = 1 - 152 / 168."""
    a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    assert krippendorff_alpha(a, b, "nominal") == pytest.approx(1 - 152 / 168)
    assert krippendorff_alpha(a, b, "nominal") == pytest.approx(0.095238, abs=1e-6)


@pytest.fixture(scope="module")
def robust_pair(shared_data, tmp_path_factory):
    """Robust 2003 qrels (grades 0-2) and a seeded perturbation: 15% of grades redrawn, 5% of
    judgments dropped, and some new ones on one side only."""
    src = shared_data / "robust03_trectools/qrels"
    path = next(p for p in sorted(src.iterdir()) if "qrel" in p.name)
    with gzip.open(path, "rt") if path.suffix == ".gz" else open(path) as fh:
        lines = [ln.split() for ln in fh if ln.strip()]
    rng = np.random.default_rng(7)
    out = []
    for q, it, d, r in lines:
        u = rng.random()
        if u < 0.05:
            continue
        if u < 0.20:
            r = str(rng.integers(0, 3))
        out.append(f"{q} {it} {d} {r}\n")
    out += [f"{lines[0][0]} 0 NEWDOC{i} {i % 3}\n" for i in range(40)]
    d = tmp_path_factory.mktemp("agree")
    a, b = d / "a.qrels", d / "b.qrels"
    a.write_text("".join(f"{q} {it} {dd} {r}\n" for q, it, dd, r in lines))
    b.write_text("".join(out))
    return a, b


def test_against_sklearn_and_krippendorff(robust_pair):
    sk = pytest.importorskip("sklearn.metrics")
    kd = pytest.importorskip("krippendorff")
    from tiebreak.stats.agreement import aligned

    qa, qb = read_qrels(robust_pair[0]), read_qrels(robust_pair[1])
    res = agreement(qa, qb)
    df, _ = aligned(qa, qb)
    both = df.dropna()
    x, y = both["a"].astype(int).to_numpy(), both["b"].astype(int).to_numpy()
    pooled = res.rows[-1]
    assert pooled["qid"] == "all" and pooled["both"] == len(x)
    assert pooled["kappa"] == pytest.approx(sk.cohen_kappa_score(x >= 1, y >= 1), rel=1e-12)
    assert pooled["kappa_linear"] == pytest.approx(
        sk.cohen_kappa_score(x, y, weights="linear"), rel=1e-12)
    assert cohen_kappa(x, y, "quadratic") == pytest.approx(
        sk.cohen_kappa_score(x, y, weights="quadratic"), rel=1e-12)
    # alpha with the one-sided documents as missing values: the same (they are not pairable)
    rel = np.vstack([df["a"].to_numpy(float), df["b"].to_numpy(float)])
    assert pooled["alpha_ordinal"] == pytest.approx(
        kd.alpha(reliability_data=rel, level_of_measurement="ordinal"), rel=1e-9)
    assert pooled["alpha_nominal"] == pytest.approx(
        kd.alpha(reliability_data=np.where(np.isnan(rel), np.nan, rel >= 1),
                 level_of_measurement="nominal"), rel=1e-9)
    assert krippendorff_alpha(x, y, "interval") == pytest.approx(
        kd.alpha(reliability_data=np.vstack([x, y]).astype(float),
                 level_of_measurement="interval"), rel=1e-9)
    # per topic too (first five topics)
    for row in res.rows[:5]:
        sub = both[both["qid"] == row["qid"]]
        xs, ys = sub["a"].astype(int).to_numpy(), sub["b"].astype(int).to_numpy()
        assert row["kappa_linear"] == pytest.approx(
            sk.cohen_kappa_score(xs, ys, weights="linear"), rel=1e-12)
    # counts: 40 new documents judged by B only; A's dropped lines are A-only
    assert pooled["b_only"] == 40
    assert pooled["a_only"] + pooled["both"] == pooled["judged_a"] == len(qa)
    assert res.confusion.sum() == pooled["both"]


def test_cli(robust_pair):
    r = CliRunner().invoke(main, ["qrels", "agree", str(robust_pair[0]), str(robust_pair[1]),
                                  "--format", "json", "--summary"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert len(d["topics"]) == 1 and d["grades"] == [0, 1, 2]
    assert d["topics"][0]["kappa"] == pytest.approx(0.4224446866175823, rel=1e-12)
    r = CliRunner().invoke(main, ["qrels", "agree", str(robust_pair[0]), "/nonexistent"])
    assert r.exit_code == 2 and "tiebreak: error:" in r.output
