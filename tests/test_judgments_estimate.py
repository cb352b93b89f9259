"""tiebreak.judgments.estimate and .accuracy: gain models, Chao-Lee gate, two-stage weights,
accuracy."""

from __future__ import annotations

import io

import numpy as np
import pytest
from click.testing import CliRunner

from tiebreak.cli import main
from tiebreak.io import read_qrels, read_run
from tiebreak.judgments.accuracy import accuracy, epsilon, tau_distance, weighted_distance
from tiebreak.judgments.dropout import estimate_with_dropout
from tiebreak.judgments.estimate import (
    TopicLists,
    chao_lee_gamma,
    estimate_scores,
    fit_model,
    gain_curve,
    simplex_minimise,
    two_stage,
)
from tiebreak.judgments.pool import pool_depth, restrict_qrels, run_lists
from tiebreak.judgments.scoring import score_runs

# ---------------------------------------------------------------------------- gain models


@pytest.mark.parametrize("name,params", [
    ("lin", (0.02, 0.6)),
    ("zipf", (3.0, 0.9)),
    ("weibull", (0.8, 0.15, 0.8)),
    ("weibull", (1.5, 0.05, 1.0)),
])
def test_models_recover_their_parameters(name, params):
    g = gain_curve(name, params, 30)
    m = fit_model(name, g)
    assert m.params == pytest.approx(params, rel=1e-3, abs=1e-5)
    assert m.rmse < 1e-6
    assert m.curve.min() >= 0 and m.curve.max() <= 1


def test_const_and_static_models():
    g = np.array([0.6, 0.6, 0.6, 0.0, 0.0, 0.0])
    m = fit_model("const", g)
    assert m.params == (0.6, 3.0)
    assert m([1, 3, 4, 5000]).tolist() == [0.6, 0.6, 0.0, 0.0]
    assert fit_model("static", g)([1, 999]).tolist() == [0.5, 0.5]
    with pytest.raises(ValueError):
        fit_model("nope", g)


def test_model_formulas_by_hand():
    assert gain_curve("lin", (0.05, 0.6), 13)[[0, 9, 12]] == pytest.approx([0.55, 0.1, 0.0])
    h = sum(i ** -1.0 for i in range(1, 1001))
    assert gain_curve("zipf", (1.0, 1.0), 2)[1] == pytest.approx(1 / (2 * h))
    # Weibull with c = 1 is geometric: lam0 * lam1 * (1 - lam1)^(k-1)
    assert gain_curve("weibull", (1.0, 0.3, 1.0), 3) == pytest.approx([0.3, 0.21, 0.147])


# ------------------------------------------------------------------------- Chao-Lee gamma


def test_chao_lee_worked_examples():
    # spec example (Fig. 6.3): D1 occurs 5 times, D8 3 times -> gamma 0
    assert chao_lee_gamma([5, 3]) == 0.0
    # counts {1, 1, 1, 2, 6}: R' = 5, C = 11, Chat = 8/11, gamma^2 = 6.875 * 32 / 110 - 1 = 1
    assert chao_lee_gamma([1, 1, 1, 2, 6]) == pytest.approx(1.0)
    assert chao_lee_gamma([]) == 0.0 and chao_lee_gamma([1]) == 0.0


# -------------------------------------------------------------------------- optimisation


def test_simplex_weights_hand_solvable():
    # min ||w - (0.8, 0.4, -0.2)||^2 on the simplex: projection = (0.7, 0.3, 0)
    t = np.array([0.8, 0.4, -0.2])
    w = simplex_minimise(lambda w: float(np.sum((w - t) ** 2)), lambda w: 2 * (w - t), 3)
    assert w == pytest.approx([0.7, 0.3, 0.0], abs=1e-6)
    assert w.sum() == pytest.approx(1) and (w >= 0).all()


def test_two_stage_picks_the_model_that_explains_the_judgments():
    """Two runs, three documents all judged. Model A predicts the judgments exactly at the
    documents' ranks; model B is constant 0.5. Stage 2 must put its weight on A, and the
    stage-1 weights lie on the simplex."""
    from tiebreak.judgments.estimate import GainModel

    ranks = np.array([[1, 1], [2, 2], [3, 4]])
    curve_a = np.zeros(1000)
    curve_a[[0, 1]] = 1.0
    A = GainModel("a", (), curve_a)
    B = GainModel("b", (), np.full(1000, 0.5))
    tl = TopicLists(np.arange(3), ranks, np.ones(3, bool), np.array([1.0, 1.0, 0.0]))
    for loss in ("a", "b"):
        r = two_stage(tl, [A, B], loss, p=0.5, depth=10)
        assert r["w2"] == pytest.approx([1.0, 0.0], abs=1e-6)
        assert r["w1"].sum(axis=1) == pytest.approx([1.0, 1.0])
        assert (r["w1"] >= 0).all()
        assert r["gain"] == pytest.approx([1.0, 1.0, 0.0], abs=1e-6)


# ------------------------------------------------------------------------------ accuracy


def test_epsilon_rmse_acc_spec_example():
    lb = np.array([[0.30], [0.20], [0.40]])
    ub = np.array([[0.36], [0.25], [0.43]])
    est = np.array([[0.33], [0.28], [0.35]])
    assert epsilon(est, lb, ub).ravel() == pytest.approx([0, 0.03, 0.05])
    a = accuracy(est, lb, ub)
    assert a["RMSE"] == pytest.approx(0.0337, abs=1e-4)
    assert a["Acc"] == pytest.approx(100 / 3)


def test_tau_and_weighted_distance():
    assert tau_distance([3, 2, 1], [3, 2, 1]) == 0
    assert tau_distance([3, 2, 1], [1, 2, 3]) == 1
    assert tau_distance([3, 2, 1], [2, 3, 1]) == pytest.approx(1 / 3)
    rng = np.random.default_rng(1)
    x = rng.random((4, 10))
    assert weighted_distance(x, x) == 0
    assert weighted_distance(x, x[::-1]) > 0


# ----------------------------------------------------------------------- end to end (toy)


def _toy():
    """Two topics, three runs of 12 documents; deep qrels judge everything; a depth-2 pool."""
    rng = np.random.default_rng(5)
    lines, qlines = [], []
    for t in ("1", "2"):
        docs = [f"{t}d{i:02d}" for i in range(20)]
        rel = set(rng.choice(20, 8, replace=False).tolist())
        qlines += [f"{t} 0 {d} {int(i in rel)}" for i, d in enumerate(docs)]
        for _ in range(3):
            perm = rng.permutation(20)[:12]
            lines.append([(t, docs[i], k) for k, i in enumerate(perm, 1)])
    runs = []
    for r in range(3):
        text = "".join(f"{t} Q0 {d} {k} {50 - k} r{r}\n"
                       for t in ("1", "2") for (tt, d, k) in lines[(0 if t == "1" else 3) + r]
                       if tt == t)
        runs.append(read_run(io.BytesIO(text.encode()), name=f"r{r}"))
    q = read_qrels(io.BytesIO("\n".join(qlines).encode() + b"\n"))
    return runs, q


def test_lb_estimator_equals_the_evaluator_and_ranges_hold():
    runs, q = _toy()
    L = run_lists(runs, q)
    J = restrict_qrels(q, pool_depth(L, 2))
    E = estimate_scores(L, J, L.names, 2, p=0.8, depth=10, losses=("a", "b"), theta=0.0,
                        thetas=(0.018,))
    ev = score_runs(J, runs, ["RBP(p=0.8)"], [10])
    assert E.get("LB") == pytest.approx(ev["scores"][:, 0, 0, 0])
    assert E.upper == pytest.approx(ev["scores"][:, 0, 0, 0] + ev["residual"][:, 0, 0, 0])
    # estimates with gains in [0, 1] stay in [lower, upper]; RM may leave it unless clipped
    for e in ("lin", "zipf", "weibull", "static", "L_a", "L_b"):
        assert (E.get(e) >= E.lower - 1e-12).all() and (E.get(e) <= E.upper + 1e-12).all()
    C = estimate_scores(L, J, L.names, 2, p=0.8, depth=10, theta=0.0, clip=True)
    assert (C.scores >= C.lower - 1e-12).all() and (C.scores <= C.upper + 1e-12).all()
    again = estimate_scores(L, J, L.names, 2, p=0.8, depth=10, losses=("a", "b"), theta=0.0,
                            thetas=(0.018,))
    assert np.array_equal(E.scores, again.scores)  # deterministic


def test_rbp_with_estimated_gains_by_hand():
    """One topic, one run d1 d2 d3, d1 judged relevant, d2 judged non-relevant, d3 unjudged;
    static model (0.5): RBP(0.5)@3 = 0.5*1 + 0.25*0 + 0.125*0.5 = 0.5625."""
    run = read_run(io.BytesIO(b"1 Q0 d1 1 3 a\n1 Q0 d2 2 2 a\n1 Q0 d3 3 1 a\n"), name="a")
    run2 = read_run(io.BytesIO(b"1 Q0 d1 1 3 b\n1 Q0 d2 2 2 b\n"), name="b")
    q = read_qrels(io.BytesIO(b"1 0 d1 1\n1 0 d2 0\n"))
    L = run_lists([run, run2], q)
    E = estimate_scores(L, q, ["a", "b"], 2, p=0.5, depth=3, losses=(), theta=0.0)
    assert E.get("static")[0, 0] == pytest.approx(0.5625)
    assert E.get("LB")[0, 0] == pytest.approx(0.5)
    assert E.get("UB")[0, 0] == pytest.approx(0.5 + 0.125 + 0.125)  # d3 plus tail 0.5^3
    # RM: Base / (1 - Delta) = 0.5 / 0.75
    assert E.get("RM")[0, 0] == pytest.approx(0.5 / 0.75)


def test_estimate_cli_tsv(tmp_path):
    runs, q = _toy()
    paths = []
    for r in runs:
        p = tmp_path / r.name
        p.write_text("".join(f"{r.topics[t]} Q0 {r.docno(i)} 1 {r.score[i]} {r.name}\n"
                             for i, t in enumerate(r.topic)))
        paths.append(str(p))
    L = run_lists(runs, q)
    J = restrict_qrels(q, pool_depth(L, 2))
    qp = tmp_path / "q"
    from tiebreak.judgments.pool import write_qrels

    with open(qp, "w") as fh:
        write_qrels(J, fh)
    gp = tmp_path / "gains.tsv"
    res = CliRunner().invoke(main, ["estimate", "--qrels", str(qp), "--metric", "RBP(p=0.8)",
                                    "--depth", "10", "--theta", "0", "--format", "tsv",
                                    "--gains", str(gp), *paths])
    assert res.exit_code == 0, res.output
    rows = res.stdout.splitlines()
    assert rows[0].split("\t")[:5] == ["run", "qid", "estimate", "lower", "upper"]
    assert len(rows) == 1 + 3 * 2
    for row in rows[1:]:
        est, lo, hi = (float(x) for x in row.split("\t")[2:5])
        assert lo - 1e-9 <= est <= hi + 1e-9
    assert gp.read_text().startswith("qid\tdocno\tgain\n")
    bad = CliRunner().invoke(main, ["estimate", "--qrels", str(qp), "--metric", "AP", *paths])
    assert bad.exit_code == 2 and "RBP" in bad.stderr


def test_infrbp_limits():
    """With every candidate sampled, InfRBP is the deep RBP (up to the smoothing constants);
    with an empty sample it adds a third of the unjudged weight (1e-5 / 3e-5)."""
    from tiebreak.judgments.estimate import infrbp_scores

    runs, q = _toy()
    L = run_lists(runs, q)
    deep = score_runs(q, runs, ["RBP(p=0.8)"], [10])["scores"][:, 0, 0, 0]
    full = infrbp_scores(L, q, L.names, 2, rate=1.0, dmax=10, p=0.8, depth=10)
    assert full == pytest.approx(deep, abs=1e-4)
    none = infrbp_scores(L, q, L.names, 2, rate=0.01, dmax=10, p=0.8, depth=10)
    J = restrict_qrels(q, pool_depth(L, 2))
    E = estimate_scores(L, J, L.names, 2, p=0.8, depth=10, losses=(), theta=0.0)
    unj = E.upper - E.lower - 0.8 ** 10  # unjudged weight inside the top 10
    assert none == pytest.approx(E.lower + unj / 3, abs=1e-6)


@pytest.mark.slow
def test_study_estimate_smoke(shared_data, tmp_path):
    d = shared_data / "robust03_trectools"
    runs = [str(d / "runs" / f"input.{r}.gz") for r in ("InexpC2", "Sel50", "uwmtCR0")]
    out = tmp_path / "o"
    res = CliRunner().invoke(main, [
        "study", "estimate", "--qrels", str(d / "qrels" / "robust03_qrels.txt.gz"),
        "--topics", "601-604", "--pool-depth", "3,5", "--reference-depth", "10",
        "--loss", "b", "--leave-one-out", "--format", "json", "--out", str(out), *runs])
    assert res.exit_code == 0, res.output
    import json

    data = json.loads(res.stdout)
    acc = {(r["dprime"], r["estimator"]): r for r in data["accuracy"]}
    assert {"LB", "RM", "lin", "L_b", "InfRBP", "L_b|theta=0.018"} <= {e for _, e in acc}
    for r in data["accuracy"]:
        assert 0 <= r["Acc"] <= 100 and r["RMSE"] >= 0 and 0 <= r["tau_dist"] <= 1
    assert len(data["leave_one_out"]) == len(data["accuracy"])
    assert [r["dprime"] for r in data["fit"]] == [3, 5]
    assert (out / "gain_fits.png").exists() and (out / "estimates.png").exists()
    bad = CliRunner().invoke(main, ["study", "estimate", "--qrels",
                                    str(d / "qrels" / "robust03_qrels.txt.gz"), "--topics",
                                    "601-604", "--pool-depth", "30", "--reference-depth", "20",
                                    *runs])
    assert bad.exit_code == 2


# ------------------------------------------------------------ run drop-out (Lu 2018 §7.2.2)


@pytest.mark.slow
def test_dropout_is_a_mean_of_refits_on_run_subsets():
    """Three contributing runs, drop-out 1/3: every draw leaves one run out, so the drop-out
    estimate must be ``sum_S c_S E_S / B`` for whole counts c_S of the three two-run subsets
    (found by enumeration), and the judgment-only estimators are untouched."""
    import itertools

    runs, q = _toy()
    L = run_lists(runs, q)
    J = restrict_qrels(q, pool_depth(L, 4))   # topic 2 passes the gamma gate
    kw = dict(p=0.8, depth=10, losses=("a", "b"), theta=0.0, rank_level=())
    B = 5
    E = estimate_with_dropout(L, J, L.names, 4, 1 / 3, B, 4, **kw)
    assert E.estimators[-2:] == ["L_a|dropout=0.333333", "L_b|dropout=0.333333"]
    base = estimate_scores(L, J, L.names, 4, **kw)
    assert np.array_equal(E.scores[:len(base.estimators)], base.scores)
    subsets = [list(s) for s in itertools.combinations(L.names, 2)]
    refits = [estimate_scores(L, J, s, 4, **kw) for s in subsets]
    for x in ("a", "b"):
        got = E.get(f"L_{x}|dropout=0.333333")
        fits = [R.get(f"L_{x}") for R in refits]
        match = [c for c in itertools.product(range(B + 1), repeat=3) if sum(c) == B
                 and np.allclose(got, sum(ci * f for ci, f in zip(c, fits)) / B, atol=1e-12)]
        assert match, x
        assert not np.allclose(got, base.get(f"L_{x}"))   # the refits differ from the full fit
    again = estimate_with_dropout(L, J, L.names, 4, 1 / 3, B, 4, **kw)
    assert np.array_equal(E.scores, again.scores)        # seeded


def test_dropout_arguments():
    runs, q = _toy()
    L = run_lists(runs, q)
    J = restrict_qrels(q, pool_depth(L, 2))
    for bad in (dict(dropout=1.0), dict(dropout=-0.1), dict(dropout=0.5, resamples=0)):
        with pytest.raises(ValueError, match="dropout|resamples"):
            estimate_with_dropout(L, J, L.names, 2, **bad)
    E = estimate_with_dropout(L, J, L.names, 2, 0.5, losses=(), rank_level=())
    assert E.estimators == ["LB", "UB", "mid", "RM"]      # nothing to drop out of
