"""Adjustments for unjudged documents (Webber & Park 2009; anti-precision after Lipani, Lupu &
Hanbury 2015; relevance prediction after Buttcher et al. 2007), each against an independent
computation."""

from __future__ import annotations

import io

import numpy as np
import pytest

from tiebreak.io import read_qrels, read_run
from tiebreak.judgments.adjust import (
    adjusted_scores,
    anti_precision,
    leave_one_out_losses,
    webber_park,
)
from tiebreak.judgments.estimate import estimate_scores, topic_lists
from tiebreak.judgments.pool import pool_depth, restrict_qrels, run_lists
from tiebreak.judgments.predict import predicted_relevance
from tiebreak.judgments.scoring import score_runs


def _random_collection(seed, n_runs=5, n_docs=40, n_topics=3, length=25):
    rng = np.random.default_rng(seed)
    runs = []
    for r in range(n_runs):
        lines = []
        for t in range(1, n_topics + 1):
            docs = rng.choice(n_docs, size=length, replace=False)
            lines += [f"{t} Q0 x{d:02d} {i + 1} {100 - i} r{r}" for i, d in enumerate(docs)]
        runs.append(read_run(io.BytesIO(("\n".join(lines) + "\n").encode()), name=f"r{r}"))
    qtext = "".join(f"{t} 0 x{d:02d} {int(rng.random() < 0.3)}\n"
                    for t in range(1, n_topics + 1) for d in range(n_docs))
    return runs, read_qrels(io.BytesIO(qtext.encode()))


def _rbp_and_anti(qrels, run, p, depth):
    """Per topic (RBP, anti-RBP) with unjudged = 0, by direct loops over the run file."""
    judged = {(qrels.topics[t], str(qrels.docnos[d])): int(v)
              for t, d, v in zip(qrels.topic, qrels.docid, qrels.value)}
    out = {}
    for i in range(len(run.topic)):
        t = run.topics[run.topic[i]]
        k = int(run.rank[i])
        if k > depth:
            continue
        v = judged.get((t, str(run.docnos[run.docid[i]])), -1)
        w = (1 - p) * p ** (k - 1)
        a, b = out.get(t, (0.0, 0.0))
        out[t] = (a + w * (v >= 1), b + w * (v == 0))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_leave_one_out_losses_webber_park_and_anti_precision_by_brute_force(seed):
    p, depth, dp = 0.8, 20, 5
    runs, deep = _random_collection(seed)
    L = run_lists(runs, deep)
    shallow = restrict_qrels(deep, pool_depth(L, dp))
    dP, dA = leave_one_out_losses(L, shallow, L.names, dp, p, depth)
    topics = list(deep.topics)
    bP = np.zeros_like(dP)
    bA = np.zeros_like(dA)
    for s, run in enumerate(runs):
        others = [n for n in L.names if n != run.name]
        red = restrict_qrels(deep, pool_depth(L, dp, others))
        full, part = _rbp_and_anti(shallow, run, p, depth), _rbp_and_anti(red, run, p, depth)
        for j, t in enumerate(topics):
            bP[s, j] = full.get(t, (0, 0))[0] - part.get(t, (0, 0))[0]
            bA[s, j] = full.get(t, (0, 0))[1] - part.get(t, (0, 0))[1]
    assert dP == pytest.approx(bP, abs=1e-12)
    assert dA == pytest.approx(bA, abs=1e-12)
    assert (dP >= 0).all() and (dA >= 0).all() and (dP + dA).sum() > 0
    lb = score_runs(shallow, runs, [f"RBP(p={p})"], [depth])
    low = lb["scores"][:, 0, 0, 0]
    up = low + lb["residual"][:, 0, 0, 0]
    wp = webber_park(low, dP)
    # Webber & Park method 1: every run gets the mean leave-one-out loss of its topic
    for j in range(len(topics)):
        assert wp[:, j] == pytest.approx(low[:, j] + np.mean(bP[:, j]))
    ap = anti_precision(low, up, dP, dA)
    rho = bP.sum(0) / (bP.sum(0) + bA.sum(0))
    assert ap == pytest.approx(low + rho * (up - low))
    assert ((ap >= low - 1e-12) & (ap <= up + 1e-12)).all()
    adj = adjusted_scores(L, shallow, L.names, dp, low, up, p, depth)
    assert adj["webber-park"] == pytest.approx(wp) and adj["anti-precision"] == pytest.approx(ap)


def test_anti_precision_leaves_topics_without_evidence_alone():
    low = np.array([[0.2, 0.1]])
    up = np.array([[0.6, 0.5]])
    dP = np.array([[0.1, 0.0], [0.1, 0.0]])
    dA = np.array([[0.2, 0.0], [0.0, 0.0]])
    # topic 1: rho = 0.2 / (0.2 + 0.2) = 0.5; topic 2: nothing lost -> LB
    assert anti_precision(low, up, dP, dA)[0].tolist() == pytest.approx([0.4, 0.1])


@pytest.mark.slow
def test_prediction_is_logistic_regression_on_rank_features():
    from sklearn.linear_model import LogisticRegression

    from tiebreak.judgments.estimate import KMAX
    from tiebreak.judgments.predict import _rank_features

    runs, deep = _random_collection(5, n_runs=6)
    L = run_lists(runs, deep)
    shallow = restrict_qrels(deep, pool_depth(L, 6))
    tls = topic_lists(L, shallow, list(range(6)), KMAX)
    for tl in tls:
        prob, absent = predicted_relevance(tl, 0.9)
        X = _rank_features(tl.ranks, 0.9)
        J = tl.judged
        mu, sd = X[J].mean(0), X[J].std(0)
        clf = LogisticRegression(C=1.0, tol=1e-10, max_iter=10000).fit((X[J] - mu) / sd,
                                                                       tl.gain[J])
        assert prob == pytest.approx(clf.predict_proba((X - mu) / sd)[:, 1], abs=1e-5)
        x0 = _rank_features(np.full((1, 6), KMAX + 1), 0.9)
        assert absent == pytest.approx(clf.predict_proba((x0 - mu) / sd)[0, 1], abs=1e-4)
    # judged documents keep their judgment: with the whole list judged, prediction = LB
    full = restrict_qrels(deep, pool_depth(L, 25))
    E = estimate_scores(L, full, L.names, 25, p=0.9, depth=25, losses=(), theta=0.0,
                        rank_level=())
    pr = adjusted_scores(L, full, L.names, 25, E.lower, E.upper, 0.9, 25, ("prediction",))
    assert pr["prediction"] == pytest.approx(E.lower, abs=1e-12)


# ------------------------------------------------------------- recall-based estimation


def _binary_collection(seed):
    runs, deep = _random_collection(seed, n_runs=4, n_docs=30, n_topics=2, length=12)
    return runs, deep


@pytest.mark.parametrize("family", ["AP", "nDCG"])
def test_recall_estimate_equals_truth_when_the_shallow_pool_is_the_deep_one(family):
    from tiebreak.judgments.recall import recall_scores

    runs, deep = _binary_collection(11)
    L = run_lists(runs, deep)
    truth = score_runs(deep, runs, [family], [10])["scores"][:, 0, 0, 0]
    gains = {(t, f"x{d:02d}"): 0.7 for t in deep.topics for d in range(30)}  # never used
    R = recall_scores(L, deep, family, 10, gains, 0.3)
    for key in ("estimate", "lower", "upper"):
        assert R[key] == pytest.approx(truth, abs=1e-12)


@pytest.mark.parametrize("family", ["AP", "nDCG"])
@pytest.mark.parametrize("seed", [3, 4])
def test_recall_bounds_are_the_exact_range_and_hold_the_estimate(family, seed):
    import itertools

    from tiebreak.judgments.estimate import _judgment_lookup, _values
    from tiebreak.judgments.recall import _recall_metric, recall_scores

    runs, deep = _binary_collection(seed)
    runs = runs[:3]
    L = run_lists(runs, deep)
    shallow = restrict_qrels(deep, pool_depth(L, 2))
    k = 5
    rng = np.random.default_rng(seed)
    gains = {(t, f"x{d:02d}"): float(rng.random()) for t in deep.topics for d in range(30)}
    R = recall_scores(L, shallow, family, k, gains)
    ks, vs = _judgment_lookup(shallow, L)
    for t in range(len(L.topics)):
        sel = (L.topic == t) & (L.rank <= k)
        U = np.unique(L.doc[sel])
        U = U[_values(ks, vs, (t << 32) | U) < 0]
        R0 = float(((shallow.value >= 1) & (shallow.topic == t)).sum())
        lists = []
        for s in range(3):
            m = sel & (L.run == s)
            doc = L.doc[m][np.argsort(L.rank[m])]
            lists.append((doc, _values(ks, vs, (t << 32) | doc)))
        lo = np.full(3, np.inf)
        hi = np.full(3, -np.inf)
        for bits in itertools.product([0.0, 1.0], repeat=len(U)):  # every assignment
            val = dict(zip(U.tolist(), bits))
            for s, (doc, v) in enumerate(lists):
                g = np.array([val.get(int(d), 0.0) if x < 0 else float(x >= 1)
                              for d, x in zip(doc, v)])
                m = _recall_metric(family, g, R0 + sum(bits), k)
                lo[s], hi[s] = min(lo[s], m), max(hi[s], m)
        assert R["lower"][:, t] == pytest.approx(lo, abs=1e-12)
        assert R["upper"][:, t] == pytest.approx(hi, abs=1e-12)
    assert (R["estimate"] >= R["lower"] - 1e-12).all()
    assert (R["estimate"] <= R["upper"] + 1e-12).all()
    assert (R["upper"] > R["lower"]).any()


@pytest.mark.slow
def test_estimate_cli_recall_metric_and_gains_round_trip(tmp_path):
    from click.testing import CliRunner

    from tiebreak.cli import main

    runs, deep = _random_collection(21, n_runs=4, n_docs=40, n_topics=2, length=25)
    L = run_lists(runs, deep)
    shallow = restrict_qrels(deep, pool_depth(L, 5))
    from tiebreak.judgments.pool import write_qrels

    with open(tmp_path / "q", "w") as fh:
        write_qrels(shallow, fh)
    paths = []
    for r in runs:
        p = tmp_path / r.name
        with open(p, "w") as fh:
            for i in range(len(r.topic)):
                fh.write(f"{r.topics[r.topic[i]]} Q0 {r.docnos[r.docid[i]]} {r.rank[i]} "
                         f"{r.score[i]} {r.name}\n")
        paths.append(str(p))
    base = ["estimate", "--qrels", str(tmp_path / "q"), "--format", "tsv", "--theta", "0"]
    g = tmp_path / "gains.tsv"
    a = CliRunner().invoke(main, [*base, "--metric", "AP@20", "--gains", str(g), *paths])
    assert a.exit_code == 0, a.output
    head, *rows = a.stdout.splitlines()
    assert head.split("\t") == ["run", "qid", "estimate", "lower", "upper", "gamma_n",
                                "adjusted"]
    vals = np.array([[float(x) for x in r.split("\t")[2:5]] for r in rows])
    assert (vals[:, 0] >= vals[:, 1] - 1e-6).all() and (vals[:, 0] <= vals[:, 2] + 1e-6).all()
    assert (vals[:, 2] > vals[:, 1]).any()
    # the written gains read back give the same AP estimate
    b = CliRunner().invoke(main, [*base, "--metric", "AP@20", "--gains-from", str(g), *paths])
    assert b.exit_code == 0, b.output
    assert b.stdout.splitlines()[1:] == rows
    # and the same RBP as the fitted estimator
    c1 = CliRunner().invoke(main, [*base, "--depth", "20", *paths])
    c2 = CliRunner().invoke(main, [*base, "--depth", "20", "--gains-from", str(g), *paths])
    assert c1.exit_code == 0 and c2.exit_code == 0, c1.output + c2.output
    v1 = np.array([float(r.split("\t")[2]) for r in c1.stdout.splitlines()[1:]])
    v2 = np.array([float(r.split("\t")[2]) for r in c2.stdout.splitlines()[1:]])
    assert v1 == pytest.approx(v2, abs=2e-6)
    bad = CliRunner().invoke(main, [*base, "--metric", "AP", *paths])
    assert bad.exit_code == 2


@pytest.mark.slow
def test_sampled_orderings_with_everything_sampled_match_the_deep_orderings():
    from tiebreak.studies.estimate import sampled_orderings

    runs, q = _random_collection(4, n_runs=5, n_docs=40, n_topics=3, length=25)
    full = sampled_orderings(q, runs, 3, rate=1.0, depth=20, p=0.8, seeds=[0])
    assert set(full.estimator) == {"InfRBP", "L_a", "L_b", "LB", "infAP"}
    assert (full.tau_dist == 0).all() and (full.wdist < 1e-3).all()
    part = sampled_orderings(q, runs, 3, rate=0.3, depth=20, p=0.8, seeds=[0, 1])
    assert len(part) == 10 and (part.tau_dist > 0).any()
