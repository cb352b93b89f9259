"""Scale-out on Dask: a LocalCluster of 2 worker processes gives the local results exactly."""

from __future__ import annotations

import numpy as np
import pytest

import tiebreak as tb

distributed = pytest.importorskip("distributed", reason="Dask not installed: pip install "
                                  "'tiebreak[dask]'")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.mark.slow
def test_dask_equals_local(client, shared_data):
    d = shared_data / "trec_covid" / "round1"
    runs = sorted((d / "runs").iterdir())[:6]
    q = tb.read_qrels(d / "qrels-rnd1.txt")
    ev = tb.Evaluator(q, ["AP", "nDCG@10", "P@10"], ["trec_eval", "expected"])
    local = ev.evaluate(runs)
    remote = tb.Evaluator(q, ["AP", "nDCG@10", "P@10"],
                          ["trec_eval", "expected"]).evaluate(runs, client=client)
    assert remote.runs == local.runs
    np.testing.assert_array_equal(remote.per_topic, local.per_topic)
    np.testing.assert_array_equal(remote.mean, local.mean)
    assert remote.warnings == local.warnings
    # a second evaluation of an identical evaluator gets a copy of its own (no key shared with
    # the first one while the cluster releases it)
    again = tb.Evaluator(q, ["AP", "nDCG@10", "P@10"],
                         ["trec_eval", "expected"]).evaluate(runs, client=client)
    np.testing.assert_array_equal(again.per_topic, local.per_topic)


@pytest.mark.slow
def test_studies_on_dask_equal_local(client, shared_data):
    """The studies send their work through the one parallel helper: on the cluster they give
    the local numbers exactly (tie study, band study, depth scoring)."""
    from tiebreak.judgments.scoring import score_runs_parallel
    from tiebreak.studies import study_bands, study_ties

    d = shared_data / "trec_covid" / "round1"
    paths = [str(p) for p in sorted((d / "runs").iterdir())[:4]]
    q = tb.read_qrels(d / "qrels-rnd1.txt")

    ties_local = study_ties.run_study(q, paths)
    ties_dask = study_ties.run_study(q, paths, client=client)
    assert ties_dask.systems == ties_local.systems
    np.testing.assert_array_equal(ties_dask.scores, ties_local.scores)
    np.testing.assert_array_equal(ties_dask.tied, ties_local.tied)

    bands_local = study_bands.run_study(q, paths, ["2.0"], ["RR", "AP"], jobs=1)
    bands_dask = study_bands.run_study(q, paths, ["2.0"], ["RR", "AP"], client=client)
    np.testing.assert_array_equal(bands_dask.banded, bands_local.banded)
    np.testing.assert_array_equal(bands_dask.original, bands_local.original)

    runs = [tb.read_run(p) for p in paths]
    local = score_runs_parallel(q, runs, ["AP", "RBP(p=0.8)"], [10, 100], ["trec_eval"], jobs=1)
    remote = score_runs_parallel(q, runs, ["AP", "RBP(p=0.8)"], [10, 100], ["trec_eval"],
                                 client=client)
    assert remote["names"] == local["names"]
    for k in ("scores", "residual", "judged"):
        np.testing.assert_array_equal(remote[k], local[k])


def test_dask_option_reports_a_bad_address(tmp_path):
    """--dask with an unreachable scheduler: a one-line error and exit status 2."""
    from click.testing import CliRunner

    from tiebreak.cli import main

    (tmp_path / "q").write_text("1 0 d1 1\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 1.0 t\n")
    res = CliRunner().invoke(main, ["eval", "--dask", "not-a-scheme://nowhere",
                                    str(tmp_path / "q"), str(tmp_path / "r")])
    assert res.exit_code == 2, res.output
    assert "--dask not-a-scheme://nowhere" in res.output
