"""tiebreak study dropout: random judgment drop-out (Lu 2018 Section 7.2.2)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from click.testing import CliRunner

from tiebreak.cli import main
from tiebreak.io import read_qrels, read_run
from tiebreak.judgments.scoring import score_runs
from tiebreak.studies.dropout import drop_judgments, dropout_table, run_dropout_study


def _toy(seed=0):
    rng = np.random.default_rng(seed)
    runs = []
    for r in range(4):
        lines = [f"{t} Q0 x{d:02d} {i + 1} {50 - i} r{r}" for t in (1, 2, 3)
                 for i, d in enumerate(rng.choice(30, size=15, replace=False))]
        runs.append(read_run(io.BytesIO(("\n".join(lines) + "\n").encode()), name=f"r{r}"))
    q = "".join(f"{t} 0 x{d:02d} {int(rng.random() < 0.4)}\n" for t in (1, 2, 3)
                for d in range(30))
    return runs, read_qrels(io.BytesIO(q.encode()))


def test_drop_judgments_removes_the_share_of_each_topic():
    _, q = _toy()
    d = drop_judgments(q, 0.3, np.random.default_rng(1))
    assert np.bincount(d.topic, minlength=3).tolist() == [21, 21, 21]  # 30 - floor(9)
    kept = set(zip(d.topic.tolist(), d.docid.tolist(), d.value.tolist()))
    assert kept <= set(zip(q.topic.tolist(), q.docid.tolist(), q.value.tolist()))
    with pytest.raises(ValueError):
        drop_judgments(q, 1.0, np.random.default_rng(1))


def test_study_replays_its_drop_outs():
    runs, q = _toy()
    st = run_dropout_study(q, runs, [0.0, 0.4], repeats=3, metrics=["AP@10", "P@5"], seed=5)
    full = score_runs(q, runs, ["AP@10", "P@5"], [1000])["scores"][:, :, 0, 0].mean(axis=2)
    assert st.full == pytest.approx(full)
    assert st.scores[0] == pytest.approx(np.broadcast_to(full, st.scores[0].shape))
    rng = np.random.default_rng(5)  # the same draws in the same order
    for _ in range(3):
        drop_judgments(q, 0.0, rng)
    for b in range(3):
        d = drop_judgments(q, 0.4, rng)
        s = score_runs(d, runs, ["AP@10", "P@5"], [1000])["scores"][:, :, 0, 0].mean(axis=2)
        assert st.scores[1, b] == pytest.approx(s)
    tab = dropout_table(st)
    z = tab[tab.share == 0.0]
    assert (z.sd_mean == 0).all() and (z.bias == 0).all() and (z.tau == 1).all()
    x = tab[(tab.share == 0.4) & (tab.metric == "P@5")].iloc[0]
    sd = st.scores[1, :, :, 1].std(axis=0, ddof=1)
    assert x.sd_mean == pytest.approx(sd.mean()) and x.sd_max == pytest.approx(sd.max())
    assert x.bias < 0  # dropping judgments only removes relevant documents from P@5


def test_leave_one_out_scores_each_run_on_the_others_pool(tmp_path):
    from tiebreak.judgments.pool import pool_depth, restrict_qrels, run_lists

    runs, q = _toy(2)
    st = run_dropout_study(q, runs, [0.0], repeats=1, metrics=["P@10"], leave_one_out=True,
                           pool_depth=3)
    L = run_lists(runs, q)
    for i, r in enumerate(runs):
        base = restrict_qrels(q, pool_depth(L, 3, [x.name for x in runs if x is not r]))
        assert st.full[i, 0] == pytest.approx(
            score_runs(base, [r], ["P@10"], [1000])["scores"][0, 0, 0, 0].mean())
    paths = []
    for r in runs:
        p = tmp_path / r.name
        p.write_text("".join(f"{r.topics[r.topic[i]]} Q0 {r.docnos[r.docid[i]]} {r.rank[i]} "
                             f"{r.score[i]} {r.name}\n" for i in range(len(r.topic))))
        paths.append(str(p))
    qp = tmp_path / "q"
    qp.write_text("".join(f"{q.topics[t]} 0 {q.docnos[d]} {v}\n"
                          for t, d, v in zip(q.topic, q.docid, q.value)))
    res = CliRunner().invoke(main, ["study", "dropout", "--qrels", str(qp), "--repeats", "2",
                                    "--share", "0.2", "-m", "P@10", "--format", "tsv", *paths])
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[0].split("\t") == ["share", "metric", "sd_mean", "sd_max",
                                                      "cv", "bias", "tau", "swaps"]
    bad = CliRunner().invoke(main, ["study", "dropout", "--qrels", str(qp), "-m", "P", *paths])
    assert bad.exit_code == 2
